/*
 * Runs tables (docs/formats/runs-table.md), the fitting engine's input, and
 * the n(t) series files they reference. A table is created by wc_runs_read
 * or wc_runs_new and freed with wc_runs_free; rows own their series arrays.
 */
#ifndef WC_DATA_RUNS_TABLE_H
#define WC_DATA_RUNS_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "data/extra_columns.h"
#include "models/catalog.h"
#include "models/params.h"

#ifdef __cplusplus
extern "C" {
#endif

/** How a synthetic runs table begins (`simulate` writes it as the first
 *  line; docs/formats/runs-table.md, "File layout"). */
#define WC_RUNS_SYNTHETIC_MARK "# SYNTHETIC"

/** 1 when a runs table's text begins with WC_RUNS_SYNTHETIC_MARK (after
 *  a byte order mark, if any): its rows are then marked `synthetic`. */
int wc_runs_text_synthetic(const char *buf, size_t len);
/** The source of a P0 taken from runs' idle_power_w readings: "simulated"
 *  when any of them is a synthetic row's, else "measured" (docs/fitting.md,
 *  "Where P0 comes from"). */
wc_source wc_runs_idle_source(int any_synthetic);

/** The documented columns of a runs table (docs/formats/runs-table.md). */
#define WC_RUN_COLUMNS 21

/** One run (or run segment) of a runs table (docs/formats/runs-table.md). Numbers that are
 *  blank in the file are NaN (sm_clock_mhz: 0 = not locked). */
typedef struct {
	char run_id[96];
	char platform[WC_NAME_MAX];
	int tp;
	char model[WC_MODEL_NAME_MAX];
	double active_params_b;
	double total_params_b;     /* optional; NaN = unknown (dense: = active) */
	wc_architecture architecture; /* optional; WC_ARCH_UNKNOWN when blank */
	double running;            /* mean running requests; NaN when series-only */
	char n_series[256];        /* path as written in the table, "" if none */
	wc_load_histogram series;  /* the n_series file, loaded; empty if none */
	int n_gauge;               /* 1: the series is the engine's sampled gauge
	                            * (n_source engine, an extra column): its 0
	                            * steps are not known to be idle */
	double mean_power_w;       /* group total (sum over its tp GPUs) */
	double idle_power_w;       /* per GPU; NaN = use the parameters' P0 */
	int synthetic;             /* 1: read from a table whose first line is
	                            * WC_RUNS_SYNTHETIC_MARK: its idle_power_w is
	                            * a simulation's, and a P0 taken from it is
	                            * "simulated", not "measured" */
	wc_precision weights, kv;
	double sm_clock_mhz;
	wc_workload workload;      /* optional; WC_WORKLOAD_UNKNOWN when blank */
	double input_tokens, output_tokens, throughput_tok_s, energy_per_token_j;
	char set[48];
	char exclude[128];         /* non-empty = excluded from fits (reason) */
	int line;                  /* line in the source file (1-based) */
	/** Where each documented cell starts on that line (1-based; 0 = not
	 *  from a file, or no such column): wc_runs_cell_at. */
	int column[WC_RUN_COLUMNS];
} wc_run;

typedef struct {
	char path[512];
	wc_run *runs;
	size_t n_runs, cap_runs;
	wc_extra_columns extra;    /* columns not known to wattcast, kept verbatim */
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
/** The configuration a run describes, for the law (docs/formats/runs-table.md):
 *  its platform, TP, size, mean running count (its n(t) mean when it has
 *  a series), precisions, clock, measured idle (replacing P0), model name
 *  and catalog architecture, input/output tokens and workload set. Every
 *  pointer in `c` borrows from `r` or the catalog. */
void wc_run_config(const wc_run *r, wc_config *c);
/** The loaded running counts a run spans, for a level's calibrated span
 *  (docs/formats/params-file.md, `range.running`: "[min, max] of the loaded
 *  n values (series included)"): its n(t) series' smallest and largest
 *  loaded (> 0) value when it has one, else its mean `running` both ends.
 *  `fit` and `calibrate` both record a level's span from it. */
void wc_run_running_span(const wc_run *r, double *lo, double *hi);

/** Where run `r` of `t` holds `column` (a documented column's name), as
 *  the reader names a cell: "runs.csv:5:23: column 'running'" into `buf`,
 *  for a later check that refuses the value (a calibration refuses an idle
 *  run there). Returns 0 and writes "" when the run does not come from
 *  t's file or has no such cell. */
int wc_runs_cell_at(const wc_runs_table *t, const wc_run *r, const char *column, char *buf, size_t cap);

/** The bounds a run obeys wherever it is read (docs/formats/runs-table.md,
 *  limits in models/limits.h): the name of the first column out of bounds,
 *  with the reason written into `why` ("must be at most 1e+06 requests at
 *  once"; the caller adds where and the value), or NULL when every bound
 *  holds. Reads tp, running, active_params_b, mean_power_w (at most tp x
 *  WC_GPU_MAX_POWER_W, at least tp x WC_GPU_MIN_POWER_W:
 *  wc_run_power_under_floor's words), idle_power_w, throughput_tok_s,
 *  energy_per_token_j, platform and sm_clock_mhz (0 = not locked). */
const char *wc_run_out_of_bounds(const wc_run *r, char *why, size_t cap);
/** 1 when the run's mean power per GPU of its tp is above the board
 *  limit of its platform (catalog; unknown boards are not checked), or
 *  `p95_w` (the group's p95, NaN when unknown) above 1.5x it, with the
 *  reason in `why`
 *  ("mean power 1500.0 W per GPU is above the L40S board limit 350 W: wrong
 *  platform or tp?"); 0 otherwise. A warning, not a refusal: ingest and
 *  import say it naming the run. */
/** The capacity fit's timing extras of a runs table (`itl_s`, `ttft_s`,
 *  ML.ENERGY's `median_itl_ms`): for a cell of one of them that is neither
 *  blank nor a number from 0 to a day (WC_RUN_MAX_TIME_S), its column's
 *  name, with the reason and the value in `why`; NULL for any other column
 *  or a good value (docs/formats/runs-table.md). */
const char *wc_run_timing_extra_bad(const char *column, const char *text, char *why, size_t cap);
int wc_run_power_over_board(const wc_run *r, double p95_w, char *why, size_t cap);
/** 1 when the mean power of `r` is under WC_GPU_MIN_POWER_W per GPU of
 *  its tp (models/limits.h), with the reason in `why` ("mean power 0.251 W
 *  per GPU is under 1 W, below any GPU's idle: a unit slip (kW read as
 *  W?)"); 0 otherwise, a blank (NaN) mean included. The low side of the
 *  bound every reading obeys (WC_GPU_MAX_POWER_W): a refusal, as a
 *  fine-tuning table's step under it is; ingest says it naming the file
 *  and the power column (docs/formats/telemetry.md, "Units and
 *  plausibility"). */
int wc_run_power_under_floor(const wc_run *r, char *why, size_t cap);
/** The same rule for a mean power `mean_w` over `gpus` GPUs that is no
 *  run row's: a fine-tuning run's energy per step over its step time, or
 *  a power log's group mean (`wattcast metrics`). 0 for `gpus` <= 0 or a
 *  NaN mean. */
int wc_power_under_floor(double mean_w, int gpus, char *why, size_t cap);

/** What identifies a run for a calibration that used it, whatever holds
 *  it: the first 64 bits of the SHA-256 of what the power calibration
 *  reads of it and both a runs table's row and a POST /v1/calibrate item
 *  carry -- platform, tp, model, active size, load (its stated mean
 *  `running`, its n(t) series' mean when only a series states it), mean
 *  and idle power, precisions and clock -- numbers to 17 digits. Its id,
 *  set, exclude mark, place in the file and the columns a calibration
 *  does not read (tokens, throughput, ...) are not part of it: a comment
 *  line, a re-sort, a re-import, another set label or the same runs sent
 *  over HTTP leave it unchanged. A calibration records its rows by it
 *  (docs/formats/params-file.md, "Provenance"). */
uint64_t wc_run_content_hash(const wc_run *r);
/** What identifies a run for the capacity fit that used it, whatever
 *  holds it -- a runs table's row, or the run folder `validate envelope`
 *  replays: the first 64 bits of the SHA-256 of its platform and run id
 *  (as `ingest` names it; its first WC_RUN_ID_HASHED bytes, as much as
 *  a capacity row keeps), unit-separated. A segment's row (`<run>#seg<k>`,
 *  `ingest --segment`) is its run's: its id is read without that suffix
 *  (wc_run_id_segment_cut), so a section fitted on segments knows the
 *  whole run replayed, and the other way round. The capacity section
 *  records its runs by it (schema 16; docs/formats/params-file.md,
 *  "capacity"). */
#define WC_RUN_ID_HASHED 95
uint64_t wc_run_id_hash(const char *platform, const char *run_id);

/** The suffix `ingest --segment` gives each segment's row id, followed by
 *  the segment's number from 1: `<run>#seg<k>` (docs/cli.md, "ingest"). */
#define WC_RUN_SEGMENT_TAG "#seg"
/** The length of `run_id` without a trailing WC_RUN_SEGMENT_TAG and
 *  digits: the id of the run a segment's row comes from; strlen(run_id)
 *  when it has none. */
size_t wc_run_id_segment_cut(const char *run_id);
/** 1 when rows `a` and `b` are of one run: the same platform and the
 *  same id read without a `#seg<k>` suffix (wc_run_id_segment_cut) -- a
 *  run and its `ingest --segment` pieces, or two of its pieces. The one
 *  rule by which the calibration, the fit and the validations group a
 *  run's pieces (docs/calibration.md, "Segments"). */
int wc_run_same_run(const wc_run *a, const wc_run *b);
/** The runs among the rows `at[0..n)` of `t` (NULL: every row, n =
 *  t->n_runs), by wc_run_same_run, numbered from 0 in order of their first
 *  row: each row's run in unit[k] (may be NULL; its n entries are needed
 *  as it is filled). Returns how many runs. */
size_t wc_runs_units(const wc_runs_table *t, const size_t *at, size_t n, size_t *unit);

/** Rows carrying a non-empty `exclude` among `n_rows` (docs/formats/runs-table.md:
 *  any non-empty value excludes, `0`, `false` and `no` too). When every row
 *  is excluded (n_rows > 0), writes why nothing is left into `buf` ("all 325
 *  row(s) carry a non-empty `exclude` ...") and returns 1: every command
 *  that finds no usable row says it so; else writes "" and returns 0.
 *  wc_runs_excluded counts a runs table's excluded rows. */
int wc_runs_excluded_note(size_t n_rows, size_t n_excluded, char *buf, size_t cap);
size_t wc_runs_excluded(const wc_runs_table *t);
/** The excluded rows said in one line for the reports that leave them out
 *  (`fit intervals`, `validate lomo`): "7 run(s) excluded, neither fitted
 *  nor predicted: a non-empty `exclude` (sim241's: 'held out: ...')";
 *  returns their count ("" when none). */
size_t wc_runs_excluded_why(const wc_runs_table *t, char *buf, size_t cap);
/** That line for any rows marked `exclude` (runs-table runs, capacity
 *  periods): `n` of the `noun` ("run", "row"), the first's `id` and its
 *  reason `why`; "" when n is 0. The one wording of the reports. */
void wc_excluded_say(size_t n, const char *noun, const char *id, const char *why, char *buf, size_t cap);

/** A wc_run with every optional number NaN and defaults set. */
void wc_run_init(wc_run *run);
/** Set the extra (not a documented) column `column` of row `row` to `value`
 *  (copied); the column is added, blank for other rows, if new. */
int wc_runs_set_extra(wc_runs_table *t, size_t row, const char *column, const char *value,
                      wc_error *err);
/** Value of an extra column for a row, or NULL when the column is absent
 *  (borrowed; valid until the table changes). */
const char *wc_runs_get_extra(const wc_runs_table *t, size_t row, const char *column);
/** Write as CSV (the documented columns, then the extra ones) atomically. A
 *  `comment` (may contain newlines) is written first as `#` lines. */
int wc_runs_write(const char *path, const wc_runs_table *t, const char *comment,
                  wc_error *err);
/** Read an n(t) series file `t_s,running` (each sample held until the
 *  next, the last one for the median step; each `running` 0 to
 *  WC_RUN_MAX_RUNNING, a run's and a concurrency's bound) into distinct
 *  values and the seconds spent at each (wc_load_histogram_build). The
 *  caller frees `out` with wc_load_histogram_free. */
int wc_series_read(const char *path, wc_load_histogram *out, wc_error *err);
/** The same file as its samples in order (at least two, `t_s`
 *  increasing, `running` 0 to `max_running`, a value outside refused at
 *  its cell), for
 *  simulations that need the series in time (envelopes); with `lines`,
 *  each sample's line of the file, for messages. The caller frees the
 *  arrays. */
int wc_series_read_samples(const char *path, double max_running, double **t_s, double **running,
                           size_t **lines, size_t *n, wc_error *err);
/** How long the last of `n` >= 2 samples at increasing `t_s` holds: the
 *  median step (docs/formats/runs-table.md). WC_EINVAL for fewer than two
 *  samples, WC_ENOMEM out of memory. */
int wc_series_last_hold(const double *t_s, size_t n, double *hold_s);
/** The seconds each of `n` >= 2 samples at increasing `t_s` holds, into
 *  `hold_s` (n of them): until the next sample, the last for the median
 *  step (wc_series_last_hold) -- what the law's average (wc_series_read)
 *  and the envelope's n(t) both weigh a sample by. WC_EINVAL for fewer
 *  than two samples, WC_ENOMEM out of memory. */
int wc_series_holds(const double *t_s, size_t n, double *hold_s);
/** Write an n(t) series file: `n` samples `t_s[k]` (seconds, written to
 *  the millisecond) and `running[k]`, atomically; as one file of `batch`'s
 *  folder (data/fileio.h, wc_write_batch_file), or alone when it is NULL. */
struct wc_write_batch;
int wc_series_write(const struct wc_write_batch *batch, const char *path, const double *t_s,
                    const double *running, size_t n, wc_error *err);

#ifdef __cplusplus
}
#endif
#endif
