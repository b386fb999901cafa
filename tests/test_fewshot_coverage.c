/*
 * Coverage of a calibrated set's 95 % interval on simulated truth
 * (docs/intervals.md, "Calibrated sets"): every model's runs scatter
 * around the law with no model offset at all, the base's held-out error
 * is exactly their 95 % quantile, and each model is calibrated on one run
 * (k = 1) and three (k = 3). The calibrated level carries the calibration
 * runs' own scatter, so the new run's miss is the difference of two runs'
 * scatter: the base's held-out error alone (the draws joined with it, not
 * widened by it) covered 87.7 % at k = 1 and 88.8 % at k = 3 here. The
 * draws widened by the held-out error cover at least the nominal 95 %
 * less the binomial noise.
 */
#include "tests/support/check.h"
#include "data/data.h"
#include "fit/calibrate.h"
#include "models/pcg32.h"
#include "tests/support/support.h"
#include "validation/validation.h"

#include <math.h>
#include <stdio.h>

#define N_MODELS 150
#define SCATTER 0.08 /* sd of a run's log power around the law */

static const double loads[7] = { 32, 4, 8, 16, 64, 128, 256 };

static void
add_run(wc_runs_table *t, const wc_params *p, int model, double n, wc_pcg32 *rng)
{
	wc_config c = WC_CONFIG_INIT;
	wc_power pw;
	wc_run r;
	c.platform = "H100";
	c.active_params_b = 8.19;
	c.running = n;
	wc_law_power(p, &c, &pw, NULL);
	wc_run_init(&r);
	snprintf(r.run_id, sizeof r.run_id, "m%02d-n%g", model, n);
	snprintf(r.platform, sizeof r.platform, "H100");
	snprintf(r.model, sizeof r.model, "SimModel-%02d", model);
	r.active_params_b = 8.19;
	r.running = n;
	r.mean_power_w = pw.node_power_w * exp(SCATTER * wc_pcg32_normal(rng));
	wc_runs_append(t, &r, NULL);
}

int
main(void)
{
	wc_params p = WC_PARAMS_INIT;
	wc_error err;
	wc_pcg32 rng;
	wc_params_default(&p);
	/* The base's held-out error is the truth's: the 95 % quantile of
	 * |log residual| of a run around the law. */
	memset(&p.pred_error, 0, sizeof p.pred_error);
	p.pred_error.present = 1;
	p.pred_error.level = 0.95;
	wc_pe_stratum pooled = { "", "", 1000, -1.959964 * SCATTER, 1.959964 * SCATTER };
	CHECK_INT(wc_pe_add(&p.pred_error, &pooled), WC_OK);
	wc_pcg32_seed(&rng, 42, 7);
	wc_runs_table *t = wc_runs_new();
	for (int m = 0; m < N_MODELS; m++)
		for (int i = 0; i < 7; i++)
			add_run(t, &p, m, loads[i], &rng);
	/* The calibration's draws are those of the same scatter, in log
	 * dynamic power as calibrate draws it. */
	wc_fewshot_options fo = { .scope = WC_CALIBRATE_MODEL, .base = &p, .n_k = 3, .k = { 0, 1, 3 },
		                  .run_scatter = SCATTER, .replicates = 400, .seed = 1 };
	wc_fewshot_report rep;
	CHECK_INT(wc_validate_fewshot(t, &fo, &rep, NULL, &err), WC_OK);
	for (int ki = 0; ki < 3; ki++) {
		const wc_accuracy *a = &rep.by_k[ki].overall;
		printf("k=%d: %d runs, coverage %.1f %%, median width %.1f %%\n", fo.k[ki], a->n_interval,
		       100.0 * a->coverage_95, 100.0 * a->median_rel_width);
		CHECK_INT(a->n_interval, N_MODELS * 4);
		/* 600 runs: the binomial sd of 95 % is 0.9 points */
		CHECK(a->coverage_95 >= 0.93);
	}
	wc_runs_free(t);
	wc_params_clear(&p);
	return check_report("test_fewshot_coverage");
}
