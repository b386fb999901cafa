/*
 * `wattcast ingest`, which parts of the log become rows and what the idle
 * power is (docs/formats/telemetry.md, "Load levels and idle windows";
 * docs/trace-metrics.md, "Idle power"). A run whose manifests state load
 * levels gets one row per level, cut exactly to the level's window; the
 * idle window is never part of a load row. A run without levels keeps one
 * row over its whole power log.
 */
#include "ingest_internal.h"
#include "models/grow.h"
#include "models/stats.h"
#include "trace/load.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/catalog.h"
#include "models/params.h"
#include "trace/idle.h"

/* A level whose window misses the log by more than this is refused; less
 * is clipped silently (clocks of different tools differ by a sample). */
#define CLIP_TOLERANCE_S 1.0

static void
warn(const wc_ingest_options *opt, const char *where, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void
warn(const wc_ingest_options *opt, const char *where, const char *fmt, ...)
{
	/* `where` (the run's folder or id) then the text, within a warning's
	 * 255 bytes by the one rule for it (docs/architecture.md, "Errors") */
	char msg[WC_ERROR_MSG_MAX];
	va_list ap;
	if (!opt->warn)
		return;
	va_start(ap, fmt);
	wc_error_vformat_path(msg, sizeof msg, where, fmt, ap);
	va_end(ap);
	opt->warn(msg, opt->warn_payload);
}

/* How far the engine log may stop short of a window before the window is
 * cut to it: the clip tolerance, or one and a half of its mean sample
 * spacing when it samples more coarsely (its last sample before a
 * window's end is then up to a spacing early). */
static double
engine_tolerance(const wc_engine_log *e)
{
	double mean_dt = e->n > 1 ? (e->t[e->n - 1] - e->t[0]) / (double)(e->n - 1) : 0.0;
	return fmax(CLIP_TOLERANCE_S, 1.5 * mean_dt);
}

/* Is n(t) the engine's running gauge (not the request log's)? */
static int
n_from_engine(const run_ctx *rc)
{
	return rc->n_source && strcmp(rc->n_source, "engine") == 0;
}

/* The counters a row reads: tokens, iterations, the phase split's time
 * sums. */
static const wc_engine_column row_counters[] = { WC_ENG_PROMPT_TOKENS, WC_ENG_GENERATION_TOKENS,
	                                         WC_ENG_ITERATIONS, WC_ENG_PREFILL_S, WC_ENG_DECODE_S };
#define N_ROW_COUNTERS (sizeof row_counters / sizeof row_counters[0])

/* The first row from which every counter a row reads (row_counters)
 * counts all its work: past any that started mid-run (wc_engine_log's
 * counted_from). */
static size_t
counters_known_from(const wc_engine_log *e)
{
	size_t k = 0;
	for (size_t j = 0; j < N_ROW_COUNTERS; j++)
		if (e->col[row_counters[j]] && e->counted_from[row_counters[j]] > k)
			k = e->counted_from[row_counters[j]];
	return k;
}

/* The last row up to which every counter a row reads (row_counters)
 * counts all its work: before any left blank on the log's last rows
 * (wc_engine_log's unknown_last). */
static size_t
counters_known_to(const wc_engine_log *e)
{
	size_t k = e->n - 1;
	for (size_t j = 0; j < N_ROW_COUNTERS; j++)
		if (e->col[row_counters[j]] && e->n - 1 - e->unknown_last[row_counters[j]] < k)
			k = e->n - 1 - e->unknown_last[row_counters[j]];
	return k;
}

/* Cut [*a, *b] to the engine log's span as the power log's is: counters
 * are held flat outside it, so tokens, iterations and n(t) past its ends
 * would be wrong, not missing (docs/formats/telemetry.md, "Clocks and UTC
 * offsets"). `what` names the row for the messages. Adds the ends it
 * cut to *cut; refuses when the logs share none of the window. */
static int
cut_to_engine(const run_ctx *rc, const wc_ingest_options *opt, const char *what, double *a,
              double *b, int *cut, wc_error *err)
{
	if (!rc->eng)
		return WC_OK;
	const double tol = engine_tolerance(rc->eng);
	double eb = rc->eng->t[rc->eng->n - 1];
	const double a0 = *a, b0 = *b;
	double ea = rc->eng->t[0];
	/* Within the tolerance too when an edge sample shows a request
	 * running or waiting and the output tokens are the engine counter's:
	 * the tokens generated past it are unknown, and energy per token
	 * needs both over one window. A request log with every request's
	 * tokens speaks for them instead, and an engine log without the
	 * counter (TGI's) gives none to cut for (docs/formats/telemetry.md,
	 * "Clocks and UTC offsets"). */
	const int by_counter = wc__ingest_tokens_from_counter(rc);
	const int work_a = by_counter && wc__ingest_engine_misses_work(rc, *a, ea);
	const int work_b = by_counter && wc__ingest_engine_misses_work(rc, eb, *b);
	if (ea - *a > tol || work_a)
		*a = ea;
	if (*b - eb > tol || work_b)
		*b = eb;
	/* n(t) from a gauge that starts late is unknown before its first
	 * value, as before the log's first sample: cut there alike
	 * (warn_late_gauges says which span). */
	const size_t g = n_from_engine(rc) ? wc_engine_first_row(rc->eng, WC_ENG_RUNNING) : 0;
	const int gauge_a = g > 0 && g < rc->eng->n && rc->eng->t[g] - *a > tol;
	if (gauge_a)
		*a = ea = rc->eng->t[g];
	/* A counter the row reads that started mid-run counted unseen before
	 * its first value (data/engine_log_rows.c): its work is known from
	 * there only, as the Prometheus readers count a series from its
	 * first sample (trace/fleet_steps.c), so the row starts there, with
	 * its energy; before it the tokens fell short of the energy. */
	const size_t k = counters_known_from(rc->eng);
	const int counter_a = k > 0 && rc->eng->t[k] > *a;
	if (counter_a)
		*a = ea = rc->eng->t[k];
	/* Its mirror: one left blank on the log's last rows is unknown after
	 * its last value (data/engine_log_rows.c), as the Prometheus readers
	 * leave a series' increases out after its last sample: the row ends
	 * there, with its energy; after it the tokens fell short. */
	const size_t z = counters_known_to(rc->eng);
	const int counter_b = z + 1 < rc->eng->n && rc->eng->t[z] < *b;
	if (counter_b)
		*b = eb = rc->eng->t[z];
	if (*a == a0 && *b == b0)
		return WC_OK;
	*cut |= (*a != a0 ? WC__CUT_START : 0) | (*b != b0 ? WC__CUT_END : 0);
	char whose[WC__REPLICA_WHOSE]; /* a replica's engine series: its own span */
	wc__ingest_replica_whose(rc, whose, sizeof whose);
	if (!(*b > *a))
		return wc_error_set_path(err, WC_EINVAL, rc->dir,
		                         ":%s check engine.csv is whole: it covers %.3f-%.3f, none of %s (%.3f-%.3f)",
		                         whose, ea, eb, what, a0, b0);
	/* the logs' spans in brief: a replica named, the reason still fits */
	warn(opt, rc->dir, ":%s %s cut to %.3f-%.3f, the span both logs cover (power %.3f-%.3f, engine%s "
	     "%.3f-%.3f)%s", whose, what, *a, *b, rc->t0, rc->t1,
	     counter_a || counter_b ? "'s counters" : gauge_a ? "'s num_requests_running" : "", ea, eb,
	     work_b ? "; a request runs at the engine log's end" : work_a ? "; a request runs at the engine log's start" : "");
	return WC_OK;
}

/* A gauge the engine log leaves blank on its first rows (a series not
 * exported yet, pandas' NaN for one not scraped yet) is unknown there,
 * not 0 (docs/formats/telemetry.md, "Missing cells"): said once a run,
 * naming the span. As n(t), the rows start at its first value
 * (cut_to_engine); no power sample there is quiet (mark_quiet). A
 * running count with no value at all is no n(t). */
static int
warn_late_gauges(const run_ctx *rc, const wc_ingest_options *opt, wc_error *err)
{
	static const wc_engine_column gauges[] = { WC_ENG_RUNNING, WC_ENG_WAITING };
	const wc_engine_log *e = rc->eng;
	const int by_engine = n_from_engine(rc);
	char whose[WC__REPLICA_WHOSE]; /* a replica reads its engine's series alone */
	wc__ingest_replica_whose(rc, whose, sizeof whose);
	for (size_t j = 0; e && e->n > 0 && j < sizeof gauges / sizeof gauges[0]; j++) {
		size_t g = wc_engine_first_row(e, gauges[j]);
		const char *name = wc_engine_column_name(gauges[j]);
		if (!e->col[gauges[j]] || g == 0)
			continue;
		if (g == e->n && gauges[j] == WC_ENG_RUNNING && by_engine)
			return wc_error_set_path(err, WC_EINVAL, rc->engine_path, ":%s no n(t): %s has no value on any "
			                         "line (blank or NaN); `ingest --power-only` gives the power metrics", whose,
			                         name);
		if (g == e->n)
			warn(opt, rc->engine_path, ":%s %s has no value on any line: unknown, not 0; no power sample is "
			     "quiet by it", whose, name);
		else
			warn(opt, rc->engine_path, ":%s %s has no value on the engine log's first %zu rows (%.3f-%.3f, "
			     "%.3f s): unknown there, not 0; %s", whose, name, g, e->t[0], e->t[g], e->t[g] - e->t[0],
			     gauges[j] == WC_ENG_RUNNING && by_engine ? "n(t) is read from its first value on"
			                                              : "no power sample there is quiet");
	}
	return WC_OK;
}

int
wc__ingest_windows(run_ctx *rc, const wc_ingest_options *opt, wc_error *err)
{
	char what[96];
	int cut = 0, r;
	rc->n_windows = 0;
	if ((r = warn_late_gauges(rc, opt, err)) != WC_OK)
		return r;
	if (rc->m.n_levels == 0) {
		/* The whole log, less a stated idle window: it is cut off the
		 * end it lies nearer to (a window in the middle of the log would
		 * need two rows; the longer side is kept). */
		double a = rc->t0, b = rc->t1, s = rc->m.idle_start, e = rc->m.idle_end;
		if (isfinite(s) && isfinite(e) && s < b && a < e) {
			if (s - a <= b - e)
				a = fmax(a, e);
			else
				b = fmin(b, s);
			if (!(b > a))
				return wc_error_set_path(err, WC_EINVAL, rc->dir,
				                         ": the idle window %.3f-%.3f leaves no load in the power log "
				                         "(%.3f-%.3f)", s, e, rc->t0, rc->t1);
		}
		/* After the idle window: an engine log starting with the load
		 * is no cut of it. */
		if ((r = cut_to_engine(rc, opt, "the row", &a, &b, &cut, err)) != WC_OK)
			return r;
		rc->windows[0].a = a;
		rc->windows[0].b = b;
		rc->windows[0].level = -1;
		rc->windows[0].cut = cut;
		rc->n_windows = 1;
		return WC_OK;
	}
	for (int i = 0; i < rc->m.n_levels; i++) {
		const wc_run_level *l = &rc->m.levels[i];
		double a = fmax(l->start_epoch, rc->t0), b = fmin(l->end_epoch, rc->t1);
		if (!(b > a))
			return wc_error_set_path(err, WC_EINVAL, rc->dir,
			                         ": load level %d ('%s', epoch %.3f-%.3f) lies outside the power log "
			                         "(%.3f-%.3f)", i, l->label, l->start_epoch, l->end_epoch,
			                         rc->t0, rc->t1);
		/* A cut row is no whole level: the manifest's request count is
		 * not its (docs/formats/telemetry.md, "What ingest derives"). */
		cut = (a - l->start_epoch > CLIP_TOLERANCE_S ? WC__CUT_START : 0) |
		      (l->end_epoch - b > CLIP_TOLERANCE_S ? WC__CUT_END : 0);
		if (cut)
			warn(opt, rc->dir, ": load level %d ('%s') cut to the power log: %.3f-%.3f of %.3f-%.3f", i,
			     l->label, a, b, l->start_epoch, l->end_epoch);
		snprintf(what, sizeof what, "load level %d ('%.40s')", i, l->label);
		if ((r = cut_to_engine(rc, opt, what, &a, &b, &cut, err)) != WC_OK)
			return r;
		rc->windows[rc->n_windows].a = a;
		rc->windows[rc->n_windows].b = b;
		rc->windows[rc->n_windows].level = i;
		rc->windows[rc->n_windows].cut = cut;
		rc->n_windows++;
	}
	return WC_OK;
}

int
wc__ingest_end_included(const run_ctx *rc, int w, double b)
{
	/* Each level's end inclusive put a request on the edge of two levels
	 * back to back in both, with its tokens and latencies. */
	for (int v = 0; v < rc->n_windows; v++)
		if (v != w && wc_trace_in_window(b, rc->windows[v].a, rc->windows[v].b, 0))
			return 0;
	return 1;
}

int
wc__ingest_row_reaches_cut(const run_ctx *rc, int w, double a, double b)
{
	const int cut = rc->windows[w].cut;
	/* a segment starts or ends exactly at its window's ends, or inside */
	return ((cut & WC__CUT_START) && a <= rc->windows[w].a) || ((cut & WC__CUT_END) && b >= rc->windows[w].b);
}

/* Requests running or waiting at time t, from every source the run has. */
static double
load_at(const run_ctx *rc, double t)
{
	double n = 0.0;
	/* Outside its span the engine log says nothing: its held first or
	 * last sample is no count of what ran then. */
	if (rc->eng && t >= rc->eng->t[0] && t <= rc->eng->t[rc->eng->n - 1]) {
		double r = wc_engine_value_at(rc->eng, WC_ENG_RUNNING, t);
		double w = wc_engine_value_at(rc->eng, WC_ENG_WAITING, t);
		n += (isfinite(r) ? r : 0.0) + (isfinite(w) ? w : 0.0);
	}
	if (rc->req)
		for (size_t i = 0; i < rc->req->n; i++)
			n += rc->req->arrival[i] <= t && t < wc_trace_request_end(rc->req, i);
	return n;
}

int
wc__ingest_check_idle_window(const run_ctx *rc, wc_error *err)
{
	double s = rc->m.idle_start, e = rc->m.idle_end;
	if (!isfinite(s) || !isfinite(e))
		return WC_OK;
	for (int i = 0; i < rc->m.n_levels; i++)
		if (s < rc->m.levels[i].end_epoch && rc->m.levels[i].start_epoch < e)
			return wc_error_set_path(err, WC_EINVAL, rc->dir,
			                         ": idle_window %.3f-%.3f overlaps load level %d (%.3f-%.3f)",
			                         s, e, i, rc->m.levels[i].start_epoch, rc->m.levels[i].end_epoch);
	/* Probe the window on a 50 ms grid, at every request's arrival and
	 * every engine sample inside it. The window is [s, e) by the one
	 * window rule (wc_trace_in_window; docs/formats/telemetry.md, "Load
	 * levels and idle windows"): a request arriving at its end belongs
	 * to the load after it, and was refused as overlapping when the end
	 * itself was probed. */
	const double dt = WC_INGEST_GRID_S;
	size_t steps = (size_t)ceil((e - s) / dt), n_req = rc->req ? rc->req->n : 0;
	for (size_t k = 0; k < steps + n_req; k++) {
		double t = k < steps ? s + (double)k * dt : rc->req->arrival[k - steps], n;
		if (!wc_trace_in_window(t, s, e, 0) || !((n = load_at(rc, t)) > 0))
			continue;
		return wc_error_set_path(err, WC_EINVAL, rc->dir,
		                         ": idle_window %.3f-%.3f overlaps load: %g request(s) running or "
		                         "waiting at epoch %.3f", s, e, n, t);
	}
	for (size_t k = 0; rc->eng && k < rc->eng->n; k++)
		if (wc_trace_in_window(rc->eng->t[k], s, e, 0) && load_at(rc, rc->eng->t[k]) > 0)
			return wc_error_set_path(err, WC_EINVAL, rc->dir,
			                         ": idle_window %.3f-%.3f overlaps load at engine sample %.3f",
			                         s, e, rc->eng->t[k]);
	return WC_OK;
}

/* Mean power of GPU g over the load windows (time-weighted). */
static double
load_mean(const run_ctx *rc, int g)
{
	double e = 0.0, d = 0.0;
	const double *t = rc->pt->t, *p = rc->pt->power[g];
	for (size_t i = 1; i < rc->pt->n; i++)
		for (int w = 0; w < rc->n_windows; w++) {
			double a = fmax(t[i - 1], rc->windows[w].a), b = fmin(t[i], rc->windows[w].b);
			if (b > a) {
				e += 0.5 * (p[i - 1] + p[i]) * (b - a);
				d += b - a;
			}
		}
	return d > 0 ? e / d : NAN;
}

static double
percentile5(const double *p, size_t n)
{
	double *s = wc_alloc_array(n, sizeof *s), v = NAN;
	if (!s)
		return NAN;
	v = wc_stats_quantile(p, n, 0.05, s);
	free(s);
	return v;
}

void
wc__ingest_idle(run_ctx *rc, const wc_ingest_options *opt)
{
	/* Per GPU; the weakest source in the group names the row's. */
	static const char *const rank[] = { "none", "quiet_short", "quiet_stretch", "window" };
	double published, limit;
	int worst = 3;
	/* what the caller does without it: a fit, or a prediction */
	const char *fallback = opt->idle_fallback ? opt->idle_fallback : WC_INGEST_IDLE_FALLBACK;
	wc_trace_idle_reference(rc->m.platform, &published, &limit);
	for (int g = 0; g < rc->pt->info.n_gpus; g++) {
		char reason[200];
		/* the log's index: a data-parallel replica's first GPU is not 0 */
		const int gpu = rc->pt->info.index[g] >= 0 ? rc->pt->info.index[g] : g;
		const char *src = wc_trace_idle_power(rc->pt->t, rc->pt->power[g], rc->pt->n, rc->quiet,
		                                      rc->m.idle_start, rc->m.idle_end, &rc->idle_gpu[g]);
		if (isnan(rc->idle_gpu[g]) && g == 0)
			warn(opt, rc->m.run_id, ": no idle power: no idle window and %s; %s",
			     rc->power_only ? "no load log to tell quiet moments (power only)"
			                    : "no moment without a request running or waiting", fallback);
		double quiet_s = strcmp(src, "quiet_short") == 0
		                 ? wc_trace_idle_quiet_time(rc->pt->t, rc->pt->power[g], rc->pt->n, rc->quiet,
		                                            rc->idle_gpu[g])
		                 : INFINITY;
		if (quiet_s < WC_IDLE_QUIET_S) {
			/* A dip inside a busy period, not a level the GPU idles at:
			 * the engine is quiet, the GPU need not be (291.7 W on the
			 * real A100 replay), so the power is said as where, not as idle */
			warn(opt, rc->m.run_id, ": idle power unknown: the engine is quiet for only %.2f s in all (at least "
			     "%.0f s needed; GPU %d draws %.1f W there); %s", quiet_s, WC_IDLE_QUIET_S, gpu, rc->idle_gpu[g],
			     fallback);
			rc->idle_gpu[g] = NAN;
			src = "none";
		} else if (wc_trace_idle_implausible(rc->idle_gpu[g], percentile5(rc->pt->power[g], rc->pt->n),
		                              load_mean(rc, g), published, limit, reason, sizeof reason)) {
			warn(opt, rc->m.run_id, ": idle power %.1f W of GPU %d (%s) rejected: %s; %s", rc->idle_gpu[g], gpu,
			     src, reason, fallback);
			rc->idle_gpu[g] = NAN;
			src = "none";
		}
		int k = 0;
		while (k < 3 && strcmp(rank[k], src) != 0)
			k++;
		if (k < worst)
			worst = k;
	}
	rc->idle_source = rank[worst];
	if (worst == 0) /* one GPU without a trustworthy idle: the row has none */
		for (int g = 0; g < rc->pt->info.n_gpus; g++)
			rc->idle_gpu[g] = NAN;
}
