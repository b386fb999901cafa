/*
 * A replay that draws nothing at random (every arrival known, and every
 * length known or filled by a fixed one; docs/validation.md "Envelopes")
 * gives identical replicas: more of them would repeat the first and show
 * a seed and a Monte-Carlo spread that cannot vary. `validate envelope`,
 * `envelope --replay`/`--measured` and POST /v1/forecast/envelope simulate
 * it once, and their work bounds charge it once, by this one rule.
 */
#include "predict/envelope.h"

#include <math.h>

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
