/*
 * Fit benchmark driver (not a test): fits RUNS.csv (--terms all) and times
 * B bootstrap refits on 1 and T threads. Writes, for the SciPy peer, the
 * point estimate and the resample multiplicities it drew — the same PCG32
 * streams (seed, r) as fit/bootstrap.c — so both fit identical resamples.
 *
 * usage: bench_fit RUNS.csv B THREADS SEED OUT_PREFIX
 */
#include "fit/fit.h"

#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double
now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* A scratch file for the peer; a bench that cannot write it stops. */
static FILE *
open_out(const char *path)
{
	FILE *f = fopen(path, "w");
	if (!f) {
		perror(path);
		exit(1);
	}
	return f;
}

/* Closed, or the bench stops: a peer must not read a short file. */
static void
close_out(FILE *f, const char *path)
{
	if (ferror(f) | fclose(f)) {
		fprintf(stderr, "%s: write failed\n", path);
		exit(1);
	}
}

/* The point estimate, for the peer's starting point. */
static void
write_point(const char *prefix, const wc_fit_result *r)
{
	char path[1024];
	snprintf(path, sizeof path, "%s.point.csv", prefix);
	FILE *f = open_out(path);
	for (int k = 0; k < r->n_free; k++)
		fprintf(f, "%s,%.17g\n", r->names[k], r->x[k]);
	close_out(f, path);
}

/* The multiplicities of each replicate's resample over the n rows in the
 * fit, the fit's own draws (wc_fit_resample_counts); `mult` holds n counts. */
static void
write_resamples(const char *prefix, const wc_bootstrap_options *bo, size_t n, double *mult)
{
	char path[1024];
	snprintf(path, sizeof path, "%s.resamples.csv", prefix);
	FILE *f = open_out(path);
	for (int b = 0; b < bo->replicates; b++) {
		wc_fit_resample_counts(bo->seed, b, n, mult);
		for (size_t k = 0; k < n; k++)
			fprintf(f, "%s%.0f", k ? "," : "", mult[k]);
		fputc('\n', f);
	}
	close_out(f, path);
}

/* Each row's inputs to the law, resolved as the fit resolves them. */
static void
write_rows(const char *prefix, const wc_runs_table *t, const wc_fit_result *r, const size_t *rows,
           size_t n)
{
	char path[1024];
	snprintf(path, sizeof path, "%s.rows.csv", prefix);
	FILE *f = open_out(path);
	fprintf(f, "run_id,level,s_level,G,lN,lf,running,y,term_w,term_kv\n");
	for (size_t k = 0; k < n; k++) {
		const wc_run *q = &t->runs[rows[k]];
		const wc_level *lv = wc_params_level(&r->params, q->platform);
		const wc_precision_term *tw = q->weights != WC_PREC_BF16
			? wc_params_find_term(&r->params, WC_SETTING_WEIGHTS, q->weights, q->platform) : NULL;
		const wc_precision_term *tk = q->kv != WC_PREC_BF16
			? wc_params_find_term(&r->params, WC_SETTING_KV, q->kv, q->platform) : NULL;
		char lw[WC_LABEL_MAX] = "", lk[WC_LABEL_MAX] = "";
		if (tw)
			wc_precision_term_label(tw, lw, sizeof lw);
		if (tk)
			wc_precision_term_label(tk, lk, sizeof lk);
		double p0 = isfinite(q->idle_power_w) ? q->idle_power_w : lv->p0.value;
		fprintf(f, "%s,%s,%s,%d,%.17g,%.17g,%.17g,%.17g,%s,%s\n", q->run_id, lv->name,
		        wc_params_scale_level(&r->params, lv)->name, q->tp, wc_law_log_size(q->active_params_b, q->tp),
		        q->sm_clock_mhz > 0 ? log(q->sm_clock_mhz / r->params.clock_ref_mhz) : 0.0, q->running,
		        log(q->mean_power_w - q->tp * p0), lw, lk);
	}
	close_out(f, path);
}

/* Time the bootstrap on threads[0] and threads[1] threads, refitting the
 * point each time; the intervals of the second run go to the peer. */
static int
time_bootstraps(const char *prefix, const wc_runs_table *t, const wc_fit_options *fo,
                wc_bootstrap_options *bo, const int threads[2], double times[2])
{
	char path[1024];
	wc_error err;
	for (int i = 0; i < 2; i++) {
		wc_fit_result copy;
		wc_fit_inference_law(t, fo, &copy, &err);
		bo->threads = threads[i];
		double t0 = now();
		if (wc_fit_bootstrap(t, fo, bo, &copy, &err) != WC_OK) {
			fprintf(stderr, "%s\n", err.msg);
			return 1;
		}
		times[i] = now() - t0;
		if (i == 1) {
			snprintf(path, sizeof path, "%s.intervals.csv", prefix);
			FILE *f = open_out(path);
			for (int k = 0; k < copy.n_free; k++) {
				const wc_param *p = wc_params_param_named(&copy.params, copy.names[k]);
				fprintf(f, "%s,%.10g,%.10g\n", copy.names[k], p->lo, p->hi);
			}
			close_out(f, path);
		}
		wc_fit_result_clear(&copy);
	}
	return 0;
}

int
main(int argc, char **argv)
{
	if (argc != 6) {
		fprintf(stderr, "usage: bench_fit RUNS.csv B THREADS SEED OUT_PREFIX\n");
		return 2;
	}
	wc_runs_table *t = NULL;
	wc_error err;
	wc_fit_options fo = WC_FIT_OPTIONS_INIT;
	wc_bootstrap_options bo = { atoi(argv[2]), strtoull(argv[4], NULL, 10), 1 };
	wc_fit_result r;
	gsl_set_error_handler_off();
	wc_linalg_pin_single_thread();
	if (wc_runs_read(argv[1], &t, &err) != WC_OK || wc_fit_inference_law(t, &fo, &r, &err) != WC_OK) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	write_point(argv[5], &r);
	/* the rows in the fit (table order) and the resamples over them */
	size_t n = 0;
	size_t *rows = malloc(t->n_runs * sizeof *rows);
	for (size_t i = 0; i < t->n_runs; i++)
		if (isfinite(r.residuals[i]))
			rows[n++] = i;
	double *mult = calloc(n, sizeof *mult);
	write_resamples(argv[5], &bo, n, mult);
	write_rows(argv[5], t, &r, rows, n);

	double times[2];
	int threads[2] = { 1, atoi(argv[3]) };
	if (time_bootstraps(argv[5], t, &fo, &bo, threads, times) != 0)
		return 1;
	printf("wattcast: %zu runs, %d parameters, B = %d: %.3f s on 1 thread, %.3f s on %d threads\n", n,
	       r.n_free, bo.replicates, times[0], times[1], threads[1]);
	printf("WATTCAST_SECONDS_1 %.6f\nWATTCAST_SECONDS_T %.6f\n", times[0], times[1]);
	free(rows);
	free(mult);
	wc_fit_result_clear(&r);
	wc_runs_free(t);
	return 0;
}
