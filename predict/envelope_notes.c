/*
 * The workload against the engine and the window (docs/envelopes.md,
 * "Engine"), one rule each for envelopes and budget plans: its mean
 * lengths (a replay's over the requests it replays), the KV cache's limit
 * on max_running they give, the context they may pass, a closed loop's or
 * an open loop's queue at the end, and a replay or an n(t) against the
 * simulated window.
 */
#include "envelope_internal.h"

#include <math.h>
#include <stdio.h>

/* A length distribution's mean (an empirical one's values'). */
static double
dist_mean(const wc_length_dist *d)
{
	if (d->kind != WC_LENGTH_EMPIRICAL || !d->n_values)
		return d->mean;
	double s = 0.0;
	for (size_t i = 0; i < d->n_values; i++)
		s += d->values[i];
	return s / (double)d->n_values;
}

/* The workload's mean length: a replay's requests their own where they
 * have one, the others the distribution's. */
double
wc_envelope_mean_length(const wc_envelope_workload *w, int input)
{
	const double *own = input ? w->arrival_input : w->arrival_output;
	const double drawn = dist_mean(input ? &w->input : &w->output);
	if (w->kind != WC_ENVELOPE_REPLAY || !own || !w->n_arrivals)
		return drawn;
	double s = 0.0;
	for (size_t i = 0; i < w->n_arrivals; i++)
		s += isfinite(own[i]) ? own[i] : drawn;
	return s / (double)w->n_arrivals;
}

int
wc__envelope_window_note(const wc_envelope_workload *w, const wc_envelope_options *o, char *note, size_t cap)
{
	note[0] = '\0';
	/* An n(t) runs from the warm-up's start, a step each dt_s: say where
	 * it and the simulated window part, which nothing else shows. */
	if (w->kind == WC_ENVELOPE_SERIES) {
		const double covered = wc_envelope_series_span(w), window = o->warmup_s + o->horizon_s;
		if (covered < window - 1e-9)
			snprintf(note, cap, "running_series: covers %g s of the %g s simulated (warm-up and horizon); "
			         "nothing runs after it (n = 0, the idle power)", covered, window);
		else if (covered > window + 1e-9)
			snprintf(note, cap, "running_series: its last %g s lie beyond the %g s simulated and are left out",
			         covered - window, window);
		return note[0] != '\0';
	}
	const size_t logged = w->kind == WC_ENVELOPE_REPLAY && w->arrival_s ? wc_envelope_workload_logged(w) : 0;
	if (!logged)
		return 0;
	/* A replayed log's clock starts after the warm-up; the requests
	 * arriving at or after the horizon are not replayed (the count
	 * wc_envelope_workload_window keeps). A short log replayed over a
	 * long horizon is mostly idle: its mean says more of the horizon than
	 * of the log (a 6 s log over 600 s). */
	const double last = w->arrival_s[logged - 1];
	wc_envelope_workload in = *w;
	wc_envelope_workload_window(&in, o->horizon_s);
	const size_t beyond = logged - in.n_arrivals;
	if (beyond)
		snprintf(note, cap, "arrival_s: the replayed log's last %zu of %zu requests arrive beyond the %g s horizon "
		         "(its last at %g s) and are left out (give a horizon near the log's span)", beyond,
		         logged, o->horizon_s, last);
	else if (last < 0.5 * o->horizon_s)
		snprintf(note, cap, "arrival_s: the replayed log's last arrival is at %g s of the %g s horizon; the rest "
		         "is idle and weighs in every statistic (give a horizon near the log's span)", last, o->horizon_s);
	return note[0] != '\0';
}

int
wc__envelope_queue_note(const wc_envelope_workload *w, int max_running, double waiting, char *note, size_t cap)
{
	note[0] = '\0';
	/* The one rule for envelopes and plans (docs/envelopes.md, "Engine"):
	 * a closed loop with more clients (per server) than the engine runs at
	 * once keeps the rest waiting, a bounded queue said whatever its size
	 * -- the clients decide, not the waiting count against the slots (48
	 * clients on 24 slots leave 24 waiting, as many as run). The count
	 * named is the one measured at the end; a think time can leave none
	 * waiting there (it rounds to 0), and then there is no queue to say. */
	if (w->kind == WC_ENVELOPE_CLOSED) {
		if (!(w->concurrency > max_running) || !(waiting >= 0.5))
			return 0;
		snprintf(note, cap, "queue: %.0f of the %g clients wait for the engine's %d slots (max_running) at the "
		         "end", waiting, w->concurrency, max_running);
		return 1;
	}
	/* An open loop with more waiting at the end than the engine runs at
	 * once: the queue grows (arrivals outpace service) and the horizon
	 * decides the numbers. */
	if (!(waiting > max_running))
		return 0;
	snprintf(note, cap, "overloaded: %.0f requests per server still wait at the end (max_running %d); "
	         "arrivals outpace the service times and the queue grows with the horizon", waiting, max_running);
	return 1;
}

/* The field a mean length is the user's: a replay's own lengths where
 * they make it (the log's, HTTP's /workload/arrivals: all known, or
 * longer than the distribution that fills the unknown ones), else the
 * workload's distribution, which fills them. */
static const char *
length_field(const wc_envelope_workload *w, int input)
{
	const double *own = input ? w->arrival_input : w->arrival_output;
	double sum = 0.0;
	size_t known = 0;
	for (size_t i = 0; w->kind == WC_ENVELOPE_REPLAY && own && i < w->n_arrivals; i++)
		if (isfinite(own[i]))
			sum += own[i], known++;
	const int theirs = known > 0 && (known == w->n_arrivals ||
	                                 sum / (double)known >= dist_mean(input ? &w->input : &w->output));
	return theirs ? (input ? "arrival_input" : "arrival_output") : (input ? "input_tokens" : "output_tokens");
}

int
wc__envelope_context_note(const wc_envelope_workload *w, const wc_service_times *st, char *note, size_t cap)
{
	note[0] = '\0';
	if (w->kind == WC_ENVELOPE_SERIES || !st || st->context_tokens <= 0)
		return 0;
	const double in = wc_envelope_mean_length(w, 1), out = wc_envelope_mean_length(w, 0);
	if (in + out <= st->context_tokens)
		return 0;
	snprintf(note, cap, "%s: the workload's mean %.0f + %.0f tokens exceed the model's context of %d tokens "
	         "(config.json); vLLM refuses such requests unless served longer with RoPE scaling",
	         length_field(w, !(out > in)), in, out, st->context_tokens);
	return 1;
}

int
wc__envelope_kv_cap(const wc_envelope_workload *w, const wc_service_times *st, const wc_envelope_options *o,
                    wc_envelope_options *eff, char *note, size_t cap, wc_error *err)
{
	*eff = *o;
	note[0] = '\0';
	if (w->kind == WC_ENVELOPE_SERIES || !st || !st->kv_running)
		return WC_OK;
	const double in = wc_envelope_mean_length(w, 1), out = wc_envelope_mean_length(w, 0);
	const double n = st->kv_running(st->ctx, in, out);
	char sized[2 * WC_ERROR_MSG_MAX];
	if (!(n >= 1.0) && wc__capacity_kv_refusal(st, length_field(w, !(out > in)), in, out, sized, sizeof sized))
		return wc_error_set(err, WC_EINVAL, "%s", sized);
	if (!(n >= 1.0))
		return wc_error_set(err, WC_EINVAL, "%s: a request of the workload's mean %.0f input + %.0f output "
		                    "tokens needs more KV cache than the group's memory leaves after the weights "
		                    "(docs/capacity.md, \"Memory as vLLM does it\")",
		                    length_field(w, !(out > in)), in, out);
	if (n < o->max_running) {
		eff->max_running = (int)n;
		snprintf(note, cap, "max_running: the KV cache holds %d requests of the workload's mean %.0f input + "
		         "%.0f output tokens; the engine runs at most %d, not %d, and the rest wait (vLLM preempts "
		         "beyond; docs/capacity.md)", (int)n, in, out, (int)n, o->max_running);
	}
	return WC_OK;
}
