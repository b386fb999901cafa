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
 *
 * At the log's end no row comes after the held row, or after a run, to
 * vote: the log's own spacing votes instead (wc__engine_clock_end).
 */
#include "engine_csv_internal.h"

#include <math.h>
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
wc__engine_clock_not_after(eng_reader *r, size_t line_no, int cell, double t)
{
	const wc_engine_log *e = r->e;
	wc__bad_cell(r->bad, line_no, cell, "timestamp %.3f is not after the previous row's (%.3f, line %zu)", t,
	             e->t[e->n - 1], r->line[e->n - 1]);
}

void
wc__engine_clock_drop_held(eng_reader *r)
{
	const wc_engine_log *e = r->e;
	if (!r->held_row)
		return;
	r->held_row = 0;
	wc__engine_clock_not_after(r, r->line[e->n], r->cell[e->n], e->t[e->n]);
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

/* The last m kept rows (1 to WC__ENGINE_GLITCH_ROWS), the log's end, come
 * after a hole over WC_TELEMETRY_MAX_GAP_S, which no log bridges, and
 * over the hole bound of the rows before them: each a bad line at its time
 * cell, the log ending before them. */
static void
drop_end(eng_reader *r, size_t m)
{
	wc_engine_log *e = r->e;
	size_t first = e->n - m;
	for (size_t k = first; k < e->n; k++) {
		char unit[160];
		const char *other = wc_prom_time_other_unit(e->t[k], unit, sizeof unit) ? " (another unit than "
		                                                                          "seconds?)" : "";
		wc__bad_cell(r->bad, r->line[k], r->cell[k], "timestamp %.3f%s is %.3f s after line %zu's at the "
		             "log's end, no row after it (over %.0f s, never bridged: a clock glitch); row skipped",
		             e->t[k], other, e->t[first] - e->t[first - 1], r->line[first - 1],
		             WC_TELEMETRY_MAX_GAP_S);
	}
	e->n = first;
}

void
wc__engine_clock_end(eng_reader *r)
{
	wc_engine_log *e = r->e;
	/* A held last row that keeps the log's spacing from the row before
	 * the run, the run's first row past the hole bound from it: the run
	 * is out of line, as a next row after the held one would have shown. */
	if (r->held_row) {
		size_t first = e->n - r->held_run;
		double bound = first >= 1 ? wc__engine_hole_bound(e->t, first) : NAN;
		if (!isnan(bound) && e->t[first] - e->t[first - 1] > bound && !(e->t[e->n] - e->t[first - 1] > bound))
			drop_run(r, r->held_run);
	}
	wc__engine_clock_drop_held(r);
	/* A final run after a hole no log bridges: with no row after it to
	 * come back in line, only a hole over WC_TELEMETRY_MAX_GAP_S says it
	 * is a glitch; a shorter final hole (the engine stopped, one last
	 * scrape later) is kept and warned as any hole. */
	for (size_t m = WC__ENGINE_GLITCH_ROWS; m >= 1; m--) {
		if (e->n < m + 3)
			continue;
		size_t first = e->n - m;
		double hole = e->t[first] - e->t[first - 1];
		double bound = wc__engine_hole_bound(e->t, first);
		if (hole > WC_TELEMETRY_MAX_GAP_S && !isnan(bound) && hole > bound) {
			drop_end(r, m);
			return;
		}
	}
}
