/*
 * The series of a wc_prom_set (data/prom.h): identity by metric and sorted
 * labels, samples appended in time order, and the time spellings
 * Prometheus and promtool accept (docs/formats/prometheus.md).
 */
#include "data/data.h"
#include "data/prom.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "data_internal.h"
#include "models/grow.h"

static char *
dup_text(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = wc_alloc_array(n, 1);
	if (d)
		memcpy(d, s, n);
	return d;
}

/* metric{a="x",b="y"} with the labels in name order (`order` holds the
 * indices sorted), values verbatim: the key is the series' identity and
 * its name in messages, never parsed back. */
static char *
make_key(const char *metric, size_t n, const char *const *names, const char *const *values,
         const size_t *order)
{
	size_t len = strlen(metric) + 3;
	for (size_t i = 0; i < n; i++)
		len += strlen(names[i]) + strlen(values[i]) + 4;
	char *k = wc_alloc_array(len, 1), *p = k;
	if (!k)
		return NULL;
	p += sprintf(p, "%s{", metric);
	for (size_t i = 0; i < n; i++)
		p += sprintf(p, "%s%s=\"%s\"", i ? "," : "", names[order[i]], values[order[i]]);
	strcpy(p, "}");
	return k;
}

static int
new_series(wc_prom_series *s, const char *metric, char *key, size_t n, const char *const *names,
           const char *const *values, const size_t *order)
{
	memset(s, 0, sizeof *s);
	s->key = key;
	s->metric = dup_text(metric);
	if (!s->metric)
		return WC_ENOMEM;
	for (size_t i = 0; i < n; i++) {
		s->names[i] = dup_text(names[order[i]]);
		s->values[i] = dup_text(values[order[i]]);
		s->n_labels = i + 1;
		if (!s->names[i] || !s->values[i])
			return WC_ENOMEM;
	}
	return WC_OK;
}

static void
free_series(wc_prom_series *s)
{
	for (size_t i = 0; i < s->n_labels; i++) {
		free(s->names[i]);
		free(s->values[i]);
	}
	free(s->metric);
	free(s->key);
	free(s->t);
	free(s->v);
}

long
wc_prom_set_find(wc_prom_set *set, const char *metric, size_t n, const char *const *names,
            const char *const *values, wc_error *err)
{
	size_t order[WC_PROM_MAX_LABELS];
	if (n > WC_PROM_MAX_LABELS)
		return wc_error_set(err, WC_EINVAL, "%s: more than %d labels", metric, WC_PROM_MAX_LABELS),
		       -1;
	for (size_t i = 0; i < n; i++) { /* insertion sort: a handful of labels */
		size_t j = i;
		while (j > 0 && strcmp(names[order[j - 1]], names[i]) > 0) {
			order[j] = order[j - 1];
			j--;
		}
		order[j] = i;
	}
	char *key = make_key(metric, n, names, values, order);
	if (!key)
		return wc_error_set(err, WC_ENOMEM, "out of memory"), -1;
	if (!set->index && !(set->index = calloc(1, sizeof(wc_strmap)))) {
		free(key);
		return wc_error_set(err, WC_ENOMEM, "out of memory"), -1;
	}
	int pos;
	if (wc_strmap_get(set->index, key, &pos)) {
		free(key);
		return pos;
	}
	if (set->n >= (size_t)1 << 30 ||
	    !(set->s = wc_grow(set->s, &set->cap, set->n + 1, sizeof *set->s, 16))) {
		free(key);
		return wc_error_set(err, WC_ENOMEM, "out of memory"), -1;
	}
	wc_prom_series *s = &set->s[set->n];
	if (new_series(s, metric, key, n, names, values, order) != WC_OK ||
	    wc_strmap_put(set->index, key, (int)set->n) != WC_OK) {
		free_series(s);
		return wc_error_set(err, WC_ENOMEM, "out of memory"), -1;
	}
	return (long)set->n++;
}

int
wc_prom_set_add(wc_prom_set *set, const char *metric, size_t n_labels,
                const char *const *names, const char *const *values, double t, double v,
                wc_error *err)
{
	long pos = wc_prom_set_find(set, metric, n_labels, names, values, err);
	if (pos < 0)
		return err ? err->code : WC_EINVAL;
	return wc_prom_set_append(set, pos, t, v, err);
}

int
wc_prom_set_append(wc_prom_set *set, long pos, double t, double v, wc_error *err)
{
	return wc__prom_set_append_at(set, pos, t, v, NULL, "", err);
}

/* A reader's message is ORIGIN WHERE SERIES: REASON, and a series with a
 * DCGM exporter's 7 to 10 labels takes 200 bytes of the 255: cut at the
 * end, the reason was lost (`...: sample at 2026-12-06T02:52:43...`) and
 * the path rule put "..." before a file name given whole. The series gives
 * way (docs/fleet.md, "Problems in the data"); the origin keeps up to
 * ORIGIN_ROOM bytes, a longer path being shortened by the path rule. */
#define ORIGIN_ROOM 64

int
wc__prom_set_append_at(wc_prom_set *set, long pos, double t, double v, const char *origin, const char *where,
                       wc_error *err)
{
	wc_prom_series *s = &set->s[pos];
	const char *why = NULL;
	char a[40], b[40], text[224], name[WC_ERROR_MSG_MAX];
	if (!isfinite(t)) {
		why = "time is not a finite number";
	} else if (s->n && t == s->t[s->n - 1] &&
	           (v == s->v[s->n - 1] || (isnan(v) && isnan(s->v[s->n - 1])))) {
		/* The sample before again: pages of a query sharing their
		 * boundary step (query_range holds both ends), a scrape in two
		 * overlapping logs. Prometheus drops such a duplicate; it was
		 * refused, and a whole day with it (docs/formats/prometheus.md). */
		if (set->n_repeated++ == 0) {
			set->repeated_pos = pos;
			set->repeated_t = t;
		}
		return WC_OK;
	} else if (s->n && t <= s->t[s->n - 1]) {
		/* Another value at that time, or a time gone back: no repeat
		 * to drop. The remedy where there is one: pages that do not
		 * overlap, files in order. */
		wc_prom_format_time(t, a, sizeof a);
		wc_prom_format_time(s->t[s->n - 1], b, sizeof b);
		snprintf(text, sizeof text, "sample at %s is not after the previous one (%s%s): %s", a, b,
		         t == s->t[s->n - 1] ? ", another value" : "",
		         s->query_range ? "save pages of a query with start = the previous page's end + step"
		                        : "give the scrape logs in time order (a clock set back?)");
		why = text;
	}
	if (why) {
		size_t o = origin ? strlen(origin) : 0;
		wc_error_name_cut(s->key, wc_error_name_room((o < ORIGIN_ROOM ? o : ORIGIN_ROOM) + strlen(where) +
		                                             2 + strlen(why), 1), name, sizeof name);
		return origin ? wc_error_set_path(err, WC_EINVAL, origin, "%s%s: %s", where, name, why)
		              : wc_error_set(err, WC_EINVAL, "%s%s: %s", where, name, why);
	}
	size_t cap = s->cap;
	double *nt = wc_grow(s->t, &cap, s->n + 1, sizeof *nt, 64);
	if (!nt)
		return wc_error_set(err, WC_ENOMEM, "out of memory");
	s->t = nt;
	cap = s->cap;
	double *nv = wc_grow(s->v, &cap, s->n + 1, sizeof *nv, 64);
	if (!nv)
		return wc_error_set(err, WC_ENOMEM, "out of memory");
	s->v = nv;
	s->cap = cap;
	s->t[s->n] = t;
	s->v[s->n] = v;
	s->n++;
	return WC_OK;
}

void
wc__prom_set_say_repeats(wc_prom_set *set, const char *origin, wc_warn_fn warn, void *payload)
{
	if (!set->n_repeated)
		return;
	if (warn && set->repeated_pos >= 0 && (size_t)set->repeated_pos < set->n) {
		char msg[WC_ERROR_MSG_MAX + 300], at[40];
		wc_prom_format_time(set->repeated_t, at, sizeof at);
		wc_error_format_path(msg, WC_ERROR_MSG_MAX, origin, ": %zu sample%s dropped, each the time and value "
		                     "of the one before (pages sharing a step, overlapping scrape logs), as "
		                     "Prometheus drops them; the first at %s: ", set->n_repeated,
		                     set->n_repeated == 1 ? "" : "s", at);
		size_t n = strlen(msg);
		snprintf(msg + n, sizeof msg - n, "%.280s", set->s[set->repeated_pos].key);
		warn(msg, payload);
	}
	set->n_repeated = 0;
}

void
wc_prom_set_clear(wc_prom_set *set)
{
	for (size_t i = 0; i < set->n; i++)
		free_series(&set->s[i]);
	free(set->s);
	if (set->index) {
		wc_strmap_free(set->index);
		free(set->index);
	}
	memset(set, 0, sizeof *set);
}

int
wc_prom_set_retain(wc_prom_set *set, const unsigned char *keep, wc_error *err)
{
	size_t n = 0;
	if (set->index) {
		wc_strmap_free(set->index);
		memset(set->index, 0, sizeof(wc_strmap));
	}
	for (size_t i = 0; i < set->n; i++) {
		if (!keep[i]) {
			free_series(&set->s[i]);
			continue;
		}
		set->s[n] = set->s[i];
		if (set->index && wc_strmap_put(set->index, set->s[n].key, (int)n) != WC_OK) {
			for (size_t j = i + 1; j < set->n; j++)
				free_series(&set->s[j]);
			set->n = n + 1;
			return wc_error_set(err, WC_ENOMEM, "out of memory");
		}
		n++;
	}
	set->n = n;
	return WC_OK;
}

const char *
wc_prom_label(const wc_prom_series *s, const char *name)
{
	for (size_t i = 0; i < s->n_labels; i++)
		if (strcmp(s->names[i], name) == 0)
			return s->values[i];
	return NULL;
}

static int
days_in(int y, int mo)
{
	static const int days[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
	return days[mo - 1] + (mo == 2 && leap);
}

/* RFC 3339: date 'T' time, optional fraction, 'Z' or +hh:mm / -hh:mm. A
 * day the month lacks is refused: timegm carried 2026-02-30 to March 2. */
static int
parse_rfc3339(const char *text, double *out)
{
	int y, mo, d, h, mi, used = 0;
	double sec;
	if (sscanf(text, "%4d-%2d-%2d%*1[Tt ]%2d:%2d:%lf%n", &y, &mo, &d, &h, &mi, &sec, &used) != 6)
		return WC_EINVAL;
	if (mo < 1 || mo > 12 || d < 1 || d > days_in(y, mo) || h > 23 || mi > 59 || !(sec >= 0 && sec < 61))
		return WC_EINVAL;
	const char *z = text + used;
	long off = 0;
	if (*z == 'Z' || *z == 'z') {
		z++;
	} else if (*z == '+' || *z == '-') {
		int oh, om, n2 = 0;
		if (sscanf(z + 1, "%2d:%2d%n", &oh, &om, &n2) != 2 || n2 != 5 || oh > 23 || om > 59)
			return WC_EINVAL;
		off = (*z == '-' ? -1 : 1) * (oh * 3600L + om * 60L);
		z += 1 + n2;
	} else {
		return WC_EINVAL;
	}
	if (*z)
		return WC_EINVAL;
	/* Second 60 is a leap second, 23:59:60 UTC, or no time at all:
	 * 23:00:60 was carried into the next minute as days are not
	 * (docs/formats/prometheus.md, "Times"). */
	if (sec >= 60 && ((h * 60L + mi - off / 60) % 1440 + 1440) % 1440 != 1439)
		return WC_EINVAL;
	struct tm tm = { .tm_year = y - 1900, .tm_mon = mo - 1, .tm_mday = d, .tm_hour = h,
	                 .tm_min = mi };
	double whole = floor(sec);
	tm.tm_sec = (int)whole;
	*out = (double)timegm(&tm) + (sec - whole) - (double)off;
	return WC_OK;
}

int
wc_prom_parse_time(const char *text, double *out)
{
	double v;
	if (wc_parse_decimal(text, &v) == WC_OK) {
		if (!isfinite(v) || v < 0 || v > 1e11)
			return WC_EINVAL;
		*out = v;
		return WC_OK;
	}
	return parse_rfc3339(text, out);
}

double
wc_prom_time_whole_ms(const char *text, double t)
{
	const char *dot = strchr(text, '.');
	if (!isfinite(t) || strpbrk(text, "eE") || !dot)
		return round(t * 1000.0) / 1000.0;
	/* The fraction's digits as written: 0.0005 is 0.000499... in binary,
	 * whose rounding took the half down. */
	long ms = 0;
	int k = 0;
	for (const char *p = dot + 1; isdigit((unsigned char)*p) && k < 4; p++, k++)
		ms = ms * 10 + (*p - '0');
	for (; k < 4; k++)
		ms *= 10;
	ms = (ms + 5) / 10;
	return round(t - strtod(dot, NULL)) + (double)ms / 1000.0;
}

int
wc_prom_parse_time_checked(const char *text, double *out, char *buf, size_t size)
{
	double v;
	if (wc_parse_decimal(text, &v) == WC_OK && isfinite(v) && wc_prom_time_check(v, 0, buf, size) != WC_OK)
		return WC_ERANGE;
	return wc_prom_parse_time(text, out);
}

int
wc_prom_time_other_unit(double t, char *buf, size_t size)
{
	if (!isfinite(t) || (t >= WC_PROM_TIME_MIN && t < WC_PROM_TIME_MAX))
		return 0;
	for (int a = 3; a <= 9; a += 3) {
		double u = t / pow(10.0, a);
		if (u >= WC_PROM_TIME_MIN && u < WC_PROM_TIME_MAX) {
			wc_prom_time_check(t, 0, buf, size);
			return 1;
		}
	}
	return 0;
}

static const char *
unit_name(int exp10)
{
	return exp10 == 0 ? "seconds" : exp10 == 3 ? "milliseconds" : exp10 == 6 ? "microseconds"
	       : "nanoseconds";
}

int
wc_prom_time_check(double raw, int exp10, char *buf, size_t size)
{
	double t = raw / pow(10.0, exp10);
	if (t >= WC_PROM_TIME_MIN && t < WC_PROM_TIME_MAX)
		return WC_OK;
	char at[40], hint[80] = "";
	wc_prom_format_time(t, at, sizeof at);
	/* The unit that puts it in range, when one does. */
	for (int a = 0; a <= 9; a += 3) {
		double u = raw / pow(10.0, a);
		if (a != exp10 && u >= WC_PROM_TIME_MIN && u < WC_PROM_TIME_MAX) {
			snprintf(hint, sizeof hint, "; it looks like %s", unit_name(a));
			break;
		}
	}
	char num[40], when[64];
	if (fabs(raw) < 1e18 && raw == floor(raw))
		snprintf(num, sizeof num, "%.0f", raw);
	else
		snprintf(num, sizeof num, "%.15g", raw);
	if (t < WC_PROM_TIME_MIN)
		snprintf(when, sizeof when, "%s, before 2000-01-01", at);
	else
		snprintf(when, sizeof when, "after 2100-01-01");
	snprintf(buf, size, "time %s (%s since the epoch) is %s%s", num, unit_name(exp10), when, hint);
	return WC_ERANGE;
}

void
wc_prom_format_time(double t, char *buf, size_t size)
{
	if (!isfinite(t) || fabs(t) > 1e11) {
		snprintf(buf, size, "%g", t);
		return;
	}
	double whole = floor(t);
	time_t s = (time_t)whole;
	int ms = (int)lround((t - whole) * 1000.0);
	if (ms == 1000) {
		s++;
		ms = 0;
	}
	struct tm tm;
	gmtime_r(&s, &tm);
	snprintf(buf, size, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1,
	         tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ms);
}
