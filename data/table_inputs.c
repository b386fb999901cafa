/*
 * Mixed table inputs: sniff each file's format, read it, and append its
 * rows to one runs table or one periods table (data/table_inputs.h).
 */
#include "data/table_inputs.h"
#include "data/fileio.h"
#include "data/import.h"
#include "models/grow.h"
#include "models/limits.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A raw ML.ENERGY table: its header (the first line that is not a
 * comment) names avg_batch_size and model_id. */
static int
is_mlenergy(const char *path)
{
	FILE *f = wc_open_input(path, NULL);
	char line[4096];
	int yes = 0;
	while (f && fgets(line, sizeof line, f))
		if (line[0] != '#' && line[0] != '\n') {
			yes = strstr(line, "avg_batch_size") != NULL && strstr(line, "model_id") != NULL;
			break;
		}
	if (f)
		fclose(f);
	return yes;
}

int
wc_table_inputs_read_runs(const char *path, wc_runs_table **out, wc_error *err)
{
	return is_mlenergy(path) ? wc_import_mlenergy(path, out, err) : wc_runs_read(path, out, err);
}

/* Append `src`'s rows (extras included) to `dst`. */
static int
merge_runs(wc_runs_table *dst, const wc_runs_table *src, wc_error *err)
{
	int rc;
	for (size_t i = 0; i < src->n_runs; i++) {
		if ((rc = wc_runs_append(dst, &src->runs[i], err)) != WC_OK)
			return rc;
		for (size_t c = 0; c < src->extra.n; c++) {
			const char *v = src->extra.values[i * src->extra.n + c];
			if (v && *v && (rc = wc_runs_set_extra(dst, dst->n_runs - 1, src->extra.names[c], v, err)) != WC_OK)
				return rc;
		}
	}
	if (!dst->sha256[0])
		snprintf(dst->sha256, sizeof dst->sha256, "%s", src->sha256);
	return WC_OK;
}

static int
merge_periods(wc_periods_table *dst, const wc_periods_table *src)
{
	size_t n = dst->n_rows + src->n_rows;
	wc_period_row *nr = wc_resize_array(dst->rows, n ? n : 1, sizeof *nr);
	if (!nr)
		return WC_ENOMEM;
	memcpy(nr + dst->n_rows, src->rows, src->n_rows * sizeof *nr);
	dst->rows = nr;
	dst->n_rows = dst->cap_rows = n;
	if (!dst->sha256[0])
		snprintf(dst->sha256, sizeof dst->sha256, "%s", src->sha256);
	return WC_OK;
}

static int
read_one(const char *path, wc_runs_table *runs, wc_periods_table *periods, wc_error *err)
{
	int rc;
	if (wc_periods_detect(path)) {
		wc_periods_table *p = NULL;
		if ((rc = wc_periods_read(path, &p, err)) != WC_OK)
			return rc;
		rc = merge_periods(periods, p);
		wc_periods_free(p);
		return rc == WC_OK ? WC_OK : wc_error_set_path(err, rc, path, ": out of memory");
	}
	wc_runs_table *t = NULL;
	if ((rc = wc_table_inputs_read_runs(path, &t, err)) != WC_OK)
		return rc;
	rc = merge_runs(runs, t, err);
	wc_runs_free(t);
	return rc;
}

/* What the merged table was read from, as capacity.provenance's
 * calibrated_on records it (docs/formats/params-file.md): every input
 * when the list fits in WC_INPUTS_LABEL_MAX, else the first and how many
 * more, never the first alone as if it were all. */
void
wc_inputs_label(char *const *paths, size_t n, char *out, size_t cap)
{
	size_t used = 0, limit = cap < WC_INPUTS_LABEL_MAX ? cap : WC_INPUTS_LABEL_MAX;
	out[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		int w = snprintf(out + used, limit - used, "%s%s", i ? ", " : "", paths[i]);
		if (w < 0 || (size_t)w >= limit - used) {
			char more[48];
			int m = snprintf(more, sizeof more, " and %zu more (%zu inputs)", n - 1, n);
			snprintf(out, limit, "%.*s%s", (int)(limit - 1 - (size_t)m), paths[0], more);
			return;
		}
		used += (size_t)w;
	}
}

typedef struct {
	const char *id;
	size_t i;
} id_at;

/* by id, then by index: the first two of a run of equal ids are the
 * lowest indices holding it */
static int
by_id(const void *a, const void *b)
{
	const id_at *x = a, *y = b;
	int c = strcmp(x->id, y->id);
	return c ? c : (x->i > y->i) - (x->i < y->i);
}

int
wc_runs_repeated_id(size_t n, const char *(*id)(size_t i, const void *payload), const void *payload,
                    const char **repeated, size_t where[2], wc_error *err)
{
	*repeated = NULL;
	if (n < 2)
		return WC_OK;
	id_at *ids = wc_alloc_array(n, sizeof *ids);
	if (!ids)
		return wc_error_set(err, WC_ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++)
		ids[i] = (id_at){ id(i, payload), i };
	qsort(ids, n, sizeof *ids, by_id);
	for (size_t i = 1; i < n && !*repeated; i++)
		if (strcmp(ids[i].id, ids[i - 1].id) == 0) {
			*repeated = ids[i].id;
			if (where) {
				where[0] = ids[i - 1].i;
				where[1] = ids[i].i;
			}
		}
	free(ids);
	return WC_OK;
}

static const char *
run_id_of(size_t i, const void *t)
{
	return ((const wc_runs_table *)t)->runs[i].run_id;
}

/* A run in two inputs (a table given twice, a copy beside it in a glob)
 * would count twice in the fit and narrow every interval: refused, as
 * one table's duplicate run_id is (docs/formats/runs-table.md). */
static int
check_ids(const wc_runs_table *t, wc_error *err)
{
	const char *dup;
	int rc = wc_runs_repeated_id(t->n_runs, run_id_of, t, &dup, NULL, err);
	if (rc == WC_OK && dup)
		rc = wc_error_set(err, WC_EPARSE, "run_id '%.64s' is in more than one input (a table given twice?): "
		                  "each run counts once", dup);
	return rc;
}

int
wc_table_inputs_read(char *const *paths, size_t n, wc_runs_table **runs, wc_periods_table **periods,
                     wc_error *err)
{
	int rc;
	*runs = wc_runs_new();
	*periods = calloc(1, sizeof **periods);
	if (!*runs || !*periods)
		return wc_error_set(err, WC_ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < i; j++)
			if (strcmp(paths[i], paths[j]) == 0)
				return wc_error_set_path(err, WC_EINVAL, paths[i], ": given twice: each input counts once");
		if ((rc = read_one(paths[i], *runs, *periods, err)) != WC_OK)
			return rc;
	}
	if ((rc = check_ids(*runs, err)) != WC_OK)
		return rc;
	wc_inputs_label(paths, n, (*runs)->path, sizeof (*runs)->path);
	return WC_OK;
}

void
wc_table_inputs_fingerprint(char *const *paths, size_t n, char out[65])
{
	/* The SHA-256 of every input's own SHA-256 (hex) in the order given
	 * (docs/formats/params-file.md, "capacity"): two fits on different
	 * inputs never share it, however many there are. An input that cannot
	 * be read adds "-" (it was read moments ago; its absence shows). */
	int ok;
	size_t cap = wc_size_mul(n, 64, &ok);
	char *joined = ok ? malloc(cap + 1) : NULL;
	size_t used = 0;
	if (!joined) {
		out[0] = '\0';
		return;
	}
	for (size_t i = 0; i < n; i++) {
		char *buf = NULL;
		size_t len = 0;
		if (wc_read_file(paths[i], WC_FINGERPRINT_MAX_BYTES, &buf, &len, NULL) == WC_OK) {
			wc_sha256_hex(buf, len, joined + used);
			used += 64;
		} else {
			joined[used++] = '-';
		}
		free(buf);
	}
	joined[used] = '\0';
	wc_sha256_hex(joined, used, out);
	free(joined);
}
