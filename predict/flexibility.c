/*
 * Power flexibility (predict/flexibility.h, docs/capacity.md "Power
 * flexibility"): a sweep of clock locks or power caps through the
 * capacity answers, and the index, knee and energy optimum over it.
 */
#include "predict/flexibility.h"
#include "flexibility_internal.h"
#include "predict_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/warnings.h"

/* Relative size below which a change of throughput is the arithmetic's
 * rounding, not a loss (docs/capacity.md, "Power flexibility"): every
 * comparison of the analysis goes through it. */
#define WC_FLEX_REL_TOL 1e-9

/* The fraction of the unconstrained throughput `T` lost at `x`: none
 * within the tolerance, and never negative (a step is not credited for
 * throughput above the unconstrained point's). */
static double
lost_fraction(double x, double T)
{
	double lost = 1.0 - x / T;
	return lost > WC_FLEX_REL_TOL ? lost : 0.0;
}

void
wc_flexibility_analyse(wc_flexibility *f)
{
	const double P = f->ref_node_power_w, T = f->ref_throughput_tok_s;
	int best = -1, knee = -1, top = -1;
	for (int i = 0; i < f->n_steps; i++) {
		wc_flex_step *s = &f->steps[i];
		double lost = lost_fraction(s->throughput_tok_s, T);
		s->power_shed_w = P - s->node_power_w;
		s->throughput_lost_pct = 100.0 * lost;
		/* No throughput lost: the index is unbounded, reported as none. */
		s->pfi = lost > 0.0 ? (s->power_shed_w / P) / lost : NAN;
		/* A step over capacity cannot be deployed for the load asked: its
		 * queue grows without bound, and its energy is the at-capacity
		 * number, not the rate's (docs/capacity.md, "Power flexibility"). */
		if (s->over_capacity)
			continue;
		top = top < 0 ? i : top;
		if (best < 0 || s->energy_per_output_token_j < f->steps[best].energy_per_output_token_j)
			best = i;
	}
	/* Going down from the first step that serves the rate, the knee is
	 * the last step before a segment whose share of throughput lost
	 * exceeds its share of power shed, or that ends over capacity. Power
	 * need not fall with the clock (an open loop runs more requests when
	 * the service slows): a segment where it rises sheds a negative share,
	 * so it ends the descent too, and the knee never draws more than the
	 * step above it nor, from the top, than the unconstrained point. */
	for (int i = top; i >= 0 && i + 1 < f->n_steps && knee < 0; i++) {
		const wc_flex_step *a = &f->steps[i], *b = &f->steps[i + 1];
		double dp = (a->node_power_w - b->node_power_w) / P;
		double dt = (b->throughput_lost_pct - a->throughput_lost_pct) / 100.0;
		if (b->over_capacity || dt > dp + WC_FLEX_REL_TOL || dp < -WC_FLEX_REL_TOL)
			knee = i;
	}
	if (knee < 0 && top >= 0)
		knee = f->n_steps - 1;
	f->knee_clock_mhz = knee >= 0 ? f->steps[knee].sm_clock_mhz : NAN;
	f->knee_power_cap_w = knee >= 0 ? f->steps[knee].power_cap_w : NAN;
	f->energy_optimal_clock_mhz = best >= 0 ? f->steps[best].sm_clock_mhz : NAN;
}

static void
warn_once(wc_flexibility *f, const char *msg)
{
	for (int i = 0; i < f->n_warnings; i++)
		if (strcmp(f->warnings[i], msg) == 0)
			return; /* every step repeats the same caveats: say each once */
	WC_WARN(f, "%s", msg);
}

/* One state of the sweep: the capacity answer at clock `*mhz` (0 = free).
 * A cap's step is answered as `predict inference --power-cap` answers it:
 * an open loop over the rate the cap sustains at full load is over
 * capacity, at full load's clock (wc_predict_capacity_sustained), which
 * `*mhz` then becomes. The unconstrained point's caveats (`step` < 0) are
 * said as they are; a step's are kept in `cv`, said with every step of
 * their kind (wc__flex_caveats_say). */
static int
state_at(const wc_predictor *pr, const wc_inference_query *q, double *mhz, int step, wc_capacity_prediction *cap,
         wc_flexibility *f, wc__flex_caveats *cv, wc_error *err)
{
	wc_inference_query at = *q;
	at.config.sm_clock_mhz = *mhz;
	int rc = wc_predict_capacity(pr, &at, NAN, NAN, cap, err);
	if (rc == WC_OK && at.power_cap_w > 0.0 && (rc = wc_predict_capacity_sustained(pr, &at, cap, err)) == WC_OK)
		*mhz = at.config.sm_clock_mhz;
	/* The load's line of the capacity span is said by the power answer at
	 * the same load, with its own span when both are left (power_caveats,
	 * sources; docs/capacity.md, "Warnings"): one load, one line. */
	for (int i = 0; rc == WC_OK && i < cap->n_warnings; i++)
		if (wc_predict_both_line(cap, i))
			continue;
		else if (step < 0)
			warn_once(f, cap->warnings[i]);
		else
			rc = wc__flex_caveat_add(cv, step, cap->warnings[i], err);
	return rc;
}

/* The power answer's caveats at step `step` (clock `mhz`, capacity answer
 * `cap`), as `predict inference` asked with that clock gives them: at the
 * running count the capacity answer gives. The clock is named by what set
 * it: power_cap_w in a cap sweep, as `predict inference --power-cap` names
 * it, sm_clock_mhz in a clock sweep (docs/capacity.md, "Power
 * flexibility"). A refusal leaves the step without them, as the capacity
 * answer was given. */
static int
power_caveats(const wc_predictor *pr, const wc_inference_query *q, int step, double mhz,
              const wc_capacity_prediction *cap, wc_flexibility *f, wc__flex_caveats *cv, wc_error *err)
{
	static const char asked[] = "sm_clock_mhz: ";
	wc_inference_prediction *ip = malloc(sizeof *ip); /* on the heap: small handler stacks */
	wc_inference_query at = *q;
	wc_error ignored;
	int rc = WC_OK;
	if (!ip)
		return wc_error_set(err, WC_ENOMEM, "flexibility: out of memory");
	at.want_interval = 0;
	at.config.sm_clock_mhz = mhz;
	wc_predict_take_running(&at, cap);
	const int ok = wc_predict_inference(pr, &at, ip, &ignored) == WC_OK;
	/* the capacity span's lines of the load, tp and size, unless the power
	 * answer's names them */
	for (int k = 0; rc == WC_OK && k < WC_SPANS_BOTH; k++)
		if (cap->both_line[k] > 0 && cap->both_line[k] <= cap->n_warnings && !(ok && ip->joined[k]))
			rc = wc__flex_caveat_add(cv, step, cap->warnings[cap->both_line[k] - 1], err);
	if (ok)
		for (int i = 0; rc == WC_OK && i < ip->n_warnings; i++) {
			char msg[WC_WARNING_LEN];
			if (f->by_cap && strncmp(ip->warnings[i], asked, sizeof asked - 1) == 0)
				wc_error_format(msg, sizeof msg, "power_cap_w: %s", ip->warnings[i] + sizeof asked - 1);
			else
				snprintf(msg, sizeof msg, "%s", ip->warnings[i]);
			rc = wc__flex_caveat_add(cv, step, msg, err);
		}
	free(ip);
	return rc;
}

/* The capacity answer's quantities a sweep reports, in WC_FLEX_* order. */
static const int flex_capq[WC_FLEX_IQ] = { WC_CAPQ_POWER, WC_CAPQ_THROUGHPUT, WC_CAPQ_E_TOKEN, WC_CAPQ_LATENCY };

static void
fill_step(wc_flex_step *s, double mhz, double cap_w, const wc_capacity_prediction *c, int tp)
{
	for (int k = 0; k < WC_FLEX_IQ; k++) {
		s->lo[k] = c->lo[flex_capq[k]];
		s->hi[k] = c->hi[flex_capq[k]];
	}
	s->sm_clock_mhz = mhz;
	s->node_power_w = c->value[WC_CAPQ_POWER];
	/* the cap that settles at this clock: what the GPUs draw while they
	 * serve, an open loop's idle share left out (docs/capacity.md,
	 * "Clocks and power caps") */
	s->power_cap_w = cap_w > 0 ? cap_w : c->steady_power_w / tp;
	s->throughput_tok_s = c->value[WC_CAPQ_THROUGHPUT];
	s->energy_per_output_token_j = c->value[WC_CAPQ_E_TOKEN];
	s->latency_s = c->value[WC_CAPQ_LATENCY];
	s->mean_running = c->value[WC_CAPQ_RUNNING];
	s->over_capacity = c->over_capacity;
}

/* The steps, each with its caveats kept in `cv`: its capacity answer's
 * and, below the top step (the unconstrained point, whose caveats -- the
 * board's limit, say -- are said as they are), its power answer's. */
static int
sweep(const wc_predictor *pr, const wc_inference_query *q, const wc_platform_info *info, double top, int by_cap,
      int n, wc_capacity_prediction *cap, wc_flexibility *out, wc__flex_caveats *cv, wc_error *err)
{
	const double fhi = top > 0.0 ? top : info->max_sm_clock_mhz, flo = info->min_sm_clock_mhz;
	double p_hi = 0, p_lo = 0;
	int rc, tp = q->config.tp, unmet = 0;
	if (by_cap) {
		/* The caps go down to the least power any clock gives, which is
		 * not the lowest clock's where a slower service runs more
		 * requests (an open loop): below it no cap is met. */
		double f_floor;
		double f_top = fhi;
		/* They start at the least cap that does not bind, by the rule
		 * that answers a cap (an open loop's at full load too), so the top
		 * step is the unconstrained point, shedding nothing. */
		if ((rc = state_at(pr, q, &f_top, 0, cap, out, cv, err)) != WC_OK ||
		    (rc = wc_predict_cap_unbound(pr, q, cap, &p_hi, err)) != WC_OK ||
		    (rc = wc_predict_power_floor(pr, q, fhi, &f_floor, &p_lo, err)) != WC_OK)
			return rc;
		p_lo = fmin(p_lo, p_hi);
	}
	for (int i = 0; i < n; i++) {
		double u = (double)i / (n - 1), mhz = fhi - u * (fhi - flo), cap_w = 0.0;
		wc_inference_query at = *q;
		if (by_cap) {
			cap_w = p_hi - u * (p_hi - p_lo);
			if ((rc = wc_predict_power_cap(pr, &at, cap_w, &mhz, err)) != WC_OK)
				return rc;
			/* The cap does not bind below the free power: the top clock;
			 * a cap at or below the power at the top never settles above it. */
			mhz = mhz > 0 ? fmin(mhz, fhi) : fhi;
			/* Every step is the answer to the cap it prints, the top
			 * one's too: its intervals end at the cap's ceiling, as
			 * predict inference's do under it (docs/intervals.md,
			 * "Physical ceiling"). The top cap binds the point's value
			 * nowhere, so the step's values are the unconstrained
			 * point's, but a draw above it in the interval is one the
			 * cap would hold; the point's own intervals are the
			 * sweep's interval_95 (docs/capacity.md, "Power
			 * flexibility"). */
			at.power_cap_w = cap_w;
		}
		if ((rc = state_at(pr, &at, &mhz, i, cap, out, cv, err)) != WC_OK ||
		    (i > 0 && (rc = power_caveats(pr, q, i, mhz, cap, out, cv, err)) != WC_OK))
			return rc;
		fill_step(&out->steps[i], mhz, cap_w, cap, tp);
		/* A cap no clock meets is said as `predict inference --power-cap`
		 * says it, once, at the first step it holds at (docs/capacity.md,
		 * "Power flexibility"). */
		if (by_cap && !unmet && !wc_power_cap_met(cap_w, cap->steady_power_w / tp)) {
			char note[WC_WARNING_LEN], msg[WC_WARNING_LEN];
			wc_predict_cap_unmet_note(cap_w, info->name, mhz, 1.0, cap->steady_power_w / tp, note, sizeof note);
			wc_error_format(msg, sizeof msg, "at %.0f MHz: %s", mhz, note);
			warn_once(out, msg);
			unmet = 1;
		}
	}
	out->n_steps = n;
	return WC_OK;
}

/* The profile and power level source of the unconstrained point, from
 * the point answer itself, and its power side's caveats as `predict
 * inference` gives them (a board from its datasheet, a model or group
 * outside the calibrated span). On the heap: server handler stacks are
 * small. */
static int
sources(const wc_predictor *pr, const wc_inference_query *lim, double running,
        const double cap_span[WC_SPANS_BOTH][2], const char cap_line[WC_SPANS_BOTH][WC_WARNING_LEN],
        wc_flexibility *out, wc_error *err)
{
	wc_inference_prediction *ip = malloc(sizeof *ip);
	/* the point as `predict inference` answers it: at the clock the
	 * board's limit settles (its warning says so) and the running count
	 * the capacity answer gives (the KV cache's, or an open loop's) */
	wc_inference_query at = *lim;
	if (!ip)
		return wc_error_set(err, WC_ENOMEM, "flexibility: out of memory");
	at.want_interval = 0;
	at.config.running = running;
	memcpy(at.cap_span, cap_span, sizeof at.cap_span); /* the point's capacity spans, whose lines state_at left out */
	int rc = wc_predict_inference(pr, &at, ip, err);
	for (int k = 0; rc == WC_OK && k < WC_SPANS_BOTH; k++)
		if (cap_line[k][0] && !ip->joined[k])
			warn_once(out, cap_line[k]);
	if (rc == WC_OK) {
		snprintf(out->profile, sizeof out->profile, "%s", ip->profile);
		out->level_source = ip->level_source;
		for (int i = 0; i < ip->n_warnings; i++)
			warn_once(out, ip->warnings[i]);
	}
	free(ip);
	return rc;
}

/* Is a clock step `s` the answer to its own cap column, as `predict
 * inference --power-cap` gives it (docs/capacity.md, "Power
 * flexibility")? The column is what the load asked draws while serving at
 * the step's clock; an open loop's answer to it settles at full load's
 * clock, where the rate can be over capacity. If not, the warning naming
 * `field`, and *holds 0. */
static int
cap_holds(const wc_predictor *pr, const wc_inference_query *q, const wc_flex_step *s, const char *field,
          wc_flexibility *f, int *holds, wc_error *err)
{
	wc_capacity_prediction *cap = malloc(sizeof *cap); /* on the heap: small handler stacks */
	wc_inference_query at = *q;
	*holds = 1;
	if (!cap)
		return wc_error_set(err, WC_ENOMEM, "flexibility: out of memory");
	at.power_cap_w = s->power_cap_w;
	at.want_interval = 0;
	int rc = wc_predict_settle_clock(pr, &at, err);
	if (rc == WC_OK)
		rc = wc_predict_capacity_settled(pr, &at, NAN, NAN, cap, err);
	/* read only once answered: on a refusal the answer was never written */
	const double x = rc == WC_OK ? cap->value[WC_CAPQ_THROUGHPUT] : NAN;
	const double w = rc == WC_OK ? cap->value[WC_CAPQ_POWER] : NAN;
	if (rc == WC_OK && (x < s->throughput_tok_s * (1.0 - WC_FLEX_REL_TOL) ||
	                    w > s->node_power_w * (1.0 + WC_FLEX_REL_TOL))) {
		*holds = 0;
		WC_WARN(f, "%s: a %.1f W cap per GPU, the draw there, is answered at %.0f MHz, %.1f W per node and %.5g "
		        "tokens/s (%.1f %% lost)%s, not at the step's %.0f MHz; lock the clock there instead "
		        "(docs/capacity.md)", field, s->power_cap_w,
		        at.config.sm_clock_mhz > 0 ? at.config.sm_clock_mhz : s->sm_clock_mhz, w, x,
		        100.0 * lost_fraction(x, f->ref_throughput_tok_s), cap->over_capacity ? ", over capacity at full "
		        "load's clock" : "", s->sm_clock_mhz);
	}
	free(cap);
	return rc;
}

/* The sweep's recommendations in a clock sweep, the knee and the energy
 * optimum, checked against the answer to their cap column: a knee whose
 * cap would not deliver it has none (knee_power_cap_w NaN), said. A cap
 * sweep's steps are the answers to their caps already. */
static int
check_pick_caps(const wc_predictor *pr, const wc_inference_query *q, wc_flexibility *f, wc_error *err)
{
	int knee = -1, best = -1, holds = 1, rc = WC_OK;
	for (int i = 0; i < f->n_steps; i++) {
		knee = f->steps[i].sm_clock_mhz == f->knee_clock_mhz && knee < 0 ? i : knee;
		best = f->steps[i].sm_clock_mhz == f->energy_optimal_clock_mhz && best < 0 ? i : best;
	}
	if (f->by_cap || knee < 0)
		return WC_OK;
	if ((rc = cap_holds(pr, q, &f->steps[knee], "knee_power_cap_w: none", f, &holds, err)) == WC_OK && !holds)
		f->knee_power_cap_w = NAN;
	if (rc == WC_OK && best >= 0 && best != knee)
		rc = cap_holds(pr, q, &f->steps[best], "energy_optimal_clock_mhz: its step's cap column does not hold it",
		               f, &holds, err);
	return rc;
}

int
wc_predict_flexibility(const wc_predictor *pr, const wc_inference_query *q, int by_cap, int n_steps,
                       wc_flexibility *out, wc_error *err)
{
	const wc_config *c = &q->config;
	const wc_platform_info *info = wc_predict_board(wc_predictor_params(pr), c->platform);
	int rc;
	memset(out, 0, sizeof *out);
	out->by_cap = by_cap;
	out->tp = c->tp;
	if (n_steps < 2 || n_steps > WC_FLEX_MAX_STEPS)
		return wc_error_set(err, WC_EINVAL, "steps: must be between 2 and %d, got %d", WC_FLEX_MAX_STEPS, n_steps);
	if (c->sm_clock_mhz > 0)
		return wc_error_set(err, WC_EINVAL, "sm_clock_mhz: the sweep sets the clock; leave it out");
	if (!info || !(info->max_sm_clock_mhz > info->min_sm_clock_mhz))
		return wc_error_set(err, WC_EINVAL, "platform: the catalog has no clock range for '%s'",
		                    c->platform ? c->platform : "");
	/* On the heap: server handler stacks are small. */
	wc_capacity_prediction *cap = malloc(sizeof *cap);
	if (!cap)
		return wc_error_set(err, WC_ENOMEM, "flexibility: out of memory");
	/* The unconstrained point is the one the board's power limit allows
	 * (docs/capacity.md, "The board's power limit"): above the clock it
	 * settles at, a lock or a cap changes nothing, so the sweep starts there. */
	wc_inference_query lim = *q;
	double top = 0.0;
	if ((rc = wc_predict_board_limit(pr, &lim, err)) == WC_OK && lim.board_limit_w > 0) {
		top = lim.config.sm_clock_mhz;
		out->board_limit_w = lim.board_limit_w;
	}
	double ref_running = NAN, cap_span[WC_SPANS_BOTH][2] = { { 0.0, 0.0 } };
	char cap_line[WC_SPANS_BOTH][WC_WARNING_LEN] = { "" };
	/* the board's limit is said by the point's power answer (sources), in
	 * `predict inference`'s words */
	wc__flex_caveats cv = { 0 };
	if (rc == WC_OK && (rc = state_at(pr, q, &top, -1, cap, out, &cv, err)) == WC_OK) {
		ref_running = out->ref_mean_running = cap->value[WC_CAPQ_RUNNING];
		for (int k = 0; k < WC_SPANS_BOTH; k++)
			if (cap->both_line[k] > 0 && cap->both_line[k] <= cap->n_warnings) { /* said by the point's power answer */
				cap_span[k][0] = cap->both_span[k][0];
				cap_span[k][1] = cap->both_span[k][1];
				snprintf(cap_line[k], sizeof cap_line[k], "%s", cap->warnings[cap->both_line[k] - 1]);
			}
		out->capacity_level_source = cap->level_source ? cap->level_source : "fitted";
		out->ref_node_power_w = cap->value[WC_CAPQ_POWER];
		out->ref_throughput_tok_s = cap->value[WC_CAPQ_THROUGHPUT];
		out->ref_energy_per_output_token_j = cap->value[WC_CAPQ_E_TOKEN];
		out->ref_latency_s = cap->value[WC_CAPQ_LATENCY];
		for (int k = 0; k < WC_FLEX_IQ; k++) {
			out->ref_lo[k] = cap->lo[flex_capq[k]];
			out->ref_hi[k] = cap->hi[flex_capq[k]];
			out->covers[k] = cap->covers[flex_capq[k]];
		}
		out->ref_running_lo = cap->lo[WC_CAPQ_RUNNING];
		out->ref_running_hi = cap->hi[WC_CAPQ_RUNNING];
		out->running_covers = cap->covers[WC_CAPQ_RUNNING];
		out->n_draws = cap->n_draws;
		/* the intervals printed come from these draws: predict
		 * inference's caveat about too few of them holds for them */
		wc_predict_note_few_draws(out->warnings, &out->n_warnings, out->n_draws);
		/* and, as there, that they cover the parameters only (the point's
		 * power answer, asked without an interval, does not say it) */
		if (out->n_draws > 0 && !wc_predictor_params(pr)->pred_error.present)
			wc_predict_note_params_only(out->warnings, &out->n_warnings);
		rc = sweep(pr, q, info, top, by_cap, n_steps, cap, out, &cv, err);
	}
	free(cap);
	if (rc == WC_OK)
		rc = sources(pr, &lim, ref_running, (const double(*)[2])cap_span, (const char(*)[WC_WARNING_LEN])cap_line,
		             out, err);
	if (rc != WC_OK) {
		free(cv.at);
		return rc;
	}
	wc_flexibility_analyse(out);
	/* A knee or optimum whose step already carries the clock caveat (a
	 * clock sweep's steps below half the top clock do) is named in that
	 * step's line: said again under the field's name it would be the
	 * same caveat twice (docs/capacity.md, "Power flexibility"). */
	const double pick_mhz[2] = { out->knee_clock_mhz, out->energy_optimal_clock_mhz };
	int pick_said[2] = { 0, 0 };
	for (int i = 0; i < 2; i++) {
		char note[WC_WARNING_LEN];
		if (wc__predict_clock_low_note(wc_predictor_params(pr), c->platform, by_cap ? "power_cap_w" : "sm_clock_mhz",
		                               pick_mhz[i], note, sizeof note))
			pick_said[i] = wc__flex_caveats_hold(&cv, out, pick_mhz[i], note);
	}
	/* the steps' caveats after the point's, which they do not repeat */
	wc__flex_caveats_say(&cv, out);
	if ((rc = check_pick_caps(pr, q, out, err)) != WC_OK)
		return rc;
	/* No step serves an open loop's rate: no clock can be deployed for it,
	 * so there is no knee nor optimum (docs/capacity.md, "Power
	 * flexibility"); the most any step serves, said. */
	if (isnan(out->energy_optimal_clock_mhz)) {
		int most = 0;
		for (int i = 1; i < out->n_steps; i++)
			most = out->steps[i].throughput_tok_s > out->steps[most].throughput_tok_s ? i : most;
		WC_WARN(out, "knee_clock_mhz, energy_optimal_clock_mhz: none: every step is over capacity for the rate "
		        "of %g requests/s (%.5g output tokens/s); the most any step serves is %.5g tokens/s, at %.0f MHz",
		        c->request_rate, c->request_rate * c->output_tokens, out->steps[most].throughput_tok_s,
		        out->steps[most].sm_clock_mhz);
	}
	/* An optimum at the lowest clock is an edge of the sweep, not an
	 * interior minimum: the least energy may lie at or below it, and the
	 * law keeps the memory-bound part of a step independent of the clock,
	 * which real boards stop holding far below half their top clock
	 * (docs/capacity.md, "Clocks and power caps"). Said once, for both. */
	const double low = out->steps[out->n_steps - 1].sm_clock_mhz;
	if (out->energy_optimal_clock_mhz == low || out->knee_clock_mhz == low) {
		char msg[WC_WARNING_LEN];
		wc_error_format(msg, sizeof msg, "%s: %.0f MHz is the lowest clock swept, the edge of the board's range, "
		         "not an interior optimum%s",
		         out->energy_optimal_clock_mhz == low && out->knee_clock_mhz == low
		                 ? "knee_clock_mhz and energy_optimal_clock_mhz"
		                 : out->energy_optimal_clock_mhz == low ? "energy_optimal_clock_mhz" : "knee_clock_mhz",
		         low, wc__predict_clock_low(wc_predictor_params(pr), c->platform, low)
		                 ? "; " WC__CLOCK_LOW_CLAUSE : "");
		warn_once(out, msg);
	}
	/* A knee or optimum above the edge but below half the top clock is
	 * the point a planner is invited to pick: predict inference's caveat
	 * for that clock, in its words, naming the field. */
	const struct {
		const char *field;
		double mhz;
	} picks[] = { { "knee_clock_mhz", out->knee_clock_mhz },
		      { "energy_optimal_clock_mhz", out->energy_optimal_clock_mhz } };
	for (int i = 0; i < 2; i++) {
		char msg[WC_WARNING_LEN];
		if (picks[i].mhz != low && !pick_said[i] && wc__predict_clock_low_note(wc_predictor_params(pr), c->platform, picks[i].field,
		                                                      picks[i].mhz, msg, sizeof msg))
			warn_once(out, msg);
	}
	return WC_OK;
}
