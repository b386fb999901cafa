/*
 * A whole nvidia-smi power trace in memory (data/nvsmi.h): the samples of
 * wc_nvsmi_read stored per GPU with their sum, grown through the
 * overflow-checked helpers of models/grow.h up to a caller's bound.
 */
#include "nvsmi_internal.h"

#include <math.h>
#include <stdlib.h>

#include "models/grow.h"

typedef struct {
	wc_power_trace *pt;
	size_t cap, max;
	wc_error *err;
	const char *path;
} trace_sink;

static int
trace_push(double t, const double *w, int n_gpus, void *payload)
{
	trace_sink *s = payload;
	wc_power_trace *pt = s->pt;
	if (pt->n == s->cap) {
		if (pt->n >= s->max) {
			wc_error_set_path(s->err, WC_ERANGE, s->path, ": more than %zu samples (use `wattcast metrics`, which streams)", s->max);
			return -1;
		}
		size_t cap = wc_next_capacity(s->cap, pt->n + 1, 4096, s->max);
		double *nt = cap ? wc_resize_array(pt->t, cap, sizeof *nt) : NULL;
		if (nt)
			pt->t = nt;
		double *ng = nt ? wc_resize_array(pt->group, cap, sizeof *ng) : NULL;
		if (ng)
			pt->group = ng;
		int ok = nt && ng;
		for (int g = 0; ok && g < n_gpus; g++) {
			double *np = wc_resize_array(pt->power[g], cap, sizeof *np);
			if (np)
				pt->power[g] = np;
			else
				ok = 0;
		}
		if (!ok) {
			wc_error_set_path(s->err, WC_ENOMEM, s->path, ": out of memory (%zu samples)", cap);
			return -1;
		}
		s->cap = cap;
	}
	double sum = 0.0;
	for (int g = 0; g < n_gpus; g++) {
		pt->power[g][pt->n] = w[g];
		sum += w[g];
	}
	pt->t[pt->n] = t;
	pt->group[pt->n] = sum;
	pt->n++;
	return 0;
}

/* A gap judged by the reader, kept (grown one by one: gaps are few). */
static int
trace_gap(double t0, double t1, void *payload)
{
	trace_sink *s = payload;
	wc_power_trace *pt = s->pt;
	double *ng = wc_resize_array(pt->gaps, 2 * (pt->n_gaps + 1), sizeof *ng);
	if (!ng)
		return -1;
	pt->gaps = ng;
	ng[2 * pt->n_gaps] = t0;
	ng[2 * pt->n_gaps + 1] = t1;
	pt->n_gaps++;
	return 0;
}

int
wc_power_trace_read(const char *path, const wc_telemetry_options *opt, size_t max_samples,
                    wc_power_trace **out, wc_error *err)
{
	wc_power_trace *pt = calloc(1, sizeof *pt);
	*out = NULL;
	if (!pt)
		return wc_error_set_path(err, WC_ENOMEM, path, ": out of memory");
	trace_sink sink = { pt, 0, max_samples ? max_samples : (size_t)1 << 26, err, path };
	int rc = wc__nvsmi_read_gaps(path, opt, trace_push, &sink, trace_gap, &sink, &pt->info, err);
	if (rc != WC_OK) {
		wc_power_trace_free(pt);
		return rc;
	}
	*out = pt;
	return WC_OK;
}

void
wc_power_trace_free(wc_power_trace *pt)
{
	if (!pt)
		return;
	free(pt->t);
	free(pt->group);
	free(pt->gaps);
	for (int g = 0; g < WC_TELEMETRY_MAX_GPUS; g++)
		free(pt->power[g]);
	free(pt);
}
