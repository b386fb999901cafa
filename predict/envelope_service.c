/*
 * The service-time stand-in of envelopes (docs/envelopes.md, "Service
 * times"): the capacity model's own step time and prefill
 * (models/capacity_model.h, docs/capacity.md) at assumed efficiencies, for a
 * parameter set without a capacity level for the configuration. Only the
 * five numbers of the step are assumed; bytes, FLOPs, the clock and the
 * group are the capacity model's, so the stand-in simulates the machine
 * `predict inference` describes. Where the parameter set has a capacity
 * model for the configuration, its fitted numbers are used instead
 * (predict/envelope_choice.c).
 */
#include "envelope_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "predict/capacity_predict.h"

/* Bytes and FLOPs: the capacity model's from the architecture; without
 * one, a dense model of N_act whose KV cache and attention are unknown
 * (no KV bytes, no attention FLOPs). */
static int
arch_of(const wc_config *c, wc_capacity_arch *a, wc_error *err)
{
	if (c->arch) {
		/* trace envelopes serve tensor parallel (docs/envelopes.md) */
		int rc = wc_capacity_arch_make(c->arch, c->weights, c->kv, a, err);
		if (rc == WC_OK)
			wc_capacity_arch_place(a, c->tp, 0);
		return rc;
	}
	*a = (wc_capacity_arch){ 0 };
	a->active_params = c->active_params_b * 1e9;
	a->weight_bytes = a->shared_weight_bytes = a->active_params * wc_capacity_bytes_per_value(c->weights);
	return WC_OK;
}

int
wc_roofline_standin_init(wc_capacity_service_store *s, const wc_config *c, wc_error *err)
{
	int rc;
	memset(s, 0, sizeof *s);
	const wc_platform_info *pi = wc_platform_board(c->platform, NULL);
	if (!pi)
		return wc_error_set(err, WC_ENOTFOUND,
		                    "platform: no published bandwidth and throughput for '%s' "
		                    "(the service-time stand-in needs a catalog platform)",
		                    c->platform ? c->platform : "");
	if (c->tp < 1 || c->tp > WC_LAW_MAX_TP)
		return wc_error_set(err, WC_EINVAL, "tp: must be between 1 and %d, got %d", WC_LAW_MAX_TP, c->tp);
	if (!(c->active_params_b > 0) || !isfinite(c->active_params_b))
		return wc_error_set(err, WC_EINVAL, "active_params_b: must be a finite number > 0");
	wc_config at = *c;
	at.platform = pi->name;
	if ((rc = wc_predict_clock_check(NULL, &at, err)) != WC_OK || (rc = arch_of(c, &s->arch, err)) != WC_OK)
		return rc;
	snprintf(s->level, sizeof s->level, "%s", pi->name);
	s->tp = c->tp;
	s->hw = wc_capacity_hw_datasheet(pi->name, pi->bandwidth_tb_s, pi->bf16_tflops, pi->memory_gb);
	s->hw.clock_ratio = wc_capacity_clock_ratio(pi->name, c->sm_clock_mhz);
	snprintf(s->clock_board, sizeof s->clock_board, "%s", pi->name);
	s->point = (wc_capacity_point){ .eta = WC_STANDIN_BW_EFFICIENCY, .t0 = WC_STANDIN_STEP_OVERHEAD_S,
		                        .t1 = 0.0, .etac = WC_STANDIN_FLOPS_EFFICIENCY, .tau = 0.0 };
	return WC_OK;
}

void
wc_roofline_standin_service(wc_capacity_service_store *s, wc_service_times *out)
{
	wc__capacity_service_times(s, "roofline_standin", out);
}
