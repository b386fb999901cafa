/*
 * Envelope workloads (docs/envelopes.md, "Workloads"): their checks, the
 * token-length draws, and the arrival generators -- open loop as a
 * renewal process in the cumulative intensity of a piecewise-constant
 * rate (exponential gaps for Poisson, gamma gaps of shape b and mean 1
 * for bursty, as vLLM's benchmark client draws them), replayed logs, and
 * closed loop driven by completions. Random draws are GSL's
 * distributions on the caller's PCG32 stream.
 */
#include "envelope_internal.h"
#include "heap_internal.h"

#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/grow.h"
#include "models/limits.h"

/* ------------------------------------------------------------ random */

static void
pcg_set(void *state, unsigned long seed)
{
	wc_pcg32_seed(state, (uint64_t)seed, 0);
}

static unsigned long
pcg_get(void *state)
{
	return wc_pcg32_next(state);
}

static double
pcg_get_double(void *state)
{
	return wc_pcg32_uniform(state);
}

/* A GSL generator type whose state is a wc_pcg32: GSL's samplers then
 * draw from the replica's own stream. */
static const gsl_rng_type pcg_type = {
	"wc_pcg32", 0xffffffffUL, 0, sizeof(wc_pcg32), pcg_set, pcg_get, pcg_get_double,
};

void
wc__envelope_rng_init(wc__envelope_rng *r, uint64_t seed, uint64_t stream)
{
	wc_pcg32_seed(&r->pcg, seed, stream);
	r->varied = 0;
	r->rng.type = &pcg_type;
	r->rng.state = &r->pcg;
}

/* A length as the engine takes it: whole tokens, at least 1, capped. */
static double
whole_tokens(double x)
{
	x = round(x);
	return x < 1 ? 1.0 : x > WC_ENVELOPE_MAX_TOKENS ? WC_ENVELOPE_MAX_TOKENS : x;
}

void
wc__length_sampler_init(wc__length_sampler *ls, const wc_length_dist *d)
{
	ls->d = d;
	ls->mu = ls->sigma = 0.0;
	ls->fixed = whole_tokens(d->kind == WC_LENGTH_EMPIRICAL && d->n_values ? d->values[0] : d->mean);
	if (d->kind == WC_LENGTH_LOGNORMAL && d->sd > 0) {
		/* mean m, sd s: sigma^2 = log(1 + s^2/m^2), mu = log m - sigma^2/2 */
		double cv = d->sd / d->mean, s2 = log1p(cv * cv);
		ls->mu = log(d->mean) - 0.5 * s2;
		ls->sigma = sqrt(s2);
	}
}

double
wc__envelope_draw_length(wc__envelope_rng *r, const wc__length_sampler *ls)
{
	const wc_length_dist *d = ls->d;
	double x;
	if (d->kind == WC_LENGTH_LOGNORMAL && ls->sigma > 0)
		x = exp(ls->mu + gsl_ran_gaussian_ziggurat(&r->rng, ls->sigma)); /* lognormal */
	else if (d->kind == WC_LENGTH_EMPIRICAL)
		x = d->values[wc_pcg32_bounded(&r->pcg, (uint32_t)d->n_values)];
	else
		x = d->mean;
	x = whole_tokens(x);
	/* a spread too small to move a rounded length draws the same requests
	 * on every server: seen, they ran in step (docs/envelopes.md,
	 * "Lockstep fleets") */
	if (x != ls->fixed)
		r->varied = 1;
	return x;
}

/* ------------------------------------------------------------- names */

static const char *const kind_names[WC_ENVELOPE_KIND_COUNT] = {
	"closed", "poisson", "bursty", "replay", "n_series",
};

const char *
wc_envelope_kind_name(wc_envelope_kind k)
{
	return (unsigned)k < WC_ENVELOPE_KIND_COUNT ? kind_names[k] : "";
}

int
wc_envelope_kind_from_name(const char *name, wc_envelope_kind *out)
{
	for (int i = 0; name && i < WC_ENVELOPE_KIND_COUNT; i++)
		if (strcmp(name, kind_names[i]) == 0) {
			*out = (wc_envelope_kind)i;
			return WC_OK;
		}
	return WC_ENOTFOUND;
}

void
wc_envelope_workload_init(wc_envelope_workload *w)
{
	memset(w, 0, sizeof *w);
	w->kind = WC_ENVELOPE_CLOSED;
	w->burstiness = 1.0;
	w->input = (wc_length_dist){ WC_LENGTH_FIXED, 512, 0, NULL, 0 };
	w->output = (wc_length_dist){ WC_LENGTH_FIXED, 256, 0, NULL, 0 };
	w->series_dt_s = WC_ENVELOPE_GRID_S;
}

double
wc_envelope_series_hold(const wc_envelope_workload *w, size_t i)
{
	if (w->series_hold)
		return w->series_hold[i];
	return i + 1 == w->series_len && w->series_last_s > 0 ? w->series_last_s : w->series_dt_s;
}

double
wc_envelope_series_span(const wc_envelope_workload *w)
{
	if (w->series_len == 0)
		return 0.0;
	if (!w->series_hold)
		return (double)(w->series_len - 1) * w->series_dt_s + wc_envelope_series_hold(w, w->series_len - 1);
	double span = 0.0;
	for (size_t i = 0; i < w->series_len; i++)
		span += w->series_hold[i];
	return span;
}

/* ------------------------------------------------------------- checks */

double
wc_envelope_length_max_sd(double mean)
{
	return WC_ENVELOPE_MAX_LENGTH_CV * mean;
}

static int
check_length(const wc_length_dist *d, const char *name, wc_error *err)
{
	if (d->kind == WC_LENGTH_EMPIRICAL) {
		if (d->n_values == 0 || d->n_values > 0xffffffffu || !d->values)
			return wc_error_set(err, WC_EINVAL, "%s: an empirical distribution needs 1 to 2^32-1 values", name);
		for (size_t i = 0; i < d->n_values; i++)
			if (!isfinite(d->values[i]) || d->values[i] < 1 || d->values[i] > WC_ENVELOPE_MAX_TOKENS)
				return wc_error_set(err, WC_EINVAL, "%s/values/%zu: must be a number of tokens 1 to %g",
				                    name, i, WC_ENVELOPE_MAX_TOKENS);
		return WC_OK;
	}
	if (!isfinite(d->mean) || d->mean < 1 || d->mean > WC_ENVELOPE_MAX_TOKENS)
		return wc_error_set(err, WC_EINVAL, "%s: mean must be a number of tokens 1 to %g, got %s",
		                    name, WC_ENVELOPE_MAX_TOKENS, WC_NUM_TEXT(d->mean));
	if (d->kind == WC_LENGTH_LOGNORMAL &&
	    (!isfinite(d->sd) || d->sd < 0 || d->sd > wc_envelope_length_max_sd(d->mean)))
		return wc_error_set(err, WC_EINVAL, "%s: sd must be >= 0 and at most %g times the mean, %s, got %s", name,
		                    WC_ENVELOPE_MAX_LENGTH_CV, WC_NUM_TEXT(wc_envelope_length_max_sd(d->mean)),
		                    WC_NUM_TEXT(d->sd));
	return WC_OK;
}

static int
check_rate(const wc_envelope_workload *w, wc_error *err)
{
	if (w->n_profile == 0) {
		if (!isfinite(w->rate) || !(w->rate > 0) || w->rate > WC_CAPACITY_MAX_RATE)
			return wc_error_set(err, WC_EINVAL, "rate: must be a number of requests/s > 0 and <= %g, got %s",
			                    WC_CAPACITY_MAX_RATE, WC_NUM_TEXT(w->rate));
	} else {
		for (size_t i = 0; i < w->n_profile; i++) {
			if (!isfinite(w->profile_rate[i]) || w->profile_rate[i] < 0 ||
			    w->profile_rate[i] > WC_CAPACITY_MAX_RATE)
				return wc_error_set(err, WC_EINVAL, "rate_profile/%zu/rate: must be >= 0 and <= %g, got %s",
				                    i, WC_CAPACITY_MAX_RATE, WC_NUM_TEXT(w->profile_rate[i]));
			if (!isfinite(w->profile_until_s[i]) || w->profile_until_s[i] <= 0 ||
			    (i > 0 && !(w->profile_until_s[i] > w->profile_until_s[i - 1])))
				return wc_error_set(err, WC_EINVAL, "rate_profile/%zu/until_s: must be > 0 and increasing", i);
		}
	}
	if (w->kind == WC_ENVELOPE_BURSTY &&
	    (!isfinite(w->burstiness) || !(w->burstiness >= WC_ENVELOPE_MIN_BURSTINESS) ||
	     w->burstiness > WC_ENVELOPE_MAX_BURSTINESS))
		return wc_error_set(err, WC_EINVAL, "burstiness: must be between %g and %g, got %s",
		                    WC_ENVELOPE_MIN_BURSTINESS, WC_ENVELOPE_MAX_BURSTINESS, WC_NUM_TEXT(w->burstiness));
	return WC_OK;
}

/* The log's requests arriving before `horizon_s`: a prefix, the times
 * non-decreasing (its clock starts after the warm-up). */
static size_t
replayed_count(const wc_envelope_workload *w, size_t logged, double horizon_s)
{
	size_t n = 0;
	while (n < logged && w->arrival_s[n] < horizon_s)
		n++;
	return n;
}

size_t
wc_envelope_workload_logged(const wc_envelope_workload *w)
{
	return w->n_logged > w->n_arrivals ? w->n_logged : w->n_arrivals;
}

void
wc_envelope_workload_window(wc_envelope_workload *w, double horizon_s)
{
	if (w->kind != WC_ENVELOPE_REPLAY || !w->arrival_s)
		return;
	const size_t logged = wc_envelope_workload_logged(w);
	w->n_arrivals = replayed_count(w, logged, horizon_s);
	w->n_logged = logged;
}

static int
check_replay(const wc_envelope_workload *w, wc_error *err)
{
	const size_t logged = wc_envelope_workload_logged(w);
	if (logged == 0 || !w->arrival_s)
		return wc_error_set(err, WC_EINVAL, "arrival_s: empty replay log (no request to replay)");
	/* the whole log's times: its order decides which are replayed */
	for (size_t i = 0; i < logged; i++) {
		double a = w->arrival_s[i];
		if (!isfinite(a) || a < 0 || (i > 0 && a < w->arrival_s[i - 1]))
			return wc_error_set(err, WC_EINVAL, "arrival_s/%zu: must be finite, >= 0 and non-decreasing", i);
	}
	/* the lengths of the requests replayed: those left out past the
	 * horizon are never simulated (docs/envelopes.md, "Engine") */
	for (size_t i = 0; i < w->n_arrivals; i++) {
		const double *len[2] = { w->arrival_input, w->arrival_output };
		const char *nm[2] = { "arrival_input", "arrival_output" };
		/* An output of 0 is a request that ended at its prefill (aborted,
		 * an empty completion): a real row of a log, replayed as its
		 * prefill alone (docs/envelopes.md, "Workloads"). */
		for (int j = 0; j < 2; j++)
			if (len[j] && !isnan(len[j][i]) &&
			    (!isfinite(len[j][i]) || len[j][i] < (j ? 0 : WC_ENVELOPE_MIN_INPUT_TOKENS) ||
			     len[j][i] > WC_ENVELOPE_MAX_TOKENS))
				return wc_error_set(err, WC_EINVAL, "%s/%zu: must be tokens %g to %g (or unknown: drawn from "
				                    "the lengths)", nm[j], i, j ? 0 : WC_ENVELOPE_MIN_INPUT_TOKENS,
				                    WC_ENVELOPE_MAX_TOKENS);
	}
	return WC_OK;
}

static int
check_series(const wc_envelope_workload *w, wc_error *err)
{
	if (w->series_len == 0 || !w->series_running)
		return wc_error_set(err, WC_EINVAL, "series_running: empty n(t) series");
	/* a file's samples at their own times (series_hold), or a step each */
	for (size_t i = 0; w->series_hold && i < w->series_len; i++)
		if (!isfinite(w->series_hold[i]) || !(w->series_hold[i] > 0))
			return wc_error_set(err, WC_EINVAL, "series_hold/%zu: must be a finite number of seconds > 0, got %s",
			                    i, WC_NUM_TEXT(w->series_hold[i]));
	if (!w->series_hold && (!isfinite(w->series_dt_s) || !(w->series_dt_s > 0) ||
	                        w->series_dt_s > WC_ENVELOPE_MAX_SERIES_DT_S))
		return wc_error_set(err, WC_EINVAL, "series_dt_s: must be > 0 and <= %g s, got %s",
		                    WC_ENVELOPE_MAX_SERIES_DT_S, WC_NUM_TEXT(w->series_dt_s));
	if (!w->series_hold && (!isfinite(w->series_last_s) || w->series_last_s < 0 || w->series_last_s > w->series_dt_s))
		return wc_error_set(err, WC_EINVAL, "series_last_s: must be 0 to series_dt_s (%g s), got %s",
		                    w->series_dt_s, WC_NUM_TEXT(w->series_last_s));
	for (size_t i = 0; i < w->series_len; i++)
		if (!isfinite(w->series_running[i]) || w->series_running[i] < 0 ||
		    w->series_running[i] > WC_ENVELOPE_MAX_RUNNING)
			return wc_error_set(err, WC_EINVAL, "series_running/%zu: must be a finite number 0 to %d, got %s",
			                    i, WC_ENVELOPE_MAX_RUNNING, WC_NUM_TEXT(w->series_running[i]));
	return WC_OK;
}

int
wc_envelope_workload_check(const wc_envelope_workload *w, wc_error *err)
{
	int rc;
	switch (w->kind) {
	case WC_ENVELOPE_CLOSED:
		if (!isfinite(w->concurrency) || !(w->concurrency >= 1) || w->concurrency > WC_ENVELOPE_MAX_RUNNING ||
		    w->concurrency != floor(w->concurrency))
			return wc_error_set(err, WC_EINVAL, "concurrency: must be a whole number 1 to %d, got %s",
			                    WC_ENVELOPE_MAX_RUNNING, WC_NUM_TEXT(w->concurrency));
		if (!isfinite(w->think_s) || w->think_s < 0 || w->think_s > 86400)
			return wc_error_set(err, WC_EINVAL, "think_s: must be >= 0 and <= 86400 s, got %s", WC_NUM_TEXT(w->think_s));
		break;
	case WC_ENVELOPE_POISSON:
	case WC_ENVELOPE_BURSTY:
		if ((rc = check_rate(w, err)))
			return rc;
		break;
	case WC_ENVELOPE_REPLAY:
		if ((rc = check_replay(w, err)))
			return rc;
		break;
	case WC_ENVELOPE_SERIES:
		return check_series(w, err);
	default:
		return wc_error_set(err, WC_EINVAL, "type: unknown workload");
	}
	if ((rc = check_length(&w->input, "input_tokens", err)) ||
	    (rc = check_length(&w->output, "output_tokens", err)))
		return rc;
	return WC_OK;
}

double
wc_envelope_workload_requests(const wc_envelope_workload *w, double warmup_s, double horizon_s)
{
	switch (w->kind) {
	case WC_ENVELOPE_CLOSED:
		return w->concurrency;
	case WC_ENVELOPE_POISSON:
	case WC_ENVELOPE_BURSTY: {
		if (w->n_profile == 0)
			return w->rate * (warmup_s + horizon_s);
		/* Workload time runs from -warmup_s; before 0 the first rate holds. */
		double sum = w->profile_rate[0] * warmup_s, from = 0.0;
		for (size_t i = 0; i < w->n_profile && from < horizon_s; i++) {
			double until = i + 1 < w->n_profile ? fmin(w->profile_until_s[i], horizon_s) : horizon_s;
			if (until > from)
				sum += w->profile_rate[i] * (until - from);
			from = fmax(from, until);
		}
		return sum;
	}
	case WC_ENVELOPE_REPLAY: /* the log's clock starts after the warm-up (docs/envelopes.md) */
		return w->arrival_s ? (double)replayed_count(w, w->n_arrivals, horizon_s) : 0.0;
	default:
		return 0.0;
	}
}

/* ---------------------------------------------------------- arrivals */

/* A closed loop's pending arrivals, earliest first (heap_internal.h). */
#define EARLIER(a, b) ((a) < (b))
WC__HEAP_DEFINE(pending_heap, double, EARLIER)

static int
pending_push(wc__arrivals *a, double t)
{
	double *p = wc_grow(a->pending, &a->cap_pending, a->n_pending + 1, sizeof *p, 64);
	if (!p)
		return WC_ENOMEM;
	a->pending = p;
	pending_heap_push(p, &a->n_pending, t);
	return WC_OK;
}

static void
pending_pop(wc__arrivals *a)
{
	(void)pending_heap_pop(a->pending, &a->n_pending);
}

/* The rate in force at workload time u, and where it next changes. */
static double
rate_at(const wc_envelope_workload *w, double u, double *until)
{
	*until = INFINITY;
	if (w->n_profile == 0)
		return w->rate;
	for (size_t i = 0; i < w->n_profile; i++)
		if (u < w->profile_until_s[i]) {
			*until = w->profile_until_s[i];
			return w->profile_rate[i];
		}
	return w->profile_rate[w->n_profile - 1];
}

/* Time at which the cumulative intensity, from `t` (simulation clock),
 * has grown by `dl`; INFINITY beyond the end. */
static double
advance_intensity(const wc__arrivals *a, double t, double dl)
{
	while (t < a->end_s) {
		double until, r = rate_at(a->w, t - a->offset_s, &until) * a->scale;
		double seg_end = fmin(until + a->offset_s, a->end_s);
		if (r > 0 && t + dl / r < seg_end)
			return t + dl / r;
		if (r > 0)
			dl -= r * (seg_end - t);
		t = seg_end;
	}
	return INFINITY;
}

static double
open_gap(wc__arrivals *a)
{
	if (a->w->kind == WC_ENVELOPE_BURSTY && a->w->burstiness != 1.0)
		return gsl_ran_gamma(&a->rng->rng, a->w->burstiness, 1.0 / a->w->burstiness);
	return gsl_ran_exponential(&a->rng->rng, 1.0);
}

int
wc__arrivals_init(wc__arrivals *a, const wc_envelope_workload *w, wc__envelope_rng *rng,
                  double offset_s, double end_s, double scale)
{
	memset(a, 0, sizeof *a);
	a->w = w;
	a->rng = rng;
	a->offset_s = offset_s;
	a->end_s = end_s;
	a->scale = scale;
	wc__length_sampler_init(&a->input, &w->input);
	wc__length_sampler_init(&a->output, &w->output);
	if (w->kind == WC_ENVELOPE_CLOSED) {
		/* Every client sends its first request at the start. */
		double clients = w->concurrency * scale;
		for (double c = 0; c < clients; c++)
			if (pending_push(a, 0.0))
				return WC_ENOMEM;
	} else if (w->kind == WC_ENVELOPE_POISSON || w->kind == WC_ENVELOPE_BURSTY) {
		/* A renewal count over the span has variance about mean/b: 16 times
		 * the mean plus 10^4 is far beyond any plausible draw, so reaching it
		 * means the gaps have stopped advancing the clock. */
		a->max_taken = 16.0 * scale * wc_envelope_workload_requests(w, offset_s, end_s - offset_s) + 1e4;
		a->next_t = advance_intensity(a, 0.0, open_gap(a));
	}
	return WC_OK;
}

void
wc__arrivals_clear(wc__arrivals *a)
{
	free(a->pending);
	memset(a, 0, sizeof *a);
}

double
wc__arrivals_peek(const wc__arrivals *a)
{
	switch (a->w->kind) {
	case WC_ENVELOPE_CLOSED:
		return a->n_pending && a->pending[0] < a->end_s ? a->pending[0] : INFINITY;
	case WC_ENVELOPE_POISSON:
	case WC_ENVELOPE_BURSTY:
		return a->overflow ? INFINITY : a->next_t;
	case WC_ENVELOPE_REPLAY: {
		double t = a->next < a->w->n_arrivals ? a->w->arrival_s[a->next] + a->offset_s : INFINITY;
		return t < a->end_s ? t : INFINITY;
	}
	default:
		return INFINITY;
	}
}

void
wc__arrivals_take(wc__arrivals *a, double *input, double *output)
{
	const wc_envelope_workload *w = a->w;
	double in = NAN, out = NAN;
	if (w->kind == WC_ENVELOPE_CLOSED) {
		pending_pop(a);
	} else if (w->kind == WC_ENVELOPE_REPLAY) {
		if (w->arrival_input)
			in = w->arrival_input[a->next];
		if (w->arrival_output)
			out = w->arrival_output[a->next];
		a->next++;
	} else {
		a->next_t = advance_intensity(a, a->next_t, open_gap(a));
		if (++a->taken > a->max_taken)
			a->overflow = 1;
	}
	*input = isnan(in) ? wc__envelope_draw_length(a->rng, &a->input) : round(in);
	/* a replayed output of 0 stays 0: the engine runs its prefill alone
	 * and counts no token for it (docs/envelopes.md, "Engine") */
	*output = isnan(out) ? wc__envelope_draw_length(a->rng, &a->output) : round(out);
}

int
wc__arrivals_completed(wc__arrivals *a, double t)
{
	if (!a || a->w->kind != WC_ENVELOPE_CLOSED)
		return WC_OK;
	return pending_push(a, t + a->w->think_s);
}
