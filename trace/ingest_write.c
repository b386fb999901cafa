/*
 * Write ingested rows as a runs table (docs/formats/runs-table.md): the
 * n(t) series of each row as `t_s,running` in `<stem>.series/` beside the
 * table (the n_series column holds the path relative to the table), then
 * the table itself with the trace metrics (docs/trace-metrics.md) and
 * ingest facts as extra columns. Both go through data/'s atomic writers;
 * the table is written last, so a failure leaves no table that points at
 * missing series.
 */
#include "trace/ingest.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The metric columns (trace/metrics.h) come first, then these. */
static const char *const ingest_columns[] = {
	"requests", "energy_per_request_j", "iterations", "energy_per_iteration_j", "ttft_s", "itl_s",
	"prefill_energy_j", "decode_energy_j", "idle_energy_j", "phase_source", "idle_source",
	"idle_power_gpus_w", "n_source", "request_rate", "burstiness", "start_epoch", "bad_lines",
	"window", "level",
};
#define N_INGEST (sizeof ingest_columns / sizeof ingest_columns[0])

/* mean_w is the table's own mean_power_w column, not an extra. */
static int
metric_is_extra(size_t i)
{
	return strcmp(wc_trace_metric_column_at(i)->name, "mean_w") != 0;
}

static void
fmt_num(char *buf, size_t cap, double v)
{
	if (isfinite(v))
		snprintf(buf, cap, "%.10g", v);
	else
		buf[0] = '\0';
}

static void
ingest_value(const wc_ingest_row *r, size_t col, char *buf, size_t cap)
{
	const double nums[] = { r->requests, r->energy_per_request_j, r->iterations,
		                r->energy_per_iteration_j, r->ttft_s, r->itl_s, r->prefill_energy_j,
		                r->decode_energy_j, r->idle_energy_j };
	const char *name = ingest_columns[col];
	if (col < sizeof nums / sizeof nums[0]) {
		fmt_num(buf, cap, nums[col]);
	} else if (strcmp(name, "phase_source") == 0) {
		snprintf(buf, cap, "%s", r->phase_source);
	} else if (strcmp(name, "idle_source") == 0) {
		snprintf(buf, cap, "%s", r->idle_source);
	} else if (strcmp(name, "n_source") == 0) {
		snprintf(buf, cap, "%s", r->n_source);
	} else if (strcmp(name, "idle_power_gpus_w") == 0) {
		/* One value per GPU, ';'-separated (a CSV cell). */
		size_t used = 0;
		buf[0] = '\0';
		for (int g = 0; g < r->n_gpus && used + 1 < cap; g++) {
			char one[32];
			fmt_num(one, sizeof one, r->idle_gpu_w[g]);
			used += (size_t)snprintf(buf + used, cap - used, "%s%s", g ? ";" : "", one);
		}
	} else if (strcmp(name, "window") == 0) {
		snprintf(buf, cap, "%s", r->window);
	} else if (strcmp(name, "level") == 0) {
		snprintf(buf, cap, "%s", r->level_label);
	} else if (strcmp(name, "request_rate") == 0) {
		fmt_num(buf, cap, r->request_rate);
	} else if (strcmp(name, "burstiness") == 0) {
		fmt_num(buf, cap, r->burstiness);
	} else if (strcmp(name, "start_epoch") == 0) {
		snprintf(buf, cap, "%.3f", r->start_epoch);
	} else {
		snprintf(buf, cap, "%zu", r->bad_lines);
	}
}

/* A run id as a file name: keep [A-Za-z0-9._-], the rest becomes '_'. */
static void
file_name(const char *run_id, char *out, size_t cap)
{
	size_t k = 0;
	for (const char *p = run_id; *p && k + 5 < cap; p++) {
		char c = *p;
		int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		         c == '.' || c == '-' || c == '_';
		out[k++] = ok ? c : '_';
	}
	memcpy(out + k, ".csv", 5);
}

static int
set_extras(wc_runs_table *t, size_t i, const wc_ingest_row *r, wc_error *err)
{
	char cell[1024];
	int rc;
	for (size_t c = 0; c < wc_trace_metric_column_count(); c++) {
		if (!metric_is_extra(c))
			continue;
		fmt_num(cell, sizeof cell, wc_trace_metric_value(&r->metrics, c));
		if ((rc = wc_runs_set_extra(t, i, wc_trace_metric_column_at(c)->name, cell, err)) != WC_OK)
			return rc;
	}
	for (size_t c = 0; c < N_INGEST; c++) {
		ingest_value(r, c, cell, sizeof cell);
		if ((rc = wc_runs_set_extra(t, i, ingest_columns[c], cell, err)) != WC_OK)
			return rc;
	}
	return WC_OK;
}

int
wc_ingest_write(const char *path, const wc_ingest_result *res, const char *comment, wc_error *err)
{
	char dir[1024], stem[256], series_dir[1400], rel[512], full[2048];
	wc_runs_table *t = NULL;
	int rc = WC_OK;
	if (res->n_rows == 0)
		return wc_error_set(err, WC_EINVAL, "%s: no rows to write", path);
	for (size_t i = 0; i < res->n_rows; i++)
		for (size_t j = 0; j < i; j++)
			if (strcmp(res->rows[i].run.run_id, res->rows[j].run.run_id) == 0)
				return wc_error_set(err, WC_EINVAL, "run_id '%s' appears twice (two runs with the same id)",
				                    res->rows[i].run.run_id);
	/* Folder and stem of the table: "out/runs.csv" -> "out", "runs". */
	const char *slash = strrchr(path, '/');
	if (slash)
		snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
	else
		snprintf(dir, sizeof dir, ".");
	if (slash && slash == path)
		snprintf(dir, sizeof dir, "/");
	snprintf(stem, sizeof stem, "%s", slash ? slash + 1 : path);
	size_t sl = strlen(stem);
	if (sl > 4 && strcmp(stem + sl - 4, ".csv") == 0)
		stem[sl - 4] = '\0';
	snprintf(series_dir, sizeof series_dir, "%s/%s.series", dir, stem);

	if (!(t = wc_runs_new()))
		return wc_error_set(err, WC_ENOMEM, "%s: out of memory", path);
	int made_dir = 0;
	for (size_t i = 0; i < res->n_rows; i++) {
		const wc_ingest_row *r = &res->rows[i];
		wc_run run = r->run;
		memset(&run.series, 0, sizeof run.series);
		run.n_series[0] = '\0';
		if (r->series_len >= 2) {
			char fname[200];
			if (!made_dir) {
				if (mkdir(series_dir, 0755) != 0 && errno != EEXIST) {
					rc = wc_error_set(err, WC_EIO, "%s: cannot create (%s)", series_dir, strerror(errno));
					goto done;
				}
				made_dir = 1;
			}
			file_name(r->run.run_id, fname, sizeof fname);
			snprintf(rel, sizeof rel, "%s.series/%s", stem, fname);
			snprintf(full, sizeof full, "%s/%s", dir, rel);
			if ((rc = wc_series_write(full, r->series_t, r->series_running, r->series_len,
			                          err)) != WC_OK)
				goto done;
			snprintf(run.n_series, sizeof run.n_series, "%s", rel);
		}
		if ((rc = wc_runs_append(t, &run, err)) != WC_OK ||
		    (rc = set_extras(t, i, r, err)) != WC_OK)
			goto done;
	}
	rc = wc_runs_write(path, t, comment, err);
done:
	wc_runs_free(t);
	return rc;
}
