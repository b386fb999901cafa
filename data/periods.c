/*
 * Periods tables (docs/formats/periods-table.md): strict CSV reading in the
 * style of the runs table -- a header naming the columns, `#` comments,
 * file:line:column on every refusal.
 */
#include "data/data.h"
#include "data/periods.h"
#include "models/limits.h"

#include "data/fileio.h"
#include "data_internal.h"
#include "models/grow.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PERIODS_MAX_FIELDS 64

enum { PC_ID, PC_PLATFORM, PC_MODEL, PC_TP, PC_RUNNING, PC_IN, PC_OUT, PC_PERIOD, PC_WEIGHTS, PC_KV,
       PC_SET, PC_EXCLUDE, PC_COUNT };
static const char *const pc_names[PC_COUNT] = {
	"run_id", "platform", "model", "tp", "running", "input_tokens", "output_tokens", "period_s",
	"weights", "kv_cache", "set", "exclude",
};
static const int pc_required[PC_COUNT] = { 0, 1, 1, 1, 1, 0, 1, 1, 0, 0, 0, 0 };

typedef struct {
	const char *path;
	int line;
	wc_error *err;
} reader;

static int
cell_error(reader *rd, const wc__csv_field *f, int c, const char *what)
{
	return wc_error_set_path(rd->err, WC_EPARSE, rd->path, ":%d:%d: column '%s': %s, got '%s'", rd->line,
	                         f->column, pc_names[c], what, f->text);
}

static int
blank(const char *s)
{
	return s[strspn(s, " \t")] == '\0';
}

static int
number(reader *rd, const wc__csv_field *f, int c, double min_excl, double *out)
{
	if (blank(f->text)) {
		*out = NAN;
		return pc_required[c] ? cell_error(rd, f, c, "value is required") : WC_OK;
	}
	if (wc_parse_decimal(f->text, out) != 0)
		return cell_error(rd, f, c, "expected a number");
	if (!(*out > min_excl))
		return cell_error(rd, f, c, min_excl < 0 ? "must be >= 0" : "must be > 0");
	return WC_OK;
}

static int
text(reader *rd, const wc__csv_field *f, int c, char *out, size_t cap)
{
	if (pc_required[c] && blank(f->text))
		return cell_error(rd, f, c, "value is required");
	char why[64]; /* in bytes, the one check of every table (docs/formats/runs-table.md) */
	if (wc__text_refused(f->text, cap, why, sizeof why))
		return cell_error(rd, f, c, why);
	snprintf(out, cap, "%s", f->text);
	return WC_OK;
}

static int
cell(reader *rd, const wc__csv_field *f, int c, wc_period_row *r)
{
	double v;
	int rc;
	switch (c) {
	case PC_ID: return text(rd, f, c, r->run_id, sizeof r->run_id);
	case PC_PLATFORM: return text(rd, f, c, r->platform, sizeof r->platform);
	case PC_MODEL: return text(rd, f, c, r->model, sizeof r->model);
	case PC_SET: return text(rd, f, c, r->set, sizeof r->set);
	case PC_EXCLUDE: return text(rd, f, c, r->exclude, sizeof r->exclude);
	case PC_TP:
		if ((rc = number(rd, f, c, 0, &v)))
			return rc;
		if (v != floor(v) || v > WC_LAW_MAX_TP) {
			char what[48];
			snprintf(what, sizeof what, "expected a whole number between 1 and %d", WC_LAW_MAX_TP);
			return cell_error(rd, f, c, what);
		}
		r->tp = (int)v;
		return WC_OK;
	case PC_RUNNING: return number(rd, f, c, 0, &r->running);
	case PC_IN: return number(rd, f, c, -1e-300, &r->input_tokens);
	case PC_OUT: return number(rd, f, c, 0, &r->output_tokens);
	case PC_PERIOD:
		/* A period beyond a day is a typo or a unit slip, not a batch
		 * turnover (WC_RUN_MAX_TIME_S, docs/formats/periods-table.md). */
		if ((rc = number(rd, f, c, 0, &r->period_s)) == WC_OK && r->period_s > WC_RUN_MAX_TIME_S) {
			char what[48];
			snprintf(what, sizeof what, "must be at most %g s (a day)", WC_RUN_MAX_TIME_S);
			return cell_error(rd, f, c, what);
		}
		return rc;
	case PC_WEIGHTS:
	case PC_KV: {
		wc_precision *p = c == PC_KV ? &r->kv : &r->weights;
		if (blank(f->text))
			return WC_OK;
		if (wc_precision_from_name(f->text, p) != WC_OK || (c == PC_KV && *p == WC_PREC_INT4))
			return cell_error(rd, f, c, c == PC_KV ? "expected bf16 or fp8" : "expected bf16, fp8 or int4");
		return WC_OK;
	}
	}
	return WC_OK;
}

static int
header(reader *rd, const wc__csv_field *f, int n, int *idx)
{
	for (int c = 0; c < PC_COUNT; c++) {
		idx[c] = -1;
		for (int i = 0; i < n; i++)
			if (strcmp(f[i].text, pc_names[c]) == 0)
				idx[c] = i;
		if (idx[c] < 0 && pc_required[c])
			return wc_error_set_path(rd->err, WC_EPARSE, rd->path, ":%d:1: missing required column '%s'",
			                         rd->line, pc_names[c]);
	}
	return WC_OK;
}

static int
row(reader *rd, const wc__csv_field *f, const int *idx, wc_periods_table *t)
{
	wc_period_row r;
	int rc;
	memset(&r, 0, sizeof r);
	r.input_tokens = NAN;
	r.line = rd->line;
	for (int c = 0; c < PC_COUNT; c++)
		if (idx[c] >= 0 && (rc = cell(rd, &f[idx[c]], c, &r)))
			return rc;
	if (!r.run_id[0]) {
		/* The default id keeps its end, "|tpG|lineL", which makes it
		 * unique: a long model gives way in the middle, between UTF-8
		 * characters (docs/formats/periods-table.md). */
		char head[sizeof r.platform + sizeof r.model + 1], tail[40];
		size_t room = sizeof r.run_id - 1 - (size_t)snprintf(tail, sizeof tail, "|tp%d|line%d", r.tp, r.line);
		size_t n = (size_t)snprintf(head, sizeof head, "%s|%s", r.platform, r.model);
		if (n > room)
			n = wc_utf8_keep(head, room - 3);
		snprintf(r.run_id, sizeof r.run_id, "%.*s%s%s", (int)n, head, n < strlen(head) ? "..." : "", tail);
	}
	wc_period_row *nr = wc_grow(t->rows, &t->cap_rows, t->n_rows + 1, sizeof *t->rows, 16);
	if (!nr)
		return wc_error_set_path(rd->err, WC_ENOMEM, rd->path, ": out of memory");
	t->rows = nr;
	t->rows[t->n_rows++] = r;
	return WC_OK;
}

static int
parse(reader *rd, const char *buf, size_t len, wc_periods_table *t)
{
	wc__csv_field *f = wc_alloc_array(PERIODS_MAX_FIELDS, sizeof *f);
	wc__csv_lines it;
	int idx[PC_COUNT], n, have_header = 0, n_header = 0, rc = WC_OK;
	const char *reason = NULL;
	if (!f)
		return wc_error_set_path(rd->err, WC_ENOMEM, rd->path, ": out of memory");
	wc__csv_lines_init(&it, buf, len);
	while (rc == WC_OK && (n = wc__csv_lines_next(&it, f, PERIODS_MAX_FIELDS, &reason)) != 0) {
		rd->line = it.line;
		if (n == WC_ENOMEM)
			rc = wc_error_set_path(rd->err, WC_ENOMEM, rd->path, ": out of memory");
		else if (n == WC__CSV_BAD)
			rc = wc_error_set_path(rd->err, WC_EPARSE, rd->path, ":%d:%d: %s", rd->line, it.stop, reason);
		else if (!have_header) {
			rc = header(rd, f, n, idx);
			have_header = 1;
			n_header = n;
		} else if (n != n_header) {
			rc = wc__csv_field_count_refuse(rd->err, rd->path, rd->line, f, n, n_header, it.stop);
		} else {
			rc = row(rd, f, idx, t);
		}
	}
	if (rc == WC_OK && !have_header)
		rc = wc_error_set_path(rd->err, WC_EPARSE, rd->path, ":1:1: no header row");
	wc__csv_lines_free(&it);
	free(f);
	return rc;
}

int
wc_periods_read(const char *path, wc_periods_table **out, wc_error *err)
{
	char *buf = NULL;
	size_t len = 0;
	reader rd = { path, 0, err };
	int rc;
	*out = NULL;
	wc_periods_table *t = calloc(1, sizeof *t);
	if (!t)
		return wc_error_set_path(err, WC_ENOMEM, path, ": out of memory");
	if ((rc = wc_read_file(path, WC_PERIODS_MAX_BYTES, &buf, &len, err)) == WC_OK) {
		snprintf(t->path, sizeof t->path, "%s", path);
		wc_sha256_hex(buf, len, t->sha256);
		rc = parse(&rd, buf, len, t);
	}
	free(buf);
	if (rc != WC_OK) {
		wc_periods_free(t);
		return rc;
	}
	*out = t;
	return WC_OK;
}

void
wc_periods_free(wc_periods_table *t)
{
	if (!t)
		return;
	free(t->rows);
	free(t);
}

int
wc_periods_detect(const char *path)
{
	char *buf = NULL;
	size_t len = 0;
	wc__csv_field f[PERIODS_MAX_FIELDS];
	wc__csv_lines it;
	const char *reason;
	int found = 0, power = 0;
	if (wc_read_file(path, WC_PERIODS_MAX_BYTES, &buf, &len, NULL) != WC_OK)
		return 0;
	wc__csv_lines_init(&it, buf, len);
	int n = wc__csv_lines_next(&it, f, PERIODS_MAX_FIELDS, &reason);
	for (int i = 0; i < n; i++) {
		found |= strcmp(f[i].text, "period_s") == 0;
		power |= strcmp(f[i].text, "mean_power_w") == 0;
	}
	wc__csv_lines_free(&it);
	free(buf);
	/* A runs table written by ingest has a period_s metric column too; its
	 * mean_power_w says what it is. */
	return found && !power;
}
