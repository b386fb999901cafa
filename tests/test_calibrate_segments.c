/*
 * Segments of one run (`ingest --segment`, rows `<run>#seg<k>`) are one
 * run to `calibrate` (docs/calibration.md, "Segments"): counted once
 * ("1 run (10 pieces)") and moved by one deviate of the run scatter per
 * replicate, so cutting a run finer does not narrow the interval. Until
 * 2026-12-07 ten 5-s pieces of one H100 run were "(10 runs)" and the
 * shift's 95 % interval was 3.6 x narrower than the whole run's
 * ([0.06, 0.59] for [-0.41, 1.29]).
 */
#include "fit/fit.h"
#include "tests/support/support.h"

#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The pieces scatter a little around the whole run, as 5-s windows of a
 * steady run do (a few % in power, load within one request). */
static void
add(wc_runs_table *t, const char *id, double n, double power)
{
	wc_run r;
	wc_run_init(&r);
	snprintf(r.run_id, sizeof r.run_id, "%s", id);
	snprintf(r.platform, sizeof r.platform, "H100");
	snprintf(r.model, sizeof r.model, "Qwen3-8B");
	r.active_params_b = 8.19;
	r.running = n;
	r.mean_power_w = power;
	r.idle_power_w = 70.0;
	wc_runs_append(t, &r, NULL);
}

static double
width(const wc_params *base, const wc_runs_table *t, wc_calibrate_result *r)
{
	wc_calibrate_options o = WC_CALIBRATE_OPTIONS_INIT;
	wc_error err;
	o.replicates = 400;
	o.seed = 7;
	memset(r, 0, sizeof *r);
	CHECK_INT(wc_calibrate(base, t, &o, r, &err), WC_OK);
	CHECK_INT(r->n_estimates, 1);
	const wc_param *v = &r->estimates[0].value;
	printf("  %s %.4g [%.4g, %.4g]: %d run(s), %d piece(s)\n", r->estimates[0].label, v->value, v->lo, v->hi,
	       r->estimates[0].runs, r->estimates[0].pieces);
	return v->hi - v->lo;
}

int
main(void)
{
	/* The pieces' interval may be narrower than the whole run's by
	 * replicate noise and the pieces' own spread only: 400 replicates
	 * put the percentiles within a few %; counted as ten runs it was
	 * about 1/sqrt(10) = 0.32 of it. */
	const double tolerance = 0.20;
	wc_params base = WC_PARAMS_INIT;
	wc_calibrate_result whole, cut;
	gsl_set_error_handler_off();
	wc_params_default(&base);
	wc_runs_table *t1 = wc_runs_new(), *t10 = wc_runs_new();
	add(t1, "h100_run", 7.0, 420.0);
	for (int k = 1; k <= 10; k++) {
		char id[64];
		snprintf(id, sizeof id, "h100_run#seg%d", k);
		add(t10, id, 7.0 + 0.3 * sin(k), 420.0 * (1.0 + 0.03 * cos(1.7 * k)));
	}
	double w1 = width(&base, t1, &whole), w10 = width(&base, t10, &cut);
	printf("  interval width: whole run %.4g, 10 pieces %.4g (ratio %.3f)\n", w1, w10, w10 / w1);
	CHECK(isfinite(w1) && w1 > 0);
	CHECK(w10 >= (1.0 - tolerance) * w1);
	CHECK_INT(whole.n_runs, 1);
	CHECK_INT(cut.n_runs, 1);
	CHECK_INT(cut.n_pieces, 10);
	CHECK_INT(cut.estimates[0].runs, 1);
	CHECK_INT(cut.estimates[0].pieces, 10);
	CHECK_INT(cut.params.calibration.runs, 1);
	CHECK(cut.params.n_model_terms > 0 && cut.params.model_terms[cut.params.n_model_terms - 1].runs == 1);
	wc_calibrate_result_clear(&whole);
	wc_calibrate_result_clear(&cut);

	/* The command's words: "1 run (10 pieces)". */
	char *dir = test_tmpdir("calibrate_segments");
	char path[1024], out[1024];
	wc_error err;
	snprintf(path, sizeof path, "%s/pieces.csv", dir);
	snprintf(out, sizeof out, "%s/cal.json", dir);
	CHECK_INT(wc_runs_write(path, t10, NULL, &err), WC_OK);
	const char *argv[] = { "wattcast", "calibrate", "--profile", "paper", path, "-o", out, NULL };
	run_result rr;
	run_wattcast(argv, NULL, &rr);
	CHECK_INT(rr.status, 0);
	CHECK_CONTAINS(rr.out, ": 1 run (10 pieces); run scatter");
	CHECK_CONTAINS(rr.out, "(1 run, 10 pieces)");
	run_result_free(&rr);
	free(dir);
	CHECK(test_doc_says("docs/calibration.md", "pieces of one run are one run"));
	wc_runs_free(t1);
	wc_runs_free(t10);
	wc_params_clear(&base);
	return check_report("test_calibrate_segments");
}
