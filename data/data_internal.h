/* Private to data/: CSV helpers shared by every reader and writer. */
#ifndef WC_DATA_INTERNAL_H
#define WC_DATA_INTERNAL_H

#include <stddef.h>
#include <stdio.h>

#include "data/extra_columns.h"
#include "data/fileio.h"
#include "data/prom.h"
#include "models/models.h"
#include "models/strmap.h"

typedef struct {
	char *text;  /* NUL-terminated, unquoted, inside the line buffer */
	int column;  /* 1-based character column where the field starts */
} wc__csv_field;

/** Split one line (no newline; trailing CRs are dropped) into at most
 *  `cap` fields, in place: quotes ("a,b", "say ""hi""") are removed and
 *  the pointers point into `line`. Returns the number of fields, or -1
 *  with `*reason` set (unterminated quote, text after a closing quote,
 *  too many fields). */
int wc__csv_split(char *line, wc__csv_field *fields, int cap, const char **reason);
/** wc__csv_split, with the 1-based column where it stopped in `*stop`:
 *  one past the line's end (its trailing CRs dropped) after the last
 *  field, the start of field `cap` + 1 when there are too many -- where a
 *  message about the line's field count points (wc__field_count_column). */
int wc__csv_split_to(char *line, wc__csv_field *fields, int cap, const char **reason, int *stop);
/** The one rule of where a line with `nf` fields, `want` expected, is
 *  wrong, for every telemetry reader (docs/formats/telemetry.md, "Bad
 *  lines"): one past its end (`end_column`) when short, the start of its
 *  first extra field (`extra_column`) when long. */
int wc__field_count_column(int nf, int want, int end_column, int extra_column);
/** wc__field_count_column for a line split by wc__csv_split_to into
 *  `fields` (`nf` of them, or WC__CSV_BAD), its split stopped at `stop`:
 *  `stop` when short, field `want`'s start when long. */
int wc__csv_field_count_column(const wc__csv_field *fields, int nf, int want, int stop);
/** The refusal of a whole-file CSV reader (runs table, steps.csv, ...)
 *  whose line has `nf` fields against the header's `want`, at that
 *  column: `path:line:column: expected W fields as in the header, got N`. */
int wc__csv_field_count_refuse(wc_error *err, const char *path, int line, const wc__csv_field *fields, int nf,
                               int want, int stop);
/** The 1-based byte column where a cell's value starts: `value` is where
 *  wc__trim left it inside field->text, past the blanks before it -- the
 *  column every one-cell reason of a telemetry CSV names. */
int wc__csv_cell_column(const wc__csv_field *field, const char *value);
/** A header line that is no comma-separated text (gzip, a control byte,
 *  ';' or tab separators): its 1-based column with `why`, else 0. */
int wc__csv_not_text(const char *line, size_t len, char *why, size_t cap);
/** The reason wc__csv_split gives for more than `cap` fields: a header's
 *  callers compare the pointer to say the limit and what to do
 *  (wc__header_too_wide). */
extern const char wc__csv_too_many_fields[];
/** What a line past a file's first that begins with a byte-order mark is
 *  (a file joined after its own mark), in every CSV reader's words: the
 *  line readers of telemetry logs skip the mark and warn, the readers of
 *  whole files refuse the line, WC__CSV_BAD with this reason and "remove
 *  it" at column 1 (docs/formats/telemetry.md, "Bad lines"). */
#define WC__LINE_BOM "a byte-order mark (U+FEFF) at the line's start: a file joined after its own mark?"
extern const char wc__csv_line_bom[];

/** 1 when `text` does not fit a buffer of `cap` bytes (its NUL included),
 *  with "value too long: N bytes, at most M" in why[0..why_cap), or is not
 *  valid UTF-8 ("not valid UTF-8 at byte K", wc_utf8_refuse), or holds a
 *  control byte ("control character at byte K", wc_text_control_at); else 0.
 *  Limits are in bytes, whatever the characters (a CJK character is 3),
 *  and a longer value is refused, never cut (docs/formats/runs-table.md):
 *  the one check of every table reader's and importer's text cells. */
int wc__text_refused(const char *text, size_t cap, char *why, size_t why_cap);

/** Trim the blanks (spaces, tabs) around each of the `n` fields in place:
 *  a header's names, so "mean_power_w " names the column as values with
 *  blanks around them already read as their number. */
void wc__csv_trim_fields(wc__csv_field *fields, int n);
/** "'time', 'iter', 'kind'": the `n` names of a header, each quoted and
 *  cut past 24 bytes, ending ", ..." when the rest does not fit `cap`;
 *  for a refusal of a missing column to say what the header has. */
void wc__csv_header_names(const wc__csv_field *fields, int n, char *out, size_t cap);

/** Next line of `buf` (len bytes) from `*pos`: returns its start and sets
 *  `*line_len` (excluding the newline); NULL at the end. */
const char *wc__next_line(const char *buf, size_t len, size_t *pos, size_t *line_len);

/** The records of a whole-file CSV buffer: lines that are neither blank
 *  nor `#` comments, split into fields. The buffer is borrowed. */
typedef struct {
	const char *buf;
	size_t len, pos;
	int line;   /* 1-based number of the line last returned */
	char *copy; /* owned: the current line, split in place */
	int stop;   /* where its split stopped (wc__csv_split_to) */
	const char *raw; /* the current line as in `buf`, before its split */
	size_t raw_len;
} wc__csv_lines;

void wc__csv_lines_init(wc__csv_lines *it, const char *buf, size_t len);
void wc__csv_lines_free(wc__csv_lines *it);
/** Advance and split: the number of fields (>= 1), 0 at the end,
 *  WC__CSV_BAD with `*reason` for a malformed line (wc__csv_line_bom, at
 *  `stop` 1, for a line past the first that begins with a byte-order
 *  mark), WC_ENOMEM. Field
 *  pointers stay valid until the next call. */
#define WC__CSV_BAD (-100)
int wc__csv_lines_next(wc__csv_lines *it, wc__csv_field *fields, int cap, const char **reason);

/** Write `s` as one CSV field, quoted when it holds a comma, quote or
 *  newline. */
void wc__csv_put(FILE *f, const char *s);

/** Finish a text built with open_memstream (`f` over `*buf`/`*len`):
 *  close it and write the bytes to `path` atomically; frees `*buf`. */
int wc__memstream_write_atomic(const char *path, FILE *f, char **buf, size_t *len, wc_error *err);
/** The same, as a file of `batch`'s folder (wc_write_batch_file). */
int wc__memstream_write_batch(const wc_write_batch *batch, const char *path, FILE *f, char **buf, size_t *len,
                              wc_error *err);

/* Extra columns of a table (data/extra_columns.c). `rows` is the table's
 * row count; every value is copied. WC_OK or WC_ENOMEM. */
/** Free everything and leave `x` empty. */
void wc__extra_clear(wc_extra_columns *x, size_t rows);
/** Index of column `name`, or -1. */
long wc__extra_index(const wc_extra_columns *x, const char *name);
/** Add column `name`, blank in every row; its index is x->n - 1. */
int wc__extra_add(wc_extra_columns *x, size_t rows, const char *name);
/** Room for row `rows` (the one about to be appended), all blank. */
int wc__extra_add_row(wc_extra_columns *x, size_t rows);
/** Set the value of row `row`, column `j` (NULL = ""). */
int wc__extra_put(wc_extra_columns *x, size_t row, size_t j, const char *value);
/** Set row `row` of column `name`, adding the column when new. */
int wc__extra_set(wc_extra_columns *x, size_t rows, size_t row, const char *name, const char *value);
/** Row `row` of column `name` ("" when blank), NULL when either is unknown. */
const char *wc__extra_get(const wc_extra_columns *x, size_t rows, size_t row, const char *name);
/** CSV: ",name" for every column (after a header's known columns), and
 *  ",value" for every column of row `row`. */
/** A Prometheus sample value (data/prom_text.c): the whole text a decimal,
 *  NaN, +Inf or -Inf, as the scrapes and query_range responses write it
 *  (docs/formats/prometheus.md); WC_EINVAL else, hexadecimal included. */
int wc__prom_number(const char *t, double *v);
/** ... and what a refusal says is expected. */
#define WC__PROM_NUMBER_EXPECTED "a number, NaN, +Inf or -Inf"
/** wc_prom_set_append for a reader: a sample out of order (or at no
 *  finite time) is refused as ORIGIN WHERE SERIES: REASON (origin NULL:
 *  none), the series shortened so that the reason arrives whole; a
 *  repeat of the sample before is dropped and counted in the set. */
int wc__prom_set_append_at(wc_prom_set *set, long pos, double t, double v, const char *origin, const char *where,
                           wc_error *err);
/** The repeats a reader of `origin` dropped, said in one line through
 *  `warn` (none: nothing said), and the count reset. */
void wc__prom_set_say_repeats(wc_prom_set *set, const char *origin, wc_warn_fn warn, void *payload);

void wc__extra_write_names(FILE *f, const wc_extra_columns *x);
void wc__extra_write_row(FILE *f, const wc_extra_columns *x, size_t row);

#endif
