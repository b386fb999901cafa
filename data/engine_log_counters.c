/*
 * engine.csv's counters kept one engine at a time while the file is read:
 * a column whose fields are data-parallel engines (`engine`, `dp_rank`)
 * is added up only once each engine's counter has been judged for
 * glitches and restarts on its own (docs/formats/telemetry.md,
 * "engine.csv"; data/engine_log_rows.c).
 */
#include "engine_log_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/grow.h"

int
wc__engine_counters_add(wc__engine_counters *set, wc_engine_column col, const char *labels, size_t rows)
{
	char engine[sizeof set->s[0].engine];
	wc_engine_labels_summed(labels ? labels : "", engine, sizeof engine);
	for (size_t i = 0; i < set->n; i++)
		if (set->s[i].col == col && strcmp(set->s[i].engine, engine) == 0)
			return (int)i;
	if (set->n >= WC_ENGINE_MAX_COUNTERS)
		return -2;
	if (set->n == set->cap) {
		wc__engine_counter *ns = wc_grow(set->s, &set->cap, set->n + 1, sizeof *ns, 16);
		if (!ns)
			return -1;
		set->s = ns;
	}
	size_t cap = set->rows_cap > rows ? set->rows_cap : rows;
	wc__engine_counter *c = &set->s[set->n];
	memset(c, 0, sizeof *c);
	if (!(c->v = wc_alloc_array(cap ? cap : 1, sizeof *c->v)))
		return -1;
	for (size_t i = 0; i < rows; i++)
		c->v[i] = NAN;
	c->col = col;
	c->row = NAN;
	snprintf(c->engine, sizeof c->engine, "%s", engine);
	return (int)set->n++;
}

int
wc__engine_counters_grow(wc__engine_counters *set, size_t rows_cap)
{
	for (size_t i = 0; i < set->n; i++) {
		double *nv = wc_resize_array(set->s[i].v, rows_cap ? rows_cap : 1, sizeof *nv);
		if (!nv)
			return WC_ENOMEM;
		set->s[i].v = nv;
	}
	set->rows_cap = rows_cap;
	return WC_OK;
}

void
wc__engine_counters_clear_row(wc__engine_counters *set)
{
	for (size_t i = 0; i < set->n; i++)
		set->s[i].row = NAN;
}

void
wc__engine_counters_append(wc__engine_counters *set, size_t i)
{
	for (size_t k = 0; k < set->n; k++)
		set->s[k].v[i] = set->s[k].row;
}

void
wc__engine_counters_move(wc__engine_counters *set, size_t from, size_t to)
{
	for (size_t k = 0; k < set->n; k++)
		set->s[k].v[to] = set->s[k].v[from];
}

int
wc__engine_counters_fell(const wc__engine_counters *set, size_t i)
{
	for (size_t k = 0; k < set->n; k++)
		if (set->s[k].row < set->s[k].v[i]) /* false when either is unknown */
			return 1;
	return 0;
}

void
wc__engine_counters_free(wc__engine_counters *set)
{
	for (size_t i = 0; i < set->n; i++)
		free(set->s[i].v);
	free(set->s);
	memset(set, 0, sizeof *set);
}
