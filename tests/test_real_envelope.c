/*
 * Envelopes on the real PowerTrace-Sim runs (label realdata), read in
 * place: `fit response` on all eight runs (a time constant per platform:
 * the H100's meter is smoother than the A100's; the frozen law's level
 * below 1 on the short-prompt Poisson runs), then `validate envelope`
 * leaving each run out of the response fit, once with the paper
 * profile's capacity model as the service times (the default) and once
 * with the stand-in. Prints the per-run errors and medians
 * (docs/results.md keeps them) and checks them against loose bounds that
 * hold today, so a regression fails: the goals (mean and p95 within 5 %,
 * ramp ratio 0.7-1.4) are not met with the published law, whose dynamic
 * power is 12-28 % above these runs (law_level 0.76-0.88), and the paper
 * profile's prefill (compute efficiency 0.17) is about three times
 * slower than these runs' prefills, which raises the capacity numbers.
 * The measured profile's medians are checked against the pages that
 * quote them as current (measured_on_pages).
 */
#include "data/data.h"
#include "tests/support/support.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *const defaults[] = { "--platform", "A100", "--model", "Qwen3-8B", "--utc-offset", "-25200",
	                                "--quiet" };

static void
check_fit(const char *runs_dir, const char *out)
{
	const char *argv[] = { "wattcast", "fit", "response", runs_dir, "-o", out, "--bootstrap", "40", "--threads",
		               "2", defaults[0], defaults[1], defaults[2], defaults[3], defaults[4], defaults[5],
		               defaults[6], NULL };
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	fprintf(stderr, "%s", r.out ? r.out : "");
	/* the one H100 run: its tau's interval is that run's resampling */
	CHECK_CONTAINS(r.out, "warning: tau_s[H100] rests on 1 run");
	wc_params p = WC_PARAMS_INIT;
	wc_error err;
	CHECK_INT(wc_params_load_file(out, &p, &err), WC_OK);
	CHECK(p.response.present && p.response.fitted && p.response.runs == 8);
	double a100 = wc_response_tau_for(&p.response, "A100"), h100 = wc_response_tau_for(&p.response, "H100");
	CHECK(a100 > 0.02 && a100 < 0.3);
	CHECK(h100 > 0.3 && h100 < 2.0);
	CHECK(p.response.prefill_ratio.value > 0.2 && p.response.prefill_ratio.value < 1.2);
	CHECK(p.response.tau_s.lo <= p.response.tau_s.value && p.response.tau_s.value <= p.response.tau_s.hi);
	wc_params_clear(&p);
	run_result_free(&r);
}

/* Bounds on the medians that hold today, loose enough for a change of
 * seed or thread count, tight enough to catch a regression. */
typedef struct {
	const char *service, *source;
	double mean_max, p95_max, ramp_lo, ramp_hi;
	const char *profile, *level; /* NULL: paper, zero-shot */
} bounds;

/* Returns the median |error| of the mean; the medians of the mean, p95
 * and ramp ratio into `med` when not NULL. */
static double
check_validation(const char *runs_dir, const bounds *b, double med[3])
{
	const char *argv[] = { "wattcast", "validate", "envelope", "--profile", b->profile ? b->profile : "paper",
		               runs_dir, "--response", "loro", "--threads", "2", "--json", "--service", b->service,
		               "--level", b->level ? b->level : "zero-shot", defaults[0], defaults[1],
		               defaults[2], defaults[3], defaults[4], defaults[5], defaults[6], NULL };
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	json_t *j = json_loads(r.out ? r.out : "", 0, NULL);
	const json_t *runs = json_object_get(j, "runs"), *run;
	size_t i;
	CHECK_INT(json_array_size(runs), 8);
	fprintf(stderr, "profile %s, service times %s, level %s:\n", b->profile ? b->profile : "paper", b->service,
	        b->level ? b->level : "zero-shot");
	CHECK(strcmp(json_string_value(json_object_get(j, "service_times")), b->source) == 0);
	json_array_foreach(runs, i, run) {
		const json_t *p = json_object_get(run, "predicted"), *m = json_object_get(run, "measured");
		double pm = json_number_value(json_object_get(p, "mean_w")), mm = json_number_value(json_object_get(m, "mean_w"));
		double p95 = json_number_value(json_object_get(p, "p95_w")), m95 = json_number_value(json_object_get(m, "p95_w"));
		double pr = json_number_value(json_object_get(p, "ramp_w_per_s"));
		double mr = json_number_value(json_object_get(m, "ramp_w_per_s"));
		fprintf(stderr, "%-52s mean %+6.1f %%  p95 %+6.1f %%  ramp x%.2f  law_level %.3f\n",
		        json_string_value(json_object_get(run, "run_id")), 100 * (pm / mm - 1), 100 * (p95 / m95 - 1),
		        pr / mr, json_number_value(json_object_get(run, "law_level")));
		CHECK(isfinite(pm) && isfinite(p95) && isfinite(pr));
		/* Leaving the run out, the level is calibrated on the other runs of
		 * its platform: the six other A100 runs, never on the H100 alone. */
		const char *src = json_string_value(json_object_get(json_object_get(run, "level"), "source"));
		int runs_used = (int)json_integer_value(json_object_get(json_object_get(run, "level"), "runs"));
		if (!b->level)
			CHECK(src && strcmp(src, "zero_shot") == 0 && runs_used == 0);
		else if (strstr(json_string_value(json_object_get(run, "run_id")), "h100"))
			CHECK(src && strcmp(src, "zero_shot") == 0);
		else
			CHECK(src && strcmp(src, "calibrated_on_other_runs") == 0 && runs_used == 6);
		/* Each fold's bound on hold_s and decay_s is chosen by leaving each of
		 * its seven runs out in turn -- never the run held out, which would
		 * make eight -- and no fold's decay ends at the section's 60 s bound
		 * (the BurstGPT replay's fold did, zero-shot: +62.9 % on its mean). */
		const json_t *lb = json_object_get(run, "linger_bound");
		CHECK_INT((int)json_integer_value(json_object_get(lb, "folds")), 7);
		CHECK(json_number_value(json_object_get(lb, "chosen_s")) > 0);
		CHECK(json_number_value(json_object_get(json_object_get(run, "response"), "decay_s")) <
		      WC_RESPONSE_MAX_DECAY_S);
		CHECK(json_object_get(run, "response_warning") == NULL);
		const json_t *al = json_object_get(run, "at_measured_load");
		double at_load = json_number_value(json_object_get(al, "mean_err_pct"));
		CHECK(isfinite(at_load));
		CHECK(json_number_value(json_object_get(al, "running_measured")) > 0);
		/* The samples by running count: their counts add up to the samples
		 * weighted into the mean, each bucket's mean count lies in it, the
		 * law is P0 in the idle bucket and grows with the count. */
		const json_t *bl = json_object_get(al, "by_load");
		double law_prev = 0, weighted = 0, samples = 0;
		CHECK(json_array_size(bl) >= 2);
		for (size_t k = 0; k < json_array_size(bl); k++) {
			const json_t *x = json_array_get(bl, k);
			double lo = json_number_value(json_object_get(x, "running_min")), n = json_number_value(
				json_object_get(x, "running_mean")), law = json_number_value(json_object_get(x, "law_w_per_gpu"));
			const json_t *hi = json_object_get(x, "running_max");
			double c = (double)json_integer_value(json_object_get(x, "samples"));
			CHECK(c > 0 && n >= lo - 0.5 && (json_is_null(hi) || n < json_number_value(hi) + 0.5));
			CHECK(law > law_prev && isfinite(json_number_value(json_object_get(x, "measured_w_per_gpu"))));
			weighted += c * json_number_value(json_object_get(x, "measured_w_per_gpu"));
			samples += c;
			law_prev = law;
		}
		CHECK(samples > 10 && weighted > 0);
		/* A run replayed from its request log runs the same count in the
		 * simulation as measured, so the power map at its measured load
		 * errs as the envelope does -- when both use the law the run is
		 * predicted with (the calibrated one under --level loro: against
		 * the set's law the agentic replays read -36 and -29 % at their
		 * load, against -14 and +2 % replayed). With the measured profile,
		 * whose capacity section saw these runs' time to first token; the
		 * paper profile's prefills are three times too long. */
		if (b->profile && strcmp(json_string_value(json_object_get(run, "arrivals")), "requests") == 0)
			CHECK(fabs(at_load - 100 * (pm / mm - 1)) < 10);
		/* The Poisson runs replay their 200 requests (rebuilt from counters):
		 * each level's completed count, not the engine's prompt tokens
		 * over the client's mean prompt (202). */
		if (strstr(json_string_value(json_object_get(run, "run_id")), "validate"))
			CHECK_INT((int)json_integer_value(json_object_get(run, "requests")), 200);
	}
	double mean = json_number_value(json_object_get(j, "median_mean_err_pct"));
	double p95 = json_number_value(json_object_get(j, "median_p95_err_pct"));
	double ramp = json_number_value(json_object_get(j, "median_ramp_ratio"));
	fprintf(stderr, "median_mean_err_pct %.2f, median_p95_err_pct %.2f, median_ramp_ratio %.2f\n", mean, p95, ramp);
	CHECK(mean < b->mean_max);
	CHECK(p95 < b->p95_max);
	CHECK(ramp > b->ramp_lo && ramp < b->ramp_hi);
	/* The paper profile has a held-out error of mean power, so every run
	 * gets a predictive interval; with widths near 80 % of the prediction
	 * and errors near 15 %, at most one run of 8 may fall outside. */
	double cov_mean = json_number_value(json_object_get(j, "coverage_mean_pct"));
	double cov_p95 = json_number_value(json_object_get(j, "coverage_p95_pct"));
	double width = json_number_value(json_object_get(j, "median_width_mean_pct"));
	fprintf(stderr, "coverage mean %.1f %%, p95 %.1f %%, median width %.1f %%\n", cov_mean, cov_p95, width);
	CHECK_INT((int)json_integer_value(json_object_get(j, "runs_with_interval")), 8);
	CHECK(cov_mean >= 87.5 && cov_mean <= 100.0);
	CHECK(cov_p95 >= 87.5 && cov_p95 <= 100.0);
	CHECK(width > 0 && width < 200);
	json_decref(j);
	run_result_free(&r);
	if (med) {
		med[0] = mean;
		med[1] = p95;
		med[2] = ramp;
	}
	return mean;
}

/* A logged agentic session replayed on its own, with its measured trace
 * in the chart. */
static void
check_replay_chart(const char *runs_dir, const char *dir)
{
	char *run = path_join(runs_dir, "trace_replay_smoke_qwen3-8b_a100/a100_trace_replay_tp1_1784415083");
	char *log = path_join(run, "requests.json"), *svg = path_join(dir, "replay.svg");
	const char *argv[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--replay", log,
		               "--horizon", "7", "--replicas", "2", "--bin", "0.25", "--sample", "0.25", "--measured",
		               run, "--svg", svg, NULL };
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, "measured");
	char *text = NULL;
	size_t len = 0;
	wc_error err;
	CHECK_INT(wc_read_file(svg, 1 << 20, &text, &len, &err), WC_OK);
	CHECK_CONTAINS(text, "stroke=\"#d62728\""); /* the measured trace */
	free(text);
	run_result_free(&r);
	free(run);
	free(log);
	free(svg);
}

/* --measured predicts the run's own group (2 GPUs here, --tp not given)
 * and warns when a flag names another board or model than the run's. */
static void
check_measured_config(const char *runs_dir)
{
	char *run = path_join(runs_dir, "validate_gemma-4-26b-a4b_moe_transfer_a100");
	const char *same[] = { "wattcast", "envelope", "--platform", "A100", "--model", "google/gemma-4-26B-A4B-it",
		               "--measured", run, "--replicas", "2", NULL };
	const char *other[] = { "wattcast", "envelope", "--platform", "H100", "--model", "Qwen3-8B", "--measured",
		                run, "--replicas", "2", NULL };
	run_result r;
	CHECK(run_wattcast(same, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, "on 2 x A100");
	CHECK(strstr(r.err, "warning: --") == NULL);
	run_result_free(&r);
	CHECK(run_wattcast(other, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, "on 2 x H100");
	CHECK_CONTAINS(r.err, "warning: --platform H100, but the run");
	CHECK_CONTAINS(r.err, "warning: --model Qwen3-8B, but the run");
	CHECK_CONTAINS(r.out, "P0 126.3 W/GPU"); /* H100's level, not the A100 run's measured idle */
	run_result_free(&r);
	free(run);
}

/* A run on a catalog board the set has no level for (the A100 run
 * relabelled L40S in a copy of its folder) is replayed and validated on
 * the board's datasheet transfer, as a forecast is: it was refused,
 * "unknown level 'L40S'". */
static void
check_datasheet_board(const char *runs_dir, const char *dir)
{
	char *src = path_join(runs_dir, "validate_qwen3-8b_a100/a100_validate_tp1_r4p0_b1p0_s20260712_1784415439");
	char *run = path_join(dir, "l40s_run");
	mkdir(run, 0755);
	static const char *const files[] = { "engine.csv", "power.csv", "manifest.json" };
	for (int i = 0; i < 3; i++) {
		char *from = path_join(src, files[i]), *to = path_join(run, files[i]);
		char *text = test_slurp(from);
		CHECK(text != NULL);
		if (text && i == 2)
			text = test_replaced(text, "\"hardware\": \"A100\"", "\"hardware\": \"L40S\"");
		CHECK_INT(write_text(to, text ? text : ""), 0);
		free(text);
		free(from);
		free(to);
	}
	const char *env[] = { "wattcast", "envelope", "--measured", run, "--replicas", "2", NULL };
	const char *val[] = { "wattcast", "validate", "envelope", "--profile", "measured", run, NULL };
	run_result r;
	CHECK(run_wattcast(env, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, "on 1 x L40S");
	CHECK_CONTAINS(r.out, "no fitted level for L40S");
	run_result_free(&r);
	CHECK(run_wattcast(val, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, "median |error|: mean");
	run_result_free(&r);
	free(run);
	free(src);
}

static void
says(const char *rel, const char *phrase)
{
	CHECK(test_doc_says(rel, phrase));
}

/* The measured profile's medians (mean, p95, ramp ratio), zero-shot and
 * with --level loro, where the pages quote them as current: README
 * "Measured accuracy", docs/results.md "Real runs", docs/validation.md
 * "Service times, in-sample". When A100's idle became the real runs'
 * 84.21 W (12.84 / 4.69 / 1.24 and 7.59 / 8.95 / 0.91) the last two kept
 * 2026-12-06's 14.04 / 4.68 / 1.25 and 7.42 / 8.64 / 0.90. */
static void
measured_on_pages(const double zs[3], const double lo[3])
{
	char s[512];
	snprintf(s, sizeof s,
	         "the default `measured` profile: %.2f %% / %.2f %% / %.2f zero-shot, %.2f %% / %.2f %% / %.2f with "
	         "`--level loro`",
	         zs[0], zs[1], zs[2], lo[0], lo[1], lo[2]);
	says("README.md", s);
	snprintf(s, sizeof s, "|error| of the mean %.2f %% (11.16 %%), of p95 %.2f %% (7.64 %%), ramp ratio %.2f (1.06)",
	         zs[0], zs[1], zs[2]);
	says("docs/results.md", s);
	snprintf(s, sizeof s, "with `--level loro` %.2f %% / %.2f %% / %.2f, as in the [summary](#summary).", lo[0],
	         lo[1], lo[2]);
	says("docs/results.md", s);
	snprintf(s, sizeof s, "its envelope scores on those runs (%.2f %% / %.2f %% / %.2f zero-shot,", zs[0], zs[1],
	         zs[2]);
	says("docs/validation.md", s);
}

int
main(void)
{
	const char *shared = test_shared_dir();
	if (!shared)
		return TEST_SKIP;
	char *dir = test_tmpdir("real_envelope");
	char *runs_dir = path_join(shared, "data/real/powertrace-sim"), *out = path_join(dir, "response.json");
	check_fit(runs_dir, out);
	/* Measured today (arrivals from counters following the load gauge): capacity
	 * 16.4 % / 21.7 % / 1.44, stand-in 11.6 % / 9.51 % / 1.16 (before: 14.8 / 21.5 /
	 * 1.77 and 10.3 / 9.95 / 1.37; before the board limit: 16.0 / 25.2 / 2.17 and
	 * 10.9 / 10.2 / 1.41). */
	const bounds capacity = { "capacity", "capacity", 9, 12.5, 1.0, 1.8, NULL, NULL };
	const bounds standin = { "standin", "roofline_standin", 5, 8.5, 0.8, 1.4, NULL, NULL };
	check_validation(runs_dir, &capacity, NULL);
	check_validation(runs_dir, &standin, NULL);
	check_datasheet_board(runs_dir, dir);
	/* The measured profile, zero-shot and with the A100 level calibrated on
	 * the other runs (leaving each out), the response's dynamic scale fitted
	 * on the other runs too. Measured with the profile regenerated with the
	 * structure terms and A100 relative to H100: 13.63 % / 4.91 % / 1.33 and
	 * 7.23 % / 8.64 % / 0.92 (docs/results.md, "Envelopes", per run: the
	 * H100 run, zero-shot in both, went from -5.5 to -12.1 % and sets both
	 * medians; with the profile before, 9.04 / 2.96 / 1.20 and 3.84 / 8.04 /
	 * 0.95); the bounds leave about 1.5 points. With the bound of hold and
	 * decay chosen inside each fold the medians are the same (13.88 / 4.88 /
	 * 1.31 and 7.38 / 8.67 / 0.91; paper 6.96 / 10.88 / 1.41 and 3.27 /
	 * 7.02 / 1.12), the BurstGPT replay +62.9 -> +32.2 % zero-shot. The calibrated one must be
	 * the better on the mean: false if the calibration were not applied, or
	 * applied with the held-out run inside it and still worse. */
	const bounds measured = { "auto", "mixed", 15.1, 6.4, 0.8, 1.45, "measured", NULL };
	const bounds calibrated = { "auto", "mixed", 8.7, 10.1, 0.75, 1.1, "measured", "loro" };
	double zs[3], lo[3];
	double zero_shot = check_validation(runs_dir, &measured, zs);
	CHECK(check_validation(runs_dir, &calibrated, lo) < zero_shot);
	measured_on_pages(zs, lo);
	check_replay_chart(runs_dir, dir);
	check_measured_config(runs_dir);
	free(runs_dir);
	free(out);
	free(dir);
	return check_report("test_real_envelope");
}
