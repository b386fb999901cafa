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
