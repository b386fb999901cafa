/*
 * A keyed row's time against the open sweep of an nvidia-smi log
 * (docs/formats/telemetry.md, "Samples"): rows of one sweep come in time
 * order, a GPU at a time. Per-GPU loggers merged by time interleave a
 * sweep's rows in another GPU order, which is still one sweep; per-GPU
 * logs joined one after another run the time backward where the second
 * begins, which no sweep does. Called by take_keyed (nvsmi_sweep.c);
 * wc__nv_joined_logs, for every log, by wc__nv_take_row.
 */
#include "nvsmi_internal.h"

#include <math.h>

/* A row of a GPU that comes before the sample's last in the sweep order
 * but less than half a sampling interval (before two samples are
 * delivered: WC_NVSMI_SWEEP_TOL_S) after the sample's last row is of the
 * same sweep in another order: per-GPU loggers merged by time interleave
 * their rows so. Closing the sample there said a GPU whose row is the very
 * next line was missing and paired the next samples' rows across sweeps;
 * a lost row leaves the next sweep's a sampling interval on. Counted, and
 * said once at the end (wc__nv_finish). */
int
wc__nv_order_changed(nv_reader *rd, const nv_row *row, int slot, size_t line_no)
{
	double after = row->t - rd->t_max, within = rd->last_gap > 0 ? 0.5 * rd->last_gap : WC_NVSMI_SWEEP_TOL_S;
	if (!row->ok || !(after >= 0 && after < within))
		return 0;
	if (rd->flipped)
		return 1; /* this sweep is counted already: the warning counts sweeps */
	rd->flipped = 1;
	if (rd->order_flips++ == 0) {
		rd->flip_line = line_no;
		rd->flip_after = after;
		rd->flip_gpu = slot;
		rd->flip_before = rd->last_slot;
	}
	return 1;
}

/* A local clock's daylight-saving hour back: no time running backward. */
static int
dst_hour(const nv_reader *rd, double back)
{
	return rd->stamp_kind == NV_STAMP_LOCAL && fabs(back - 3600.0) <= 60.0;
}

/* A row of a GPU the open sample lacks, earlier than a row of that
 * sample by more than a sweep spreads (WC_NVSMI_SWEEP_TOL_S): the time
 * runs backward within what would be one sweep. Per-GPU logs joined one
 * after another (`cat g0.csv g1.csv`) do that where the second begins:
 * taken in, the sweep paired GPU 0's last row with GPU 1's first, 67 s
 * earlier, and the log was read as that one sample (0 J), the rest
 * dropped. Refused, naming the line and the remedy
 * (docs/formats/telemetry.md, "Samples"), by the rule of every log
 * (wc__nv_runs_back): more than a second back (WC_NVSMI_JOIN_BACK_S), or
 * past a header repeated. A second or less (1.000 s included, as the
 * message says), without a header between, is a clock stepped back (NTP
 * steps under a second) between two rows of a sweep:
 * a bad line that drops its sample (NV_ROW_BAD), as the same step between
 * two sweeps is; it refused the real TP 2 run stepped 0.2 s back as
 * "per-GPU logs joined". A local clock's daylight-saving hour within a
 * sweep is no such thing: the sample is taken as before, and
 * wc__nv_deliver takes the hour out. */
int
wc__nv_time_backward(nv_reader *rd, const nv_row *row, int slot, size_t line_no)
{
	double back = rd->t_max - row->t;
	int latest = slot;
	if (dst_hour(rd, back)) {
		wc__nv_put_value(rd, slot, row->t, row->watts);
		rd->last_slot = slot;
		return WC_OK;
	}
	for (int g = 0; g < rd->n_gpus; g++)
		if ((rd->mask >> g & 1) && rd->times[g] == rd->t_max)
			latest = g;
	char label[64], other[64];
	wc__nv_gpu_label(rd, slot, label, sizeof label);
	wc__nv_gpu_label(rd, latest, other, sizeof other);
	if (!wc__nv_runs_back(rd, row)) {
		wc__bad_cell(&rd->bad, line_no, rd->col_time + 1, "%s's row is %.3f s before %s's of the sweep from "
		             "line %zu: the clock stepped back (%.0f s or less: no second log); sample dropped",
		             label, back, other, rd->first_line, WC_NVSMI_JOIN_BACK_S);
		return NV_ROW_BAD;
	}
	return wc_error_set_path(rd->err, WC_EPARSE, rd->path, ":%zu:%d: %s's row is %.3f s before %s's of the "
	                         "sweep from line %zu: time runs backward (per-GPU logs joined one after another?); "
	                         "merge them by time", line_no, rd->col_time + 1, label, back, other, rd->first_line);
}

/* Per-GPU logs joined one after another (`cat g0.csv g1.csv`, or with
 * `tail -n +2` so the header is not repeated) run the time back where the
 * second log begins: its first row is a minute or more before the last
 * row of the first. A log without index or uuid was refused for the rows
 * lying evenly (one GPU's rows alone are even), and without a count its
 * second log was read as hundreds of rows "not later than the one
 * before", or, with an index, of GPUs "a node's logger started later":
 * neither the cause. One rule, whatever the columns, the count and
 * whether a header repeats: a row earlier than the latest row above it by
 * more than a sweep spreads (WC_NVSMI_SWEEP_TOL_S) is of no sweep and no
 * later sample; the log is refused naming that line and the remedy
 * (docs/formats/telemetry.md, "Samples"). A header repeated by
 * nvidia-smi restarted appending to its log is followed by later rows,
 * and a local clock's daylight-saving hour back is let through (the
 * latest time follows it), as wc__nv_time_backward and wc__nv_deliver
 * take it. */
int
wc__nv_runs_back(const nv_reader *rd, const nv_row *row)
{
	double back = rd->t_seen - row->t;
	/* as wc__nv_joined_logs judges it: past a repeated header a sweep's
	 * spread, else more than a clock stepped back (WC_NVSMI_JOIN_BACK_S) */
	return row->ok && !isnan(row->t) && rd->seen_any && back > WC_NVSMI_SWEEP_TOL_S && !dst_hour(rd, back) &&
	       (rd->reheader_line > rd->t_seen_line || back > WC_NVSMI_JOIN_BACK_S);
}

int
wc__nv_joined_logs(nv_reader *rd, const nv_row *row, size_t line_no)
{
	if (!row->ok || isnan(row->t))
		return WC_OK;
	size_t header = rd->reheader_line;
	rd->reheader_line = 0;
	double back = rd->t_seen - row->t;
	if (rd->seen_any && back > WC_NVSMI_SWEEP_TOL_S) {
		if (dst_hour(rd, back)) {
			rd->t_seen = row->t;
			rd->t_seen_line = line_no;
			return WC_OK;
		}
		if (header > rd->t_seen_line)
			return wc_error_set_path(rd->err, WC_EPARSE, rd->path, ":%zu:%d: the time runs back %.3f s here "
			                         "from before the header repeated at line %zu: logs joined one after "
			                         "another (per-GPU logs?); merge them by time", line_no,
			                         rd->col_time + 1, back, header);
		/* without a header between, a clock stepped back (NTP steps
		 * under a second) is a bad line of the sweep rules, as before;
		 * a second log joined begins where the first began, far back */
		if (back <= WC_NVSMI_JOIN_BACK_S)
			return WC_OK;
		return wc_error_set_path(rd->err, WC_EPARSE, rd->path, ":%zu:%d: the time runs back %.3f s here from "
		                         "line %zu: logs joined one after another (per-GPU logs?); merge them by time",
		                         line_no, rd->col_time + 1, back, rd->t_seen_line);
	}
	/* a row more than a bridged gap ahead is a far-off time or a pause,
	 * which the reader skips as such (wc__nv_deliver): the rows after it
	 * are measured against the rows before it, as the samples are */
	if (!rd->seen_any || (row->t > rd->t_seen && row->t - rd->t_seen <= WC_TELEMETRY_MAX_GAP_S)) {
		rd->t_seen = row->t;
		rd->t_seen_line = line_no;
	}
	rd->seen_any = 1;
	return WC_OK;
}
