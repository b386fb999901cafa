/*
 * data/ — the I/O boundary. Reads and writes the project's files (runs
 * tables, parameter files, telemetry) and turns them into the plain structs
 * of models/. Nothing outside data/ and server/ sees jansson.
 *
 * Ownership: functions named *_read / *_load / *_new return objects the
 * caller frees with the matching *_free; char * results are malloc'd and
 * freed with free(). Lookups return borrowed pointers to static tables.
 * Every writer is atomic: temporary file in the same folder, fsync, rename.
 */
#ifndef WC_DATA_H
#define WC_DATA_H

#include <stddef.h>
#include <stdio.h>

#include "models/models.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------ utilities */

/** SHA-256 (FIPS 180-4) of a buffer / a whole file, as 64 lowercase hex
 *  digits plus NUL. */
void wc_sha256_hex(const void *data, size_t len, char out[65]);
int wc_sha256_file_hex(const char *path, char out[65], wc_error *err);

/** Write `len` bytes to `path` atomically (mkstemp beside it, fsync,
 *  rename, fsync of the folder). On failure the old file is untouched and
 *  no temporary file is left behind. */
int wc_write_file_atomic(const char *path, const void *data, size_t len, wc_error *err);

/** Read a whole file into a malloc'd, NUL-terminated buffer (caller frees).
 *  Files over `max_bytes` are refused. */
int wc_read_file(const char *path, size_t max_bytes, char **out, size_t *len_out,
                 wc_error *err);

/** Current UTC time as YYYY-MM-DDTHH:MM:SSZ. */
void wc_utc_now(char out[24]);

/** Name of a JSON value's type for messages ("object", "number", ...).
 *  Declared on jansson's struct so this header needs no jansson include. */
struct json_t;
const char *wc_json_type_name(const struct json_t *v);

/* ------------------------------------------------------- parameter files */

#define WC_PARAMS_SCHEMA "wattcast.params/1"

/** Parse a parameter file (SPEC §8) into `out` (which the caller later
 *  releases with wc_params_clear). Refuses unknown keys, missing required
 *  keys, wrong types, non-finite numbers and structural errors; the message
 *  starts with `source` and names the JSON path ("/levels/1/s_w/value") or,
 *  for malformed JSON, the line and column. On failure `out` is cleared. */
int wc_params_load_buffer(const char *buf, size_t len, const char *source,
                          wc_params *out, wc_error *err);
int wc_params_load_file(const char *path, wc_params *out, wc_error *err);

/** Serialise to JSON (17 significant digits, so a load gives back the same
 *  doubles). `with_draws` = 0 leaves the bootstrap draws out. Returns a
 *  malloc'd string the caller frees, or NULL with `err` set. */
char *wc_params_dump(const wc_params *p, int with_draws, wc_error *err);
/** Dump with draws and write atomically. */
int wc_params_save_file(const char *path, const wc_params *p, wc_error *err);
/** Version tag: first 16 hex digits of the SHA-256 of the full dump. */
int wc_params_fingerprint(const wc_params *p, char out[17], wc_error *err);

/** A parameter set by name: "paper" is the built-in default profile. */
int wc_params_profile(const char *name, wc_params *out, wc_error *err);

/* --------------------------------------------------------- model catalog */

/** Architecture facts of an open model (from the models' published
 *  configs; see data/model_catalog.c). Zero = unknown. */
typedef struct {
	const char *name;          /* e.g. "Qwen3-8B" */
	const char *architecture;  /* "dense", "moe" or "hybrid" */
	double total_params_b;
	double active_params_b;
	int layers, d_model, attention_heads, kv_heads, head_dim;
	int experts, experts_per_token;
} wc_model_info;

/** Look a model up by name, case-insensitively; an "org/" prefix (Hugging
 *  Face id) and a "-Instruct…" suffix are tolerated. NULL when unknown. */
const wc_model_info *wc_model_lookup(const char *name);
size_t wc_model_count(void);
const wc_model_info *wc_model_at(size_t i);

/* ------------------------------------------------------------ runs table */

/** One run (or run segment) of a runs table (SPEC §7). Numbers that are
 *  blank in the file are NaN (sm_clock_mhz: 0 = not locked). */
typedef struct {
	char run_id[96];
	char platform[WC_NAME_MAX];
	int tp;
	char model[96];
	double active_params_b;
	double total_params_b;     /* optional; NaN = unknown (dense: = active) */
	char architecture[16];     /* optional: dense / moe / hybrid; "" unknown */
	double running;            /* mean running requests; NaN when series-only */
	char n_series[256];        /* path as written in the table, "" if none */
	double *series_running;    /* loaded series: distinct n values ... */
	double *series_weight;     /* ... and the seconds spent at each */
	size_t series_len;
	double mean_power_w;       /* group total (sum over its tp GPUs) */
	double idle_power_w;       /* per GPU; NaN = use the parameters' P0 */
	wc_precision weights, kv;
	double sm_clock_mhz;
	char workload[16];
	double input_tokens, output_tokens, throughput_tok_s, energy_per_token_j;
	char set[48];
	char exclude[128];         /* non-empty = excluded from fits (reason) */
	int line;                  /* line in the source file (1-based) */
} wc_run;

typedef struct {
	char path[512];
	wc_run *runs;
	size_t n_runs;
	/* columns not known to wattcast, kept verbatim so a rewrite keeps them */
	size_t n_extra;
	char **extra_names;        /* n_extra names */
	char **extra_values;       /* n_runs * n_extra values (row-major) */
	char sha256[65];           /* of the file's bytes */
} wc_runs_table;

/** Read a runs table: header row, `#` comments, optional n(t) series files
 *  (`t_s,running`, relative to the table's folder). Errors name
 *  file:line:column and the reason (missing required column, non-numeric
 *  value, tp < 1, active params <= 0, ...). Caller frees with
 *  wc_runs_free. */
int wc_runs_read(const char *path, wc_runs_table **out, wc_error *err);
/** Same, from a buffer; `path` names it in messages and anchors n_series. */
int wc_runs_read_buffer(const char *buf, size_t len, const char *path,
                        wc_runs_table **out, wc_error *err);
/** New empty table (caller appends with wc_runs_append). */
wc_runs_table *wc_runs_new(void);
/** Append a copy of `run` (series arrays are copied). */
int wc_runs_append(wc_runs_table *t, const wc_run *run, wc_error *err);
void wc_runs_free(wc_runs_table *t);
/** A wc_run with every optional number NaN and defaults set. */
void wc_run_init(wc_run *run);
/** Set the extra (non-SPEC) column `column` of row `row` to `value`
 *  (copied); the column is added, blank for other rows, if new. */
int wc_runs_set_extra(wc_runs_table *t, size_t row, const char *column, const char *value,
                      wc_error *err);
/** Value of an extra column for a row, or NULL when the column is absent
 *  (borrowed; valid until the table changes). */
const char *wc_runs_get_extra(const wc_runs_table *t, size_t row, const char *column);
/** Write as CSV (SPEC §7 columns, then extra columns) atomically. A
 *  `comment` (may contain newlines) is written first as `#` lines. */
int wc_runs_write(const char *path, const wc_runs_table *t, const char *comment,
                  wc_error *err);
/** Read an n(t) series file `t_s,running` into distinct values + seconds
 *  (malloc'd arrays the caller frees). */
int wc_series_read(const char *path, double **running, double **weight,
                   size_t *len, wc_error *err);

/* --------------------------------------------------------------- imports */

/** Convert the ML.ENERGY Leaderboard v3 configuration table (columns as
 *  published: task, model_id, gpu_model, num_gpus, avg_batch_size,
 *  avg_power_watts, ...) into a runs table: one row per configuration,
 *  tp = num_gpus (the GPUs summed in avg_power_watts), running =
 *  avg_batch_size, weights from weight_precision (bfloat16 -> bf16, fp8,
 *  mxfp4 -> int4: 4-bit weights), set = task; the source's other columns
 *  are kept as extras. No idle power is published: P0 comes from the
 *  fit's prior or is fitted. Caller frees `*out`. */
int wc_import_mlenergy(const char *path, wc_runs_table **out, wc_error *err);
/** Read any CSV as a runs table after renaming its header columns
 *  (`src[i]` becomes `dst[i]`); unmapped columns stay as extras. Errors
 *  keep the source file's line and column. Caller frees `*out`. */
int wc_import_csv(const char *path, const char *const *src, const char *const *dst, int n_map,
                  wc_runs_table **out, wc_error *err);

/* ----- telemetry and ingest ----- */

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
/** n(t) on a grid: out[k] = requests with arrival <= t0 + k*dt < completion. */
void wc_request_log_running(const wc_request_log *log, double t0, double dt, size_t n,
                            double *out);

/* ---- run manifests */

/** What is known about one run. Unknown: "" / NaN / 0 (tp) / -1. */
typedef struct {
	char run_id[96];
	char platform[WC_NAME_MAX];
	int tp;
	char model[96];
	double active_params_b, total_params_b;
	char architecture[16];
	int weights, kv;                 /* wc_precision, -1 unknown */
	double sm_clock_mhz;             /* NaN unknown, 0 not locked */
	char workload[16];               /* closed / poisson / bursty / replay */
	double request_rate, burstiness; /* open-loop load, NaN unknown */
	double concurrency;              /* closed loop, NaN unknown */
	double utc_offset_s;             /* power clock; NaN unknown */
	double power_epoch_offset_s, engine_epoch_offset_s; /* 0 default */
	double idle_start, idle_end;     /* idle window, epoch s; NaN none */
	double requests;                 /* completed requests, NaN unknown */
	int n_gpu_uuids;
	char gpu_uuids[WC_TELEMETRY_MAX_GPUS][48];
	char format[24];                 /* "powertrace-sim", "wattcast.run/1", "" */
} wc_run_manifest;

#define WC_RUN_MANIFEST_SCHEMA "wattcast.run/1"

/** Everything unknown. */
void wc_run_manifest_init(wc_run_manifest *m);
/** Load a powertrace-sim `manifest.json` or a wattcast `wattcast-run.json`
 *  (`"schema": "wattcast.run/1"`, strict: unknown keys and wrong types are
 *  refused with the JSON path) into `m`; values the file states replace
 *  those in `m`, others are kept. */
int wc_run_manifest_load(const char *path, wc_run_manifest *m, wc_error *err);
/** Copy into `m` each value `defaults` knows and `m` does not. */
void wc_run_manifest_fill(wc_run_manifest *m, const wc_run_manifest *defaults);

/* ---- bounded streaming metrics (`wattcast metrics` on any file size) */

/** Samples kept for exact metrics; beyond, a trace switches to bounded
 *  mode (see wc_trace_stream_finish). */
#define WC_TRACE_STREAM_EXACT_MAX ((size_t)1 << 18)
/** 1-s means kept for the spectrum in bounded mode; beyond, neighbouring
 *  bins merge pairwise (2 s, 4 s, ...). */
#define WC_TRACE_STREAM_BINS_MAX ((size_t)1 << 17)

typedef struct wc_trace_stream wc_trace_stream;

/** New accumulator keeping at most `exact_max` samples (0 = the default).
 *  Caller frees with wc_trace_stream_free. NULL when out of memory. */
wc_trace_stream *wc_trace_stream_new(size_t exact_max);
/** Add a sample (t non-decreasing, finite). */
int wc_trace_stream_push(wc_trace_stream *s, double t, double p, wc_error *err);
/** Metrics of everything pushed. Up to `exact_max` samples they equal
 *  wc_trace_metrics_compute (`*exact` = 1). Beyond (`*exact` = 0), memory
 *  stays fixed (about 2 MB a trace): duration, energy, mean, max and the
 *  mean ramp stay exact; p5/p50/p95 and the ramp p95 come from a
 *  log-bucket histogram (relative error below 1.3e-4); the spectral
 *  entropy and period are taken on the 1-s means (merged as they grow),
 *  so their grid is 1 s or coarser. */
int wc_trace_stream_finish(wc_trace_stream *s, wc_trace_metrics *out, int *exact,
                           wc_error *err);
void wc_trace_stream_free(wc_trace_stream *s);

/* ---- ingest: run folders -> runs-table rows */

/** Grid of n(t) series and phase attribution, s (SPEC §1). */
#define WC_INGEST_GRID_S 0.05
/** An idle window is used when it holds at least this many seconds of
 *  samples; otherwise the lowest quiet stretch of this length is. */
#define WC_IDLE_MIN_S 2.0
#define WC_IDLE_QUIET_S 3.0

typedef struct {
	wc_run_manifest defaults;  /* fills what a run's manifests leave unknown */
	double segment_s;          /* > 0: one row per segment of this length */
	double max_bad_fraction;
	int max_warnings;
	wc_warn_fn warn;
	void *warn_payload;
	size_t max_samples;        /* power samples per run, 0 = 2^26 */
} wc_ingest_options;

void wc_ingest_options_init(wc_ingest_options *o);

/** One runs-table row with what went into it. */
typedef struct {
	wc_run run;                    /* SPEC §7 columns (series arrays unused) */
	wc_trace_metrics metrics;      /* of the group trace over the window */
	double start_epoch, end_epoch; /* the row's window */
	double requests, iterations;   /* in the window; NaN unknown */
	double energy_per_request_j, energy_per_iteration_j;
	double prefill_energy_j, decode_energy_j, idle_energy_j; /* NaN: not attributable */
	char phase_source[16];         /* "requests", "engine" or "" */
	int n_gpus;
	double idle_gpu_w[WC_TELEMETRY_MAX_GPUS];  /* per GPU, NaN unknown */
	char idle_source[16];          /* "window", "quiet_stretch", "quiet_short", "none" */
	char n_source[16];             /* "engine" or "requests" */
	double request_rate, burstiness;
	double *series_t;              /* n(t) on the 50 ms grid, s from the window start */
	double *series_running;
	size_t series_len;
	size_t bad_lines;              /* skipped lines over the run's files */
} wc_ingest_row;

typedef struct {
	wc_ingest_row *rows;
	size_t n_rows, cap;
} wc_ingest_result;

/** Ingest one run folder (power.csv; optional engine.csv, requests.json or
 *  requests.csv, manifest.json, wattcast-run.json) and append its row(s)
 *  to `res` (zero-initialised by the caller). Refused (rows untouched)
 *  when more than max_bad_fraction of a file's lines are bad, a GPU is
 *  missing from a sample, the clocks do not overlap after conversion, or
 *  a required fact (platform, model size, UTC offset, n(t)) is unknown. */
int wc_ingest_run(const char *run_dir, const wc_ingest_options *opt, wc_ingest_result *res,
                  wc_error *err);
/** Free the rows (and their series); the struct is zeroed. */
void wc_ingest_result_clear(wc_ingest_result *res);

/** Run folders (holding power.csv) at `dir` or below it (4 levels),
 *  sorted. Caller frees each path and the array. */
int wc_ingest_find_runs(const char *dir, char ***out, size_t *n, wc_error *err);

/** Write the rows as a runs table at `path` (atomically, after writing
 *  each n(t) series as `<stem>.series/<run_id>.csv` beside it, path
 *  relative to the table in `n_series`). Extra columns: the ten metric
 *  columns, energy per request/iteration, counts, idle and n(t) sources,
 *  phase energies. `comment` may be NULL. */
int wc_ingest_write(const char *path, const wc_ingest_result *res, const char *comment,
                    wc_error *err);

#ifdef __cplusplus
}
#endif
#endif
