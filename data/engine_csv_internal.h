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

/* Judge the row at `t` about to be read against the kept rows and a row
 * held before it: a run of rows before it shown out of line is dropped
 * (bad lines), a held row not shown right is a bad line. 1 when the row
 * at `t` is to be held (data/engine_csv_clock.c). */
int wc__engine_clock_judge(eng_reader *r, double t);
/* The row of line `line_no` at `t` (its time cell at `cell`) is a bad
 * line: not after the last kept row. The one text of that reason. */
void wc__engine_clock_not_after(eng_reader *r, size_t line_no, int cell, double t);
/* The held row, if any, is a bad line: not after the last kept row, and
 * no row after it showed the run before it out of line. */
void wc__engine_clock_drop_held(eng_reader *r);
/* At the log's end, where no row comes after to say which is out of
 * line: a final run of up to WC__ENGINE_GLITCH_ROWS rows is judged by the
 * log's own spacing instead, and the held row, if still held, dropped;
 * a first run of as many rows, with no row before it, by the same rule
 * (data/engine_csv_clock.c). */
void wc__engine_clock_end(eng_reader *r);

#endif
