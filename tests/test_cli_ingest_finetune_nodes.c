/*
 * `wattcast ingest` of a fine-tuning run on two nodes of 8 GPUs whose
 * nvidia-smi logs (with `uuid`) are merged by time into one power.csv, as
 * docs/finetune.md "Limits" says. Two hosts' loggers never start at the
 * same instant: node 1's starts `lag` s after node 0's and stops as much
 * later. With finetune.gpus = 16 the GPUs are learned from the uuids, the
 * sweeps read from the first that holds all 16, the rows skipped said in
 * one warning, and the energy per step is the truth's within 0.1 %. It
 * was refused from a lag of one sampling interval on ("the first sample
 * holds 8 GPUs, expected 16", no remedy). The last sweeps, after node 0's
 * logger stopped, lack its GPUs: one warning, no longer a bad line each.
 * Node 1's logger sampling every 120 ms (each nvidia-smi -lms drifts by its
 * own query time) reads as well: each node's sweeps on their own; read as
 * one sample a sweep it lost 199 of 17600 lines and was refused.
 * Where a log must still be
 * refused (no count, or no sweep ever holds the count) the refusal names
 * the remedy (docs/formats/telemetry.md, "`power.csv`: nvidia-smi").
 */
#include "data/data.h"
#include "tests/support/support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define STEPS 50
#define NODES 2
#define GPN 8
/* per GPU and step: 1.6 s at 550 W, 0.4 s at 350 W */
#define TRUE_J_STEP (NODES * GPN * (1.6 * 550.0 + 0.4 * 350.0))

static char *dir;
static double t_start; /* epoch of node 0's first sample */

/* Per-GPU power at s seconds: idle 10 s, STEPS steps of 2 s, idle 10 s. */
static double
power_at(double s)
{
	if (s < 10.0 || s >= 10.0 + 2.0 * STEPS)
		return 90.0;
	return fmod(s - 10.0, 2.0) < 1.6 ? 550.0 : 350.0;
}

/* Rows of one node every 0.1 s, GPU g 1 ms after g - 1, node n's logger
 * started n * lag_ms after node 0's; `nodes` of them, merged by time as
 * `sort -s -t, -k1,1` does (node 0's rows first at one time). */
typedef struct {
	long long ms;
	int node, gpu;
} row;

static int
by_time(const void *a, const void *b)
{
	const row *x = a, *y = b;
	if (x->ms != y->ms)
		return x->ms < y->ms ? -1 : 1;
	return x->node != y->node ? x->node - y->node : x->gpu - y->gpu;
}

/* Node 1's logger samples every `period_ms` (node 0's every 100 ms):
 * each node's nvidia-smi -lms drifts by its own query time. */
static void
write_power(const char *run, int nodes, long long lag_ms, long long period_ms)
{
	char *path = path_join(run, "power.csv");
	FILE *f = fopen(path, "w");
	long long span_ms = (long long)((20.0 + 2.0 * STEPS) * 1000);
	size_t n = 0;
	row *rows = malloc(sizeof *rows * (size_t)(nodes * GPN) * (size_t)(span_ms / 100));
	for (int nd = 0; nd < nodes; nd++)
		for (long long k = 0; k * (nd ? period_ms : 100) < span_ms; k++)
			for (int g = 0; g < GPN; g++)
				rows[n++] = (row){ k * (nd ? period_ms : 100) + nd * lag_ms + g, nd, g };
	qsort(rows, n, sizeof *rows, by_time);
	fprintf(f, "timestamp, index, uuid, power.draw [W]\n");
	for (size_t i = 0; i < n; i++) {
		long long ms = rows[i].ms;
		fprintf(f, "2026/07/18 15:%02lld:%02lld.%03lld, %d, GPU-%08d-aaaa-bbbb-cccc-%012d, %.2f W\n", ms / 60000,
		        ms / 1000 % 60, ms % 1000, rows[i].gpu, rows[i].node, rows[i].gpu, power_at(ms / 1000.0));
	}
	free(rows);
	fclose(f);
	free(path);
}

/* The training steps by node 0's clock (the nodes' clocks agree). */
static void
write_steps(const char *run)
{
	char *path = path_join(run, "steps.csv");
	FILE *f = fopen(path, "w");
	fprintf(f, "step,epoch_s,event\n0,%.3f,start\n", t_start + 10.0);
	for (int k = 1; k <= STEPS; k++)
		fprintf(f, "%d,%.3f,step\n", k, t_start + 10.0 + 2.0 * k);
	fclose(f);
	free(path);
}

/* A run folder of `nodes` nodes lagging `lag_ms`; finetune.gpus the
 * job's 16 when `with_gpus`. */
static char *
run_folder(const char *id, int nodes, long long lag_ms, long long period_ms, int with_gpus)
{
	char *run = path_join(dir, id), *m = path_join(run, "wattcast-run.json"), text[1024];
	mkdir(run, 0755);
	write_power(run, nodes, lag_ms, period_ms);
	write_steps(run);
	snprintf(text, sizeof text, "{\"schema\": \"wattcast.run/3\", \"platform\": \"H100\", \"model\": "
	         "\"Llama-3.1-70B\", \"utc_offset_s\": 0, \"finetune\": {\"method\": \"lora\", \"micro_batch\": 1, "
	         "\"seq_len\": 2048, \"grad_accum\": 8,%s \"lora_rank\": 16, \"checkpointing\": false}}\n",
	         with_gpus ? " \"gpus\": 16," : "");
	CHECK_INT(write_text(m, text), 0);
	free(m);
	return run;
}

/* Ingest `run` into `out`: the exit status, stderr in *err (caller frees). */
static int
ingest(const char *run, const char *out, char **err)
{
	const char *argv[] = { "wattcast", "ingest", run, "-o", out, NULL };
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	int status = r.status;
	*err = strdup(r.err ? r.err : "");
	run_result_free(&r);
	return status;
}

static void
lagging_node(const char *id, long long lag_ms, long long period_ms, const char *skipped, const char *tail)
{
	char *run = run_folder(id, NODES, lag_ms, period_ms, 1), *out = path_join(dir, "nodes.csv"), *err = NULL;
	fprintf(stderr, "node 1 %lld ms after node 0, sampling every %lld ms\n", lag_ms, period_ms);
	CHECK_INT(ingest(run, out, &err), 0);
	CHECK_CONTAINS(err, skipped);
	/* node 0 stops first: its GPUs lack from the last sweeps, one warning
	 * (each was a bad line) */
	CHECK_CONTAINS(err, tail);
	CHECK(strstr(err, "is missing from the sample") == NULL);
	wc_ft_table *t = NULL;
	wc_error e;
	CHECK_INT(wc_ft_table_read(out, &t, &e), WC_OK);
	CHECK(t && t->n_runs == 1);
	if (t && t->n_runs == 1) {
		CHECK_INT(t->runs[0].config.gpus, 16);
		CHECK_NEAR(t->runs[0].energy_per_step_j, TRUE_J_STEP, 0.001 * TRUE_J_STEP);
	}
	wc_ft_table_free(t);
	free(err);
	free(out);
	free(run);
}

/* Where the log must still be refused, the refusal names gpu_uuids. */
static void
refusals(void)
{
	char *out = path_join(dir, "refused.csv"), *err = NULL;
	/* node 1's rows missing, 16 GPUs stated: no sweep ever holds them */
	char *a = run_folder("one-node", 1, 0, 100, 1);
	CHECK_INT(ingest(a, out, &err), 1);
	CHECK_CONTAINS(err, "power.csv:2:3: the first sample holds 8 GPUs, expected 16, and no later one holds 16 (the "
	                    "log's uuids name 8: a node's rows missing? name the run's GPUs: gpu_uuids in "
	                    "wattcast-run.json");
	free(err);
	/* no count: the first sample's 8 GPUs, node 1's rows bad lines */
	char *b = run_folder("no-count", NODES, 370, 100, 0);
	CHECK_INT(ingest(b, out, &err), 1);
	CHECK_CONTAINS(err, "power.csv:34: 9600 of 19200 data lines are of GPUs the first sample lacks (GPU 0 "
	                    "GPU-00000001-aaaa-bbbb-cccc-000000000000 here: a node's logger started later?); give the "
	                    "job's GPU count (finetune.gpus, tp, --gpus) or name its GPUs (gpu_uuids)");
	free(err);
	/* The same in a folder of runs, under a long name: the run's folder
	 * stays in the path, the uuid giving way ("runs2026.../power.csv"
	 * named no run: every run holds a power.csv), and the last line
	 * names the run (docs/architecture.md, "Errors") */
	char *parent = path_join(dir, "runs2026");
	mkdir(parent, 0755);
	char *c = run_folder("runs2026/llama-3.1-8b-lora-r16-8xH100-b4-seq2048-run5", NODES, 370, 100, 0);
	CHECK_INT(ingest(parent, out, &err), 1);
	CHECK_CONTAINS(err, ".../llama-3.1-8b-lora-r16-8xH100-b4-seq2048-run5/power.csv:34: 9600 of 19200 data lines "
	                    "are of GPUs the first sample lacks (GPU 0 G");
	CHECK_CONTAINS(err, "... here: a node's logger started later?); give the job's GPU count (finetune.gpus, tp, "
	                    "--gpus) or name its GPUs (gpu_uuids)\n");
	CHECK_CONTAINS(err, "runs2026/llama-3.1-8b-lora-r16-8xH100-b4-seq2048-run5: 1 run refused; nothing written\n");
	free(err);
	free(c);
	free(parent);
	free(a);
	free(b);
	free(out);
}

int
main(void)
{
	dir = test_tmpdir("cli_ingest_finetune_nodes");
	CHECK_INT(wc_nvsmi_parse_time("2026/07/18 15:00:00.000", 23, &t_start), 0);
	lagging_node("lag-370ms", 370, 100, "power.csv:26: the first 24 rows (3 sweeps from line 2",
	             /* node 1's 4 sweeps after node 0's last (0.07 to 0.37 s on) */
	             "power.csv:19170: the log's last 4 samples lack GPU 0 GPU-00000000-aaaa-bbbb-cccc-000000000000 "
	             "(its logger stopped before the others'?); dropped");
	lagging_node("lag-2s", 2000, 100, "power.csv:162: the first 160 rows (20 sweeps from line 2",
	             "power.csv:19042: the log's last 20 samples lack GPU 0");
	/* node 1's logger at 120 ms: two node-0 sweeps in a row were a sample
	 * lacking node 1's GPUs, a bad line (1 in 6 samples, refused) */
	lagging_node("drift-120ms", 370, 120, "power.csv:26: the first 24 rows (3 sweeps from line 2",
	             "power.csv:17578: the log's last 3 samples lack GPU 0");
	refusals();
	free(dir);
	return check_report("test_cli_ingest_finetune_nodes");
}
