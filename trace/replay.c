/*
 * A measured run as envelopes replay it (docs/envelopes.md, "Replaying a
 * measured run"): read exactly as `ingest` reads it (the same steps, the
 * same refusals), then, per load window, the power samples, n(t) on the
 * 50 ms grid and the arrivals -- from the request log, else rebuilt from
 * the engine counters.
 */
#include "ingest_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/grow.h"
#include "models/stats.h"
#include "trace/load.h"
#include "trace/replay.h"

/* Fewer single-request intervals than this: no mean prompt from them. */
#define MIN_SINGLE_PROMPTS 3

void
wc_trace_replay_free(wc_trace_replay *r, size_t n)
{
	for (size_t i = 0; r && i < n; i++) {
		free(r[i].power_t);
		free(r[i].power_w);
		free(r[i].running);
		free(r[i].arrival_s);
		free(r[i].input);
		free(r[i].output);
		free(r[i].prefill_lo_s);
		free(r[i].prefill_hi_s);
		free(r[i].prefill_exact);
	}
	free(r);
}

static int
alloc_arrivals(wc_trace_replay *r, size_t n)
{
	size_t m = n ? n : 1;
	r->arrival_s = wc_alloc_array(m, sizeof(double));
	r->input = wc_alloc_array(m, sizeof(double));
	r->output = wc_alloc_array(m, sizeof(double));
	r->prefill_lo_s = wc_alloc_array(m, sizeof(double));
	r->prefill_hi_s = wc_alloc_array(m, sizeof(double));
	r->prefill_exact = wc_alloc_array(m, 1);
	return r->arrival_s && r->input && r->output && r->prefill_lo_s && r->prefill_hi_s &&
	       r->prefill_exact ? WC_OK : WC_ENOMEM;
}

/* ------------------------------------------------- power and n(t) */

/* The window's samples: those its time puts in it by the rule its
 * metrics' quantiles and max follow (wc_trace_in_window, `last` as the
 * row's), so that the power drawn and binned beside the prediction is
 * the one its p95 and max are of. */
static int
window_power(const run_ctx *rc, int last, wc_trace_replay *r)
{
	const wc_power_trace *pt = rc->pt;
	size_t i = 0, j, n;
	while (i < pt->n && pt->t[i] < r->start_epoch)
		i++;
	for (j = i; j < pt->n && wc_trace_in_window(pt->t[j], r->start_epoch, r->end_epoch, last); j++)
		;
	n = j - i;
	r->power_t = wc_alloc_array(n ? n : 1, sizeof(double));
	r->power_w = wc_alloc_array(n ? n : 1, sizeof(double));
	if (!r->power_t || !r->power_w)
		return WC_ENOMEM;
	for (size_t k = 0; k < n; k++) {
		r->power_t[k] = pt->t[i + k] - r->start_epoch;
		r->power_w[k] = pt->group[i + k] / pt->info.n_gpus;
	}
	r->n_power = n;
	/* Median sampling interval of the whole log. */
	double *d = wc_alloc_array(pt->n, sizeof *d);
	size_t nd = 0;
	if (!d)
		return WC_ENOMEM;
	for (size_t k = 1; k < pt->n; k++)
		if (pt->t[k] > pt->t[k - 1])
			d[nd++] = pt->t[k] - pt->t[k - 1];
	r->sample_s = wc_stats_median(d, nd);
	free(d);
	return WC_OK;
}

/* The replayed window ends on a whole 50 ms step from its start: the
 * simulation's horizon is its n(t) grid (window_load), so the measured
 * metrics, energy, power and arrivals are cut to that same span -- a
 * 6.514 s window is replayed and measured over 6.5 s (docs/envelopes.md,
 * "Replaying a measured run"). A window shorter than one step is kept. */
static size_t
window_steps(double a, double b)
{
	/* epochs near 1.8e9 s carry 2.4e-7 s: a window cut to k steps must
	 * still count k, so the tolerance is 1e-4 of a step (5 us) */
	double k = floor((b - a) / WC_INGEST_GRID_S + 1e-4);
	return k >= 1 ? (size_t)k : 0;
}

static double
window_end(double a, double b)
{
	size_t k = window_steps(a, b);
	return k ? a + (double)k * WC_INGEST_GRID_S : b;
}

static int
window_load(const run_ctx *rc, wc_trace_replay *r)
{
	const double dt = WC_INGEST_GRID_S;
	r->n_grid = window_steps(r->start_epoch, r->end_epoch);
	if (r->n_grid == 0)
		r->n_grid = 1;
	if (!(r->running = wc_alloc_array(r->n_grid, sizeof(double))))
		return WC_ENOMEM;
	/* One rule with ingest's (trace/load.h); wc_trace_replay_load
	 * refuses a run with neither source. */
	r->n_source = wc_trace_running_series(rc->req, rc->log_accounts, rc->eng, r->start_epoch, dt, r->n_grid, r->running);
	return WC_OK;
}

/* ------------------------------------------------------- arrivals */

typedef struct {
	double a, in, out, lo, hi;
	unsigned char exact;
	size_t i;
} logged;

static int
cmp_logged(const void *x, const void *y)
{
	const logged *p = x, *q = y;
	if (p->a != q->a)
		return p->a < q->a ? -1 : 1;
	return p->i < q->i ? -1 : p->i > q->i;
}

static int
arrivals_from_requests(const run_ctx *rc, wc_trace_replay *r)
{
	const wc_request_log *q = rc->req;
	logged *l = wc_alloc_array(q->n ? q->n : 1, sizeof *l);
	size_t n = 0;
	if (!l)
		return WC_ENOMEM;
	for (size_t i = 0; i < q->n; i++) {
		/* Those sent in the window, and those sent before it still running
		 * at its start: by the log's one end (wc_trace_request_end, the
		 * first token when the completion is unknown, as ingest counts
		 * them), and kept when no end is known -- a request with no
		 * output length is replayed with a drawn one, not dropped
		 * (docs/envelopes.md, "Replaying a measured run"). */
		const double end = wc_trace_request_end(q, i);
		if (!(q->arrival[i] < r->end_epoch && (q->arrival[i] >= r->start_epoch || !(end <= r->start_epoch))))
			continue;
		double a = q->arrival[i] - r->start_epoch, f = q->first_token[i] - r->start_epoch;
		int exact = isfinite(f) && f >= a;
		l[n++] = (logged){ a, q->input_tokens[i], q->output_tokens[i], a,
		                   exact ? f : q->completion[i] - r->start_epoch, (unsigned char)exact, i };
	}
	/* In arrival order (a log lists them as they were sent). */
	qsort(l, n, sizeof *l, cmp_logged);
	int rc_ = alloc_arrivals(r, n);
	for (size_t k = 0; rc_ == WC_OK && k < n; k++) {
		r->arrival_s[k] = l[k].a;
		r->input[k] = l[k].in;
		r->output[k] = l[k].out;
		r->prefill_lo_s[k] = l[k].lo;
		r->prefill_hi_s[k] = l[k].hi;
		r->prefill_exact[k] = l[k].exact;
	}
	r->n_arrivals = rc_ == WC_OK ? n : 0;
	r->arrival_source = "requests";
	r->mean_input = NAN;
	free(l);
	return rc_;
}

/* Requests in the engine (running + waiting) at sample k. */
static double
engine_load(const wc_engine_log *e, size_t k)
{
	double v = e->col[WC_ENG_RUNNING][k];
	if (e->col[WC_ENG_WAITING] && isfinite(e->col[WC_ENG_WAITING][k]))
		v += e->col[WC_ENG_WAITING][k];
	return isfinite(v) ? v : 0.0;
}

/* Median prompt of counter intervals where the engine went from empty to
 * one request (a single arrival); NaN with too few of them. */
static double
single_prompts(const wc_engine_log *e, double a, double b)
{
	const double *P = wc_engine_live(e, WC_ENG_PROMPT_TOKENS);
	double *v = wc_alloc_array(e->n ? e->n : 1, sizeof *v), med = NAN;
	size_t n = 0;
	if (!v)
		return NAN;
	for (size_t k = 1; k < e->n; k++)
		if (e->t[k] > a && e->t[k - 1] < b && engine_load(e, k - 1) == 0 && engine_load(e, k) == 1 &&
		    P[k] > P[k - 1])
			v[n++] = P[k] - P[k - 1];
	if (n >= MIN_SINGLE_PROMPTS)
		med = wc_stats_median(v, n);
	free(v);
	return med;
}

/* Counter interval k lies in the window. */
static int
in_window(const wc_engine_log *e, size_t k, const wc_trace_replay *r)
{
	return e->t[k] > r->start_epoch && e->t[k - 1] < r->end_epoch;
}

static double
prompt_increment(const wc_engine_log *e, size_t k)
{
	const double *P = wc_engine_live(e, WC_ENG_PROMPT_TOKENS);
	double dp = P ? P[k] - P[k - 1] : 0.0;
	return dp >= 0 ? dp : 0.0;
}

/* Arrivals the load gauge shows in interval k: its increase, at least one
 * when new prompt tokens were counted. */
static long
gauge_arrivals(const wc_engine_log *e, size_t k)
{
	double inc = engine_load(e, k) - engine_load(e, k - 1);
	long n = inc > 0 ? lround(inc) : 0;
	return n == 0 && prompt_increment(e, k) > 0 ? 1 : n;
}

/* What interval k's own count leaves unexplained, the share of the
 * arrivals the gauge cannot show that it gets (window_counts). With the
 * prompt tokens and a mean prompt: the tokens beyond its count times the
 * mean. Without them: the requests in the engine at its start times its
 * span in the window -- an arrival hides from the gauge only when a
 * request completes in the same interval, and requests complete at a rate
 * proportional to those in the engine (docs/envelopes.md, "Replaying a
 * measured run"). */
static double
unexplained(const wc_engine_log *e, size_t k, const wc_trace_replay *r, double lbar, long count)
{
	if (wc_engine_live(e, WC_ENG_PROMPT_TOKENS))
		return fmax(0.0, prompt_increment(e, k) - (double)count * lbar);
	double span = fmin(e->t[k], r->end_epoch) - fmax(e->t[k - 1], r->start_epoch);
	return engine_load(e, k - 1) * fmax(0.0, span);
}

/* Arrivals per counter interval of the window (counts[k], k >= 1);
 * returns what the gauge shows of them. Without a total: that. With one
 * -- the prompt tokens over the mean prompt `lbar`, or, without prompt
 * tokens, the level's `stated` requests in the window (stated_count)
 * -- each interval still gets what
 * the gauge shows, not its tokens over lbar: prompts vary in length
 * (ShareGPT's by more than their mean), so one long prompt would become
 * several arrivals at once and the rebuilt process would be several times
 * burstier than the one sent (its variance per second 3.3 times its mean
 * on a Poisson run, against 1.3 this way); the arrivals the gauge cannot
 * show (a completion in the same interval hides one) are spread over the
 * intervals in proportion to what their gauge count leaves unexplained
 * (`unexplained`), rounded cumulatively (docs/envelopes.md, "Replaying a
 * measured run"). */
static long
window_counts(const wc_engine_log *e, const wc_trace_replay *r, double lbar, double stated, long *counts)
{
	const int prompts = wc_engine_live(e, WC_ENG_PROMPT_TOKENS) != NULL;
	double tokens = 0.0, excess = 0.0;
	long base = 0;
	for (size_t k = 1; k < e->n; k++) {
		counts[k] = 0;
		if (!in_window(e, k, r))
			continue;
		counts[k] = gauge_arrivals(e, k);
		base += counts[k];
		tokens += prompt_increment(e, k);
	}
	if (prompts ? !isfinite(lbar) : !(stated > 0))
		return base;
	for (size_t k = 1; k < e->n; k++)
		if (in_window(e, k, r))
			excess += unexplained(e, k, r, lbar, counts[k]);
	if (!(excess > 0))
		return base;
	long extra = (prompts ? lround(tokens / lbar) : lround(stated)) - base, given = 0;
	double cum = 0.0;
	for (size_t k = 1; k < e->n && extra > 0; k++) {
		if (!in_window(e, k, r))
			continue;
		cum += unexplained(e, k, r, lbar, counts[k]);
		long to = lround((double)extra * cum / excess);
		counts[k] += to - given;
		given = to;
	}
	return base;
}

/* The engine's prompt tokens over the window's counter intervals (as
 * window_counts sums them). */
static double
window_prompt_tokens(const wc_engine_log *e, const wc_trace_replay *r)
{
	double tokens = 0.0;
	for (size_t k = 1; k < e->n; k++)
		if (in_window(e, k, r))
			tokens += prompt_increment(e, k);
	return tokens;
}

/* The arrivals a window replays of the `stated` requests of its level:
 * all of them on a whole level; on a cut one, the stated count times the
 * share of the level's stated span inside the window -- the lifetime
 * share a request crossing a window's end counts by in `ingest`
 * (wc_trace_lifetime_share), the level taken as one lifetime -- whether
 * the engine counts prompt tokens or not. Without prompt tokens the gauge
 * alone would hide the arrivals a completion in the same interval masks
 * (94 of the 4 req/s A100 run's 200 on a level stated 2 s longer than its
 * power log); with them, their count over the client's mean prompt
 * counted the template tokens the server adds as arrivals (202 of 200 on
 * the same cut level; docs/envelopes.md, "Replaying a measured run").
 * NaN: no stated count to scale (a run without levels cut short). */
static double
stated_count(const run_ctx *rc, int w, double stated)
{
	const int l = rc->windows[w].level;
	if (!(stated > 0))
		return NAN;
	if (!rc->windows[w].cut)
		return stated;
	if (l < 0)
		return NAN;
	const wc_run_level *lv = &rc->m.levels[l];
	return stated * wc_trace_lifetime_share(lv->start_epoch, lv->end_epoch, rc->windows[w].a, rc->windows[w].b);
}

/* A cut level's count said (the rule is an estimate: arrivals need not be
 * even over the level), with what the gauge shows of it. */
static void
warn_cut_count(const run_ctx *rc, const wc_ingest_options *opt, int w, double stated, size_t count, long gauge)
{
	const int l = rc->windows[w].level;
	if (!opt->warn || !rc->windows[w].cut || l < 0 || !(stated > 0))
		return;
	const wc_run_level *lv = &rc->m.levels[l];
	const double span = lv->end_epoch - lv->start_epoch, in = rc->windows[w].b - rc->windows[w].a;
	char msg[WC_ERROR_MSG_MAX];
	wc_error_format_path(msg, sizeof msg, rc->dir, ": load level %d cut: %zu arrivals replayed, "
	                     "its stated %.0f requests times the %.1f of its %.1f s inside the window; the load "
	                     "gauge shows %ld", l, count, stated, in, span, gauge);
	opt->warn(msg, opt->warn_payload);
}

static int
arrivals_from_engine(const run_ctx *rc, const wc_ingest_options *opt, int w, wc_trace_replay *r)
{
	const wc_engine_log *e = rc->eng;
	const int prompts = wc_engine_live(e, WC_ENG_PROMPT_TOKENS) != NULL;
	/* What the manifest states of the window, read as `ingest` reads it
	 * (one rule, trace/ingest_internal.h); its count is the window's only
	 * when the window is whole, its means per request hold for any part. */
	const wc__ingest_stated st = wc__ingest_stated_of(rc, w);
	const double count = stated_count(rc, w, st.requests);
	const double stated_in = st.requests > 0 && st.input_tokens > 0 ? st.input_tokens / st.requests : NAN;
	double lbar = NAN, out_mean = NAN, carried = 0.0;
	double tokens = prompts ? window_prompt_tokens(e, r) : 0.0;
	/* A level whose manifest states its completed requests has that many
	 * arrivals, a cut level its share of them (stated_count): the mean
	 * prompt is the engine's own prompt tokens over them. The load
	 * generator's token totals are the client's count (the server adds
	 * template tokens to each prompt: 67 115 engine tokens for 66 356
	 * client ones over 200 requests), so the engine's tokens over the
	 * client's mean would make 202 (docs/envelopes.md, "Replaying a
	 * measured run"). Otherwise -- an engine that counts no prompt tokens
	 * (TGI's counters) -- the stated mean prompt, as `ingest` gives it,
	 * the count still the manifest's (window_counts): the gauge alone
	 * showed 94 of the 4 req/s A100 run's 200. */
	if (prompts && isfinite(count) && tokens > 0)
		lbar = tokens / count;
	else if (isfinite(stated_in))
		lbar = stated_in;
	else if (prompts)
		lbar = single_prompts(e, r->start_epoch, r->end_epoch);
	r->mean_input = lbar;
	r->arrival_source = prompts && isfinite(lbar) ? "engine_prompt_tokens" : "engine_running";
	long *counts = wc_alloc_array(e->n ? e->n : 1, sizeof *counts);
	if (!counts)
		return WC_ENOMEM;
	long gauge = window_counts(e, r, lbar, count, counts);
	size_t m = 0;
	for (size_t k = 1; k < e->n; k++)
		m += in_window(e, k, r) ? (size_t)counts[k] : 0;
	warn_cut_count(rc, opt, w, st.requests, m, gauge);
	if (alloc_arrivals(r, m) != WC_OK) {
		free(counts);
		return WC_ENOMEM;
	}
	r->n_arrivals = m;
	m = 0;
	for (size_t k = 1; k < e->n; k++) {
		if (!in_window(e, k, r))
			continue;
		long n = counts[k];
		double lo = fmax(e->t[k - 1], r->start_epoch) - r->start_epoch;
		double hi = fmin(e->t[k], r->end_epoch) - r->start_epoch;
		/* Prompt tokens of an interval without an arrival go to the next;
		 * arrivals the gauge shows before their prompt is counted get the
		 * mean prompt. */
		carried += prompt_increment(e, k);
		double tok = n > 0 && prompts ? carried / (double)n : NAN;
		if (!(tok >= 1))
			tok = lbar >= 1 ? lbar : NAN;
		for (long j = 0; j < n; j++, m++) {
			r->arrival_s[m] = lo + ((double)j + 0.5) / (double)n * (hi - lo);
			r->input[m] = tok;
			r->prefill_lo_s[m] = lo;
			r->prefill_hi_s[m] = hi;
			r->prefill_exact[m] = 0;
		}
		if (n > 0)
			carried = 0.0;
	}
	free(counts);
	/* Output lengths are not in the counters: the window's mean for all. */
	if (st.requests > 0 && st.output_tokens > 0)
		out_mean = st.output_tokens / st.requests;
	else if (e->col[WC_ENG_GENERATION_TOKENS] && r->n_arrivals > 0)
		out_mean = (wc_engine_value_at(e, WC_ENG_GENERATION_TOKENS, r->end_epoch) -
		            wc_engine_value_at(e, WC_ENG_GENERATION_TOKENS, r->start_epoch)) /
		           (double)r->n_arrivals;
	/* Whole tokens that add up to the mean times the arrivals (the level's
	 * stated total when they are its completed requests): each rounded
	 * cumulatively, so 200 at 213.36 make 42 672, not 200 x 213. */
	for (m = 0; m < r->n_arrivals; m++)
		r->output[m] = out_mean >= 1 ? round(out_mean * (double)(m + 1)) - round(out_mean * (double)m) : NAN;
	return WC_OK;
}

/* --------------------------------------------------------- windows */

static int
build_window(run_ctx *rc, const wc_ingest_options *opt, int w, wc_trace_replay *r, wc_error *err)
{
	wc_ingest_row row;
	int rc_;
	memset(&row, 0, sizeof row);
	r->m = rc->m;
	r->tp = rc->m.tp;
	r->start_epoch = rc->windows[w].a;
	r->end_epoch = window_end(rc->windows[w].a, rc->windows[w].b);
	const int last = wc__ingest_end_included(rc, w, r->end_epoch);
	if ((rc_ = wc__ingest_make_row(rc, opt, w, 1, r->start_epoch, r->end_epoch, last, 1, NULL, &row, err)) != WC_OK)
		return rc_;
	snprintf(r->run_id, sizeof r->run_id, "%s", row.run.run_id);
	snprintf(r->dir, sizeof r->dir, "%s", row.dir);
	r->metrics = row.metrics;
	double idle = 0.0;
	int known = 0;
	for (int g = 0; g < row.n_gpus; g++)
		if (isfinite(row.idle_gpu_w[g])) {
			idle += row.idle_gpu_w[g];
			known++;
		}
	r->idle_w = known == row.n_gpus && known > 0 ? idle / known : NAN;
	wc__ingest_row_free(&row);
	if (window_power(rc, last, r) != WC_OK || window_load(rc, r) != WC_OK)
		return wc_error_set_path(err, WC_ENOMEM, rc->dir, ": out of memory");
	/* A request log leaving out work the engine did replays the engine's
	 * arrivals, as n(t) takes its gauge (trace/load.h). */
	const int whole = rc->req && !(rc->log_accounts == 0 && rc->eng->col[WC_ENG_RUNNING]);
	rc_ = whole ? arrivals_from_requests(rc, r) : arrivals_from_engine(rc, opt, w, r);
	if (rc_ != WC_OK)
		return wc_error_set_path(err, rc_, rc->dir, ": out of memory");
	return WC_OK;
}

static void
ctx_free(run_ctx *rc)
{
	wc_power_trace_free(rc->pt);
	wc_engine_free(rc->eng);
	wc_request_log_free(rc->req);
	free(rc->grid_n);
	free(rc->quiet);
}

int
wc_trace_replay_load(const char *run_dir, const wc_ingest_options *opt, wc_trace_replay **out,
                     size_t *n_out, wc_error *err)
{
	run_ctx rc;
	wc_trace_replay *r = NULL;
	int ret;
	*out = NULL;
	*n_out = 0;
	memset(&rc, 0, sizeof rc);
	wc__ingest_locate_files(&rc, run_dir);
	if (!wc__file_exists(rc.power_path))
		return wc_error_set_path(err, WC_ENOTFOUND, run_dir, ": no power.csv");
	if ((ret = wc__ingest_load_manifests(&rc, opt, err)) != WC_OK ||
	    (ret = wc__ingest_read_files(&rc, opt, err)) != WC_OK ||
	    (ret = wc__ingest_check_alignment(&rc, err)) != WC_OK ||
	    (ret = wc__ingest_build_load(&rc, err)) != WC_OK || (ret = wc__ingest_windows(&rc, opt, err)) != WC_OK ||
	    (ret = wc__ingest_check_idle_window(&rc, err)) != WC_OK)
		goto done;
	if (!rc.req && !(rc.eng && rc.eng->col[WC_ENG_RUNNING])) {
		ret = wc_error_set_path(err, WC_EINVAL, run_dir,
		                        ": no arrivals to replay: needs a request log or engine "
		                        "counters");
		goto done;
	}
	wc__ingest_idle(&rc, opt);
	r = wc_alloc_zeroed((size_t)rc.n_windows, sizeof *r);
	if (!r) {
		ret = wc_error_set_path(err, WC_ENOMEM, run_dir, ": out of memory");
		goto done;
	}
	for (int w = 0; w < rc.n_windows; w++)
		if ((ret = build_window(&rc, opt, w, &r[w], err)) != WC_OK)
			goto done;
	*out = r;
	*n_out = (size_t)rc.n_windows;
	r = NULL;
	ret = WC_OK;
done:
	wc_trace_replay_free(r, (size_t)rc.n_windows);
	ctx_free(&rc);
	return ret;
}
