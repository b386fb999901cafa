/*
 * n(t) series files (docs/formats/runs-table.md): CSV `t_s,running`, one
 * sample per row, at least two, each held until the next sample (the
 * last one for the median step, wc_series_holds: the one rule the law's
 * average and the envelope's n(t) share). Read as distinct load levels and
 * the seconds spent at each, which is all the law's time average needs.
 */
#include "data/data.h"
#include "data/runs_table.h"
#include "models/limits.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/fileio.h"
#include "data_internal.h"
#include "models/grow.h"
#include "models/stats.h"


static int
parse_cell(const char *path, int line, const wc__csv_field *f, double *out, wc_error *err)
{
	if (wc_parse_decimal(f->text, out) != 0)
		return wc_error_set_path(err, WC_EPARSE, path, ":%d:%d: expected a number, got '%s'", line,
		                         f->column, f->text);
	return WC_OK;
}

/* Parse the samples, each value at most `max_running`; `*t`, `*v` and
 * (when `lines`) `*lines`, each sample's line, grow together and are
 * owned by the caller, also on failure. `*last` is the line of the last
 * sample, else of the header, else 0. */
static int
parse_samples(const char *path, const char *buf, size_t blen, double max_running, double **t, double **v,
              size_t **lines, size_t *n, int *last, wc_error *err)
{
	size_t cap_t = 0, cap_v = 0, cap_l = 0;
	int header = 0, rc = WC_OK, nf;
	wc__csv_lines it;
	wc__csv_field f[3];
	const char *reason = NULL;
	wc__csv_lines_init(&it, buf, blen);
	while ((nf = wc__csv_lines_next(&it, f, 3, &reason)) != 0) {
		int line = it.line;
		if (nf == WC_ENOMEM) {
			rc = wc_error_set_path(err, WC_ENOMEM, path, ": out of memory");
			break;
		}
		if (nf != 2) {
			rc = wc_error_set_path(err, WC_EPARSE, path, ":%d:1: %s (t_s,running)", line,
			                       nf == WC__CSV_BAD ? reason : "expected two fields");
			break;
		}
		if (!header) {
			if (strcmp(f[0].text, "t_s") != 0 || strcmp(f[1].text, "running") != 0) {
				rc = wc_error_set_path(err, WC_EPARSE, path, ":%d:1: header must be 't_s,running'", line);
				break;
			}
			header = 1;
			*last = line;
			continue;
		}
		double *nt = wc_grow(*t, &cap_t, *n + 1, sizeof **t, 1024);
		if (nt)
			*t = nt;
		double *nv = nt ? wc_grow(*v, &cap_v, *n + 1, sizeof **v, 1024) : NULL;
		if (nv)
			*v = nv;
		size_t *nl = nv && lines ? wc_grow(*lines, &cap_l, *n + 1, sizeof **lines, 1024) : NULL;
		if (nl)
			*lines = nl;
		if (!nt || !nv || (lines && !nl)) {
			rc = wc_error_set_path(err, WC_ENOMEM, path, ": out of memory");
			break;
		}
		if (lines)
			(*lines)[*n] = (size_t)line;
		if ((rc = parse_cell(path, line, &f[0], &(*t)[*n], err)) != WC_OK ||
		    (rc = parse_cell(path, line, &f[1], &(*v)[*n], err)) != WC_OK)
			break;
		if (!((*v)[*n] >= 0) || (*v)[*n] > max_running) { /* the cell as written */
			rc = wc_error_set_path(err, WC_EPARSE, path, ":%d:%d: running must be a number 0 to %g, got %.40s",
			                       line, f[1].column, max_running, f[1].text);
			break;
		}
		if (*n > 0 && (*t)[*n] <= (*t)[*n - 1]) {
			rc = wc_error_set_path(err, WC_EPARSE, path, ":%d:%d: t_s must increase", line, f[0].column);
			break;
		}
		(*n)++;
		*last = line;
	}
	wc__csv_lines_free(&it);
	return rc;
}

int
wc_series_last_hold(const double *t_s, size_t n, double *hold_s)
{
	double *steps = n >= 2 ? wc_alloc_array(n - 1, sizeof *steps) : NULL;
	if (!steps)
		return n >= 2 ? WC_ENOMEM : WC_EINVAL;
	for (size_t i = 0; i + 1 < n; i++)
		steps[i] = t_s[i + 1] - t_s[i];
	*hold_s = wc_stats_median(steps, n - 1);
	free(steps);
	return WC_OK;
}

int
wc_series_holds(const double *t_s, size_t n, double *hold_s)
{
	int rc = n >= 2 ? wc_series_last_hold(t_s, n, &hold_s[n - 1]) : WC_EINVAL;
	if (rc != WC_OK)
		return rc;
	for (size_t i = 0; i + 1 < n; i++)
		hold_s[i] = t_s[i + 1] - t_s[i];
	return WC_OK;
}

int
wc_series_read(const char *path, wc_load_histogram *out, wc_error *err)
{
	double *t = NULL, *v = NULL, *dt = NULL;
	size_t n = 0;
	int rc;
	memset(out, 0, sizeof *out);
	/* a sample is a running count, bounded as a run's `running` and a
	 * concurrency are (models/limits.h; docs/formats/runs-table.md) */
	if ((rc = wc_series_read_samples(path, WC_RUN_MAX_RUNNING, &t, &v, NULL, &n, err)) != WC_OK)
		return rc;
	if (!(dt = wc_alloc_array(n, sizeof *dt)) || wc_series_holds(t, n, dt) != WC_OK) {
		rc = wc_error_set_path(err, WC_ENOMEM, path, ": out of memory");
		goto done;
	}
	if ((rc = wc_load_histogram_build(v, dt, 0.0, n, out, NULL)) != WC_OK)
		rc = wc_error_set_path(err, rc, path, ": out of memory");
done:
	free(t);
	free(v);
	free(dt);
	return rc;
}

int
wc_series_read_samples(const char *path, double max_running, double **t_s, double **running, size_t **lines,
                       size_t *n, wc_error *err)
{
	char *buf = NULL;
	size_t blen;
	int rc, last = 0;
	*t_s = *running = NULL;
	if (lines)
		*lines = NULL;
	*n = 0;
	if ((rc = wc_read_file(path, WC_SERIES_MAX_BYTES, &buf, &blen, err)) != WC_OK)
		return rc;
	rc = parse_samples(path, buf, blen, max_running, t_s, running, lines, n, &last, err);
	/* a sample holds until the next: one alone has no step to hold for
	 * (docs/formats/runs-table.md); refused at the lone sample's line, or
	 * at the line after the header where the first sample belongs */
	if (rc == WC_OK && *n == 1)
		rc = wc_error_set_path(err, WC_EPARSE, path, ":%d:1: needs at least two samples; a lone sample has no "
		                       "step to hold for", last);
	else if (rc == WC_OK && *n == 0)
		rc = wc_error_set_path(err, WC_EPARSE, path, ":%d:1: needs at least two samples, got none", last + 1);
	if (rc != WC_OK) {
		free(*t_s);
		free(*running);
		*t_s = *running = NULL;
		if (lines) {
			free(*lines);
			*lines = NULL;
		}
		*n = 0;
	}
	free(buf);
	return rc;
}

int
wc_series_write(const struct wc_write_batch *batch, const char *path, const double *t_s, const double *running,
                size_t n, wc_error *err)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return wc_error_set_path(err, WC_ENOMEM, path, ": out of memory");
	fputs("t_s,running\n", f);
	for (size_t k = 0; k < n; k++)
		fprintf(f, "%.3f,%.10g\n", t_s[k], running[k]);
	return wc__memstream_write_batch(batch, path, f, &buf, &len, err);
}
