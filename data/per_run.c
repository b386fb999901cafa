/* Per-run validation output (data/per_run.h), written as CSV. */
#include "data/per_run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data_internal.h"
#include "models/grow.h"

void
wc_per_run_row_init(wc_per_run_row *row)
{
	memset(row, 0, sizeof *row);
	row->predicted = row->measured = row->error_pct = row->lo = row->hi = row->ceiling = row->floor = NAN;
}

void
wc_per_run_row_input(wc_per_run_row *row, const char *name, const char *value)
{
	if (row->n_inputs >= WC_PER_RUN_INPUTS_MAX)
		return;
	snprintf(row->input_name[row->n_inputs], sizeof row->input_name[0], "%s", name);
	snprintf(row->input_value[row->n_inputs], sizeof row->input_value[0], "%s", value ? value : "");
	row->n_inputs++;
}

void
wc_per_run_row_input_number(wc_per_run_row *row, const char *name, double value)
{
	char buf[32] = "";
	if (isfinite(value))
		snprintf(buf, sizeof buf, "%.10g", value);
	wc_per_run_row_input(row, name, buf);
}

/* Whole warnings or none: a cell cut at its bound ended mid-word ("weights:
 * fp8 o") and read as the whole text (docs/validation.md, "Per-run
 * output"). Each append leaves room for the closing "; ...". */
void
wc_per_run_row_warn(wc_per_run_row *row, const char *warning)
{
	static const char closing[] = "; ...";
	if (row->warnings_closed)
		return;
	size_t used = strlen(row->warnings), room = sizeof row->warnings - used;
	size_t need = (used ? 2 : 0) + strlen(warning) + 1;
	if (need + (sizeof closing - 1) <= room) {
		snprintf(row->warnings + used, room, "%s%s", used ? "; " : "", warning);
		return;
	}
	snprintf(row->warnings + used, room, "%s", used ? closing : closing + 2);
	row->warnings_closed = 1;
}

int
wc_per_run_add(wc_per_run *pr, const wc_per_run_row *row, wc_error *err)
{
	wc_per_run_row *nr = wc_grow(pr->rows, &pr->cap, pr->n + 1, sizeof *nr, 64);
	if (!nr)
		return wc_error_set(err, WC_ENOMEM, "per-run rows: out of memory");
	pr->rows = nr;
	pr->rows[pr->n++] = *row;
	return WC_OK;
}

void
wc_per_run_clear(wc_per_run *pr)
{
	free(pr->rows);
	memset(pr, 0, sizeof *pr);
}

static void
put_number(FILE *f, double v)
{
	fputc(',', f);
	if (isfinite(v))
		fprintf(f, "%.10g", v);
}

/* The input columns: the union of the rows' names, in order of first
 * appearance. Returns how many (at most `cap`). */
static size_t
input_columns(const wc_per_run *pr, const char **names, size_t cap)
{
	size_t n = 0;
	for (size_t i = 0; i < pr->n; i++)
		for (int j = 0; j < pr->rows[i].n_inputs; j++) {
			const char *name = pr->rows[i].input_name[j];
			size_t k = 0;
			while (k < n && strcmp(names[k], name) != 0)
				k++;
			if (k == n && n < cap)
				names[n++] = name;
		}
	return n;
}

const char *
wc_per_run_row_get(const wc_per_run_row *row, const char *name)
{
	for (int j = 0; j < row->n_inputs; j++)
		if (strcmp(row->input_name[j], name) == 0)
			return row->input_value[j];
	return "";
}

int
wc_per_run_write(const char *path, const wc_per_run *pr, wc_error *err)
{
	const char *names[4 * WC_PER_RUN_INPUTS_MAX];
	size_t n_names = input_columns(pr, names, sizeof names / sizeof names[0]);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return wc_error_set_path(err, WC_ENOMEM, path, ": out of memory");
	fputs("run_id,set,fold", f);
	for (size_t k = 0; k < n_names; k++) {
		fputc(',', f);
		wc__csv_put(f, names[k]);
	}
	fputs(",quantity,predicted,measured,error_pct,lo,hi,p0_source,warnings\n", f);
	for (size_t i = 0; i < pr->n; i++) {
		const wc_per_run_row *r = &pr->rows[i];
		wc__csv_put(f, r->run_id);
		fputc(',', f);
		wc__csv_put(f, r->set);
		fputc(',', f);
		wc__csv_put(f, r->fold);
		for (size_t k = 0; k < n_names; k++) {
			fputc(',', f);
			wc__csv_put(f, wc_per_run_row_get(r, names[k]));
		}
		fputc(',', f);
		wc__csv_put(f, r->quantity);
		put_number(f, r->predicted);
		put_number(f, r->measured);
		put_number(f, r->error_pct);
		put_number(f, r->lo);
		put_number(f, r->hi);
		fputc(',', f);
		wc__csv_put(f, r->p0_source);
		fputc(',', f);
		wc__csv_put(f, r->warnings);
		fputc('\n', f);
	}
	return wc__memstream_write_atomic(path, f, &buf, &len, err);
}
