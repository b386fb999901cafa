/*
 * The nodes of a multi-node job merged into one nvidia-smi log
 * (docs/formats/telemetry.md "nvidia-smi", docs/finetune.md "Limits"):
 * each node numbers its GPUs from index 0, so the indices repeat and the
 * uuids tell the GPUs apart.
 *
 * - Two nodes of 4 GPUs, merged by time, are 8 GPUs, every sweep one
 *   sample, the group power the sum of both nodes, no bad line; also when
 *   both nodes read the same power (no row is taken for a line written
 *   twice).
 * - Node 1's logger sampling every 0.3 s, node 0's every 0.25 s: each
 *   node's sweeps are read on their own, node 1's readings interpolated at
 *   node 0's sweeps: no line malformed, the sum of both nodes in every
 *   sample (two node-0 sweeps in a row were a sample lacking node 1's
 *   GPUs, a bad line); also with gpu_uuids naming one GPU of each node
 *   at different indices (the nodes found from the log's uuids).
 * - A third node's GPU appearing after the first sample is not in the
 *   first sample: a bad line naming its index and uuid.
 * - Without uuid the nodes' GPUs cannot be told apart: with the GPU count
 *   given, the log is refused naming the index that repeats and the
 *   remedy (it said only "expected 8"); without it, a warning says so; rows
 *   of both nodes at one time are bad lines that say it too.
 */
#include "data/data.h"
#include "tests/support/support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	int n, gpus;
	double sum;
} seen;

static int
keep(double t, const double *w, int n_gpus, void *payload)
{
	seen *s = payload;
	(void)t;
	s->gpus = n_gpus;
	for (int g = 0; g < n_gpus; g++)
		s->sum += w[g];
	s->n++;
	return 0;
}

/* `sweeps` sweeps 0.25 s apart of `nodes` nodes of 4 GPUs each; node n's
 * GPU g reads 100 (g + 1) + `step` n W. From sweep `late` on (-1 = never)
 * a further node's GPU 0 is logged too. */
static char *
merged_log(int nodes, int sweeps, double step, int late)
{
	size_t cap = (size_t)(nodes + 1) * 4 * (size_t)sweeps * 96 + 64, used = 0;
	char *s = malloc(cap);
	used += (size_t)snprintf(s, cap, "timestamp, index, uuid, power.draw [W]\n");
	for (int k = 0; k < sweeps; k++)
		for (int n = 0; n < nodes + (late >= 0 && k >= late); n++)
			for (int g = 0; g < (n < nodes ? 4 : 1); g++)
				used += (size_t)snprintf(s + used, cap - used,
				                         "2026/07/18 15:00:%02d.%03d, %d, GPU-%04d-node%d, %.2f\n",
				                         k / 4, k % 4 * 250, g, g, n, 100.0 * (g + 1) + step * n);
	return s;
}

/* Two nodes of 4 GPUs over `span_ms`, node n's sweeps every period[n] ms
 * from lag[n] ms, merged by time as `sort -s -t, -k1,1` does; node n's GPU
 * g reads 100 (g + 1) + 50 n W. */
static char *
drifting_log(const int *period, const int *lag, int span_ms)
{
	size_t cap = 2 * 4 * (size_t)(span_ms / 100 + 2) * 96 + 64, used = 0;
	char *s = malloc(cap);
	int next[2] = { lag[0], lag[1] };
	used += (size_t)snprintf(s, cap, "timestamp, index, uuid, power.draw [W]\n");
	while (next[0] < span_ms || next[1] < span_ms) {
		int n = next[0] <= next[1] ? 0 : 1, ms = next[n];
		for (int g = 0; g < 4; g++)
			used += (size_t)snprintf(s + used, cap - used, "2026/07/18 15:%02d:%02d.%03d, %d, GPU-%04d-node%d, %.2f\n",
			                         ms / 60000, ms / 1000 % 60, ms % 1000, g, g, n, 100.0 * (g + 1) + 50.0 * n);
		next[n] += period[n];
	}
	return s;
}

static int
read_log(const char *dir, const char *text, seen *s, wc_nvsmi_info *info, test_warnings *w,
         wc_error *err)
{
	char *p = path_join(dir, "merged.csv");
	wc_telemetry_options opt = WC_TELEMETRY_OPTIONS_INIT;
	opt.warn = test_collect_warning;
	opt.warn_payload = w;
	memset(s, 0, sizeof *s);
	memset(w, 0, sizeof *w);
	CHECK(write_text(p, text) == 0);
	int rc = wc_nvsmi_read(p, &opt, keep, s, info, err);
	free(p);
	return rc;
}

static void
two_nodes(const char *dir, double step)
{
	char *text = merged_log(2, 40, step, -1);
	seen s;
	wc_nvsmi_info info;
	test_warnings w;
	wc_error err = { 0, "" };
	fprintf(stderr, "two nodes of 4 GPUs, the second %.0f W above\n", step);
	CHECK_INT(read_log(dir, text, &s, &info, &w, &err), WC_OK);
	CHECK_INT(info.n_gpus, 8);
	CHECK_INT(s.gpus, 8);
	CHECK_INT(info.bad_lines, 0);
	CHECK_INT(info.dropped_samples, 0);
	CHECK_INT(s.n, 40);
	CHECK_NEAR(s.sum / s.n, 2000.0 + 4 * step, 1e-9);
	CHECK(strcmp(info.uuid[4], "GPU-0000-node1") == 0 && info.index[4] == 0);
	free(text);
}

static void
drifting_nodes(const char *dir)
{
	const int period[2] = { 250, 300 }, lag[2] = { 0, 40 };
	char *text = drifting_log(period, lag, 120000);
	seen s;
	wc_nvsmi_info info;
	test_warnings w;
	wc_error err = { 0, "" };
	fprintf(stderr, "two nodes of 4 GPUs, node 1 sampling every 0.3 s, node 0 every 0.25 s\n");
	CHECK_INT(read_log(dir, text, &s, &info, &w, &err), WC_OK);
	CHECK_INT(info.n_gpus, 8);
	CHECK_INT(info.bad_lines, 0);
	CHECK(strstr(w.text, "is missing from the sample") == NULL);
	/* node 0's 480 sweeps, but its last (after node 1's last) */
	CHECK(s.n >= 478 && s.n <= 480);
	CHECK_NEAR(s.sum / s.n, 2000.0 + 4 * 50.0, 1e-9);
	/* the same GPUs named by gpu_uuids, node 1's first: read the same */
	const char *uuids[8] = { "GPU-0000-node1", "GPU-0001-node1", "GPU-0002-node1", "GPU-0003-node1",
		                 "GPU-0000-node0", "GPU-0001-node0", "GPU-0002-node0", "GPU-0003-node0" };
	char *p = path_join(dir, "merged.csv");
	wc_telemetry_options opt = WC_TELEMETRY_OPTIONS_INIT;
	opt.gpu_uuids = uuids;
	opt.n_gpu_uuids = 8;
	memset(&s, 0, sizeof s);
	CHECK_INT(wc_nvsmi_read(p, &opt, keep, &s, &info, &err), WC_OK);
	CHECK_INT(info.bad_lines, 0);
	CHECK(s.n >= 478 && s.n <= 480);
	CHECK_NEAR(s.sum / s.n, 2000.0 + 4 * 50.0, 1e-9);
	/* one GPU of each node, at different indices: the nodes are the log's
	 * (index 0 under two uuids), not only the GPUs selected (44 bad lines
	 * of 990, refused) */
	const char *one_each[2] = { "GPU-0000-node0", "GPU-0001-node1" };
	opt.gpu_uuids = one_each;
	opt.n_gpu_uuids = 2;
	memset(&s, 0, sizeof s);
	CHECK_INT(wc_nvsmi_read(p, &opt, keep, &s, &info, &err), WC_OK);
	CHECK_INT(info.bad_lines, 0);
	CHECK(s.n >= 478 && s.n <= 480);
	CHECK_NEAR(s.sum / s.n, 100.0 + 200.0 + 50.0, 1e-9);
	free(p);
	free(text);
}

static void
late_node(const char *dir)
{
	char *text = merged_log(2, 400, 100.0, 200);
	seen s;
	wc_nvsmi_info info;
	test_warnings w;
	wc_error err = { 0, "" };
	fprintf(stderr, "a third node's GPU 0 from sweep 200 on\n");
	read_log(dir, text, &s, &info, &w, &err);
	CHECK_INT(info.n_gpus, 8);
	CHECK(strstr(w.text, "GPU 0 GPU-0000-node2 was not in the first sample") != NULL ||
	      strstr(err.msg, "GPU 0 GPU-0000-node2 was not in the first sample") != NULL);
	free(text);
}

/* `nodes` nodes of 4 GPUs by index alone, sweeps 0.25 s apart, the
 * second node's rows `lag_ms` after the first's. */
static char *
merged_by_index(int nodes, int sweeps, int lag_ms)
{
	size_t cap = 8 * (size_t)sweeps * 48 + 64, used = 0;
	char *s = malloc(cap);
	used += (size_t)snprintf(s, cap, "timestamp, index, power.draw [W]\n");
	for (int k = 0; k < sweeps; k++)
		for (int n = 0; n < nodes; n++)
			for (int g = 0; g < 4; g++) {
				int ms = k * 250 + n * lag_ms;
				used += (size_t)snprintf(s + used, cap - used, "2026/07/18 15:00:%02d.%03d, %d, %.2f\n",
				                         ms / 1000, ms % 1000, g, 100.0 * (g + 1) + 50.0 * n);
			}
	return s;
}

static void
no_uuid(const char *dir)
{
	char *text = merged_by_index(2, 40, 13), *p = path_join(dir, "merged.csv");
	seen s;
	wc_nvsmi_info info;
	test_warnings w;
	wc_error err = { 0, "" };
	fprintf(stderr, "two nodes of 4 GPUs without uuid\n");
	/* the job's 8 GPUs given: refused, saying why */
	CHECK(write_text(p, text) == 0);
	wc_telemetry_options opt = WC_TELEMETRY_OPTIONS_INIT;
	opt.n_gpus = 8;
	memset(&s, 0, sizeof s);
	CHECK_INT(wc_nvsmi_read(p, &opt, keep, &s, &info, &err), WC_EPARSE);
	CHECK_CONTAINS(err.msg, "merged.csv:2:2: the first sample holds 4 GPUs, expected 8: GPU 0 again at line 6, "
	                        "0.013 s on: nodes merged without uuid repeat the indices; add uuid to --query-gpu "
	                        "on every node");
	CHECK(strlen(err.msg) < 256);
	/* no count given: read as 4 GPUs, with a warning */
	CHECK_INT(read_log(dir, text, &s, &info, &w, &err), WC_OK);
	CHECK_INT(info.n_gpus, 4);
	CHECK_CONTAINS(w.text, "merged.csv:2: GPU 0 again at line 6, 0.013 s on, within one sweep: nodes merged "
	                       "without uuid?");
	free(text);
	/* both nodes' rows at one time: each a bad line saying so */
	text = merged_by_index(2, 40, 0);
	read_log(dir, text, &s, &info, &w, &err);
	CHECK_CONTAINS(w.text, "merged.csv:6: GPU 0 again at the time of its row at line 2, with another reading; "
	                       "sample dropped (nodes merged without uuid? add uuid to --query-gpu)");
	/* one node's log by index: no such word */
	free(text);
	text = merged_by_index(1, 40, 0);
	CHECK_INT(read_log(dir, text, &s, &info, &w, &err), WC_OK);
	CHECK(strstr(w.text, "nodes merged") == NULL);
	free(text);
	free(p);
}

int
main(void)
{
	char *dir = test_tmpdir("nvsmi_nodes");
	two_nodes(dir, 100.0);
	two_nodes(dir, 0.0);
	drifting_nodes(dir);
	late_node(dir);
	no_uuid(dir);
	free(dir);
	return check_report("test_nvsmi_nodes");
}
