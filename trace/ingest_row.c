/*
 * `wattcast ingest`, one row: the group trace cut exactly to the row's
 * window (interpolated at the ends), its metrics, n(t) over the window's
 * grid points, the counts served in it and the energies per unit
 * (docs/formats/runs-table.md, "Columns written by ingest").
 */
#include "ingest_internal.h"
#include "models/law.h"
#include "models/stats.h"
#include "models/grow.h"
#include "trace/load.h"

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The group trace cut at [a, b], interpolated at the ends; the window's
 * own samples are (*tout + *s0)[0 .. *ns): those its time puts in the
 * window by wc_trace_in_window, the one rule that gives a sample on the
 * edge of two windows to one of them. The points interpolated at a cut
 * are of the curve (energy, mean, ramps), not samples (p5..max). */
static int
cut_trace(const run_ctx *rc, double a, double b, int last, double **tout, double **pout, size_t *nout,
          size_t *s0, size_t *ns, wc_error *err)
{
	const double *t = rc->pt->t, *p = rc->pt->group;
	size_t n = rc->pt->n, i = 0, j, hi = n;
	/* The first sample at or after a (the times rise strictly): found by
	 * halving, as a segment's cost is its own samples, not the run's. */
	while (i < hi) {
		size_t mid = i + (hi - i) / 2;
		if (t[mid] < a)
			i = mid + 1;
		else
			hi = mid;
	}
	j = i;
	while (j < n && t[j] <= b)
		j++;
	size_t cap = (j - i) + 2, k = 0;
	double *ct = wc_alloc_array(cap, sizeof *ct), *cp = wc_alloc_array(cap, sizeof *cp);
	if (!ct || !cp) {
		free(ct);
		free(cp);
		return wc_error_set_path(err, WC_ENOMEM, rc->dir, ": out of memory");
	}
	if (i > 0 && i < n && t[i] > a) {
		ct[k] = a;
		cp[k++] = p[i - 1] + (p[i] - p[i - 1]) * (a - t[i - 1]) / (t[i] - t[i - 1]);
	}
	*s0 = k;
	*ns = 0;
	for (size_t s = i; s < j; s++) {
		ct[k] = t[s];
		cp[k++] = p[s];
		*ns += wc_trace_in_window(t[s], a, b, last);
	}
	if (j > 0 && j < n && t[j - 1] < b) {
		ct[k] = b;
		cp[k++] = p[j - 1] + (p[j] - p[j - 1]) * (b - t[j - 1]) / (t[j] - t[j - 1]);
	}
	*tout = ct;
	*pout = cp;
	*nout = k;
	return WC_OK;
}

double
wc__ingest_mean_power(const run_ctx *rc, double a, double b)
{
	/* The row's mean_power_w over [a, b]: its energy over its time, on
	 * the cut the row itself is measured on */
	double *ct, *cp, mean = NAN;
	size_t cn, s0, ns;
	wc_error err;
	if (!(b > a) || cut_trace(rc, a, b, 1, &ct, &cp, &cn, &s0, &ns, &err) != WC_OK)
		return NAN;
	if (cn > 1 && ct[cn - 1] > ct[0])
		mean = wc_trace_energy(ct, cp, cn) / (ct[cn - 1] - ct[0]);
	free(ct);
	free(cp);
	return mean;
}

double
wc__ingest_counter_delta(const run_ctx *rc, wc_engine_column c, double a, double b)
{
	if (!rc->eng || !rc->eng->col[c])
		return NAN;
	return wc_engine_value_at(rc->eng, c, b) - wc_engine_value_at(rc->eng, c, a);
}

int
wc__ingest_tokens_from_log(const run_ctx *rc)
{
	wc_trace_token_ramp r;
	if (!rc->req || rc->req->n == 0)
		return 0;
	for (size_t i = 0; i < rc->req->n; i++)
		if (!wc_trace_token_ramp_of(rc->req, i, &r))
			return 0;
	/* a log leaving out work the engine counted: the counter's tokens */
	return rc->log_accounts != 0;
}

int
wc__ingest_tokens_from_counter(const run_ctx *rc)
{
	return rc->eng && rc->eng->col[WC_ENG_GENERATION_TOKENS] && !wc__ingest_tokens_from_log(rc);
}

/* Requests running or waiting at engine sample k (a gauge not reported
 * yet shows none: n(t) is cut to its first value, ingest_windows.c). */
static int
engine_busy(const wc_engine_log *e, size_t k)
{
	const double *run = e->col[WC_ENG_RUNNING], *wait = e->col[WC_ENG_WAITING];
	return (run && run[k] > 0) || (wait && wait[k] > 0);
}

int
wc__ingest_engine_misses_work(const run_ctx *rc, double a, double b)
{
	if (!rc->eng || rc->eng->n == 0)
		return 0;
	size_t last = rc->eng->n - 1;
	return (a < rc->eng->t[0] && engine_busy(rc->eng, 0)) || (b > rc->eng->t[last] && engine_busy(rc->eng, last));
}

/* Output tokens the request log's requests generated in [a, b): each
 * one's rise over the window, so that a request running across the
 * window's start or end adds only its share and segments add up; a jump
 * (a request of no duration, its first token, its last) falls in the
 * window its time belongs to by the rule its count follows
 * (wc_trace_in_window). */
static double
log_tokens(const wc_request_log *log, const wc__ingest_reqs *reqs, double a, double b, int last)
{
	double sum = 0.0;
	wc_trace_token_ramp r;
	for (size_t k = 0; k < reqs->n; k++) {
		size_t i = wc__ingest_req_at(reqs, k);
		if (wc_trace_token_ramp_of(log, i, &r))
			sum += wc_trace_token_ramp_in(&r, a, b, last);
	}
	return sum;
}

/* The row's id: the run's, "#<level>" when the run has several load
 * levels, "#seg<k>" when segmenting. */
static void
row_id(const run_ctx *rc, const wc_ingest_options *opt, int w, int seg, char *out, size_t cap)
{
	char level[48] = "", tail[64] = "";
	int l = rc->windows[w].level;
	if (l >= 0 && rc->m.n_levels > 1) {
		char part[WC_RUN_LEVEL_ID_MAX];
		wc_run_level_id(rc->m.levels[l].label, l, part, sizeof part);
		snprintf(level, sizeof level, "#%s", part);
	}
	if (opt->segment_s > 0)
		snprintf(tail, sizeof tail, WC_RUN_SEGMENT_TAG "%d", seg);
	/* The suffix stays whole (it tells the rows apart); the run's id
	 * gives way before it, between UTF-8 characters (docs/cli.md,
	 * "ingest"): a CJK id was cut inside a character. */
	size_t keep = wc_utf8_keep(rc->m.run_id, cap - 1 - strlen(level) - strlen(tail));
	snprintf(out, cap, "%.*s%s%s", (int)keep, rc->m.run_id, level, tail);
}

/* The workload of window w: its level's when it has one, else the run's. */
static void
row_load(const run_ctx *rc, int w, wc_ingest_row *row)
{
	const wc_run_level *l = rc->windows[w].level >= 0 ? &rc->m.levels[rc->windows[w].level] : NULL;
	row->request_rate = l ? l->request_rate : rc->m.request_rate;
	row->burstiness = l ? l->burstiness : rc->m.burstiness;
	row->run.workload = rc->m.workload;
	if (l && rc->m.workload != WC_WORKLOAD_REPLAY && l->request_rate > 0)
		row->run.workload = l->burstiness == 1.0 ? WC_WORKLOAD_POISSON : WC_WORKLOAD_BURSTY;
	else if (l && rc->m.workload != WC_WORKLOAD_REPLAY && l->concurrency > 0)
		row->run.workload = WC_WORKLOAD_CLOSED;
	/* A replica's arrivals are its share of the server's, a share the
	 * manifests do not state: the server's rate and burstiness are no
	 * replica's (docs/formats/telemetry.md, "Data-parallel engines"). */
	if (rc->replica)
		row->request_rate = row->burstiness = NAN;
}

/* The row's facts before any measurement: the window, what the run is
 * (from its manifests) and how its idle power and n(t) were found. */
static void
row_facts(const run_ctx *rc, const wc_ingest_options *opt, int w, int seg, double a, double b,
          wc_ingest_row *row)
{
	memset(row, 0, sizeof *row);
	wc_run_init(&row->run);
	wc_trace_metrics_init(&row->metrics);
	row->start_epoch = a;
	row->end_epoch = b;
	row->requests = row->iterations = NAN;
	row->energy_per_request_j = row->energy_per_iteration_j = NAN;
	row->ttft_s = row->itl_s = NAN;
	row->prefill_energy_j = row->decode_energy_j = row->idle_energy_j = NAN;
	row->bad_lines = rc->bad_lines;
	row->n_gpus = rc->pt->info.n_gpus;
	memcpy(row->idle_gpu_w, rc->idle_gpu, sizeof row->idle_gpu_w);
	snprintf(row->idle_source, sizeof row->idle_source, "%s", rc->idle_source);
	snprintf(row->n_source, sizeof row->n_source, "%s", rc->n_source);
	snprintf(row->dir, sizeof row->dir, "%s", rc->dir);

	wc_run *run = &row->run;
	row_id(rc, opt, w, seg, run->run_id, sizeof run->run_id);
	snprintf(row->window, sizeof row->window, "%s",
	         rc->windows[w].level >= 0 ? "level" : "log");
	if (rc->windows[w].level >= 0)
		snprintf(row->level_label, sizeof row->level_label, "%s",
		         rc->m.levels[rc->windows[w].level].label);
	snprintf(run->platform, sizeof run->platform, "%s", rc->m.platform);
	run->tp = rc->m.tp;
	snprintf(run->model, sizeof run->model, "%s", rc->m.model);
	run->active_params_b = rc->m.active_params_b;
	run->total_params_b = rc->m.total_params_b;
	run->architecture = rc->m.architecture;
	/* unstated, the name's suffix says them ("Qwen/Qwen3-8B-FP8"), as
	 * predict reads it: a row written bf16 was fitted as bf16 */
	run->weights = rc->m.weights >= 0 ? (wc_precision)rc->m.weights
	                                  : wc_model_name_run_weights(rc->m.model, WC_PREC_BF16);
	run->kv = rc->m.kv >= 0 ? (wc_precision)rc->m.kv : WC_PREC_BF16;
	run->sm_clock_mhz = isfinite(rc->m.sm_clock_mhz) ? rc->m.sm_clock_mhz : 0.0;
	row_load(rc, w, row);
}

/* Power metrics of the cut trace, the mean and the idle power per GPU. */
static int
row_power(const run_ctx *rc, double a, double b, const double *ct, const double *cp, size_t cn,
          size_t s0, size_t ns, wc_ingest_row *row, wc_error *err)
{
	wc_run *run = &row->run;
	int r;
	if ((r = wc_trace_metrics_compute_span(ct, cp, cn, s0, ns, &row->metrics, err)) != WC_OK)
		return r;
	run->mean_power_w = row->metrics.mean_w;
	if (!isfinite(run->mean_power_w))
		return wc_error_set_path(err, WC_EINVAL, rc->dir,
		                         ": the window %.3f-%.3f holds fewer than two power samples "
		                         "(segment too short?)", a, b);
	double idle_sum = 0.0;
	for (int g = 0; g < row->n_gpus; g++)
		idle_sum += rc->idle_gpu[g];
	run->idle_power_w = idle_sum / row->n_gpus; /* NaN if any GPU's is unknown */
	return WC_OK;
}

/* n(t) over the window's grid points (the end point only in the last
 * window) and its mean. */
static int
row_series(const run_ctx *rc, double a, double b, int last, wc_ingest_row *row, wc_error *err)
{
	const double dt = WC_INGEST_GRID_S;
	size_t k0 = (size_t)ceil((a - rc->t0) / dt - 1e-9), k1 = k0;
	while (k1 < rc->ngrid && rc->t0 + (double)k1 * dt < b - 1e-9)
		k1++;
	if (last && k1 < rc->ngrid && rc->t0 + (double)k1 * dt <= b + 1e-9)
		k1++;
	if (k1 <= k0 || rc->power_only) {
		if (rc->power_only)
			row->run.running = NAN;
		return WC_OK;
	}
	row->series_len = k1 - k0;
	row->series_t = wc_alloc_array(row->series_len, sizeof(double));
	row->series_running = wc_alloc_array(row->series_len, sizeof(double));
	if (!row->series_t || !row->series_running)
		return wc_error_set_path(err, WC_ENOMEM, rc->dir, ": out of memory");
	double sum = 0.0;
	for (size_t k = k0; k < k1; k++) {
		row->series_t[k - k0] = rc->t0 + (double)k * dt - a;
		row->series_running[k - k0] = rc->grid_n[k];
		sum += rc->grid_n[k];
	}
	row->run.running = sum / (double)row->series_len;
	return WC_OK;
}

/* Median of the first n values (sorted in place); NaN when n is 0. */
/* Median time to first token and inter-token latency of the requests
 * completed in [a, b] that have a first-token time: what the capacity
 * model's prefill and decode step are fitted on (docs/capacity.md). */
static void
request_latencies(const run_ctx *rc, const wc__ingest_reqs *reqs, double a, double b, int last, wc_ingest_row *row)
{
	size_t n = reqs->n, nt = 0, ni = 0;
	double *ttft = wc_alloc_array(n ? n : 1, sizeof *ttft), *itl = wc_alloc_array(n ? n : 1, sizeof *itl);
	for (size_t k = 0; ttft && itl && k < n; k++) {
		size_t i = wc__ingest_req_at(reqs, k);
		double c = wc_trace_request_end(rc->req, i), f = rc->req->first_token[i], s = rc->req->arrival[i];
		double out = rc->req->output_tokens[i];
		if (!(isnan(c) || wc_trace_in_window(c, a, b, last)) || !isfinite(f) || !(f >= s))
			continue;
		ttft[nt++] = f - s;
		if (isfinite(out) && out > 1 && c >= f)
			itl[ni++] = (c - f) / (out - 1);
	}
	if (ttft && itl) {
		row->ttft_s = wc_stats_median(ttft, nt);
		row->itl_s = wc_stats_median(itl, ni);
	}
	free(ttft);
	free(itl);
}

/* A count some requests of a log with the column lack: the mean is over
 * those that have it, which is said with the subset; without every
 * output count and no engine counter, there is no output-token total
 * (docs/formats/telemetry.md, "Request logs"). */
static void
warn_subset(const run_ctx *rc, const wc_ingest_options *opt, const wc_ingest_row *row, const char *what,
            size_t missing_in_log, double have, double cnt, int total_known)
{
	if (!opt->warn || missing_in_log == 0 || have >= cnt)
		return;
	char msg[WC_ERROR_MSG_MAX], mean[64] = "left blank";
	if (have > 0)
		snprintf(mean, sizeof mean, "its mean is over the other %.0f", have);
	wc_error_format_path(msg, sizeof msg, rc->req_path, ": run %s: %.0f of the row's %.0f requests have no %s: %s%s",
	         row->run.run_id, cnt - have, cnt, what, mean,
	         total_known ? "" : "; no output-token total, so energy per token is blank");
	opt->warn(msg, opt->warn_payload);
}

/* The share of request i's lifetime [arrival, completion] inside [a, b]:
 * 1 for one wholly inside, the fraction inside for one running across an
 * end, so that a window's count and its energy and tokens cover the same
 * work and segments' counts add up (docs/formats/telemetry.md, "What
 * ingest derives", Requests). A request of no duration, or one the log
 * cannot place, counts where it completes (the end in the last window). */
static double
request_share(const wc_request_log *log, size_t i, double a, double b, int last, int placed)
{
	double s = log->arrival[i], c = wc_trace_request_end(log, i);
	if (placed && c > s)
		return wc_trace_lifetime_share(s, c, a, b);
	return isnan(c) || wc_trace_in_window(c, a, b, last) ? 1.0 : 0.0;
}

/* Requests in the window and their mean token counts: with a log placing
 * every request, each counts by its share inside the window and the mean
 * output is the window's output tokens per request; else the requests
 * completed in it (at its end only in the last window). Their output
 * tokens stand in for a missing engine counter when every request has
 * its count. */
static void
count_requests(const run_ctx *rc, const wc_ingest_options *opt, const wc__ingest_reqs *reqs, double a, double b,
               int last, wc_ingest_row *row, double *out_tok)
{
	wc_run *run = &row->run;
	double cnt = 0, in_sum = 0, out_sum = 0, in_n = 0, out_n = 0;
	double seen = 0, seen_in = 0, seen_out = 0;
	for (size_t k = 0; k < reqs->n; k++) {
		size_t i = wc__ingest_req_at(reqs, k);
		double w = request_share(rc->req, i, a, b, last, reqs->placed);
		if (!(w > 0))
			continue;
		cnt += w;
		seen++;
		if (isfinite(rc->req->input_tokens[i])) {
			in_sum += w * rc->req->input_tokens[i];
			in_n += w;
			seen_in++;
		}
		if (isfinite(rc->req->output_tokens[i])) {
			out_sum += w * rc->req->output_tokens[i];
			out_n += w;
			seen_out++;
		}
	}
	row->requests = cnt;
	if (in_n > 0)
		run->input_tokens = in_sum / in_n;
	if (reqs->placed && reqs->tokens_from_log && cnt > 0)
		run->output_tokens = *out_tok / cnt;
	else if (out_n > 0)
		run->output_tokens = out_sum / out_n;
	warn_subset(rc, opt, row, "input_tokens", rc->req->missing_input, seen_in, seen, 1);
	warn_subset(rc, opt, row, "output_tokens", rc->req->missing_output, seen_out, seen, !isnan(*out_tok));
	if (isnan(*out_tok) && seen_out == seen && seen > 0)
		*out_tok = out_sum;
}

void
wc__ingest_warn_crossing(const run_ctx *rc, const wc_ingest_options *opt, int w)
{
	/* Only where count_requests counts (row_counts), and over the whole
	 * window: its segments would say it for nearly every segment, and
	 * only the window's ends are what the warning is about. */
	if (!opt->warn || !rc->req || rc->log_accounts == 0 || !wc_trace_requests_placed(rc->req))
		return;
	const double a = rc->windows[w].a, b = rc->windows[w].b;
	const int last = wc__ingest_end_included(rc, w, b);
	double cnt = 0, crossing = 0;
	for (size_t i = 0; i < rc->req->n; i++) {
		double share = request_share(rc->req, i, a, b, last, 1);
		cnt += share;
		crossing += share > 0 && share < 1.0;
	}
	if (crossing > 0) {
		char msg[WC_ERROR_MSG_MAX], id[sizeof ((wc_run *)0)->run_id];
		wc_ingest_options whole = *opt;
		whole.segment_s = 0; /* the run's (or level's) id, no "#seg" */
		row_id(rc, &whole, w, 0, id, sizeof id);
		wc_error_format_path(msg, sizeof msg, rc->req_path, ": run %s: requests: %.0f crossing the window's "
		                     "ends counted by their share inside it (%.3f requests in all)", id, crossing, cnt);
		opt->warn(msg, opt->warn_payload);
	}
}

wc__ingest_stated
wc__ingest_stated_of(const run_ctx *rc, int w)
{
	const int l = rc->windows[w].level;
	if (l < 0)
		return (wc__ingest_stated){ rc->m.requests, NAN, NAN };
	const wc_run_level *lv = &rc->m.levels[l];
	return (wc__ingest_stated){ lv->requests, lv->input_tokens, lv->output_tokens };
}

/* Counts: requests completed in the window, tokens and iterations from
 * the engine's counters; the output tokens into *out (NaN if unknown).
 * WC_OK, or the refusal of a stated total the log's requests cannot hold. */
static int
row_counts(const run_ctx *rc, const wc_ingest_options *opt, const wc__ingest_reqs *reqs, int w, double a,
           double b, int last, int whole, wc_ingest_row *row, double *out, wc_error *err)
{
	wc_run *run = &row->run;
	/* Tokens and energy over the same window: the request log's when it
	 * has every request's ramp, else the counter's, whose window was cut
	 * where the engine log stops while work runs (ingest_windows.c). */
	const int by_log = reqs->tokens_from_log;
	double out_tok = by_log ? log_tokens(rc->req, reqs, a, b, last)
	                        : wc__ingest_counter_delta(rc, WC_ENG_GENERATION_TOKENS, a, b);
	double in_tok = wc__ingest_counter_delta(rc, WC_ENG_PROMPT_TOKENS, a, b), n_a, n_b;
	/* A counter that counts a request's tokens when it finishes gives
	 * a window with requests at its ends those of the requests completed
	 * in it: left blank but over the run's whole window, which keeps its
	 * total with a warning (docs/formats/telemetry.md, "engine.csv"). */
	const int ends = wc__ingest_at_end_ends(rc, a, b, &n_a, &n_b);
	const int run_row = rc->windows[w].level < 0 && a == rc->windows[w].a && b == rc->windows[w].b;
	if (ends && !run_row) {
		if (!by_log && rc->eng->at_end[WC_ENG_GENERATION_TOKENS])
			out_tok = NAN;
		if (rc->eng->at_end[WC_ENG_PROMPT_TOKENS])
			in_tok = NAN;
	}
	/* Steps the engine log did not see are unknown, not none. */
	row->iterations = by_log && wc__ingest_engine_misses_work(rc, a, b)
	                  ? NAN : wc__ingest_counter_delta(rc, WC_ENG_ITERATIONS, a, b);
	/* The load generator's counts hold for a whole level (or a whole run
	 * without levels) only. */
	const wc__ingest_stated given = wc__ingest_stated_of(rc, w);
	const double in_cnt = in_tok, out_cnt = out_tok; /* before a stated total stands in */
	/* what gave the counted totals, named where a stated one differs */
	const char *log = rc->req ? wc__ingest_req_name(rc) : NULL, *counters = "engine.csv's counters";
	if (rc->req && rc->log_accounts == 0) {
		/* A log leaving out work the engine did misses requests too: its
		 * count, means and latencies are not the load's, and engine.csv
		 * counts no completed requests, so they stay blank
		 * (docs/formats/telemetry.md, "Whole logs"). */
	} else if (rc->req) {
		count_requests(rc, opt, reqs, a, b, last, row, &out_tok);
		request_latencies(rc, reqs, a, b, last, row);
		/* A log that cannot place every request counts those completed
		 * in the row: one running at a cut completes after it, so the
		 * count leaves it out while the energy holds its share; blank
		 * then (docs/formats/telemetry.md, "What ingest derives",
		 * Requests). A placing log counts shares, as at any end. */
		if (!reqs->placed && wc__ingest_row_reaches_cut(rc, w, a, b)) {
			row->requests = NAN;
			run->input_tokens = run->output_tokens = NAN;
		}
	} else if (whole && isfinite(given.requests)) {
		/* counters of a log that dropped rows may miss work: a stated
		 * total stands (wc__ingest_counters_dropped, the one rule) */
		const int dropped = wc__ingest_counters_dropped(rc) > 0;
		row->requests = given.requests;
		if (isnan(in_tok) || (dropped && isfinite(given.input_tokens)))
			in_tok = given.input_tokens;
		if (isnan(out_tok) || (dropped && isfinite(given.output_tokens)))
			out_tok = given.output_tokens;
		if (row->requests > 0) {
			run->input_tokens = in_tok / row->requests;
			run->output_tokens = out_tok / row->requests;
		}
	}
	*out = out_tok;
	/* a stated total the log's requests cannot hold, or the counted
	 * contradict (trace/ingest_stated.c) */
	if (whole && rc->req && wc__ingest_check_stated(rc, w, row->requests, err) != WC_OK)
		return WC_EPARSE;
	if (whole)
		wc__ingest_warn_stated(rc, opt, w, rc->req ? run->input_tokens * row->requests : in_cnt,
		                       rc->req ? out_tok : out_cnt, log ? log : counters,
		                       log && (by_log || isnan(out_cnt)) ? log : counters);
	if (ends && run_row && !by_log && rc->eng->at_end[WC_ENG_GENERATION_TOKENS])
		wc__ingest_warn_at_end(rc, opt, row, n_a, n_b);
	return WC_OK;
}

/* Throughput and the energies per token, request and iteration. */
static void
row_per_unit(wc_ingest_row *row, double a, double b, double out_tok)
{
	wc_run *run = &row->run;
	double dur = b - a, e = row->metrics.energy_j;
	if (isfinite(out_tok) && dur > 0)
		run->throughput_tok_s = out_tok / dur;
	if (out_tok > 0)
		run->energy_per_token_j = e / out_tok;
	if (row->requests > 0)
		row->energy_per_request_j = e / row->requests;
	if (row->iterations > 0)
		row->energy_per_iteration_j = e / row->iterations;
}

int
wc__ingest_make_row(const run_ctx *rc, const wc_ingest_options *opt, int w, int seg, double a,
                    double b, int last, int whole, const wc__ingest_reqs *reqs, wc_ingest_row *row,
                    wc_error *err)
{
	double *ct = NULL, *cp = NULL;
	size_t cn = 0, s0 = 0, ns = 0;
	int r;
	wc__ingest_reqs all;
	if (!reqs) {
		wc__ingest_reqs_all(rc, &all);
		reqs = &all;
	}
	row_facts(rc, opt, w, seg, a, b, row);
	if ((r = cut_trace(rc, a, b, last, &ct, &cp, &cn, &s0, &ns, err)) != WC_OK)
		return r;
	if ((r = row_power(rc, a, b, ct, cp, cn, s0, ns, row, err)) != WC_OK)
		goto done;
	char why[200];
	if (wc_run_power_under_floor(&row->run, why, sizeof why)) {
		r = wc_error_set_path(err, WC_EINVAL, rc->power_path, ": %s: run %s: %s", rc->pt->info.power_column,
		                      row->run.run_id, why);
		goto done;
	}
	if (opt->warn && wc_run_power_over_board(&row->run, row->metrics.p95_w, why, sizeof why)) {
		char msg[WC_ERROR_MSG_MAX];
		wc_error_format_path(msg, sizeof msg, rc->dir, ": run %s: %s", row->run.run_id, why);
		opt->warn(msg, opt->warn_payload);
	}
	if ((r = row_series(rc, a, b, last, row, err)) != WC_OK)
		goto done;
	double out_tok;
	if ((r = row_counts(rc, opt, reqs, w, a, b, last, whole, row, &out_tok, err)) != WC_OK)
		goto done;
	row_per_unit(row, a, b, out_tok);
	/* Best effort: out of memory here leaves the phases blank. */
	wc__ingest_phases(rc, reqs, a, ct, cp, cn, row);
	r = WC_OK;
done:
	free(ct);
	free(cp);
	if (r != WC_OK)
		wc__ingest_row_free(row);
	return r;
}
