/*
 * Write ingested rows as a runs table (docs/formats/runs-table.md): the
 * n(t) series of each row as `t_s,running` in `<stem>.series/` beside the
 * table (the n_series column holds the path relative to the table), then
 * the table itself with the trace metrics (docs/trace-metrics.md) and
 * ingest facts as extra columns. Both go through data/'s atomic writers.
 * The series go to pending names first, each a temporary of its series
 * with this writer's pid (wc_temporary_reserve): no two writers share one,
 * and a killed writer's are swept by the next. Then ingest_commit.c puts
 * them in place, then the table, then clears the folder of an earlier
 * table's series: a reader sees the old table with its series or the new
 * one with its own, never a mix (docs/architecture.md, "Files").
 */
#include "ingest_internal.h"
#include "data/fileio.h"
#include "data/table_inputs.h"
#include "models/grow.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* A run id as a file name: keep [A-Za-z0-9._-], the rest becomes '_'.
 * An id with a byte outside ASCII (a CJK or accented name) also gets '-'
 * and the first 8 hex digits of the SHA-256 of its bytes: '_' alone made
 * every all-CJK id of one length one name ("模型", "测试": "______"), so
 * such a campaign could not be ingested. ASCII ids keep the names they had
 * (docs/formats/telemetry.md, "n(t) on the 50 ms grid"). */
static void
file_name(const char *run_id, char *out, size_t cap)
{
	size_t k = 0, tag = 0;
	for (const char *p = run_id; *p; p++)
		if ((unsigned char)*p >= 0x80)
			tag = 9; /* "-" and 8 hex digits */
	for (const char *p = run_id; *p && k + 5 + tag < cap; p++) {
		char c = *p;
		int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		         c == '.' || c == '-' || c == '_';
		out[k++] = ok ? c : '_';
	}
	if (tag) {
		char hex[65];
		wc_sha256_hex(run_id, strlen(run_id), hex);
		out[k++] = '-';
		memcpy(out + k, hex, 8);
		k += 8;
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

/* A row's series file name and its place in the table. */
typedef struct {
	char name[200];
	size_t row;
} series_name;

static int
by_series_name(const void *a, const void *b)
{
	const series_name *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	return c ? c : (x->row > y->row) - (x->row < y->row);
}

/* Two rows whose run ids differ but sanitise to one series file name
 * ("exp/run 1" and "exp_run_1") would share that file, the second
 * overwriting the first's n(t): refused before anything is written
 * (docs/formats/telemetry.md, "n(t) on the 50 ms grid"). Named: the
 * first row that repeats an earlier one's name, with the first row of
 * that name. Sorted, not row against row: 10,800 segments made that
 * 58 million comparisons. */
static int
check_series_names(const char *path, const wc_ingest_result *res, wc_error *err)
{
	series_name *names = wc_alloc_array(res->n_rows ? res->n_rows : 1, sizeof *names);
	size_t n = 0, first = 0, repeat = SIZE_MAX;
	if (!names)
		return wc_error_set_path(err, WC_ENOMEM, path, ": out of memory");
	for (size_t i = 0; i < res->n_rows; i++) {
		if (res->rows[i].series_len < 2)
			continue;
		file_name(res->rows[i].run.run_id, names[n].name, sizeof names[n].name);
		names[n++].row = i;
	}
	qsort(names, n, sizeof *names, by_series_name);
	for (size_t k = 1; k < n; k++)
		if (strcmp(names[k].name, names[k - 1].name) == 0 && names[k].row < repeat) {
			/* k - 1 may repeat too: the name's first row starts its run */
			size_t f = k - 1;
			while (f > 0 && strcmp(names[f - 1].name, names[k].name) == 0)
				f--;
			first = f;
			repeat = names[k].row;
		}
	int rc = WC_OK;
	if (repeat != SIZE_MAX) {
		size_t j = names[first].row;
		char a[200];
		snprintf(a, sizeof a, "%s", names[first].name);
		rc = wc_error_set_path(err, WC_EINVAL, path,
		                       ": give the run ids that differ in [A-Za-z0-9._-]: run_id '%.60s' "
		                       "and '%.60s' would share the series file '%.60s'",
		                       res->rows[j].run.run_id, res->rows[repeat].run.run_id, a);
	}
	free(names);
	return rc;
}

/* Folder, stem and series folder of table `path`: "out/runs.csv" ->
 * "out", "runs", "out/runs.series". */
static void
table_paths(const char *path, char *dir, size_t dir_size, char *stem, size_t stem_size, char *series_dir,
            size_t series_size)
{
	const char *slash = strrchr(path, '/');
	if (slash) { /* a checked copy: gcc -O2 -fsanitize took the snprintf's path for NULL */
		size_t n = (size_t)(slash - path) < dir_size ? (size_t)(slash - path) : dir_size - 1;
		memcpy(dir, path, n);
		dir[n] = '\0';
	} else
		snprintf(dir, dir_size, ".");
	if (slash && slash == path)
		snprintf(dir, dir_size, "/");
	snprintf(stem, stem_size, "%s", slash ? slash + 1 : path);
	size_t sl = strlen(stem);
	if (sl > 4 && strcmp(stem + sl - 4, ".csv") == 0)
		stem[sl - 4] = '\0';
	snprintf(series_dir, series_size, "%s/%s.series", dir, stem);
}

int
wc_ingest_check_output(const char *path, wc_error *err)
{
	char dir[1024], stem[256], series_dir[1400];
	struct stat st;
	/* Found only when the table was written, after the series: the
	 * rename failed and left the series folder behind (docs/cli.md,
	 * "ingest"). */
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return wc_error_set_path(err, WC_EINVAL, path, ": is a folder, not a file (-o names the runs table)");
	table_paths(path, dir, sizeof dir, stem, sizeof stem, series_dir, sizeof series_dir);
	if (stat(series_dir, &st) == 0 && !S_ISDIR(st.st_mode))
		return wc_error_set_path(err, WC_EINVAL, series_dir,
		                         ": is not a folder, and the series of table '%s' go there", path);
	return WC_OK;
}

/* Two folders of one run id, within `room` bytes in all, told apart:
 * in full when they fit; else past the components they share (a run
 * copied under node_a/ and node_b/ differs there, not at its end), each
 * cut at its end to its share. */
static void
two_folders(const char *a, const char *b, size_t room, char *out, size_t out_size)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la + lb + 5 <= room) {
		snprintf(out, out_size, "%s and %s", a, b);
		return;
	}
	size_t p = 0;
	for (size_t i = 0; a[i] && a[i] == b[i]; i++)
		if (a[i] == '/')
			p = i + 1;
	const char *t[2] = { a + p, b + p };
	size_t len[2] = { la - p, lb - p }, share[2], mark = p > 0 ? 3 : 0;
	size_t each = room > 5 + 2 * mark ? (room - 5 - 2 * mark) / 2 : 0;
	for (int k = 0; k < 2; k++) /* what one needs not, the other may use */
		share[k] = len[1 - k] < each ? 2 * each - len[1 - k] : each;
	char part[2][256];
	for (int k = 0; k < 2; k++) {
		if (len[k] <= share[k] || share[k] < 4)
			snprintf(part[k], sizeof part[k], "%s%.*s", mark ? "..." : "", (int)share[k], t[k]);
		else
			snprintf(part[k], sizeof part[k], "%s%.*s...", mark ? "..." : "", (int)(share[k] - 3), t[k]);
	}
	/* the shares fit `room`; were it cut, not inside a character */
	if (snprintf(out, out_size, "%s and %s", part[0], part[1]) >= (int)out_size)
		wc_text_mend_cut(out, out_size);
}

int
wc_ingest_check_ids(size_t n, const char *(*id)(size_t i, const void *payload),
                    const char *(*dir)(size_t i, const void *payload), const void *payload, wc_error *err)
{
	const char *dup;
	size_t at[2];
	int rc = wc_runs_repeated_id(n, id, payload, &dup, at, err);
	if (rc == WC_OK && dup && strcmp(dir(at[0], payload), dir(at[1], payload)) == 0) {
		/* one folder read twice, not two runs: its two places printed
		 * alike. The folder keeps its end, where the run is named. */
#define SAME_DIR_FMT "run_id '%.48s' appears twice: its folder %s%s was read twice (inside two folders given)"
		const char *d = dir(at[0], payload);
		int used = snprintf(NULL, 0, SAME_DIR_FMT, dup, "...", "");
		size_t room = used < 255 ? 255 - (size_t)used : 0, len = strlen(d);
		int cut = len > room + 3;
		if (cut)
			room = len - wc_utf8_keep_end(d, len, room); /* cut between characters */
		rc = wc_error_set(err, WC_EINVAL, SAME_DIR_FMT, dup, cut ? "..." : "", cut ? d + len - room : d);
#undef SAME_DIR_FMT
	} else if (rc == WC_OK && dup) {
		/* a message holds 255 bytes: the folders get what the rest leaves */
		char id_text[49], where[256];
		snprintf(id_text, sizeof id_text, "%s", dup);
#define DUP_ID_FMT "run_id '%s' appears twice (two runs with the same id): in %s"
		int used = snprintf(NULL, 0, DUP_ID_FMT, id_text, "");
		two_folders(dir(at[0], payload), dir(at[1], payload), used < 255 ? 255 - (size_t)used : 0, where,
		            sizeof where);
		rc = wc_error_set(err, WC_EINVAL, DUP_ID_FMT, id_text, where);
#undef DUP_ID_FMT
	}
	return rc;
}

static const char *
row_id(size_t i, const void *rows)
{
	return ((const wc_ingest_row *)rows)[i].run.run_id;
}

static const char *
row_dir(size_t i, const void *rows)
{
	return ((const wc_ingest_row *)rows)[i].dir;
}

/* The one message for a series path over the 255 bytes of an n_series
 * cell, plain (`tagged` 0) or with its '@' and 8 hex digits (the commit's
 * tagged name, ingest_commit.c). The run id whole (95 bytes at most,
 * runs_table.h): a cut at 24 named every powertrace-sim run alike. The -o
 * path gives way instead, by wc_error_set_path's rule, in the room the
 * rest leaves (docs/cli.md, "ingest"). */
int
wc__ingest_series_too_long(wc_error *err, const char *path, const char *run_id, size_t bytes, int tagged)
{
	char text[WC_ERROR_MSG_MAX], shown[WC_ERROR_MSG_MAX];
	int used = snprintf(text, sizeof text, ": run_id '%s': its series path%s of %zu bytes passes the %zu of "
	                    "n_series (shorten -o)", run_id, tagged ? " with its '@' and 8 hex digits" : "", bytes,
	                    sizeof ((wc_run *)0)->n_series - 1);
	/* at least wc_error_format_path's 16 bytes for "...<file name>" */
	size_t room = used > 0 && (size_t)used + 16 < sizeof shown ? sizeof shown - (size_t)used : 16;
	wc_error_format_path(shown, room, path, "%s", "");
	return wc_error_set(err, WC_EINVAL, "%s%s", shown, text);
}

int
wc_ingest_write(const char *path, const wc_ingest_result *res, const char *comment, wc_error *err)
{
	char dir[1024], stem[256], series_dir[1400], rel[512], full[2048];
	wc_runs_table *t = NULL;
	int rc = WC_OK;
	if (res->n_rows == 0)
		return wc_error_set_path(err, WC_EINVAL, path, ": no rows to write");
	if ((rc = wc_ingest_check_ids(res->n_rows, row_id, row_dir, res->rows, err)) != WC_OK)
		return rc;
	if ((rc = check_series_names(path, res, err)) != WC_OK)
		return rc;
	if ((rc = wc_ingest_check_output(path, err)) != WC_OK)
		return rc;
	table_paths(path, dir, sizeof dir, stem, sizeof stem, series_dir, sizeof series_dir);

	/* pending[i]: row i's series under its pending name, NULL once in
	 * place (or for a row without one) */
	char **pending = calloc(res->n_rows, sizeof *pending);
	size_t cut = 0;
	int made_dir = 0, created = 0;
	wc_write_batch batch = { 0, 0, 0 };
	if (!pending || !(t = wc_runs_new())) {
		free(pending);
		return wc_error_set_path(err, WC_ENOMEM, path, ": out of memory");
	}
	for (size_t i = 0; i < res->n_rows; i++) {
		const wc_ingest_row *r = &res->rows[i];
		wc_run run = r->run;
		memset(&run.series, 0, sizeof run.series);
		run.n_series[0] = '\0';
		if (r->series_len >= 2) {
			char fname[200];
			if (!made_dir) {
				if (mkdir(series_dir, 0755) == 0) {
					created = 1;
				} else if (errno != EEXIST) {
					rc = wc_error_set_path(err, WC_EIO, series_dir,
					                       ": cannot create (%s)", strerror(errno));
					goto done;
				}
				made_dir = 1;
				/* one listing of the folder for all its series */
				wc_write_batch_begin(&batch, series_dir);
			}
			file_name(r->run.run_id, fname, sizeof fname);
			snprintf(rel, sizeof rel, "%s.series/%s", stem, fname);
			/* An n_series cell holds 255 bytes: a longer path was cut
			 * and named no file (a long -o name and a long run id). */
			size_t rel_len = strlen(rel);
			if (rel_len >= sizeof run.n_series) {
				rc = wc__ingest_series_too_long(err, path, r->run.run_id, rel_len, 0);
				goto done;
			}
			snprintf(full, sizeof full, "%s/%s", dir, rel);
			if ((rc = wc_temporary_reserve(full, &pending[i], err)) != WC_OK)
				goto done;
			cut = strlen(pending[i]) - strlen(full);
			if ((rc = wc_series_write(&batch, pending[i], r->series_t, r->series_running, r->series_len,
			                          err)) != WC_OK)
				goto done;
			memcpy(run.n_series, rel, rel_len + 1);
		}
		if ((rc = wc_runs_append(t, &run, err)) != WC_OK ||
		    (rc = set_extras(t, i, r, err)) != WC_OK)
			goto done;
	}
	rc = wc__ingest_commit(path, series_dir, t, pending, cut, comment, err);
done:
	/* What is still pending goes, and on failure a folder this write
	 * created for it. */
	for (size_t k = 0; k < res->n_rows; k++) {
		if (pending[k])
			unlink(pending[k]);
		free(pending[k]);
	}
	if (rc != WC_OK && created)
		rmdir(series_dir); /* fails, as it should, when anything is left */
	free(pending);
	wc_runs_free(t);
	return rc;
}
