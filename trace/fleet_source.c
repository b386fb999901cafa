/*
 * Where a fleet ingest's series come from (docs/fleet.md, "Queries"): a
 * Prometheus server, queried one page of steps at a time so that memory stays flat in the range's length, or
 * saved query_range responses and text scrapes, read whole. Responses
 * are fetched uncompressed: on a loopback or LAN the server's gzip costs
 * more than it saves (docs/results.md, "Fleet ingest from Prometheus").
 */
#include "fleet_internal.h"

#include "models/grow.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void
say(const wc_fleet_options *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
say(const wc_fleet_options *o, const char *fmt, ...)
{
	char msg[2600];
	va_list ap;
	if (!o->verbose)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	o->verbose(msg, o->warn_payload);
}

static int
fetch_page(wc_fleet *f, const char *url, char (*q)[WC_FLEET_QUERY_MAX], size_t k0, size_t k1, wc_error *err)
{
	wc_prom_set set = { 0 };
	double a = f->o.start + (double)k0 * f->o.step, b = f->o.start + (double)(k1 - 1) * f->o.step;
	char ta[40], tb[40];
	int rc = WC_OK;
	wc_prom_format_time(a, ta, sizeof ta);
	wc_prom_format_time(b, tb, sizeof tb);
	for (int m = 0; rc == WC_OK && m < WC_FLEET_N_METRICS; m++)
		rc = wc__fleet_query(f, url, q[m], a, b, f->o.step, wc_fleet_metric_name(m), &set, err);
	if (rc == WC_OK)
		rc = wc__fleet_join_processes(&set, err);
	if (rc == WC_OK)
		rc = wc__fleet_join_relabelled(f, &set, err);
	if (rc == WC_OK) {
		say(&f->o, "page %s .. %s: %zu series", ta, tb, set.n);
		rc = wc_fleet_feed(f, &set, k0, k1, err);
	}
	if (rc == WC_OK)
		rc = wc__fleet_shared_page(f, url, &set, a, b, NULL, err);
	wc_prom_set_clear(&set);
	return rc;
}

/* The scrape interval measured before the first page with power is
 * walked, on the default page's steps from it (power and running alone):
 * pages of --page-steps under two scrape intervals measured nothing, or
 * a spacing of the grid (--step 1.5 --page-steps 2 over 2 s scrapes:
 * 1.5 s, accepted, 47 fragment rows), where the default page refused the
 * step. The refusal no longer depends on the page size (docs/fleet.md,
 * "Queries"). The spacing across pages is the groups' own again after. */
static int
measure_interval(wc_fleet *f, const char *url, char (*q)[WC_FLEET_QUERY_MAX], size_t k0, wc_error *err)
{
	size_t k1 = f->n_steps - k0 > WC_FLEET_DEFAULT_PAGE_STEPS ? k0 + WC_FLEET_DEFAULT_PAGE_STEPS : f->n_steps;
	double a = f->o.start + (double)k0 * f->o.step, b = f->o.start + (double)(k1 - 1) * f->o.step;
	static const int m[2] = { WC_FLEET_POWER, WC_FLEET_RUNNING };
	wc_prom_set set = { 0 };
	int rc = WC_OK;
	for (int k = 0; rc == WC_OK && k < 2; k++)
		rc = wc__fleet_query(f, url, q[m[k]], a, b, f->o.step, wc_fleet_metric_name(m[k]), &set, err);
	if (rc == WC_OK)
		rc = wc__fleet_join_processes(&set, err);
	if (rc == WC_OK)
		rc = wc__fleet_join_relabelled(f, &set, err);
	if (rc == WC_OK)
		rc = wc_fleet_feed(f, &set, k0, k0, err);
	for (size_t g = 0; g < f->n_groups; g++)
		f->g[g].prev_last[0] = f->g[g].prev_last[1] = 0.0;
	wc_prom_set_clear(&set);
	return rc;
}

/* Pages per probe query: below Prometheus's 11 000 points per series. */
#define PROBE_PAGES 10000

/* Which of n pages of `len` steps, the first ending at step time
 * `last`, hold a power sample: one query of the power series counted over
 * each page's span (at its last step, the range the page one millisecond
 * short), as the page's own power query would find them. */
static int
probe_span(wc_fleet *f, const char *url, const char *selector, size_t len, double last, size_t n,
           unsigned char *has, wc_error *err)
{
	double span = (double)len * f->o.step;
	char *q = malloc(WC_FLEET_QUERY_MAX + 16);
	wc_prom_set set = { 0 };
	if (!q)
		return wc_error_set(err, WC_ENOMEM, "out of memory");
	memcpy(q, "count(", 6);
	int rc = wc_fleet_query(WC_FLEET_POWER, selector, span, q + 6, WC_FLEET_QUERY_MAX, err);
	if (rc == WC_OK) {
		strcat(q, ")");
		rc = wc__fleet_query(f, url, q, last, last + (double)(n - 1) * span, span, "probe", &set, err);
	}
	for (size_t i = 0; rc == WC_OK && i < set.n; i++)
		for (size_t j = 0; j < set.s[i].n; j++) {
			double p = round((set.s[i].t[j] - last) / span);
			if (p >= 0 && p < (double)n && set.s[i].v[j] > 0)
				has[(size_t)p] = 1;
		}
	wc_prom_set_clear(&set);
	free(q);
	return rc;
}

/* Which of pages p0 <= p < p1 hold a power sample. Pages without are not
 * fetched: a 10-year range holding a minute of data was ~1.4 million
 * queries, 40 minutes of them (docs/fleet.md, "Queries"). The range's
 * last page, shorter than the others, is probed on its own, over its own
 * steps: probed as a whole page, at a time past --end, its window saw the
 * samples after the range, and the page was fetched for nothing and left
 * out of the count ("21 of 22 pages" where none held power in the
 * range). So no probe window reaches outside the steps the pages read,
 * (start - step, end]. */
static int
probe_pages(wc_fleet *f, const char *url, const char *selector, size_t page, size_t p0, size_t p1,
            unsigned char *has, wc_error *err)
{
	size_t whole = p1 - p0, last_len = f->n_steps - (p1 - 1) * page;
	int rc = WC_OK;
	if (last_len < page)
		whole--;
	memset(has, 0, p1 - p0);
	if (whole)
		rc = probe_span(f, url, selector, page, f->o.start + (double)(p0 * page + page - 1) * f->o.step, whole,
		                has, err);
	if (rc == WC_OK && whole < p1 - p0)
		rc = probe_span(f, url, selector, last_len, f->o.start + (double)(f->n_steps - 1) * f->o.step, 1,
		                has + whole, err);
	return rc;
}

int
wc_fleet_ingest_http(const char *url, const char *selector, const wc_fleet_options *o,
                     wc_runs_table **out, wc_error *err)
{
	char (*q)[WC_FLEET_QUERY_MAX] = calloc(WC_FLEET_N_METRICS, sizeof *q);
	unsigned char *has = malloc(PROBE_PAGES);
	wc_fleet *f = NULL;
	*out = NULL;
	if (!q || !has) {
		free(q);
		free(has);
		return wc_error_set(err, WC_ENOMEM, "ingest: out of memory");
	}
	int rc = wc_fleet_new(o, &f, err);
	if (rc == WC_OK)
		wc__fleet_selector_engines(f, selector);
	if (rc == WC_OK)
		rc = wc__fleet_count_check(f, err);
	for (int m = 0; rc == WC_OK && m < WC_FLEET_N_METRICS; m++) {
		rc = wc_fleet_query(m, selector, o->step, q[m], sizeof q[m], err);
		if (rc == WC_OK)
			say(o, "query: %s", q[m]);
	}
	size_t page = o->page_steps ? o->page_steps : WC_FLEET_DEFAULT_PAGE_STEPS;
	size_t n_pages = rc == WC_OK ? (f->n_steps + page - 1) / page : 0, skipped = 0;
	int measured = page >= WC_FLEET_DEFAULT_PAGE_STEPS, timed = 0;
	for (size_t p0 = 0; rc == WC_OK && p0 < n_pages; p0 += PROBE_PAGES) {
		size_t p1 = n_pages - p0 > PROBE_PAGES ? p0 + PROBE_PAGES : n_pages;
		if (n_pages > 1)
			rc = probe_pages(f, url, selector, page, p0, p1, has, err);
		else
			has[0] = 1;
		for (size_t p = p0; rc == WC_OK && p < p1; p++) {
			size_t k0 = p * page, k1 = f->n_steps - k0 > page ? k0 + page : f->n_steps;
			/* The last page is no exception: fetched with no power in
			 * it, it only made one more query of four series and its
			 * gap was counted as a fetched page (docs/fleet.md,
			 * "Paging"). */
			if (has[p - p0] && !measured && k1 < f->n_steps) {
				measured = 1;
				rc = measure_interval(f, url, q, k0, err);
			}
			if (rc != WC_OK)
				break;
			if (has[p - p0]) {
				/* The scrapes' own times before the first page is
				 * walked, whose holes it would report as outages. */
				if (!timed) {
					timed = 1;
					rc = wc__fleet_check_scrape_times(f, url, q, k0, err);
				}
				if (rc == WC_OK)
					rc = fetch_page(f, url, q, k0, k1, err);
			} else {
				/* No power in the page: every step is the gap its first
				 * step makes (reported, the window closed), so that one
				 * step stands for them all. */
				wc_prom_set none = { 0 };
				f->unfetched = 1;
				rc = wc_fleet_feed(f, &none, k0, k0 + 1, err);
				f->unfetched = 0;
				skipped++;
			}
		}
	}
	if (rc == WC_OK && skipped)
		say(o, "%zu of %zu pages hold no power sample: not fetched", skipped, n_pages);
	if (rc == WC_OK)
		rc = wc_fleet_finish(f, out, err);
	wc_fleet_free(f);
	free(q);
	free(has);
	return rc;
}

/* The grid of the samples one saved answer added (those of series i from
 * before[i] on): the step, in ms, that divides its series' grids, and its
 * origin, the earliest time of any of them (a series that appeared
 * mid-range, first in the answer, named the origin 08:44:00 of a grid
 * starting 08:42:15); step 0 when it shows no grid (raw samples, one
 * value). */
typedef struct {
	long long step, at;
} saved_grid;

static int
grid_of_file(const wc_prom_set *set, const size_t *before, size_t n_before, saved_grid *out, wc_error *err)
{
	out->step = out->at = 0;
	double *tmp = wc__fleet_series_scratch(set);
	if (!tmp)
		return wc_error_set(err, WC_ENOMEM, "out of memory");
	for (size_t i = 0; i < set->n; i++) {
		wc_prom_series part = set->s[i];
		size_t from = i < n_before ? before[i] : 0;
		if (!part.query_range || part.n < from + 2)
			continue;
		part.t += from;
		part.n -= from;
		long long g = wc__fleet_grid_ms(&part, tmp), a = out->step;
		if (!g)
			continue;
		if (!a || llround(part.t[0] * 1000.0) < out->at)
			out->at = llround(part.t[0] * 1000.0);
		while (g) {
			long long r = a % g;
			a = g;
			g = r;
		}
		out->step = a;
	}
	free(tmp);
	return WC_OK;
}

/* A --start off the grid of saved query_range answers: their values are
 * means over (t - step, t] at t = start + k x step of the query saved,
 * and a grid moved by 7 s averaged them again, 7 s late: one row of h1
 * at 435.0 W where the server, asked with that --start, gave two at
 * 436.8 and 370.2 W. The files cannot give what a server answers at
 * another start, so the start is refused naming the grid times either
 * side (docs/fleet.md, "Queries"). An --end needs no grid: with the
 * start on it, the last step is the last grid time up to the end, as a
 * server's. */
static int
start_on_grid(double start, const saved_grid *g, wc_error *err)
{
	long long at = llround(start * 1000.0), d = at - g->at, k = g->step ? d / g->step - (d % g->step < 0) : 0;
	if (!g->step || d - k * g->step == 0)
		return WC_OK;
	char given[40], below[40], above[40], first[40];
	wc_prom_format_time(start, given, sizeof given);
	wc_prom_format_time((double)(g->at + k * g->step) / 1000.0, below, sizeof below);
	wc_prom_format_time((double)(g->at + (k + 1) * g->step) / 1000.0, above, sizeof above);
	wc_prom_format_time((double)g->at / 1000.0, first, sizeof first);
	return wc_error_set(err, WC_EINVAL, "--start %s is off the saved answers' grid (a value every %.10g s "
	                    "from %s): give --start %s or %s; they hold no other start's means", given,
	                    (double)g->step / 1000.0, first, below, above);
}

/* A step longer than the saved answers' grid averages several of their
 * values, each the mean over the grid step up to its time, so the files
 * cover a step ending at t only from the earliest power value's time
 * less one grid step on. The first 30 s step at the first 15 s value
 * held half its span, as a full step: h1's first row 186.6 W at 3.75
 * running where the server gave 151.8 W at 2.20 over the same range.
 * The range starts at the first step the files cover whole, said
 * (docs/fleet.md, "Queries"). */
static int
first_covered(const wc_prom_set *set, const saved_grid *g, int given_start, wc_fleet_options *o,
              wc_error *err)
{
	double lo = INFINITY, grid = (double)g->step / 1000.0;
	for (size_t i = 0; i < set->n; i++)
		if (set->s[i].query_range && set->s[i].n && wc_fleet_metric_from_name(set->s[i].metric) == WC_FLEET_POWER)
			lo = fmin(lo, set->s[i].t[0]);
	if (!g->step || !isfinite(lo) || o->step <= grid + 1e-9 || o->start - o->step >= lo - grid - 1e-6)
		return WC_OK;
	double k = ceil((lo - grid + o->step - o->start) / o->step - 1e-9), start = o->start + k * o->step;
	char was[40], first[40], now[40];
	wc_prom_format_time(o->start, was, sizeof was);
	wc_prom_format_time(lo - grid, first, sizeof first);
	wc_prom_format_time(start, now, sizeof now);
	if (start > o->end + 1e-6)
		return wc_error_set(err, WC_EINVAL, "--step %.10g s: no step of the range lies within the saved answers, "
		                    "which cover from %s on (a value every %.10g s): give a shorter --step or a later "
		                    "--end", o->step, first, grid);
	if (o->warn) {
		char msg[WC_ERROR_MSG_MAX];
		/* Times of 24 bytes (2026-12-06T12:10:05.550Z): the message fits 255. */
		snprintf(msg, sizeof msg, "--step %.10g s over saved answers of a value every %.10g s, which cover from "
		         "%.24s: the range starts at %.24s, the first step they cover whole, not at %.24s (%s)", o->step,
		         grid, first, now, was, given_start ? "--start" : "their first value");
		o->warn(msg, o->warn_payload);
	}
	o->start = start;
	return WC_OK;
}

/* The last engine-load sample of a group that has GPU power (-INFINITY
 * none) into *hi. The files' range ended at the last power sample: a
 * host whose every GPU series stopped while its engine went on lost the
 * engine's steps after it without a word, where a gap anywhere else, or
 * before an --end, is reported (docs/fleet.md, "Problems in the data").
 * Engines of groups without GPU power do not stretch the range: they are
 * left out whatever it is. */
static int
engine_end(const wc_prom_set *set, const char *group_by, double *hi, wc_error *err)
{
	wc_strmap power = { 0 };
	char key[512], name[80];
	int rc = WC_OK;
	*hi = -INFINITY;
	for (size_t i = 0; rc == WC_OK && i < set->n; i++)
		if (set->s[i].n && wc_fleet_metric_from_name(set->s[i].metric) == WC_FLEET_POWER) {
			wc__fleet_group_key(group_by, &set->s[i], WC_FLEET_POWER, key, sizeof key, name, sizeof name);
			if (wc_strmap_put(&power, key, 1) != WC_OK)
				rc = wc_error_set(err, WC_ENOMEM, "out of memory");
		}
	for (size_t i = 0; rc == WC_OK && i < set->n; i++) {
		const wc_prom_series *s = &set->s[i];
		if (!s->n || wc_fleet_metric_from_name(s->metric) != WC_FLEET_RUNNING || !(s->t[s->n - 1] > *hi))
			continue;
		wc__fleet_group_key(group_by, s, WC_FLEET_RUNNING, key, sizeof key, name, sizeof name);
		if (wc_strmap_get(&power, key, NULL))
			*hi = s->t[s->n - 1];
	}
	wc_strmap_free(&power);
	return rc;
}

/* The grid the files cover: their power samples' span, and as the step
 * the scrape interval of the sparsest power or running series, measured
 * and rounded as the interval check does (fleet_interval.c), so that the
 * default is never refused: the smallest spacing was, for a host scraped
 * every 15 s beside hosts scraped every second, and for one early or
 * repeated scrape among 15 s ones. A query_range answer's step is its
 * grid's (wc__fleet_series_step), not its rounded mean spacing. */
static int
infer_grid(const wc_prom_set *set, wc_fleet_options *o, wc_error *err)
{
	double lo = INFINITY, hi = -INFINITY, step = 0.0, lo_n = INFINITY, hi_n = -INFINITY;
	double *tmp = wc__fleet_series_scratch(set);
	if (!tmp)
		return wc_error_set(err, WC_ENOMEM, "out of memory");
	for (size_t i = 0; i < set->n; i++) {
		const wc_prom_series *s = &set->s[i];
		int m = wc_fleet_metric_from_name(s->metric);
		if (m == WC_FLEET_RUNNING || m == WC_FLEET_POWER)
			step = fmax(step, wc__fleet_series_step(s, tmp));
		if (m == WC_FLEET_RUNNING && s->n > 0) {
			lo_n = fmin(lo_n, s->t[0]);
			hi_n = fmax(hi_n, s->t[s->n - 1]);
		}
		if (m != WC_FLEET_POWER || s->n == 0)
			continue;
		lo = fmin(lo, s->t[0]);
		hi = fmax(hi, s->t[s->n - 1]);
	}
	free(tmp);
	if (!isfinite(lo))
		return wc_error_set(err, WC_EINVAL, "no DCGM_FI_DEV_POWER_USAGE (or _INSTANT) samples in the files "
		                    "that --selector (if given) matches");
	/* A range outside the data said "end: before start" when --start was
	 * after the last sample (the end defaults to it): name the data's span. */
	char a[40], b[40], given[40];
	wc_prom_format_time(lo, a, sizeof a);
	wc_prom_format_time(hi, b, sizeof b);
	/* Power and load that never meet left only "no window with both"
	 * to go on; a clock skew between exporters is the usual cause. */
	if (isfinite(lo_n) && (hi_n < lo || lo_n > hi)) {
		char c[40], d[40];
		wc_prom_format_time(lo_n, c, sizeof c);
		wc_prom_format_time(hi_n, d, sizeof d);
		return wc_error_set(err, WC_EINVAL, "the power samples (%s to %s) and the engine's running counts (%s to "
		                    "%s) do not overlap: a clock skew between the exporters, or files of different "
		                    "runs?", a, b, c, d);
	}
	if (isfinite(o->start) && o->start > hi) {
		wc_prom_format_time(o->start, given, sizeof given);
		return wc_error_set(err, WC_EINVAL, "--start %s is after the last power sample: give one within "
		                    "the files' span, %s to %s", given, a, b);
	}
	if (isfinite(o->end) && o->end < lo) {
		wc_prom_format_time(o->end, given, sizeof given);
		return wc_error_set(err, WC_EINVAL, "--end %s is before the first power sample: give one within "
		                    "the files' span, %s to %s", given, a, b);
	}
	saved_grid g;
	int rc = grid_of_file(set, NULL, 0, &g, err);
	if (rc == WC_OK && isfinite(o->start))
		rc = start_on_grid(o->start, &g, err);
	if (rc != WC_OK)
		return rc;
	int given_start = isfinite(o->start);
	if (!isfinite(o->start))
		o->start = lo;
	if (!isfinite(o->step)) {
		if (!(step > 0.0))
			return wc_error_set(err, WC_EINVAL, "step: one power sample per series; --step gives it");
		o->step = step;
	}
	/* The end: the first grid step at or after the last power sample, so
	 * that the step holding it is read; or a later sample of the engine
	 * load of a group with power, so that its GPUs' stop is a gap,
	 * reported. Ended at the last sample itself, the grid's last step
	 * ended before it and the samples after were dropped unsaid: 14 s of
	 * every series at --step 15 over 1 s scrapes, and a host's last row
	 * read 396.3 W alone, 381.0 W beside a file reaching further
	 * (docs/fleet.md, "Queries"). Whole steps within 1e-6 s, as
	 * wc_fleet_new counts them; a step longer than the samples' span
	 * stays refused there, not stretched into one step of data. */
	if (!isfinite(o->end)) {
		double hi_e, q = (hi - o->start) / o->step, whole = round(q);
		if ((rc = engine_end(set, o->group_by, &hi_e, err)) != WC_OK)
			return rc;
		if (fabs(q - whole) * o->step <= 1e-6)
			q = whole;
		o->end = fmax(q >= 1.0 ? o->start + ceil(q) * o->step : hi, hi_e);
	}
	return first_covered(set, &g, given_start, o, err);
}

/* The series with a sample the grid reads, in (start - step, end]: a
 * server's answer holds no other, and from files a model redeployed
 * outside --start/--end still made its group two engines (docs/fleet.md,
 * "Grouping"). */
static int
within_range(wc_prom_set *set, const wc_fleet_options *o, wc_error *err)
{
	unsigned char *keep = malloc(set->n ? set->n : 1);
	if (!keep)
		return wc_error_set(err, WC_ENOMEM, "out of memory");
	for (size_t i = 0; i < set->n; i++) {
		const wc_prom_series *s = &set->s[i];
		keep[i] = 0;
		for (size_t j = 0; !keep[i] && j < s->n; j++)
			keep[i] = s->t[j] > o->start - o->step && s->t[j] <= o->end;
	}
	int rc = wc_prom_set_retain(set, keep, err);
	free(keep);
	return rc;
}

/* Saved answers of queries run at different times lie on grids offset
 * from one another (15 s from 00:00:00 and from 00:00:07): read on one,
 * each --start was refused by one file or the other, and without one a
 * row mixed means over windows 7 s apart, unsaid. Answers share a grid
 * when their times differ by a multiple of both steps' divisor; others
 * are refused naming both files (docs/fleet.md, "Queries"). */
static int
same_grid(const char *file, const saved_grid *g, const char *first, const saved_grid *g0, wc_error *err)
{
	long long a = g->step, b = g0->step;
	while (b) {
		long long r = a % b;
		a = b;
		b = r;
	}
	if ((g->at - g0->at) % a == 0)
		return WC_OK;
	char t[40], t0[40], other[72];
	wc_prom_format_time((double)g->at / 1000.0, t, sizeof t);
	wc_prom_format_time((double)g0->at / 1000.0, t0, sizeof t0);
	/* The path rule shortens this file's path; the other keeps its name. */
	const char *base = strrchr(first, '/');
	if (strlen(first) < sizeof other || !base)
		wc_error_name_cut(first, sizeof other - 1, other, sizeof other);
	else
		wc_error_format(other, sizeof other, "...%s", base);
	return wc_error_set_path(err, WC_EINVAL, file, ": a value every %.10g s from %s, off the grid of %s "
	                         "(every %.10g s from %s): save answers of queries with one start and step",
	                         (double)g->step / 1000.0, t, other, (double)g0->step / 1000.0, t0);
}

/* Read the saved answers, each on the grid of the first that has one. */
static int
read_saved(const char *const *json, size_t n_json, const wc_fleet_options *o, wc_prom_set *set, wc_error *err)
{
	saved_grid g0 = { 0, 0 }, g;
	const char *first = NULL;
	int rc = WC_OK;
	for (size_t i = 0; rc == WC_OK && i < n_json; i++) {
		size_t n_before = set->n, *before = wc_alloc_array(n_before ? n_before : 1, sizeof *before);
		if (!before)
			return wc_error_set(err, WC_ENOMEM, "out of memory");
		for (size_t j = 0; j < n_before; j++)
			before[j] = set->s[j].n;
		rc = wc_prom_json_read(json[i], set, o->warn, o->warn_payload, err);
		if (rc != WC_OK)
			wc__fleet_name_overlap(json, n_json, i, 1, NULL, err);
		if (rc == WC_OK)
			wc__fleet_say_unread(json[i], set, before, n_before, o);
		if (rc == WC_OK)
			rc = grid_of_file(set, before, n_before, &g, err);
		free(before);
		if (rc != WC_OK || !g.step)
			continue;
		if (first)
			rc = same_grid(json[i], &g, first, &g0, err);
		else {
			g0 = g;
			first = json[i];
		}
	}
	return rc;
}

int
wc_fleet_ingest_files(const char *const *json, size_t n_json, const char *const *scrapes,
                      size_t n_scrapes, const char *selector, const wc_fleet_options *o,
                      wc_runs_table **out, wc_error *err)
{
	const char *keep[(WC_FLEET_MAX_ALIASES + 1) * WC_FLEET_N_METRICS + 1];
	size_t n_keep = 0;
	wc_prom_set set = { 0 }, others = { 0 }; /* engines --selector leaves out (fleet_shared.c) */
	wc_fleet_options oo = *o;
	wc_fleet *f = NULL;
	int rc = WC_OK;
	*out = NULL;
	for (int m = 0; m < WC_FLEET_N_METRICS; m++) {
		keep[n_keep++] = wc_fleet_metric_name(m);
		for (int k = 0; wc_fleet_metric_alias(m, k); k++)
			keep[n_keep++] = wc_fleet_metric_alias(m, k);
	}
	keep[n_keep] = NULL;
	rc = read_saved(json, n_json, o, &set, err);
	for (size_t i = 0; rc == WC_OK && i < n_scrapes; i++)
		if ((rc = wc_prom_text_read(scrapes[i], keep, &set, o->warn, o->warn_payload, err)) != WC_OK)
			wc__fleet_name_overlap(scrapes, n_scrapes, i, 0, keep, err);
	/* The selector a server's queries carry, so that a file's grid and
	 * groups are those of the same series (a node's free GPUs left out). */
	if (rc == WC_OK)
		rc = wc__fleet_shared_others(selector, &set, &others, err);
	if (rc == WC_OK)
		rc = wc__fleet_selector_apply(selector, &set, err);
	if (rc == WC_OK)
		rc = infer_grid(&set, &oo, err);
	if (rc == WC_OK)
		rc = within_range(&set, &oo, err);
	if (rc == WC_OK)
		rc = wc__fleet_join_processes(&set, err);
	if (rc == WC_OK)
		rc = wc_fleet_new(&oo, &f, err);
	if (rc == WC_OK) {
		f->saved = 1;
		wc__fleet_selector_engines(f, selector);
	}
	if (rc == WC_OK)
		rc = wc__fleet_join_relabelled(f, &set, err);
	if (rc == WC_OK)
		rc = wc_fleet_feed(f, &set, 0, f->n_steps, err);
	if (rc == WC_OK)
		rc = wc__fleet_shared_page(f, NULL, &set, 0, 0, &others, err);
	if (rc == WC_OK && f->n_walked < f->n_steps)
		say(o, "%zu of %zu steps walked: the others hold no sample, as the step before them", f->n_walked,
		    f->n_steps);
	if (rc == WC_OK)
		rc = wc_fleet_finish(f, out, err);
	wc_fleet_free(f);
	wc_prom_set_clear(&set);
	wc_prom_set_clear(&others);
	return rc;
}
