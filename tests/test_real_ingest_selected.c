/*
 * A real 2-GPU power log read by `wattcast ingest` with its GPUs named by
 * the manifest (server.active_gpu_uuids, gpu_uuids; label realdata): the
 * TP 2 gemma run of ../shared/data/real/powertrace-sim.
 *
 * - GPU 1's first 8 rows left out, as a per-GPU logger started 2 s late
 *   writes it: the 8 leading sweeps are skipped in one warning, no bad
 *   line, as with the count given (docs/formats/telemetry.md, "Incomplete
 *   samples"). It was refused: 8 of 532 lines malformed (1.5 %).
 * - Every uuid cell emptied: the GPUs are read by index, one warning, and
 *   the row is the whole log's (docs/formats/telemetry.md, "Empty uuid
 *   column"). It was refused: "GPU … of the run's 2 (gpu_uuids) is in no
 *   row of the log: it holds other GPUs only".
 * - Lines 51-52 (GPU 1 at 16:00:19.246, GPU 0 at 19.496) with an empty
 *   uuid cell, or cut short: each takes the place of the GPU the sweep
 *   order says comes next, so both sweeps are dropped, the row that of the
 *   log without lines 50-53 (docs/formats/telemetry.md, "Bad lines in a
 *   sweep"). They held no place: GPU 0 at 19.246 and GPU 1 at 19.496 made
 *   one sample ("1 sweep spread over more than 40 ms (widest 0.250 s)").
 */
#include "data/data.h"
#include "tests/support/support.h"
#include "trace/trace.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Ingest `dir`, its warnings into `w`: the row (metrics NaN when refused). */
static wc_ingest_row
ingest(const char *dir, test_warnings *w)
{
	wc_ingest_options o;
	wc_ingest_result res = { NULL, 0, 0 };
	wc_ingest_row row;
	wc_error err;
	wc_ingest_options_init(&o);
	o.warn = test_collect_warning;
	o.warn_payload = w;
	memset(w, 0, sizeof *w);
	memset(&row, 0, sizeof row);
	row.metrics.mean_w = row.metrics.max_w = NAN;
	int rc = wc_ingest_run(dir, &o, &res, &err);
	CHECK_INT(rc, WC_OK);
	if (rc != WC_OK)
		fprintf(stderr, "%s\n", err.msg);
	CHECK_INT(res.n_rows, 1);
	if (res.n_rows == 1) {
		row = res.rows[0];
		row.series_t = row.series_running = NULL; /* freed below */
	}
	wc_ingest_result_clear(&res);
	return row;
}

/* `power` (the run's power.csv edited) with the run's engine.csv and
 * manifest.json in `root`/`name`; the folder (malloc'd). */
static char *
run_with(const char *root, const char *name, const char *power, char *const *text)
{
	char *run = path_join(root, name), *p;
	mkdir(run, 0755);
	p = path_join(run, "power.csv");
	CHECK_INT(write_text(p, power), 0);
	free(p);
	p = path_join(run, "engine.csv");
	CHECK_INT(write_text(p, text[1]), 0);
	free(p);
	p = path_join(run, "manifest.json");
	CHECK_INT(write_text(p, text[2]), 0);
	free(p);
	return run;
}

/* power.csv without GPU 1's first `late` rows (`late` 0), or with every
 * uuid cell (column 3) emptied (`late` -1). */
static char *
edited(const char *text, int late)
{
	char *out = malloc(strlen(text) + 1), *o = out;
	const char *line = text;
	int row = 0, gpu1 = 0;
	while (*line) {
		const char *nl = strchr(line, '\n'), *end = nl ? nl + 1 : line + strlen(line);
		const char *c1 = memchr(line, ',', (size_t)(end - line));
		const char *c2 = c1 ? memchr(c1 + 1, ',', (size_t)(end - c1 - 1)) : NULL;
		const char *c3 = c2 ? memchr(c2 + 1, ',', (size_t)(end - c2 - 1)) : NULL;
		int data = row++ > 0 && c3;
		if (data && late > 0 && c1[1] == '1' && c1 + 2 == c2 && ++gpu1 <= late) {
			line = end;
			continue;
		}
		if (data && late < 0) {
			memcpy(o, line, (size_t)(c2 + 1 - line));
			o += c2 + 1 - line;
			memcpy(o, c3, (size_t)(end - c3));
			o += end - c3;
		} else {
			memcpy(o, line, (size_t)(end - line));
			o += end - line;
		}
		line = end;
	}
	*o = '\0';
	return out;
}

/* power.csv with lines 51-52 spoilt: `how` 0 their uuid cell emptied, 1
 * cut after the index; 2: lines 50-53 left out. */
static char *
spoilt(const char *text, int how)
{
	char *out = malloc(strlen(text) + 1), *o = out;
	const char *line = text;
	for (int no = 1; *line; no++) {
		const char *nl = strchr(line, '\n'), *end = nl ? nl + 1 : line + strlen(line);
		const char *c1 = memchr(line, ',', (size_t)(end - line));
		const char *c2 = c1 ? memchr(c1 + 1, ',', (size_t)(end - c1 - 1)) : NULL;
		const char *c3 = c2 ? memchr(c2 + 1, ',', (size_t)(end - c2 - 1)) : NULL;
		int hit = (no == 51 || no == 52) && c3;
		if (how == 2 && no >= 50 && no <= 53) {
			line = end;
			continue;
		}
		if (hit && how == 0) {
			memcpy(o, line, (size_t)(c2 + 1 - line));
			o += c2 + 1 - line;
			memcpy(o, c3, (size_t)(end - c3));
			o += end - c3;
		} else if (hit && how == 1) {
			memcpy(o, line, (size_t)(c2 - line));
			o += c2 - line;
			*o++ = '\n';
		} else {
			memcpy(o, line, (size_t)(end - line));
			o += end - line;
		}
		line = end;
	}
	*o = '\0';
	return out;
}

int
main(void)
{
	const char *shared = test_shared_dir();
	if (!shared)
		return TEST_SKIP;
	char *src = path_join(shared, "data/real/powertrace-sim/validate_gemma-4-26b-a4b_moe_transfer_a100/"
	                              "a100_validate_tp2_r4p0_b1p0_s20260712_1784415591");
	char *root = test_tmpdir("real_ingest_selected");
	const char *files[] = { "power.csv", "engine.csv", "manifest.json" };
	char *text[3] = { NULL, NULL, NULL };
	if (!test_read_texts(src, files, 3, text))
		return check_report("test_real_ingest_selected");
	CHECK_CONTAINS(text[2], "active_gpu_uuids"); /* the GPUs are named */
	test_warnings w;
	wc_ingest_row whole = ingest(src, &w);

	fprintf(stderr, "GPU 1's first 8 rows left out, GPUs named by the manifest\n");
	char *late = edited(text[0], 8), *run = run_with(root, "late", late, text);
	wc_ingest_row r = ingest(run, &w);
	CHECK_CONTAINS(w.text, "power.csv:10: the first 8 rows (8 sweeps from line 2, 2.001 s; the first holds 1 "
	                       "of the 2 GPUs");
	CHECK(strstr(w.text, "has no row before") == NULL);
	CHECK_INT(r.bad_lines, 0);
	CHECK_INT(r.n_gpus, 2);
	CHECK(r.metrics.mean_w > 400.0 && r.metrics.mean_w < 460.0); /* the whole log's 421.6 W, 2 s less */
	CHECK_NEAR(r.metrics.max_w, whole.metrics.max_w, 1e-9);
	free(late);
	free(run);

	fprintf(stderr, "every uuid cell empty, GPUs named by the manifest\n");
	char *blank = edited(text[0], -1);
	CHECK_CONTAINS(blank, "\n2026/07/18 16:00:13.244,0,,87.39,");
	run = run_with(root, "blank", blank, text);
	r = ingest(run, &w);
	CHECK_CONTAINS(w.text, "power.csv:2: the uuid column is empty on every line, so gpu_uuids cannot pick the "
	                       "run's 2 GPUs out; the GPUs are read by index");
	CHECK(strstr(w.text, "no GPU uuid") == NULL);
	CHECK_INT(r.bad_lines, 0);
	CHECK_INT(r.n_gpus, 2);
	CHECK_NEAR(r.metrics.mean_w, whole.metrics.mean_w, 1e-9);
	CHECK_NEAR(r.metrics.max_w, whole.metrics.max_w, 1e-9);
	CHECK_NEAR(r.metrics.energy_j, whole.metrics.energy_j, 1e-6);
	free(blank);
	free(run);

	char *gone = spoilt(text[0], 2);
	run = run_with(root, "gone", gone, text);
	wc_ingest_row without = ingest(run, &w);
	CHECK_INT(without.bad_lines, 0);
	free(gone);
	free(run);
	for (int how = 0; how < 2; how++) {
		fprintf(stderr, "lines 51-52 %s, GPUs named by the manifest\n", how ? "cut short" : "without uuid");
		char *bad = spoilt(text[0], how);
		CHECK_CONTAINS(bad, how ? "\n2026/07/18 16:00:19.246,1\n2026/07/18 16:00:19.496,0\n"
		                        : "\n2026/07/18 16:00:19.246,1,,85.17,");
		run = run_with(root, how ? "cut" : "nouuid", bad, text);
		r = ingest(run, &w);
		CHECK(strstr(w.text, "spread over") == NULL);
		CHECK_INT(r.bad_lines, 2);
		CHECK_INT(r.n_gpus, 2);
		/* 28304.91675 J, the log's without the two sweeps; 28304.94675
		 * when the two were paired */
		CHECK_NEAR(r.metrics.energy_j, without.metrics.energy_j, 1e-6);
		CHECK_NEAR(r.metrics.mean_w, without.metrics.mean_w, 1e-9);
		if (strstr(w.text, "spread over"))
			fprintf(stderr, "  %s\n", w.text);
		free(bad);
		free(run);
	}
	for (int k = 0; k < 3; k++)
		free(text[k]);
	free(src);
	free(root);
	return check_report("test_real_ingest_selected");
}
