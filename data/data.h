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

#ifdef __cplusplus
}
#endif
#endif
