/*
 * A step shorter than the scrape interval (docs/fleet.md, "Queries"):
 * steps without a sample of a series are gaps, so with 1 s scrapes and
 * --step 0.5 every other step was one; a server answered with no window
 * at all ("no window with both GPU power ... in the range", nothing said
 * of the step) and files gave a table of excluded one-step rows. Each
 * group's interval is measured on the first page with two samples of its
 * series, and a step shorter than it refused, naming the group, the
 * interval and a step.
 */
#include "fleet_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/grow.h"
#include "models/stats.h"

/* The scrape interval of series s: the mean spacing of its samples
 * without its gaps. A spacing of 2.5 x the median or more is an outage
 * of two or more missed scrapes (at "over 3 x" a 90 s outage among 30 s
 * scrapes stayed in and the advice became "--step 31"). One of 2 /
 * FLEET_INTERVAL_SLACK (1.82) x or more is one missed scrape (two
 * intervals, less the jitter the check allows), left out too while such
 * spacings are few: at most one, or a tenth of the spacings (the slack;
 * docs/fleet.md, "Queries"). Kept, a 30 s engine outage among 2 s
 * scrapes, one 15 s step without a value on a server's grid, made a
 * 2-minute range 17.5 s, refused --step 15, and each step suggested was
 * refused again (the outage spans more of a longer step). More of them
 * are the interval's own: an interval of 1.1 to 1.5 steps leaves more
 * than a tenth of a grid's values two steps apart, over any range, and
 * its mean is the interval. The median is the one rule
 * (docs/statistics.md): with an even count, the mean of the two middle
 * spacings, not the upper one, which kept a 60 s outage among 10 s and
 * 30 s spacings. 0: fewer than 2 samples.
 *
 * Scrapes (not a query_range answer) are taken when they are taken: a
 * spacing within the slack of 2, 3, ... x the median is scrapes missed,
 * at any rate. Every 8th of 15 s scrapes missed was one in 7 spacings,
 * over the tenth: 17.17 s measured, --step 15 refused and the default
 * 17 s split a steady load into 8 rows. On a grid the same spacings are
 * also those of a 17.14 s interval, so a grid keeps the tenth. */
static int
missed_scrapes(const wc_prom_series *s, double spacing, double median)
{
	double k = round(spacing / median);
	return !s->query_range && k >= 2.0 && fabs(spacing - k * median) <= (FLEET_INTERVAL_SLACK - 1.0) * median;
}

/* A grid that outran the scrapes: a step shorter than the scrape
 * interval leaves one step without a value every 1 / (1 - step /
 * interval) steps, as regularly as the scrapes (2 s scrapes under --step
 * 1.85: every 12 or 13 steps, under the tenth of spacings a missed scrape
 * may take), and each was a gap that claimed an outage ("exporter
 * down?") where Prometheus held every scrape. Missed scrapes fall
 * anywhere: holes of one step, at least four, whose distances differ by
 * one step at most are the interval's own, and the interval counts them
 * (docs/fleet.md, "Queries"). */
static int
grid_outran(const wc_prom_series *s, double median)
{
	if (!s->query_range || !(median > 0.0))
		return 0;
	long last = -1, lo = 0, hi = 0;
	size_t holes = 0;
	for (size_t j = 0; j + 1 < s->n; j++) {
		double sp = s->t[j + 1] - s->t[j];
		if (fabs(sp - 2.0 * median) > 1e-6 + 1e-3 * median)
			continue;
		long at = lround((s->t[j] - s->t[0]) / median);
		if (last >= 0) {
			long d = at - last;
			lo = holes == 1 || d < lo ? d : lo;
			hi = holes == 1 || d > hi ? d : hi;
		}
		last = at;
		holes++;
	}
	return holes >= 4 && hi - lo <= 1;
}

/* The interval as above. When the grid outran the scrapes (its holes
 * counted in), *res is the measure's resolution, one grid step over the
 * spacings counted (the span's ends fall anywhere in a step), and the
 * step must be the interval or longer within it: a grid shows its
 * scrapes' spacing with no jitter to allow. *res is 0 otherwise. */
static double
interval_of(const wc_prom_series *s, double *tmp, double *res)
{
	*res = 0.0;
	if (s->n < 2)
		return 0.0;
	size_t n = s->n - 1, kept = 0, missed = 0;
	for (size_t j = 0; j < n; j++)
		tmp[j] = s->t[j + 1] - s->t[j];
	double median = wc_stats_median(tmp, n), sum = 0.0, one = 2.0 / FLEET_INTERVAL_SLACK * median;
	for (size_t j = 0; j < n; j++)
		missed += tmp[j] >= one && tmp[j] < 2.5 * median && !missed_scrapes(s, tmp[j], median);
	double cut = (double)missed <= fmax(1.0, (FLEET_INTERVAL_SLACK - 1.0) * (double)n) ? one : 2.5 * median;
	int outran = grid_outran(s, median);
	if (outran)
		cut = 2.5 * median;
	for (size_t j = 0; j < n; j++)
		if (tmp[j] < cut && !missed_scrapes(s, tmp[j], median)) {
			sum += tmp[j];
			kept++;
		}
	if (outran)
		*res = median / (double)kept;
	return sum / (double)kept;
}

/* The step to suggest: the interval in whole seconds (rounded down by at
 * most 2 %, jitter), below 1 s in whole milliseconds. */
static double
suggested(double interval)
{
	return interval >= 0.98 ? ceil(interval * 0.98) : fmax(WC_FLEET_MIN_STEP, round(interval * 1000.0) / 1000.0);
}

/* The step of a query_range answer's grid, in ms: the greatest common
 * divisor of its spacings, as its times are start + k * step and a
 * missed scrape only drops one. The mean spacing was not: one scrape
 * missed among 40 at 15 s made it 15.4 s, rounded to a 16 s step off
 * the grid (docs/fleet.md, "Queries"). 0 when the series holds no grid:
 * a query's raw samples (their times jitter by milliseconds), or a grid
 * under half the median spacing (most steps without a value, whose
 * spacings name no step). */
long long
wc__fleet_grid_ms(const wc_prom_series *s, double *tmp)
{
	size_t n = s->n - 1;
	long long g = 0;
	for (size_t j = 0; j < n; j++) {
		tmp[j] = s->t[j + 1] - s->t[j];
		long long a = llround(tmp[j] * 1000.0), b = g;
		while (b) {
			long long r = a % b;
			a = b;
			b = r;
		}
		g = a;
	}
	return g >= 1 && (double)g >= 500.0 * wc_stats_median(tmp, n) ? g : 0;
}

double
wc__fleet_series_step(const wc_prom_series *s, double *tmp)
{
	double res;
	double v = interval_of(s, tmp, &res);
	if (!(v > 0.0))
		return 0.0;
	long long g = s->query_range ? wc__fleet_grid_ms(s, tmp) : 0;
	if (!g)
		return suggested(v);
	/* The least multiple of the grid's step that the check accepts:
	 * with a 10 s step over 15 s scrapes, 20 s. */
	double k = res > 0.0 ? ceil((v - res) / ((double)g / 1000.0) - 1e-9)
	                     : ceil(v / ((double)g / 1000.0 * FLEET_INTERVAL_SLACK) - 1e-9);
	return (k > 1.0 ? k : 1.0) * (double)g / 1000.0;
}

/* The refusal, naming the group, the interval and a series of it (s: the
 * series when the page holds it; advice: the step to advise, 0 to take
 * the interval's as below). A server answers at any step, so the
 * interval is advised; saved answers have only their grid's values, and
 * the step advised is the least multiple of the grid the check accepts,
 * their default: 2 s on a 1.85 s grid left one step in 12 or 13 without
 * a value, 22 gaps where 3.7 s has none (docs/fleet.md, "Queries"). */
static int
refuse(const wc_fleet *f, const char *group, double worst, double advice, const wc_prom_series *s,
       const char *series, wc_error *err)
{
	char head[300], name[WC_ERROR_MSG_MAX];
	advice = advice > 0.0 ? advice : suggested(worst);
	double *tmp = f->saved && s && s->query_range ? malloc(s->n * sizeof *tmp) : NULL;
	if (tmp) {
		double v = wc__fleet_series_step(s, tmp);
		advice = v > 0.0 ? v : advice;
		free(tmp);
	}
	int n = snprintf(head, sizeof head, "--step %g s is shorter than the scrape interval: --step %g or "
	                 "longer (group '%.40s': a step without a sample is a gap; %.4g s measured between "
	                 "the samples of ", f->o.step, advice, group, worst);
	/* The series last, shortened to what 255 bytes leave. */
	wc_error_name_cut(series, wc_error_name_room((size_t)n + 1, 1), name, sizeof name);
	return wc_error_set(err, WC_EINVAL, "%s%s)", head, name);
}

/* One page's measure of a group, per power [0] and running [1]: the
 * sparsest series' interval and which, the page's first and last sample
 * times and a series holding one. */
typedef struct {
	double iv[2], need[2], res[2], lo[2], hi[2];
	long which[2], any[2];
} page_measure;

/* A page that holds one sample of a series measures nothing on its own:
 * with step x page steps under two scrape intervals no page ever held two,
 * the check never ran and the user was sent to --group-by or told "no
 * window" (docs/fleet.md, "Queries"). The spacing from the page before's
 * last sample stands in, and the shortest such spacing is kept for the
 * end (an outage only lengthens one; at a 1 ms step a sample shows at two
 * steps, a spacing of 1 ms within the page). A page not fetched (no power
 * in it) hid the engine's samples: its running spacing starts afresh. */
static void
across_pages(fleet_group *g, page_measure *pm, const wc_prom_set *set)
{
	for (int k = 0; k < 2; k++) {
		double cross = pm->any[k] >= 0 && g->prev_last[k] > 0.0 && pm->lo[k] > g->prev_last[k]
		               ? pm->lo[k] - g->prev_last[k] : 0.0;
		/* ... with what it asks of the step, as a spacing between scrapes
		 * (jitter allowed): without it the group was marked measured and
		 * never refused, and --step 0.5 --page-steps 4 over 2 s scrapes
		 * gave 31 excluded rows of h1 and none of h2 or h3. */
		if (pm->which[k] < 0 && cross > 0.0) {
			pm->iv[k] = cross;
			pm->need[k] = cross / FLEET_INTERVAL_SLACK;
			pm->res[k] = 0.0;
			pm->which[k] = pm->any[k];
		}
		if (cross > 0.0 && (g->iv_seen[k] == 0.0 || cross < g->iv_seen[k])) {
			g->iv_seen[k] = cross;
			snprintf(g->iv_series[k], sizeof g->iv_series[k], "%s", set->s[pm->any[k]].key);
		}
		if (pm->any[k] >= 0)
			g->prev_last[k] = pm->hi[k];
		else if (set->n == 0 && k == 1)
			g->prev_last[k] = 0.0;
	}
}

double *
wc__fleet_series_scratch(const wc_prom_set *set)
{
	size_t most = 1;
	for (size_t i = 0; i < set->n; i++)
		most = set->s[i].n > most ? set->s[i].n : most;
	return wc_alloc_array(most, sizeof(double));
}

int
wc__fleet_check_interval(wc_fleet *f, const wc_prom_set *set, wc_error *err)
{
	double *tmp = wc__fleet_series_scratch(set);
	page_measure *pm = wc_alloc_array(f->n_groups ? f->n_groups : 1, sizeof *pm);
	if (!tmp || !pm) {
		free(tmp);
		free(pm);
		return wc_error_set(err, WC_ENOMEM, "out of memory");
	}
	for (size_t g = 0; g < f->n_groups; g++)
		for (int k = 0; k < 2; k++) {
			pm[g].iv[k] = pm[g].need[k] = pm[g].hi[k] = 0.0;
			pm[g].res[k] = 0.0;
			pm[g].lo[k] = INFINITY;
			pm[g].which[k] = pm[g].any[k] = -1;
		}
	/* Per group, the sparsest power and running series: a step shorter
	 * than either leaves that group's steps gaps. Measured over the whole
	 * fleet, an exporter scraped every 15 s beside hosts scraped every
	 * second went unseen and its host vanished from the rows, unsaid. */
	for (size_t i = 0; i < set->n; i++) {
		int m = f->metric[i], k = m == WC_FLEET_POWER ? 0 : m == WC_FLEET_RUNNING ? 1 : -1;
		long g = f->group[i];
		const wc_prom_series *s = &set->s[i];
		if (k < 0 || g < 0 || f->g[g].interval_checked || s->n == 0)
			continue;
		pm[g].lo[k] = fmin(pm[g].lo[k], s->t[0]);
		pm[g].hi[k] = fmax(pm[g].hi[k], s->t[s->n - 1]);
		pm[g].any[k] = (long)i;
		double res;
		double v = interval_of(s, tmp, &res), need = res > 0.0 ? v - res : v / FLEET_INTERVAL_SLACK;
		if (need > pm[g].need[k]) {
			pm[g].iv[k] = v;
			pm[g].need[k] = need;
			pm[g].res[k] = res;
			pm[g].which[k] = (long)i;
		}
	}
	free(tmp);
	/* The sparsest group measured on this page names the step that suits
	 * them all; a group not measured yet (one sample) waits for a page. */
	double worst = 0.0, need = 0.0, res = 0.0;
	long wg = -1;
	int wk = 0;
	for (size_t g = 0; g < f->n_groups; g++) {
		if (f->g[g].interval_checked)
			continue;
		across_pages(&f->g[g], &pm[g], set);
		if (pm[g].which[0] < 0 || pm[g].which[1] < 0)
			continue;
		f->g[g].interval_checked = 1;
		int k = pm[g].need[1] > pm[g].need[0];
		if (pm[g].need[k] > need) {
			need = pm[g].need[k];
			worst = pm[g].iv[k];
			res = pm[g].res[k];
			wg = (long)g;
			wk = k;
		}
	}
	long series = wg >= 0 ? pm[wg].which[wk] : -1;
	free(pm);
	if (wg < 0 || (res > 0.0 ? worst - res <= f->o.step : worst <= f->o.step * FLEET_INTERVAL_SLACK))
		return WC_OK;
	return refuse(f, f->g[wg].name, worst, 0.0, &set->s[series], set->s[series].key, err);
}

/* A group of GPUs never measured on a page (an engine whose samples
 * never share a page with the power's) is checked on the shortest
 * spacing across pages, before "GPU with no engine series" or "no window"
 * can send the user elsewhere. */
int
wc__fleet_check_interval_end(wc_fleet *f, wc_error *err)
{
	double worst = 0.0;
	long wg = -1;
	int wk = 0;
	for (size_t g = 0; g < f->n_groups; g++)
		for (int k = 0; k < 2 && f->g[g].ever_gpu && !f->g[g].interval_checked; k++)
			if (f->g[g].iv_seen[k] > worst) {
				worst = f->g[g].iv_seen[k];
				wg = (long)g;
				wk = k;
			}
	if (wg < 0 || worst <= f->o.step * FLEET_INTERVAL_SLACK)
		return WC_OK;
	return refuse(f, f->g[wg].name, worst, 0.0, NULL, f->g[wg].iv_series[wk], err);
}

/* The next scrape time of s from s->v[*j] on (each step's latest
 * sample's own time): a finite value later than *prev, the one before
 * (NaN: none yet), into *prev, *j past it, and *d its spacing from the
 * one before (NaN for the first); 0 at the end. The one walk over the
 * distinct times, a step repeating its scrape's time. */
static int
next_scrape(const wc_prom_series *s, size_t *j, double *prev, double *d)
{
	for (; *j < s->n; (*j)++) {
		double v = s->v[*j];
		if (isfinite(v) && !(isfinite(*prev) && v <= *prev)) {
			*d = isfinite(*prev) ? v - *prev : NAN;
			*prev = v;
			(*j)++;
			return 1;
		}
	}
	return 0;
}

/* The scrape interval of a series of scrape times (v: each step's latest
 * sample's own time) and *res, its measure's resolution. Scrapes come
 * every interval I, to tens of milliseconds' jitter, so the spacings
 * between distinct times are I, 2I (a missed scrape, or a step longer
 * than I), ...: the shortest cluster (within 10 % of the shortest) gives
 * a first I, each spacing counts round(spacing / I) scrapes, and the
 * interval is the spacings' sum over the scrapes they count, the span
 * seen over the scrapes in it. Not the shortest cluster's mean: a grid
 * at a step near I sees the scrape after a short spacing less often than
 * one after a long one, and live 2 s scrapes (spacings 1.957 to 2.027 s,
 * 2 s on average) measured 2.001 s. The span's ends are each late by up
 * to the jitter, so *res is the spread of the scrapes' lateness over the
 * scrapes counted. 0 when fewer than 2 spacings. */
static double
scrape_interval(const wc_prom_series *s, double *res)
{
	double least = INFINITY, first = 0.0, sum = 0.0, count = 0.0, prev, d;
	size_t n = 0, j;
	*res = 0.0;
	for (int pass = 0; pass < 2; pass++)
		for (j = 0, prev = NAN; next_scrape(s, &j, &prev, &d);) {
			if (isnan(d))
				continue;
			if (pass == 0 && d < least)
				least = d;
			else if (pass == 1 && d <= least * 1.1) {
				first += d;
				n++;
			}
		}
	if (n < 2)
		return 0.0;
	first /= (double)n;
	/* Each distinct time's lateness against the first time's grid at
	 * the first I, for the spread. */
	double lo = INFINITY, hi = -INFINITY, t0 = NAN;
	for (j = 0, prev = NAN; next_scrape(s, &j, &prev, &d);) {
		if (!isnan(d)) {
			sum += d;
			count += fmax(1.0, round(d / first));
		} else
			t0 = prev;
	}
	double iv = sum / count;
	for (j = 0, prev = NAN; next_scrape(s, &j, &prev, &d);) {
		double late = prev - t0 - round((prev - t0) / iv) * iv;
		lo = fmin(lo, late);
		hi = fmax(hi, late);
	}
	*res = (hi - lo) / count;
	return iv;
}

/* The least step to advise that is taken (at least need): whole seconds,
 * tenths, hundredths or milliseconds, the coarsest within 5 % of need. */
static double
advised(double need)
{
	static const double unit[3] = { 1.0, 0.1, 0.01 };
	for (int k = 0; k < 3; k++) {
		double c = ceil(need / unit[k] - 1e-9) * unit[k];
		if (c <= need * 1.05)
			return c;
	}
	return ceil(need * 1000.0 - 1e-6) / 1000.0;
}

/* A step shorter than the scrapes' interval leaves one step without a
 * value every 1 / (1 - step / interval) steps: 2 s scrapes under --step
 * 1.998 left one in 1000, too few for grid_outran's four holes, and each
 * claimed an outage where Prometheus held every scrape. The scrapes' own
 * times show the interval however few the holes; the measure's
 * resolution is allowed, and half a millisecond at least, a step being
 * whole milliseconds (docs/fleet.md, "Queries"). */
static int
check_times(const wc_fleet *f, const wc_prom_set *ts, wc_error *err)
{
	double worst = 0.0, need = 0.0;
	char wname[80] = "";
	size_t which = 0;
	for (size_t i = 0; i < ts->n; i++) {
		const wc_prom_series *s = &ts->s[i];
		int m = wc_fleet_metric_from_name(s->metric), gi;
		char key[512], name[80];
		if (m < 0)
			continue;
		wc__fleet_group_key(f->o.group_by, s, m, key, sizeof key, name, sizeof name);
		if (wc_strmap_get(&f->group_index, key, &gi) && f->g[gi].left_out[0])
			continue;
		double res, v = scrape_interval(s, &res), nv = v - fmax(0.0005, res);
		if (v > 0.0 && nv > need) {
			need = nv;
			worst = v;
			snprintf(wname, sizeof wname, "%s", name);
			which = i;
		}
	}
	if (worst == 0.0 || f->o.step >= need)
		return WC_OK;
	return refuse(f, wname, worst, advised(need), NULL, ts->s[which].key, err);
}

/* q's query of each series' samples' own times: every
 * `label_replace(avg_over_time(NAME{SEL}[Rms]), ...)` (or last_) of
 * wc_fleet_query as `label_replace(timestamp(NAME{SEL}), ...)`, the
 * selector, the aliases and the name kept. */
static void
timestamp_query(const char *q, char *out, size_t size)
{
	static const char *const fn[2] = { "label_replace(avg_over_time(", "label_replace(last_over_time(" };
	size_t o = 0;
	while (*q && o + 1 < size) {
		size_t n = 0;
		for (int k = 0; k < 2 && !n; k++)
			n = strncmp(q, fn[k], strlen(fn[k])) == 0 ? strlen(fn[k]) : 0;
		if (n) {
			o += (size_t)snprintf(out + o, size - o, "label_replace(timestamp(");
			q += n;
			continue;
		}
		size_t d = q[0] == '}' && q[1] == '[' ? strspn(q + 2, "0123456789") : 0;
		if (d && strncmp(q + 2 + d, "ms])", 4) == 0) {
			o += (size_t)snprintf(out + o, size - o, "})");
			q += 2 + d + 4;
			continue;
		}
		out[o++] = *q++;
	}
	out[o < size ? o : size - 1] = '\0';
}

/* The scrapes' own times over the default page's steps from k0, power
 * and running, checked against --step (check_times): a
 * grid's values show a step just under the interval only in rare holes
 * (docs/fleet.md, "Queries"). */
int
wc__fleet_check_scrape_times(wc_fleet *f, const char *url, char (*q)[WC_FLEET_QUERY_MAX], size_t k0, wc_error *err)
{
	size_t k1 = f->n_steps - k0 > WC_FLEET_DEFAULT_PAGE_STEPS ? k0 + WC_FLEET_DEFAULT_PAGE_STEPS : f->n_steps;
	double a = f->o.start + (double)k0 * f->o.step, b = f->o.start + (double)(k1 - 1) * f->o.step;
	static const int m[2] = { WC_FLEET_POWER, WC_FLEET_RUNNING };
	char *tq = malloc(WC_FLEET_QUERY_MAX);
	wc_prom_set set = { 0 };
	int rc = tq ? WC_OK : wc_error_set(err, WC_ENOMEM, "out of memory");
	for (int k = 0; rc == WC_OK && k < 2; k++) {
		timestamp_query(q[m[k]], tq, WC_FLEET_QUERY_MAX);
		rc = wc__fleet_query(f, url, tq, a, b, f->o.step, wc_fleet_metric_name(m[k]), &set, err);
	}
	if (rc == WC_OK)
		rc = check_times(f, &set, err);
	wc_prom_set_clear(&set);
	free(tq);
	return rc;
}
