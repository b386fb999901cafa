/*
 * `wattcast ingest`: measured run folders -> runs-table rows with their
 * trace metrics (docs/formats/telemetry.md, docs/formats/runs-table.md).
 * Rows are appended to a wc_ingest_result the caller zero-initialises and
 * releases with wc_ingest_result_clear.
 */
#ifndef WC_TRACE_INGEST_H
#define WC_TRACE_INGEST_H

#include <stddef.h>

#include "data/run_manifest.h"
#include "data/runs_table.h"
#include "data/engine_log.h"
#include "data/nvsmi.h"
#include "data/request_log.h"
#include "trace/metrics.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Grid of n(t) series and phase attribution, s (docs/formats/telemetry.md). */
#define WC_INGEST_GRID_S 0.05
/** Cells of that grid a run may span (2^24: 9.7 days, 128 MiB of n(t));
 *  a longer run is refused. With gaps between power samples bounded by
 *  WC_TELEMETRY_MAX_GAP_S, the grid never bridges a clock jump. */
#define WC_INGEST_MAX_GRID_CELLS ((size_t)1 << 24)
/** Largest num_requests_running ingest accepts from an engine log: a
 *  million sequences would need terabytes of KV cache, more than any
 *  serving group holds; a larger (or negative) count is a broken gauge
 *  and the run is refused (docs/formats/telemetry.md). */
#define WC_INGEST_MAX_RUNNING 1000000
/** Is `n` a count ingest accepts (0 to WC_INGEST_MAX_RUNNING; NaN is not)?
 *  The one check of engine logs' running counts and Prometheus's running
 *  and waiting gauges (docs/fleet.md). */
int wc_ingest_running_ok(double n);

typedef struct {
	wc_run_manifest defaults;  /* fills what a run's manifests leave unknown */
	double segment_s;          /* > 0: one row per segment of this length */
	double max_bad_fraction;
	const char *max_bad_option;  /* the option raising it, for the refusal; NULL none */
	int max_warnings;
	wc_warn_fn warn;
	void *warn_payload;
	size_t max_samples;        /* power samples per run, 0 = 2^26 */
	int power_only;            /* power metrics only: engine and request logs are not read,
	                            * n(t) and the load columns stay empty, idle only from a
	                            * manifest's idle window (docs/formats/telemetry.md) */
	const char *idle_fallback; /* what the caller does without a run's idle power, the
	                            * warning's last clause; NULL: WC_INGEST_IDLE_FALLBACK */
} wc_ingest_options;

/** The last clause of ingest's warning that a run's idle power is unknown
 *  or rejected: a runs table's row without one is fitted at the
 *  platform's P0. Callers that do no fit say what they do instead. */
#define WC_INGEST_IDLE_FALLBACK "the fit uses the platform's P0"

void wc_ingest_options_init(wc_ingest_options *o);

/** One runs-table row with what went into it. */
typedef struct {
	wc_run run;                    /* runs-table columns (series unused) */
	wc_trace_metrics metrics;      /* of the group trace over the window */
	double start_epoch, end_epoch; /* the row's window */
	double requests, iterations;   /* in the window; NaN unknown */
	double energy_per_request_j, energy_per_iteration_j;
	double ttft_s, itl_s;          /* medians over the window's requests (request
	                                * log with first-token times); NaN unknown */
	double prefill_energy_j, decode_energy_j, idle_energy_j; /* NaN: not attributable */
	char phase_source[16];         /* "requests", "engine" or "" */
	int n_gpus;
	double idle_gpu_w[WC_TELEMETRY_MAX_GPUS];  /* per GPU, NaN unknown */
	char idle_source[16];          /* "window", "quiet_stretch", "quiet_short", "none" */
	char window[8];                /* "level" (a load level's window) or "log" */
	char level_label[48];          /* the level's label, "" without levels */
	char n_source[16];             /* "engine" or "requests" */
	char dir[1024];                /* the run folder read */
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

/** What is known about the run in `run_dir` as wc_ingest_run reads it --
 *  its manifests layered (manifest.json, then wattcast-run.json), the
 *  platform from nvidia-smi's product name where none states it, then
 *  opt->defaults -- into `m`, without reading the telemetry. `m` is
 *  filled as far as it got also when the error says what is missing. */
int wc_ingest_manifest(const char *run_dir, const wc_ingest_options *opt, wc_run_manifest *m, wc_error *err);

/** How deep below a folder named run folders are searched for
 *  (docs/formats/telemetry.md, "Run folders"). */
#define WC_INGEST_SEARCH_DEPTH 4
/** WC_EINVAL naming the first run id of the `n` that repeats an earlier
 *  one (`id(i, payload)` is the i-th) and the two run folders it was read
 *  from (`dir(i, payload)`): one run read twice (a copy, two overlapping
 *  folders) would weigh twice in everything pooled. */
int wc_ingest_check_ids(size_t n, const char *(*id)(size_t i, const void *payload),
                        const char *(*dir)(size_t i, const void *payload), const void *payload,
                        wc_error *err);
/** Run folders (holding power.csv) at `dir` or below it
 *  (WC_INGEST_SEARCH_DEPTH levels), sorted. Caller frees each path and the
 *  array. */
int wc_ingest_find_runs(const char *dir, char ***out, size_t *n, wc_error *err);
/** Run folders below that depth under `dir` (up to 8 levels further),
 *  which wc_ingest_find_runs leaves out: how many, the first (in sorted
 *  order) into `first`. */
size_t wc_ingest_runs_too_deep(const char *dir, char *first, size_t cap);

/** Write the rows as a runs table at `path` (atomically, after writing
 *  each n(t) series as `<stem>.series/<run_id>.csv` beside it, path
 *  relative to the table in `n_series`). Extra columns: the ten metric
 *  columns, energy per request/iteration, counts, idle and n(t) sources,
 *  phase energies. `comment` may be NULL. The series are put in place
 *  before the table, one whose name holds a file of other bytes as
 *  `<run_id>@<8 hex digits>.csv`: a reader sees the earlier table with its
 *  series or this one with its own (docs/architecture.md, "Files"). Once
 *  the table is written, the series folder holds its series only: files
 *  named as series (`[A-Za-z0-9._-]+.csv`, with or without the '@' part)
 *  that the table does not reference -- an earlier table's -- are
 *  removed. */
int wc_ingest_write(const char *path, const wc_ingest_result *res, const char *comment,
                    wc_error *err);
/** Can wc_ingest_write write `path`: not a folder, and its series folder
 *  `<stem>.series` a folder when it exists. For a check before any work. */
int wc_ingest_check_output(const char *path, wc_error *err);

#ifdef __cplusplus
}
#endif
#endif
