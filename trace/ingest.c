/*
 * `wattcast ingest`: one measured run folder -> runs-table rows with the
 * grid-facing trace metrics (docs/formats/telemetry.md).
 *
 * The power log fixes the run's window (its first to last sample, epoch
 * after converting local time with the manifest's UTC offset). n(t) comes
 * from the engine's num_requests_running, held between samples, or, when
 * there is no engine log, from the per-request log; either way on a 50 ms
 * grid from the window start. Idle power is per GPU over the whole run
 * (trace/idle_power.c). A row is the whole window, or with
 * segments, consecutive pieces of it cut exactly (the trace is
 * interpolated at the cuts, so segment energies add up to the run's).
 * Cumulative engine counters are interpolated at the window ends. Energy
 * is split into prefill, decode and idle as TokenPowerBench does: per
 * 50 ms cell, prefill when any request awaits its first token, else
 * decode when any is generating, else idle (from request first-token
 * times), or, with engine counters only, idle when nothing runs and the
 * rest in the ratio of the prefill and decode time sums.
 */
#include "ingest_internal.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/catalog.h"
#include "models/grow.h"
#include "trace/idle.h"

void
wc__ingest_row_free(wc_ingest_row *r)
{
	free(r->series_t);
	free(r->series_running);
	r->series_t = r->series_running = NULL;
}

void
wc_ingest_options_init(wc_ingest_options *o)
{
	memset(o, 0, sizeof *o);
	wc_run_manifest_init(&o->defaults);
	o->max_bad_fraction = WC_TELEMETRY_MAX_BAD;
	o->max_warnings = 20;
}

void
wc_ingest_result_clear(wc_ingest_result *res)
{
	for (size_t i = 0; i < res->n_rows; i++)
		wc__ingest_row_free(&res->rows[i]);
	free(res->rows);
	memset(res, 0, sizeof *res);
}

static int
reserve(wc_ingest_result *res, size_t more)
{
	if (more > SIZE_MAX - res->n_rows)
		return -1;
	wc_ingest_row *nr = wc_grow(res->rows, &res->cap, res->n_rows + more, sizeof *nr, 16);
	if (!nr)
		return -1;
	res->rows = nr;
	return 0;
}

/* Segments of a window of `span` seconds: one, or pieces of `seg`
 * seconds (a remainder under half a segment joins the last one). */
static size_t
segments(double span, double seg)
{
	size_t nseg = 1;
	if (seg > 0 && span > seg) {
		nseg = (size_t)floor(span / seg);
		if (span - (double)nseg * seg >= 0.5 * seg)
			nseg++;
	}
	return nseg;
}

/* A RUN_DIR given with a trailing '/' named its files
 * "run//requests.json" in every message: the slashes are left off. */
int
wc__ingest_dir_len(const char *dir)
{
	size_t n = strlen(dir);
	while (n > 1 && dir[n - 1] == '/')
		n--;
	return (int)n;
}

void
wc__ingest_locate_files(run_ctx *rc, const char *run_dir)
{
	const int n = wc__ingest_dir_len(run_dir);
	rc->dir = run_dir;
	snprintf(rc->power_path, sizeof rc->power_path, "%.*s/power.csv", n, run_dir);
	snprintf(rc->engine_path, sizeof rc->engine_path, "%.*s/engine.csv", n, run_dir);
	if (!wc__file_exists(rc->engine_path))
		rc->engine_path[0] = '\0';
	snprintf(rc->req_path, sizeof rc->req_path, "%.*s/requests.json", n, run_dir);
	if (!wc__file_exists(rc->req_path)) {
		snprintf(rc->req_path, sizeof rc->req_path, "%.*s/requests.csv", n, run_dir);
		if (!wc__file_exists(rc->req_path))
			rc->req_path[0] = '\0';
	}
}

/* A row more than half of whose span lies in gaps of the power log would
 * be a straight line written as if measured: judged as the whole log is
 * (docs/formats/telemetry.md, "Time gaps"), it is left out with a warning
 * naming it. 1 when left out (the row freed). */
static int
row_in_gaps(const run_ctx *rc, const wc_ingest_options *opt, double a, double b, wc_ingest_row *row)
{
	if (!wc_power_trace_gaps_refuse(rc->pt, a, b))
		return 0;
	if (opt->warn) {
		char msg[WC_ERROR_MSG_MAX];
		wc_error_format_path(msg, sizeof msg, rc->power_path, ": row %s: %.1f of its %.1f s lie in gaps without "
		         "samples (over half interpolated); not written", row->run.run_id,
		         wc_power_trace_gap_s(rc->pt, a, b), b - a);
		opt->warn(msg, opt->warn_payload);
	}
	wc__ingest_row_free(row);
	return 1;
}

/* A segment is a cut of time, as a Prometheus window is, and one can fall
 * where nothing ran (the seconds before a level's first request): below
 * the one idle rule (trace/idle.h) it is written excluded, as fleet
 * ingest writes an idle window, so that `fit` and `calibrate` leave it
 * out, and its energy per token is blank as that window's is (idle power
 * over a few stray tokens; docs/fleet.md, "Rows"; docs/formats/telemetry.md,
 * "What ingest derives"), and so are its energies per request and per
 * iteration, the same idle power over other units of that work; unmarked,
 * `calibrate` refused the table ingest had just written. A level's or
 * run's own row is the load its manifest states and stays as it is.
 * 1 when marked. */
static int
mark_idle(const wc_ingest_options *opt, wc_ingest_row *row)
{
	return opt->segment_s > 0 && wc_trace_idle_row(row->run.running, &row->run.energy_per_token_j,
	                                                 &row->energy_per_request_j, &row->energy_per_iteration_j,
	                                                 row->run.exclude, sizeof row->run.exclude);
}

/* Why a level's stated output-token count stands in for no row: it
 * covers the whole level, and a window cut short or cut into segments is
 * not that (docs/formats/telemetry.md, "What ingest derives", Requests).
 * NULL when no level states a count the rows could have used. */
static const char *
stated_count_unused(const run_ctx *rc, const wc_ingest_options *opt)
{
	for (int w = 0; w < rc->n_windows; w++) {
		const wc__ingest_stated given = wc__ingest_stated_of(rc, w);
		if (rc->windows[w].level < 0 || !isfinite(given.requests) || !isfinite(given.output_tokens))
			continue;
		if (rc->windows[w].cut)
			return "the level's stated count covers the whole level; the window is cut";
		if (segments(rc->windows[w].b - rc->windows[w].a, opt->segment_s) > 1)
			return "the level's stated count covers the whole level, not a segment";
	}
	return NULL;
}

/* Rows whose output tokens no source gives (TGI's engine.csv has no
 * token counter, and no request log or level's token total stands in)
 * have their throughput and energy per token blank, which the table showed only by
 * leaving the columns out: said once a run (docs/formats/telemetry.md,
 * "What ingest derives", Tokens). A level's count was there but covers
 * more than the row: said so, not "no token count" -- a level stating its
 * requests alone gives none (the totals are a manifest's, schema 4 of
 * wattcast-run.json). A power-only run asked for none. */
static void
warn_no_tokens(const run_ctx *rc, const wc_ingest_options *opt, const wc_ingest_row *rows, size_t made)
{
	size_t blank = 0;
	for (size_t i = 0; i < made; i++)
		blank += isnan(rows[i].run.throughput_tok_s);
	if (!opt->warn || blank == 0 || rc->power_only)
		return;
	const char *why = rc->req ? "the request log gives no count" : stated_count_unused(rc, opt);
	if (rc->replica) /* trace/ingest_replica.c */
		why = "a replica reads no request log or level count, the server's";
	else if (!why)
		why = "no request log or token count";
	/* The stack the header's names are of, when one is: TGI exports no
	 * token counter; another stack's log was scraped without it. None
	 * named when the names say none (an SGLang log was blamed on TGI). */
	const wc_engine_info *stack = rc->eng && rc->eng->stack ? wc_engine_lookup(rc->eng->stack) : NULL;
	char engine[128], series[40] = "", whose[WC__REPLICA_WHOSE];
	if (rc->replica) { /* its engine's series (docs/formats/telemetry.md, "Data-parallel engines") */
		const int sgl = stack && strcmp(stack->name, "sglang") == 0;
		snprintf(series, sizeof series, "{%s=\"%d\"}", sgl ? "dp_rank" : "engine", rc->replica - 1);
	}
	wc__ingest_replica_whose(rc, whose, sizeof whose);
	if (!rc->eng)
		snprintf(engine, sizeof engine, "no engine.csv");
	else if (rc->eng->col[WC_ENG_GENERATION_TOKENS] && rc->eng->at_end[WC_ENG_GENERATION_TOKENS])
		/* docs/formats/telemetry.md, "engine.csv" (trace/ingest_at_end.c) */
		snprintf(engine, sizeof engine, "%s counts a request's tokens when it finishes, not over a row "
		         "with requests at its ends", rc->eng->at_end[WC_ENG_GENERATION_TOKENS]);
	else if (rc->eng->col[WC_ENG_GENERATION_TOKENS])
		snprintf(engine, sizeof engine, "engine.csv's generation_tokens_total gives none there");
	else if (stack && strcmp(stack->name, "tgi") == 0)
		snprintf(engine, sizeof engine, "engine.csv has no generation_tokens_total, as TGI's has none");
	else
		snprintf(engine, sizeof engine, "engine.csv%s%s%s has no generation_tokens_total%s", stack ? " (" : "",
		         stack ? stack->label : "", stack ? "'s)" : "", series);
	char msg[WC_ERROR_MSG_MAX];
	wc_error_format_path(msg, sizeof msg, rc->dir, ":%s %zu of %zu rows have no output-token count (%s; %s): "
	                     "throughput_tok_s and energy_per_token_j are blank", whose, blank, made, engine, why);
	opt->warn(msg, opt->warn_payload);
}

/* Every row of the run, into `rows` (at most the caller's count; *made
 * of them). */
static int
make_rows(const run_ctx *rc, const wc_ingest_options *opt, wc_ingest_row *rows, size_t *made,
          wc_error *err)
{
	size_t left_out = 0, idle = 0;
	for (int w = 0; w < rc->n_windows; w++) {
		double a0 = rc->windows[w].a, span = rc->windows[w].b - a0, seg = opt->segment_s;
		size_t nseg = segments(span, seg);
		const wc_ingest_row *whole = NULL;
		wc__ingest_seg_reqs by_seg = { 0 };
		wc__ingest_reqs reqs;
		if (nseg > 1 && wc__ingest_seg_reqs_build(rc, a0, rc->windows[w].b, seg, nseg, &by_seg) != 0)
			return wc_error_set_path(err, WC_ENOMEM, rc->dir, ": out of memory");
		for (size_t s = 0; s < nseg; s++) {
			double a = a0 + (double)s * (seg > 0 ? seg : span);
			double b = s + 1 == nseg ? rc->windows[w].b : a0 + (double)(s + 1) * seg;
			if (nseg > 1)
				wc__ingest_seg_reqs_of(&by_seg, s, &reqs);
			/* Whole: one row over a window no log cut short. */
			int r = wc__ingest_make_row(rc, opt, w, (int)s + 1, a, b,
			                            s + 1 == nseg && wc__ingest_end_included(rc, w, b),
			                            nseg == 1 && !rc->windows[w].cut, nseg > 1 ? &reqs : NULL,
			                            &rows[*made], err);
			if (r != WC_OK) {
				wc__ingest_seg_reqs_free(&by_seg);
				return r;
			}
			if (row_in_gaps(rc, opt, a, b, &rows[*made]))
				left_out++;
			else {
				whole = nseg == 1 ? &rows[*made] : NULL;
				idle += mark_idle(opt, &rows[(*made)++]);
			}
		}
		wc__ingest_seg_reqs_free(&by_seg);
		wc__ingest_warn_crossing(rc, opt, w);
		wc__ingest_warn_idle_ends(rc, opt, w, whole);
	}
	if (idle && opt->warn) {
		char msg[WC_ERROR_MSG_MAX], whose[WC__REPLICA_WHOSE];
		wc_error_format_path(msg, sizeof msg, rc->dir, ":%s %zu of %zu segments idle (mean running below %.1f): "
		                     "excluded as 'idle'", wc__ingest_replica_whose(rc, whose, sizeof whose), idle, *made,
		                     WC_IDLE_RUNNING);
		opt->warn(msg, opt->warn_payload);
	}
	warn_no_tokens(rc, opt, rows, *made);
	if (*made == 0)
		return wc_error_set_path(err, WC_EPARSE, rc->power_path,
		                         ": each of the run's %zu row%s lies more than half in gaps "
		                         "without samples; nothing to write", left_out,
		                         left_out == 1 ? "" : "s");
	return WC_OK;
}

int
wc_ingest_manifest(const char *run_dir, const wc_ingest_options *opt, wc_run_manifest *m, wc_error *err)
{
	run_ctx rc;
	memset(&rc, 0, sizeof rc);
	wc__ingest_locate_files(&rc, run_dir);
	int r = wc__ingest_load_manifests(&rc, opt, err);
	*m = rc.m;
	return r;
}

/* One run, or one data-parallel replica of it (replica = 1 + its number,
 * trace/ingest_replica.c): its rows appended to res. */
static int
ingest_one(const char *run_dir, const wc_ingest_options *opt, int replica, wc_ingest_result *res,
           wc_error *err)
{
	run_ctx rc;
	wc_ingest_row *rows = NULL;
	size_t nrows = 0, total = 0;
	int r;
	memset(&rc, 0, sizeof rc);
	wc__ingest_locate_files(&rc, run_dir);
	if (opt->power_only) {
		rc.power_only = 1;
		rc.engine_path[0] = rc.req_path[0] = '\0';
	}
	if (!wc__file_exists(rc.power_path))
		return wc_error_set_path(err, WC_ENOTFOUND, run_dir, ": no power.csv");
	if ((r = wc__ingest_load_manifests(&rc, opt, err)) != WC_OK)
		goto done;
	rc.replica = replica;
	if (replica && (r = wc__ingest_replica_setup(&rc, opt, err)) != WC_OK)
		goto done;
	if (replica <= 1)
		wc__ingest_warn_platform(&rc, opt);
	if ((r = wc__ingest_read_files(&rc, opt, err)) != WC_OK ||
	    (r = wc__ingest_check_alignment(&rc, err)) != WC_OK ||
	    (r = wc__ingest_build_load(&rc, err)) != WC_OK || (r = wc__ingest_windows(&rc, opt, err)) != WC_OK ||
	    (r = wc__ingest_check_idle_window(&rc, err)) != WC_OK)
		goto done;
	wc__ingest_idle(&rc, opt);
	for (int w = 0; w < rc.n_windows; w++)
		total += segments(rc.windows[w].b - rc.windows[w].a, opt->segment_s);
	rows = wc_alloc_zeroed(total, sizeof *rows);
	if (!rows || reserve(res, total) != 0) {
		r = wc_error_set_path(err, WC_ENOMEM, run_dir, ": out of memory");
		goto done;
	}
	if ((r = make_rows(&rc, opt, rows, &nrows, err)) != WC_OK)
		goto done;
	/* All rows made: hand them over (capacity was reserved). */
	memcpy(res->rows + res->n_rows, rows, nrows * sizeof *rows);
	res->n_rows += nrows;
	nrows = 0;
	r = WC_OK;
done:
	/* Refused: the rows made so far go; `res` never saw them. */
	for (size_t i = 0; i < nrows; i++)
		wc__ingest_row_free(&rows[i]);
	free(rows);
	wc_power_trace_free(rc.pt);
	wc_engine_free(rc.eng);
	wc_request_log_free(rc.req);
	free(rc.grid_n);
	free(rc.quiet);
	return r;
}

int
wc_ingest_run(const char *run_dir, const wc_ingest_options *opt, wc_ingest_result *res,
              wc_error *err)
{
	wc_run_manifest m;
	wc_ingest_options quiet = *opt; /* its warnings come with the read */
	int r;
	quiet.warn = NULL;
	if ((r = wc_ingest_manifest(run_dir, &quiet, &m, err)) == WC_OK && m.data_parallel > 1) {
		/* One row set per replica (docs/formats/telemetry.md,
		 * "Data-parallel engines"); refused whole if one is. */
		size_t before = res->n_rows;
		for (int d = 0; d < m.data_parallel; d++)
			if ((r = ingest_one(run_dir, opt, d + 1, res, err)) != WC_OK) {
				while (res->n_rows > before)
					wc__ingest_row_free(&res->rows[--res->n_rows]);
				return r;
			}
		return WC_OK;
	}
	return ingest_one(run_dir, opt, 0, res, err);
}
