/*
 * CSV fields (RFC 4180 quoting) for the runs table, n(t) series and the
 * telemetry readers. Lines are split in place, so a reader needs one line
 * buffer and no per-field allocation.
 */
#include "data/data.h"
#include "data_internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char wc__csv_too_many_fields[] = "too many fields";
const char wc__csv_line_bom[] = WC__LINE_BOM " remove it";

int
wc__csv_split(char *line, wc__csv_field *fields, int cap, const char **reason)
{
	int stop;
	return wc__csv_split_to(line, fields, cap, reason, &stop);
}

int
wc__field_count_column(int nf, int want, int end_column, int extra_column)
{
	return nf < want ? end_column : extra_column;
}

int
wc__csv_field_count_column(const wc__csv_field *fields, int nf, int want, int stop)
{
	return wc__field_count_column(nf, want, stop, nf > want ? fields[want].column : stop);
}

int
wc__csv_field_count_refuse(wc_error *err, const char *path, int line, const wc__csv_field *fields, int nf,
                           int want, int stop)
{
	return wc_error_set_path(err, WC_EPARSE, path, ":%d:%d: expected %d fields as in the header, got %d", line,
	                         wc__csv_field_count_column(fields, nf, want, stop), want, nf);
}

/* Past the blanks wc__trim skipped: the byte column where the value
 * starts (docs/formats/telemetry.md, "Bad lines"). */
int
wc__csv_cell_column(const wc__csv_field *field, const char *value)
{
	return field->column + (int)(value - field->text);
}

int
wc__csv_split_to(char *line, wc__csv_field *fields, int cap, const char **reason, int *stop)
{
	size_t len = strlen(line);
	/* Every CR before the line's end, not one: a CRLF file passed through a
	 * CRLF conversion again ends its lines CR CR LF, which Python's csv
	 * reads as the row and a blank line; one CR left would stay in the
	 * last field ("p99_itl_ms\r"). */
	while (len > 0 && line[len - 1] == '\r')
		line[--len] = '\0';
	int n = 0;
	char *p = line;
	for (;;) {
		*stop = (int)(p - line) + 1;
		if (n >= cap) {
			*reason = wc__csv_too_many_fields;
			return -1;
		}
		fields[n].column = (int)(p - line) + 1;
		if (*p == '"') {
			/* Unquote in place: `w` trails `r`, doubled quotes collapse. */
			char *r = p + 1, *w = p;
			fields[n].text = w;
			for (;;) {
				if (*r == '\0') {
					*reason = "unterminated quoted field";
					return -1;
				}
				if (*r == '"') {
					if (r[1] == '"') {
						*w++ = '"';
						r += 2;
						continue;
					}
					r++;
					break;
				}
				*w++ = *r++;
			}
			if (*r != ',' && *r != '\0') {
				*reason = "text after a closing quote";
				return -1;
			}
			int last = *r == '\0';
			*w = '\0';
			n++;
			*stop = (int)(r - line) + 1;
			if (last)
				return n;
			p = r + 1;
		} else {
			char *comma = strchr(p, ',');
			fields[n++].text = p;
			if (!comma) {
				*stop = (int)len + 1;
				return n;
			}
			*comma = '\0';
			p = comma + 1;
		}
	}
}

/* The one test, for every CSV reader's header line (power.csv,
 * engine.csv, requests.csv, steps.csv), of a file that is no
 * comma-separated text: gzip-compressed, a control byte, or fields
 * separated by ';' or tabs (a European-locale spreadsheet's export).
 * Said so at the column where it shows, not as a header lacking a column
 * it has (docs/formats/telemetry.md, "Bad lines"). */
int
wc__csv_not_text(const char *line, size_t len, char *why, size_t cap)
{
	size_t b = wc_text_bom_len(line, len), ctrl = b;
	if (wc_text_is_gzip(line, len)) {
		snprintf(why, cap, "a gzip-compressed file, not a text log: decompress it first (gunzip)");
		return 1;
	}
	while (ctrl < len && ((unsigned char)line[ctrl] >= 0x20 || line[ctrl] == '\t' || line[ctrl] == '\r'))
		ctrl++;
	if (ctrl < len) {
		snprintf(why, cap, "control byte 0x%02X at column %zu: not a text log", (unsigned char)line[ctrl],
		         ctrl + 1);
		return (int)ctrl + 1;
	}
	if (memchr(line, ',', len))
		return 0;
	const char *sep = memchr(line, ';', len);
	if (!sep)
		sep = memchr(line, '\t', len);
	if (!sep)
		return 0;
	snprintf(why, cap, "fields separated by '%s', not by commas: write it comma-separated", *sep == ';' ? ";" : "\\t");
	return (int)(sep - line) + 1;
}

void
wc__csv_trim_fields(wc__csv_field *fields, int n)
{
	for (int i = 0; i < n; i++) {
		char *s = fields[i].text + strspn(fields[i].text, " \t");
		size_t len = strlen(s);
		while (len > 0 && (s[len - 1] == ' ' || s[len - 1] == '\t'))
			len--;
		s[len] = '\0';
		fields[i].column += (int)(s - fields[i].text);
		fields[i].text = s;
	}
}

void
wc__csv_header_names(const wc__csv_field *fields, int n, char *out, size_t cap)
{
	size_t o = 0;
	out[0] = '\0';
	for (int i = 0; i < n && cap > 6; i++) {
		char name[32];
		size_t len = strlen(fields[i].text);
		snprintf(name, sizeof name, "%s'%.*s%s'", i ? ", " : "", len > 24 ? 21 : (int)len, fields[i].text,
		         len > 24 ? "..." : "");
		/* room kept for ", ..." while names follow */
		if (o + strlen(name) + (i + 1 < n ? 5 : 0) >= cap) {
			snprintf(out + o, cap - o, ", ...");
			return;
		}
		o += (size_t)snprintf(out + o, cap - o, "%s", name);
	}
}

const char *
wc__next_line(const char *buf, size_t len, size_t *pos, size_t *line_len)
{
	if (*pos >= len)
		return NULL;
	const char *start = buf + *pos;
	const char *nl = memchr(start, '\n', len - *pos);
	size_t n = nl ? (size_t)(nl - start) : len - *pos;
	*pos += n + (nl ? 1 : 0);
	*line_len = n;
	return start;
}

void
wc__csv_lines_init(wc__csv_lines *it, const char *buf, size_t len)
{
	it->buf = buf;
	it->len = len;
	it->pos = 0;
	it->line = 0;
	it->copy = NULL;
	it->stop = 0;
	it->raw = NULL;
	it->raw_len = 0;
}

void
wc__csv_lines_free(wc__csv_lines *it)
{
	free(it->copy);
	it->copy = NULL;
}

int
wc__csv_lines_next(wc__csv_lines *it, wc__csv_field *fields, int cap, const char **reason)
{
	const char *start;
	size_t n;
	while ((start = wc__next_line(it->buf, it->len, &it->pos, &n)) != NULL) {
		it->line++;
		free(it->copy);
		if (!(it->copy = strndup(start, n)))
			return WC_ENOMEM;
		if (it->copy[0] == '#' || it->copy[strspn(it->copy, " \t\r")] == '\0')
			continue;
		it->raw = start;
		it->raw_len = n;
		/* a mark past the first line was quoted as an invisible first
		 * character of a value called unreadable (docs/formats/telemetry.md,
		 * "Bad lines") */
		if (it->line > 1 && wc_text_bom_len(start, n)) {
			it->stop = 1;
			*reason = wc__csv_line_bom;
			return WC__CSV_BAD;
		}
		int nf = wc__csv_split_to(it->copy, fields, cap, reason, &it->stop);
		return nf < 0 ? WC__CSV_BAD : nf;
	}
	return 0;
}

void
wc__csv_put(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\n\r")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

int
wc_decimal_syntax(const char *s, int real, int blanks)
{
	int digits = 0;
	if (blanks)
		s += strspn(s, " \t");
	if (*s == '+' || *s == '-')
		s++;
	for (; *s >= '0' && *s <= '9'; s++)
		digits++;
	if (real && *s == '.')
		for (s++; *s >= '0' && *s <= '9'; s++)
			digits++;
	if (!digits)
		return 0;
	if (real && (*s == 'e' || *s == 'E')) {
		s++;
		if (*s == '+' || *s == '-')
			s++;
		if (!(*s >= '0' && *s <= '9'))
			return 0;
		while (*s >= '0' && *s <= '9')
			s++;
	}
	if (blanks)
		s += strspn(s, " \t");
	return *s == '\0';
}

int
wc_parse_decimal(const char *text, double *out)
{
	char *end;
	if (!wc_decimal_syntax(text, 1, 1))
		return -1;
	errno = 0;
	double v = strtod(text, &end);
	end += strspn(end, " \t");
	if (end == text || *end != '\0' || errno == ERANGE || !isfinite(v))
		return -1;
	*out = v;
	return 0;
}

int
wc__memstream_write_atomic(const char *path, FILE *f, char **buf, size_t *len, wc_error *err)
{
	return wc__memstream_write_batch(NULL, path, f, buf, len, err);
}

int
wc__memstream_write_batch(const wc_write_batch *batch, const char *path, FILE *f, char **buf, size_t *len,
                          wc_error *err)
{
	int rc;
	if (fclose(f) != 0)
		rc = wc_error_set_path(err, WC_ENOMEM, path, ": out of memory");
	else
		rc = wc_write_batch_file(batch, path, *buf, *len, err);
	free(*buf);
	*buf = NULL;
	return rc;
}

/* Also UTF-8: a name jansson refuses would have left a parameter file
 * without it (docs/formats/runs-table.md, "Error messages"). */
int
wc__text_refused(const char *text, size_t cap, char *why, size_t why_cap)
{
	size_t n = strlen(text), at;
	if (n >= cap) {
		snprintf(why, why_cap, "value too long: %zu bytes, at most %zu", n, cap - 1);
		return 1;
	}
	if (wc_utf8_refuse(text, why, why_cap))
		return 1;
	/* a name with a control byte would split a log line or a message
	 * (models/error.h), as POST /v1/calibrate refuses it */
	if ((at = wc_text_control_at(text)) > 0) {
		snprintf(why, why_cap, "control character at byte %zu", at);
		return 1;
	}
	return 0;
}
