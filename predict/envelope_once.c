/*
 * A replay that draws nothing at random (every arrival known, and every
 * length known or filled by a fixed one; docs/validation.md "Envelopes")
 * gives identical replicas: more of them would repeat the first and show
 * a seed and a Monte-Carlo spread that cannot vary. `validate envelope`,
 * `envelope --replay`/`--measured` and POST /v1/forecast/envelope simulate
 * it once, and their work bounds charge it once, by this one rule.
 *
 * For the same reason the servers of an "independent" fleet of such a
 * workload are not independent: each replays the same arrivals, so they
 * run in lockstep (docs/envelopes.md, "Lockstep fleets"). Answers label and warn
 * of such a fleet by the rule here.
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

int
wc_envelope_draws_nothing(const wc_envelope_workload *w)
{
	return w->kind == WC_ENVELOPE_REPLAY && !fills_drawn(w->arrival_input, w->n_arrivals, &w->input) &&
	       !fills_drawn(w->arrival_output, w->n_arrivals, &w->output);
}

int
wc_envelope_run_once_if_fixed(const wc_envelope_workload *w, const wc_service_times *st, const wc_power_map *pm,
                              const wc_envelope_options *o, wc_envelope_result *out, wc_error *err)
{
	if (!wc_envelope_draws_nothing(w))
		return wc_envelope_run(w, st, pm, o, out, err);
	wc_envelope_options one = *o;
	one.replicas = 1;
	return wc_envelope_run(w, st, pm, &one, out, err);
}

int
wc_envelope_fleet_lockstep(const wc_envelope_workload *w, wc_fleet_mode mode)
{
	/* a balancer splits one arrival process: its servers differ */
	if (mode != WC_FLEET_INDEPENDENT)
		return 0;
	/* a replay's arrivals and an n(t) are the workload's own, the same for
	 * every server; a closed loop's clients all send at t = 0 and, with
	 * lengths that draw nothing, come back at the same times everywhere */
	return w->kind == WC_ENVELOPE_REPLAY || w->kind == WC_ENVELOPE_SERIES ||
	       (w->kind == WC_ENVELOPE_CLOSED && !length_draws(&w->input) && !length_draws(&w->output));
}

const char *
wc_envelope_fleet_label(const wc_envelope_workload *w, wc_fleet_mode mode)
{
	return wc_envelope_fleet_lockstep(w, mode) ? "lockstep" : wc_fleet_mode_name(mode);
}

int
wc__envelope_lockstep_note(const wc_envelope_workload *w, wc_fleet_mode mode, int plan, char *note, size_t cap)
{
	note[0] = '\0';
	if (!wc_envelope_fleet_lockstep(w, mode))
		return 0;
	const char *same = w->kind == WC_ENVELOPE_REPLAY ? "replay the same arrivals in step (a replay draws none at "
	                                                   "random)"
	                 : w->kind == WC_ENVELOPE_SERIES ? "run the same n(t) in step (an n(t) draws nothing at random)"
	                                                 : "run the same closed loop in step (fixed lengths draw nothing)";
	snprintf(note, cap, "fleet: its servers %s, not independently: p95 and ramps are the synchronised worst case, an "
	         "upper bound for desynchronised servers%s (docs/envelopes.md)", same,
	         plan ? "; the plan's size is a lower bound" : "");
	return 1;
}
