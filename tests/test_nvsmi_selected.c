/*
 * The GPUs of a run named by gpu_uuids in a keyed nvidia-smi log
 * (data/nvsmi_first.c, data/nvsmi_csv.c; docs/formats/telemetry.md
 * "Incomplete samples" and "Empty uuid column"). Every reading says its
 * sweep: GPU g reads 100 (g + 1) + k W in sweep k.
 *
 * - Two nodes of one GPU each merged into one log, the second logger
 *   starting `late` sweeps later: naming both GPUs (gpu_uuids, the remedy
 *   the count's refusal gives) reads the log as the count does, the
 *   leading sweeps skipped in one warning, no bad line; it refused the
 *   log, each skipped sweep a bad line (20 of 981 lines at 1 %).
 * - The same 2-GPU log with every uuid cell empty and an index column:
 *   read by index, the same samples as with the uuids, one warning naming
 *   the empty column; it was refused as "in no row of the log: it holds
 *   other GPUs only". A log of one GPU so is refused by the count, saying
 *   the column is empty; so is one without an index column. A log with uuids whose first lines lack one says those lines
 *   in one warning, still bad lines.
 * - GPU 1's uuid cell empty on its rows only: refused saying so (rows
 *   with an empty uuid cell, counted), where it said the log "holds other
 *   GPUs only".
 */
#include "data/data.h"
#include "tests/support/support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SWEEPS 200

typedef struct {
	int n, misaligned;
	double sum_w;
} seen;

static int
keep(double t, const double *w, int n_gpus, void *payload)
{
	seen *s = payload;
	int k = (int)lround(w[0] - 100.0);
	(void)t;
	for (int g = 0; g < n_gpus; g++) {
		s->misaligned += lround(w[g] - 100.0 * (g + 1)) != k;
		s->sum_w += w[g];
	}
	s->n++;
	return 0;
}

/* A 2-GPU log at 0.1 s, GPU 1's rows from sweep `late` on; `index`,
 * `uuid`: the columns (uuid 2: the column there, every cell empty). */
static char *
log_text(int late, int index, int uuid)
{
	size_t cap = 2 * SWEEPS * 80 + 128, used = 0;
	char *s = malloc(cap);
	used += (size_t)snprintf(s, cap, "timestamp%s%s, power.draw [W]\n", index ? ", index" : "",
	                         uuid ? ", uuid" : "");
	for (int k = 0; k < SWEEPS; k++)
		for (int g = 0; g < 2; g++) {
			if (g == 1 && k < late)
				continue;
			long ms = 3000 + 100L * k + 5L * g;
			char idx[16] = "", uu[24] = "";
			if (index)
				snprintf(idx, sizeof idx, ", %d", g);
			if (uuid)
				snprintf(uu, sizeof uu, ", %s", uuid == 1 ? (g ? "GPU-0001" : "GPU-0000") : "");
			used += (size_t)snprintf(s + used, cap - used, "2026/07/18 15:00:%02ld.%03ld%s%s, %d.00\n",
			                         ms / 1000, ms % 1000, idx, uu, 100 * (g + 1) + k);
		}
	return s;
}

/* `text` read with `gpus` given (0 = none) or both GPUs named (select). */
static int
read_log(const char *dir, const char *name, const char *text, int gpus, int select, seen *s,
         wc_nvsmi_info *info, test_warnings *w, wc_error *err)
{
	static const char *const uuids[] = { "GPU-0000", "GPU-0001" };
	char *p = path_join(dir, name);
	wc_telemetry_options opt = WC_TELEMETRY_OPTIONS_INIT;
	opt.n_gpus = gpus;
	opt.gpu_uuids = select ? uuids : NULL;
	opt.n_gpu_uuids = select ? 2 : 0;
	opt.warn = test_collect_warning;
	opt.warn_payload = w;
	memset(s, 0, sizeof *s);
	memset(w, 0, sizeof *w);
	CHECK(write_text(p, text) == 0);
	int rc = wc_nvsmi_read(p, &opt, keep, s, info, err);
	free(p);
	return rc;
}

/* A second logger `late` sweeps late: named or counted, one reading. */
static void
late_logger(const char *dir, int late)
{
	char *text = log_text(late, 1, 1);
	seen counted, named;
	wc_nvsmi_info ci, ni;
	test_warnings cw, nw;
	wc_error err;
	fprintf(stderr, "GPU 1 from sweep %d: gpu_uuids as the count\n", late);
	CHECK_INT(read_log(dir, "late.csv", text, 2, 0, &counted, &ci, &cw, &err), WC_OK);
	CHECK_INT(counted.n, SWEEPS - late);
	int rc = read_log(dir, "late.csv", text, 0, 1, &named, &ni, &nw, &err);
	if (rc != WC_OK)
		fprintf(stderr, "  refused: %s\n", err.msg);
	CHECK_INT(rc, WC_OK);
	CHECK_INT(named.n, counted.n);
	CHECK_INT(named.misaligned, 0);
	CHECK_NEAR(named.sum_w, counted.sum_w, 1e-9);
	CHECK_INT(ni.bad_lines, 0);
	CHECK_INT(ni.dropped_samples, ci.dropped_samples);
	CHECK_INT(nw.count, cw.count);
	char said[96];
	snprintf(said, sizeof said, "the first %d rows (%d sweeps from line 2", late, late);
	CHECK_CONTAINS(nw.text, said);
	CHECK_CONTAINS(nw.text, "lack some GPUs; skipped, samples read from here");
	CHECK(strstr(nw.text, "has no row before") == NULL);
	free(text);
}

/* Every uuid cell empty: by index with an index column, else refused
 * naming the empty column. */
static void
empty_uuids(const char *dir)
{
	char *filled = log_text(0, 1, 1), *empty = log_text(0, 1, 2), *bare = log_text(0, 0, 2);
	seen a, b;
	wc_nvsmi_info ai, bi;
	test_warnings aw, bw;
	wc_error err;
	fprintf(stderr, "every uuid cell empty, gpu_uuids given\n");
	CHECK_INT(read_log(dir, "filled.csv", filled, 0, 1, &a, &ai, &aw, &err), WC_OK);
	int rc = read_log(dir, "empty.csv", empty, 0, 1, &b, &bi, &bw, &err);
	if (rc != WC_OK)
		fprintf(stderr, "  refused: %s\n", err.msg);
	CHECK_INT(rc, WC_OK);
	CHECK_INT(b.n, SWEEPS);
	CHECK_INT(b.n, a.n);
	CHECK_INT(b.misaligned, 0);
	CHECK_NEAR(b.sum_w, a.sum_w, 1e-9);
	CHECK_INT(bi.bad_lines, 0);
	CHECK_INT(bi.n_gpus, 2);
	CHECK_INT(bw.count, 1);
	CHECK_CONTAINS(bw.text, "empty.csv:2: the uuid column is empty on every line, so gpu_uuids cannot pick "
	                        "the run's 2 GPUs out; the GPUs are read by index");
	CHECK(strstr(bw.text, "no GPU uuid") == NULL);
	/* GPU 1 in no row: one GPU's log, which the count refuses */
	char *one = log_text(SWEEPS, 1, 2);
	CHECK_INT(read_log(dir, "one.csv", one, 0, 1, &b, &bi, &bw, &err), WC_EPARSE);
	CHECK_CONTAINS(err.msg, "the first sample holds 1 GPU, expected 2, and no later one holds 2 (the log's "
	                        "indices name 1");
	CHECK_CONTAINS(err.msg, "the uuid column is empty");
	CHECK(strlen(err.msg) <= 255);
	free(one);
	/* no index column: nothing tells the GPUs apart */
	CHECK_INT(read_log(dir, "bare.csv", bare, 0, 1, &b, &bi, &bw, &err), WC_EPARSE);
	CHECK_CONTAINS(err.msg, "bare.csv:2: the uuid column is empty on every line and there is no index column");
	CHECK(strstr(err.msg, "holds other GPUs only") == NULL);
	CHECK(strstr(bw.text, "no GPU uuid") == NULL);
	CHECK(strlen(err.msg) <= 255);
	free(filled);
	free(empty);
	free(bare);
}

/* GPU 1's uuid cell empty on each of its rows, GPU 0's filled: refused
 * saying those rows lack uuids, not that the log holds other GPUs only. */
static void
some_empty_uuids(const char *dir)
{
	char *text = log_text(0, 1, 1), *p;
	seen s;
	wc_nvsmi_info info;
	test_warnings w;
	wc_error err;
	fprintf(stderr, "GPU 1's uuid cells empty, GPU 0's filled\n");
	while ((p = strstr(text, ", GPU-0001")) != NULL)
		memmove(p + 2, p + 10, strlen(p + 10) + 1);
	CHECK_INT(read_log(dir, "half.csv", text, 0, 1, &s, &info, &w, &err), WC_EPARSE);
	CHECK_CONTAINS(err.msg, "half.csv: GPU-0001 of the run's 2 (gpu_uuids) is in no row with a uuid, and "
	                        "200 rows have an empty uuid cell (the first at line 3): its rows lack uuids?");
	CHECK(strstr(err.msg, "holds other GPUs only") == NULL);
	CHECK(strlen(err.msg) <= 255);
	free(text);
}

/* uuids from line 4 on: the two lines before are bad lines, said once. */
static void
uuids_after_blank(const char *dir)
{
	char *text = log_text(0, 1, 1), *p = text;
	seen s;
	wc_nvsmi_info info;
	test_warnings w;
	wc_error err;
	fprintf(stderr, "the first two uuid cells empty\n");
	for (int blanked = 0; blanked < 2;) {
		p = strstr(p, ", GPU-000");
		memmove(p + 2, p + 10, strlen(p + 10) + 1);
		blanked++;
	}
	CHECK_INT(read_log(dir, "blank2.csv", text, 0, 1, &s, &info, &w, &err), WC_OK);
	CHECK_INT(info.bad_lines, 2);
	CHECK_INT(s.n, SWEEPS - 1);
	CHECK_INT(s.misaligned, 0);
	CHECK_CONTAINS(w.text, "blank2.csv:2: no GPU uuid on the 2 data lines before line 4; bad lines");
	CHECK(strstr(w.text, "not shown") == NULL);
	CHECK(strstr(w.text, "read by index") == NULL);
	free(text);
}

int
main(void)
{
	char *dir = test_tmpdir("nvsmi_selected");
	late_logger(dir, 20);
	late_logger(dir, 1);
	empty_uuids(dir);
	uuids_after_blank(dir);
	some_empty_uuids(dir);
	free(dir);
	return check_report("test_nvsmi_selected");
}
