/*
 * The inputs of `fit capacity` and `validate capacity`: any mix of runs
 * tables, periods tables (recognised by their `period_s` column) and raw
 * ML.ENERGY configuration tables (recognised by `avg_batch_size`,
 * imported as `wattcast import mlenergy` would), merged into one runs
 * table and one periods table, and the capacity evidence drawn from both.
 */
#include "cli.h"
#include "cli_capacity.h"
#include "data/data.h"
#include "models/limits.h"

#include <stdlib.h>
#include <string.h>

static int
is_mlenergy(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[4096];
	int yes = 0;
	while (f && fgets(line, sizeof line, f))
		if (line[0] != '#' && line[0] != '\n') {
			yes = strstr(line, "avg_batch_size") != NULL && strstr(line, "model_id") != NULL;
			break;
		}
	if (f)
		fclose(f);
	return yes;
}

/* Append `src`'s rows (extras included) to `dst`. */
static int
merge_runs(wc_runs_table *dst, const wc_runs_table *src, wc_error *err)
{
	int rc;
	for (size_t i = 0; i < src->n_runs; i++) {
		if ((rc = wc_runs_append(dst, &src->runs[i], err)) != WC_OK)
			return rc;
		for (size_t c = 0; c < src->extra.n; c++) {
			const char *v = src->extra.values[i * src->extra.n + c];
			if (v && *v && (rc = wc_runs_set_extra(dst, dst->n_runs - 1, src->extra.names[c], v, err)) != WC_OK)
				return rc;
		}
	}
	if (!dst->sha256[0])
		snprintf(dst->sha256, sizeof dst->sha256, "%s", src->sha256);
	return WC_OK;
}

static int
merge_periods(wc_periods_table *dst, const wc_periods_table *src)
{
	size_t n = dst->n_rows + src->n_rows;
	wc_period_row *nr = realloc(dst->rows, (n ? n : 1) * sizeof *nr);
	if (!nr)
		return WC_ENOMEM;
	memcpy(nr + dst->n_rows, src->rows, src->n_rows * sizeof *nr);
	dst->rows = nr;
	dst->n_rows = dst->cap_rows = n;
	if (!dst->sha256[0])
		snprintf(dst->sha256, sizeof dst->sha256, "%s", src->sha256);
	return WC_OK;
}

static int
load_one(const char *cmd, const char *path, cli_capacity_inputs *in)
{
	wc_error err;
	if (wc_periods_detect(path)) {
		wc_periods_table *p = NULL;
		if (wc_periods_read(path, &p, &err) != WC_OK)
			return cli_fail(cmd, "%s", err.msg);
		int rc = merge_periods(in->periods, p);
		wc_periods_free(p);
		return rc == WC_OK ? CLI_OK : cli_fail(cmd, "%s: out of memory", path);
	}
	wc_runs_table *t = NULL;
	int rc = is_mlenergy(path) ? wc_import_mlenergy(path, &t, &err) : wc_runs_read(path, &t, &err);
	if (rc != WC_OK)
		return cli_fail(cmd, "%s", err.msg);
	rc = merge_runs(in->runs, t, &err);
	wc_runs_free(t);
	return rc == WC_OK ? CLI_OK : cli_fail(cmd, "%s", err.msg);
}

int
cli_capacity_inputs_load(const char *cmd, char **paths, int n, cli_capacity_inputs *in)
{
	wc_error err;
	int rc;
	memset(in, 0, sizeof *in);
	in->runs = wc_runs_new();
	in->periods = calloc(1, sizeof *in->periods);
	if (!in->runs || !in->periods)
		return cli_fail(cmd, "out of memory");
	for (int i = 0; i < n; i++)
		if ((rc = load_one(cmd, paths[i], in)) != CLI_OK)
			return rc;
	snprintf(in->runs->path, sizeof in->runs->path, "%s", n ? paths[0] : "");
	if (wc_capacity_data_add_runs(&in->data, in->runs, &err) != WC_OK ||
	    wc_capacity_data_add_periods(&in->data, in->periods, &err) != WC_OK)
		return cli_fail(cmd, "%s", err.msg);
	if (n > 1) {
		/* The fingerprint of several inputs: the hash of their hashes. */
		char joined[16 * 65 + 1] = "";
		for (int i = 0; i < n && i < 16; i++) {
			char *buf = NULL;
			size_t len = 0, used = strlen(joined);
			char hex[65];
			if (wc_read_file(paths[i], WC_FINGERPRINT_MAX_BYTES, &buf, &len, NULL) == WC_OK) {
				wc_sha256_hex(buf, len, hex);
				snprintf(joined + used, sizeof joined - used, "%s", hex);
			}
			free(buf);
		}
		wc_sha256_hex(joined, strlen(joined), in->data.sha256);
	}
	return CLI_OK;
}

void
cli_capacity_inputs_free(cli_capacity_inputs *in)
{
	wc_runs_free(in->runs);
	if (in->periods)
		wc_periods_free(in->periods);
	wc_capacity_data_clear(&in->data);
	memset(in, 0, sizeof *in);
}
