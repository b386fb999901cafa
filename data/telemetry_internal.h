/*
 * Private to data/'s telemetry readers: a line reader over a fixed block
 * buffer (no per-line allocation, bounded line length), malformed-line
 * bookkeeping shared by every reader, and small parsing helpers.
 */
#ifndef WC_TELEMETRY_INTERNAL_H
#define WC_TELEMETRY_INTERNAL_H

#include <stddef.h>
#include <stdio.h>

#include "data/data.h"
#include "data_internal.h"

/* Bytes read from the file per refill (at most; a smaller regular file
 * gets a block of its own size, so opening many small files does not map
 * and fault in a megabyte each). */
#define WC__LR_BLOCK ((size_t)1 << 20)
/* Regular files from this size on are read ahead (wc__lr_open). */
#define WC__LR_AHEAD_MIN (4 * WC__LR_BLOCK)

typedef struct wc__lr_ahead wc__lr_ahead;

typedef struct {
	FILE *f;
	int own;          /* close f at the end (not for stdin) */
	wc__lr_ahead *ahead; /* a large regular file: blocks read ahead on a
	                      * thread of their own (NULL: read here) */
	size_t block;     /* bytes per refill, <= WC__LR_BLOCK */
	char *buf;        /* block + WC_TELEMETRY_LINE_MAX + 2 bytes */
	size_t start, end;
	size_t base;      /* file offset of buf[0] */
	int eof, error;
	size_t line_no;   /* 1-based number of the line last returned */
	int unfinished;   /* the line last returned ends the file without a
	                   * newline: a log cut while being written */
	const char *long_header_hint; /* after "drop the columns wattcast does
	                   * not read" when the header is too long: the file's
	                   * usual culprits (NULL: none); set after wc__lr_open */
	int stop;         /* where the record last returned by wc__lr_next_record
	                   * stopped splitting (wc__csv_split_to) */
	const char *path; /* as opened, for the reader's own warnings */
	const wc_telemetry_options *opt;
	size_t bom_lines, bom_first; /* lines past the first that began with a
	                   * byte-order mark, skipped, and the first of them */
} wc__line_reader;

/** Open `path` ("-" = stdin). A regular file of WC__LR_AHEAD_MIN bytes or
 *  more is read ahead by a thread (the kernel's copy into the buffers, a
 *  tenth of an nvidia-smi ingest, then runs beside the parsing); the lines
 *  are the same either way. */
int wc__lr_open(wc__line_reader *r, const char *path, const wc_telemetry_options *opt, wc_error *err);
void wc__lr_close(wc__line_reader *r);
/** Bytes of the file consumed so far: the offset just past the last
 *  line returned. */
#define wc__lr_offset(r) ((r)->base + (r)->start)
/** Next line, NUL-terminated, in place (modifiable until the next call),
 *  without its newline and trailing CR. Returns 1 with a line, 0 at the
 *  end, -1 on a read error. A byte-order mark at the start of a line past
 *  the first (a log joined after its own mark) is skipped, and warned of
 *  through opt at the first such line, with their count at the end
 *  (docs/formats/telemetry.md, "Bad lines"). A line longer than WC_TELEMETRY_LINE_MAX is
 *  skipped whole and returned as "" with *too_long = 1. */
int wc__lr_next(wc__line_reader *r, char **line, size_t *len, int *too_long);
/** The column a line longer than WC_TELEMETRY_LINE_MAX is named at, the
 *  byte where it passes the limit, header or data line: one rule for
 *  every reader (docs/formats/telemetry.md, "Bad lines"). */
#define WC__LINE_MAX_COLUMN (WC_TELEMETRY_LINE_MAX + 1)
/** WC_EPARSE: the header, line r->line_no of `path`, is longer than
 *  WC_TELEMETRY_LINE_MAX; the message says what to do, with the file's
 *  long_header_hint. The one wording for every line reader. */
int wc__lr_header_too_long(const wc__line_reader *r, const char *path, wc_error *err);
/** WC_EPARSE: the header, line `line_no` of `path`, has more than `limit`
 *  columns (data/telemetry.h), column `limit` + 1 starting at byte
 *  `column`; the limit stated and the advice of wc__lr_header_too_long,
 *  with `hint` (a long_header_hint, NULL none). */
int wc__header_too_wide(const char *path, size_t line_no, int column, int limit, const char *hint,
                        wc_error *err);

/* Bad-line bookkeeping: warn up to a limit, count all. */
typedef struct {
	const char *path;
	const wc_telemetry_options *opt;
	size_t bad, shown;
	/* A line where the log pauses for longer than is bridged, so that
	 * every later line is bad (0 = none): the refusal says to split the
	 * log there, not to allow more bad lines, which would drop the rest
	 * of it (docs/formats/telemetry.md, "Time gaps"). split_bad of the
	 * bad lines are the pause's: when the others alone exceed the share,
	 * fixing them (or --max-bad) is said too. */
	size_t split_line, split_bad;
	/* Bad lines that are the later rows of a run of one cause (an
	 * engine.csv clock glitch of two or three rows): each is a bad line,
	 * but the run counts once toward the share (docs/formats/telemetry.md,
	 * "Bad lines"). */
	size_t one_cause;
	/* The first bad line, where and why: a refusal names it, so a
	 * --quiet run that hid the warnings still says which line to fix
	 * (docs/formats/telemetry.md, "Bad lines"). */
	size_t first_line;
	int first_column;
	char first_reason[128];
	/* The lowest and highest bad line numbers (0: none): whether every
	 * bad line lies between two kept rows, where cumulative counters
	 * lose none of their work (wc_engine_log's bad_inside). */
	size_t lo_line, hi_line;
} wc__bad_lines;

void wc__bad_line(wc__bad_lines *b, size_t line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/** wc__bad_line for one cell: "file:line:column: reason". */
void wc__bad_cell(wc__bad_lines *b, size_t line, int column, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/** The bad lines as the share counts them: a run of one cause (a clock
 *  glitch's rows) once. */
size_t wc__bad_lines_counted(const wc__bad_lines *b);
/** Count line `line` bad without a warning of its own (one said for a
 *  run of them later): its number kept in lo_line/hi_line as a warned
 *  one's is. */
void wc__bad_lines_count(wc__bad_lines *b, size_t line);
/** Report how many warnings were not shown; refuse (WC_EPARSE) when more
 *  than opt->max_bad_fraction of `data_lines` were bad. */
int wc__bad_lines_finish(wc__bad_lines *b, size_t data_lines, wc_error *err);
/** Send one warning, `path` then the formatted text, through opt->warn
 *  (no counting), held to 255 bytes by wc_error_vformat_path's rule: the
 *  path gives way in its middle before the text does. */
void wc__warn(const wc_telemetry_options *opt, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/** Next record of a streaming CSV log (engine counters, request logs):
 *  blank and '#' lines are skipped. While `header_seen` is 0 a line that
 *  is too long (> WC_TELEMETRY_LINE_MAX) or does not split is refused;
 *  after it, a too-long line is counted in `*data_lines` and `bad` and
 *  skipped. Returns the number of fields (> 0), or WC__CSV_BAD with
 *  `*reason` for a data line that does not split; 0 at the end of the
 *  file; a negative WC_* code with `err` set on a read error, a bad header
 *  or a file without one. */
int wc__lr_next_record(wc__line_reader *lr, wc__bad_lines *bad, int header_seen,
                       size_t *data_lines, wc__csv_field *fields, int cap, const char **reason,
                       wc_error *err);

/** Trim blanks at both ends of [s, s+len) in place; returns the new start
 *  and sets *len. Inline: an nvidia-smi line trims five fields, and as a
 *  function it was 3 % of a read's samples (docs/results.md, telemetry
 *  reading). */
static inline char *
wc__trim(char *s, size_t *len)
{
	size_t n = *len;
	while (n > 0 && (*s == ' ' || *s == '\t')) {
		s++;
		n--;
	}
	while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
		n--;
	*len = n;
	return s;
}
/** A whole-field decimal number (strtod rules, finite), with an optional
 *  trailing unit word after blanks ("250.31 W"). */
int wc__parse_number(const char *s, size_t len, double *out);
/** A timestamp that carries its own zone, as epoch seconds: RFC 3339
 *  with `Z` or an offset, or epoch seconds from 2000 to 2100 (the
 *  Prometheus path's parser, data/telemetry_time.c). 0 when it is one;
 *  -1 when it is none; -2 for a number out of those years, with a
 *  reason naming its date and the unit it looks like in `why`. */
int wc__parse_zoned_time(const char *s, size_t len, double *out, char *why, size_t cap);
/** The timestamp forms the logs accept, for messages. */
#define WC__TIME_FORMS "YYYY/MM/DD HH:MM:SS[.fff] (local, as nvidia-smi writes), RFC 3339 with Z or " \
                       "an offset, or epoch seconds"
/** "[N/A]", "[Not Supported]", "N/A", blank or a NaN (wc__is_nan_text): a
 *  value the tool did not have -- the one missing-cell rule of the
 *  telemetry CSVs (docs/formats/telemetry.md, "Missing cells"). */
int wc__is_missing(const char *s, size_t len);
/** "nan", "NaN", "-nan" (any case, an optional sign): what Python,
 *  Prometheus and printf write for a value that is not there. */
int wc__is_nan_text(const char *s, size_t len);

/* Per-request logs (data/request_log_checks.c). */
/** Say how many requests repeat another exactly (a log appended to
 *  itself); they are kept. */
void wc__request_log_warn_repeats(const wc_request_log *log, const char *path, const wc_telemetry_options *opt);
/** Count the requests without a token count, for the columns the log has. */
void wc__request_log_count_missing(wc_request_log *log, int has_input, int has_output);

#endif
