/* Capacity rows from a known law (tests/support/synth_capacity.h). */
#include "tests/support/synth_capacity.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/catalog.h"

void
synth_capacity_row(wc_capacity_data *d, const char *id, const char *platform, const char *model,
                   const char *set, int tp, double n, double in, double true_in, double out,
                   const wc_capacity_point *pt, const double *noise, int with_throughput)
{
	const wc_platform_info *pi = wc_platform_lookup(platform);
	wc_capacity_hw hw = { pi->bandwidth_tb_s * 1e12, pi->bf16_tflops * 1e12, pi->memory_gb * 1e9, 0.0 };
	wc_capacity_row r;
	wc_capacity_times t;
	memset(&r, 0, sizeof r);
	snprintf(r.id, sizeof r.id, "%s", id);
	snprintf(r.platform, sizeof r.platform, "%s", platform);
	snprintf(r.model, sizeof r.model, "%s", model);
	snprintf(r.model_key, sizeof r.model_key, "%s", model);
	snprintf(r.set, sizeof r.set, "%s", set);
	r.tp = tp;
	r.running = n;
	r.input_tokens = in;
	r.output_tokens = out;
	r.expert_parallel = NAN;
	wc_capacity_arch_make(wc_model_lookup(model), WC_PREC_BF16, WC_PREC_BF16, &r.arch, NULL);
	wc_capacity_times_eval(pt, &r.arch, &hw, r.tp, r.running, isnan(true_in) ? in : true_in, out, &t);
	r.latency_s = t.latency_s * (noise ? exp(noise[0]) : 1.0);
	r.itl_s = t.t_dec * (noise ? exp(noise[1]) : 1.0);
	r.ttft_s = t.ttft_s * (noise ? exp(noise[2]) : 1.0);
	r.throughput_tok_s = with_throughput ? r.running * r.output_tokens / r.latency_s : NAN;
	r.energy_per_token_j = r.mean_power_w = NAN;
	d->rows = realloc(d->rows, (d->n_rows + 1) * sizeof *d->rows);
	d->rows[d->n_rows++] = r;
	d->cap_rows = d->n_rows;
}
