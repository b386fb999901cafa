/*
 * One calibrated set, one interval of mean power (docs/intervals.md,
 * "Calibrated sets"): a set calibrated on one ML.ENERGY run (Nemotron Nano
 * 12B v2 on one H100 at 32 sequences) adds the calibration's draws to the
 * base's held-out error in the power answer, and every other interval of
 * mean power of the same answer and the same set takes that rule too:
 * the capacity answer's node power, energy per hour (node power x 1 h),
 * power flexibility's steps, an envelope's mean and a budget plan's
 * statistic (their loads 31.8 and 32 requests: the same ratio to 0.1 %),
 * each saying the calibration's draws are in it. Energy per output token
 * takes the same rule with its own held-out error, wider than power's
 * (latency's miss is in it): never narrower, relative to its point, than
 * node power's. Before, all but the top-level node power kept the base's
 * ratio: 0.6835 where the power answer said 0.4943. The stratum those
 * answers widen by (wc__predict_calibrated_pe) evaluates the draws by the
 * power answer's own loop (wc__predict_draw_interval): at the answer's
 * running count it widens the answer's point to the answer's interval,
 * bit for bit.
 */
#include "data/params_file.h"
#include "predict/predict_internal.h"
#include "tests/support/support.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char runs_csv[] =
	"run_id,platform,tp,model,active_params_b,total_params_b,architecture,running,mean_power_w,weights,workload,"
	"output_tokens,throughput_tok_s,energy_per_token_j,set,nickname,weight_precision,tensor_parallel,"
	"expert_parallel,data_parallel,max_num_seqs,energy_per_request_joules,median_itl_ms,p90_itl_ms,p95_itl_ms,"
	"p99_itl_ms\n"
	"lm-arena-chat|nvidia/NVIDIA-Nemotron-Nano-12B-v2|H100|1gpu|seqs32,H100,1,nvidia/NVIDIA-Nemotron-Nano-12B-v2,"
	"12,12,hybrid,31.7689243028,559.59182404,bf16,closed,460.844726562,1807.48171434,0.309597502204,"
	"lm-arena-chat,NVIDIA Nemotron Nano 12B V2,bfloat16,1,1,1,32,142.67637624757475,14.496257528662682,"
	"15.625864267349243,55.9028796851635,62.74990998208523\n";

/* Whether docs/intervals.md ("Calibrated sets") says `phrase`, its runs
 * of white space read as one space: the numbers it quotes are the
 * program's (it said 0.3163 J, 0.1303-0.7102 J for 0.3158, 0.1301-0.7097). */
static int
page_says(const char *phrase)
{
	return test_doc_says("docs/intervals.md", phrase);
}

static json_t *
run_json(const char *const *argv)
{
	run_result r;
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	if (r.status != 0)
		fprintf(stderr, "%s\n", r.err ? r.err : "");
	json_t *j = json_loads(r.out ? r.out : "", 0, NULL);
	CHECK(j != NULL);
	run_result_free(&r);
	return j ? j : json_object();
}

static double
at(const json_t *o, const char *path)
{
	/* "a.b.c" or "a.b[i]" */
	char buf[256];
	snprintf(buf, sizeof buf, "%s", path);
	const json_t *cur = o;
	for (char *tok = strtok(buf, "."); tok && cur; tok = strtok(NULL, ".")) {
		char *br = strchr(tok, '[');
		if (br)
			*br = '\0';
		cur = json_object_get(cur, tok);
		if (br && cur)
			cur = json_array_get(cur, (size_t)atoi(br + 1));
	}
	CHECK(json_is_number(cur));
	if (!json_is_number(cur))
		fprintf(stderr, "  missing %s\n", path);
	return json_is_number(cur) ? json_number_value(cur) : NAN;
}

static const char *
text(const json_t *o, const char *a, const char *b, const char *c)
{
	const json_t *v = json_object_get(json_object_get(json_object_get(o, a), b), c);
	CHECK(json_is_string(v));
	return json_is_string(v) ? json_string_value(v) : "";
}

/* The power answer at `running` and the stratum the other answers widen
 * by, taken at the same count: the same draws, so the same ends. */
static void
same_draws(const char *params, double running)
{
	wc_params set = WC_PARAMS_INIT;
	wc_predictor *pr = NULL;
	wc_error err;
	CHECK_INT(wc_params_load_file(params, &set, &err), WC_OK);
	CHECK_INT(wc_predictor_new(&set, &pr, &err), WC_OK);
	wc_inference_query q = { .config = WC_CONFIG_INIT, .want_interval = 1 };
	q.config.platform = "H100";
	q.config.running = running;
	CHECK(wc_config_set_model(&q.config, "NVIDIA-Nemotron-Nano-12B-v2") != NULL);
	q.config.input_tokens = 512;
	q.config.output_tokens = 256;
	wc_inference_prediction a;
	CHECK_INT(wc_predict_inference(pr, &q, &a, &err), WC_OK);
	CHECK(a.has_interval && a.n_draws > 1 && a.pe_stratum);
	wc_pe_stratum folded;
	double lo = NAN, hi = NAN, w = a.power.node_power_w;
	if (a.pe_stratum) {
		int drawn = -1;
		CHECK(wc__predict_calibrated_pe(wc_predictor_params(pr), &q.config, a.mean_running, a.pe_stratum, &folded,
		                                &drawn));
		CHECK_INT(drawn, a.n_draws); /* the count the few-draws caveat names, the answer's */
		CHECK(wc_pe_widen(&folded, w, &lo, &hi));
		wc_interval_hold_ceiling(w, a.node_ceiling_w, &hi);
		wc_interval_hold_floor(w, a.node_floor_w, &lo);
	}
	fprintf(stderr, "at %g running: answer [%.9g, %.9g] W, from the folded stratum [%.9g, %.9g] W\n", running,
	        a.node_lo_w, a.node_hi_w, lo, hi);
	CHECK(lo == a.node_lo_w && hi == a.node_hi_w);
	wc_predictor_free(pr);
	wc_params_clear(&set);
}

int
main(void)
{
	char *dir = test_tmpdir("calibrated_intervals");
	char *csv = test_fixture(dir, "cal1.csv", runs_csv), *params = path_join(dir, "c1.json");
	const char *cal[] = { "wattcast", "calibrate", "--profile", "measured", csv, "-o", params, "--quiet", NULL };
	test_run_ok(cal);
#define Q "--platform", "H100", "--model", "NVIDIA-Nemotron-Nano-12B-v2", "--input-tokens", "512", \
	  "--output-tokens", "256", "--params", params, "--json"
	const char *pred[] = { "wattcast", "predict", "inference", Q, "--concurrency", "32", NULL };
	json_t *p = run_json(pred);
	const double w = at(p, "node_power_w"), lo = at(p, "interval_95.node_power_w[0]");
	const double ratio = lo / w;
	fprintf(stderr, "node power %.1f W, 95 %% from %.1f W (x %.4f)\n", w, lo, ratio);
	/* the calibration's draws widened: below the base's 0.6835 */
	CHECK(ratio > 0.3 && ratio < 0.6);
	/* the capacity answer's node power is the power answer's */
	CHECK_NEAR(at(p, "capacity.interval_95.node_power_w[0]"), lo, 1e-6 * w);
	CHECK_NEAR(at(p, "capacity.interval_95.node_power_w[1]"), at(p, "interval_95.node_power_w[1]"), 1e-6 * w);
	/* energy per hour is node power x 1 h, its ends too */
	const double kwh = at(p, "capacity.energy_per_hour_kwh");
	CHECK_NEAR(kwh, w / 1000.0, 1e-6);
	CHECK_NEAR(at(p, "capacity.interval_95.energy_per_hour_kwh[0]"), lo / 1000.0, 1e-6);
	/* energy per token and per request: the same rule, with energy's own
	 * (wider) error: never narrower than node power's, and alike */
	const double ej = at(p, "capacity.energy_per_output_token_j"), er = at(p, "capacity.energy_per_request_j");
	const double ej_ratio = at(p, "capacity.interval_95.energy_per_output_token_j[0]") / ej;
	fprintf(stderr, "energy per token %.4f J, 95 %% from x %.4f\n", ej, ej_ratio);
	CHECK(ej_ratio <= ratio + 1e-9);
	CHECK_NEAR(at(p, "capacity.interval_95.energy_per_request_j[0]") / er, ej_ratio, 1e-6);
	CHECK_CONTAINS(text(p, "capacity", "interval_95", "covers"), "parameters and held-out error");
	char phrase[160];
	snprintf(phrase, sizeof phrase, "is %.1f W, %.1f–%.0f W", w, lo, at(p, "interval_95.node_power_w[1]"));
	CHECK(page_says(phrase));
	snprintf(phrase, sizeof phrase, "energy per token %.4f J, %.4f–%.4f J (×%.3f", ej,
	         at(p, "capacity.interval_95.energy_per_output_token_j[0]"),
	         at(p, "capacity.interval_95.energy_per_output_token_j[1]"), ej_ratio);
	CHECK(page_says(phrase));
	json_decref(p);

	/* power flexibility's steps: the capacity answer's */
	const char *flex[] = { "wattcast", "predict", "flexibility", Q, "--concurrency", "32", "--steps", "3", NULL };
	json_t *f = run_json(flex);
	CHECK_NEAR(at(f, "interval_95.node_power_w[0]"), lo, 1e-6 * w);
	CHECK_NEAR(at(f, "steps[0].interval_95.node_power_w[0]"), lo, 1e-6 * w);
	CHECK_NEAR(at(f, "steps[0].interval_95.energy_per_output_token_j[0]") / ej, ej_ratio, 1e-6);
	json_decref(f);

	/* an envelope's mean, and a budget plan's statistic */
	const char *env[] = { "wattcast", "envelope", Q, "--closed", "32", "--horizon", "120", "--warmup", "20", NULL };
	json_t *e = run_json(env);
	const double mean = at(e, "server.summary.mean_w.value"), mlo = at(e, "server.interval_95.mean_w[0]");
	fprintf(stderr, "envelope mean %.1f W, 95 %% from %.1f W (x %.4f)\n", mean, mlo, mlo / mean);
	CHECK(fabs(mlo / mean / ratio - 1.0) < 1e-3);
	snprintf(phrase, sizeof phrase, "%.1f W, %.1f–%.0f W (×%.4f", mean, mlo, at(e, "server.interval_95.mean_w[1]"),
	         mlo / mean);
	CHECK(page_says(phrase));
	CHECK_CONTAINS(text(e, "server", "interval_95", "covers"), "the calibration's draws and the law's held-out error");
	json_decref(e);
	const char *plan[] = { "wattcast", "envelope", Q, "--closed", "32", "--horizon", "120", "--warmup", "20",
		               "--budget", "5000", "--max-fleet", "20", NULL };
	json_t *b = run_json(plan);
	const double st = at(b, "plan.stat_w"), slo = at(b, "plan.stat_interval_95.lo");
	fprintf(stderr, "plan %.1f W, 95 %% from %.1f W (x %.4f)\n", st, slo, slo / st);
	CHECK(fabs(slo / st / ratio - 1.0) < 1e-3);
	CHECK_CONTAINS(text(b, "plan", "stat_interval_95", "covers"), "the calibration's draws");
	json_decref(b);
	same_draws(params, 32);
	same_draws(params, 4);
	free(csv);
	free(params);
	free(dir);
	return check_report("test_calibrated_intervals");
}
