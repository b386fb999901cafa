/*
 * Prometheus data (docs/formats/prometheus.md): the samples of labelled
 * series, read from a query_range JSON response (jansson), from text
 * exposition scrapes (a strict line parser: no Debian library parses the
 * format), or fetched from a server's HTTP API (libcurl). A wc_prom_set
 * is zero-initialised by the caller, filled by the readers and released
 * with wc_prom_set_clear; it owns every series, label and sample.
 */
#ifndef WC_DATA_PROM_H
#define WC_DATA_PROM_H

#include <stddef.h>

#include "data/telemetry.h"
#include "models/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Labels a series may carry (beyond that a reader refuses it). */
#define WC_PROM_MAX_LABELS 32

/** One series: its metric name, labels (sorted by name, `__name__` left
 *  out) and samples in strictly increasing time (epoch seconds). A NaN
 *  value is a NaN sample as Prometheus stores it. */
typedef struct {
	char *metric;
	char *key;                 /* metric{a="x",b="y"}: the series' identity */
	size_t n_labels;
	char *names[WC_PROM_MAX_LABELS], *values[WC_PROM_MAX_LABELS];
	double *t, *v;
	size_t n, cap;
	int query_range;           /* read from an API answer (wc_prom_json_parse): a
	                            * query_range's times lie on start + k * step */
} wc_prom_series;

typedef struct {
	wc_prom_series *s;
	size_t n, cap;
	void *index;               /* key -> position (private) */
	/* (private) samples dropped as repeats of the one before (same time,
	 * same value) since a reader last said so, and the first of them */
	size_t n_repeated;
	long repeated_pos;
	double repeated_t;
} wc_prom_set;

/** Append the sample (t, v) to the series `metric` with these labels,
 *  created when new. A sample at the series' last time with its value
 *  (pages sharing a step, overlapping scrape logs) is dropped and counted,
 *  as Prometheus drops such duplicates; another at or before the last time
 *  is refused (the message names the series, the time and the remedy). */
int wc_prom_set_add(wc_prom_set *set, const char *metric, size_t n_labels,
                    const char *const *names, const char *const *values, double t, double v,
                    wc_error *err);
/** The position of series `metric` with these labels, created when new;
 *  -1 with `err` set when it cannot be. */
long wc_prom_set_find(wc_prom_set *set, const char *metric, size_t n_labels,
                      const char *const *names, const char *const *values, wc_error *err);
/** Append (t, v) to series `pos`, refused as in wc_prom_set_add. */
int wc_prom_set_append(wc_prom_set *set, long pos, double t, double v, wc_error *err);
/** Keep series i where keep[i] is non-zero (in order), free the others. */
int wc_prom_set_retain(wc_prom_set *set, const unsigned char *keep, wc_error *err);
/** Free every series and sample: the set is zeroed. */
void wc_prom_set_clear(wc_prom_set *set);
/** Value of label `name`, or NULL (borrowed). */
const char *wc_prom_label(const wc_prom_series *s, const char *name);

/** Read a query_range (or query) response: `{"status":"success","data":
 *  {"resultType":"matrix","result":[{"metric":{...},"values":[[t,"v"],...]}]}}`.
 *  Each series is named by its `__name__`; `metric`, when non-NULL,
 *  names those without one (a query whose functions dropped it). An error status is returned as the
 *  server's errorType and error. `origin` names the input in messages.
 *  Each entry of the answer's `warnings` and `infos` (a partial answer)
 *  is said through `warn` (NULL: silent), named by `origin`. */
int wc_prom_json_parse(const char *buf, size_t len, const char *origin, const char *metric,
                       wc_prom_set *set, wc_warn_fn warn, void *payload, wc_error *err);
int wc_prom_json_read(const char *path, wc_prom_set *set, wc_warn_fn warn, void *payload, wc_error *err);

/** Read successive text-exposition scrapes (format 0.0.4). A sample's
 *  time is its own timestamp (ms) or else the last `# wattcast-scrape
 *  TIME [INSTANCE]` line's (TIME in epoch seconds or RFC 3339; INSTANCE
 *  becomes the `instance` label of samples without one). Only metrics
 *  named in `keep` (NULL-terminated; NULL = all) are stored; lines of
 *  other metrics are skipped unparsed. Errors name file:line:column and
 *  the reason; a last line without a newline that would be an error (a
 *  file still being appended to) is dropped with a warning through `warn`
 *  giving that error's reason (NULL: silent; docs/formats/prometheus.md). */
int wc_prom_text_parse(const char *buf, size_t len, const char *origin,
                       const char *const *keep, wc_prom_set *set, wc_warn_fn warn, void *payload,
                       wc_error *err);
int wc_prom_text_read(const char *path, const char *const *keep, wc_prom_set *set,
                      wc_warn_fn warn, void *payload, wc_error *err);

/** GET `base`/api/v1/query_range for `query` over [start, end] every
 *  `step` seconds (libcurl), waiting at most `timeout_s` for the answer
 *  (10 s at most for the connection), and add the result to `set`; `metric`,
 *  `warn` and `payload` as for wc_prom_json_parse. An unreachable server, an HTTP error or an error
 *  status is an error naming the URL and the server's reason. */
int wc_prom_http_query_range(const char *base, const char *query, double start, double end,
                             double step, double timeout_s, const char *metric, wc_prom_set *set,
                             wc_warn_fn warn, void *payload, wc_error *err);
/** `url` for messages and the runs table: a user and password in it
 *  (user:password@host) become `***@host`, parsed by
 *  libcurl's URL API; other URLs are copied (docs/fleet.md, "Queries"). */
void wc_prom_url_mask(const char *url, char *buf, size_t size);
/** Room for a masked URL in messages (longer ones are cut). */
#define WC_PROM_URL_SHOWN 512
/** A request's wait for its whole answer by default (timeout_s <= 0),
 *  far above a page's response (docs/cli.md, `--timeout`). */
#define WC_PROM_HTTP_TIMEOUT_S 300.0

/** Epoch seconds from RFC 3339 (`2026-01-01T00:00:00Z`, `...+02:00`,
 *  fractions allowed) or a plain number of seconds, as promtool takes
 *  them. WC_EINVAL when neither. */
int wc_prom_parse_time(const char *text, double *out);
/** wc_prom_parse_time, except that a plain number outside the plausible
 *  years below is WC_ERANGE with wc_prom_time_check's reason in `buf` (the
 *  unit it looks like: `date +%s%3N` milliseconds): the one reading of a
 *  scrape's time and of `--start`/`--end`. WC_EINVAL when neither form. */
int wc_prom_parse_time_checked(const char *text, double *out, char *buf, size_t size);
/** `t`, read from `text` by wc_prom_parse_time, to the nearest whole
 *  millisecond, a half away from zero as the text's digits say (Prometheus
 *  times and --step are whole milliseconds): --start 1733600000.0005 kept
 *  its half millisecond, asked for .000 (the URL's %.3f of its binary
 *  value, 0.000499...) and refused the server's answer as off the grid
 *  (docs/fleet.md, "Queries"). */
double wc_prom_time_whole_ms(const char *text, double t);
/** Sample times before 2000-01-01 or from 2100-01-01 on are refused
 *  (docs/formats/prometheus.md, "Times"): a timestamp in the wrong unit
 *  lands decades away, and was taken as is. */
#define WC_PROM_TIME_MIN 946684800.0   /* 2000-01-01T00:00:00Z */
#define WC_PROM_TIME_MAX 4102444800.0  /* 2100-01-01T00:00:00Z */
/** WC_OK when `raw`, a time in units of 10^-`exp10` s since the epoch
 *  (0: seconds, 3: milliseconds), is in the plausible range; else
 *  WC_ERANGE and into `buf` a reason naming the value, its date and the
 *  unit it looks like. */
int wc_prom_time_check(double raw, int exp10, char *buf, size_t size);
/** 1 when `t`, meant as epoch seconds, is out of range as seconds but in
 *  range as milliseconds, microseconds or nanoseconds (a logger that wrote
 *  Date.now() or time.time_ns()), with wc_prom_time_check's reason in
 *  `buf`; else 0. A log's first time is refused on it naming the unit,
 *  instead of the clock check blaming the UTC offset. */
int wc_prom_time_other_unit(double t, char *buf, size_t size);
/** Length of the Prometheus name at `s`: [a-zA-Z_:][a-zA-Z0-9_:]* for a
 *  metric (`colon`), the same without ':' for a label; 0 when none. The
 *  one name rule of scrapes and of `--selector` (data/prom_text.c). */
size_t wc_prom_name_length(const char *s, int colon);
/** `t` as RFC 3339 UTC with milliseconds, for messages. */
void wc_prom_format_time(double t, char *buf, size_t size);

#ifdef __cplusplus
}
#endif
#endif
