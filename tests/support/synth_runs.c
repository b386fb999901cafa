/* Runs simulated from a known law (tests/support/synth_runs.h). */
#include "tests/support/synth_runs.h"

#include "tests/support/check.h"

#include <math.h>
#include <stdio.h>

#define SYNTH_IDLE_W 60.0

void
synth_law_run(wc_runs_table *t, const wc_params *truth, const char *model, double active_b, int tp, double n,
              wc_precision weights, double sd, int id, wc_pcg32 *rng)
{
	wc_run r;
	wc_config c;
	wc_power pw;
	wc_error err;
	wc_run_init(&r);
	snprintf(r.run_id, sizeof r.run_id, "r%d", id);
	snprintf(r.platform, sizeof r.platform, "H100");
	snprintf(r.model, sizeof r.model, "%s", model);
	r.tp = tp;
	r.active_params_b = active_b;
	r.running = n;
	r.idle_power_w = SYNTH_IDLE_W;
	wc_run_config(&r, &c);
	CHECK_INT(wc_law_power(truth, &c, &pw, &err), WC_OK);
	r.mean_power_w = tp * SYNTH_IDLE_W + pw.dynamic_w * exp(sd * wc_pcg32_normal(rng));
	r.weights = weights;
	wc_runs_append(t, &r, NULL);
}

wc_runs_table *
synth_a100_runs(int with_loads)
{
	wc_runs_table *t = wc_runs_new();
	wc_pcg32 rng;
	const double sizes[6] = { 0.6, 1.7, 4, 8.19, 14.8, 32.8 };
	wc_pcg32_seed(&rng, 7, 0);
	for (int i = 0; i < 6; i++)
		for (int j = 0; j < 5; j++) {
			double n = with_loads ? (double)(1 << (2 * j)) : 16.0;
			double z = 1.99 + 0.598 * log(sizes[i] / 8.0) + 0.749 * log(n / 32.0);
			double dyn = 329.0 / (1.0 + exp(-z)) * exp(0.03 * wc_pcg32_normal(&rng));
			wc_run r;
			wc_run_init(&r);
			snprintf(r.run_id, sizeof r.run_id, "r%d%d", i, j);
			snprintf(r.platform, sizeof r.platform, "A100");
			snprintf(r.model, sizeof r.model, "m%g", sizes[i]);
			r.active_params_b = sizes[i];
			r.running = n;
			r.idle_power_w = 72.9;
			r.mean_power_w = 72.9 + dyn;
			wc_runs_append(t, &r, NULL);
		}
	return t;
}
