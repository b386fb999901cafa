/*
 * wattcast envelope on the command line: a forecast with its CSV and SVG,
 * a budget plan, fit response and validate envelope on synthetic run
 * folders (with the capacity model's service times, the stand-in forced,
 * and the fallback -- warned by fit response too -- and refusal of
 * --service for a model without an architecture), and bad inputs refused
 * with the flag (or file position) named: a negative rate, a horizon over
 * the bound, an empty replay log, an n(t) with NaN.
 */
#include "data/data.h"
#include "tests/support/support.h"
#include "tests/support/synth_envelope.h"

#include <jansson.h>
#include <stdlib.h>
#include <sys/stat.h>

static void
expect_usage(const char *const *argv, int status, const char *needle)
{
	run_result r;
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	CHECK_INT(r.status, status);
	CHECK_CONTAINS(r.err, needle);
	run_result_free(&r);
}

/* Bands no machine holds are refused before any work, naming the flags
 * (100 000 replicas x a week in 0.05 s bins: 19 TB); they used to fail
 * late with "out of memory", exit 1, or swap for a quarter of an hour. */
static void
test_memory_bound(void)
{
	const char *argv[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--poisson", "0.001",
	                       "--horizon", "604800", "--replicas", "100000", "--bin", "0.05", NULL };
	expect_usage(argv, 2, "--replicas, --horizon, --bin: 100000 replicas x 12096000 bins of 0.05 s need");
	/* an n(t) file's bad value and spacing are named at their rows */
	char *dir = test_tmpdir("cli_envelope_series"), *ns = path_join(dir, "ns.csv"), *gap = path_join(dir, "gap.csv");
	CHECK_INT(write_text(ns, "t_s,running\n0,3\n30,1e9\n60,2\n"), 0);
	CHECK_INT(write_text(gap, "t_s,running\n0,3\n100000,2\n"), 0);
	const char *nsv[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--n-series", ns,
		              "--horizon", "60", NULL };
	expect_usage(nsv, 1, "--n-series: /");
	expect_usage(nsv, 1, "ns.csv:3:4: running must be a number 0 to 65536, got 1e9");
	const char *gapv[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--n-series", gap,
		               "--horizon", "60", NULL };
	expect_usage(gapv, 1, "gap.csv: lines 2 and 3 are 100000 s apart, the file's closest");
	free(ns);
	free(gap);
	free(dir);
	/* the configuration is the command line's: exit 2 naming the flag */
	const char *plat[] = { "wattcast", "envelope", "--platform", "Z100", "--model", "Qwen3-8B", "--poisson", "1",
		               "--horizon", "10", NULL };
	expect_usage(plat, 2, "wattcast envelope: --platform: unknown platform 'Z100' (known: ");
	const char *clock[] = { "wattcast", "envelope", "--platform", "H100", "--model", "Qwen3-8B", "--poisson", "1",
		                "--horizon", "10", "--sm-clock", "5000", NULL };
	expect_usage(clock, 2, "wattcast envelope: --sm-clock: 5000 MHz is outside the clock range of H100");
	const char *prompt[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--poisson", "4",
		                 "--input-tokens", "10000000", "--horizon", "60", NULL };
	expect_usage(prompt, 2, "wattcast envelope: --input-tokens: a request of the workload's mean 10000000 input");
}

static void
test_bad_inputs(const char *dir)
{
	char *nan_series = path_join(dir, "nan.csv"), *empty = path_join(dir, "empty.json");
	write_text(nan_series, "t_s,running\n0,1\n1,nan\n2,3\n");
	write_text(empty, "{\"request_timestamps\":[],\"input_lens\":[],\"output_lens\":[],\"ttfts\":[],\"itls\":[]}\n");
	const char *neg[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--poisson", "-1", NULL };
	expect_usage(neg, 2, "wattcast envelope: --poisson: must be > 0, got '-1'");
	const char *hor[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--poisson", "2",
		              "--horizon", "1e9", NULL };
	expect_usage(hor, 2, "wattcast envelope: --horizon: must be between 0.05 and 604800 s, got 1000000000");
	/* just past the bound: "%g" rounded it to the bound itself */
	const char *hor1[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--poisson", "2",
		               "--horizon", "604800.05", NULL };
	expect_usage(hor1, 2, "wattcast envelope: --horizon: must be between 0.05 and 604800 s, got 604800.05");
	/* off the grid: simulated at another length than echoed (10.05 s) */
	const char *offgrid[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--poisson", "2",
		                  "--horizon", "10.03", NULL };
	expect_usage(offgrid, 2, "--horizon: must be a multiple of 0.05 s");
	const char *rep[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--replay", empty, NULL };
	expect_usage(rep, 1, "--replay: ");
	const char *ser[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--n-series",
		              nan_series, NULL };
	expect_usage(ser, 1, "--n-series: ");
	expect_usage(ser, 1, "nan.csv:3:3: expected a number, got 'nan'");
	const char *two[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--poisson", "2",
		              "--closed", "4", NULL };
	expect_usage(two, 2, "--closed: give exactly one workload");
	const char *none[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", NULL };
	expect_usage(none, 2, "give a workload");
	const char *bin[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--poisson", "2",
		              "--bin", "0.07", NULL };
	expect_usage(bin, 2, "--bin: must be a multiple of 0.05 s");
	/* plan options name their flags; a plan searches the fleet size */
	const char *pbin[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--poisson", "2",
		               "--horizon", "60", "--budget", "3000", "--budget-bin", "0.07", NULL };
	expect_usage(pbin, 2, "--budget-bin: must be a multiple of 0.05 s");
	const char *pfleet[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--poisson", "2",
		                 "--horizon", "60", "--budget", "3000", "--fleet", "4", NULL };
	expect_usage(pfleet, 2, "--budget searches the fleet size itself: --fleet does not apply");
	/* replicas were accepted and ignored (1, 10 and 50 gave one plan) */
	const char *prep[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--poisson", "2",
		               "--horizon", "60", "--budget", "3000", "--replicas", "10", NULL };
	expect_usage(prep, 2, "--budget sizes the fleet on one simulated path per probe: --replicas does not apply");
	const char *samp[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--closed", "4",
		               "--horizon", "30", "--sample", "60", NULL };
	expect_usage(samp, 2, "--sample: 60 s would sample the horizon of 30 s at t = 0 alone; at most 29.95 s samples "
	                      "it twice");
	/* a cadence of the horizon samples t = 0 alone too: its idle was every
	 * percentile and the max, below the mean (Poisson 4 over 10 s: mean
	 * 330.92 W, max 94.73 W) */
	samp[11] = "30";
	expect_usage(samp, 2, "--sample: 30 s would sample the horizon of 30 s at t = 0 alone");
	const char *huge[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Llama-3.1-405B", "--poisson",
		               "1", "--horizon", "60", NULL };
	expect_usage(huge, 2, "--tp: the weights need 810.0 GB but 1 x A100");
	/* A workload past the model's context is warned of, as a capacity
	 * answer is (Llama-2's 4096 tokens); one inside it is not. */
	for (int k = 0; k < 4; k++) { /* k >= 2: as a budget plan */
		const char *ctx[] = { "wattcast", "envelope", "--platform", "H100", "--model", "Llama-2-7B", "--closed", "4",
			              "--input-tokens", k % 2 ? "3000" : "4000", "--output-tokens", "500", "--horizon", "20",
			              k < 2 ? "--replicas" : "--budget", k < 2 ? "2" : "3000", NULL };
		run_result cr;
		CHECK(run_wattcast(ctx, NULL, &cr) == 0);
		CHECK_INT(cr.status, 0);
		CHECK_INT(cr.out && strstr(cr.out, "input_tokens: the workload's mean 4000 + 500 tokens exceed the model's "
		                                    "context of 4096 tokens") != NULL, !(k % 2));
		run_result_free(&cr);
	}
	/* A level on a named board (H100-locked runs on H100) is refused for
	 * its weights, not blamed on the KV cache. */
	const char *locked[] = { "wattcast", "envelope", "--profile", "paper", "--platform", "H100-locked", "--model",
		                 "Llama-3.1-405B", "--closed", "32", "--horizon", "60", "--replicas", "2", NULL };
	expect_usage(locked, 2, "--tp: the weights need 810.0 GB but 1 x H100-locked");
	/* whole, within 255 bytes (it was cut at "attentio") */
	expect_usage(locked, 2, "the smallest Llama-3.1-405B's 128 attention and 8 KV heads allow\n");
	/* the level's name in another case is the level, echoed as the set spells it */
	const char *lower[] = { "wattcast", "envelope", "--profile", "paper", "--platform", "h100-locked", "--model",
		                "Llama-3.1-405B", "--closed", "32", "--horizon", "60", "--replicas", "2", NULL };
	expect_usage(lower, 2, "--tp: the weights need 810.0 GB but 1 x H100-locked");
	const char *idle[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--poisson", "1",
		               "--horizon", "30", "--idle-power", "1e6", NULL };
	expect_usage(idle, 2, "--idle-power: 1000000 W per GPU is not below A100's board limit of 400 W");
	/* the shortest horizon: the default bins fit it; a --bin given is
	 * checked as given */
	const char *shortest[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--poisson", "1",
		                   "--horizon", "0.05", "--replicas", "1", NULL };
	expect_usage(shortest, 0, "");
	const char *shortest_plan[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--poisson",
		                        "1", "--horizon", "0.05", "--budget", "3000", NULL };
	expect_usage(shortest_plan, 0, "");
	const char *shortest_bin[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--poisson",
		                       "1", "--horizon", "0.05", "--bin", "1", NULL };
	expect_usage(shortest_bin, 2, "--bin: must be a multiple of 0.05 s up to the horizon, got 1");
	free(nan_series);
	free(empty);
}

static void
test_forecast_files(const char *dir)
{
	char *csv = path_join(dir, "band.csv"), *svg = path_join(dir, "band.svg");
	const char *argv[] = { "wattcast", "envelope", "--platform", "H100", "--model", "Qwen3-8B", "--poisson", "3",
		               "--output-tokens", "lognormal:200:150", "--horizon", "30", "--replicas", "4",
		               "--bin", "2", "--csv", csv, "--svg", svg, "--fleet", "3", "--profile", "paper", NULL };
	run_result r;
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, "service times: capacity (level H100: eta 0.783");
	CHECK_CONTAINS(r.out, "fleet of 3 (independent)");
	CHECK_CONTAINS(r.out, "energy_per_output_token_j");
	run_result_free(&r);
	char *text = NULL;
	size_t len = 0;
	wc_error err;
	CHECK_INT(wc_read_file(csv, 1 << 20, &text, &len, &err), WC_OK);
	CHECK_CONTAINS(text, "t_s,mean_w,p5_w,p95_w,mean_running,fleet_mean_w");
	CHECK_CONTAINS(text, "\n28.000,");
	free(text);
	CHECK_INT(wc_read_file(svg, 1 << 20, &text, &len, &err), WC_OK);
	CHECK_CONTAINS(text, "<svg");
	CHECK_CONTAINS(text, "<polygon");
	free(text);
	free(csv);
	free(svg);
	/* A budget plan as JSON. */
	const char *plan[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--closed", "8",
		               "--horizon", "20", "--budget", "5000", "--max-fleet", "64", "--json", NULL };
	CHECK_INT(run_wattcast(plan, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	json_t *j = json_loads(r.out ? r.out : "", 0, NULL);
	const json_t *p = json_object_get(j, "plan");
	CHECK(json_integer_value(json_object_get(p, "fleet_size")) > 5);
	CHECK(json_number_value(json_object_get(p, "stat_w")) <= 5000);
	/* its interval says what it covers, as the envelope's interval_95 does */
	const json_t *siv = json_object_get(p, "stat_interval_95");
	CHECK_CONTAINS(json_string_value(json_object_get(siv, "covers")), "the law's held-out error of mean power");
	CHECK(json_integer_value(json_object_get(json_object_get(siv, "stratum"), "runs")) > 0);
	json_decref(j);
	run_result_free(&r);
}

/* A request log not sorted by arrival replays as the sorted one does
 * (the same JSON, bit for bit), with a note saying it was sorted; an
 * impossible budget prints 0 servers and no NaN. */
static void
test_unsorted_replay_and_budget_text(const char *dir)
{
	char *sorted = path_join(dir, "sorted.json"), *shuffled = path_join(dir, "shuffled.json");
	write_text(sorted, "{\"request_timestamps\":[1000.0,1001.5,1001.5,1003.25,1007.0],"
	                   "\"input_lens\":[300,1200,40,900,500],\"output_lens\":[200,60,300,120,80],"
	                   "\"e2els\":[3,2,4,2.5,1]}");
	write_text(shuffled, "{\"request_timestamps\":[1003.25,1000.0,1007.0,1001.5,1001.5],"
	                     "\"input_lens\":[900,300,500,1200,40],\"output_lens\":[120,200,80,60,300],"
	                     "\"e2els\":[2.5,3,1,2,4]}");
	run_result a, b;
	const char *argv_a[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--replay", sorted,
		                 "--horizon", "12", "--replicas", "2", "--json", NULL };
	const char *argv_b[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--replay",
		                 shuffled, "--horizon", "12", "--replicas", "2", "--json", NULL };
	CHECK_INT(run_wattcast(argv_a, NULL, &a), 0);
	CHECK_INT(run_wattcast(argv_b, NULL, &b), 0);
	CHECK_INT(a.status, 0);
	CHECK_INT(b.status, 0);
	CHECK(a.out && b.out && strcmp(a.out, b.out) == 0);
	CHECK(!a.err || !strstr(a.err, "not in arrival order"));
	CHECK_CONTAINS(b.err, "not in arrival order (2 requests before an earlier one); replayed sorted by arrival");
	run_result_free(&a);
	run_result_free(&b);
	const char *plan[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--poisson", "4",
		               "--horizon", "20", "--budget", "300", NULL };
	CHECK_INT(run_wattcast(plan, NULL, &a), 0);
	CHECK_INT(a.status, 0);
	CHECK_CONTAINS(a.out, "budget plan: 0 servers: not even one keeps the aggregate p95");
	CHECK(a.out && !strstr(a.out, "nan"));
	run_result_free(&a);
	free(sorted);
	free(shuffled);
}

static void
test_replay_missing_lengths(const char *dir)
{
	char *log = path_join(dir, "requests.csv");
	write_text(log, "arrival_s,first_token_s,completion_s,input_tokens,output_tokens\n"
	                "1000.0,1000.3,1000.8,4129,31\n1001.0,,1001.6,4218,44\n1002.0,1002.3,1005.6,4959,\n"
	                "1005.7,1005.8,1006.3,5115,41\n");
	char want[512];
	run_result r;
	const char *given[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--replay", log,
		                "--horizon", "6", "--replicas", "2", "--output-tokens", "100", NULL };
	CHECK_INT(run_wattcast(given, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	snprintf(want, sizeof want, "wattcast envelope: warning: --replay %s: 1 of 4 requests has no output_tokens; "
	         "drawn from --output-tokens 100\n", log);
	CHECK_CONTAINS(r.err, want);
	CHECK(!r.err || !strstr(r.err, "no input_tokens"));
	run_result_free(&r);
	const char *dflt[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--replay", log,
		               "--horizon", "6", "--replicas", "2", NULL };
	CHECK_INT(run_wattcast(dflt, NULL, &r), 0);
	snprintf(want, sizeof want, "1 of 4 requests has no output_tokens; drawn from the default --output-tokens 256\n");
	CHECK_CONTAINS(r.err, want);
	run_result_free(&r);
	free(log);
}

/* validate envelope --service: the stand-in forced (named in the per-run
 * CSV); a model without an architecture falls back with the reason in the
 * JSON and the CSV's warnings, and forcing the capacity model then is a
 * usage error naming --service and the run. */
static void
test_validate_service(const char *dir, const char *runs, const char *params)
{
	char *csv = path_join(dir, "per_run.csv");
	const char *standin[] = { "wattcast", "validate", "envelope", "--params", params, runs, "--platform", "A100",
		                  "--model", "Qwen3-8B", "--utc-offset", "0", "--replicas", "2", "--quiet",
		                  "--service", "standin", "--per-run", csv, NULL };
	run_result r;
	char *text = NULL;
	size_t len = 0;
	wc_error err;
	CHECK_INT(run_wattcast(standin, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, "service times: roofline_standin;");
	/* --response params (the default) fits no fold: no linger bound line */
	CHECK(r.out && strstr(r.out, "linger bound:") == NULL);
	run_result_free(&r);
	CHECK_INT(wc_read_file(csv, 1 << 20, &text, &len, &err), WC_OK);
	CHECK_CONTAINS(text, "roofline_standin");
	/* the predictive interval beside the Monte-Carlo spread (lo, hi):
	 * filled on the mean and p95 rows, blank on the others */
	CHECK_CONTAINS(text, ",interval_95_lo,interval_95_hi,model,quantity,");
	CHECK_CONTAINS(text, ",,Qwen3-8B,p5_w,");
	/* no Monte-Carlo spread where nothing is drawn: lo/hi blank (they
	 * were lo = hi = predicted, a band that could not vary), and said */
	CHECK_CONTAINS(text, ",,,run,\"the replay draws nothing at random (arrivals and lengths from the request "
	                     "log): simulated once, no Monte-Carlo spread (lo/hi blank)");
	free(text);
	/* --level takes zero-shot or loro; anything else is a usage error naming it. */
	const char *badlevel[] = { "wattcast", "validate", "envelope", "--params", params, runs, "--platform", "A100",
		                   "--level", "bogus", "--quiet", NULL };
	expect_usage(badlevel, 2, "--level: expected zero-shot or loro, got 'bogus'");
	const char *noarch[] = { "wattcast", "validate", "envelope", "--params", params, runs, "--platform", "A100",
		                 "--model", "Mystery-8B", "--active-params", "8.19", "--utc-offset", "0", "--replicas",
		                 "2", "--quiet", "--json", "--per-run", csv, NULL };
	CHECK_INT(run_wattcast(noarch, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	json_t *j = json_loads(r.out ? r.out : "", 0, NULL);
	const json_t *run0 = json_array_get(json_object_get(j, "runs"), 0);
	CHECK(strcmp(json_string_value(json_object_get(run0, "service_times")), "roofline_standin") == 0);
	CHECK_CONTAINS(json_string_value(json_object_get(run0, "service_warning")), "the model's architecture is unknown");
	json_decref(j);
	run_result_free(&r);
	CHECK_INT(wc_read_file(csv, 1 << 20, &text, &len, &err), WC_OK);
	CHECK_CONTAINS(text, "not the capacity model: the model's architecture is unknown");
	free(text);
	char *out = path_join(dir, "resp-noarch.json");
	const char *fit[] = { "wattcast", "fit", "response", runs, "-o", out, "--platform", "A100", "--model",
		              "Mystery-8B", "--active-params", "8.19", "--utc-offset", "0", "--bootstrap", "0", NULL };
	CHECK_INT(run_wattcast(fit, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.err, "wattcast fit response: warning: r1: service times: the roofline stand-in");
	run_result_free(&r);
	free(out);
	const char *forced[] = { "wattcast", "validate", "envelope", "--params", params, runs, "--platform", "A100",
		                 "--model", "Mystery-8B", "--active-params", "8.19", "--utc-offset", "0", "--quiet",
		                 "--service", "capacity", NULL };
	CHECK_INT(run_wattcast(forced, NULL, &r), 0);
	CHECK_INT(r.status, 2);
	CHECK_CONTAINS(r.err, "wattcast validate envelope: --service: the capacity model cannot give the service "
	                      "times: the model's architecture is unknown (envelopes take none: give a catalog model) (run r");
	run_result_free(&r);
	free(csv);
}

static void
test_fit_and_validate(const char *dir)
{
	char *runs = path_join(dir, "runs");
	mkdir(runs, 0755);
	char *a = synth_envelope_run(runs, "r1", 0), *b = synth_envelope_run(runs, "r2", 5),
	     *c = synth_envelope_run(runs, "r3", -5);
	char *out = path_join(dir, "resp.json");
	const char *fit[] = { "wattcast", "fit", "response", runs, "-o", out, "--platform", "A100", "--model",
		              "Qwen3-8B", "--utc-offset", "0", "--bootstrap", "20", "--quiet", NULL };
	run_result r;
	CHECK_INT(run_wattcast(fit, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	if (r.status)
		fprintf(stderr, "%s", r.err);
	CHECK_CONTAINS(r.out, "response fitted on 3 runs");
	CHECK_CONTAINS(r.out, "(params_version "); /* as every command writing a parameter file says */
	run_result_free(&r);
	{ /* the section records what it was fitted on (it recorded nothing) */
		wc_params fp = WC_PARAMS_INIT;
		wc_error ferr;
		CHECK_INT(wc_params_load_file(out, &fp, &ferr), WC_OK);
		CHECK(strcmp(fp.response.record.fitted_on, runs) == 0);
		CHECK_INT(fp.response.record.bootstrap, 20);
		CHECK(fp.response.record.created_utc[0] != '\0' && fp.response.record.tool_version[0] != '\0');
		CHECK(fp.response.linger_bound_s > 0); /* the bound it used, chosen or the section's own */
		wc_params_clear(&fp);
	}
	const char *val[] = { "wattcast", "validate", "envelope", "--params", out, runs, "--platform", "A100",
		              "--model", "Qwen3-8B", "--utc-offset", "0", "--response", "loro", "--json",
		              "--replicas", "4", "--quiet", NULL };
	CHECK_INT(run_wattcast(val, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	if (r.status)
		fprintf(stderr, "%s", r.err);
	json_t *j = json_loads(r.out ? r.out : "", 0, NULL);
	CHECK(json_array_size(json_object_get(j, "runs")) == 3);
	CHECK(json_integer_value(json_object_get(j, "seed")) == 1); /* the report reproduces with it */
	/* every arrival and length of these runs is in its request log: the replay draws
	 * nothing at random, so each is simulated once, not 4 times over */
	CHECK(json_integer_value(json_object_get(j, "runs_simulated_once")) == 3);
	CHECK(json_integer_value(json_object_get(json_array_get(json_object_get(j, "runs"), 0), "replicas")) == 1);
	CHECK(json_is_number(json_object_get(j, "median_mean_err_pct")));
	CHECK(json_is_false(json_object_get(j, "response_in_sample"))); /* each run left out of its fit */
	CHECK(json_is_number(json_object_get(j, "median_p95_err_pct")));
	CHECK(json_is_number(json_object_get(j, "median_ramp_ratio")));
	/* The file keeps the paper profile's capacity section: its service times. */
	CHECK(strcmp(json_string_value(json_object_get(j, "service_times")), "capacity") == 0);
	CHECK(strcmp(json_string_value(json_object_get(json_array_get(json_object_get(j, "runs"), 0), "service_times")),
	             "capacity") == 0);
	json_decref(j);
	run_result_free(&r);
	/* each fold has 2 runs: none can be left out inside it, so no bound is
	 * chosen -- the text says so rather than "0 s, chosen" */
	const char *val_text[] = { "wattcast", "validate", "envelope", "--params", out, runs, "--platform", "A100",
		                   "--model", "Qwen3-8B", "--utc-offset", "0", "--response", "loro",
		                   "--replicas", "4", "--quiet", NULL };
	CHECK_INT(run_wattcast(val_text, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, "linger bound: r1: none chosen (fewer than two of the fold's runs could be left out)");
	/* no replica count or seed that could change nothing (it said "4
	 * replicas, seed 1" over identical replicas) */
	CHECK_CONTAINS(r.out, "each simulated once: the replays draw nothing at random (arrivals and lengths from "
	                      "the request log), so --seed and --replicas change nothing;");
	CHECK(r.out && strstr(r.out, "4 replicas") == NULL);
	CHECK(r.out && strstr(r.out, "0 s, chosen") == NULL);
	run_result_free(&r);
	/* --response params on the runs the response was fitted on: in-sample
	 * scores, which it presented as validation without a word */
	const char *val_in[] = { "wattcast", "validate", "envelope", "--params", out, runs, "--platform", "A100", "--model",
		                 "Qwen3-8B", "--utc-offset", "0", "--json", "--quiet", NULL };
	CHECK_INT(run_wattcast(val_in, NULL, &r), 0);
	CHECK_CONTAINS(r.err, "warning: the response of the parameter set was fitted on these runs (its provenance "
	                      "fitted_on ");
	CHECK_CONTAINS(r.out, "\"response_in_sample\": true");
	run_result_free(&r);
	/* one run given twice (its folder beside its parent's) would weigh
	 * twice in the medians and the coverage: refused as ingest refuses it */
	const char *twice[] = { "wattcast", "validate", "envelope", "--params", out, runs, a, "--platform", "A100",
		                "--model", "Qwen3-8B", "--utc-offset", "0", "--replicas", "2", "--quiet", NULL };
	CHECK_INT(run_wattcast(twice, NULL, &r), 0);
	CHECK_INT(r.status, 1);
	/* ... naming the one folder read twice: it said "two runs with the
	 * same id: in .../r1 and .../r1", one path printed twice */
	CHECK_CONTAINS(r.err, "wattcast validate envelope: run_id 'r1' appears twice: its folder ");
	CHECK_CONTAINS(r.err, "/runs/r1 was read twice (inside two folders given)\n");
	CHECK(r.err && !strstr(r.err, "two runs with the same id"));
	run_result_free(&r);
	/* one RUN_DIR given twice: said so, naming the arguments */
	const char *given_twice[] = { "wattcast", "validate", "envelope", "--params", out, runs, runs, "--platform", "A100",
		                      "--model", "Qwen3-8B", "--utc-offset", "0", "--quiet", NULL };
	CHECK_INT(run_wattcast(given_twice, NULL, &r), 0);
	CHECK_INT(r.status, 1);
	{
		char said[600];
		snprintf(said, sizeof said, "wattcast validate envelope: %s: given twice (RUN_DIRs 1 and 2): each run counts "
		         "once\n", runs);
		CHECK(r.err && strcmp(r.err, said) == 0);
	}
	run_result_free(&r);
	/* ... and from a response's fit (it counted the run twice) */
	char *twice_out = path_join(dir, "twice.json");
	const char *fit_twice[] = { "wattcast", "fit", "response", runs, a, "--params", out, "--platform", "A100", "--model", "Qwen3-8B", "--utc-offset", "0",
		                    "--bootstrap", "0", "-o", twice_out, "--quiet", NULL };
	CHECK_INT(run_wattcast(fit_twice, NULL, &r), 0);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "wattcast fit response: run_id 'r1' appears twice");
	CHECK(!test_exists(twice_out));
	run_result_free(&r);
	free(twice_out);
	test_validate_service(dir, runs, out);
	/* An envelope from the fitted file names its response and uses the
	 * platform's own time constant. */
	wc_params p = WC_PARAMS_INIT;
	wc_error err;
	CHECK_INT(wc_params_load_file(out, &p, &err), WC_OK);
	double tau = wc_response_tau_for(&p.response, "A100");
	wc_params_clear(&p);
	const char *env[] = { "wattcast", "envelope", "--params", out, "--platform", "A100", "--model", "Qwen3-8B",
		              "--closed", "2", "--horizon", "10", "--replicas", "2", "--json", NULL };
	CHECK_INT(run_wattcast(env, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	j = json_loads(r.out ? r.out : "", 0, NULL);
	const json_t *resp = json_object_get(j, "response");
	CHECK(strcmp(json_string_value(json_object_get(resp, "source")), "fitted") == 0);
	CHECK_NEAR(json_number_value(json_object_get(resp, "tau_s")), tau, 1e-9 * tau);
	json_decref(j);
	run_result_free(&r);
	/* --measured replays the run's own two arrivals and lengths over its
	 * window (19.75 s of power, not the default 600 s horizon). Every
	 * arrival and length is known, so it is simulated once, as `validate
	 * envelope` simulates it: it said "2 replicas" and showed a
	 * Monte-Carlo spread of zero width. */
	const char *meas[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--measured", a,
		               "--utc-offset", "0", "--replicas", "2", NULL };
	CHECK_INT(run_wattcast(meas, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, "replay workload, 19.75 s, simulated once: the replay draws nothing at random, so "
	               "--seed and --replicas change nothing\n");
	CHECK_CONTAINS(r.out, "its own 2 arrivals (from requests) over its window of 19.75 s");
	CHECK(strstr(r.out, "Monte-Carlo spread [5 %, 95 %]") == NULL);
	CHECK(strstr(r.out, "replicas (seed") == NULL);
	CHECK_CONTAINS(r.out, "output_tokens                         500");
	CHECK_CONTAINS(r.out, "(P0 85.0 W/GPU"); /* the run's measured idle */
	char *first = r.out ? strdup(r.out) : NULL;
	run_result_free(&r);
	/* --json carries the measured run beside the prediction, as the text's
	 * "measured" column does */
	const char *meas_json[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--measured", a,
		                    "--utc-offset", "0", "--replicas", "2", "--json", NULL };
	CHECK_INT(run_wattcast(meas_json, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	j = json_loads(r.out ? r.out : "", 0, NULL);
	const json_t *mj = json_object_get(j, "measured");
	CHECK(mj != NULL);
	CHECK_INT(json_integer_value(json_object_get(mj, "arrivals")), 2);
	CHECK_NEAR(json_number_value(json_object_get(mj, "horizon_s")), 19.75, 1e-9);
	CHECK(json_number_value(json_object_get(mj, "mean_w")) > 85.0);
	CHECK(json_object_get(j, "server") != NULL);
	CHECK_INT(json_integer_value(json_object_get(json_object_get(j, "simulation"), "replicas")), 1);
	json_decref(j);
	run_result_free(&r);
	/* --csv carries the run's power per bin beside the band, as the SVG
	 * draws it (it had no measured column) */
	char *mcsv = path_join(a, "band.csv");
	const char *meas_csv[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--measured", a,
		                   "--utc-offset", "0", "--replicas", "2", "--csv", mcsv, NULL };
	CHECK_INT(run_wattcast(meas_csv, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	char *band = test_slurp(mcsv);
	CHECK_CONTAINS(band, "t_s,mean_w,p5_w,p95_w,mean_running,measured_w\n");
	const char *row = band ? strstr(band, "\n1.000,") : NULL; /* second 1 of the run: a sample, not an empty cell */
	const char *eol = row ? strchr(row + 1, '\n') : NULL;
	CHECK(row && eol && eol[-1] != ',');
	free(band);
	free(mcsv);
	run_result_free(&r);
	/* A run whose manifest names its board and model needs neither flag:
	 * the same replay, word for word. */
	char *man = path_join(a, "wattcast-run.json");
	CHECK_INT(write_text(man, "{\"schema\": \"wattcast.run/3\", \"platform\": \"A100\", "
	                          "\"model\": \"Qwen3-8B\"}"), 0);
	const char *bare[] = { "wattcast", "envelope", "--measured", a, "--utc-offset", "0", "--replicas", "2", NULL };
	CHECK_INT(run_wattcast(bare, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	CHECK(first && r.out && strcmp(first, r.out) == 0);
	run_result_free(&r);
	/* A manifest cut short is named at its line and column (it read as
	 * "--platform is required"). */
	CHECK_INT(write_text(man, "{\"schema\": \"wattcast.run/3\", \"platform\": \"A1"), 0);
	CHECK_INT(run_wattcast(bare, NULL, &r), 0);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "wattcast-run.json:1:");
	CHECK(strstr(r.err, "--platform is required") == NULL);
	run_result_free(&r);
	remove(man);
	free(man);
	free(first);
	free(a);
	free(b);
	free(c);
	free(out);
	free(runs);
}

/* A board answered from its datasheet says so in what its envelope's and
 * plan's intervals cover, as the power answer does (docs/intervals.md,
 * "Capacity levels from a datasheet"): only stratum.source said it. */
static void
test_datasheet_covers(void)
{
	const char *env[] = { "wattcast", "envelope", "--platform", "L40S", "--model", "Qwen3-8B", "--closed", "4",
		              "--horizon", "10", "--json", "--budget", "2000", NULL };
	const char *ds = "the law's held-out error of mean power of datasheet transfers (prediction_error)";
	const char *line[] = { "95 % predictive interval (the law's held-out error of mean power of datasheet transfers, ",
		               "of that p95 (the law's held-out error of mean power of datasheet transfers, not" };
	for (int k = 0; k < 4; k++) { /* the envelope, then the plan; JSON, then text */
		run_result r;
		env[10] = k < 2 ? "--json" : "--quiet";
		env[11] = k % 2 ? "--budget" : NULL;
		CHECK_INT(run_wattcast(env, NULL, &r), 0);
		CHECK_INT(r.status, 0);
		json_t *j = k < 2 ? json_loads(r.out ? r.out : "", 0, NULL) : NULL;
		const json_t *iv = k == 0 ? json_object_get(json_object_get(j, "server"), "interval_95")
		                          : json_object_get(json_object_get(j, "plan"), "stat_interval_95");
		if (k < 2) {
			CHECK_CONTAINS(json_string_value(json_object_get(json_object_get(iv, "stratum"), "source")), "datasheet");
			CHECK_CONTAINS(json_string_value(json_object_get(iv, "covers")), ds);
		} else {
			CHECK_CONTAINS(r.out, line[k - 2]);
		}
		json_decref(j);
		run_result_free(&r);
	}
}

int
main(void)
{
	char *dir = test_tmpdir("cli_envelope");
	test_bad_inputs(dir);
	test_memory_bound();
	test_forecast_files(dir);
	test_unsorted_replay_and_budget_text(dir);
	test_replay_missing_lengths(dir);
	test_fit_and_validate(dir);
	test_datasheet_covers();
	free(dir);
	return check_report("test_cli_envelope");
}
