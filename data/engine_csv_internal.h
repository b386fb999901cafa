/* Private to data/: engine.csv's reader, shared by its line reading
 * (data/engine_csv.c) and its header (data/engine_csv_header.c). */
#ifndef WC_DATA_ENGINE_CSV_INTERNAL_H
#define WC_DATA_ENGINE_CSV_INTERNAL_H

#include <stddef.h>

#include "data_internal.h"
#include "engine_log_internal.h"
#include "telemetry_internal.h"

#define ENG_MAX_FIELDS WC_ENGINE_COLUMNS_MAX
#define ENG_MAX_ENGINES 64 /* data-parallel engines told apart, as GPUs */

/* One series a header reads: a column and its engine (the `engine` /
 * `dp_rank` labels, wc_engine_labels_summed; "" none). */
typedef struct {
	int col;
	char engine[64];
} eng_series;

/* What the reader carries from line to line: the header's column map and
 * the counter-reset bookkeeping. The log and the field buffer are owned by
 * wc_engine_read. */
typedef struct {
	const char *path;
	const wc_telemetry_options *opt;
	wc__bad_lines *bad;
	wc_engine_log *e;
	int map[ENG_MAX_FIELDS], n_cols, time_col;
	unsigned char sum[ENG_MAX_FIELDS]; /* a field added to its column's first */
	int n_series[WC_ENG_COLUMNS];      /* fields read into each column */
	size_t *line;          /* each row's line number, for the counter checks */
	int *cell;             /* each row's time cell's column, for its bad line */
	wc__engine_counters counters; /* each engine's counters, as read */
	int counter[ENG_MAX_FIELDS];  /* a field's counter in them, -1 none */
	/* The field a field stands in for, -1 none: the same engine's series
	 * under another process (`pid`, a restart), read where that one has
	 * no cell (wc_engine_labels_place's JOIN). */
	int join[ENG_MAX_FIELDS];
	size_t cap, max_rows;
	size_t header_line;
	int timed;             /* a time was read */
	int time_at;           /* the line's time cell's column (parse_line) */
	/* A row not after the last kept row but after the row before the
	 * last held_run kept rows (1 to WC__ENGINE_CLOCK_RUN_ROWS), held in the
	 * slot past the rows until the next row says whether it or that run
	 * is out of line (data/engine_csv_clock.c). */
	int held_row;
	size_t held_run;
	/* Rows not after the last kept row (nor held), each after the one
	 * before, until a row after the last kept one says whether they are
	 * a run behind out of line with the rows around it: their times,
	 * lines and time cells; behind_spoilt once they cannot be one (out
	 * of order, or past the bound) until a row is kept
	 * (data/engine_csv_clock.c). */
	double behind_t[WC__ENGINE_CLOCK_RUN_ROWS];
	size_t behind_line[WC__ENGINE_CLOCK_RUN_ROWS];
	int behind_cell[WC__ENGINE_CLOCK_RUN_ROWS];
	size_t behind_n;
	int behind_spoilt;
	char time_err[WC_ERROR_MSG_MAX];
	/* Data lines whose field count differs from the header's, one count
	 * for all, before any line had the header's: held back, since when
	 * no line ever has it the header is what is wrong (wrong_header). */
	size_t held, held_first, held_last;
	int held_nf, matched;
	int held_column;  /* where the first held line's fields ran out or over */
	char held_sep; /* ';' or '\t' in the first held line of one field */
	/* The series the header in force reads, a column's engine each: a
	 * header again that leaves one out ends the log (repeated_header). */
	eng_series *read;
	size_t n_read;
	int ended;             /* such a header was met: no line after it is read */
	unsigned stacks;       /* the stacks the headers' names are of (engine_csv_header.c) */
	/* The running count's engines in the header in force (their
	 * `engine` / `dp_rank` labels, wc_engine_labels_summed). */
	char engine_names[ENG_MAX_ENGINES][48];
	int n_engines;
} eng_reader;

/* Map the header's fields to columns (r->map, r->sum, r->n_series) and
 * allocate the columns present (data/engine_csv_header.c). */
int wc__engine_map_header(eng_reader *r, wc__csv_field *f, int nf, size_t line_no, wc_error *err);

/* The series of `old` (n_old of them, an earlier header's) the header in
 * force leaves out: a column it names no more, or an engine of a column
 * it names no more (an unlabelled series is kept by any series of its
 * column). Their count; the first named in `name` as a warning says it
 * (`num_requests_running{engine="1"}`). */
size_t wc__engine_series_left_out(const eng_reader *r, const eng_series *old, size_t n_old, char *name,
                                  size_t size);

/* What becomes of a row judged by its time (wc__engine_clock_judge). */
typedef enum {
	WC__CLOCK_KEEP, /* after the last kept row: kept */
	WC__CLOCK_HOLD, /* held in the slot past the rows for the next to judge */
	WC__CLOCK_SKIP  /* behind the last kept row: in the behind run, or bad */
} wc__engine_clock_verdict;

/* Judge the row of line `line` at `t` (its time cell r->time_at) about
 * to be read against the kept rows, a row held before it and the run
 * behind them: a run of rows before it shown out of line (ahead or
 * behind) is dropped as bad lines, one glitch; a held row not shown right
 * waits in the run behind (data/engine_csv_clock.c). */
wc__engine_clock_verdict wc__engine_clock_judge(eng_reader *r, double t, size_t line);
/* The row of line `line_no` at `t` (its time cell at `cell`) is a bad
 * line: not after the last kept row. The one text of that reason. */
void wc__engine_clock_not_after(eng_reader *r, size_t line_no, int cell, double t);
/* The run behind, then the held row, if any, are bad lines: not after
 * the last kept row, and no row after them showed a run out of line. */
void wc__engine_clock_drop_held(eng_reader *r);
/* At the log's end, where no row comes after to say which is out of
 * line: a final run of up to WC__ENGINE_GLITCH_ROWS rows is judged by the
 * log's own spacing instead, and the held row, if still held, dropped;
 * a first run of as many rows, with no row before it, by the same rule
 * (data/engine_csv_clock.c). */
void wc__engine_clock_end(eng_reader *r);

#endif
