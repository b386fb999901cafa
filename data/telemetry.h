/*
 * Readers of what users measure with (docs/formats/telemetry.md):
 * nvidia-smi power logs, vLLM engine counters and per-request logs.
 * Objects returned through `**out` are freed with their type's _free.
 */
#ifndef WC_DATA_TELEMETRY_H
#define WC_DATA_TELEMETRY_H

#include <stddef.h>

#include "models/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Readers for what users measure with (nvidia-smi power logs, vLLM engine
 * counters, per-request logs, run manifests) and `wattcast ingest`, which
 * turns run folders into runs-table rows (SPEC §7) with the trace metrics
 * of SPEC §4. The CSV readers stream: one fixed line buffer, lines longer
 * than WC_TELEMETRY_LINE_MAX are malformed. A malformed line is reported as
 * "file:line: reason" through the warn callback and skipped; more than
 * `max_bad_fraction` of bad data lines refuses the file. Times are Unix
 * epoch seconds after conversion. */

#define WC_TELEMETRY_MAX_GPUS 64
#define WC_TELEMETRY_LINE_MAX 4096
/** Default share of malformed data lines above which a file is refused. */
#define WC_TELEMETRY_MAX_BAD 0.01
/** Rows of one nvidia-smi sweep (all GPUs at one sample) whose timestamps
 *  lie further apart than this start a new sample; below the 50 ms
 *  shortest logging interval. */
#define WC_NVSMI_SWEEP_TOL_S 0.04

/** Receives one warning line (no newline), e.g. "power.csv:17: ...". */
typedef void (*wc_warn_fn)(const char *msg, void *payload);

/** Options shared by the telemetry readers. */
typedef struct {
	/* nvidia-smi timestamps are local wall time: epoch = local time read
	 * as UTC - utc_offset_s (e.g. -25200 for UTC-7). 0 = already UTC. */
	double utc_offset_s;
	/* Added to every converted timestamp (a manifest's clock correction:
	 * power_epoch_offset_s / engine_epoch_offset_s). */
	double epoch_offset_s;
	/* nvidia-smi: GPUs expected per sample; 0 = as found. Needed only when
	 * the file has neither `index` nor `uuid` and the rows of one sample
	 * do not share a timestamp. */
	int n_gpus;
	/* nvidia-smi: keep only these GPUs, in this order (needs a `uuid`
	 * column; ignored without one). Borrowed. NULL = every GPU. */
	const char *const *gpu_uuids;
	size_t n_gpu_uuids;
	double max_bad_fraction;   /* WC_TELEMETRY_MAX_BAD */
	int max_warnings;          /* per file; the rest are only counted */
	wc_warn_fn warn;           /* NULL = silent */
	void *warn_payload;
} wc_telemetry_options;

#define WC_TELEMETRY_OPTIONS_INIT { 0.0, 0.0, 0, NULL, 0, WC_TELEMETRY_MAX_BAD, 20, NULL, NULL }

/* ---- nvidia-smi --query-gpu=... --format=csv[,nounits] */

/** What a read found. */
typedef struct {
	int n_gpus;
	int index[WC_TELEMETRY_MAX_GPUS];        /* nvidia-smi index, -1 if none */
	char uuid[WC_TELEMETRY_MAX_GPUS][48];    /* "" if no uuid column */
	int has_index, has_uuid, has_units;      /* header facts */
	size_t data_lines;                       /* non-blank lines after the header */
	size_t bad_lines;                        /* malformed, skipped */
	size_t samples;                          /* complete samples delivered */
	size_t dropped_samples;                  /* incomplete because of a bad line */
	double t_first, t_last;                  /* epoch s of the first/last sample */
} wc_nvsmi_info;

/** Called once per complete sample, in time order (strictly increasing
 *  t): `power_w[g]` is GPU g's power.draw in W. Non-zero stops the read
 *  (the read returns WC_EINVAL unless the callback set `err` itself). */
typedef int (*wc_nvsmi_sample_fn)(double t, const double *power_w, int n_gpus, void *payload);

/** Stream an nvidia-smi CSV ("-" = stdin). The header may carry units
 *  (`power.draw [W]`) or not (nounits); columns in any order and subset
 *  as long as `timestamp` and `power.draw` (or `power.draw.instant` /
 *  `.average`) are there. GPUs are told apart by `index`, else `uuid`,
 *  else by position (rows cycle through the GPUs). `[N/A]`, `[Not
 *  Supported]` and blank fields are missing values: a line without a power
 *  reading is a bad line. A sample lacking a GPU is refused (WC_EPARSE,
 *  "file:line: GPU ... missing ...") unless a bad line explains it; the
 *  bad-line share is checked at the end, so a caller must discard what it
 *  received when the read fails. Memory is fixed: one 1 MiB block buffer. */
int wc_nvsmi_read(const char *path, const wc_telemetry_options *opt,
                  wc_nvsmi_sample_fn on_sample, void *payload, wc_nvsmi_info *info,
                  wc_error *err);

/** A whole power trace in memory: per-GPU series and their sum. */
typedef struct {
	wc_nvsmi_info info;
	size_t n;                                /* samples */
	double *t;                               /* n epoch seconds */
	double *power[WC_TELEMETRY_MAX_GPUS];    /* info.n_gpus arrays of n, W */
	double *group;                           /* n sums over the GPUs, W */
} wc_power_trace;

/** Read a trace into memory (at most `max_samples` samples, 0 = 2^26;
 *  more is WC_ERANGE). Caller frees with wc_power_trace_free. */
int wc_power_trace_read(const char *path, const wc_telemetry_options *opt, size_t max_samples,
                        wc_power_trace **out, wc_error *err);
void wc_power_trace_free(wc_power_trace *pt);

/** Parse an nvidia-smi timestamp "YYYY/MM/DD HH:MM:SS[.fff]" (also '-'
 *  for '/' and 'T' for ' ') as UTC seconds since the epoch. */
int wc_nvsmi_parse_time(const char *s, size_t len, double *out);

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
/** Cumulative counters (prompt tokens ... preemptions) are interpolated
 *  linearly; gauges (running, waiting, cache) are held. */
int wc_engine_column_is_counter(wc_engine_column c);

typedef struct {
	size_t n;
	double *t;                     /* n epoch seconds, increasing */
	double *col[WC_ENG_COLUMNS];   /* n values each; NULL when absent.
	                                * Counters are made monotone across
	                                * resets (a drop adds the last value). */
	size_t data_lines, bad_lines;
} wc_engine_log;

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

/* ---- per-request logs */

typedef struct {
	size_t n;
	double *arrival;         /* epoch s */
	double *first_token;     /* epoch s; NaN when unknown */
	double *completion;      /* epoch s */
	double *input_tokens;    /* NaN when unknown */
	double *output_tokens;   /* NaN when unknown */
} wc_request_log;

/** Read a per-request log: JSON with parallel arrays (`request_timestamps`
 *  or `arrival_s`, `ttfts`, `itls` (a mean per request, or an array of
 *  gaps), `output_lens`, `input_lens`, optional `e2els`), as the
 *  powertrace-sim / vLLM benchmark_serving detail files; or CSV with
 *  columns `arrival_s`, `completion_s`, optional `first_token_s`,
 *  `input_tokens`, `output_tokens` (epoch seconds). Completion = arrival +
 *  e2el, else arrival + ttft + sum(itls) (or itl*(output_len-1)). Caller
 *  frees with wc_request_log_free. */
int wc_request_log_read(const char *path, const wc_telemetry_options *opt,
                        wc_request_log **out, wc_error *err);
void wc_request_log_free(wc_request_log *log);

#ifdef __cplusplus
}
#endif
#endif
