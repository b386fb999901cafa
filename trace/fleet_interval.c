/*
 * A step shorter than the scrape interval (docs/fleet.md, "Queries"):
 * steps without a sample of a series are gaps, so with 1 s scrapes and
 * --step 0.5 every other step was one; a server answered with no window
 * at all ("no window with both GPU power ... in the range", nothing said
 * of the step) and files gave a table of excluded one-step rows. The
 * interval is measured on the first page with two samples of a series
 * and a step shorter than it refused, naming the interval and a step.
 */
#include "fleet_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/grow.h"

/* Tolerance on the measured interval: scrape times jitter and a missed
 * scrape lengthens the mean spacing; a step within 10 % of the interval
 * leaves few gaps, a shorter one leaves one every few steps. */
#define INTERVAL_SLACK 1.1

static int
by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The scrape interval of series s: the mean spacing of its samples,
 * spacings over 3 x the median (an outage, a restart) left out. On a
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
	qsort(tmp, n, sizeof *tmp, by_value);
	double median = tmp[n / 2], sum = 0.0;
	for (size_t j = 0; j < n; j++)
		if (tmp[j] <= 3.0 * median) {
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

int
wc__fleet_check_interval(wc_fleet *f, const wc_prom_set *set, wc_error *err)
{
	size_t most = 1;
	if (f->interval_checked)
		return WC_OK;
	for (size_t i = 0; i < set->n; i++)
		most = set->s[i].n > most ? set->s[i].n : most;
	double *tmp = wc_alloc_array(most, sizeof *tmp);
	if (!tmp)
		return wc_error_set(err, WC_ENOMEM, "out of memory");
	/* Per metric (power, running), its most frequent series; the step must
	 * suit the sparser of the two, or that one leaves gaps. */
	double best[2] = { INFINITY, INFINITY };
	long which[2] = { -1, -1 };
	for (size_t i = 0; i < set->n; i++) {
		int m = f->metric[i], k = m == WC_FLEET_POWER ? 0 : m == WC_FLEET_RUNNING ? 1 : -1;
		double iv = k >= 0 ? interval_of(&set->s[i], tmp) : 0.0;
		if (iv > 0.0 && iv < best[k]) {
			best[k] = iv;
			which[k] = (long)i;
		}
	}
	free(tmp);
	if (which[0] < 0 || which[1] < 0)
		return WC_OK; /* not measured yet: the next page */
	f->interval_checked = 1;
	int k = best[1] > best[0];
	if (best[k] <= f->o.step * INTERVAL_SLACK)
		return WC_OK;
	char head[200], series[WC_ERROR_MSG_MAX];
	int n = snprintf(head, sizeof head, "--step %g s is shorter than the scrape interval: --step %g or "
	                 "longer (a step without a sample is a gap; %.4g s measured between the samples of ",
	                 f->o.step, suggested(best[k]), best[k]);
	/* The series last, shortened to what 255 bytes leave. */
	wc__fleet_shorten(set->s[which[k]].key, wc__fleet_room((size_t)n + 1, 1), series, sizeof series);
	return wc_error_set(err, WC_EINVAL, "%s%s)", head, series);
}
