/*
 * Capacity predictions (docs/capacity.md, "Closed loop, open loop, energy"): the memory
 * check, the closed- and open-loop answers for the point estimate and for
 * every paired draw of the power law and the capacity section, and their
 * percentile intervals.
 */
#include "predict/capacity_predict.h"
#include "predict_internal.h"
#include "capacity_root_internal.h"
#include "models/grow.h"
#include "models/limits.h"
#include "models/warnings.h"

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const output_names[WC_CAPQ_COUNT] = {
	"latency_s", "ttft_s", "throughput_tok_s", "energy_per_output_token_j", "energy_per_request_j",
	"energy_per_hour_kwh", "mean_running", "node_power_w", "cost_per_request", "cost_per_million_tokens",
	"cost_per_hour", "co2_g_per_request", "co2_g_per_million_tokens", "co2_g_per_hour",
};

const char *
wc_capacity_output_name(int k)
{
	return k >= 0 && k < WC_CAPQ_COUNT ? output_names[k] : "?";
}

/* ------------------------------------------------------- one state */
typedef struct {
	const wc_params *p;
	const wc_capacity_arch *a;
	const wc_capacity_hw *hw;
	const wc_config *c;
	double n_cap;        /* largest running count (memory, engine cap) */
	double price, co2;
	int datasheet;       /* the capacity level is a datasheet transfer */
	double cap_w;        /* the user's per-GPU power cap (0: none) */
	const wc_capacity_point *pt; /* the point's capacity level (intervals) */
	const wc_predictor *pr;      /* the ends' answers (open_loop_ends) */
	const wc_inference_query *q; /* the query as asked */
} cap_ctx;

/* Open loop of an engine whose step times are all f times those of `pt`:
 * at rate r it is pt's engine at rate r f with every time f times, so its
 * count is the least n with n = r f x latency(n) (capacity_root.c), n_cap
 * when r f is beyond pt's capacity; `t` holds its times. Below capacity
 * the count is rate x latency exactly (Little's law), not with the
 * solver's rounding in it, so it never falls short of rate x TTFT and a
 * clock that only slows the service loses nothing (docs/capacity.md,
 * "Closed loop, open loop, energy" and "Power flexibility"). f = 1 is the
 * point's answer; the ends of latency's held-out error are the engines
 * that much faster or slower (docs/intervals.md, "Where it applies"). */
static double
open_loop_at(const cap_ctx *x, const wc_capacity_point *pt, double f, wc_capacity_times *t, int *over)
{
	const double rate = x->c->request_rate * f;
	double n = wc__capacity_open_running(pt, x->a, x->hw, x->c->tp, x->n_cap, rate, x->c->input_tokens,
	                                     x->c->output_tokens, over);
	wc__capacity_open_times(pt, x->a, x->hw, x->c->tp, x->n_cap, n, x->c->input_tokens, x->c->output_tokens, t);
	if (!*over)
		n = wc_capacity_little_running(rate, t->latency_s);
	t->latency_s *= f;
	t->ttft_s *= f;
	t->throughput_tok_s /= f;
	return n;
}

/* The group's mean power at n running requests, exactly as the headline
 * (wc_predict_inference) computes it, so every energy figure comes from
 * the same power (docs/capacity.md, "Closed loop, open loop, energy"):
 * the prefill-aware form's share of time is that of n, not of the count
 * the law was bound at (an open loop's n is solved here). An open loop
 * below capacity (`arrivals`) runs a count of mean n, at most n_cap
 * (wc_load_histogram_open_loop), and its mean power is the law averaged
 * over it, with the open loop's share of its busy time
 * (wc_law_prefill_share_open). */
static double
group_power(const cap_ctx *x, const wc_law_point *lp, double n, int arrivals)
{
	wc_law_point at = *lp;
	wc_config cn = *x->c;
	cn.running = n;
	cn.request_rate = 0.0;
	if (!arrivals) {
		if (at.rho > 0.0 && n != x->c->running)
			at.rho = wc_law_prefill_share(x->p, &cn);
		return x->c->tp * (at.p0 + wc_law_point_mix(&at, wc_law_point_dynamic(&at, n), n));
	}
	wc_load_histogram h;
	wc_power pw = { NAN, NAN, NAN, NAN };
	if (wc_load_histogram_open_loop(n, x->n_cap, &h) == WC_OK) {
		if (at.rho > 0.0)
			at.rho = wc_law_prefill_share_open(x->p, &cn, &h);
		(void)wc_law_point_power(&at, x->c->tp, &h, &pw, NULL); /* NaN stays on failure */
	}
	wc_load_histogram_free(&h);
	return pw.node_power_w;
}

/* Every output for one (capacity point, law point) pair. */
static void
evaluate(const cap_ctx *x, const wc_capacity_point *pt, const wc_law_point *lp, double *v, int *over)
{
	const wc_config *c = x->c;
	/* A closed loop of more requests than the KV cache holds runs n_cap
	 * of them; the others wait, so a request's latency is stretched by
	 * running / n_cap (Little's law at the same throughput). */
	wc_capacity_times t;
	double n;
	*over = 0;
	if (c->request_rate > 0)
		n = open_loop_at(x, pt, 1.0, &t, over);
	else {
		n = wc_predict_running_held(c->running, x->n_cap);
		wc_capacity_times_eval(pt, x->a, x->hw, c->tp, n, c->input_tokens, c->output_tokens, &t);
	}
	/* Below capacity an open loop serves what arrives: its throughput is
	 * the rate's, exactly (Little's law). */
	const int served = c->request_rate > 0 && !*over;
	double wait = c->request_rate > 0 ? 1.0 : c->running / n;
	double power = group_power(x, lp, n, served);
	v[WC_CAPQ_LATENCY] = t.latency_s * wait;
	/* Those others wait in the queue before their prefill: in a closed loop
	 * beyond the cache every request does, latency x (running / n_cap - 1)
	 * (the same wait as above), so the first token comes that much later
	 * (docs/capacity.md, "Memory as vLLM does it"). */
	v[WC_CAPQ_TTFT] = fmin(v[WC_CAPQ_LATENCY], t.ttft_s + t.latency_s * (wait - 1.0));
	v[WC_CAPQ_THROUGHPUT] = served ? c->request_rate * c->output_tokens : t.throughput_tok_s;
	v[WC_CAPQ_E_REQUEST] = power * t.latency_s / n; /* the running time only: waiting draws nothing */
	v[WC_CAPQ_E_TOKEN] = v[WC_CAPQ_E_REQUEST] / c->output_tokens;
	v[WC_CAPQ_E_HOUR] = power / 1000.0;
	v[WC_CAPQ_RUNNING] = n;
	v[WC_CAPQ_POWER] = power;
	/* J -> kWh is / 3.6e6; a million tokens is 1e6 x the per-token energy. */
	double per[3] = { v[WC_CAPQ_E_REQUEST] / 3.6e6, v[WC_CAPQ_E_TOKEN] / 3.6, v[WC_CAPQ_E_HOUR] };
	for (int i = 0; i < 3; i++) {
		v[WC_CAPQ_COST_REQUEST + i] = per[i] * x->price;
		v[WC_CAPQ_CO2_REQUEST + i] = per[i] * x->co2;
	}
}

/* The held-out ends of an open loop's latency, running count and
 * throughput (`v[i][0..2]`, i = 0 the fast end, 1 the slow one): each the
 * model's own answer for an engine exp(q) times the point's step times,
 * q latency's quantiles in `s`, not the point's answer scaled. An engine
 * f times faster at rate r is the point's engine at rate r f with every
 * time f times (open_loop_at), so the end is the answer at r f, its clock
 * settled there as the point's is (wc_predict_capacity_at_rate): under a
 * power cap or the board's limit a slower engine runs more requests and
 * settles lower, and a locked clock gave 29.78 s where the answer at r f
 * gives 30.82 s. Over capacity it may serve every arrival, and under it
 * runs fewer requests, so its latency is below f x the point's; the slow
 * end reaches n_cap where rate x f meets capacity (docs/intervals.md, "An
 * open loop's ends"; docs/capacity.md, "Closed loop, open loop, energy").
 * `*ok` 0: no ends (no stratum); an error in an end's answer is returned. */
static int
open_loop_ends(const cap_ctx *x, const wc_pred_error *pe, const wc_pe_stratum *s, double v[2][3], int *ok,
               wc_error *err)
{
	wc_pe_stratum st;
	*ok = 0;
	if (!s || !x->pt)
		return WC_OK;
	wc_pe_transfer_stratum(pe, s, &st);
	if (!isfinite(st.q_lo) || !isfinite(st.q_hi))
		return WC_OK;
	const double f[2] = { exp(st.q_lo), exp(st.q_hi) };
	const double rate = x->c->request_rate, tokens = rate * x->c->output_tokens;
	wc_capacity_prediction *cp = x->pr ? malloc(sizeof *cp) : NULL; /* on the heap: small handler stacks */
	if (x->pr && !cp)
		return wc_error_set(err, WC_ENOMEM, "interval: out of memory");
	for (int i = 0; i < 2; i++) {
		const double rf = rate * f[i];
		/* a rate the answers refuse (models/limits.h) is the point's
		 * engine at its clock: past the largest, over capacity either way */
		if (cp && rf >= WC_CAPACITY_MIN_RATE && rf <= WC_CAPACITY_MAX_RATE) {
			int rc = wc_predict_capacity_at_rate(x->pr, x->q, rf, cp, err);
			if (rc != WC_OK) {
				free(cp);
				return rc;
			}
			v[i][0] = cp->value[WC_CAPQ_RUNNING];
			v[i][1] = cp->value[WC_CAPQ_LATENCY] * f[i];
			v[i][2] = cp->over_capacity ? cp->value[WC_CAPQ_THROUGHPUT] / f[i] : tokens;
			continue;
		}
		wc_capacity_times t;
		int over;
		v[i][0] = open_loop_at(x, x->pt, f[i], &t, &over);
		v[i][1] = t.latency_s;
		v[i][2] = over ? t.throughput_tok_s : tokens;
	}
	free(cp);
	*ok = 1;
	return WC_OK;
}

/* Quantity k's interval: the draws' [*lo, *hi] (NaN: none) joined with
 * the held-out ends `v` (open_loop_ends), which need not be the point's
 * times a factor: a count that is n_cap at both ends, or a throughput
 * that serves every arrival at both, has none (null), never a zero-width
 * one. */
static int
open_loop_widen(int k, double v[2][3], double point, double *lo, double *hi)
{
	const int j = k == WC_CAPQ_RUNNING ? 0 : k == WC_CAPQ_LATENCY ? 1 : 2;
	for (int i = 0; i < 2; i++) {
		if (!isfinite(v[i][j]))
			continue;
		*lo = isfinite(*lo) ? fmin(*lo, v[i][j]) : v[i][j];
		*hi = isfinite(*hi) ? fmax(*hi, v[i][j]) : v[i][j];
	}
	return wc_interval_contain(point, lo, hi);
}

/* The end of quantity k, whose error is mean power's alone, once power's
 * end `power_end` is held (`upper`: at the ceiling, else at the idle
 * floor); `scaled` is its end moved by power's factor, which is that end
 * when k is proportional to power. Energy per output token and what
 * scales with it are power over throughput: power's end over the point
 * throughput, never past the end it had. Their interval says "(not of
 * latency)": latency's error is not in it, so the throughput they are
 * over is the answer's own, and energy x throughput never passes the
 * ceiling there (an open loop below capacity serves the rate's tokens
 * exactly). One rule for the open loop and a closed loop without energy
 * per token's error (docs/intervals.md, "Physical ceiling"). */
static double
hold_power_share(const wc_capacity_prediction *out, int k, double power_end, double scaled, int upper)
{
	const double v = out->value[k], end = upper ? out->hi[k] : out->lo[k];
	if (!wc__capacity_per_token(k))
		return upper ? fmax(v, scaled) : fmin(v, scaled);
	const double held = v * (power_end / out->value[WC_CAPQ_POWER]);
	if (!isfinite(held))
		return end;
	return upper ? fmax(v, fmin(end, held)) : fmin(v, fmax(end, held));
}

static int
pe_widen(const wc_law_binding *lb, const cap_ctx *x, wc_capacity_prediction *out, wc_error *err)
{
	const wc_params *p = lb->p;
	const wc_config *c = x->c;
	const wc_pe_stratum *power = wc_predict_pe_stratum(p, lb->level);
	const wc_pe_stratum *lat = wc_pe_find(&p->quantity_error[WC_PEQ_LATENCY], c->platform,
	                                      x->datasheet ? "datasheet" : "");
	const wc_pe_stratum *ene = wc_pe_find(&p->quantity_error[WC_PEQ_ENERGY_TOKEN], c->platform,
	                                      x->datasheet ? "datasheet" : "");
	/* A transferred capacity level: latency's and energy per token's
	 * errors are their datasheet strata (leaving each platform out,
	 * docs/intervals.md). A set with latency's but not energy's (written
	 * before it) adds the latency and power errors' quantiles for energy,
	 * as if they never cancelled. Without either the intervals would cover
	 * held-out models on fitted levels only, and the answer says so. */
	wc_pe_stratum both;
	int ds_lat = x->datasheet && lat && strcmp(lat->source, "datasheet") == 0;
	int ds_ene = x->datasheet && ene && strcmp(ene->source, "datasheet") == 0;
	/* the power answer's own words for its stratum (wc_predict_inference) */
	int ds_power = power && strcmp(power->source, "datasheet") == 0;
	if (ds_lat && !ds_ene && power) {
		both = *lat;
		both.q_lo = lat->q_lo + power->q_lo;
		both.q_hi = lat->q_hi + power->q_hi;
		ene = &both;
	}
	/* which laws' draws vary the answer, before held-out error widens it
	 * (docs/intervals.md, "Where it applies") */
	const int lat_drew = out->n_draws > 0 && isfinite(out->lo[WC_CAPQ_LATENCY]);
	const int pow_drew = out->n_draws > 0 && isfinite(out->lo[WC_CAPQ_POWER]);
	wc__capacity_latency_note(x->datasheet, lat, ds_lat, lat_drew, out);
	/* an open loop's latency, count and throughput: the model's answers at
	 * latency's held-out ends, not the point's scaled */
	double ends[2][3];
	int open_ends = 0, rc;
	if (out->open_loop &&
	    (rc = open_loop_ends(x, &p->quantity_error[WC_PEQ_LATENCY], lat, ends, &open_ends, err)) != WC_OK)
		return rc;
	/* the quantities whose error is mean power's alone, or their draws' */
	int power_only[WC_CAPQ_COUNT] = { 0 }, n_pe = 0, n_ds = 0;
	for (int k = 0; k < WC_CAPQ_COUNT; k++) {
		int by = wc__capacity_widened_by(k, out);
		const wc_pe_stratum *s = by == WC__BY_LATENCY ? lat : by == WC__BY_POWER ? power : by == WC__BY_ENERGY
		                         ? (ene ? ene : power) : NULL;
		/* the draws count only where they gave this quantity an interval;
		 * power's share counts the power law's (and the capacity section's
		 * where they reach past it, wc__capacity_power_share_covers) */
		const int drew = by == WC__BY_ENERGY && s == power && s ? pow_drew
		                                                     : out->n_draws > 0 && isfinite(out->lo[k]);
		out->covers[k] = wc_interval_covers_loop(drew, s != NULL,
		                                    s == &both ? "latency and mean power of datasheet transfers"
		                                    : s == lat ? (ds_lat ? "latency of datasheet transfers" : "latency")
		                                    : s == ene ? (ds_ene ? "energy per output token of datasheet transfers"
		                                                         : "energy per output token")
		                                    : by == WC__BY_ENERGY ? "mean power (not of latency)"
		                                    : ds_power ? "mean power of datasheet transfers" : "mean power",
		                                    out->open_loop && !out->over_capacity);
		if (!s && drew)
			out->covers[k] = wc__capacity_draws_covers(k, out, lat_drew, pow_drew);
		power_only[k] = by == WC__BY_POWER || (by == WC__BY_ENERGY && (s == power || !s));
		if (!s || !isfinite(out->value[k]) || out->value[k] <= 0.0)
			continue;
		const wc_pred_error *pe = s == power ? &p->pred_error : s == lat ? &p->quantity_error[WC_PEQ_LATENCY]
		                          : s == ene ? &p->quantity_error[WC_PEQ_ENERGY_TOKEN] : NULL;
		/* what mean power carries a calibrated level's draws into takes the
		 * power answer's rule (docs/intervals.md, "Calibrated sets") */
		const int by_open = open_ends && s == lat && (k == WC_CAPQ_LATENCY || k == WC_CAPQ_RUNNING ||
		                                              k == WC_CAPQ_THROUGHPUT);
		out->has_interval |= by_open ? open_loop_widen(k, ends, out->value[k], &out->lo[k], &out->hi[k])
		                     : by == WC__BY_LATENCY ? wc_pe_widen_transfer(pe, s, out->value[k], &out->lo[k], &out->hi[k])
		                     : wc__predict_widen_power(lb, pe, s, out->value[k], &out->lo[k], &out->hi[k]);
		out->pe_stratum = out->pe_stratum ? out->pe_stratum : s == &both ? lat : s;
		n_pe++;
		n_ds += strcmp(s->source, "datasheet") == 0;
	}
	out->pe_datasheet = n_pe > 0 && n_ds == n_pe; /* wc_predict_capacity_covers */
	/* Below capacity an open loop serves its arrivals: its throughput is
	 * rate x output tokens whatever the latency (docs/capacity.md), at
	 * every end that is below capacity too (open_loop_ends); without
	 * those ends latency's error does not widen it (docs/intervals.md). */
	if (out->open_loop && !out->over_capacity && !open_ends)
		out->lo[WC_CAPQ_THROUGHPUT] = out->hi[WC_CAPQ_THROUGHPUT] = NAN;
	/* No more tokens leave than arrive: the upper end is held at rate x
	 * output tokens, as n's is at its limit (docs/intervals.md). */
	else if (out->open_loop && isfinite(out->hi[WC_CAPQ_THROUGHPUT]))
		out->hi[WC_CAPQ_THROUGHPUT] = fmin(out->hi[WC_CAPQ_THROUGHPUT], c->request_rate * c->output_tokens);
	/* Power and what is proportional to it (energy, cost and CO2 per
	 * hour) end where the boards do (docs/intervals.md, "Physical
	 * ceiling"): the same factor holds each. */
	const double node_w = out->value[WC_CAPQ_POWER];
	double ceiling = wc_level_power_ceiling_w(lb->level, x->cap_w, out->steady_power_w / c->tp, c->tp);
	/* its idle share draws the idle power: an open loop's, a fractional closed loop's */
	ceiling = wc_law_loop_ceiling_w(ceiling, wc__predict_idle_floor(lb, c->tp), out->value[WC_CAPQ_RUNNING], x->n_cap,
	                                out->open_loop && !out->over_capacity);
	double f = wc_interval_hold_ceiling(node_w, ceiling, &out->hi[WC_CAPQ_POWER]);
	for (int k = 0; k < WC_CAPQ_COUNT && f < 1.0; k++)
		if (k != WC_CAPQ_POWER && power_only[k] && isfinite(out->hi[k]))
			out->hi[k] = hold_power_share(out, k, out->hi[WC_CAPQ_POWER], out->hi[k] * f, 1);
	/* ... and start no lower than a known idle draw, as the power answer's */
	const double lo0 = out->lo[WC_CAPQ_POWER];
	wc_interval_hold_floor(node_w, wc__predict_idle_floor(lb, c->tp), &out->lo[WC_CAPQ_POWER]);
	for (int k = 0; k < WC_CAPQ_COUNT && lo0 > 0.0 && out->lo[WC_CAPQ_POWER] > lo0; k++)
		if (k != WC_CAPQ_POWER && power_only[k] && isfinite(out->lo[k]))
			out->lo[k] = hold_power_share(out, k, out->lo[WC_CAPQ_POWER], out->lo[k] * out->lo[WC_CAPQ_POWER] / lo0, 0);
	wc__capacity_power_share_covers(!ene && power, pow_drew, out);
	return WC_OK;
}

/* Draw r of both laws: the power law's r-th and the section's r-th row,
 * the shorter list cycled; a set without draws gives its point. */
static int
draw_intervals(const cap_ctx *x, const wc_capacity_binding *cb, const wc_law_binding *lb,
               wc_capacity_prediction *out, wc_error *err)
{
	const wc_params *p = lb->p;
	const wc_draws *cd = &cb->c->draws;
	int D = p->n_draws > cd->n ? p->n_draws : cd->n;
	if (D < 2)
		return pe_widen(lb, x, out, err);
	double *v = wc_alloc_array((size_t)D * WC_CAPQ_COUNT, sizeof *v), *col = wc_alloc_array((size_t)D, sizeof *col);
	if (!v || !col) {
		free(v);
		free(col);
		return wc_error_set(err, WC_ENOMEM, "interval: out of memory");
	}
	for (int r = 0; r < D; r++) {
		wc_capacity_point pt;
		wc_law_point lp;
		int over;
		wc_capacity_bound_point(cb, cd->n ? wc_draws_row(cd, r % cd->n) : NULL, &pt);
		wc_law_bound_point(lb, p->n_draws ? p->draws + (size_t)(r % p->n_draws) * p->n_draw_params : NULL, &lp);
		evaluate(x, &pt, &lp, v + (size_t)r * WC_CAPQ_COUNT, &over);
	}
	for (int k = 0; k < WC_CAPQ_COUNT; k++) {
		for (int r = 0; r < D; r++)
			col[r] = v[(size_t)r * WC_CAPQ_COUNT + k];
		/* A quantity every draw gives the same value has no interval
		 * (null), never a zero-width one. */
		out->has_interval |= wc_interval_from_draws(col, (size_t)D, out->value[k], &out->lo[k], &out->hi[k]);
	}
	out->n_draws = out->has_interval ? D : 0;
	free(v);
	free(col);
	return pe_widen(lb, x, out, err);
}

static int
check_workload(const wc_inference_query *q, wc_error *err)
{
	const wc_config *c = &q->config;
	if (!c->arch)
		return wc_error_set(err, WC_EINVAL, "model: the capacity model needs the architecture (a catalog "
		                    "model name, or layers, kv_heads, head_dim and the parameter counts)");
	if (!isfinite(c->input_tokens) || c->input_tokens < 0 || c->input_tokens > WC_CAPACITY_MAX_TOKENS)
		return wc_error_set(err, WC_EINVAL, "input_tokens: must be a number from 0 to %g, got %s",
		                    WC_CAPACITY_MAX_TOKENS, WC_NUM_TEXT(c->input_tokens));
	if (!isfinite(c->output_tokens) || c->output_tokens < 1 || c->output_tokens > WC_CAPACITY_MAX_TOKENS)
		return wc_error_set(err, WC_EINVAL, "output_tokens: must be a number from 1 to %g, got %s",
		                    WC_CAPACITY_MAX_TOKENS, WC_NUM_TEXT(c->output_tokens));
	/* A series has no one running count nor rate for the capacity answers
	 * to be at: capacity_bound refuses it once the lengths' warnings that
	 * apply to its power are said (docs/http-api.md, "POST
	 * /v1/predict/inference"). */
	if (q->series_len > 0)
		return WC_OK;
	/* A rate of 0 is the closed loop, a concurrency of 0 no engine limit; a
	 * positive one below its bound gives null energies (models/limits.h). */
	if (!(c->request_rate == 0 || (c->request_rate >= WC_CAPACITY_MIN_RATE && c->request_rate <= WC_CAPACITY_MAX_RATE)))
		return wc_error_set(err, WC_EINVAL, "rate: must be at least %g and at most %g requests/s, got %s",
		                    WC_CAPACITY_MIN_RATE, WC_CAPACITY_MAX_RATE, WC_NUM_TEXT(c->request_rate));
	if (c->running > WC_CAPACITY_MAX_CONCURRENCY || (c->running > 0 && c->running < WC_CAPACITY_MIN_CONCURRENCY))
		return wc_error_set(err, WC_EINVAL, "concurrency: 0 or %g to %g requests at once for the capacity "
		                    "answers, got %s", WC_CAPACITY_MIN_CONCURRENCY, WC_CAPACITY_MAX_CONCURRENCY, WC_NUM_TEXT(c->running));
	if (c->request_rate <= 0 && !(c->running > 0))
		return wc_error_set(err, WC_EINVAL, "concurrency: must be > 0 for latency and energy per token "
		                    "(or give rate)");
	return WC_OK;
}

static void
prediction_init(wc_capacity_prediction *out)
{
	memset(out, 0, sizeof *out);
	for (int k = 0; k < WC_CAPQ_COUNT; k++)
		out->value[k] = out->lo[k] = out->hi[k] = NAN;
	out->capacity_rate = NAN;
}

/* A running_series with token lengths: no capacity answers (one running
 * count or rate would be needed), but the warnings on its lengths that
 * apply to its power -- the context's (said before), the capacity
 * level's and its calibrated span where the law uses the step times (the
 * prefill-aware form's share, the prompt-share term), at the series'
 * mean of what runs -- go with the refusal: the answer carries them
 * (wc_predict_note_no_capacity; docs/inference-law.md, "Averaging over a
 * load series"). */
static int
series_refused(const wc_params *p, const wc_capacity_binding *cb, const wc_inference_query *q,
               wc_capacity_prediction *out, wc_error *err)
{
	wc_load_histogram h;
	int rc;
	if ((p->law_terms & WC_LT_BIT(WC_LT_PROMPT)) || wc_form_has_prefill(p->form)) {
		char note[WC_WARNING_LEN];
		if (cb->datasheet) {
			wc_capacity_transfer_note(cb, note, sizeof note);
			WC_WARN(out, "%s", note);
		}
		if ((rc = wc__predict_load_histogram(q, out->max_concurrency_fit, &h, err)) != WC_OK)
			return rc;
		wc__capacity_span_warnings(cb, &q->config, wc__predict_load_field(q), h.mean, out);
		wc_load_histogram_free(&h);
	}
	return wc_error_set(err, WC_EINVAL, "%s", WC_CAPACITY_SERIES_NONE);
}

/* The answer of `p` (the platform's power level resolved) into `out`,
 * already initialised, with `cb` the caller's storage for the binding;
 * `pr` and `asked`, the query as sent, answer an open loop's ends. */
static int
capacity_bound(const wc_predictor *pr, const wc_params *p, const wc_inference_query *q, const wc_inference_query *asked,
               double price_per_kwh, double grams_co2_per_kwh, wc_capacity_binding *cb, wc_capacity_prediction *out,
               wc_error *err)
{
	const wc_config *c = &q->config;
	wc_law_binding lb;
	wc_capacity_arch a;
	int rc;
	if ((rc = check_workload(q, err)) || (rc = wc_capacity_bind_any(&p->capacity, c->platform, cb, err)) ||
	    (!q->series_len && (rc = wc_law_bind(p, c, &lb, err))) ||
	    (rc = wc__predict_config_arch(c, &a, err)) ||
	    (rc = wc_predict_memory_check(p, c, &out->max_concurrency_fit, err)) ||
	    (rc = wc_predict_clock_check(p, c, err)))
		return rc;
	/* Past the card's context the model was never trained to answer and
	 * vLLM rejects the request by default; warned, not refused, since a
	 * variant matched by name may be served longer (docs/capacity.md). */
	char over[WC_WARNING_LEN];
	if (wc__predict_over_context(c, over, sizeof over))
		WC_WARN(out, "%s; vLLM refuses such a request unless served longer with RoPE scaling (answered as if it "
		        "ran)", over);
	if (q->series_len > 0)
		return series_refused(p, cb, q, out, err);
	cb->hw.clock_ratio = wc_capacity_clock_ratio(c->platform, c->sm_clock_mhz);
	out->level_source = cb->datasheet ? "datasheet" : "fitted";
	if (cb->datasheet) {
		char note[WC_WARNING_LEN];
		wc_capacity_transfer_note(cb, note, sizeof note);
		WC_WARN(out, "%s", note);
	}
	double reserve = wc_predict_memory_reserve(p, c);
	double held = wc_capacity_kv_tokens_held(c->input_tokens, c->output_tokens);
	out->memory_available_gb = wc_capacity_memory_available(&cb->hw, c->tp, reserve) / 1e9;
	out->memory_workspace_gb = c->tp * WC_CAPACITY_WORKSPACE_GB;
	if ((rc = wc_predict_money_check(price_per_kwh, grams_co2_per_kwh, err)))
		return rc;
	/* + 0.0: a price of -0 is 0, and its costs print "0", not "-0" */
	out->price_per_kwh = (isfinite(price_per_kwh) ? price_per_kwh : p->capacity.price_per_kwh) + 0.0;
	out->grams_co2_per_kwh = (isfinite(grams_co2_per_kwh) ? grams_co2_per_kwh : p->capacity.grams_co2_per_kwh) + 0.0;
	out->open_loop = c->request_rate > 0;
	cap_ctx x = { p, &a, &cb->hw, c, out->max_concurrency_fit, out->price_per_kwh, out->grams_co2_per_kwh,
		      cb->datasheet, q->power_cap_w, NULL, pr, asked };
	if (out->open_loop && c->running > 0 && c->running < x.n_cap)
		x.n_cap = c->running; /* the engine's concurrency limit */
	if (out->open_loop && !isfinite(x.n_cap))
		x.n_cap = 1e6;
	wc_capacity_point pt;
	wc_law_point lp;
	wc_capacity_bound_point(cb, NULL, &pt);
	wc_law_bound_point(&lb, NULL, &lp);
	x.pt = &pt;
	evaluate(&x, &pt, &lp, out->value, &out->over_capacity);
	out->running_max = x.n_cap;
	/* what the GPUs draw while they serve: a light loop's idle share, an
	 * open loop's or a fractional closed loop's duty cycle, lets no busy
	 * moment run a higher clock (docs/capacity.md, "Clocks and power
	 * caps"); the law at the count running otherwise, the answer's own */
	const double serving = wc_load_serving_count(out->value[WC_CAPQ_RUNNING]);
	out->steady_power_w = (out->open_loop && !out->over_capacity) || serving != out->value[WC_CAPQ_RUNNING]
	                              ? group_power(&x, &lp, serving, 0)
	                              : out->value[WC_CAPQ_POWER];
	out->memory_need_gb = wc_capacity_memory_need(&a, out->value[WC_CAPQ_RUNNING], held) / 1e9;
	if (!out->open_loop && c->running > x.n_cap) {
		char note[WC_WARNING_LEN];
		wc__predict_kv_wait_note(p, c, "concurrency", c->running, x.n_cap, -1.0, 1, note, sizeof note);
		WC_WARN(out, "%s", note);
	}
	if (out->open_loop) {
		wc_capacity_times t;
		wc_capacity_times_eval(&pt, &a, &cb->hw, c->tp, x.n_cap, c->input_tokens, c->output_tokens, &t);
		out->capacity_rate = wc_capacity_little_rate(x.n_cap, t.latency_s);
		/* An engine limit that serves under the least rate the answers
		 * take is the limit's fault, not the rate's: refused on it with
		 * the value sent (docs/http-api.md, "Limits"). */
		if (x.n_cap == c->running && !(out->capacity_rate >= WC_CAPACITY_MIN_RATE))
			return wc_error_set(err, WC_EINVAL, "concurrency: an engine limit of %g running requests serves "
			                    "%.3g requests/s, under the least rate of %g; raise it", c->running,
			                    out->capacity_rate, WC_CAPACITY_MIN_RATE);
		if (out->over_capacity) /* ten digits: a rate just over it must not print as equal */
			WC_WARN(out, "rate: %.10g requests/s %s the capacity of %.10g requests/s at %g running requests; "
			        "the answers are those at capacity (the queue would grow without bound)", c->request_rate,
			        wc_capacity_rate_at(c->request_rate, out->capacity_rate) ? "is at" : "exceeds", out->capacity_rate, x.n_cap);
		else
			wc__predict_queue_note(out->value[WC_CAPQ_RUNNING], x.n_cap, out->value[WC_CAPQ_LATENCY], out->warnings, &out->n_warnings);
	}
	wc__capacity_span_warnings(cb, c, wc__predict_load_field(q), out->value[WC_CAPQ_RUNNING], out);
	if (!q->want_interval)
		return WC_OK;
	if ((rc = draw_intervals(&x, cb, &lb, out, err)) != WC_OK)
		return rc;
	const int by_arrivals = out->open_loop && !out->over_capacity;
	/* An answer without an interval says so where its interval would say
	 * what it covers, not in a warning on every answer (docs/intervals.md). */
	wc__capacity_null_covers(p, by_arrivals, out);
	return WC_OK;
}

int
wc_predict_capacity(const wc_predictor *pr, const wc_inference_query *q, double price_per_kwh,
                    double grams_co2_per_kwh, wc_capacity_prediction *out, wc_error *err)
{
	/* The law's level as the power answer takes it (a board without one
	 * from its datasheet, docs/fitting.md); on the heap: the server answers
	 * on small worker stacks. */
	const wc_params *p = wc_predictor_params(pr);
	struct {
		wc_capacity_binding cb;
		wc_inference_query q;
	} *w = malloc(sizeof *w);
	wc_params *tmp = NULL;
	int rc;
	prediction_init(out);
	if (!w)
		return wc_error_set(err, WC_ENOMEM, "predict: out of memory");
	w->q = *q;
	if ((rc = q->no_datasheet ? WC_OK : wc_predict_resolve_platform(p, &w->q.config, &tmp, err)) == WC_OK)
		rc = capacity_bound(pr, tmp ? tmp : p, &w->q, q, price_per_kwh, grams_co2_per_kwh, &w->cb, out, err);
	out->pe_stratum = wc__predict_rebase(p, tmp, out->pe_stratum);
	/* Expert parallelism spreads experts: a dense model has none, and is
	 * answered tensor parallel -- said, not dropped without a word; a
	 * series' power uses it too (its memory and prefill share). */
	const int said = rc == WC_OK || (q->series_len > 0 && wc_predict_capacity_absent(err));
	if (said && q->config.expert_parallel && q->config.arch && !wc_predict_spreads_experts(&q->config))
		WC_WARN(out, "expert_parallel: %s is a dense model (no experts to spread); answered tensor parallel",
		        q->config.arch->name);
	else if (said && q->config.expert_parallel && q->config.tp < 2) /* docs/capacity.md: MoE on G > 1 */
		WC_WARN(out, "expert_parallel: ignored: one GPU (tp 1) holds every expert; it changes nothing");
	free(tmp);
	free(w);
	return rc;
}
