/*
 * The set of GPUs of a keyed nvidia-smi log (docs/formats/telemetry.md,
 * "`power.csv`: nvidia-smi"), fixed when the first sample closes
 * (nvsmi_sweep.c calls wc__nv_fix_set), and what is said when it cannot
 * be:
 *
 * - with a uuid column and the GPU count given (finetune.gpus, tp,
 *   --gpus), the set is learned from the uuids seen: samples holding
 *   fewer GPUs than the count are skipped until one holds them all, and
 *   the rows skipped are said in one warning. The GPUs named by gpu_uuids
 *   are skipped for by the same rule (wc__nv_skip_leading): naming them,
 *   the remedy the count's refusal gives, made each such sample a bad
 *   line and refused the merge that the count read. The nodes of a multi-node
 *   job merged into one log (docs/finetune.md, "Limits") never start
 *   logging at the same instant; fixing the set from the first sample
 *   refused every merge whose second logger started a sampling interval
 *   or more after the first ("the first sample holds 8 GPUs, expected
 *   16"). A log in which no sample ever holds them all is refused at its
 *   end, naming the remedy;
 * - without a uuid column the first sample fixes the set, and a count it
 *   misses refuses the log, naming an index that repeats (nodes merged
 *   without uuid) where one does: at the log's end, unless a second log
 *   joined to the first (a header repeated, the time running back) is
 *   refused first, as the truer cause;
 * - without a count, the first sample fixes the set; rows of other GPUs
 *   are bad lines, and when they are what refuses the log the refusal says
 *   so and names the remedy (wc__nv_name_late_gpus);
 * - with a uuid column, samples lacking the same GPU are held until a
 *   whole one comes (then each is a bad line, a row lost); at the end of
 *   the log they are its tail, the GPUs of a node whose logger stopped
 *   first, dropped in one warning (docs/formats/telemetry.md, "Incomplete
 *   samples" in "`power.csv`: nvidia-smi").
 */
#include "nvsmi_internal.h"

#include <stdio.h>
#include <string.h>

/* A log keyed by index alone whose first sample closes on GPU `slot`
 * again in `row`: the nodes of a multi-node job merged into one log
 * number their GPUs alike, and without uuid a second node's rows are the
 * first's again (docs/finetune.md, "Limits"). 2 when the row comes within
 * WC_NVSMI_SWEEP_TOL_S of the GPU's own (a sweep's spread, not a sampling
 * interval: another node's row), 1 later, 0 for another log; the fact in
 * `buf`. */
static int
index_repeat(const nv_reader *rd, size_t line, const nv_row *row, int slot, char *buf, size_t cap)
{
	buf[0] = '\0';
	if (!row || !row->ok || slot < 0 || rd->mode != NV_KEY_INDEX || rd->col_uuid >= 0 || rd->selecting)
		return 0;
	double dt = row->t - rd->times[slot];
	snprintf(buf, cap, "GPU %d again at line %zu, %.3f s on", rd->info->index[slot], line, dt);
	return dt < WC_NVSMI_SWEEP_TOL_S ? 2 : 1;
}

/* The column the GPUs are told apart by, 1-based, for file:line:column
 * (docs/cli.md): the uuid or the index the log is keyed by; a log keyed
 * by position has none, and its rows start at column 1. */
static int
key_column(const nv_reader *rd)
{
	int c = rd->mode == NV_KEY_UUID ? rd->col_uuid : rd->mode == NV_KEY_INDEX ? rd->col_index : -1;
	return c >= 0 ? c + 1 : 1;
}

/* The remedy where a log's uuids cannot give the run's GPUs by themselves;
 * where they were named but the uuid column is empty (read by index,
 * nvsmi_csv.c), naming them again cannot help. */
#define NV_NAME_GPUS "name the run's GPUs: gpu_uuids in wattcast-run.json, server.active_gpu_uuids in manifest.json"
#define NV_FILL_UUIDS "the uuid column is empty, so gpu_uuids cannot pick the run's GPUs out: add uuid to --query-gpu"

/* A GPU of gpu_uuids in no row of the log: one fact, not a bad line a
 * sample (and allowing more bad lines cannot help). Unless the log's bad
 * lines are over their share, its uuid cells filled: then its rows may
 * well be the GPU's, read as no row (a decimal comma in every power
 * cell: "expected 10 fields, found 11"), and the bad-line refusal after
 * the log's end is the truer cause (docs/formats/telemetry.md, "Bad
 * lines"); the GPU was blamed. */
int
wc__nv_unseen_selected(const nv_reader *rd)
{
	const double share = rd->opt ? rd->opt->max_bad_fraction : WC_TELEMETRY_MAX_BAD;
	const int bad_over = wc_telemetry_bad_over(wc__bad_lines_counted(&rd->bad), rd->info->data_lines - rd->other_lines,
	                                           share);
	if (rd->selecting && rd->uuids_named == 0 && rd->uuids_blank > 0)
		/* read by index where the log has an index column (nvsmi_csv.c) */
		return wc_error_set_path(rd->err, WC_EPARSE, rd->path, ":%zu: the uuid column is empty on every line and "
		                         "there is no index column, so the run's %d GPUs (gpu_uuids) cannot be told "
		                         "apart: add uuid (or index) to --query-gpu", rd->uuids_blank_line, rd->n_gpus);
	for (int g = 0; rd->selecting && g < rd->n_gpus; g++)
		if (!(rd->seen >> g & 1) && rd->uuids_empty > 0)
			/* Some uuid cells empty: those rows may well be this GPU's,
			 * which "holds other GPUs only" denied
			 * (docs/formats/telemetry.md, "Empty uuid column"). */
			return wc_error_set_path(rd->err, WC_EPARSE, rd->path, ": %s%s of the run's %d (gpu_uuids) is in no "
			                         "row with a uuid, and %zu rows have an empty uuid cell (the first at line "
			                         "%zu): its rows lack uuids? write uuid on every row",
			                         wc_telemetry_gpu_word(rd->info->uuid[g]), rd->info->uuid[g],
			                         rd->n_gpus, rd->uuids_empty, rd->uuids_empty_line);
		else if (!(rd->seen >> g & 1) && !bad_over)
			return wc_error_set_path(rd->err, WC_EPARSE, rd->path, ": %s%s of the run's %d (gpu_uuids) is in no "
			                         "row of the log: it holds other GPUs only (one GPU's log of a "
			                         "multi-GPU run?)", wc_telemetry_gpu_word(rd->info->uuid[g]), rd->info->uuid[g],
			                         rd->n_gpus);
	return WC_OK;
}

int
wc__nv_skip_leading(nv_reader *rd, size_t line, int want)
{
	/* The same rule whether the GPUs are counted or named: naming them
	 * (the remedy the count's refusal gives) made each skipped sample a
	 * bad line and refused a merge the count read. */
	int before_whole = rd->selecting ? !rd->ranked : !rd->frozen && rd->n_gpus <= want;
	if (want <= 0 || rd->col_uuid < 0 || !before_whole || rd->rows >= want)
		return 0;
	if (rd->lead_samples++ == 0) {
		rd->lead_line = rd->first_line;
		rd->lead_gpus = rd->rows;
		rd->lead_t = rd->t;
	}
	rd->lead_rows += (size_t)rd->rows;
	rd->info->dropped_samples++;
	if (line > 0)
		return NV_SET_PENDING;
	int rc = wc__nv_unseen_selected(rd);
	if (rc != WC_OK)
		return rc;
	return wc_error_set_path(rd->err, WC_EPARSE, rd->path, ":%zu:%d: the first sample holds %d GPU%s, expected %d, and "
	                         "no later one holds %d (%s%d: a node's rows missing? %s)", rd->lead_line,
	                         /* the GPUs counted are the uuids' unless that column is empty */
	                         rd->uuid_empty ? key_column(rd) : rd->col_uuid + 1,
	                         rd->lead_gpus, rd->lead_gpus == 1 ? "" : "s", want, want,
	                         rd->selecting ? "gpu_uuids name " : rd->uuid_empty ? "the log's indices name "
	                         : "the log's uuids name ", rd->n_gpus,
	                         rd->selecting ? "each has rows, never all in one sweep"
	                         : rd->uuid_empty ? NV_FILL_UUIDS : NV_NAME_GPUS);
}

void
wc__nv_say_lead(const nv_reader *rd)
{
	if (rd->lead_samples > 0)
		wc__warn(rd->opt, rd->path, ":%zu: the first %zu rows (%zu sweeps from line %zu, %.3f s; the first holds %d "
		         "of the %d GPUs: a node's logger started later?) lack some GPUs; skipped, samples read from here",
		         rd->first_line, rd->lead_rows, rd->lead_samples, rd->lead_line, rd->t - rd->lead_t,
		         rd->lead_gpus, rd->n_gpus);
}

int
wc__nv_fix_set(nv_reader *rd, size_t line, const nv_row *row, int slot)
{
	int want = rd->opt->n_gpus;
	char fact[96], hint[224] = "";
	int merged = index_repeat(rd, line, row, slot, fact, sizeof fact);
	int lead = wc__nv_skip_leading(rd, line, want);
	if (lead != 0)
		return lead;
	if (want > 0 && rd->n_gpus > want)
		/* gpu_uuids selects by the uuid column: without one it
		 * cannot, and pointing to it sent users in circles */
		snprintf(hint, sizeof hint, "%s", rd->uuid_empty ? " (" NV_FILL_UUIDS ")"
		         : rd->col_uuid >= 0 ? " (" NV_NAME_GPUS ")"
		         : " (gpu_uuids would name the run's GPUs, but this log has no uuid column: "
		           "add uuid to nvidia-smi --query-gpu)");
	else if (merged)
		/* "expected 16" alone left the cause to guess */
		snprintf(hint, sizeof hint, merged == 2 ? ": %s: nodes merged without uuid repeat the indices; add "
		         "uuid to --query-gpu on every node" : ": %s (nodes merged without uuid? add uuid to "
		         "--query-gpu on every node)", fact);
	if (want > 0 && rd->n_gpus != want) {
		int rc = wc_error_set_path(rd->err, WC_EPARSE, rd->path, ":%zu:%d: the first sample holds %d GPU%s, "
		                           "expected %d%s", rd->first_line, key_column(rd), rd->n_gpus,
		                           rd->n_gpus == 1 ? "" : "s", want, hint);
		if (line == 0)
			return rc;
		/* Said at the end (wc__nv_finish) unless a second log joined to
		 * the first shows first: one GPU's log alone holds 1 GPU, and
		 * `cat g0.csv g1.csv` of logs keyed by index was refused at line 2
		 * for "GPU 0 again" (docs/formats/telemetry.md, "Samples"). */
		rd->refusal_held = rc;
		return NV_SET_PENDING;
	}
	if (merged == 2)
		/* No count to hold the log to: read, but each node's rows
		 * become samples of the same GPUs, its power one node's. */
		wc__warn(rd->opt, rd->path, ":%zu: %s, within one sweep: nodes merged without uuid? Each node's rows are "
		         "then read as samples of the same %d GPUs; add uuid to --query-gpu on every node",
		         rd->first_line, fact, rd->n_gpus);
	rd->frozen = 1;
	return WC_OK;
}

void
wc__nv_note_late(nv_reader *rd, size_t line, int index, const char *uuid, size_t uuid_len)
{
	if (rd->col_uuid < 0 || rd->late_rows++ > 0)
		return;
	rd->late_line = line;
	if (index >= 0)
		snprintf(rd->late_gpu, sizeof rd->late_gpu, "GPU %d %.*s", index, (int)(uuid_len < 48 ? uuid_len : 48),
		         uuid);
	else
		snprintf(rd->late_gpu, sizeof rd->late_gpu, "%s%.*s", wc_telemetry_gpu_word(uuid),
		         (int)(uuid_len < 48 ? uuid_len : 48), uuid);
}

int
wc__nv_name_late_gpus(const nv_reader *rd)
{
	if (!rd->err || rd->late_rows == 0 || 2 * rd->late_rows <= rd->bad.bad)
		return 0;
	/* the GPU named is an example, and gives way before the run's
	 * folder (docs/architecture.md, "Errors") */
	wc_error_set_path(rd->err, WC_EPARSE, rd->path, ":%zu: %zu of %zu data lines are of GPUs the first sample lacks "
	                  "(" WC_QUOTE_OPEN "%s" WC_QUOTE_CLOSE " here: a node's logger started later?); give the job's GPU count (finetune.gpus, tp, "
	                  "--gpus) or name its GPUs (gpu_uuids)", rd->late_line, rd->late_rows, rd->info->data_lines,
	                  rd->late_gpu);
	return 1;
}

void
wc__nv_flush_missing(nv_reader *rd)
{
	char label[64];
	size_t held = rd->n_tail < NV_TAIL_HELD ? rd->n_tail : NV_TAIL_HELD;
	wc__nv_gpu_label(rd, rd->tail_slot, label, sizeof label);
	/* A row lost (docs/formats/telemetry.md, "Incomplete samples"): a bad
	 * line, so that a log losing many is still refused. */
	for (size_t i = 0; i < held; i++)
		wc__bad_line(&rd->bad, rd->tail[i].line, "%s is missing from the sample at line %zu; sample dropped",
		             label, rd->tail[i].first);
	if (rd->n_tail > held) {
		size_t more = rd->n_tail - held;
		wc__bad_line(&rd->bad, rd->tail_last, "%s is missing from %zu more samples to here; dropped", label,
		             more);
		rd->bad.bad += more - 1; /* one bad line a sample, as when said one by one */
	}
	rd->n_tail = 0;
}

void
wc__nv_hold_missing(nv_reader *rd, size_t line, int slot)
{
	if (rd->n_tail > 0 && rd->tail_slot != slot)
		wc__nv_flush_missing(rd);
	rd->tail_slot = slot;
	if (rd->n_tail < NV_TAIL_HELD) {
		rd->tail[rd->n_tail].line = line;
		rd->tail[rd->n_tail].first = rd->first_line;
	}
	rd->n_tail++;
	rd->tail_last = line;
	rd->info->dropped_samples++;
}

/* The nodes of a merged log stop logging at different instants, as they
 * start: the last sweeps lack the GPUs of the node that stopped first.
 * Each was a bad line (20 of them for a logger stopped 2 s earlier at
 * 0.1 s), which a short log's 1 % did not allow. */
void
wc__nv_tail_missing(nv_reader *rd)
{
	if (rd->n_tail == 0)
		return;
	char label[64];
	wc__nv_gpu_label(rd, rd->tail_slot, label, sizeof label);
	wc__warn(rd->opt, rd->path, ":%zu: the log's last %zu sample%s lack %s (its logger stopped before the "
	         "others'?); dropped", rd->tail[0].first, rd->n_tail, rd->n_tail == 1 ? "" : "s", label);
	rd->n_tail = 0;
}
