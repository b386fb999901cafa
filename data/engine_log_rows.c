/*
 * engine.csv rows once all are read: counter glitches, server restarts
 * and holes in the log (docs/formats/telemetry.md, "engine.csv").
 */
#include "engine_log_internal.h"
#include "models/stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Rows after a counter's drop or rise searched for its return (the one
 * bound for a scrape's glitch, engine_log_internal.h). */
#define GLITCH_ROWS WC__ENGINE_GLITCH_ROWS

/* Is row i out of line with the row kept before it (k) and the rows after
 * it? For some counter, a value below k's that one of the next
 * GLITCH_ROWS rows is back at or above, or that a later row is back at
 * or above only at a pace the counter never showed between two kept rows
 * (its max_rate, per s: a restart would have to count the whole old total
 * again that fast); or a value above k's that one of the next GLITCH_ROWS
 * rows first falls back from while staying at or above k's (a spike of up
 * to GLITCH_ROWS rows). Such a row is a glitch of the scrape, not a
 * restart (a restart stays down) nor counting. A longer spike is read as a
 * restart: told apart by its pace alone, a log that began idle took its
 * whole load ramp before a real restart for one, and deleted it. Each
 * engine's counter is judged on its own (one engine restarting while the
 * others count on stays down in its own counter only). The counter is
 * named in *which. */
static int
glitched(const wc_engine_log *e, const wc__engine_counters *set, size_t k, size_t i, size_t *which)
{
	for (size_t c = 0; c < set->n; c++) {
		const double *v = set->s[c].v, max_rate = set->s[c].max_rate;
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
				if (near || (max_rate > 0 && v[j] / (e->t[j] - e->t[k]) > max_rate)) {
					*which = c;
					return 1;
				}
				break;
			}
		}
	}
	return 0;
}

const char *
wc__engine_series_name(wc_engine_column col, const char *engine, char *buf, size_t size)
{
	snprintf(buf, size, "%s%s%s%s", wc_engine_column_name(col), engine[0] ? "{" : "", engine,
	         engine[0] ? "}" : "");
	return buf;
}

/* Glitched rows are dropped (bad lines, each named once); the rest are
 * compacted. Each counter's max_rate follows the kept rows. */
static void
drop_glitches(wc_engine_log *e, wc__engine_counters *set, size_t *line, wc__bad_lines *bad)
{
	size_t kept = 0;
	char name[128];
	for (size_t c = 0; c < set->n; c++)
		set->s[c].max_rate = 0.0;
	for (size_t i = 0; i < e->n; i++) {
		size_t c = 0;
		if (kept > 0 && glitched(e, set, kept - 1, i, &c)) {
			wc__bad_line(bad, line[i], "%s = %.10g against %.10g on the lines around it: a "
			             "glitch, not a restart; row skipped",
			             wc__engine_series_name(set->s[c].col, set->s[c].engine, name, sizeof name),
			             set->s[c].v[i], set->s[c].v[kept - 1]);
			continue;
		}
		for (size_t k = 0; kept > 0 && k < set->n; k++) {
			double d = set->s[k].v[i] - set->s[k].v[kept - 1];
			if (d > 0 && e->t[i] > e->t[kept - 1])
				set->s[k].max_rate = fmax(set->s[k].max_rate, d / (e->t[i] - e->t[kept - 1]));
		}
		e->t[kept] = e->t[i];
		line[kept] = line[i];
		for (int k = 0; k < WC_ENG_COLUMNS; k++)
			if (e->col[k])
				e->col[k][kept] = e->col[k][i];
		for (size_t k = 0; k < set->n; k++)
			set->s[k].v[kept] = set->s[k].v[i];
		kept++;
	}
	e->n = kept;
}

/* A counter column's rows once its engines' counters are settled: their
 * sum where the row had every engine's cell (blank otherwise, as read,
 * then holding the row before's sum). Before an engine's first value its
 * counter has not started: it stands at that first value, so nothing is
 * counted before it and a cell missing there does not blank the row --
 * the one rule of the Prometheus readers, whose increases begin at a
 * series' first sample (docs/formats/telemetry.md, "Missing cells";
 * docs/fleet.md, "Rows"). Leading blanks blanked every window's start,
 * so the tokens, iterations and phase split of a whole run were lost; an
 * engine appearing under a later header counted its whole first value as
 * tokens at once. A header that no longer names an engine ends the log
 * (data/engine_csv.c, repeated_header): no row holds an engine's counter
 * flat while the others count. */
static void
add_engines(wc_engine_log *e, wc__engine_counters *set)
{
	for (size_t k = 0; k < set->n; k++) {
		wc__engine_counter *s = &set->s[k];
		for (s->first = 0; s->first < e->n && isnan(s->v[s->first]); s->first++)
			;
		for (s->last = e->n; s->last > s->first && isnan(s->v[s->last - 1]); s->last--)
			;
		s->last = s->last > s->first ? s->last - 1 : e->n;
		s->prev = s->first < e->n ? s->v[s->first] : NAN; /* NAN: never read */
	}
	for (size_t i = 0; i < e->n; i++) {
		for (int c = WC_ENG_PROMPT_TOKENS; c < WC_ENG_COLUMNS; c++) {
			/* a missing cell is one of an engine counting already */
			int missing = 0;
			for (size_t k = 0; e->col[c] && isnan(e->col[c][i]) && k < set->n; k++)
				missing |= set->s[k].col == (wc_engine_column)c && isnan(set->s[k].v[i]) &&
				           i >= set->s[k].first;
			if (e->col[c] && !missing)
				e->col[c][i] = 0.0;
		}
		for (size_t k = 0; k < set->n; k++) {
			wc__engine_counter *s = &set->s[k];
			s->prev = isnan(s->v[i]) ? s->prev : s->v[i];
			if (e->col[s->col] && !isnan(s->prev))
				e->col[s->col][i] += s->prev; /* stays NAN where a cell was missing */
		}
	}
}

/* A column lacking an engine the header names (e->engine_without,
 * data/engine_csv_header.c) is unknown, gauge or counter alike: that
 * engine served, and its share is unknown, so the sum (the cache's mean)
 * is too, not the others' part. Read as absent, said naming the
 * engine's series (docs/formats/telemetry.md, "Missing cells"); added up
 * without it, a running gauge read that engine's requests as none and a
 * token counter half the tokens, silently. */
static void
unknown_sums(wc_engine_log *e, const char *path, const wc_telemetry_options *opt)
{
	for (int c = 0; c < WC_ENG_COLUMNS; c++) {
		char name[128];
		if (!e->col[c] || !e->engine_without[c][0])
			continue;
		wc__warn(opt, path, ": %s has no column while that engine's other columns do: their %s is unknown, "
		         "not a part; %s read as absent",
		         wc__engine_series_name((wc_engine_column)c, e->engine_without[c], name, sizeof name),
		         c == WC_ENG_CACHE_USAGE ? "mean" : "sum", wc_engine_column_name((wc_engine_column)c));
		free(e->col[c]);
		e->col[c] = NULL;
	}
}

/* A counter left blank on the log's last rows is unknown after its last
 * value, the mirror of one that starts late: held flat there it counted
 * nothing while the power was still drawn (a run's last 15 s blank read
 * 25 % fewer tokens, 34 % more J/token). The column counts all its work
 * up to its last value (unknown_last; ingest cuts its rows there as at a
 * late first value), said once a log naming the series and the span
 * (docs/formats/telemetry.md, "Missing cells"). */
static void
early_counters(wc_engine_log *e, const wc__engine_counters *set, const char *path,
               const wc_telemetry_options *opt)
{
	const wc__engine_counter *early = NULL;
	int more = 0;
	for (size_t k = 0; k < set->n; k++) {
		const wc__engine_counter *s = &set->s[k];
		if (!e->col[s->col] || s->last >= e->n || s->last + 1 == e->n)
			continue;
		if (e->n - 1 - s->last > e->unknown_last[s->col])
			e->unknown_last[s->col] = e->n - 1 - s->last;
		more += early != NULL;
		early = early && early->last <= s->last ? early : s;
	}
	if (!early)
		return;
	char name[128], also[40] = "";
	const size_t l = early->last;
	if (more > 0)
		snprintf(also, sizeof also, " (and %d more counter%s)", more, more == 1 ? "" : "s");
	wc__warn(opt, path, ": %s%s blank on the last %zu rows (%.3f-%.3f, %.3f s) after %.10g: unknown there, "
	         "not held flat; counted to its last value", wc__engine_series_name(early->col, early->engine, name,
	         sizeof name), also, e->n - 1 - l, e->t[l], e->t[e->n - 1], e->t[e->n - 1] - e->t[l], early->v[l]);
}

/* A counter column with no value on any line is unknown, not 0: it is
 * read as a log without it (blank throughput and energy per token, the
 * manifest's counts standing in); read as 0 it gave 0 tok/s, 0 tokens
 * and 0 iterations silently. So is a column one of whose data-parallel
 * engines has no value on any line while the others count: the sum is
 * unknown, not the others' part (added up without it, that engine's
 * share of the tokens was lost silently).
 * A counter whose first value comes after the log's first row and
 * exceeds what it counts over the spacing before
 * that row at the fastest pace it shows anywhere (max_rate) counted
 * there unseen: it started mid-run, so the column counts all its work
 * only from that row (counted_from; ingest cuts its rows there as it
 * does for a late running gauge). One whose first value that spacing
 * can hold -- a series exported when it first counts, the idle start --
 * stands at it as before (docs/formats/telemetry.md, "Missing cells"). */
static void
late_counters(wc_engine_log *e, const wc__engine_counters *set, const char *path,
              const wc_telemetry_options *opt)
{
	const wc__engine_counter *late = NULL;
	int more = 0;
	for (int c = WC_ENG_PROMPT_TOKENS; c < WC_ENG_COLUMNS; c++) {
		const wc__engine_counter *none = NULL; /* an engine's counter without a value */
		int any = 0;
		for (size_t k = 0; e->col[c] && k < set->n; k++) {
			const wc__engine_counter *s = &set->s[k];
			if (s->col == (wc_engine_column)c && s->first >= e->n)
				none = none ? none : s;
			any |= s->col == (wc_engine_column)c && s->first < e->n;
		}
		if (e->col[c] && (!any || none)) {
			char name[128];
			if (!any)
				wc__warn(opt, path, ": %s has no value on any line (blank or NaN): unknown, not 0; read as "
				         "absent", wc_engine_column_name((wc_engine_column)c));
			else
				wc__warn(opt, path, ": %s has no value on any line (blank or NaN) while the other engines "
				         "count: their sum is unknown, not a part; %s read as absent",
				         wc__engine_series_name(none->col, none->engine, name, sizeof name),
				         wc_engine_column_name((wc_engine_column)c));
			free(e->col[c]);
			e->col[c] = NULL;
		}
		for (size_t k = 0; e->col[c] && k < set->n; k++) {
			const wc__engine_counter *s = &set->s[k];
			const size_t f = s->first;
			if (s->col != (wc_engine_column)c || f == 0 ||
			    !(s->v[f] > s->max_rate * (e->t[f] - e->t[f - 1])))
				continue;
			e->counted_from[c] = f > e->counted_from[c] ? f : e->counted_from[c];
			more += late != NULL;
			late = late ? late : s;
		}
	}
	if (!late)
		return;
	/* one warning a log, however many counters started late */
	char name[128], also[40] = "";
	const size_t f = late->first;
	if (more > 0)
		snprintf(also, sizeof also, " (and %d more counter%s)", more, more == 1 ? "" : "s");
	wc__warn(opt, path, ": %s%s blank on the first %zu rows (%.3f-%.3f, %.3f s), then %.10g, more than its "
	         "fastest pace (%.4g/s) counts in %.3f s: counted unseen there, unknown",
	         wc__engine_series_name(late->col, late->engine, name, sizeof name), also, f, e->t[0], e->t[f],
	         e->t[f] - e->t[0], late->v[f], late->max_rate, e->t[f] - e->t[f - 1]);
}

/* Does a counter of `set` belong to an engine other than `engine`? */
static int
other_engine(const wc__engine_counters *set, const char *engine)
{
	for (size_t k = 0; k < set->n; k++)
		if (strcmp(set->s[k].engine, engine) != 0)
			return 1;
	return 0;
}

/* Prometheus counters restart at 0 with the server (or with one of its
 * engines), so a drop that stays down continues from the last value
 * seen, warned at its line. */
void
wc__engine_settle(wc_engine_log *e, wc__engine_counters *set, size_t *line, const char *path,
                  const wc_telemetry_options *opt, wc__bad_lines *bad)
{
	drop_glitches(e, set, line, bad);
	for (size_t k = 0; k < set->n; k++)
		set->s[k].prev = set->s[k].add = 0.0;
	for (size_t i = 0; i < e->n; i++) {
		const wc__engine_counter *first = NULL;
		int more = 0, same_engine = 1;
		double from = 0.0, to = 0.0;
		for (size_t k = 0; k < set->n; k++) {
			wc__engine_counter *s = &set->s[k];
			double x = s->v[i];
			if (isnan(x))
				continue;
			if (x < s->prev) {
				if (!first)
					first = s, from = s->prev, to = x;
				else
					more++;
				same_engine = same_engine && strcmp(s->engine, first->engine) == 0;
				s->add += s->prev;
			}
			s->prev = x;
			s->v[i] = x + s->add;
		}
		/* One warning per restart, however many counters fell. */
		if (first) {
			char also[40] = "", name[128];
			if (more > 0)
				snprintf(also, sizeof also, " (and %d more counter%s)", more, more == 1 ? "" : "s");
			wc__warn(opt, path, ":%zu: %s fell from %.10g to %.10g%s and stayed down: read as a %s, "
			         "counted on", line[i], wc__engine_series_name(first->col, first->engine, name, sizeof name),
			         from, to, also,
			         same_engine && other_engine(set, first->engine) ? "restart of that engine alone" :
			         "server restart");
		}
	}
	add_engines(e, set);
	unknown_sums(e, path, opt);
	late_counters(e, set, path, opt);
	early_counters(e, set, path, opt);
}

double
wc__engine_hole_bound(const double *t, size_t n)
{
	if (n < 3)
		return NAN;
	double *d = malloc((n - 1) * sizeof *d);
	if (!d)
		return NAN;
	for (size_t i = 1; i < n; i++)
		d[i - 1] = t[i] - t[i - 1];
	/* The one median rule (docs/statistics.md): for an even count the mean
	 * of the two middle spacings, not the upper one, which raised the
	 * threshold of a log mixing short and long spacings. */
	double med = wc_stats_median(d, n - 1);
	free(d);
	return med > 0 ? WC_TELEMETRY_GAP_CADENCES * med : NAN;
}

void
wc__engine_warn_gaps(const wc_engine_log *e, const size_t *line, const char *path,
                     const wc_telemetry_options *opt)
{
	double bound = wc__engine_hole_bound(e->t, e->n);
	if (isnan(bound))
		return;
	double med = bound / WC_TELEMETRY_GAP_CADENCES;
	size_t shown = 0, n = 0;
	double longest = 0.0;
	for (size_t i = 1; i < e->n; i++) {
		double g = e->t[i] - e->t[i - 1];
		if (!(g > bound))
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
