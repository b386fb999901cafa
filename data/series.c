/*
 * n(t) series files (SPEC §7): CSV `t_s,running`, one sample per row,
 * each held until the next sample (the last one for the median step).
 * Returned as distinct load levels and the seconds spent at each, which
 * is all the law's time average needs.
 */
#include "data/data.h"
#include "data/data_internal.h"

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SERIES_MAX_BYTES (256u << 20)

static int
parse_cell(const char *path, int line, const wc__csv_field *f, double *out, wc_error *err)
{
	if (wc__strict_double(f->text, out) != 0)
		return wc_error_set(err, WC_EPARSE, "%s:%d:%d: expected a number, got '%s'", path, line,
		                    f->column, f->text);
	return WC_OK;
}

int
wc_series_read(const char *path, double **running, double **weight, size_t *len, wc_error *err)
{
	char *buf = NULL;
	size_t blen, n = 0, cap = 0;
	double *t = NULL, *v = NULL, *dt = NULL;
	int lineno = 0, header = 0, rc, nf;
	wc__csv_lines it;
	wc__csv_field f[3];
	const char *reason = NULL;
	*running = *weight = NULL;
	*len = 0;
	if ((rc = wc_read_file(path, SERIES_MAX_BYTES, &buf, &blen, err)) != WC_OK)
		return rc;
	wc__csv_lines_init(&it, buf, blen);
	while ((nf = wc__csv_lines_next(&it, f, 3, &reason)) != 0) {
		lineno = it.line;
		if (nf == WC_ENOMEM) {
			rc = wc_error_set(err, WC_ENOMEM, "%s: out of memory", path);
			goto done;
		}
		if (nf != 2) {
			rc = wc_error_set(err, WC_EPARSE, "%s:%d:1: %s (t_s,running)", path, lineno,
			                  nf == WC__CSV_BAD ? reason : "expected two fields");
			goto done;
		}
		if (!header) {
			if (strcmp(f[0].text, "t_s") != 0 || strcmp(f[1].text, "running") != 0) {
				rc = wc_error_set(err, WC_EPARSE, "%s:%d:1: header must be 't_s,running'", path, lineno);
				goto done;
			}
			header = 1;
			continue;
		}
		if (n == cap) {
			cap = cap ? 2 * cap : 1024;
			double *nt = realloc(t, cap * sizeof *nt), *nv = nt ? realloc(v, cap * sizeof *nv) : NULL;
			if (nt)
				t = nt;
			if (nv)
				v = nv;
			if (!nt || !nv) {
				rc = wc_error_set(err, WC_ENOMEM, "%s: out of memory", path);
				goto done;
			}
		}
		if ((rc = parse_cell(path, lineno, &f[0], &t[n], err)) != WC_OK ||
		    (rc = parse_cell(path, lineno, &f[1], &v[n], err)) != WC_OK)
			goto done;
		if (v[n] < 0) {
			rc = wc_error_set(err, WC_EPARSE, "%s:%d:%d: running must be >= 0", path, lineno, f[1].column);
			goto done;
		}
		if (n > 0 && t[n] <= t[n - 1]) {
			rc = wc_error_set(err, WC_EPARSE, "%s:%d:%d: t_s must increase", path, lineno, f[0].column);
			goto done;
		}
		n++;
	}
	if (n < 2) {
		rc = wc_error_set(err, WC_EPARSE, "%s: needs at least two samples", path);
		goto done;
	}
	if (!(dt = malloc(n * sizeof *dt))) {
		rc = wc_error_set(err, WC_ENOMEM, "%s: out of memory", path);
		goto done;
	}
	for (size_t i = 0; i + 1 < n; i++)
		dt[i] = t[i + 1] - t[i];
	{
		/* The last sample holds for the typical step. */
		double *tmp = malloc((n - 1) * sizeof *tmp);
		if (!tmp) {
			rc = wc_error_set(err, WC_ENOMEM, "%s: out of memory", path);
			goto done;
		}
		memcpy(tmp, dt, (n - 1) * sizeof *tmp);
		gsl_sort(tmp, 1, n - 1);
		dt[n - 1] = gsl_stats_median_from_sorted_data(tmp, 1, n - 1);
		free(tmp);
	}
	/* Collapse to distinct levels: sort the values with their durations. */
	{
		size_t *order = malloc(n * sizeof *order);
		double *lv = malloc(n * sizeof *lv), *lw = malloc(n * sizeof *lw);
		if (!order || !lv || !lw) {
			free(order);
			free(lv);
			free(lw);
			rc = wc_error_set(err, WC_ENOMEM, "%s: out of memory", path);
			goto done;
		}
		gsl_sort_index(order, v, 1, n);
		size_t k = 0;
		for (size_t i = 0; i < n; i++) {
			double val = v[order[i]], w = dt[order[i]];
			if (k > 0 && lv[k - 1] == val) {
				lw[k - 1] += w;
			} else {
				lv[k] = val;
				lw[k++] = w;
			}
		}
		free(order);
		*running = lv;
		*weight = lw;
		*len = k;
	}
	rc = WC_OK;
done:
	wc__csv_lines_free(&it);
	free(buf);
	free(t);
	free(v);
	free(dt);
	return rc;
}
