/*
 * A run cut into pieces (`ingest --segment`, rows `<run>#seg<k>`) weighs
 * one run in calibrate's point estimate, as it counts one in the interval
 * (docs/calibration.md, "Segments"): each of its k rows weighs 1/k in the
 * least squares. Until 2026-12-07 each piece weighed a row, so a run cut
 * into 10 outweighed 9 whole runs beside it; and `--relative-to`'s "only
 * 1 run" refusal, and the platform scope's, counted rows, so one run of
 * the reference level cut into 3 pieces was calibrated on as 3 runs.
 *
 * Exact check: pieces that are copies of the whole run give, weighted
 * 1/k, the very objective of the uncut table, so the same point estimate
 * to the solver's tolerance.
 */
#include "fit/fit.h"
#include "tests/support/support.h"

#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static void
add(wc_runs_table *t, const char *platform, const char *id, double b, double n, double power, double idle)
{
	wc_run r;
	wc_run_init(&r);
	snprintf(r.run_id, sizeof r.run_id, "%s", id);
	snprintf(r.platform, sizeof r.platform, "%s", platform);
	snprintf(r.model, sizeof r.model, "Qwen3-8B");
	r.active_params_b = b;
	r.running = n;
	r.mean_power_w = power;
	r.idle_power_w = idle;
	wc_runs_append(t, &r, NULL);
}

/* `id` whole, or cut into k copies of itself. */
static void
add_cut(wc_runs_table *t, const char *platform, const char *id, int k, double b, double n, double power, double idle)
{
	char piece[64];
	if (k <= 1) {
		add(t, platform, id, b, n, power, idle);
		return;
	}
	for (int i = 1; i <= k; i++) {
		snprintf(piece, sizeof piece, "%s#seg%d", id, i);
		add(t, platform, piece, b, n, power, idle);
	}
}

static int
point(const wc_params *base, const wc_runs_table *t, wc_calibrate_scope scope, const char *platform, double *x,
      int *runs, wc_error *err)
{
	wc_calibrate_options o = WC_CALIBRATE_OPTIONS_INIT;
	wc_calibrate_result r;
	o.scope = scope;
	o.platform = platform;
	o.replicates = -1;
	int rc = wc_calibrate(base, t, &o, &r, err);
	for (int i = 0; rc == WC_OK && i < r.n_estimates && i < 2; i++)
		x[i] = r.estimates[i].value.value;
	if (rc == WC_OK)
		*runs = r.n_runs;
	wc_calibrate_result_clear(&r);
	return rc;
}

/* Model scope: three H100 runs that one shift cannot fit alike, the third
 * whole and cut into 10. */
static void
model_scope(const wc_params *base)
{
	double whole[2] = { NAN, NAN }, cut[2] = { NAN, NAN };
	int rw = 0, rc_ = 0;
	wc_error err;
	wc_runs_table *t1 = wc_runs_new(), *t10 = wc_runs_new();
	for (int k = 0; k < 2; k++) {
		wc_runs_table *t = k ? t10 : t1;
		add(t, "H100", "a", 8.19, 8, 380.0, 70.0);
		add(t, "H100", "b", 8.19, 32, 560.0, 70.0);
		add_cut(t, "H100", "c", k ? 10 : 1, 8.19, 16, 420.0, 70.0);
	}
	CHECK_INT(point(base, t1, WC_CALIBRATE_MODEL, NULL, whole, &rw, &err), WC_OK);
	CHECK_INT(point(base, t10, WC_CALIBRATE_MODEL, NULL, cut, &rc_, &err), WC_OK);
	printf("  model scope: shift whole %.9f, run c in 10 pieces %.9f (%d and %d runs)\n", whole[0], cut[0], rw, rc_);
	CHECK(isfinite(whole[0]));
	CHECK_NEAR(cut[0], whole[0], 1e-6);
	CHECK_INT(rc_, 3);
	wc_runs_free(t1);
	wc_runs_free(t10);
}

/* Platform scope (two unknowns): a new level from three runs, the last
 * whole and cut into 5. */
static void
platform_scope(const wc_params *base)
{
	double whole[2] = { NAN, NAN }, cut[2] = { NAN, NAN };
	int rw = 0, rc_ = 0;
	wc_error err;
	wc_runs_table *t1 = wc_runs_new(), *t5 = wc_runs_new();
	for (int k = 0; k < 2; k++) {
		wc_runs_table *t = k ? t5 : t1;
		add(t, "GH200", "p", 8.19, 4, 300.0, 90.0);
		add(t, "GH200", "q", 8.19, 16, 470.0, 90.0);
		add_cut(t, "GH200", "r", k ? 5 : 1, 8.19, 64, 640.0, 90.0);
	}
	CHECK_INT(point(base, t1, WC_CALIBRATE_PLATFORM, "GH200", whole, &rw, &err), WC_OK);
	CHECK_INT(point(base, t5, WC_CALIBRATE_PLATFORM, "GH200", cut, &rc_, &err), WC_OK);
	printf("  platform scope: S %.6f, theta %.9f whole; S %.6f, theta %.9f with run r in 5 pieces\n", whole[0],
	       whole[1], cut[0], cut[1]);
	CHECK(isfinite(whole[0]) && isfinite(whole[1]));
	CHECK_NEAR(cut[0] / whole[0], 1.0, 1e-6);
	CHECK_NEAR(cut[1], whole[1], 1e-6);
	CHECK_INT(rc_, 3);
	wc_runs_free(t1);
	wc_runs_free(t5);
}

/* The refusals count runs: the reference level's one run in 3 pieces at
 * three loads is 1 run, named without its suffix; a new level's one run
 * in pieces too. */
static void
refusals(const wc_params *base)
{
	wc_calibrate_options o = WC_CALIBRATE_OPTIONS_INIT;
	wc_calibrate_result r;
	wc_error err;
	wc_runs_table *t = wc_runs_new();
	add(t, "GH200", "g1", 8.19, 4, 300.0, 90.0);
	add(t, "GH200", "g2", 8.19, 32, 560.0, 90.0);
	add(t, "H100", "h1#seg1", 8.19, 4, 280.0, 70.0);
	add(t, "H100", "h1#seg2", 8.19, 16, 420.0, 70.0);
	add(t, "H100", "h1#seg3", 8.19, 64, 600.0, 70.0);
	o.scope = WC_CALIBRATE_PLATFORM;
	o.platform = "GH200";
	o.relative_to = "H100";
	o.replicates = -1;
	int rc = wc_calibrate(base, t, &o, &r, &err);
	CHECK_INT(rc, WC_EINVAL);
	if (rc == WC_EINVAL) {
		printf("  %s\n", err.msg);
		CHECK_CONTAINS(err.msg, "--relative-to: the reference level 'H100' has only 1 run here, 'h1' (its pieces "
		                        "are one run)");
		CHECK(strlen(err.msg) < WC_ERROR_MSG_MAX - 1);
	}
	wc_calibrate_result_clear(&r);
	/* a new level from one run in pieces */
	o.relative_to = NULL;
	o.platform = "H100-PCIe";
	wc_runs_table *one = wc_runs_new();
	add(one, "H100-PCIe", "p1#seg1", 8.19, 4, 250.0, 60.0);
	add(one, "H100-PCIe", "p1#seg2", 8.19, 32, 330.0, 60.0);
	rc = wc_calibrate(base, one, &o, &r, &err);
	CHECK_INT(rc, WC_EINVAL);
	if (rc == WC_EINVAL)
		CHECK_CONTAINS(err.msg, "needs 2 or more runs at different loads to identify S and theta of 'H100-PCIe'; "
		                        "got 1 run (its pieces are one run)");
	wc_calibrate_result_clear(&r);
	wc_runs_free(one);
	wc_runs_free(t);
}

int
main(void)
{
	wc_params base = WC_PARAMS_INIT;
	gsl_set_error_handler_off();
	wc_params_default(&base);
	model_scope(&base);
	platform_scope(&base);
	refusals(&base);
	CHECK(test_doc_says("docs/calibration.md", "each of its k rows weighs 1/k"));
	wc_params_clear(&base);
	return check_report("test_calibrate_segment_weight");
}
