/*
 * Calibration from a few runs (docs/calibration.md): a platform simulated
 * with known P0, S and theta and calibrated from 3 runs recovers S and
 * theta inside their intervals (P0 measured); a model shift is recovered
 * from 1 run inside its interval; draws keep the base's columns and are
 * bit-identical for any thread count; refusals name the reason (library
 * and CLI: unknown platform for the model scope, one run or one load for
 * the platform scope, no idle power, power not above idle or an idle
 * run (at its file:line:column), no measured power, a load or power
 * beyond models/limits.h); the datasheet stratum of held-out error
 * ignores the held-out platform's model terms.
 */
#include "data/data.h"
#include "fit/fit.h"
#include "tests/support/support.h"
#include "validation/validation.h"

#include <gsl/gsl_errno.h>
#include <stdlib.h>

/* A base with draws: the law fitted on the default synthetic design. */
static void
make_base(wc_params *base)
{
	wc_params truth = WC_PARAMS_INIT;
	wc_runs_table *t = NULL;
	wc_simulate_options so = WC_SIMULATE_OPTIONS_INIT;
	wc_fit_options fo = WC_FIT_OPTIONS_INIT;
	wc_bootstrap_options bo = { 200, 5, 2 };
	wc_fit_result r;
	wc_error err;
	wc_params_default(&truth);
	so.seed = 7;
	CHECK_INT(wc_simulate_inference(&truth, &so, &t, &err), WC_OK);
	fo.prior = &truth;
	fo.precision_terms = 0;
	CHECK_INT(wc_fit_inference_law(t, &fo, &r, &err), WC_OK);
	CHECK_INT(wc_fit_bootstrap(t, &fo, &bo, &r, &err), WC_OK);
	CHECK(r.params.residual_rms > 0.0 && r.params.n_draws == 200);
	CHECK_INT(wc_params_copy(base, &r.params, &err), WC_OK);
	wc_fit_result_clear(&r);
	wc_runs_free(t);
	wc_params_clear(&truth);
}

/* A run of `truth` with 3 % multiplicative noise from `rng`. */
static void
add_run(wc_runs_table *t, const wc_params *truth, const char *id, const char *platform,
        const char *model, double n, double idle, wc_pcg32 *rng)
{
	wc_run r;
	wc_config c = WC_CONFIG_INIT;
	wc_power pw;
	wc_run_init(&r);
	snprintf(r.run_id, sizeof r.run_id, "%s", id);
	snprintf(r.platform, sizeof r.platform, "%s", platform);
	snprintf(r.model, sizeof r.model, "%s", model);
	r.tp = 1;
	r.active_params_b = wc_model_lookup(model)->active_params_b;
	r.running = n;
	r.idle_power_w = idle;
	c.platform = platform;
	c.active_params_b = r.active_params_b;
	c.running = n;
	c.model = model;
	c.idle_power_w = idle > 0 ? idle : 0;
	CHECK_INT(wc_law_power(truth, &c, &pw, NULL), WC_OK);
	r.mean_power_w = pw.node_power_w * exp(0.03 * wc_pcg32_normal(rng));
	CHECK_INT(wc_runs_append(t, &r, NULL), WC_OK);
}

static int
inside(const wc_param *p, double truth)
{
	printf("  %.4g [%.4g, %.4g], truth %.4g\n", p->value, p->lo, p->hi, truth);
	return p->lo <= truth && truth <= p->hi;
}

static void
platform_recovery(const wc_params *base)
{
	wc_params truth = WC_PARAMS_INIT;
	wc_runs_table *t = wc_runs_new();
	wc_calibrate_options o = WC_CALIBRATE_OPTIONS_INIT;
	wc_calibrate_result r, r2;
	wc_pcg32 rng;
	wc_error err;
	wc_params_copy(&truth, base, NULL);
	wc_level *l = &truth.levels[truth.n_levels++];
	memset(l, 0, sizeof *l);
	snprintf(l->name, sizeof l->name, "X9");
	l->p0 = (wc_param){ 150, NAN, NAN, WC_SRC_MEASURED };
	l->s = (wc_param){ 700, NAN, NAN, WC_SRC_ASSUMED };
	l->theta = (wc_param){ 1.0, NAN, NAN, WC_SRC_ASSUMED };
	l->floor_logit = (wc_param){ NAN, NAN, NAN, WC_SRC_ASSUMED };
	wc_pcg32_seed(&rng, 2024, 1);
	add_run(t, &truth, "x9-n4", "X9", "Qwen3-8B", 4, 150, &rng);
	add_run(t, &truth, "x9-n32", "X9", "Qwen3-8B", 32, 150, &rng);
	add_run(t, &truth, "x9-n128", "X9", "Qwen3-8B", 128, 150, &rng);
	o.scope = WC_CALIBRATE_PLATFORM;
	o.seed = 3;
	o.threads = 1;
	CHECK_INT(wc_calibrate(base, t, &o, &r, &err), WC_OK);
	const wc_level *got = wc_params_level(&r.params, "X9");
	CHECK(got != NULL);
	if (got) {
		CHECK(inside(&got->s, 700));
		CHECK(inside(&got->theta, 1.0));
		CHECK(got->p0.value == 150 && got->p0.source == WC_SRC_MEASURED);
		CHECK(got->s.source == WC_SRC_CALIBRATED && got->range.runs == 3);
	}
	/* The draws keep every base column and add S[X9], theta[X9]. */
	CHECK_INT(r.params.n_draw_params, base->n_draw_params + 2);
	CHECK_INT(r.params.n_draws, base->n_draws);
	/* Any thread count gives the same draws. */
	o.threads = 3;
	CHECK_INT(wc_calibrate(base, t, &o, &r2, &err), WC_OK);
	CHECK(r2.params.n_draws == r.params.n_draws &&
	      memcmp(r2.params.draws, r.params.draws,
	             sizeof(double) * r.params.n_draws * r.params.n_draw_params) == 0);
	if (got)
		CHECK(got->range.running_min == 4 && got->range.running_max == 128);
	/* A run with an n(t) series spans its loaded values, as `fit` records
	 * a level's range.running: the runs' means claimed 0.68-8.07 for runs
	 * loaded 1-20, and answers at 9-20 warned of extrapolation. */
	const double n128[] = { 64, 192 };
	CHECK_INT(wc_load_histogram_build(n128, NULL, 1.0, 2, &t->runs[2].series, NULL), WC_OK);
	CHECK(t->runs[2].series.mean == 128);
	o.threads = 1;
	wc_calibrate_result_clear(&r2);
	CHECK_INT(wc_calibrate(base, t, &o, &r2, &err), WC_OK);
	const wc_level *sl = wc_params_level(&r2.params, "X9");
	CHECK(sl && sl->range.running_min == 4 && sl->range.running_max == 192);
	wc_calibrate_result_clear(&r);
	wc_calibrate_result_clear(&r2);
	wc_runs_free(t);
	wc_params_clear(&truth);
}

static void
shift_recovery(const wc_params *base)
{
	wc_params truth = WC_PARAMS_INIT;
	wc_runs_table *t = wc_runs_new();
	wc_calibrate_options o = WC_CALIBRATE_OPTIONS_INIT;
	wc_calibrate_result r;
	wc_pcg32 rng;
	wc_error err;
	wc_params_copy(&truth, base, NULL);
	wc_model_term *m = &truth.model_terms[truth.n_model_terms++];
	memset(m, 0, sizeof *m);
	snprintf(m->model, sizeof m->model, "Llama-3.1-8B");
	snprintf(m->level, sizeof m->level, "H100");
	m->shift = (wc_param){ -0.6, NAN, NAN, WC_SRC_ASSUMED };
	wc_pcg32_seed(&rng, 2024, 2);
	add_run(t, &truth, "llama-n16", "H100", "Llama-3.1-8B", 16, 126.3, &rng);
	o.seed = 9;
	o.platform = "NVIDIA H100 80GB HBM3"; /* nvidia-smi's name selects the H100 runs */
	CHECK_INT(wc_calibrate(base, t, &o, &r, &err), WC_OK);
	CHECK_INT(r.params.n_model_terms, 1);
	CHECK_INT(r.n_estimates, 1);
	CHECK(strcmp(r.estimates[0].label, "shift[Llama-3.1-8B@H100]") == 0);
	CHECK(inside(&r.params.model_terms[0].shift, -0.6));
	CHECK(r.params.model_terms[0].shift.value < -0.2); /* the data moved it */
	/* A variant name gets the term; another model does not. */
	wc_config c = WC_CONFIG_INIT;
	wc_power with, without;
	c.platform = "H100";
	c.active_params_b = 8.03;
	c.running = 16;
	c.model = "meta-llama/Llama-3.1-8B-Instruct";
	CHECK_INT(wc_law_power(&r.params, &c, &with, NULL), WC_OK);
	c.model = "Qwen3-8B";
	CHECK_INT(wc_law_power(&r.params, &c, &without, NULL), WC_OK);
	CHECK(with.node_power_w < without.node_power_w - 20);
	wc_calibrate_result_clear(&r);
	wc_runs_free(t);
	wc_params_clear(&truth);
}

static void
expect_refusal(const wc_params *base, const char *csv, wc_calibrate_scope scope, const char *needle,
               const char *cli_scope)
{
	char *dir = test_tmpdir("calibrate"), *runs = path_join(dir, "runs.csv"), *out = path_join(dir, "o.json");
	char *bpath = path_join(dir, "base.json");
	wc_runs_table *t = NULL;
	wc_calibrate_options o = WC_CALIBRATE_OPTIONS_INIT;
	wc_calibrate_result r;
	wc_error err;
	CHECK_INT(write_text(runs, csv), 0);
	CHECK_INT(wc_params_save_file(bpath, base, NULL), WC_OK);
	if (wc_runs_read(runs, &t, &err) == WC_OK) {
		o.scope = scope;
		o.replicates = -1;
		CHECK(wc_calibrate(base, t, &o, &r, &err) == WC_EINVAL);
		CHECK_CONTAINS(err.msg, needle);
	} else {
		CHECK_CONTAINS(err.msg, needle); /* refused by the reader */
	}
	const char *argv[] = { "wattcast", "calibrate", "--params", bpath, runs, "-o", out, "--scope", cli_scope, NULL };
	run_result rr;
	run_wattcast(argv, NULL, &rr);
	CHECK_INT(rr.status, 1);
	CHECK_CONTAINS(rr.err, needle);
	run_result_free(&rr);
	wc_runs_free(t);
	free(dir);
	free(runs);
	free(out);
	free(bpath);
}

/* Leaving a platform out for the datasheet stratum must not keep the
 * model terms calibrated on that platform's own runs: a set whose terms
 * shift every H100 model far gives the same held-out error as one without
 * them (with them kept, the H100 fold's predictions move by e^3 in z). */
static void
datasheet_fold_drops_terms(void)
{
	wc_params truth = WC_PARAMS_INIT, shifted = WC_PARAMS_INIT;
	wc_runs_table *t = NULL;
	wc_simulate_options so = WC_SIMULATE_OPTIONS_INIT;
	wc_fit_options fo = WC_FIT_OPTIONS_INIT;
	wc_pred_error plain, with;
	wc_error err;
	wc_params_default(&truth);
	so.seed = 11;
	CHECK_INT(wc_simulate_inference(&truth, &so, &t, &err), WC_OK);
	CHECK_INT(wc_params_copy(&shifted, &truth, &err), WC_OK);
	for (size_t i = 0; i < t->n_runs; i++) {
		if (strcmp(t->runs[i].platform, "H100") != 0 || shifted.n_model_terms >= WC_MAX_MODEL_TERMS)
			continue;
		wc_model_term m = { .shift = { .value = 3.0, .lo = NAN, .hi = NAN }, .runs = 1 };
		wc_model_key(t->runs[i].model, m.model, sizeof m.model);
		snprintf(m.level, sizeof m.level, "H100");
		if (!wc_params_find_model_term(&shifted, m.model, "H100"))
			shifted.model_terms[shifted.n_model_terms++] = m;
	}
	CHECK(shifted.n_model_terms >= 1);
	CHECK_INT(wc_validate_pred_error(t, &fo, &truth, "platform", NULL, &plain, &err), WC_OK);
	CHECK_INT(wc_validate_pred_error(t, &fo, &shifted, "platform", NULL, &with, &err), WC_OK);
	CHECK(plain.n_strata == 1 && with.n_strata == 1 && plain.strata[0].n > 0);
	CHECK_INT(with.strata[0].n, plain.strata[0].n);
	CHECK(with.strata[0].q_hi == plain.strata[0].q_hi);
	printf("  datasheet stratum with %d H100 model terms: q = %.6f (without: %.6f)\n",
	       shifted.n_model_terms, with.strata[0].q_hi, plain.strata[0].q_hi);
	wc_params_clear(&shifted);
	wc_params_clear(&truth);
	wc_runs_free(t);
}

#define HEAD "run_id,platform,tp,model,active_params_b,running,mean_power_w,idle_power_w\n"

/* --idle-power is a power per GPU, bounded as the runs' (models/limits.h). */
static void
idle_power_bound(void)
{
	const char *argv[] = { "wattcast", "calibrate", "--profile", "paper", "runs.csv", "-o", "out.json", "--scope",
		               "platform", "--idle-power", "6000", NULL };
	run_result rr;
	run_wattcast(argv, NULL, &rr);
	CHECK_INT(rr.status, 2);
	CHECK_CONTAINS(rr.err, "wattcast calibrate: --idle-power: must be at most 5000, got '6000'");
	run_result_free(&rr);
}

int
main(void)
{
	wc_params base = WC_PARAMS_INIT;
	gsl_set_error_handler_off();
	make_base(&base);
	platform_recovery(&base);
	shift_recovery(&base);
	datasheet_fold_drops_terms();
	expect_refusal(&base, HEAD "a,B300,1,Qwen3-8B,8.19,32,700,\n", WC_CALIBRATE_MODEL,
	               "'B300', a level the base 'fit' does not have", "model");
	expect_refusal(&base, HEAD "a,B300,1,Qwen3-8B,8.19,32,700,150\n", WC_CALIBRATE_PLATFORM,
	               "needs 2 or more runs at different loads", "platform");
	expect_refusal(&base, HEAD "a,B300,1,Qwen3-8B,8.19,32,700,150\nb,B300,1,Qwen3-8B,8.19,32,710,150\n",
	               WC_CALIBRATE_PLATFORM, "all 2 runs are at one load", "platform");
	expect_refusal(&base, HEAD "a,B300,1,Qwen3-8B,8.19,8,600,\nb,B300,1,Qwen3-8B,8.19,64,800,\n",
	               WC_CALIBRATE_PLATFORM, "no measured idle power (idle_power_w of the runs), none was given "
	               "(--idle-power W)", "platform"); /* the CLI's words are its flags */
	expect_refusal(&base, HEAD "a,H100,1,Qwen3-8B,8.19,32,100,\n", WC_CALIBRATE_MODEL,
	               "runs.csv:2:27: column 'mean_power_w': run 'a' draws 100 W, not above its idle", "model");
	/* A run at 0 running is idle: no dynamic power to calibrate on. It was
	 * "Qwen3-8B on H100: the calibration did not converge (input domain
	 * error)", naming neither the run nor the cell. */
	expect_refusal(&base, HEAD "a,H100,1,Qwen3-8B,8.19,8,400,\nb,H100,1,Qwen3-8B,8.19,0,300,\n", WC_CALIBRATE_MODEL,
	               "runs.csv:3:24: column 'running': run 'b' is at 0 running requests: an idle run has no dynamic "
	               "power to calibrate on", "model");
	expect_refusal(&base, HEAD "a,B300,1,Qwen3-8B,8.19,0,300,150\nb,B300,1,Qwen3-8B,8.19,64,800,150\n",
	               WC_CALIBRATE_PLATFORM, "runs.csv:2:24: column 'running': run 'a' is at 0 running requests",
	               "platform");
	expect_refusal(&base, HEAD "a,H100,1,Qwen3-8B,8.19,32,,\n", WC_CALIBRATE_MODEL, "mean_power_w", "model");
	/* A load or power no run measures (models/limits.h) is refused at its
	 * cell, as POST /v1/calibrate names the field: 1e300 W calibrated. */
	expect_refusal(&base, HEAD "a,H100,1,Qwen3-8B,8.19,32,1e300,\n", WC_CALIBRATE_MODEL,
	               "runs.csv:2:27: column 'mean_power_w': must be at most 5000 W", "model");
	expect_refusal(&base, HEAD "a,H100,1,Qwen3-8B,8.19,1e300,500,\n", WC_CALIBRATE_MODEL,
	               "runs.csv:2:24: column 'running': must be at most 1e+06 requests at once", "model");
	idle_power_bound();
	wc_params_clear(&base);
	return check_report("test_calibrate");
}
