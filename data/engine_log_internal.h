/* Private to data/: the engine.csv reader's passes over the rows once
 * all are read (data/engine_log_rows.c). */
#ifndef WC_DATA_ENGINE_LOG_INTERNAL_H
#define WC_DATA_ENGINE_LOG_INTERNAL_H

#include <stddef.h>

#include "data/engine_log.h"
#include "telemetry_internal.h"

/** One counter as one engine counts it: a counter column's field, or,
 *  where a column adds up data-parallel engines, one engine's fields
 *  (docs/formats/telemetry.md, "engine.csv"). Restarts and glitches are
 *  judged on these, each on its own, before the engines are added up:
 *  judged on the sum, one engine's restart was hidden by the others'
 *  growth and read as a glitch. */
typedef struct {
	wc_engine_column col;
	char engine[64];   /* its `engine` / `dp_rank` labels as written; "" none */
	double *v;         /* a value per row, NAN where not read */
	double row;        /* the line being read */
	/* settling's bookkeeping (data/engine_log_rows.c) */
	double max_rate, prev, add;
	size_t first;      /* its first row with a value (the rows' count: none) */
	size_t last;       /* its last row with a value (the rows' count: none) */
} wc__engine_counter;

/** The counters of one engine.csv, every v as long as the rows'. */
typedef struct {
	wc__engine_counter *s;
	size_t n, cap, rows_cap;
} wc__engine_counters;

/** Rows a scrape can misread in a row: a counter's glitch (after a drop
 *  or rise, the rows searched for its return; a restarted server never
 *  counts back up to the old total within them, data/engine_log_rows.c)
 *  and a clock's (a run of rows stamped out of line with the rows around
 *  it, data/engine_csv_clock.c) are at most this long
 *  (docs/formats/telemetry.md, "engine.csv"). */
#define WC__ENGINE_GLITCH_ROWS 3

/** Rows a clock glitch mid-log can run for (data/engine_csv_clock.c): a
 *  run of rows whose time jumps away and back, the rows before and after
 *  it in line with each other. Past WC__ENGINE_GLITCH_ROWS such a run is
 *  one only with at least as many rows kept before it as it holds (they
 *  and the two rows after it outvote it); this bound only caps the rows
 *  searched back for each row out of line (docs/formats/telemetry.md,
 *  "engine.csv"). */
#define WC__ENGINE_CLOCK_RUN_ROWS 64

/** Most counters one file may hold (fields of every header's columns). */
#define WC_ENGINE_MAX_COUNTERS 1024

/** The counter of column `col` for the engine of label block `labels`
 *  (NULL: none), added when new with its `rows` rows unknown: its index,
 *  -1 out of memory, -2 beyond WC_ENGINE_MAX_COUNTERS. */
int wc__engine_counters_add(wc__engine_counters *set, wc_engine_column col, const char *labels, size_t rows);
/** Every v resized to `rows_cap` rows; WC_OK or WC_ENOMEM. */
int wc__engine_counters_grow(wc__engine_counters *set, size_t rows_cap);
/** Forget the line being read: every `row` unknown. */
void wc__engine_counters_clear_row(wc__engine_counters *set);
/** Store the line read as row i. */
void wc__engine_counters_append(wc__engine_counters *set, size_t i);
/** Row `from`'s values moved to row `to` (a row dropped before it). */
void wc__engine_counters_move(wc__engine_counters *set, size_t from, size_t to);
/** 1 when a counter of the line read falls below its value in row i. */
int wc__engine_counters_fell(const wc__engine_counters *set, size_t i);
void wc__engine_counters_free(wc__engine_counters *set);
/** A series' name in a warning, into buf: its column, and its engine
 *  (`engine` / `dp_rank` labels; "" none) when a column's engines are
 *  added up -- `num_requests_running{engine="1"}`. Returns buf. */
const char *wc__engine_series_name(wc_engine_column col, const char *engine, char *buf, size_t size);

/** Drop the rows whose counters are out of line with the rows around
 *  them (bad lines of `bad`), then continue counters across server or
 *  engine restarts with one warning per row; each counter of `set` is
 *  judged on its own and a column's engines are added up afterwards.
 *  line[i] is row i's line, compacted with the rows
 *  (docs/formats/telemetry.md, "engine.csv"). */
void wc__engine_settle(wc_engine_log *e, wc__engine_counters *set, size_t *line, const char *path,
                       const wc_telemetry_options *opt, wc__bad_lines *bad);

/** Warn of each hole between two rows longer than WC_TELEMETRY_GAP_CADENCES
 *  times the log's median spacing, naming the line after it and its
 *  length (docs/formats/telemetry.md, "engine.csv"). */
void wc__engine_warn_gaps(const wc_engine_log *e, const size_t *line, const char *path,
                          const wc_telemetry_options *opt);
/** The longest spacing of t[0..n) that is no hole: WC_TELEMETRY_GAP_CADENCES
 *  times the median spacing (the one median rule), or NAN for fewer than
 *  three rows or a median of 0. The one hole rule, for the warning above
 *  and the end of the log's clock glitch (data/engine_csv_clock.c). */
double wc__engine_hole_bound(const double *t, size_t n);

#endif
