/*
 * Private to data/: the strict JSON reader behind every loader of
 * wattcast's own JSON formats (json_strict.c). A refusal is
 * "SOURCE: /json/pointer: reason", "SOURCE:LINE:COLUMN: /json/pointer:
 * reason" when the loader keeps the text (json_position.c).
 */
#ifndef WC_DATA_JSON_INTERNAL_H
#define WC_DATA_JSON_INTERNAL_H

#include <jansson.h>
#include <stddef.h>

#include "data/fileio.h"
#include "models/error.h"

#define WC__JSON_PATH_MAX 160

typedef struct {
	const char *source; /* file name (or label) in front of every message */
	wc_error *err;
	/* a parameter file's schema version once read (data/params_read.c),
	 * for the keys and values older versions may not carry; 0 = none */
	int version;
	/* the text parsed, when the loader keeps it: every refusal then names
	 * the line:column of the value at its path (wc__json_value_at) */
	const char *text;
	size_t text_len;
} wc__json_loader;

/** Fill ld->err with "source: path: reason" -- "source:line:column: path:
 *  reason" when ld->text holds the value at `path` -- and return WC_EINVAL. */
int wc__json_fail(wc__json_loader *ld, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/** The same for a check's own message `said`, "pointer: reason" with the
 *  pointer's leading '/' left off (a params file's range checks, made on
 *  the values read: data/params_ranges.c): "source:line:column: /said"
 *  when ld->text holds the value, else "source: /said"; returns `code`. */
int wc__json_fail_said(wc__json_loader *ld, int code, const char *said);
/** Refuse keys outside `allowed` (NULL-terminated) and name the first
 *  missing `required` one; `obj` must be an object. */
int wc__json_check_keys(wc__json_loader *ld, json_t *obj, const char *path,
                        const char *const *allowed, const char *const *required);
/** path + "/" + key, and path + "/" + i, into `out` (WC__JSON_PATH_MAX). */
/** New reference: a JSON number, or null for NaN and infinities (which
 *  JSON cannot hold). */
json_t *wc__json_number_or_null(double v);
/** New reference: a JSON string of `s`, kept (unchecked) when it is not
 *  valid UTF-8, where json_string gives NULL and the setters drop the key;
 *  every string a writer takes from its input goes through it, and
 *  wc__json_check_text refuses what it kept. */
json_t *wc__json_text(const char *s);
/** WC_OK when every string under `root` is valid UTF-8 (wc_utf8_check),
 *  else WC_EINVAL naming the first one's path without the leading '/'
 *  ("model_terms/0/model: not valid UTF-8 at byte 4"). */
int wc__json_check_text(json_t *root, wc_error *err);
/** WC_OK when buf[0..len) is valid UTF-8, else WC_EPARSE with
 *  "path:L:C: not valid UTF-8 at byte K": the line and column (1-based
 *  bytes) where the string holding it starts, and the byte within it. */
int wc__json_refuse_utf8(const char *path, const char *buf, size_t len, wc_error *err);
void wc__json_join(char *out, const char *path, const char *key);
void wc__json_join_index(char *out, const char *path, size_t i);
/** A finite number. */
int wc__json_number(wc__json_loader *ld, json_t *v, const char *path, double *out);
/** An integer in [lo, hi]. */
int wc__json_int(wc__json_loader *ld, json_t *v, const char *path, long long lo, long long hi,
                 long long *out);
/** A string that fits `cap` (with its NUL); null or absent gives "" when
 *  `nullable`. */
int wc__json_string(wc__json_loader *ld, json_t *v, const char *path, int nullable, char *out,
                    size_t cap);
/** [lo, hi], two finite numbers with lo <= hi. */
int wc__json_pair(wc__json_loader *ld, json_t *v, const char *path, double *lo, double *hi);
/** obj[key] when present: null gives NaN, a number must lie in [lo, hi];
 *  absent leaves `*out` as it was. */
int wc__json_optional_number(wc__json_loader *ld, json_t *obj, const char *path, const char *key,
                             double lo, double hi, double *out);
/** 1 when v is a count of [lo, hi]: a whole number in it. One rule for
 *  every count a reader takes -- a request log's token counts
 *  (data/request_log.c), a manifest's request counts and token totals
 *  (data/run_manifest.c). */
int wc__json_is_count(double v, double lo, double hi);
/** obj[key] when present: null gives NaN, a number must be a count of
 *  [lo, hi] (wc__json_is_count), refused as "<pointer>: 12.5 is no <what>
 *  (a whole number, 0 to 1e+17)"; absent leaves `*out` as it was. */
int wc__json_optional_count(wc__json_loader *ld, json_t *obj, const char *path, const char *key,
                            const char *what, double lo, double hi, double *out);
/** obj[key] when present (null gives ""); absent leaves `out` as it was. */
int wc__json_optional_string(wc__json_loader *ld, json_t *obj, const char *path, const char *key,
                             char *out, size_t cap);

/** json_loadb of JSON as Python's json.dump writes it: the bare tokens NaN,
 *  Infinity and -Infinity where a value stands read as null, and
 *  `*replaced` counts them; an error's line and column are the file's
 *  (json_python.c). */
json_t *wc__json_load_python(const char *buf, size_t len, size_t flags, json_error_t *jerr,
                             size_t *replaced);
/** 1 when buf[0..len) holds a value at the JSON pointer `pointer` ("" the
 *  root, "/log_history/5/step"; of the same key the last, as jansson
 *  keeps the last): its line and column (bytes, from 1) and its text
 *  buf[*at..*at + *n) up to the next ',', '}', ']' or blank; else 0
 *  (json_position.c). */
int wc__json_value_at(const char *buf, size_t len, const char *pointer, int *line, int *column, size_t *at,
                      size_t *n);
/** Characters (UTF-8 lead bytes) in text[from, to): a JSON column counts
 *  them, as jansson's do (docs/formats/params-file.md, "Loading is
 *  strict"), one rule for syntax errors and values (data/json_strict.c). */
int wc__json_chars_in(const char *text, size_t from, size_t to);

#endif
