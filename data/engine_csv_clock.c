/*
 * engine.csv rows stamped out of line with the rows around them: a clock
 * glitch of one row or a short run of rows -- an hour ahead, or in
 * milliseconds -- is those rows' bad lines, not every row after them
 * (docs/formats/telemetry.md, "engine.csv").
 *
 * A row at `t` not after the last kept row but after the row before the
 * kept rows not before it (a run of at most WC__ENGINE_GLITCH_ROWS rows,
 * the bound of a scrape's glitch: engine_log_internal.h) is held in the
 * slot past the rows. When the next row lies after the held one and not
 * after the run's first row, it agrees with the held row and the row
 * before the run: the run is what is out of line, its rows bad lines, the
 * held row kept in their place. Else the held row is the bad line, as any
 * row not after the last kept one is. A clock that steps forward keeps
 * every row (each after the last); one that steps back past more rows
 * than the bound leaves the later rows bad, as before.
 */
#include "engine_csv_internal.h"

#include <stdio.h>

/* The kept rows at the end not before `t` (at most one past the bound). */
static size_t
run_before(const wc_engine_log *e, double t)
{
	size_t m = 0;
	while (m < e->n && m <= WC__ENGINE_GLITCH_ROWS && !(e->t[e->n - 1 - m] < t))
		m++;
	return m;
}

void
wc__engine_clock_drop_held(eng_reader *r)
{
	const wc_engine_log *e = r->e;
	if (!r->held_row)
		return;
	r->held_row = 0;
	wc__bad_cell(r->bad, r->line[e->n], r->cell[e->n], "timestamp %.3f is not after the previous row's "
	             "(%.3f, line %zu)", e->t[e->n], e->t[e->n - 1], r->line[e->n - 1]);
}

/* The run of m kept rows before the held row (slot n) is out of line:
 * each a bad line at its time cell, the held row kept in their place. */
static void
drop_run(eng_reader *r, size_t m)
{
	wc_engine_log *e = r->e;
	size_t n = e->n, first = n - m;
	for (size_t k = first; k < n; k++) {
		char unit[160];
		const char *other = wc_prom_time_other_unit(e->t[k], unit, sizeof unit) ? " (another unit than "
		                                                                          "seconds?)" : "";
		if (first > 0)
			wc__bad_cell(r->bad, r->line[k], r->cell[k], "timestamp %.3f%s is out of line with the rows "
			             "around it (%.3f on line %zu, %.3f on line %zu); row skipped", e->t[k], other,
			             e->t[first - 1], r->line[first - 1], e->t[n], r->line[n]);
		else
			wc__bad_cell(r->bad, r->line[k], r->cell[k], "timestamp %.3f%s is out of line with the rows "
			             "after it (%.3f on line %zu); row skipped", e->t[k], other, e->t[n], r->line[n]);
	}
	e->t[first] = e->t[n];
	r->line[first] = r->line[n];
	r->cell[first] = r->cell[n];
	for (int c = 0; c < WC_ENG_COLUMNS; c++)
		if (e->col[c])
			e->col[c][first] = e->col[c][n];
	wc__engine_counters_move(&r->counters, n, first);
	e->n = first + 1;
	r->held_row = 0;
}

int
wc__engine_clock_judge(eng_reader *r, double t)
{
	wc_engine_log *e = r->e;
	if (r->held_row && t > e->t[e->n] && !(t > e->t[e->n - r->held_run]))
		drop_run(r, r->held_run);
	wc__engine_clock_drop_held(r);
	if (e->n == 0 || t > e->t[e->n - 1])
		return 0;
	size_t m = run_before(e, t);
	if (m > WC__ENGINE_GLITCH_ROWS)
		return 0;
	r->held_run = m;
	return 1;
}
