/*
 * The engine of one server in an envelope simulation (docs/envelopes.md,
 * "Engine"): continuous batching in steps. A step admits waiting
 * requests up to the concurrency limit (first come, first served), runs
 * their prefills and one decode token for every request already running;
 * its length is the decode step at the decoding count and mean context
 * plus the admitted prefills. A request admitted at step s with L output
 * tokens gets its first token from the prefill and completes at the end
 * of step s + L - 1 (L = 0, a replayed request that ended at its
 * prefill: at the end of step s, without a token). Each step's activity
 * goes to the server's power grids as two segments: prefilling, then
 * decoding.
 */
#include "envelope_internal.h"
#include "heap_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/grow.h"

/* The shortest step: service times of 0 must not stall the clock. */
#define MIN_STEP_S 1e-6

int
wc__server_init(wc__server *s, const wc_service_times *st, const double *dynamic_w,
                int max_running, const wc_power_map *pm, double hold_s, double decay_s)
{
	memset(s, 0, sizeof *s);
	s->st = st;
	s->dynamic_w = dynamic_w;
	s->max_running = max_running;
	s->window_end = INFINITY;
	s->heap = wc_alloc_array((size_t)max_running + 1, sizeof *s->heap);
	s->q_cap = 64;
	s->queue = wc_alloc_array(s->q_cap, sizeof *s->queue);
	for (int i = 0; i < 2; i++)
	{
		wc_response_state_init(&s->state[i], pm->idle_w, pm->prefill_w, hold_s);
		wc_response_state_level(&s->state[i], pm->prefill_level_w);
		wc_response_state_decay(&s->state[i], decay_s);
	}
	if (!s->heap || !s->queue) {
		wc__server_clear(s);
		return WC_ENOMEM;
	}
	return WC_OK;
}

void
wc__server_clear(wc__server *s)
{
	free(s->heap);
	free(s->queue);
	memset(s, 0, sizeof *s);
}

void
wc__server_add_grid(wc__server *s, const wc_response_grid *g)
{
	if (s->n_grids < 2)
		s->grid[s->n_grids++] = g;
}

/* ------------------------------------------------------------- queue */

static int
queue_push(wc__server *s, double input, double output)
{
	if (s->q_len == s->q_cap) {
		size_t ncap = s->q_cap;
		wc__waiting_req *nq = wc_grow(NULL, &ncap, s->q_cap + 1, sizeof *nq, 64);
		if (!nq)
			return WC_ENOMEM;
		/* Unroll the ring into the new array. */
		for (size_t i = 0; i < s->q_len; i++)
			nq[i] = s->queue[(s->q_head + i) % s->q_cap];
		free(s->queue);
		s->queue = nq;
		s->q_cap = ncap;
		s->q_head = 0;
	}
	/* The ring's wrap by a compare, not `%`: a 64-bit division per request
	 * was a few per cent of a simulation. */
	size_t tail = s->q_head + s->q_len;
	s->queue[tail >= s->q_cap ? tail - s->q_cap : tail] = (wc__waiting_req){ input, output };
	s->q_len++;
	return WC_OK;
}

/* -------------------------------------------------------------- heap */

/* Running requests by the step they finish at (heap_internal.h). */
#define FINISHES_FIRST(a, b) ((a).finish < (b).finish)
WC__HEAP_DEFINE(running, wc__running_req, FINISHES_FIRST)

static void
heap_push(wc__server *s, wc__running_req r)
{
	size_t n = (size_t)s->n;
	running_push(s->heap, &n, r);
	s->n = (int)n;
}

static wc__running_req
heap_pop(wc__server *s)
{
	size_t n = (size_t)s->n;
	wc__running_req top = running_pop(s->heap, &n);
	s->n = (int)n;
	return top;
}

/* ------------------------------------------------------------- steps */

/* Steps at one running count without a prefill follow each other at one
 * power level: they are merged into one open segment, which goes to the
 * grids only when the level changes. */
static void
flush(wc__server *s)
{
	if (!s->open)
		return;
	double dyn = s->dynamic_w[s->open_n];
	for (int i = 0; i < s->n_grids; i++)
		wc_response_add(s->grid[i], &s->state[i], s->open_t0, s->open_t1, (double)s->open_n, dyn,
		                s->open_prefill);
	s->open = 0;
}

static void
emit(wc__server *s, double t0, double t1, double prefill_frac)
{
	if (s->open && prefill_frac == 0.0 && s->open_prefill == 0.0 && s->open_n == s->n &&
	    s->open_t1 == t0) {
		s->open_t1 = t1;
		return;
	}
	flush(s);
	s->open = 1;
	s->open_t0 = t0;
	s->open_t1 = t1;
	s->open_n = s->n;
	s->open_prefill = prefill_frac;
}

/* Steps in a row without an event (arrival, completion, window edge)
 * differ only in their context, which grows by one token per step: up to
 * this many are taken at the length of the first. */
#define CHUNK_MAX 16

/* How many decode steps of length `d` from `t` fit before the next event. */
static uint64_t
chunk_steps(const wc__server *s, double t, double d, double t_next)
{
	double lim = t_next;
	if (t < s->window_start && s->window_start < lim)
		lim = s->window_start;
	if (s->window_end < lim)
		lim = s->window_end;
	/* Through the next completion (never behind the step: completions
	 * are taken at every step's end). */
	uint64_t k = s->heap[0].finish >= s->step ? s->heap[0].finish - s->step + 1 : 1;
	double fit = floor((lim - t) / d);
	if (fit < (double)k)
		k = fit >= 1 ? (uint64_t)fit : 1;
	return k < CHUNK_MAX ? k : CHUNK_MAX;
}

/* Admit what fits and start a step at `t`; idle when nothing runs.
 * `t_next` is the next arrival (steps are chunked up to it). */
static int
start_step(wc__server *s, double t, double t_next)
{
	const int n_dec = s->n;
	const double step = (double)s->step;
	double context = n_dec > 0 ? (s->sum_input + n_dec * step - s->sum_admitted) / n_dec : 0.0;
	double pre = 0.0;
	int admitted = 0;
	while (s->q_len > 0 && s->n < s->max_running) {
		wc__waiting_req q = s->queue[s->q_head];
		s->q_head = s->q_head + 1 == s->q_cap ? 0 : s->q_head + 1;
		s->q_len--;
		/* 0 output tokens: the prefill's step alone, as a 1-token
		 * request's, but no token counted (docs/envelopes.md, "Engine") */
		s->silent += q.output < 1;
		uint64_t last = q.output < 1 ? 0 : (uint64_t)q.output - 1;
		heap_push(s, (wc__running_req){ s->step + last, s->step, q.input });
		s->sum_input += q.input;
		s->sum_admitted += step;
		pre += s->st->prefill_s(s->st->ctx, q.input);
		admitted = 1;
	}
	if (s->n == 0) {
		s->busy = 0;
		return WC_OK;
	}
	double d = s->st->decode_step_s(s->st->ctx, (double)n_dec, context) + pre;
	if (!isfinite(d) || d < 0 || !isfinite(pre) || pre < 0)
		return WC_ERANGE;
	if (d < MIN_STEP_S)
		d = MIN_STEP_S;
	s->chunk = admitted ? 1 : chunk_steps(s, t, d, t_next);
	if (pre > 0)
		emit(s, t, t + pre, 1.0);
	s->t_end = t + d * (double)s->chunk;
	emit(s, t + pre, s->t_end, 0.0);
	s->busy = 1;
	return WC_OK;
}

int
wc__server_arrive(wc__server *s, double t, double input, double output, const wc__arrivals *a)
{
	if (queue_push(s, input, output) != WC_OK)
		return WC_ENOMEM;
	return s->busy ? WC_OK : start_step(s, t, wc__arrivals_peek(a));
}

int
wc__server_step(wc__server *s, wc__arrivals *a)
{
	const double t = s->t_end;
	/* Every running request got one token from each step of the chunk,
	 * but one of 0 output tokens, whose only step (chunk 1: it was
	 * admitted in it) ends it. */
	if (t > s->window_start && t <= s->window_end)
		s->tokens += (double)s->n * (double)s->chunk - (double)s->silent;
	s->step += s->chunk;
	while (s->n > 0 && s->heap[0].finish < s->step) {
		wc__running_req r = heap_pop(s);
		s->sum_input -= r.input;
		s->sum_admitted -= (double)r.admitted;
		if (wc__arrivals_completed(a, t) != WC_OK)
			return WC_ENOMEM;
	}
	s->silent = 0; /* each completed at the end of the step that admitted it */
	return start_step(s, t, wc__arrivals_peek(a));
}

void
wc__server_finish(wc__server *s, double t_end)
{
	flush(s);
	for (int i = 0; i < s->n_grids; i++)
		wc_response_finish(s->grid[i], &s->state[i], t_end);
}
