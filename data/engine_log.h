/*
 * vLLM engine counters: a CSV of a timestamp and Prometheus samples,
 * read whole into a wc_engine_log (freed with wc_engine_free).
 */
#ifndef WC_DATA_ENGINE_LOG_H
#define WC_DATA_ENGINE_LOG_H

#include <stddef.h>

#include "data/telemetry.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- vLLM engine counters (CSV: timestamp + Prometheus sample columns) */

typedef enum {
	WC_ENG_RUNNING = 0,      /* num_requests_running: n(t) */
	WC_ENG_WAITING,          /* num_requests_waiting */
	WC_ENG_CACHE_USAGE,      /* gpu_cache_usage_perc */
	WC_ENG_PROMPT_TOKENS,    /* prompt_tokens_total (cumulative) */
	WC_ENG_GENERATION_TOKENS,/* generation_tokens_total (cumulative) */
	WC_ENG_ITERATION_TOKENS, /* iteration_tokens_total_sum (cumulative) */
	WC_ENG_ITERATIONS,       /* iteration_tokens_total_count (cumulative) */
	WC_ENG_PREFILL_S,        /* request_prefill_time_seconds_sum (cumulative) */
	WC_ENG_DECODE_S,         /* request_decode_time_seconds_sum (cumulative) */
	WC_ENG_PREEMPTIONS,      /* num_preemptions_total (cumulative) */
	WC_ENG_COLUMNS
} wc_engine_column;

/** Column name in the CSV (a "vllm:" prefix is accepted when reading). */
const char *wc_engine_column_name(wc_engine_column c);
/** The k-th name (k from 0) of column c's metric as a stack's exposition
 *  exports it, vLLM's first (`vllm:num_requests_running`), then SGLang's
 *  and TGI's (`sglang:num_running_reqs`, `tgi_batch_current_size`); NULL
 *  past the last. The one table of these names: engine.csv's header takes
 *  them (a `vllm:` or `sglang:` prefix optional) and Prometheus ingest
 *  reads the series so named (trace/fleet.c; docs/fleet.md, "Metrics"). */
const char *wc_engine_column_exported(wc_engine_column c, int k);
/** 1 when the exported metric `name` (a stack's prefixed name, labels
 *  ignored) counts a request's work only when the request finishes, as
 *  SGLang's sglang:prompt_tokens_total and sglang:generation_tokens_total
 *  do: over a window with requests in flight at its ends it holds the
 *  tokens of the requests completed in it, not those generated
 *  (docs/formats/telemetry.md, "engine.csv"). */
int wc_engine_exported_at_end(const char *name);
/** The label (`key="value"`) a series of the exported metric `name` must
 *  carry to be read as its column (SGLang's sglang:realtime_tokens_total
 *  is read for its mode="decode" series alone); NULL when none. */
const char *wc_engine_exported_label(const char *name);
/** 1 when label block `block` (the text inside `{...}`) carries `label`
 *  (`key="value"`, the value compared as written). */
int wc_engine_labels_have(const char *block, const char *label);
/** 1 when `label` is one only an engine's series carry, never a GPU
 *  exporter's: model_name, and the rank and process labels (engine,
 *  dp_rank, tp_rank, pp_rank, moe_ep_rank, pid). */
int wc_engine_label_engines_only(const char *label);
/** Cumulative counters (prompt tokens ... preemptions) are interpolated
 *  linearly; gauges (running, waiting, cache) are held. */
int wc_engine_column_is_counter(wc_engine_column c);

/** Largest value a cumulative counter may hold (tokens, iterations,
 *  seconds): beyond it, or negative, a line is bad. */
#define WC_ENGINE_MAX_COUNTER 1e15

typedef struct {
	size_t n;
	double *t;                     /* n epoch seconds, increasing */
	double *col[WC_ENG_COLUMNS];   /* n values each; NULL when absent.
	                                * Counters are made monotone across
	                                * resets (a drop that stays down adds the
	                                * last value); a row out of line with the
	                                * rows around it is dropped as bad. */
	size_t data_lines, bad_lines;
	size_t bad_counted;            /* bad_lines as the share of bad lines
	                                * counts them, a clock glitch's run once
	                                * (wc__bad_lines_counted) */
	int bad_inside;                /* 1 when every bad line lies between
	                                * two kept rows: the cumulative
	                                * counters lost none of their work
	                                * there (the next kept row counts it) */
	size_t counted_from[WC_ENG_COLUMNS]; /* a counter column counts all
	                                * its work from this row on: 0, or the
	                                * first value's row of a counter that
	                                * started mid-run, having counted unseen
	                                * before it (docs/formats/telemetry.md,
	                                * "Missing cells") */
	size_t unknown_last[WC_ENG_COLUMNS]; /* a counter column counts all
	                                * its work up to row n - 1 - this: 0,
	                                * or the rows after the last value of a
	                                * counter left blank at the log's end,
	                                * unknown there, not held flat
	                                * (docs/formats/telemetry.md, "Missing
	                                * cells") */
	const char *stack;             /* the serving stack whose names the
	                                * header carries ("vllm", "sglang",
	                                * "tgi": wc_engine_info's name); NULL
	                                * when none or several */
	char engine_without[WC_ENG_COLUMNS][64]; /* an engine (its `engine`
	                                * / `dp_rank` labels) a header names
	                                * while column c, every series of it
	                                * labelled, has none of it: the
	                                * engines' sum (cache: mean) is
	                                * unknown, the column read as absent,
	                                * gauge or counter alike; "" none
	                                * (docs/formats/telemetry.md,
	                                * "Missing cells") */
	const char *at_end[WC_ENG_COLUMNS]; /* the exported name of a counter
	                                * read into the column that counts a
	                                * request's work only when it finishes
	                                * (wc_engine_exported_at_end); NULL
	                                * for one that counts it as done */
	int engines;                   /* data-parallel engines (distinct
	                                * `engine` / `dp_rank` labels) of the
	                                * running count in the header: 0 or 1
	                                * one engine; counted before
	                                * opt->engine_only keeps one */
	char running_lacks[48];        /* the first engine another column
	                                * labels that the running count does
	                                * not (whole header); "" none */
} wc_engine_log;

/** Column c's values when its counter counts work as it is done: NULL
 *  when the column is absent or counts a request's work when it finishes
 *  (e->at_end): such a count is no rate over a window shorter than the
 *  requests, nor a curve to place a request log by. */
const double *wc_engine_live(const wc_engine_log *e, wc_engine_column c);
/** Read an engine CSV (CRLF or LF; columns in any order; only `timestamp`
 *  is required). At most `max_rows` rows (0 = 2^24). Caller frees with
 *  wc_engine_free. */
int wc_engine_read(const char *path, const wc_telemetry_options *opt, size_t max_rows,
                   wc_engine_log **out, wc_error *err);
void wc_engine_free(wc_engine_log *e);
/** Value of column `c` at time t: gauges hold the last sample at or
 *  before t (the first sample before it), counters interpolate (clamped
 *  at the ends). NaN when the column is absent or the log is empty. */
double wc_engine_value_at(const wc_engine_log *e, wc_engine_column c, double t);
/** The first row with a value of column `c` (e->n when it has none or is
 *  absent). Before it a gauge is unknown -- wc_engine_value_at gives NaN
 *  there, not 0 -- and a counter stands at its first value: it had not
 *  started (docs/formats/telemetry.md, "Missing cells"). */
size_t wc_engine_first_row(const wc_engine_log *e, wc_engine_column c);

/** How two label blocks of one engine metric (the text inside `{...}`,
 *  `a="x",b="y"`) differ, the one rule of engine.csv's columns and of
 *  Prometheus series (docs/formats/telemetry.md, "engine.csv";
 *  docs/fleet.md, "Grouping"): not at all; only in `engine` or `dp_rank`
 *  (data-parallel engines: their series add up); only in `tp_rank`,
 *  `pp_rank` or `moe_ep_rank` (ranks of one engine repeat its count: one
 *  is read); in both kinds only (another engine's other rank); or in
 *  another label, named in `key` (two servers?). `key` gets the label
 *  that differs. A process label (`pid`) differing beside others is
 *  left out (each rank is a process of its own); differing alone, the
 *  series are one engine's under two processes (PROCESS: a restart when
 *  one follows the other). */
enum { WC_ENGINE_LABELS_SAME, WC_ENGINE_LABELS_SUMMED, WC_ENGINE_LABELS_REPEATED,
       WC_ENGINE_LABELS_SUMMED_RANK, WC_ENGINE_LABELS_OTHER, WC_ENGINE_LABELS_PROCESS };
int wc_engine_labels_compare(const char *a, const char *b, char *key, size_t key_size);
/** 1 when label `name` is a process label (`pid`), no engine's: the
 *  series of one engine differing in it alone are that engine's. */
int wc_engine_labels_process(const char *name);
/** The labels of `block` whose series add up (`engine`, `dp_rank`), as
 *  written and comma-joined: which engine of a server a series is. */
void wc_engine_labels_summed(const char *block, char *out, size_t size);
/** 1 when block `a`'s ranks (`tp_rank`, then `pp_rank`, then
 *  `moe_ep_rank`; compared as numbers, none before any) are below `b`'s:
 *  of repeated series the lowest rank is read. */
int wc_engine_labels_rank_below(const char *a, const char *b);

/** Which per-rank series of one metric are read and added, for engine.csv's
 *  columns and Prometheus series alike (docs/fleet.md, "Grouping"): the
 *  lowest rank of each engine, the engines added up. `read[0..n)` are the
 *  label blocks of the series read so far (one per engine); `block`, the
 *  next one, is ADD (another engine: *which = n), REPLACE (a lower rank of
 *  engine *which: read instead of it), SKIP (the same series, or a higher
 *  rank, of engine *which: not read), JOIN (the series of engine *which
 *  under another process, `pid`: read where that one has no value, as
 *  after a restart) or REFUSE (it differs from read[*which] in another
 *  label, named in `key`: two servers?). */
enum { WC_ENGINE_PLACE_ADD, WC_ENGINE_PLACE_REPLACE, WC_ENGINE_PLACE_SKIP, WC_ENGINE_PLACE_REFUSE,
       WC_ENGINE_PLACE_JOIN };
int wc_engine_labels_place(const char *const *read, size_t n, const char *block, size_t *which, char *key,
                           size_t key_size);

#ifdef __cplusplus
}
#endif
#endif
