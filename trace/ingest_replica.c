/*
 * Data-parallel replicas: a run whose GPUs hold several serving engines,
 * each a tensor-parallel replica of its own (vLLM's `engine` label,
 * SGLang's `dp_rank`). The law models one replica (docs/inference-law.md),
 * so a run that states its replicas (wattcast-run.json's `data_parallel`,
 * `tp` then per replica) is written one row per replica, each with its
 * GPUs' power and its engine's requests; one that does not is read as one
 * replica over all its GPUs, and said so when its engine log names several
 * engines (docs/formats/telemetry.md, "Data-parallel engines").
 */
#include "ingest_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
wc__ingest_run_gpus(const run_ctx *rc)
{
	if (rc->m.tp <= 0)
		return 0;
	return rc->m.data_parallel > 1 ? rc->m.tp * rc->m.data_parallel : rc->m.tp;
}

int
wc__ingest_check_run_gpus(const run_ctx *rc, wc_error *err)
{
	const int n = rc->pt->info.n_gpus, want = wc__ingest_run_gpus(rc);
	char dp[48] = "";
	if (n == want)
		return WC_OK;
	if (rc->replica)
		snprintf(dp, sizeof dp, " x data_parallel %d (%d GPUs)", rc->m.data_parallel, want);
	return wc_error_set_path(err, WC_EINVAL, rc->power_path, ": holds %d GPU%s, but the run has tp %d%s", n,
	                         n == 1 ? "" : "s", rc->m.tp, dp);
}

int
wc__ingest_check_uuids(const run_ctx *rc, int manifests, wc_error *err)
{
	const int n = rc->m.n_gpu_uuids, tp = rc->m.tp, dp = rc->m.data_parallel, want = wc__ingest_run_gpus(rc);
	/* as many as manifest.json's: the same count whichever named them */
	const char *from = manifests && manifests == n ? "manifest.json: /server/active_gpu_uuids"
	                                               : "wattcast-run.json: /gpu_uuids";
	if (n == 0 || want == 0 || n == want)
		return WC_OK;
	if (dp > 1)
		return wc_error_set_path(err, WC_EINVAL, rc->dir, "/%s names %d GPU%s, but the run has tp %d x "
		                         "data_parallel %d (%d GPUs)", from, n, n == 1 ? "" : "s", tp, dp, want);
	if (n % tp == 0)
		return wc_error_set_path(err, WC_EINVAL, rc->dir, "/%s names %d GPUs, but the run has tp %d; if "
		                         "they are data-parallel replicas, state \"data_parallel\": %d in "
		                         "wattcast-run.json", from, n, tp, n / tp);
	return wc_error_set_path(err, WC_EINVAL, rc->dir, "/%s names %d GPU%s, but the run has tp %d", from, n,
	                         n == 1 ? "" : "s", tp);
}

int
wc__ingest_replica_setup(run_ctx *rc, const wc_ingest_options *opt, wc_error *err)
{
	const int d = rc->replica - 1, n = rc->m.data_parallel;
	if (rc->m.tp <= 0)
		return wc_error_set_path(err, WC_EINVAL, rc->dir, ": data_parallel %d needs tp, each replica's GPUs, "
		                         "stated with it (wattcast-run.json)", n);
	if (rc->m.tp * n > WC_TELEMETRY_MAX_GPUS)
		return wc_error_set_path(err, WC_EINVAL, rc->dir, ": tp %d x data_parallel %d is over %d GPUs",
		                         rc->m.tp, n, WC_TELEMETRY_MAX_GPUS);
	char tail[24];
	snprintf(tail, sizeof tail, "-replica%d", d);
	size_t keep = wc_utf8_keep(rc->m.run_id, sizeof rc->m.run_id - 1 - strlen(tail));
	rc->m.run_id[keep] = '\0';
	strcat(rc->m.run_id, tail);
	if (rc->req_path[0] && d == 0 && opt->warn) {
		char msg[WC_ERROR_MSG_MAX];
		wc_error_format_path(msg, sizeof msg, rc->req_path, ": not read: a run of %d data-parallel replicas "
		                     "takes each replica's n(t) from its engine's series in engine.csv, and the "
		                     "log does not say which engine served a request", n);
		opt->warn(msg, opt->warn_payload);
	}
	rc->req_path[0] = '\0';
	/* The counts a manifest states are the whole server's: no replica's. */
	rc->m.requests = NAN;
	for (int l = 0; l < rc->m.n_levels; l++)
		rc->m.levels[l].requests = rc->m.levels[l].input_tokens = rc->m.levels[l].output_tokens = NAN;
	return WC_OK;
}

const char *
wc__ingest_replica_whose(const run_ctx *rc, char *buf, size_t cap)
{
	if (cap > 0)
		buf[0] = '\0';
	if (rc->replica && cap > 0)
		snprintf(buf, cap, " replica %d:", rc->replica - 1);
	return buf;
}

/* The log's GPUs in the order the replicas take them into `slot`: by
 * index, whatever order the uuids were named in; 0 then, else 1 (no
 * index column, or one repeated: nodes of a merged log) with the
 * reader's order, the named uuids' or a sample's rows'. */
static int
replica_order(const wc_power_trace *pt, int *slot)
{
	const int n = pt->info.n_gpus;
	int by_index = 1;
	for (int g = 0; g < n; g++) {
		slot[g] = g;
		by_index &= pt->info.index[g] >= 0;
		for (int h = 0; h < g; h++)
			by_index &= pt->info.index[h] != pt->info.index[g];
	}
	for (int g = 1; g < n && by_index; g++) /* insertion: a handful of GPUs */
		for (int h = g; h > 0 && pt->info.index[slot[h - 1]] > pt->info.index[slot[h]]; h--) {
			int t = slot[h];
			slot[h] = slot[h - 1];
			slot[h - 1] = t;
		}
	return !by_index;
}

int
wc__ingest_replica_power(run_ctx *rc, const wc_ingest_options *opt, wc_error *err)
{
	wc_power_trace *pt = rc->pt;
	const int tp = rc->m.tp, first = (rc->replica - 1) * tp;
	int slot[WC_TELEMETRY_MAX_GPUS], keep[WC_TELEMETRY_MAX_GPUS] = { 0 };
	double *power[WC_TELEMETRY_MAX_GPUS];
	int index[WC_TELEMETRY_MAX_GPUS];
	char uuid[WC_TELEMETRY_MAX_GPUS][sizeof pt->info.uuid[0]];
	(void)err;
	/* Engine d of a vLLM data-parallel server runs on the node's GPUs
	 * d x tp to (d + 1) x tp - 1 by index (docs/formats/telemetry.md,
	 * "Data-parallel engines"); a manifest's uuid list is no placement. */
	if (replica_order(pt, slot) && rc->replica == 1 && opt->warn) {
		char msg[WC_ERROR_MSG_MAX];
		wc_error_format_path(msg, sizeof msg, rc->power_path, ": %s, so the data-parallel replicas take its GPUs "
		                     "in the order %s, %d each", pt->info.has_index ? "an index repeats (merged nodes?)"
		                     : "no index column", !strcmp(pt->info.gpu_count_source, "gpu_uuids")
		                     ? "the run names their uuids" : "of a sample's rows", tp);
		opt->warn(msg, opt->warn_payload);
	}
	for (int k = 0; k < tp; k++) {
		const int g = slot[first + k];
		keep[g] = 1;
		power[k] = pt->power[g];
		index[k] = pt->info.index[g];
		memcpy(uuid[k], pt->info.uuid[g], sizeof uuid[k]);
	}
	for (int g = 0; g < pt->info.n_gpus; g++) {
		if (!keep[g])
			free(pt->power[g]);
		pt->power[g] = NULL;
	}
	for (int k = 0; k < tp; k++) {
		pt->power[k] = power[k];
		pt->info.index[k] = index[k];
		memcpy(pt->info.uuid[k], uuid[k], sizeof uuid[k]);
	}
	pt->info.n_gpus = tp;
	for (size_t i = 0; i < pt->n; i++) {
		double sum = 0.0;
		for (int g = 0; g < tp; g++)
			sum += pt->power[g][i];
		pt->group[i] = sum;
	}
	return WC_OK;
}

int
wc__ingest_replica_engines(run_ctx *rc, const wc_ingest_options *opt, wc_error *err)
{
	const int engines = rc->eng ? rc->eng->engines : 0, n = rc->m.data_parallel;
	if (!rc->eng)
		return WC_OK;
	if (rc->replica) {
		char whose[WC__REPLICA_WHOSE];
		/* One engine's running column dropped: the reason, as when the
		 * run is read whole (trace/ingest_files.c), not the count. */
		if (engines < n && rc->eng->running_lacks[0])
			return wc_error_set_path(err, WC_EINVAL, rc->engine_path, ": num_requests_running{%s} has no "
			                         "column while that engine's others do: that replica's running count is "
			                         "unknown (the run states data_parallel %d)", rc->eng->running_lacks, n);
		if (engines != n)
			return wc_error_set_path(err, WC_EINVAL, rc->engine_path, ": its running count names %d "
			                         "data-parallel engine%s (engine or dp_rank labels), but the run states "
			                         "data_parallel %d", engines, engines == 1 ? "" : "s", n);
		if (!rc->eng->col[WC_ENG_RUNNING])
			return wc_error_set_path(err, WC_EINVAL, rc->engine_path, ":%s no running count (engine=\"%d\" "
			                         "or dp_rank=\"%d\")", wc__ingest_replica_whose(rc, whose, sizeof whose),
			                         rc->replica - 1, rc->replica - 1);
		return WC_OK;
	}
	if (engines >= 2 && n != 1 && opt->warn) {
		char msg[WC_ERROR_MSG_MAX];
		const int g = rc->pt->info.n_gpus;
		wc_error_format_path(msg, sizeof msg, rc->engine_path, ": running adds up %d data-parallel engines "
		                     "on %d GPUs, read as one replica of tp %d; if each is a replica, state \"tp\" "
		                     "per replica and \"data_parallel\": %d in wattcast-run.json", engines, g, g,
		                     engines);
		opt->warn(msg, opt->warn_payload);
	}
	return WC_OK;
}
