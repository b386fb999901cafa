/*
 * Which rows of a table a frozen set saw, by what identifies them
 * (docs/validation.md, "Frozen-law accuracy"): the content hashes of the
 * rows its law was fitted on and its calibration used, the id hashes of
 * the runs the law learned from, and the rows whose measured idle set a
 * level's P0. A run's `#seg<k>` pieces are one run (wc_run_same_run):
 * pieces of a run a set learned from are in-sample, and the run whole.
 */
#include "validation_internal.h"
#include "models/grow.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int
by_hash(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* Into mark[i] (set, never cleared) the rows of `t` whose content hash
 * (by_id 0) or run id hash (by_id 1) is among h[0..k); how many. */
static size_t
hashes_in(const uint64_t *h, int k, const wc_runs_table *t, int by_id, unsigned char *mark)
{
	size_t n = 0;
	uint64_t *sorted = k > 0 ? wc_alloc_array((size_t)k, sizeof *sorted) : NULL;
	if (!sorted)
		return 0;
	memcpy(sorted, h, (size_t)k * sizeof *sorted);
	qsort(sorted, (size_t)k, sizeof *sorted, by_hash);
	for (size_t i = 0; i < t->n_runs; i++) {
		const wc_run *r = &t->runs[i];
		uint64_t x = by_id ? wc_run_id_hash(r->platform, r->run_id) : wc_run_content_hash(r);
		if (bsearch(&x, sorted, (size_t)k, sizeof *sorted, by_hash)) {
			n += !mark[i];
			mark[i] = 1;
		}
	}
	free(sorted);
	return n;
}

void
wc__same_run_spread(const wc_runs_table *t, unsigned char *mark)
{
	size_t n = t->n_runs, *unit = wc_alloc_array(n ? n : 1, sizeof *unit);
	unsigned char *any = wc_alloc_zeroed(n ? n : 1, 1);
	if (unit && any) {
		wc_runs_units(t, NULL, n, unit);
		for (size_t i = 0; i < n; i++)
			any[unit[i]] |= mark[i];
		for (size_t i = 0; i < n; i++)
			mark[i] |= any[unit[i]];
	}
	free(unit);
	free(any);
}

size_t
wc__fit_rows_in(const wc_params *p, const wc_runs_table *t, unsigned char *used)
{
	unsigned char *by_run = wc_alloc_zeroed(t->n_runs ? t->n_runs : 1, 1);
	size_t n = 0;
	if (!by_run)
		return 0;
	hashes_in(p->fit_rows, p->n_fit_rows, t, 0, used);
	/* A row of a run the law learned from is in-sample by its run when
	 * the law learned from pieces or the row is one; whole runs are
	 * matched by content only, so another table reusing an id (sim001 of
	 * another seed) is not taken for the fitted one. */
	hashes_in(p->fit_runs, p->n_fit_runs, t, 1, by_run);
	const int pieces = p->n_fit_runs > 0 && p->n_fit_runs < p->n_fit_rows;
	for (size_t i = 0; i < t->n_runs; i++) {
		const char *id = t->runs[i].run_id;
		used[i] |= by_run[i] && (pieces || wc_run_id_segment_cut(id) < strlen(id));
		n += used[i];
	}
	free(by_run);
	return n;
}

size_t
wc__calibration_rows_in(const wc_params *p, const wc_runs_table *t, unsigned char *mark, size_t *with_pieces)
{
	size_t n = hashes_in(p->calibration_rows, p->n_calibration_rows, t, 0, mark);
	wc__same_run_spread(t, mark);
	*with_pieces = 0;
	for (size_t i = 0; i < t->n_runs; i++)
		*with_pieces += mark[i];
	return n;
}

/* The levels whose P0 a row of `idle` set, ", "-separated. */
static void
idle_levels(const wc_params *p, const wc_runs_table *t, const unsigned char *idle, char *buf, size_t cap)
{
	buf[0] = '\0';
	for (int L = 0; L < p->n_levels; L++) {
		int has = 0;
		for (size_t i = 0; i < t->n_runs && !has; i++) {
			const wc_level *l = idle[i] ? wc_params_level(p, t->runs[i].platform) : NULL;
			has = l == &p->levels[L];
		}
		size_t len = strlen(buf);
		if (has && len + strlen(p->levels[L].name) + 3 < cap)
			snprintf(buf + len, cap - len, "%s%s", len ? ", " : "", p->levels[L].name);
	}
}

int
wc_heldout_level_note(const wc_params *p, const wc_runs_table *t, const wc_in_sample_rows *seen, const char *input,
                      char *buf, size_t cap, size_t *idle_rows)
{
	size_t n = t->n_runs, k = 0;
	unsigned char *idle = wc_alloc_zeroed(n ? n : 1, 1);
	char text[WC_ERROR_MSG_MAX], levels[96];
	if (idle_rows)
		*idle_rows = 0;
	if (!idle)
		return 0;
	hashes_in(p->idle_rows, p->n_idle_rows, t, 0, idle);
	wc__same_run_spread(t, idle);
	k = 0;
	for (size_t i = 0; i < n; i++)
		k += idle[i];
	idle_levels(p, t, idle, levels, sizeof levels);
	free(idle);
	if (idle_rows)
		*idle_rows = k;
	if (k > 0)
		snprintf(text, sizeof text, " holds %zu row(s) whose measured idle set the set's P0 of %s (its "
		         "provenance idle_row_hashes): that level's P0 is in-sample for them, the law's other "
		         "parameters held out", k, levels);
	else if (seen->rows == 0 && p->runs > 0 && p->n_fit_rows == 0 && p->input_sha256[0])
		/* a set before schema 19 names its input's hash and row count,
		 * not its rows: a subset of them, or pieces of its runs, cannot be
		 * recognised (docs/validation.md, "Frozen-law accuracy") */
		snprintf(text, sizeof text, ": the set records no row hashes (a file before wattcast.params/19), so "
		         "whether its %d runs are among these rows cannot be told: these errors may be in-sample",
		         p->runs);
	else
		return 0;
	wc__path_then(buf, cap, input, text);
	return 1;
}
