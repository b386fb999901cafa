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

/* The scrape interval of series s: the mean spacing of its samples,
 * spacings of 2.5 x the median or more (an outage of two or more missed
 * scrapes, a restart) left out: at "over 3 x" a 90 s outage among 30 s
 * scrapes stayed in and the advice became "--step 31". The median is the
 * one rule (docs/statistics.md): with an even count, the mean of the two
 * middle spacings, not the upper one, which kept a 60 s outage among
 * 10 s and 30 s spacings. On a
 * server's grid a 15 s interval under a 10 s step spaces the values 10
 * and 20 s apart, whose mean is the interval. 0: fewer than 2 samples. */
static double
interval_of(const wc_prom_series *s, double *tmp)
{
	if (s->n < 2)
		return 0.0;
	size_t n = s->n - 1, kept = 0;
	for (size_t j = 0; j < n; j++)
		tmp[j] = s->t[j + 1] - s->t[j];
	double median = wc_stats_median(tmp, n), sum = 0.0;
	for (size_t j = 0; j < n; j++)
		if (tmp[j] < 2.5 * median) {
			sum += tmp[j];
			kept++;
		}
	return sum / (double)kept;
}

/* The step to suggest: the interval in whole seconds (rounded down by at
 * most 2 %, jitter), below 1 s in whole milliseconds. */
static double
suggested(double interval)
{
	return interval >= 0.98 ? ceil(interval * 0.98) : fmax(0.001, round(interval * 1000.0) / 1000.0);
}

double
wc__fleet_series_step(const wc_prom_series *s, double *tmp)
{
	double v = interval_of(s, tmp);
	return v > 0.0 ? suggested(v) : 0.0;
}

int
wc__fleet_check_interval(wc_fleet *f, const wc_prom_set *set, wc_error *err)
{
	size_t most = 1;
	for (size_t i = 0; i < set->n; i++)
		most = set->s[i].n > most ? set->s[i].n : most;
	double *tmp = wc_alloc_array(most, sizeof *tmp);
	double (*iv)[2] = wc_alloc_array(f->n_groups ? f->n_groups : 1, sizeof *iv);
	long (*which)[2] = wc_alloc_array(f->n_groups ? f->n_groups : 1, sizeof *which);
	if (!tmp || !iv || !which) {
		free(tmp);
		free(iv);
		free(which);
		return wc_error_set(err, WC_ENOMEM, "out of memory");
	}
	for (size_t g = 0; g < f->n_groups; g++) {
		iv[g][0] = iv[g][1] = 0.0;
		which[g][0] = which[g][1] = -1;
	}
	/* Per group, the sparsest power and running series: a step shorter
	 * than either leaves that group's steps gaps. Measured over the whole
	 * fleet, an exporter scraped every 15 s beside hosts scraped every
	 * second went unseen and its host vanished from the rows, unsaid. */
	for (size_t i = 0; i < set->n; i++) {
		int m = f->metric[i], k = m == WC_FLEET_POWER ? 0 : m == WC_FLEET_RUNNING ? 1 : -1;
		long g = f->group[i];
		if (k < 0 || g < 0 || f->g[g].interval_checked)
			continue;
		double v = interval_of(&set->s[i], tmp);
		if (v > iv[g][k]) {
			iv[g][k] = v;
			which[g][k] = (long)i;
		}
	}
	free(tmp);
	/* The sparsest group measured on this page names the step that suits
	 * them all; a group not measured yet (one sample) waits for a page. */
	double worst = 0.0;
	long wg = -1;
	int wk = 0;
	for (size_t g = 0; g < f->n_groups; g++) {
		if (which[g][0] < 0 || which[g][1] < 0)
			continue;
		f->g[g].interval_checked = 1;
		int k = iv[g][1] > iv[g][0];
		if (iv[g][k] > worst) {
			worst = iv[g][k];
			wg = (long)g;
			wk = k;
		}
	}
	long series = wg >= 0 ? which[wg][wk] : -1;
	free(iv);
	free(which);
	if (wg < 0 || worst <= f->o.step * FLEET_INTERVAL_SLACK)
		return WC_OK;
	char head[300], name[WC_ERROR_MSG_MAX];
	int n = snprintf(head, sizeof head, "--step %g s is shorter than the scrape interval: --step %g or "
	                 "longer (group '%.40s': a step without a sample is a gap; %.4g s measured between "
	                 "the samples of ", f->o.step, suggested(worst), f->g[wg].name, worst);
	/* The series last, shortened to what 255 bytes leave. */
	wc__fleet_shorten(set->s[series].key, wc__fleet_room((size_t)n + 1, 1), name, sizeof name);
	return wc_error_set(err, WC_EINVAL, "%s%s)", head, name);
}
