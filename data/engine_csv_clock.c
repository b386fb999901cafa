/*
 * engine.csv rows stamped out of line with the rows around them: a clock
 * glitch of one row or a short run of rows -- an hour ahead, or in
 * milliseconds -- is those rows' bad lines, not every row after them
 * (docs/formats/telemetry.md, "engine.csv").
 *
 * A row at `t` not after the last kept row but after the row before the
 * kept rows not before it (a run of at most WC__ENGINE_GLITCH_ROWS rows,
 * the bound of a scrape's glitch, or up to WC__ENGINE_CLOCK_RUN_ROWS with
 * as many rows before it: run_may_glitch) is held in the
 * slot past the rows. When the next row lies after the held one and not
 * after the run's first row, it agrees with the held row and the row
 * before the run: the run is what is out of line, its rows bad lines, the
 * held row kept in their place. Else the held row is the bad line, as any
 * row not after the last kept one is. A clock that steps forward keeps
 * every row (each after the last); one that steps back past more rows
 * than run_may_glitch allows leaves the later rows bad, as before.
 *
 * Its mirror, a run of rows behind: rows not after the last kept row
 * and not held (or held and shown bad), each after the one before, wait
 * in the behind run (at most WC__ENGINE_CLOCK_RUN_ROWS). When a row after
 * the last kept one comes, and the run's last row is not after the row
 * before the last kept one, the two rows before the run and the one
 * after it agree: the run is out of line, its rows bad lines, one glitch,
 * by the same bound (run_may_glitch). Else each is a bad line "not after
 * the previous row's", as is every row of a run spoilt (out of order,
 * too long) or never followed by a row back in line. Read backwards in
 * time the two rules are one: an hour behind mid-log was three rows each
 * counted (refused on a 293-line log) where an hour ahead was one glitch.
 *
 * At the log's end no row comes after the held row, or after a run, to
 * vote: the log's own spacing votes instead (wc__engine_clock_end); nor
 * before a run at its start that is behind the rest, judged by the same
 * rule as a run at its end that is ahead (edge_glitch).
 *
 * A run is one glitch, one cause: its rows are bad lines, counted once
 * toward --max-bad's share (wc__bad_lines.one_cause), so the bound of
 * three rows is not refused by the default 1 % on the ~300-line logs it
 * is for (docs/formats/telemetry.md, "engine.csv").
 */
#include "engine_csv_internal.h"

#include <math.h>
#include <stdio.h>

/* The kept rows at the end not before `t` (at most one past the bound). */
static size_t
run_before(const wc_engine_log *e, double t)
{
	size_t m = 0;
	while (m < e->n && m <= WC__ENGINE_CLOCK_RUN_ROWS && !(e->t[e->n - 1 - m] < t))
		m++;
	return m;
}

/* A run of m rows, `before` rows kept before it, may be a glitch: up to
 * the scrape's bound anywhere (at the log's start too, no row before it);
 * longer, up to WC__ENGINE_CLOCK_RUN_ROWS, only with at least as many
 * rows kept before it, which with the rows after it outvote it. The one
 * bound of a run ahead and of a run behind. A run
 * of four an hour ahead in the real A100 run was past the old bound of
 * three: its 190 rows after it bad, line 104 named the first. */
static int
run_may_glitch(size_t m, size_t before)
{
	if (m <= WC__ENGINE_GLITCH_ROWS)
		return 1;
	return m <= WC__ENGINE_CLOCK_RUN_ROWS && before >= m;
}

void
wc__engine_clock_not_after(eng_reader *r, size_t line_no, int cell, double t)
{
	const wc_engine_log *e = r->e;
	wc__bad_cell(r->bad, line_no, cell, "timestamp %.3f is not after the previous row's (%.3f, line %zu)", t,
	             e->t[e->n - 1], r->line[e->n - 1]);
}

/* The row of line `line` at `t` (time cell `cell`) is a bad line, out of
 * line with the rows around its run: the last row kept before the run
 * (slot `before`) and the row at `after_t` on line `after_line`. The one
 * text of a run ahead and of a run behind. */
static void
out_of_line(eng_reader *r, double t, size_t line, int cell, size_t before, double after_t, size_t after_line)
{
	char unit[160];
	const char *other = wc_prom_time_other_unit(t, unit, sizeof unit) ? " (another unit than seconds?)" : "";
	wc__bad_cell(r->bad, line, cell, "timestamp %.3f%s is out of line with the rows around it (%.3f on line %zu, "
	             "%.3f on line %zu); row skipped", t, other, r->e->t[before], r->line[before], after_t, after_line);
}

/* The behind run's rows, no run after all: each a bad line, not after
 * the last kept row, counted on its own. */
static void
behind_flush(eng_reader *r)
{
	for (size_t k = 0; k < r->behind_n; k++)
		wc__engine_clock_not_after(r, r->behind_line[k], r->behind_cell[k], r->behind_t[k]);
	r->behind_n = 0;
}

/* A row at `t` not after the last kept row joins the behind run: it
 * must be after the run's last row, and the run within its bound; else
 * the run is spoilt, its rows and this one bad lines each, until a row
 * is kept. */
static void
behind_add(eng_reader *r, double t, size_t line, int cell)
{
	size_t n = r->behind_n;
	if (r->behind_spoilt || n == WC__ENGINE_CLOCK_RUN_ROWS || (n > 0 && !(t > r->behind_t[n - 1]))) {
		behind_flush(r);
		r->behind_spoilt = 1;
		wc__engine_clock_not_after(r, line, cell, t);
		return;
	}
	r->behind_t[n] = t;
	r->behind_line[n] = line;
	r->behind_cell[n] = cell;
	r->behind_n = n + 1;
}

/* The row at `t` on line `line` comes after the last kept row: the
 * behind run before it, when its last row is not after the row before
 * the last kept one (the two rows before the run and this one agree) and
 * within the run bound, is one glitch -- its rows bad lines, counted
 * once; else each is a bad line on its own. */
static void
behind_end(eng_reader *r, double t, size_t line)
{
	const wc_engine_log *e = r->e;
	const size_t m = r->behind_n;
	if (m > 0 && !r->behind_spoilt && e->n >= 2 && !(r->behind_t[m - 1] > e->t[e->n - 2]) &&
	    run_may_glitch(m, e->n)) {
		for (size_t k = 0; k < m; k++)
			out_of_line(r, r->behind_t[k], r->behind_line[k], r->behind_cell[k], e->n - 1, t, line);
		r->bad->one_cause += m - 1;
		r->behind_n = 0;
	}
	behind_flush(r);
	r->behind_spoilt = 0;
}

void
wc__engine_clock_drop_held(eng_reader *r)
{
	const wc_engine_log *e = r->e;
	behind_flush(r); /* its rows came first */
	if (!r->held_row)
		return;
	r->held_row = 0;
	wc__engine_clock_not_after(r, r->line[e->n], r->cell[e->n], e->t[e->n]);
}

/* Row `from` (its time, line, cell, columns and counters) into slot
 * `to`: a row kept in place of those dropped. */
static void
move_row(eng_reader *r, size_t from, size_t to)
{
	wc_engine_log *e = r->e;
	e->t[to] = e->t[from];
	r->line[to] = r->line[from];
	r->cell[to] = r->cell[from];
	for (int c = 0; c < WC_ENG_COLUMNS; c++)
		if (e->col[c])
			e->col[c][to] = e->col[c][from];
	wc__engine_counters_move(&r->counters, from, to);
}

/* The run of m kept rows before the held row (slot n) is out of line:
 * each a bad line at its time cell, the held row kept in their place; one
 * glitch, counted once toward the share of bad lines. */
static void
drop_run(eng_reader *r, size_t m)
{
	wc_engine_log *e = r->e;
	size_t n = e->n, first = n - m;
	behind_flush(r); /* the rows kept change: no run behind them */
	r->behind_spoilt = 0;
	for (size_t k = first; k < n; k++) {
		if (first > 0) {
			out_of_line(r, e->t[k], r->line[k], r->cell[k], first - 1, e->t[n], r->line[n]);
			continue;
		}
		char unit[160];
		const char *other = wc_prom_time_other_unit(e->t[k], unit, sizeof unit) ? " (another unit than "
		                                                                          "seconds?)" : "";
		wc__bad_cell(r->bad, r->line[k], r->cell[k], "timestamp %.3f%s is out of line with the rows after it "
		             "(%.3f on line %zu); row skipped", e->t[k], other, e->t[n], r->line[n]);
	}
	r->bad->one_cause += m - 1;
	move_row(r, n, first);
	e->n = first + 1;
	r->held_row = 0;
}

wc__engine_clock_verdict
wc__engine_clock_judge(eng_reader *r, double t, size_t line)
{
	wc_engine_log *e = r->e;
	if (r->held_row && t > e->t[e->n] && !(t > e->t[e->n - r->held_run]))
		drop_run(r, r->held_run);
	/* a held row shown bad is behind the last kept row: it may be the
	 * start of a run behind, or of one more row of it */
	if (r->held_row) {
		r->held_row = 0;
		behind_add(r, e->t[e->n], r->line[e->n], r->cell[e->n]);
	}
	if (e->n == 0 || t > e->t[e->n - 1]) {
		behind_end(r, t, line);
		return WC__CLOCK_KEEP;
	}
	size_t m = run_before(e, t);
	if (run_may_glitch(m, e->n - m)) {
		r->held_run = m;
		return WC__CLOCK_HOLD;
	}
	behind_add(r, t, line, r->time_at);
	return WC__CLOCK_SKIP;
}

/* A run of m rows (1 to WC__ENGINE_GLITCH_ROWS) at an edge of a log of n,
 * parted from the other rows by `hole`: the run is a clock glitch when the
 * hole is over WC_TELEMETRY_MAX_GAP_S, which no log bridges, and over the
 * hole bound of the other rows (from `rest`, n - m of them). The one rule
 * for the log's start and its end: with no row beyond the run to come
 * back in line, only such a hole says it is out of line. */
static int
edge_glitch(size_t n, size_t m, double hole, const double *rest)
{
	if (n < m + 3)
		return 0;
	double bound = wc__engine_hole_bound(rest, n - m);
	return hole > WC_TELEMETRY_MAX_GAP_S && !isnan(bound) && hole > bound;
}

/* The m kept rows from `first`, the log's first rows (first 0) or its last
 * ones, are an edge_glitch: each a bad line at its time cell, naming its
 * own distance from the nearest row kept, and the log starts after them
 * or ends before them. The run is one glitch: its later rows are counted
 * once with the first toward the share of bad lines. */
static void
drop_edge(eng_reader *r, size_t first, size_t m)
{
	wc_engine_log *e = r->e;
	int start = first == 0;
	size_t ref = start ? m : first - 1;
	for (size_t k = first; k < first + m; k++) {
		char unit[160];
		const char *other = wc_prom_time_other_unit(e->t[k], unit, sizeof unit) ? " (another unit than "
		                                                                          "seconds?)" : "";
		wc__bad_cell(r->bad, r->line[k], r->cell[k], "timestamp %.3f%s is %.3f s %s line %zu's at the "
		             "log's %s, no row %s it (over %.0f s, never bridged: a clock glitch); row skipped",
		             e->t[k], other, fabs(e->t[k] - e->t[ref]), start ? "before" : "after", r->line[ref],
		             start ? "start" : "end", start ? "before" : "after", WC_TELEMETRY_MAX_GAP_S);
	}
	r->bad->one_cause += m - 1;
	if (!start) {
		e->n = first;
		return;
	}
	for (size_t k = m; k < e->n; k++)
		move_row(r, k, k - m);
	e->n -= m;
}

void
wc__engine_clock_end(eng_reader *r)
{
	wc_engine_log *e = r->e;
	/* A held last row that keeps the log's spacing from the row before
	 * the run, the run's first row past the hole bound from it: the run
	 * is out of line, as a next row after the held one would have shown. */
	behind_flush(r); /* no row after it came back in line */
	if (r->held_row) {
		size_t first = e->n - r->held_run;
		double bound = first >= 1 ? wc__engine_hole_bound(e->t, first) : NAN;
		if (!isnan(bound) && e->t[first] - e->t[first - 1] > bound && !(e->t[e->n] - e->t[first - 1] > bound))
			drop_run(r, r->held_run);
	}
	wc__engine_clock_drop_held(r);
	/* A final or first run after (before) a hole no log bridges: with no
	 * row beyond it to come back in line, only a hole over
	 * WC_TELEMETRY_MAX_GAP_S says it is a glitch; a shorter hole (the
	 * engine stopped, one last scrape later; one early scrape before the
	 * run) is kept and warned as any hole. */
	for (size_t m = WC__ENGINE_GLITCH_ROWS; m >= 1; m--) {
		size_t first = e->n > m ? e->n - m : 0;
		if (first > 0 && edge_glitch(e->n, m, e->t[first] - e->t[first - 1], e->t)) {
			drop_edge(r, first, m);
			break;
		}
	}
	for (size_t m = WC__ENGINE_GLITCH_ROWS; m >= 1; m--) {
		if (e->n > m && edge_glitch(e->n, m, e->t[m] - e->t[m - 1], e->t + m)) {
			drop_edge(r, 0, m);
			break;
		}
	}
}
