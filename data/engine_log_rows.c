/*
 * engine.csv rows once all are read: counter glitches, server restarts
 * and holes in the log (docs/formats/telemetry.md, "engine.csv").
 */
#include "engine_log_internal.h"
#include "models/stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* Rows after a counter's drop or rise searched for its return: a scrape
 * can misread a few rows in a row; a restarted server never counts back
 * up to the old total within them. */
#define GLITCH_ROWS 3

/* Is row i out of line with the row kept before it (k) and the rows after
 * it? For some counter, a value below k's that one of the next
 * GLITCH_ROWS rows is back at or above, or that a later row is back at
 * or above only at a pace the counter never showed between two kept rows
 * (max_rate[c], per s: a restart would have to count the whole old total
 * again that fast); or a value above k's that one of the next GLITCH_ROWS
 * rows first falls back from while staying at or above k's (a spike of up
 * to GLITCH_ROWS rows). Such a row is a glitch of the scrape, not a
 * restart (a restart stays down) nor counting. A longer spike is read as a
 * restart: told apart by its pace alone, a log that began idle took its
 * whole load ramp before a real restart for one, and deleted it. The
 * column is named in *which. */
static int
glitched(const wc_engine_log *e, size_t k, size_t i, const double *max_rate, int *which)
{
	for (int c = WC_ENG_PROMPT_TOKENS; c < WC_ENG_COLUMNS; c++) {
		if (!e->col[c])
			continue;
		const double *v = e->col[c];
		double p = v[k], x = v[i];
		if (isnan(p) || isnan(x) || x == p)
			continue;
		for (size_t j = i + 1; j < e->n; j++) {
			if (isnan(v[j]))
				continue;
			int near = j <= i + GLITCH_ROWS;
			if (x > p && !near)
				break;
			if (x > p && v[j] < x) {
				/* the first row below it: back in line, or a drop of its own */
				if (v[j] >= p) {
					*which = c;
					return 1;
				}
				break;
			}
			if (x < p && v[j] >= p) {
				/* back: near, or at a pace no restart reaches */
				if (near || (max_rate[c] > 0 && v[j] / (e->t[j] - e->t[k]) > max_rate[c])) {
					*which = c;
					return 1;
				}
				break;
			}
		}
	}
	return 0;
}

/* Glitched rows are dropped (bad lines, each named once); the rest are
 * compacted. max_rate follows the kept rows. */
static void
drop_glitches(wc_engine_log *e, size_t *line, wc__bad_lines *bad)
{
	double max_rate[WC_ENG_COLUMNS] = { 0 };
	size_t kept = 0;
	for (size_t i = 0; i < e->n; i++) {
		int c = 0;
		if (kept > 0 && glitched(e, kept - 1, i, max_rate, &c)) {
			wc__bad_line(bad, line[i], "%s = %.10g against %.10g on the lines around it: a "
			             "glitch, not a restart; row skipped", wc_engine_column_name((wc_engine_column)c),
			             e->col[c][i], e->col[c][kept - 1]);
			continue;
		}
		for (int k = WC_ENG_PROMPT_TOKENS; kept > 0 && k < WC_ENG_COLUMNS; k++) {
			double d = e->col[k] ? e->col[k][i] - e->col[k][kept - 1] : NAN;
			if (d > 0 && e->t[i] > e->t[kept - 1])
				max_rate[k] = fmax(max_rate[k], d / (e->t[i] - e->t[kept - 1]));
		}
		e->t[kept] = e->t[i];
		line[kept] = line[i];
		for (int k = 0; k < WC_ENG_COLUMNS; k++)
			if (e->col[k])
				e->col[k][kept] = e->col[k][i];
		kept++;
	}
	e->n = kept;
}

/* Prometheus counters restart at 0 with the server, so a drop that stays
 * down continues from the last value seen, warned at its line. */
void
wc__engine_settle(wc_engine_log *e, size_t *line, const char *path, const wc_telemetry_options *opt,
                  wc__bad_lines *bad)
{
	double prev[WC_ENG_COLUMNS], add[WC_ENG_COLUMNS];
	drop_glitches(e, line, bad);
	for (int c = 0; c < WC_ENG_COLUMNS; c++)
		prev[c] = add[c] = 0.0;
	for (size_t i = 0; i < e->n; i++) {
		int first = -1, more = 0;
		double from = 0.0, to = 0.0;
		for (int c = WC_ENG_PROMPT_TOKENS; c < WC_ENG_COLUMNS; c++) {
			double x = e->col[c] ? e->col[c][i] : NAN;
			if (isnan(x))
				continue;
			if (x < prev[c]) {
				if (first < 0)
					first = c, from = prev[c], to = x;
				else
					more++;
				add[c] += prev[c];
			}
			prev[c] = x;
			e->col[c][i] = x + add[c];
		}
		/* One warning per restart, however many counters fell. */
		if (first >= 0) {
			char also[40] = "";
			if (more > 0)
				snprintf(also, sizeof also, " (and %d more counter%s)", more, more == 1 ? "" : "s");
			wc__warn(opt, path, ":%zu: %s fell from %.10g to %.10g%s and stayed down: read as a "
			         "server restart, counted on", line[i],
			         wc_engine_column_name((wc_engine_column)first), from, to, also);
		}
	}
}

void
wc__engine_warn_gaps(const wc_engine_log *e, const size_t *line, const char *path,
                     const wc_telemetry_options *opt)
{
	if (e->n < 3)
		return;
	double *d = malloc((e->n - 1) * sizeof *d);
	if (!d)
		return;
	for (size_t i = 1; i < e->n; i++)
		d[i - 1] = e->t[i] - e->t[i - 1];
	/* The one median rule (docs/statistics.md): for an even count the mean
	 * of the two middle spacings, not the upper one, which raised the
	 * threshold of a log mixing short and long spacings. */
	double med = wc_stats_median(d, e->n - 1);
	free(d);
	size_t shown = 0, n = 0;
	double longest = 0.0;
	for (size_t i = 1; med > 0 && i < e->n; i++) {
		double g = e->t[i] - e->t[i - 1];
		if (!(g > WC_TELEMETRY_GAP_CADENCES * med))
			continue;
		n++;
		longest = fmax(longest, g);
		if ((int)shown++ < opt->max_warnings)
			wc__warn(opt, path, ":%zu: no row for %.3f s before this line (%.0f times the median spacing "
			         "%.3f s): gauges such as num_requests_running are held across it", line[i], g,
			         g / med, med);
	}
	if ((int)n > opt->max_warnings)
		wc__warn(opt, path, ": %zu holes of more than %.0f times the median spacing (longest %.3f s), %zu "
		         "not shown", n, WC_TELEMETRY_GAP_CADENCES, longest, n - (size_t)opt->max_warnings);
}
