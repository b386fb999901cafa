/*
 * `calibrate --scope platform --relative-to LEVEL` (docs/calibration.md,
 * "Relative to a level"): runs of a new board and of a board the base
 * has, made by a stack whose H100 differs from the base's, give the new
 * level as the base's H100 plus the runs' offset of the new board from
 * their H100 -- not the runs' own level, which a plain platform
 * calibration returns. Refusals name the field.
 */
#include "fit/fit.h"
#include "tests/support/support.h"

#include <gsl/gsl_errno.h>
#include <math.h>
#include <string.h>

/* Noise-free runs of `truth`'s level `level`, written as platform `as`. */
static void
add_runs(wc_runs_table *t, const wc_params *truth, const char *level, const char *as)
{
	const double sizes[3] = { 1.7, 8.19, 32.8 }, loads[3] = { 4, 32, 128 };
	const wc_level *lv = wc_params_level(truth, level);
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++) {
			wc_config c = WC_CONFIG_INIT;
			wc_power pw;
			wc_error err;
			wc_run r;
			c.platform = level;
			c.active_params_b = sizes[i];
			c.running = loads[j];
			CHECK_INT(wc_law_power(truth, &c, &pw, &err), WC_OK);
			wc_run_init(&r);
			snprintf(r.run_id, sizeof r.run_id, "%s-%d-%d", as, i, j);
			snprintf(r.platform, sizeof r.platform, "%s", as);
			snprintf(r.model, sizeof r.model, "m%d", i);
			r.active_params_b = sizes[i];
			r.running = loads[j];
			r.mean_power_w = pw.node_power_w;
			r.idle_power_w = lv->p0.value;
			wc_runs_append(t, &r, NULL);
		}
}

int
main(void)
{
	wc_params base = WC_PARAMS_INIT, truth = WC_PARAMS_INIT;
	wc_error err;
	gsl_set_error_handler_off();
	wc_params_default(&base);
	CHECK_INT(wc_params_copy(&truth, &base, &err), WC_OK);
	/* The runs' stack: its H100 saturates lower than the base's (537 W,
	 * theta 1.32), and its new board sits 0.6 z-units above its H100 with
	 * 650/600 of its scale. */
	wc_level *h = (wc_level *)wc_params_level(&truth, "H100");
	wc_level *g = (wc_level *)wc_params_level(&truth, "A100");
	h->s.value = 600;
	h->theta.value = 1.0;
	g->s.value = 650;
	g->theta.value = 1.6;
	g->p0.value = 100;
	wc_runs_table *t = wc_runs_new();
	add_runs(t, &truth, "A100", "GH200");
	add_runs(t, &truth, "H100", "H100");

	wc_calibrate_options o = WC_CALIBRATE_OPTIONS_INIT;
	wc_calibrate_result r;
	o.scope = WC_CALIBRATE_PLATFORM;
	o.platform = "GH200";
	o.replicates = 20;
	o.seed = 3;
	/* Plain: the runs' own level. */
	CHECK_INT(wc_calibrate(&base, t, &o, &r, &err), WC_OK);
	const wc_level *lv = wc_params_level(&r.params, "GH200");
	CHECK(lv != NULL);
	if (lv) {
		printf("  plain:    S %.1f W, theta %.3f\n", lv->s.value, lv->theta.value);
		CHECK_NEAR(lv->s.value / 650, 1.0, 0.02);
		CHECK_NEAR(lv->theta.value, 1.6, 0.05);
	}
	wc_calibrate_result_clear(&r);
	/* Relative: the base's H100 (537 W, 1.32) plus the offsets. Its
	 * range, as the measured profile's H100 has it (fitted on runs at 8 or
	 * more running, 3-70 B active, TP 1-8), bounds the new level's: the
	 * shape below 8 running is H100's, unseen there (docs/calibration.md,
	 * "Relative to a level"). */
	wc_level *bh = (wc_level *)wc_params_level(&base, "H100");
	bh->range = (wc_range){ .active_b_min = 3, .active_b_max = 70, .running_min = 7.9, .running_max = 1915,
	                        .tp_min = 1, .tp_max = 8, .runs = 153 };
	o.relative_to = "H100";
	CHECK_INT(wc_calibrate(&base, t, &o, &r, &err), WC_OK);
	lv = wc_params_level(&r.params, "GH200");
	CHECK(lv != NULL);
	if (lv) {
		printf("  relative: S %.1f W [%.1f, %.1f], theta %.3f [%.3f, %.3f]\n", lv->s.value, lv->s.lo,
		       lv->s.hi, lv->theta.value, lv->theta.lo, lv->theta.hi);
		CHECK_NEAR(lv->s.value / (537.0 * 650 / 600), 1.0, 0.02);
		CHECK_NEAR(lv->theta.value, 1.32 + 0.6, 0.05);
		CHECK(lv->s.lo <= lv->s.value && lv->s.value <= lv->s.hi);
		CHECK(lv->theta.lo <= lv->theta.value && lv->theta.value <= lv->theta.hi);
		/* An interval is never zero-width (docs/intervals.md): the combined
		 * draws must carry the reference's spread and the offsets' own. */
		CHECK(lv->s.hi - lv->s.lo > 1e-6 * lv->s.value);
		CHECK(lv->theta.hi - lv->theta.lo > 1e-9);
		CHECK_NEAR(lv->p0.value, 100, 1e-9);
		/* the runs' span (1.7-32.8 B, 4-128 running, TP 1) within H100's */
		printf("  range: %g-%g B, %g-%g running, TP %d-%d\n", lv->range.active_b_min, lv->range.active_b_max,
		       lv->range.running_min, lv->range.running_max, lv->range.tp_min, lv->range.tp_max);
		CHECK_NEAR(lv->range.active_b_min, 3, 1e-12);
		CHECK_NEAR(lv->range.active_b_max, 32.8, 1e-12);
		CHECK_NEAR(lv->range.running_min, 7.9, 1e-12);
		CHECK_NEAR(lv->range.running_max, 128, 1e-12);
		CHECK_INT(lv->range.tp_min, 1);
		CHECK_INT(lv->range.tp_max, 1);
		CHECK_INT(lv->range.runs, 9);
	}
	/* Only the new level is added: no level for the reference's runs. */
	CHECK_INT(r.params.n_levels, base.n_levels + 1);
	int said = 0;
	for (int i = 0; i < r.n_warnings; i++)
		said |= strstr(r.warnings[i], "relative to the base's H100") != NULL;
	CHECK(said);
	wc_calibrate_result_clear(&r);
	/* Spans that do not meet: the level keeps H100's running span, where
	 * its shape was fitted, and the calibration says so. */
	bh->range.running_min = 200;
	bh->range.running_max = 1000;
	CHECK_INT(wc_calibrate(&base, t, &o, &r, &err), WC_OK);
	lv = wc_params_level(&r.params, "GH200");
	CHECK(lv != NULL);
	if (lv) {
		CHECK_NEAR(lv->range.running_min, 200, 1e-12);
		CHECK_NEAR(lv->range.running_max, 1000, 1e-12);
		CHECK_NEAR(lv->range.active_b_min, 3, 1e-12);
	}
	said = 0;
	for (int i = 0; i < r.n_warnings; i++)
		said |= strstr(r.warnings[i], "range: add runs of GH200 and H100 that share a running span") != NULL;
	CHECK(said);
	wc_calibrate_result_clear(&r);

	/* Refusals: a reference the base lacks, a table without its runs, the
	 * model scope. */
	o.relative_to = "B200";
	CHECK(wc_calibrate(&base, t, &o, &r, &err) == WC_EINVAL);
	CHECK_CONTAINS(err.msg, "--relative-to: 'B200' is not a level"); /* the CLI's words by default */
	o.relative_to = "H200";
	CHECK(wc_calibrate(&base, t, &o, &r, &err) == WC_EINVAL);
	CHECK_CONTAINS(err.msg, "no run on 'H200'");
	o.relative_to = "H100";
	o.scope = WC_CALIBRATE_MODEL;
	o.platform = NULL;
	CHECK(wc_calibrate(&base, t, &o, &r, &err) == WC_EINVAL);
	CHECK_CONTAINS(err.msg, "--relative-to: only a new level (--scope platform)");
	wc_runs_free(t);
	wc_params_clear(&truth);
	wc_params_clear(&base);
	return check_report("test_calibrate_relative");
}
