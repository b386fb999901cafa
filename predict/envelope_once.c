/*
 * A workload that draws nothing at random -- a replay whose every length
 * is known or filled by a fixed one (docs/validation.md "Envelopes"), an
 * n(t), a closed loop of fixed lengths -- gives identical replicas: more
 * of them would repeat the first and show a seed and a Monte-Carlo spread
 * that cannot vary. `validate envelope`, `envelope` and
 * POST /v1/forecast/envelope simulate it once, their work bounds charge it
 * once, and a budget plan of its lockstep servers simulates one of them
 * (docs/envelopes.md, "Budget plans"), by this one rule.
 *
 * For the same reason the servers of an "independent" fleet of a workload
 * that draws nothing at random (that replay, an n(t), a closed loop of
 * fixed lengths) are not independent: each runs the same requests at the
 * same times, in lockstep (docs/envelopes.md, "Lockstep fleets"). A replay
 * whose missing lengths are drawn keeps its arrivals in step but draws
 * those lengths per server: not lockstep, and said so. Answers label and
 * warn of such fleets by the rule here.
 */
#include "envelope_internal.h"

#include <math.h>
#include <stdio.h>

/* Does filling a length from `d` use the generator? A fixed length, or
 * an empirical one of a single value, does not vary. */
static int
length_draws(const wc_length_dist *d)
{
	if (d->kind == WC_LENGTH_LOGNORMAL)
		return d->sd > 0;
	if (d->kind == WC_LENGTH_EMPIRICAL)
		for (size_t i = 1; i < d->n_values; i++)
			if (d->values[i] != d->values[0])
				return 1;
	return 0;
}

/* Does the replay leave a length of `len` (NULL: every one) to `d`? */
static int
fills_drawn(const double *len, size_t n, const wc_length_dist *d)
{
	if (!length_draws(d))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!len || isnan(len[i]))
			return 1;
	return 0;
}

/* Does `w` draw anything at random: arrivals (Poisson, bursty), or
 * lengths (a closed loop's, a replay's missing ones)? An n(t) draws
 * nothing. The one rule behind both a workload run once and a lockstep
 * fleet. */
static int
draws_at_random(const wc_envelope_workload *w)
{
	switch (w->kind) {
	case WC_ENVELOPE_SERIES:
		return 0;
	case WC_ENVELOPE_REPLAY:
		return fills_drawn(w->arrival_input, w->n_arrivals, &w->input) ||
		       fills_drawn(w->arrival_output, w->n_arrivals, &w->output);
	case WC_ENVELOPE_CLOSED:
		return length_draws(&w->input) || length_draws(&w->output);
	default:
		return 1;
	}
}

int
wc_envelope_draws_nothing(const wc_envelope_workload *w)
{
	return !draws_at_random(w);
}

int
wc_envelope_replicas_simulated(const wc_envelope_workload *w, const wc_envelope_options *o)
{
	return wc_envelope_draws_nothing(w) ? 1 : o->replicas;
}

int
wc_envelope_run_once_if_fixed(const wc_envelope_workload *w, const wc_service_times *st, const wc_power_map *pm,
                              const wc_envelope_options *o, wc_envelope_result *out, wc_error *err)
{
	wc_envelope_options one = *o;
	one.replicas = wc_envelope_replicas_simulated(w, o);
	return wc_envelope_run(w, st, pm, &one, out, err);
}

int
wc_envelope_fleet_lockstep(const wc_envelope_workload *w, wc_fleet_mode mode)
{
	/* a balancer splits one arrival process: its servers differ; an
	 * independent fleet's servers each draw their own, so only a workload
	 * that draws nothing runs the same on every server: a replay's
	 * arrivals and an n(t) are the workload's own, and a closed loop's
	 * clients all send at t = 0 and, with lengths that draw nothing, come
	 * back at the same times everywhere */
	return mode == WC_FLEET_INDEPENDENT && !draws_at_random(w);
}

int
wc_envelope_fleet_seen_lockstep(const wc_envelope_workload *w, wc_fleet_mode mode, int varied)
{
	/* Lengths drawn from a spread too small to move a rounded length
	 * (lognormal 512 +- 0.1) come out the same whole token every time:
	 * the servers drew and still ran the same requests at the same times.
	 * Whether they did is seen, not guessed from the spread: no draw came
	 * out another token than the distribution's fixed one (`varied` 0,
	 * wc__envelope_draw_length). Random arrivals differ whatever. */
	if (wc_envelope_fleet_lockstep(w, mode))
		return 1;
	return mode == WC_FLEET_INDEPENDENT && !varied &&
	       (w->kind == WC_ENVELOPE_CLOSED || w->kind == WC_ENVELOPE_REPLAY);
}

const char *
wc_envelope_fleet_mode_label(int lockstep, wc_fleet_mode mode)
{
	return lockstep ? "lockstep" : wc_fleet_mode_name(mode);
}

int
wc__envelope_fleet_note(const wc_envelope_workload *w, wc_fleet_mode mode, int lockstep, int servers, char *note,
                        size_t cap)
{
	note[0] = '\0';
	if (servers == 1) {
		/* One server's closed loop: its clients, not servers, in step.
		 * With a think time they finish, think and send again together,
		 * the server idle in between (docs/envelopes.md, "Closed loops
		 * in lockstep"): 32 clients thinking 10 s on H100 Qwen3-8B gave a
		 * mean of 213.9 W for 366.4 with a length spread, the median idle
		 * power. Without one the load never drops: wc__envelope_steady_note
		 * says what that leaves of the ramps. */
		if (w->kind != WC_ENVELOPE_CLOSED || !(w->think_s > 0) || !lockstep)
			return 0;
		snprintf(note, cap, "think_s: the %g clients run in step (%s): they finish, think %g s, send "
		         "together, the server idle between: mean, p50 and ramps are a square wave's; spread the "
		         "lengths to stagger them (docs/envelopes.md)", w->concurrency,
		         draws_at_random(w) ? "every length drawn came out the same token" : "fixed lengths draw nothing",
		         w->think_s);
		return 1;
	}
	const char *lower = servers < 1 ? "; the plan's size is a lower bound" : "";
	if (mode != WC_FLEET_INDEPENDENT && w->kind == WC_ENVELOPE_REPLAY) {
		/* a balancer splits the one log it is given: a Poisson rate or a
		 * closed loop's clients are per server (K times them shared), a
		 * log is the fleet's traffic as it stands (docs/envelopes.md,
		 * "Fleets") */
		char who[40] = "the plan's servers";
		if (servers > 0)
			snprintf(who, sizeof who, "the %d servers", servers);
		snprintf(note, cap, "replay: one log is shared by %s (%s): the workload is fleet-wide, not per server, "
		         "each server serving a share of its arrivals (docs/envelopes.md)", who, wc_fleet_mode_name(mode));
		return 1;
	}
	if (mode == WC_FLEET_INDEPENDENT && w->kind == WC_ENVELOPE_REPLAY && draws_at_random(w) && !lockstep) {
		/* the same arrivals on every server, lengths drawn per server:
		 * less narrowing than independent servers', less than K times
		 * one server's too (docs/envelopes.md, "Lockstep fleets") */
		snprintf(note, cap, "fleet: arrivals synchronised across servers (each replays the log's in step), "
		         "only the missing lengths drawn each its own: p95 and ramps narrow less than for "
		         "desynchronised servers%s (docs/envelopes.md)", lower);
		return 1;
	}
	if (!lockstep)
		return 0;
	const int drew = draws_at_random(w); /* in step as seen: every length drawn came out the same */
	const char *same = w->kind == WC_ENVELOPE_REPLAY
	                       ? (drew ? "replay the same arrivals in step (every missing length drawn rounded to the "
	                                 "same whole token)"
	                               : "replay the same arrivals in step (a replay draws none at random)")
	                 : w->kind == WC_ENVELOPE_SERIES ? "run the same n(t) in step (an n(t) draws nothing at random)"
	                 : drew ? "run the same closed loop in step (every length drawn rounded to the same whole "
	                          "token)"
	                        : "run the same closed loop in step (fixed lengths draw nothing)";
	/* worded to stay whole at its longest, a plan's replay whose drawn
	 * lengths rounded alike: 249 of 255 bytes (it took 275 and lost its
	 * docs/ name; tests/test_envelope_lockstep_seen.c) */
	wc_error_format(note, cap, "fleet: its servers %s, not independently: p95 and ramps are an upper bound, the "
	                "synchronised worst case%s (docs/envelopes.md)", same, lower);
	return 1;
}

int
wc__envelope_steady_note(const wc_envelope_workload *w, char *note, size_t cap)
{
	note[0] = '\0';
	/* Without a think time every completion brings its client straight
	 * back: the running count stays at the clients (or the engine's
	 * limit), where the law gives one level, and the 1-s means move only
	 * with the loop's prefill waves. Measured closed loops swing far more
	 * at that load: Fig. 29's 55-94 W/s against 0.1-30 W/s simulated
	 * (docs/envelopes.md, "Closed loops against Fig. 29"). */
	if (w->kind != WC_ENVELOPE_CLOSED || w->think_s > 0)
		return 0;
	snprintf(note, cap, "concurrency: %g clients without a think time hold the running count steady, where the law "
	         "gives one level: ramps and entropy are the prefill waves' alone, lower bounds (measured closed "
	         "loops: 55-94 W/s) (docs/envelopes.md)", w->concurrency);
	return 1;
}
