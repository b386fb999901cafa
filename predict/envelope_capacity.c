/*
 * Envelope service times from the capacity model (docs/envelopes.md,
 * "Service times"; the model in docs/capacity.md): the level of the
 * parameter set's capacity section is bound and evaluated with the same
 * calls predict/capacity.c makes, so an envelope's decode step and
 * prefill are the capacity answers' own numbers.
 */
#include "envelope_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "predict/capacity_predict.h"
#include "predict_internal.h"

/* The capacity model's decode step at `running` requests of mean context
 * `context_tokens`. Its context is L_in + L_out / 2 over a request's
 * life; the engine passes the running requests' mean context of the
 * moment, so it goes in as the prompt with nothing generated. */
static double
capacity_decode(void *ctx, double running, double context_tokens)
{
	const wc_capacity_service_store *s = ctx;
	double t_mem, t_cmp, t_tp;
	return wc_capacity_decode_terms(&s->point, &s->arch, &s->hw, s->tp, running,
	                                context_tokens > 0 ? context_tokens : 0.0, &t_mem, &t_cmp, &t_tp);
}

/* The capacity model's prefill of one prompt (it does not depend on the
 * running count). */
static double
capacity_prefill(void *ctx, double input_tokens)
{
	const wc_capacity_service_store *s = ctx;
	return wc_capacity_prefill_time(&s->point, &s->arch, &s->hw, s->tp, input_tokens > 0 ? input_tokens : 0.0);
}

int
wc_capacity_service(const wc_params *p, const wc_config *c, wc_capacity_service_store *store,
                    wc_service_times *out, wc_error *err)
{
	wc_capacity_binding b;
	int rc;
	memset(store, 0, sizeof *store);
	if (c->tp < 1 || c->tp > WC_LAW_MAX_TP)
		return wc_error_set(err, WC_EINVAL, "tp: must be between 1 and %d, got %d", WC_LAW_MAX_TP, c->tp);
	if ((rc = wc_capacity_bind_any(&p->capacity, c->platform, &b, err)) != WC_OK)
		return rc;
	if (!c->arch)
		return wc_error_set(err, WC_EINVAL, "model: the capacity model needs the architecture (a catalog "
		                    "model name, or layers, kv_heads, head_dim and the parameter counts)");
	if ((rc = wc_predict_clock_check(p, c, err)) != WC_OK ||
	    (rc = wc_capacity_arch_make(c->arch, c->weights, c->kv, &store->arch, err)) != WC_OK)
		return rc;
	wc_capacity_arch_place(&store->arch, c->tp, 0);
	wc_capacity_bound_point(&b, NULL, &store->point);
	store->hw = b.hw;
	/* A locked clock paces the compute-bound terms as in predict/capacity.c. */
	store->hw.clock_ratio = wc_capacity_clock_ratio(c->platform, c->sm_clock_mhz);
	snprintf(store->clock_board, sizeof store->clock_board, "%s", c->platform);
	store->tp = c->tp;
	store->reserve = wc_predict_memory_reserve(p, c);
	store->context_tokens = wc_model_context(c->arch, c->model);
	snprintf(store->level, sizeof store->level, "%s", b.level->name);
	wc_capacity_transfer_note(&b, store->transfer_note, sizeof store->transfer_note);
	wc__capacity_service_times(store, b.datasheet ? "capacity_datasheet" : "capacity", out);
	return WC_OK;
}

/* Requests of these lengths the KV cache holds, as `predict` counts them
 * (docs/capacity.md, "Memory as vLLM does it"); 0 when one request's whole
 * context does not fit. */
static double
capacity_kv_running(void *ctx, double input_tokens, double output_tokens)
{
	const wc_capacity_service_store *s = ctx;
	if (!(s->hw.memory_bytes > 0.0))
		return INFINITY;
	if (wc_capacity_max_concurrency(&s->arch, &s->hw, s->tp, s->reserve, input_tokens + output_tokens) < 1.0)
		return 0.0;
	return wc_capacity_running_fit(&s->arch, &s->hw, s->tp, s->reserve, input_tokens, output_tokens);
}

int
wc__capacity_kv_refusal(const wc_service_times *st, const char *field, double in, double out, char *msg, size_t cap)
{
	if (!st || st->kv_running != capacity_kv_running)
		return 0;
	const wc_capacity_service_store *s = st->ctx;
	char request[128];
	snprintf(request, sizeof request, "a request of the workload's mean %.0f input + %.0f output tokens", in, out);
	/* predict's refusal, its sizes and words (no utilization remedy: an
	 * envelope takes none) */
	wc__predict_kv_refusal(field, request, in + out, &s->arch, &s->hw, s->tp, s->clock_board, s->reserve, "", 0, "",
	                       msg, cap);
	return 1;
}

void
wc__capacity_service_times(wc_capacity_service_store *store, const char *source, wc_service_times *out)
{
	out->decode_step_s = capacity_decode;
	out->prefill_s = capacity_prefill;
	out->kv_running = capacity_kv_running;
	out->ctx = store;
	out->context_tokens = store->context_tokens;
	snprintf(out->source, sizeof out->source, "%s", source);
}

int
wc__capacity_service_at_clock(const wc_service_times *st, double sm_clock_mhz, wc_capacity_service_store *copy,
                              wc_service_times *out)
{
	if (!st || st->decode_step_s != capacity_decode)
		return 0;
	if (!copy)
		return 1;
	*copy = *(const wc_capacity_service_store *)st->ctx;
	/* as wc_capacity_service and the stand-in pace a locked clock */
	copy->hw.clock_ratio = wc_capacity_clock_ratio(copy->clock_board, sm_clock_mhz);
	*out = *st;
	out->ctx = copy;
	return 1;
}
