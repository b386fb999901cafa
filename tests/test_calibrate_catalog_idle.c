/*
 * `calibrate --scope platform` for a new GPU whose runs carry no idle
 * power (docs/calibration.md): three GH200 runs give a calibrated level
 * without any number typed by hand -- P0 from the platform catalog (its
 * published typical idle, else the estimate from its power limit), said so
 * in a warning -- and the level predicts the runs' own power. A platform
 * the catalog does not know is still refused, naming the field. The
 * estimate, its paper ratios summed once, is bit for bit the one summed
 * from the paper set on each call, as it was.
 */
#include "fit/fit.h"
#include "models/catalog.h"
#include "tests/support/support.h"

#include <gsl/gsl_errno.h>
#include <math.h>
#include <string.h>

static void
add(wc_runs_table *t, const char *platform, double size, double n, double power)
{
	wc_run r;
	wc_run_init(&r);
	snprintf(r.run_id, sizeof r.run_id, "%s-%g", platform, n);
	snprintf(r.platform, sizeof r.platform, "%s", platform);
	snprintf(r.model, sizeof r.model, "Qwen3-8B");
	r.active_params_b = size;
	r.running = n;
	r.mean_power_w = power;
	wc_runs_append(t, &r, NULL);
}

/* The estimate as it was made on every call before the ratios were
 * summed once (models/transfer.c): the paper set's idle-to-limit ratios. */
static double
estimate_afresh(const wc_platform_info *target)
{
	wc_params paper = WC_PARAMS_INIT;
	double sum = 0.0;
	int n = 0;
	wc_params_default(&paper);
	for (int i = 0; i < paper.n_levels; i++) {
		const wc_platform_info *info = wc_platform_lookup(paper.levels[i].name);
		if (info && info->max_power_w > 0 && isfinite(paper.levels[i].p0.value)) {
			sum += paper.levels[i].p0.value / info->max_power_w;
			n++;
		}
	}
	wc_params_clear(&paper);
	return n ? target->max_power_w * sum / n : NAN;
}

static void
check_estimate_once(void)
{
	int estimated = 0;
	for (int twice = 0; twice < 2; twice++)
		for (size_t i = 0; i < wc_platform_count(); i++) {
			const wc_platform_info *p = wc_platform_at(i);
			double e = wc_params_estimated_idle_w(p->name), ref = estimate_afresh(p);
			CHECK(e == ref && isfinite(e));
			estimated += p->idle_power_w == 0;
		}
	CHECK(estimated > 0); /* boards answered by the estimate */
	CHECK(isnan(wc_params_estimated_idle_w("TPUv9")));
}

int
main(void)
{
	check_estimate_once();
	wc_params paper = WC_PARAMS_INIT;
	wc_error err;
	gsl_set_error_handler_off();
	wc_params_default(&paper);
	wc_runs_table *t = wc_runs_new();
	add(t, "GH200", 8.19, 4, 390);
	add(t, "GH200", 8.19, 32, 560);
	add(t, "GH200", 8.19, 128, 640);
	wc_calibrate_options o = WC_CALIBRATE_OPTIONS_INIT;
	wc_calibrate_result r;
	o.scope = WC_CALIBRATE_PLATFORM;
	o.replicates = -1;
	CHECK_INT(wc_calibrate(&paper, t, &o, &r, &err), WC_OK);
	const wc_level *lv = wc_params_level(&r.params, "GH200");
	CHECK(lv != NULL);
	if (lv) {
		const wc_platform_info *hw = wc_platform_lookup("GH200");
		double expect = hw->idle_power_w > 0 ? hw->idle_power_w : wc_params_estimated_idle_w("GH200");
		CHECK_NEAR(lv->p0.value, expect, 1e-9);
		int said = 0;
		for (int i = 0; i < r.n_warnings; i++)
			said |= strstr(r.warnings[i], "P0[GH200]") != NULL;
		CHECK(said);
		for (size_t i = 0; i < t->n_runs; i++) {
			wc_power pw;
			CHECK_INT(wc_fit_predict_run(&r.params, &t->runs[i], &pw, &err), WC_OK);
			printf("  GH200 n=%g: measured %.0f W, calibrated %.1f W\n", t->runs[i].running,
			       t->runs[i].mean_power_w, pw.node_power_w);
			CHECK_NEAR(pw.node_power_w, t->runs[i].mean_power_w, 0.10 * t->runs[i].mean_power_w);
		}
	}
	wc_calibrate_result_clear(&r);
	wc_runs_free(t);

	/* A published typical idle wins over the estimate: an A100 level. */
	wc_params base = WC_PARAMS_INIT;
	wc_params_default(&base);
	base.levels[0] = base.levels[1]; /* H100 and H200 only: A100 is new */
	base.levels[1] = base.levels[2];
	base.n_levels = 2;
	base.n_terms = 3; /* the A100 terms name a level that is gone */
	t = wc_runs_new();
	add(t, "A100", 8.19, 4, 200);
	add(t, "A100", 8.19, 32, 300);
	add(t, "A100", 8.19, 128, 360);
	CHECK_INT(wc_calibrate(&base, t, &o, &r, &err), WC_OK);
	lv = wc_params_level(&r.params, "A100");
	CHECK(lv && lv->p0.value == 72.9 && lv->p0.source == WC_SRC_PUBLISHED);
	wc_calibrate_result_clear(&r);
	wc_runs_free(t);
	wc_params_clear(&base);

	t = wc_runs_new();
	add(t, "TPUv9", 8.19, 4, 390);
	add(t, "TPUv9", 8.19, 32, 560);
	add(t, "TPUv9", 8.19, 128, 640);
	CHECK(wc_calibrate(&paper, t, &o, &r, &err) != WC_OK);
	CHECK_CONTAINS(err.msg, "idle_power_w");
	wc_runs_free(t);
	wc_params_clear(&paper);
	return check_report("test_calibrate_catalog_idle");
}
