/*
 * Other people's tables as runs tables: the ML.ENERGY Leaderboard v3
 * configuration table (a published format, converted value by value) and
 * any CSV whose columns only need renaming (the strict runs-table reader
 * then does the rest, so its file:line:column messages still apply).
 */
#include "data/data.h"
#include "models/grow.h"
#include "models/limits.h"
#include "data_internal.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define IMPORT_MAX_FIELDS 256

/* ---------------------------------------------------------- ML.ENERGY */

enum { ME_TASK, ME_MODEL, ME_ARCH, ME_TOTAL, ME_ACTIVE, ME_PREC, ME_GPU, ME_NGPU, ME_BATCH,
       ME_POWER, ME_OUTLEN, ME_EPT, ME_TPUT, ME_COUNT };
static const char *const me_columns[ME_COUNT] = {
	"task", "model_id", "architecture", "total_params_billions", "activated_params_billions",
	"weight_precision", "gpu_model", "num_gpus", "avg_batch_size", "avg_power_watts",
	"avg_output_len", "energy_per_token_joules", "output_throughput_tokens_per_sec",
};

static int
me_number(const char *path, int line, const wc__csv_field *f, const char *col, double *out,
          wc_error *err)
{
	if (wc_parse_decimal(f->text, out) != 0)
		return wc_error_set_path(err, WC_EPARSE, path, ":%d:%d: column '%s': expected a number, got '%s'",
		                         line, f->column, col, f->text);
	return WC_OK;
}

static int
me_row(const char *path, int line, const wc__csv_field *f, const int *idx, wc_run *r, wc_error *err)
{
	double v = 0;
	int rc;
	wc_run_init(r);
	r->line = line;
	for (int c = ME_TOTAL; c < ME_COUNT; c++) {
		if (c == ME_PREC || c == ME_GPU)
			continue;
		const wc__csv_field *x = &f[idx[c]];
		if ((rc = me_number(path, line, x, me_columns[c], &v, err)) != WC_OK)
			return rc;
		switch (c) {
		case ME_TOTAL: r->total_params_b = v; break;
		case ME_ACTIVE: r->active_params_b = v; break;
		case ME_NGPU:
				/* Compared as a double: a huge count must not reach the cast. */
			if (!(v >= 1 && v <= WC_LAW_MAX_TP && v == floor(v)))
				return wc_error_set_path(err, WC_EPARSE, path,
				                         ":%d:%d: column 'num_gpus': expected a whole number between 1 and %d, got '%s'",
				                         line, x->column, WC_LAW_MAX_TP, x->text);
			r->tp = (int)v;
			break;
		case ME_BATCH: r->running = v; break;
		case ME_POWER: r->mean_power_w = v; break;
		case ME_OUTLEN: r->output_tokens = v; break;
		case ME_EPT: r->energy_per_token_j = v; break;
		case ME_TPUT: r->throughput_tok_s = v; break;
		}
	}
	/* Each refusal names its own cell, as a value that is not a number
	 * does: "must be positive" at 8:1 left the user to find which. */
	static const struct { int col; const char *why; } sign[] = {
		{ ME_ACTIVE, "must be positive" }, { ME_POWER, "must be positive" },
		{ ME_BATCH, "must not be negative" },
	};
	for (size_t i = 0; i < sizeof sign / sizeof sign[0]; i++) {
		int c = sign[i].col;
		double x = c == ME_ACTIVE ? r->active_params_b : c == ME_POWER ? r->mean_power_w : r->running;
		if (!(c == ME_BATCH ? x >= 0 : x > 0))
			return wc_error_set_path(err, WC_EPARSE, path, ":%d:%d: column '%s': %s, got '%s'", line,
			                         f[idx[c]].column, me_columns[c], sign[i].why, f[idx[c]].text);
	}
	const char *prec = f[idx[ME_PREC]].text;
	if (strcmp(prec, "bfloat16") == 0 || strcmp(prec, "bf16") == 0)
		r->weights = WC_PREC_BF16;
	else if (strcmp(prec, "fp8") == 0)
		r->weights = WC_PREC_FP8;
	else if (strcmp(prec, "mxfp4") == 0 || strcmp(prec, "int4") == 0)
		r->weights = WC_PREC_INT4; /* 4-bit weights; the source value stays as an extra */
	else
		return wc_error_set_path(err, WC_EPARSE, path, ":%d:%d: column 'weight_precision': unknown '%s'",
		                         line, f[idx[ME_PREC]].column, prec);
	const char *arch = f[idx[ME_ARCH]].text;
	r->architecture = strstr(arch, "MoE") ? WC_ARCH_MOE : strstr(arch, "Mamba") ? WC_ARCH_HYBRID
	                                                                        : WC_ARCH_DENSE;
	/* A name too long is refused, as the runs table's reader refuses it
	 * (docs/formats/runs-table.md): a cut would make two models one. */
	static const struct { int col; size_t off, cap; } names[] = {
		{ ME_GPU, offsetof(wc_run, platform), sizeof r->platform },
		{ ME_MODEL, offsetof(wc_run, model), sizeof r->model },
		{ ME_TASK, offsetof(wc_run, set), sizeof r->set },
	};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		const wc__csv_field *x = &f[idx[names[i].col]];
		char why[64];
		if (wc__text_refused(x->text, names[i].cap, why, sizeof why))
			return wc_error_set_path(err, WC_EPARSE, path, ":%d:%d: column '%s': %s", line, x->column,
			                         me_columns[names[i].col], why);
		strcpy((char *)r + names[i].off, x->text);
	}
	r->workload = WC_WORKLOAD_CLOSED;
	return WC_OK;
}

/* Keep the header's names (owned by `header`, counted in *n_header once
 * all are copied) and find each ML.ENERGY column in it. */
static int
me_header(const char *path, int lineno, const wc__csv_field *f, int n, char **header,
          int *n_header, int *idx, wc_error *err)
{
	for (int i = 0; i < n; i++)
		if (!(header[i] = strdup(f[i].text)))
			return wc_error_set_path(err, WC_ENOMEM, path, ": out of memory");
	*n_header = n;
	for (int c = 0; c < ME_COUNT; c++) {
		idx[c] = -1;
		for (int i = 0; i < n; i++)
			if (strcmp(header[i], me_columns[c]) == 0)
				idx[c] = i;
		if (idx[c] < 0)
			return wc_error_set_path(err, WC_EPARSE, path,
			                         ":%d:1: missing column '%s' (is this an ML.ENERGY v3 configuration table?)",
			                         lineno, me_columns[c]);
	}
	return WC_OK;
}

/* A run_id unique among those in `ids` (every id given so far, mapped to
 * the next number to try when it recurs as a base) for the configuration
 * of `r`. Repeated measurements of one configuration are kept, numbered
 * "#2", "#3", ...; the base is shortened, never the number, so an id of
 * any length gets a suffix that fits, and the map makes numbering n
 * repeats O(n) instead of a scan of the table per try. */
static int
me_run_id(wc_strmap *ids, char *const *header, const wc__csv_field *f, int n, const int *idx,
          const char *path, int line, wc_run *r, wc_error *err)
{
	/* One configuration = task x model x GPU x count x concurrency cap. */
	const char *cap = "";
	char base[sizeof r->run_id], suffix[16];
	int rep = 0;
	for (int i = 0; i < n; i++)
		if (strcmp(header[i], "max_num_seqs") == 0)
			cap = f[i].text;
	int len = snprintf(base, sizeof base, "%s|%s|%s|%dgpu|seqs%s", r->set, r->model, r->platform, r->tp, cap);
	/* An id too long is refused, never cut: a cut would make two
	 * configurations that differ late one (docs/formats/runs-table.md). */
	if (len < 0 || (size_t)len >= sizeof base)
		return wc_error_set_path(err, WC_EPARSE, path,
		                         ":%d:%d: column 'model_id': the run_id it makes (task|model|GPU|count|cap) is "
		                         "%d bytes, at most %zu",
		                         line, f[idx[ME_MODEL]].column, len, sizeof base - 1);
	snprintf(r->run_id, sizeof r->run_id, "%s", base);
	if (wc_strmap_get(ids, base, &rep)) {
		do {
			int k = snprintf(suffix, sizeof suffix, "#%d", rep++);
			size_t keep = wc_utf8_keep(base, sizeof r->run_id - 1 - (size_t)k);
			snprintf(r->run_id, sizeof r->run_id, "%.*s%s", (int)keep, base, suffix);
		} while (wc_strmap_get(ids, r->run_id, NULL));
		if (wc_strmap_put(ids, base, rep) != WC_OK)
			return wc_error_set_path(err, WC_ENOMEM, path, ": out of memory");
	}
	if (wc_strmap_put(ids, r->run_id, 2) != WC_OK)
		return wc_error_set_path(err, WC_ENOMEM, path, ": out of memory");
	return WC_OK;
}

/* Append the run with the columns it did not take as extras (the source
 * precision among them). */
static int
me_append(wc_runs_table *t, const wc_run *r, char *const *header, const wc__csv_field *f, int n,
          const int *idx, wc_error *err)
{
	int rc;
	if ((rc = wc_runs_append(t, r, err)) != WC_OK)
		return rc;
	for (int i = 0; i < n; i++) {
		int known = 0;
		for (int c = 0; c < ME_COUNT && !known; c++)
			known = i == idx[c] && c != ME_PREC;
		if (!known && (rc = wc_runs_set_extra(t, t->n_runs - 1, header[i], f[i].text, err)) != WC_OK)
			return rc;
	}
	return WC_OK;
}

/* Rows repeated in full, for one warning: a full duplicate is almost
 * always a copy-paste slip, while a repeated configuration with other
 * numbers is a second measurement (both are kept, numbered "#2"). The
 * key is the row's field texts; `rows` maps each to its first line. */
typedef struct {
	wc_strmap rows;
	size_t n;          /* rows that repeat an earlier one */
	char list[160];    /* "line 9 = line 4, ...", as many as fit */
	int cut;           /* some were left out of `list` */
} me_dups;

static int
me_dup_row(me_dups *d, const wc__csv_field *f, int n, int line)
{
	size_t len = 1;
	for (int i = 0; i < n; i++)
		len += strlen(f[i].text) + 1;
	char *key = malloc(len), *p = key;
	int first = 0, rc = WC_OK;
	if (!key)
		return WC_ENOMEM;
	for (int i = 0; i < n; i++) {
		size_t k = strlen(f[i].text);
		memcpy(p, f[i].text, k);
		p += k;
		*p++ = '\x1f'; /* a unit separator: "a,b" + "c" differs from "a" + "b,c" */
	}
	*p = '\0';
	if (wc_strmap_get(&d->rows, key, &first)) {
		size_t used = strlen(d->list);
		char one[32];
		snprintf(one, sizeof one, "%sline %d = line %d", d->n ? ", " : "", line, first);
		if (!d->cut && used + strlen(one) < sizeof d->list)
			memcpy(d->list + used, one, strlen(one) + 1);
		else
			d->cut = 1;
		d->n++;
	} else {
		rc = wc_strmap_put(&d->rows, key, line);
	}
	free(key);
	return rc;
}

static void
me_dup_warn(const me_dups *d, const char *path, wc_warn_fn warn, void *payload)
{
	char msg[256];
	if (!d->n || !warn)
		return;
	wc_error_format_path(msg, sizeof msg, path,
	                     ": %zu row(s) repeat an earlier row in full (%s%s): a copy-paste slip? They are "
	                     "kept, numbered as '#2' repeats", d->n, d->list, d->cut ? ", ..." : "");
	warn(msg, payload);
}

int
wc_import_mlenergy_buffer(const char *buf, size_t len, const char *path, wc_runs_table **out,
                          wc_error *err)
{
	return wc_import_mlenergy_buffer_warn(buf, len, path, out, NULL, NULL, err);
}

int
wc_import_mlenergy_buffer_warn(const char *buf, size_t len, const char *path, wc_runs_table **out,
                               wc_warn_fn warn, void *payload, wc_error *err)
{
	me_dups dups = { 0 };
	wc__csv_field *f = wc_alloc_array(IMPORT_MAX_FIELDS, sizeof *f);
	char **header = wc_alloc_zeroed(IMPORT_MAX_FIELDS, sizeof *header);
	int idx[ME_COUNT], n_header = 0, lineno = 0, rc, n;
	const char *reason = NULL;
	wc__csv_lines it;
	wc_strmap ids = { 0 };
	wc_runs_table *t = wc_runs_new();
	*out = NULL;
	wc__csv_lines_init(&it, NULL, 0);
	if (!f || !header || !t) {
		rc = wc_error_set_path(err, WC_ENOMEM, path, ": out of memory");
		goto done;
	}
	snprintf(t->path, sizeof t->path, "%s", path);
	wc_sha256_hex(buf, len, t->sha256);
	wc__csv_lines_init(&it, buf, len);
	while ((n = wc__csv_lines_next(&it, f, IMPORT_MAX_FIELDS, &reason)) != 0) {
		lineno = it.line;
		if (n == WC_ENOMEM) {
			rc = wc_error_set_path(err, WC_ENOMEM, path, ": out of memory");
			goto done;
		}
		if (n == WC__CSV_BAD) {
			rc = wc_error_set_path(err, WC_EPARSE, path, ":%d:%d: %s", lineno, it.stop, reason);
			goto done;
		}
		if (!n_header) {
			if ((rc = me_header(path, lineno, f, n, header, &n_header, idx, err)) != WC_OK)
				goto done;
			continue;
		}
		if (n != n_header) {
			rc = wc__csv_field_count_refuse(err, path, lineno, f, n, n_header, it.stop);
			goto done;
		}
		wc_run r;
		if ((rc = me_row(path, lineno, f, idx, &r, err)) != WC_OK)
			goto done;
		if (me_dup_row(&dups, f, n, lineno) != WC_OK) {
			rc = wc_error_set_path(err, WC_ENOMEM, path, ": out of memory");
			goto done;
		}
		if ((rc = me_run_id(&ids, header, f, n, idx, path, lineno, &r, err)) != WC_OK)
			goto done;
		if ((rc = me_append(t, &r, header, f, n, idx, err)) != WC_OK)
			goto done;
	}
	if (!n_header)
		rc = wc_error_set_path(err, WC_EPARSE, path, ":1:1: no header row");
	if (rc == WC_OK)
		me_dup_warn(&dups, path, warn, payload);
done:
	wc_strmap_free(&dups.rows);
	wc_strmap_free(&ids);
	wc__csv_lines_free(&it);
	free(f);
	if (header)
		for (int i = 0; i < n_header; i++)
			free(header[i]);
	free(header);
	if (rc != WC_OK) {
		wc_runs_free(t);
		return rc;
	}
	*out = t;
	return WC_OK;
}

int
wc_import_mlenergy(const char *path, wc_runs_table **out, wc_error *err)
{
	return wc_import_mlenergy_warn(path, out, NULL, NULL, err);
}

int
wc_import_mlenergy_warn(const char *path, wc_runs_table **out, wc_warn_fn warn, void *payload,
                        wc_error *err)
{
	char *buf;
	size_t len;
	int rc = wc_read_file(path, WC_IMPORT_MAX_BYTES, &buf, &len, err);
	*out = NULL;
	if (rc != WC_OK)
		return rc;
	rc = wc_import_mlenergy_buffer_warn(buf, len, path, out, warn, payload, err);
	free(buf);
	return rc;
}

/* ------------------------------------------------------ generic rename */

int
wc_import_csv(const char *path, const char *const *src, const char *const *dst, int n_map,
              wc_runs_table **out, wc_error *err)
{
	char *buf = NULL, *text = NULL, *hdr = NULL;
	size_t len, pos = 0, line_len, hdr_at = 0;
	wc__csv_field *f = wc_alloc_array(IMPORT_MAX_FIELDS, sizeof *f);
	int rc, lineno = 0;
	const char *start = NULL;
	*out = NULL;
	if (!f)
		return wc_error_set_path(err, WC_ENOMEM, path, ": out of memory");
	if ((rc = wc_read_file(path, WC_IMPORT_MAX_BYTES, &buf, &len, err)) != WC_OK)
		goto done;
	/* The header is the first line that is neither blank nor a comment. */
	while ((start = wc__next_line(buf, len, &pos, &line_len)) != NULL) {
		lineno++;
		if (start[0] != '#' && line_len > strspn(start, " \t\r"))
			break;
		hdr_at = pos;
	}
	if (!start) {
		rc = wc_error_set_path(err, WC_EPARSE, path, ":1:1: no header row");
		goto done;
	}
	if (!(hdr = strndup(start, line_len))) {
		rc = wc_error_set_path(err, WC_ENOMEM, path, ": out of memory");
		goto done;
	}
	const char *reason = NULL;
	int n = wc__csv_split(hdr, f, IMPORT_MAX_FIELDS, &reason);
	if (n < 0) {
		rc = wc_error_set_path(err, WC_EPARSE, path, ":%d:1: %s", lineno, reason);
		goto done;
	}
	for (int m = 0; m < n_map; m++) {
		int found = 0;
		for (int i = 0; i < n; i++)
			found |= strcmp(f[i].text, src[m]) == 0;
		if (!found) {
			rc = wc_error_set_path(err, WC_EPARSE, path, ":%d:1: --map: no column '%s' in the header", lineno,
			                       src[m]);
			goto done;
		}
	}
	/* Rebuild: comments/blank lines kept (line numbers unchanged), the
	 * renamed header, then the data bytes as they are. */
	FILE *mf;
	size_t tlen;
	if (!(mf = open_memstream(&text, &tlen))) {
		rc = wc_error_set_path(err, WC_ENOMEM, path, ": out of memory");
		goto done;
	}
	fwrite(buf, 1, hdr_at, mf);
	for (int i = 0; i < n; i++) {
		const char *name = f[i].text;
		for (int m = 0; m < n_map; m++)
			if (strcmp(name, src[m]) == 0)
				name = dst[m];
		if (i)
			fputc(',', mf);
		wc__csv_put(mf, name);
	}
	fputc('\n', mf);
	fwrite(buf + pos, 1, len - pos, mf);
	if (fclose(mf) != 0) {
		rc = wc_error_set_path(err, WC_ENOMEM, path, ": out of memory");
		goto done;
	}
	/* Provenance is the source file's, not the renamed copy's. */
	if ((rc = wc_runs_read_buffer(text, tlen, path, out, err)) == WC_OK)
		wc_sha256_hex(buf, len, (*out)->sha256);
done:
	free(buf);
	free(text);
	free(hdr);
	free(f);
	return rc;
}
