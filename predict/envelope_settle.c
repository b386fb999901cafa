/*
 * The board's power limit as a clock for envelopes (docs/envelopes.md,
 * "Board limit"): a GPU holds its power under its limit by lowering its
 * clock, which slows its service as well. Where the limit binds for the
 * workload's steady load, the envelope serves and draws at the clock
 * `predict inference` settles at for that load -- found by predict's own
 * calls (wc_predict_settle_clock, wc_predict_capacity_settled;
 * docs/capacity.md, "The board's power limit"), not a rule of its own --
 * and binds its service times and power map again at that clock.
 */
#include "envelope_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "predict/capacity_predict.h"
#include "predict/predict.h"

/* The most the map can draw per GPU: the law's highest dynamic power
 * up to the engine's limit plus the larger prefill term. At or under the
 * limit nothing can bind, and no predictor is built. */
static double
map_top_w(const wc_power_map *pm, int max_running)
{
	double top = 0.0;
	for (int n = 1; n <= max_running; n++) {
		double d = pm->dynamic_w(pm->ctx, (double)n);
		if (d > top) /* not fmax: a NaN is the simulation's to refuse */
			top = d;
	}
	return pm->idle_w + top + fmax(pm->prefill_w, pm->prefill_level_w);
}

/* The clock `predict inference` answers the workload's steady load at:
 * its mean lengths, and its mean arrival rate over the window its requests
 * arrive in (open loop, the engine's limit as --concurrency) or its clients (closed
 * loop, as --concurrency). q->config.sm_clock_mhz gets it. */
static int
predict_clock(const wc_predictor *pr, wc_inference_query *q, wc_error *err)
{
	wc_capacity_prediction *cap = malloc(sizeof *cap); /* on the heap: small handler stacks */
	if (!cap)
		return wc_error_set(err, WC_ENOMEM, "envelope: out of memory");
	int rc = wc_predict_settle_clock(pr, q, err);
	if (rc == WC_OK)
		rc = wc_predict_capacity_settled(pr, q, NAN, NAN, cap, err);
	free(cap);
	return rc;
}

int
wc__envelope_settle(const wc_envelope_workload *w, const wc_service_times *st, const wc_power_map *pm,
                    const wc_envelope_options *o, wc__envelope_settled *s, wc_error *err)
{
	memset(s, 0, sizeof *s);
	/* An n(t) has no service to slow; a closed loop's think time is not
	 * in predict's answer, which takes every client as running; service
	 * times or a map not bound from a parameter set have no clock. */
	if (w->kind == WC_ENVELOPE_SERIES || (w->kind == WC_ENVELOPE_CLOSED && w->think_s > 0.0) || !pm->params ||
	    !(pm->max_w > 0.0) || !isfinite(pm->max_w) || !wc__capacity_service_at_clock(st, 0.0, NULL, NULL) ||
	    !(map_top_w(pm, o->max_running) > pm->max_w))
		return WC_OK;
	wc_inference_query q;
	memset(&q, 0, sizeof q);
	q.config = pm->config;
	q.config.input_tokens = wc_envelope_mean_length(w, 1);
	q.config.output_tokens = wc_envelope_mean_length(w, 0);
	if (w->kind == WC_ENVELOPE_CLOSED) {
		q.config.running = fmin(w->concurrency, (double)o->max_running);
		q.config.request_rate = 0.0;
	} else {
		/* one clock for the whole run: the mean rate over the window its
		 * requests arrive in -- warm-up and horizon for the arrivals drawn
		 * (a rate profile's alike), the horizon alone for a replayed log,
		 * whose clock starts after the warm-up (docs/envelopes.md, "Board
		 * limit"): a warm-up holding none of its requests dilutes nothing */
		const double window = w->kind == WC_ENVELOPE_REPLAY ? o->horizon_s : o->warmup_s + o->horizon_s;
		q.config.request_rate = wc_envelope_workload_requests(w, o->warmup_s, o->horizon_s) / window;
		q.config.running = o->max_running;
		if (!(q.config.request_rate > 0.0))
			return WC_OK;
	}
	wc_predictor *pr = NULL;
	wc_error why;
	int rc = wc_predictor_new(pm->params, &pr, &why);
	if (rc == WC_OK)
		rc = predict_clock(pr, &q, &why);
	wc_predictor_free(pr);
	/* Where predict cannot answer the load (no capacity answer for it),
	 * the run keeps the clock asked and says so as before (envelope_run.c). */
	if (rc != WC_OK || !(q.config.sm_clock_mhz > 0.0) || q.config.sm_clock_mhz == pm->config.sm_clock_mhz)
		return rc == WC_ENOMEM ? wc_error_set(err, rc, "%s", why.msg) : WC_OK;
	wc_config at = pm->config;
	at.sm_clock_mhz = q.config.sm_clock_mhz;
	/* its caveats as predict words them at that clock: "platform: the GPU
	 * settles at ..." (kappa assumed, outside the span, below half the top) */
	if (wc__power_map_from_law_by(pm->params, &at, "platform", pm->has_response ? &pm->response : NULL, &s->law,
	                              &s->pm, &why) != WC_OK)
		return WC_OK;
	wc__capacity_service_at_clock(st, at.sm_clock_mhz, &s->cs, &s->st);
	s->settled = 1;
	s->clock_mhz = at.sm_clock_mhz;
	s->law_w = q.board_free_w;
	s->limit_w = q.board_limit_w > 0.0 ? q.board_limit_w : pm->max_w;
	s->rate = q.config.request_rate;
	s->clients = w->kind == WC_ENVELOPE_CLOSED ? w->concurrency : 0.0;
	return WC_OK;
}

int
wc__envelope_limit_note(const wc_envelope_workload *w, const wc_power_map *pm, const wc__envelope_settled *set,
                        double n_mean, char *note, size_t cap)
{
	note[0] = '\0';
	if (set && set->settled && set->rate > 0.0)
		snprintf(note, cap, "platform: the law gives %.1f W per GPU at the steady %.3g requests/s, above the "
		         "board's %.0f W limit: the run served and drew at %.0f MHz, the clock predict settles at "
		         "(docs/envelopes.md)", set->law_w, set->rate, set->limit_w, set->clock_mhz);
	else if (set && set->settled)
		snprintf(note, cap, "platform: the law gives %.1f W per GPU for %.3g clients, above the board's %.0f W "
		         "limit: the run served and drew at %.0f MHz, the clock predict settles at (docs/envelopes.md)",
		         set->law_w, set->clients, set->limit_w, set->clock_mhz);
	else if (pm->max_w > 0.0) {
		/* the law at the mean load: above the limit, the limiter held the
		 * power, but the service kept the clock asked; an n(t) has no
		 * service, its running count is the caller's, but its law is
		 * held alike, and said alike (docs/envelopes.md, "Board limit") */
		const double law_w = pm->idle_w + (n_mean > 0.0 ? pm->dynamic_w(pm->ctx, n_mean) : 0.0);
		const char *then = w->kind == WC_ENVELOPE_SERIES
		                           ? "an n(t) has no service: its running count is taken as given"
		                           : "but service keeps the clock asked, so tokens/s run high and J/token low "
		                             "beside predict";
		if (law_w > pm->max_w * (1.0 + 1e-9))
			snprintf(note, cap, "platform: the law draws %.1f W per GPU at the mean %.3g running, above the %.0f "
			         "W board limit: power is held there, %s (docs/envelopes.md)", law_w, n_mean, pm->max_w,
			         then);
	}
	return note[0] != '\0';
}
