/*
 * Successive scrapes in the Prometheus text exposition format 0.0.4
 * (https://prometheus.io/docs/instrumenting/exposition_formats/), as the
 * DCGM exporter's and vLLM's /metrics serve them. No Debian library
 * parses the format, so this is a small strict line parser: a sample line
 * is `name[{label="value",...}] value [timestamp_ms]`; `# HELP` / `# TYPE`
 * and other comments are skipped, except `# wattcast-scrape TIME
 * [INSTANCE]`, which dates the samples after it (docs/formats/prometheus.md).
 */
#include "data/prom.h"
#include "models/grow.h"
#include "models/limits.h"

#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "data/data.h"
#include "data/fileio.h"
#include "data_internal.h"

#define MAX_LINE 65536
#define WC_PROM_MAX_LABEL_WHY 64

typedef struct {
	const char *origin;
	int line;
	char *s;             /* the line, NUL-terminated (modified in place) */
	size_t i;
	size_t col0;         /* columns before s on its line (a glued marker's text) */
	wc_error *err;
} cursor;

static int
fail(const cursor *c, const char *reason)
{
	return wc_error_set_path(c->err, WC_EPARSE, c->origin, ":%d:%zu: %s", c->line, c->col0 + c->i + 1, reason);
}

static void
skip_blanks(cursor *c)
{
	while (c->s[c->i] == ' ' || c->s[c->i] == '\t')
		c->i++;
}

/* A scrape's names are NUL-terminated in place by the caller after the
 * next token is read. */
size_t
wc_prom_name_length(const char *s, int colon)
{
	size_t n = 0;
	while (isalpha((unsigned char)s[n]) || s[n] == '_' || (colon && s[n] == ':') ||
	       (n > 0 && isdigit((unsigned char)s[n])))
		n++;
	return n;
}

/* "..." with \\, \" and \n; unescaped in place, returns its start. */
static char *
label_value(cursor *c)
{
	if (c->s[c->i] != '"')
		return fail(c, "expected '\"' opening a label value"), NULL;
	char *out = c->s + ++c->i, *w = out;
	for (;;) {
		char ch = c->s[c->i];
		if (ch == '\0')
			return fail(c, "label value not closed by '\"'"), NULL;
		c->i++;
		if (ch == '"')
			break;
		if (ch == '\\') {
			ch = c->s[c->i++];
			if (ch != '\\' && ch != '"' && ch != 'n')
				return c->i--, fail(c, "unknown escape in a label value (only \\\\, \\\" and \\n)"),
				       NULL;
			ch = ch == 'n' ? '\n' : ch;
		}
		*w++ = ch;
	}
	*w = '\0';
	return out;
}

typedef struct {
	const char *names[WC_PROM_MAX_LABELS + 1], *values[WC_PROM_MAX_LABELS + 1];
	size_t n;
} labels;

static int
parse_labels(cursor *c, labels *l, const char *metric, size_t metric_len)
{
	c->i++; /* '{' */
	for (;;) {
		skip_blanks(c);
		if (c->s[c->i] == '}') {
			c->i++;
			return WC_OK;
		}
		size_t n = wc_prom_name_length(c->s + c->i, 0);
		if (n == 0)
			return fail(c, "expected a label name or '}'");
		if (l->n >= WC_PROM_MAX_LABELS) {
			char why[200];
			snprintf(why, sizeof why, "%.*s has more than %d labels", (int)(metric_len > 120 ? 120 : metric_len),
			         metric, WC_PROM_MAX_LABELS);
			return fail(c, why);
		}
		char *name = c->s + c->i;
		c->i += n;
		skip_blanks(c);
		if (c->s[c->i] != '=')
			return fail(c, "expected '=' after a label name");
		name[n] = '\0';
		c->i++;
		skip_blanks(c);
		size_t at = c->i + 1; /* the value's first byte */
		char *v = label_value(c);
		if (!v)
			return WC_EPARSE;
		/* A label value becomes a model name, a run id (Hostname) or a
		 * series name, which a runs table or parameter file cannot hold
		 * unless it is UTF-8 without control bytes (a `\n` escape was
		 * written into the table, which calibrate then could not read):
		 * refused here, where it enters, at the value's first byte, by
		 * a runs table's own check of a cell (docs/formats/prometheus.md,
		 * "Text-exposition scrapes"). */
		char why[WC_PROM_MAX_LABEL_WHY];
		if (wc__text_refused(v, SIZE_MAX, why, sizeof why)) {
			char text[WC_PROM_MAX_LABEL_WHY + 80];
			snprintf(text, sizeof text, "label '%.40s': %s", name, why);
			return c->i = at, fail(c, text);
		}
		for (size_t k = 0; k < l->n; k++)
			if (strcmp(l->names[k], name) == 0)
				return fail(c, "label repeated");
		l->names[l->n] = name;
		l->values[l->n++] = v;
		skip_blanks(c);
		if (c->s[c->i] == ',')
			c->i++;
		else if (c->s[c->i] != '}')
			return fail(c, "expected ',' or '}' after a label value");
	}
}

/* The next blank-separated token, NUL-terminated in place ("" at end). */
static char *
token(cursor *c)
{
	skip_blanks(c);
	char *t = c->s + c->i;
	while (c->s[c->i] && c->s[c->i] != ' ' && c->s[c->i] != '\t')
		c->i++;
	if (c->s[c->i])
		c->s[c->i++] = '\0';
	return t;
}

int
wc__prom_number(const char *t, double *v)
{
	char *end;
	/* strtod reads hexadecimal (0x12C) and skips leading blanks (" 3"
	 * read as 3), which Prometheus refuses (docs/formats/prometheus.md). */
	if (!*t || strpbrk(t, "xX") || isspace((unsigned char)t[0]))
		return WC_EINVAL;
	*v = strtod(t, &end);
	return *end ? WC_EINVAL : WC_OK;
}

/* A sample line of a metric that is not read: skipped before its labels
 * are parsed, as docs/formats/prometheus.md says, so that an info metric
 * carrying its engine's whole configuration as labels (vLLM's
 * vllm:vllm_config_info: dozens of labels, one over 64 KiB) does not
 * refuse the file. Its syntax is not checked. */
static int
unread_metric(const char *s, size_t n, const char *const *keep)
{
	size_t k = 0;
	if (!keep || n == 0 || s[0] == '#')
		return 0;
	while (k < n && (isalpha((unsigned char)s[k]) || s[k] == '_' || s[k] == ':' ||
	                 (k > 0 && isdigit((unsigned char)s[k]))))
		k++;
	if (k == 0 || (k < n && s[k] != '{' && s[k] != ' ' && s[k] != '\t'))
		return 0;
	for (; *keep; keep++)
		if (strlen(*keep) == k && memcmp(*keep, s, k) == 0)
			return 0;
	return 1;
}

static int
in_keep(const char *name, const char *const *keep)
{
	if (!keep)
		return 1;
	for (; *keep; keep++)
		if (strcmp(*keep, name) == 0)
			return 1;
	return 0;
}

typedef struct {
	double time;         /* of the current scrape; NaN before the first */
	char instance[256];
	const char *const *keep;
	wc_prom_set *set;
	size_t scrapes;      /* `# wattcast-scrape` lines read */
	size_t lines;        /* sample lines since the last one */
	int skipping;        /* the current scrape is an error page: skipped */
	size_t n_skipped;    /* such scrapes */
} scrape_state;

static int
has_label(const labels *l, const char *name)
{
	for (size_t k = 0; k < l->n; k++)
		if (strcmp(l->names[k], name) == 0)
			return 1;
	return 0;
}

/* `# wattcast-scrape TIME [INSTANCE]`; other comments are skipped. */
static int
comment_line(cursor *c, scrape_state *st)
{
	static const char tag[] = "# wattcast-scrape";
	if (strncmp(c->s, tag, sizeof tag - 1) != 0 || (c->s[sizeof tag - 1] != ' ' &&
	                                                 c->s[sizeof tag - 1] != '\t'))
		return WC_OK;
	c->i = sizeof tag - 1;
	skip_blanks(c);
	size_t at = c->i;
	const char *t = token(c), *inst;
	double v;
	char why[200];
	/* Epoch seconds out of range (milliseconds from `date +%s%3N`) are
	 * named with the unit they look like, not "expected a time". */
	int rc = wc_prom_parse_time_checked(t, &v, why, sizeof why);
	if (rc == WC_ERANGE)
		return c->i = at, fail(c, why);
	if (rc != WC_OK)
		return c->i = at, fail(c, "expected the scrape's time (epoch seconds or RFC 3339)");
	if (wc_prom_time_check(v, 0, why, sizeof why) != WC_OK)
		return c->i = at, fail(c, why);
	st->time = v;
	skip_blanks(c);
	at = c->i;
	inst = token(c);
	if (strlen(inst) >= sizeof st->instance)
		return c->i = at, fail(c, "instance longer than 255 characters");
	if (wc__text_refused(inst, SIZE_MAX, why, sizeof why)) {
		char text[sizeof why + 16];
		snprintf(text, sizeof text, "instance: %s", why);
		return c->i = at, fail(c, text);
	}
	strcpy(st->instance, inst);
	skip_blanks(c);
	if (c->s[c->i])
		return fail(c, "unexpected text after the instance");
	st->scrapes++;
	st->lines = 0;
	st->skipping = 0;
	return WC_OK;
}

/* At an exemplar ("# {"): the cursor moved to the line's end, 1. */
static int
exemplar(cursor *c)
{
	const char *p = c->s + c->i;
	if (p[0] != '#' || (p[1] != ' ' && p[1] != '\t'))
		return 0;
	p += 2;
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p != '{')
		return 0;
	c->i += strlen(c->s + c->i);
	return 1;
}

static int
sample_line(cursor *c, scrape_state *st)
{
	labels l = { .n = 0 };
	size_t n = wc_prom_name_length(c->s, 1);
	if (n == 0 || isdigit((unsigned char)c->s[0]))
		return fail(c, "expected a metric name");
	char *name = c->s;
	c->i = n;
	if (c->s[c->i] == '{') {
		int rc = parse_labels(c, &l, name, n);
		if (rc != WC_OK)
			return rc;
	} else if (c->s[c->i] == ' ' || c->s[c->i] == '\t') {
		c->i++;
	} else {
		return fail(c, "expected '{' or a blank after the metric name");
	}
	c->s[n] = '\0';
	int keep = in_keep(name, st->keep);
	skip_blanks(c);
	size_t at = c->i;
	char *vt = token(c);
	double v, ts = st->time;
	if (wc__prom_number(vt, &v) != WC_OK)
		return c->i = at, fail(c, "expected a sample value (" WC__PROM_NUMBER_EXPECTED ")");
	skip_blanks(c);
	at = c->i;
	/* An OpenMetrics exemplar (`value [ts] # {trace_id="..."} v [ts]`,
	 * what Accept: application/openmetrics-text brings) describes one
	 * request, not the series: read past, not as a timestamp
	 * (docs/formats/prometheus.md, "Text-exposition scrapes"). */
	char *tt = exemplar(c) ? c->s + c->i : token(c);
	if (*tt) {
		char *end;
		long long ms = strtoll(tt, &end, 10);
		if (*end)
			return c->i = at, fail(c, "expected a timestamp in whole milliseconds");
		char why[200];
		if (wc_prom_time_check((double)ms, 3, why, sizeof why) != WC_OK)
			return c->i = at, fail(c, why);
		ts = (double)ms / 1000.0;
	}
	skip_blanks(c);
	if (c->s[c->i] && !exemplar(c))
		return fail(c, "unexpected text after the timestamp");
	if (!keep)
		return WC_OK;
	if (isnan(ts))
		return c->i = 0, fail(c, "sample without a time: no timestamp and no '# wattcast-scrape TIME' "
		                      "line before it");
	if (st->instance[0] && !has_label(&l, "instance")) {
		l.names[l.n] = "instance";
		l.values[l.n++] = st->instance;
	}
	wc_error e;
	long pos = wc_prom_set_find(st->set, name, l.n, l.names, l.values, &e);
	if (pos < 0)
		return wc_error_set_path(c->err, e.code, c->origin, ":%d: %s", c->line, e.msg);
	char where[32];
	snprintf(where, sizeof where, ":%d: ", c->line);
	return wc__prom_set_append_at(st->set, pos, ts, v, c->origin, where, c->err);
}

/* Whether a scrape's first line (not a comment, not blank) is exposition
 * text: a sample line. A failed scrape saved with `curl -s` and no -f
 * holds its server's error page instead: markup (`<html>...`), JSON
 * (FastAPI's `{"detail":"Not Found"}`) or plain words (Go's `404 page not
 * found`, `Internal Server Error`). A metric name opens a sample line when
 * its labels' `{` follows, or a blank and what a value opens with (a
 * digit, a sign, '.', NaN or Inf); a fault after that (`4W`, `0x12C`) is a
 * malformed sample, refused where it is, not a page. Words are not. */
static int
exposition_line(const char *start, size_t n)
{
	size_t name = wc_prom_name_length(start, 1), v;
	if (name == 0 || isdigit((unsigned char)start[0]) || name >= n)
		return 0;
	if (start[name] == '{')
		return 1;
	for (v = name; v < n && (start[v] == ' ' || start[v] == '\t'); v++)
		;
	if (v == name || v >= n)
		return 0;
	char ch = start[v];
	return isdigit((unsigned char)ch) || ch == '+' || ch == '-' || ch == '.' ||
	       (n - v >= 3 && (strncasecmp(start + v, "nan", 3) == 0 || strncasecmp(start + v, "inf", 3) == 0));
}

/* A scrape whose first line is not exposition text (above). Where
 * `# wattcast-scrape` lines delimit the scrapes, that scrape is skipped to
 * the next such line, said for the first with what it starts with and
 * counted at the end; elsewhere (no such line before it, or sample lines
 * of its scrape before it) it is refused naming what it is, where the
 * whole file was refused at "expected a metric name" or words were read
 * as a metric nobody reads (docs/formats/prometheus.md). */
static int
not_exposition(cursor *c, scrape_state *st, const char *start, size_t lead, size_t n, wc_warn_fn warn,
               void *payload)
{
	char shown[48];
	size_t k = n - lead < 40 ? n - lead : 40;
	for (size_t j = 0; j < k; j++)
		shown[j] = (unsigned char)start[lead + j] < 0x20 || (unsigned char)start[lead + j] >= 0x7f
		           ? '?' : start[lead + j];
	strcpy(shown + k, n - lead > 40 ? "..." : "");
	if (!st->scrapes || st->lines) {
		char why[200];
		snprintf(why, sizeof why, "not exposition text but %s (an HTML or error page saved as a scrape? "
		         "curl -sf leaves them out): it starts '%s'", start[lead] == '<' ? "markup" : start[lead] == '{' || start[lead] == '[' ? "JSON"
		         : "plain text", shown);
		return fail(c, why);
	}
	st->skipping = 1;
	if (st->n_skipped++ == 0 && warn) {
		char msg[WC_ERROR_MSG_MAX], at[40];
		wc_prom_format_time(st->time, at, sizeof at);
		wc_error_format_path(msg, sizeof msg, c->origin, ":%d:1: not exposition text (an HTML or error page, "
		                     "a failed scrape?): the scrape of %.40s at %s is skipped; it starts '%s'",
		                     c->line, st->instance[0] ? st->instance : "its target", at, shown);
		warn(msg, payload);
	}
	return WC_OK;
}

/* A line without its newline (`cut`) is dropped before it is read: the
 * exposition format ends every line with one, and half a line may parse
 * (`281.0` cut to `2`, a counter's `240000` to `24`, then "counter reset"),
 * so no cut line can be told from a whole one (docs/formats/prometheus.md,
 * "A file still being written"). Said for a sample's line, not for a
 * comment's, which holds none. `glued`: the next `# wattcast-scrape` line
 * follows it on the same line (a body saved without its last newline). */
static void
cut_drop(const cursor *c, const char *start, size_t n, int glued, wc_warn_fn warn, void *payload)
{
	size_t lead = 0;
	while (lead < n && (start[lead] == ' ' || start[lead] == '\t'))
		lead++;
	if (lead == n || start[lead] == '#' || !warn)
		return;
	char msg[WC_ERROR_MSG_MAX];
	if (glued)
		wc_error_format_path(msg, sizeof msg, c->origin, ":%d:1: line without its newline, the next "
		                     "'# wattcast-scrape' line glued to it (a scrape cut short?): the line dropped, "
		                     "the next scrape read", c->line);
	else
		wc_error_format_path(msg, sizeof msg, c->origin, ":%d: unfinished last line (no newline: the log was "
		                     "still being written?) dropped: half a line may read as a number", c->line);
	warn(msg, payload);
}

/* Where a `# wattcast-scrape` line begins after other text on one line,
 * 0 when it does not: `curl -s` saves an error body without a newline
 * ("down"), and the loop's next marker is glued to it (docs/fleet.md,
 * "The path end to end"). */
static size_t
glued_marker(const char *start, size_t n)
{
	static const char tag[] = "# wattcast-scrape";
	const size_t k = sizeof tag - 1;
	for (const char *p = start + 1; n > k && p < start + n - k;) {
		const char *h = memchr(p, '#', (size_t)(start + n - k - p));
		if (!h)
			break;
		if (memcmp(h, tag, k) == 0 && (h[k] == ' ' || h[k] == '\t'))
			return (size_t)(h - start);
		p = h + 1;
	}
	return 0;
}

typedef struct {
	cursor c;
	scrape_state st;
	char *line;          /* MAX_LINE + 1 bytes */
	wc_warn_fn warn;
	void *payload;
} reader;

/* One line's text, `n` bytes at `start`, without its line end. `cut`: no
 * newline ends it (the file's last line, or text a marker is glued to);
 * `last`: it is the file's last line. */
static int
read_line(reader *r, const char *start, size_t n, int cut, int last)
{
	cursor *c = &r->c;
	scrape_state *st = &r->st;
	c->i = 0;
	if (st->skipping && (n == 0 || start[0] != '#'))
		return WC_OK; /* an error page's lines, to the next scrape */
	/* A scrape's first line is checked for an error page before a metric
	 * nobody reads skips it unread; a line opening with '<' is one
	 * anywhere. A last line still being written is left to the rule
	 * below: half a line need not look like exposition text. */
	size_t lead = 0;
	while (lead < n && (start[lead] == ' ' || start[lead] == '\t'))
		lead++;
	int page = lead < n && start[0] != '#' &&
	           (start[lead] == '<' || (!st->lines && !last && !exposition_line(start, n)));
	if (page) {
		c->s = r->line; /* fail() names the line at column 1 */
		return not_exposition(c, st, start, lead, n, r->warn, r->payload);
	}
	if (cut) {
		cut_drop(c, start, n, !last, r->warn, r->payload);
		return WC_OK;
	}
	if (unread_metric(start, n, st->keep)) {
		st->lines++;
		return WC_OK;
	}
	if (n > MAX_LINE)
		return fail(c, "line longer than 65536 bytes");
	memcpy(r->line, start, n);
	r->line[n] = '\0';
	c->s = r->line;
	if (memchr(r->line, '\0', n))
		return fail(c, "NUL byte in the line");
	if (r->line[strspn(r->line, " \t")] == '\0')
		return WC_OK;
	if (r->line[0] == '#')
		return comment_line(c, st);
	int rc = sample_line(c, st);
	if (rc == WC_OK)
		st->lines++;
	return rc;
}

int
wc_prom_text_parse(const char *buf, size_t len, const char *origin, const char *const *keep,
                   wc_prom_set *set, wc_warn_fn warn, void *payload, wc_error *err)
{
	wc_error own;
	reader r = { .c = { .origin = origin, .err = err ? err : &own },
	             .st = { .time = NAN, .keep = keep, .set = set }, .warn = warn, .payload = payload };
	size_t pos = 0, n;
	const char *start;
	int rc = WC_OK;
	if (!(r.line = wc_alloc_array(MAX_LINE + 1, 1)))
		return wc_error_set(err, WC_ENOMEM, "out of memory");
	while (rc == WC_OK && (start = wc__next_line(buf, len, &pos, &n)) != NULL) {
		int unfinished = start + n == buf + len; /* no newline after it */
		r.c.line++;
		if (n > 0 && start[n - 1] == '\r')
			n--;
		/* A body without its last newline, the next marker after it:
		 * the body's text first, then the marker's line (the marker
		 * was read as the body's, and the scrape it opens skipped or
		 * read as the one before's). */
		size_t glued = glued_marker(start, n);
		r.c.col0 = 0;
		if (glued && (rc = read_line(&r, start, glued, 1, 0)) != WC_OK)
			break;
		r.c.col0 = glued;
		rc = read_line(&r, start + glued, n - glued, unfinished, unfinished);
	}
	free(r.line);
	wc__prom_set_say_repeats(set, origin, rc == WC_OK ? warn : NULL, payload);
	if (rc == WC_OK && r.st.n_skipped > 1 && warn) {
		char msg[WC_ERROR_MSG_MAX];
		wc_error_format_path(msg, sizeof msg, origin, ": %zu scrapes in all were not exposition text (HTML "
		                     "or error pages): skipped", r.st.n_skipped);
		warn(msg, payload);
	}
	return rc;
}

int
wc_prom_text_read(const char *path, const char *const *keep, wc_prom_set *set, wc_warn_fn warn,
                  void *payload, wc_error *err)
{
	char *buf = NULL;
	size_t len = 0;
	int rc = wc_read_file(path, WC_PROM_TEXT_MAX_BYTES, &buf, &len, err);
	if (rc != WC_OK)
		return rc;
	rc = wc_prom_text_parse(buf, len, path, keep, set, warn, payload, err);
	free(buf);
	return rc;
}
