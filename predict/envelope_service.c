/*
 * The service-time stand-in of envelopes (docs/envelopes.md, "Service
 * times"): a memory roofline for decode steps and a compute roofline for
 * prefills, from published platform facts and the model's architecture,
 * with efficiencies that are assumed, not fitted. Where the parameter set
 * has a capacity model for the configuration, its times
 * (predict/envelope_capacity.c) are used instead (predict/envelope_choice.c).
 */
#include "predict/envelope.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Bytes per stored value of a precision. */
static double
precision_bytes(wc_precision p)
{
	return p == WC_PREC_INT4 ? 0.5 : p == WC_PREC_FP8 ? 1.0 : 2.0;
}

/* The catalog's platform for a level name: exact, else the part before a
 * '-' ("H100-locked" is an H100). */
static const wc_platform_info *
platform_for(const char *level)
{
	const wc_platform_info *pi = wc_platform_lookup(level);
	if (pi || !level)
		return pi;
	char base[WC_NAME_MAX];
	size_t n = strcspn(level, "-");
	if (n == 0 || n >= sizeof base || level[n] != '-')
		return NULL;
	memcpy(base, level, n);
	base[n] = '\0';
	return wc_platform_lookup(base);
}

/* Weights: every step reads the shared ones; a mixture of experts reads
 * the experts its tokens are routed to. */
static void
set_weights(wc_roofline_standin *s, const wc_config *c)
{
	const wc_model_info *m = c->arch;
	double bytes = precision_bytes(c->weights), active = c->active_params_b * 1e9;
	s->active_params = active;
	if (m && m->architecture == WC_ARCH_MOE && m->experts > m->experts_per_token &&
	    m->experts_per_token > 0 && m->total_params_b > m->active_params_b) {
		double e = (m->total_params_b - m->active_params_b) * 1e9 /
		           (double)(m->experts - m->experts_per_token);
		double shared = active - (double)m->experts_per_token * e;
		s->shared_bytes = (shared > 0 ? shared : 0.0) * bytes;
		s->expert_bytes = (double)m->experts * e * bytes;
		s->experts = m->experts;
		s->experts_per_token = m->experts_per_token;
	} else {
		double total = m && m->total_params_b > 0 ? m->total_params_b * 1e9 : active;
		s->shared_bytes = total * bytes;
	}
	if (m && m->layers > 0 && m->kv_heads > 0 && m->head_dim > 0)
		s->kv_bytes_per_token = 2.0 * m->layers * m->kv_heads * m->head_dim *
		                        precision_bytes(c->kv);
	if (m) {
		s->layers = m->layers;
		s->d_model = m->d_model;
	}
}

int
wc_roofline_standin_init(wc_roofline_standin *s, const wc_config *c, wc_error *err)
{
	memset(s, 0, sizeof *s);
	const wc_platform_info *pi = platform_for(c->platform);
	if (!pi)
		return wc_error_set(err, WC_ENOTFOUND,
		                    "platform: no published bandwidth and throughput for '%s' "
		                    "(the service-time stand-in needs a catalog platform)",
		                    c->platform ? c->platform : "");
	if (c->tp < 1 || c->tp > WC_LAW_MAX_TP)
		return wc_error_set(err, WC_EINVAL, "tp: must be between 1 and %d, got %d", WC_LAW_MAX_TP, c->tp);
	if (!(c->active_params_b > 0) || !isfinite(c->active_params_b))
		return wc_error_set(err, WC_EINVAL, "active_params_b: must be a finite number > 0");
	snprintf(s->platform, sizeof s->platform, "%s", pi->name);
	s->tp = c->tp;
	s->bandwidth_b_s = pi->bandwidth_tb_s * 1e12 * c->tp;
	s->flops = pi->bf16_tflops * 1e12 * c->tp;
	/* A locked SM clock slows compute in proportion; memory is unaffected. */
	if (c->sm_clock_mhz > 0 && pi->max_sm_clock_mhz > 0 && c->sm_clock_mhz < pi->max_sm_clock_mhz)
		s->flops *= c->sm_clock_mhz / pi->max_sm_clock_mhz;
	s->bw_efficiency = WC_STANDIN_BW_EFFICIENCY;
	s->flops_efficiency = WC_STANDIN_FLOPS_EFFICIENCY;
	s->step_overhead_s = WC_STANDIN_STEP_OVERHEAD_S;
	set_weights(s, c);
	return WC_OK;
}

static double
standin_decode(void *ctx, double running, double context_tokens)
{
	const wc_roofline_standin *s = ctx;
	double bytes = s->shared_bytes;
	if (s->expert_bytes > 0) {
		/* Share of experts that n tokens touch, each routed to k of E. */
		double n = running > 1 ? running : 1.0;
		bytes += s->expert_bytes * (1.0 - pow(1.0 - s->experts_per_token / s->experts, n));
	}
	if (running > 0 && context_tokens > 0)
		bytes += running * context_tokens * s->kv_bytes_per_token;
	return s->step_overhead_s + bytes / (s->bw_efficiency * s->bandwidth_b_s);
}

static double
standin_prefill(void *ctx, double input_tokens)
{
	const wc_roofline_standin *s = ctx;
	double L = input_tokens > 0 ? input_tokens : 0.0;
	double flops = 2.0 * s->active_params * L + 2.0 * s->layers * L * L * s->d_model;
	return flops / (s->flops_efficiency * s->flops);
}

void
wc_roofline_standin_service(wc_roofline_standin *s, wc_service_times *out)
{
	out->decode_step_s = standin_decode;
	out->prefill_s = standin_prefill;
	out->ctx = s;
	snprintf(out->source, sizeof out->source, "roofline_standin");
}
