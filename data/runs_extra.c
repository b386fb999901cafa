/*
 * The runs table's columns beyond the parsed ones (docs/formats/runs-table.md):
 * where a documented cell is, the extras kept verbatim, and what the
 * predictions read of one (n_source).
 */
#include "data/data.h"
#include "data/runs_table.h"

#include "data_internal.h"
#include "runs_table_internal.h"

#include <stdio.h>
#include <string.h>

int
wc_runs_set_extra(wc_runs_table *t, size_t row, const char *column, const char *value,
                  wc_error *err)
{
	if (row >= t->n_runs)
		return wc_error_set(err, WC_EINVAL, "runs table: row %zu out of range", row);
	for (int c = 0; c < COL_COUNT; c++)
		if (strcmp(column, wc__runs_column_names[c]) == 0)
			return wc_error_set(err, WC_EINVAL, "runs table: '%s' is a documented column, not an extra", column);
	if (wc__extra_set(&t->extra, t->n_runs, row, column, value) != WC_OK)
		return wc_error_set(err, WC_ENOMEM, "runs table: out of memory");
	return WC_OK;
}

int
wc_runs_cell_at(const wc_runs_table *t, const wc_run *r, const char *column, char *buf, size_t cap)
{
	int c = 0;
	while (c < COL_COUNT && strcmp(column, wc__runs_column_names[c]) != 0)
		c++;
	if (cap)
		buf[0] = '\0';
	if (c == COL_COUNT || !t->path[0] || r->line <= 0 || r->column[c] <= 0)
		return 0;
	snprintf(buf, cap, "%s:%d:%d: column '%s'", t->path, r->line, r->column[c], column);
	return 1;
}

const char *
wc_runs_get_extra(const wc_runs_table *t, size_t row, const char *column)
{
	return wc__extra_get(&t->extra, t->n_runs, row, column);
}

void
wc__run_note_gauge(wc_runs_table *t, size_t row)
{
	/* n_source engine: the n(t) is the engine's gauge, sampled and held,
	 * so a step it reads as 0 may have run requests between its samples
	 * (docs/intervals.md, "Physical ceiling"); a request log's ("requests")
	 * places every request, and a series without the column is the user's */
	const char *src = wc_runs_get_extra(t, row, "n_source");
	t->runs[row].n_gauge = t->runs[row].series.len > 0 && src && strcmp(src, "engine") == 0;
}
