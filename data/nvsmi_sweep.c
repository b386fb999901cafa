/*
 * nvidia-smi rows into samples (docs/formats/telemetry.md,
 * "`power.csv`: nvidia-smi"): nvidia-smi writes one row per GPU per sweep, one GPU after
 * another in the same order every sweep, so the rows of one sweep can lie
 * up to a second apart on a busy host. A sweep of a log with an `index` or
 * `uuid` column is therefore delimited by the GPUs, never by time:
 *
 * - a sample holds each GPU once and is closed when a GPU repeats, or
 *   when a GPU comes that is earlier in the sweep order (read off the
 *   first sample delivered) than the last one: the next sweep has begun,
 *   and the rest of this one was lost. Without that, a lost row of GPU 0
 *   would let the next sweep's GPU 0 complete the sample, and every later
 *   sample would pair GPU 1 of one sweep with GPU 0 of the next;
 * - the first sample fixes the set of GPUs (with uuids and a count given,
 *   or gpu_uuids, the first that holds them all: nvsmi_first.c); a later one that lacks a GPU
 *   is dropped, reported as a bad line (so that a log losing many rows is
 *   still refused) unless a bad line next to it explains it;
 * - a bad line keeps its GPU's place: the GPU it names, or, when its index
 *   or uuid cannot be read, the GPU that comes next in the sweep order.
 *   Skipping it instead would do what a lost row does;
 * - a row of a GPU at the time of its row in the sample is no new sweep
 *   (sweeps are a sampling interval apart) and holds no place: with the
 *   same reading it is the line written twice, with another a stray line
 *   that drops the sample;
 * - with gpu_uuids, the samples before the first that holds them all are
 *   skipped in one warning, as with a count given (nvsmi_first.c); a GPU
 *   of gpu_uuids in no row of the log refuses it, naming the GPU, instead
 *   of a bad line a sample;
 * - a row of a GPU the sample lacks, earlier in the sweep order than its
 *   last one but less than half a sampling interval after it, is the GPU
 *   order changed within a sweep (per-GPU loggers merged by time): it joins
 *   the sample, and the change is said once.
 * - a row earlier than a row of the open sample by more than a sweep
 *   spreads is no row of that sweep: by more than a second (or past a
 *   header repeated), per-GPU logs joined one after another, the log is
 *   refused naming the line; by less, a clock stepped back, a bad line
 *   (nvsmi_sweep_time.c).
 *
 * Once the first sample is delivered, a log whose indices repeat under
 * other uuids (nodes merged by time) is read node by node (nvsmi_nodes.c).
 * Logs without either are grouped in nvsmi_sweep_pos.c. The spread of
 * each sweep (its last row's time minus its first's) is reported: the
 * largest, and how many exceed WC_NVSMI_SWEEP_TOL_S.
 */
#include "nvsmi_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int
wc__nv_gpu_index(const nv_reader *rd, int g)
{
	return rd->selecting ? rd->nodes.index1[g] - 1 : rd->info->index[g];
}

/* The whole name, "GPU " included: a uuid names itself ("GPU-e268..."),
 * and "GPU GPU-e268..." said it twice. A log with an index column names
 * its GPUs by index also when gpu_uuids select them (as the index the
 * first rows gave: wc__nv_nodes_hear), the way docs/formats/telemetry.md
 * quotes the messages. */
void
wc__nv_gpu_label(const nv_reader *rd, int g, char *buf, size_t cap)
{
	int repeated = 0, v = wc__nv_gpu_index(rd, g);
	const char *u = rd->info->uuid[g];
	for (int h = 0; h < rd->n_gpus && v >= 0; h++)
		repeated |= h != g && wc__nv_gpu_index(rd, h) == v;
	if (repeated && u[0])
		snprintf(buf, cap, "GPU %d %s", v, u);
	else if (v >= 0)
		snprintf(buf, cap, "GPU %d", v);
	else if (u[0])
		snprintf(buf, cap, "%s%s", wc_telemetry_gpu_word(u), u);
	else
		snprintf(buf, cap, "GPU #%d", g);
}

void
wc__nv_forget_gpus(nv_reader *rd)
{
	rd->n_gpus = 0;
	rd->ranked = 0;
	for (int i = 0; i < NV_MAX_INDEX; i++)
		rd->slot_of_index[i] = -1;
}

int
wc__nv_deliver(nv_reader *rd)
{
	rd->t += rd->clock_shift;
	/* nvidia-smi writes the host's local time: a daylight-saving change
	 * moves it by an hour between two samples a sampling interval apart.
	 * An hour's jump (within a minute) after which the sampling goes on
	 * at its cadence (within 5 intervals, or 2 s) is that, not an hour
	 * lost or a log appended out of order: it is taken out of every later
	 * sample, said once (docs/formats/telemetry.md). It refused the run,
	 * every later line "3600 s after the one before". A time carrying its
	 * zone (epoch seconds, RFC 3339 with an offset) has no such jump: an
	 * hour there is an hour without samples, a gap. */
	double gap = rd->t - rd->last_t, jump = gap > 0 ? 3600.0 : -3600.0;
	if (rd->have_last && rd->last_gap > 0 && rd->stamp_kind == NV_STAMP_LOCAL && fabs(fabs(gap) - 3600.0) <= 60.0 && gap - jump > 0 &&
	    gap - jump <= fmax(5.0 * rd->last_gap, 2.0)) {
		wc__warn(rd->opt, rd->path, ":%zu: the clock jumps %+.0f s between two samples %.3g s apart by the sampling "
		         "cadence: a daylight-saving change of the local time nvidia-smi writes; later samples are "
		         "taken %+.0f s (log in UTC to avoid it)", rd->first_line, gap, gap - jump, -jump);
		rd->clock_shift -= jump;
		rd->t -= jump;
	}
	if (rd->have_last && !(rd->t > rd->last_t)) {
		/* at the time cell, as the sweep's other time messages
		 * (docs/formats/telemetry.md, "Bad lines") */
		wc__bad_cell(&rd->bad, rd->first_line, rd->col_time + 1, "sample is not later than the one before; skipped");
		rd->last_bad_line = rd->first_line;
		return WC_OK;
	}
	if (rd->have_last && rd->t - rd->last_t > WC_TELEMETRY_MAX_GAP_S) {
		if (rd->pause_bad++ == 0) {
			rd->pause_line = rd->first_line;
			rd->pause_s = rd->t - rd->last_t;
			rd->pause_t0 = rd->t;
		}
		rd->pause_t1 = rd->t;
		rd->pause_last_line = rd->first_line;
		wc__bad_cell(&rd->bad, rd->first_line, rd->col_time + 1,
		             "sample is %.10g s after the one before (gaps over %.0f s are not bridged); skipped",
		             rd->t - rd->last_t, WC_TELEMETRY_MAX_GAP_S);
		rd->last_bad_line = rd->first_line;
		return WC_OK;
	}
	/* a sample read, not one skipped above: a skipped row made a "spread"
	 * (docs/formats/telemetry.md, "Samples") */
	double span = rd->t_max - rd->t_min;
	if (span > rd->info->max_sweep_span_s)
		rd->info->max_sweep_span_s = span;
	rd->info->wide_sweeps += span > WC_NVSMI_SWEEP_TOL_S;
	if (rd->have_last)
		rd->last_gap = rd->t - rd->last_t;
	rd->have_last = 1;
	rd->last_t = rd->t;
	if (rd->info->samples == 0)
		rd->info->t_first = rd->t;
	rd->info->t_last = rd->t;
	rd->info->samples++;
	rd->info->n_gpus = rd->n_gpus;
	if (rd->on_sample && rd->on_sample(rd->t, rd->vals, rd->n_gpus, rd->payload) != 0) {
		if (rd->err && rd->err->code == 0)
			wc_error_set_path(rd->err, WC_EINVAL, rd->path, ": stopped by the caller");
		return rd->err && rd->err->code ? rd->err->code : WC_EINVAL;
	}
	return WC_OK;
}

/* Close the open keyed sample; `line` is the line that caused it, `row`
 * its row and `slot` its GPU (0, NULL and -1 at the end). */
static int
close_keyed(nv_reader *rd, size_t line, const nv_row *row, int slot)
{
	int at_end = line == 0;
	int bad_near = rd->last_bad_line > 0 &&
	               rd->last_bad_line + (size_t)(rd->n_gpus > 0 ? rd->n_gpus : 1) >= rd->first_line;
	rd->open = 0;
	if (!rd->frozen) {
		if (bad_near || rd->tainted) {
			/* A bad line in the first sweep would hide a GPU: wait for
			 * a clean one before fixing the set. A bad line within
			 * this sample is accounted for by its drop: near the next
			 * sample it would drop that good one too (metrics lost the
			 * sample after a bad first line, docs/formats/telemetry.md
			 * "Bad lines in a sweep"). */
			rd->info->dropped_samples++;
			if (rd->tainted && rd->last_bad_line >= rd->first_line)
				rd->last_bad_line = 0;
			wc__nv_forget_gpus(rd);
			return WC_OK;
		}
		int rc = wc__nv_fix_set(rd, line, row, slot);
		if (rc != WC_OK)
			return rc == NV_SET_PENDING ? WC_OK : rc;
	}
	if (rd->tainted) {
		rd->info->dropped_samples++; /* its bad line was reported */
		return WC_OK;
	}
	if (rd->rows < rd->n_gpus) {
		if (bad_near) {
			rd->info->dropped_samples++;
			return WC_OK;
		}
		/* gpu_uuids: before the first whole sample, as with a count
		 * given (nvsmi_first.c) */
		int lead = rd->selecting ? wc__nv_skip_leading(rd, line, rd->n_gpus) : 0;
		if (lead != 0)
			return lead == NV_SET_PENDING ? WC_OK : lead;
		int g = 0;
		while (g < rd->n_gpus && (rd->mask >> g & 1))
			g++;
		char label[64];
		wc__nv_gpu_label(rd, g, label, sizeof label);
		if (at_end && rd->n_tail == 0) {
			wc__warn(rd->opt, rd->path, ":%zu: last sample is incomplete (%s missing); dropped", rd->first_line, label);
			rd->info->dropped_samples++;
			return WC_OK;
		}
		/* A row lost: a bad line (wc__nv_flush_missing). With uuids,
		 * said when the next sample is whole, or else as the log's tail
		 * (the GPUs of a node whose logger stopped first). */
		wc__nv_hold_missing(rd, at_end ? rd->first_line : line, g);
		if (rd->col_uuid < 0)
			wc__nv_flush_missing(rd);
		return WC_OK;
	}
	if (rd->n_tail > 0)
		wc__nv_flush_missing(rd);
	int first = !rd->ranked;
	if (first) {
		/* the first sample delivered gives the sweep order */
		memcpy(rd->rank, rd->place, sizeof rd->rank);
		rd->ranked = 1;
		wc__nv_say_lead(rd);
	}
	int rc = wc__nv_deliver(rd);
	if (rc == WC_OK && first)
		wc__nv_nodes_start(rd);
	return rc;
}

static int
same_uuid(const nv_reader *rd, int g, const char *uuid, size_t uuid_len)
{
	return wc_telemetry_uuid_same(rd->info->uuid[g], uuid, uuid_len);
}

/* Slot of the GPU of a row, assigning one in the first sweep; -1 = bad
 * line, -2 = a GPU outside the selection (ignored), -3 = an unreadable
 * index; a bad line is reported when `report` (not for a row that is bad
 * already). */
int
wc__nv_find_slot(nv_reader *rd, const nv_row *row, size_t line, int report)
{
	const char *idx = row->idx, *uuid = row->uuid;
	size_t idx_len = row->il, uuid_len = row->ul;
	if (rd->selecting) {
		int g = 0;
		while (g < rd->n_gpus && !same_uuid(rd, g, uuid, uuid_len))
			g++;
		/* its index, which tells merged nodes apart (nvsmi_nodes.c) */
		if (!rd->ranked && idx && uuid)
			wc__nv_nodes_hear(rd, g < rd->n_gpus ? g : -1, idx, idx_len, uuid, uuid_len);
		return g < rd->n_gpus ? g : -2;
	}
	if (rd->mode == NV_KEY_INDEX) {
		int v = 0;
		if (idx_len == 0 || idx_len > 4 || wc__nv_digits(idx, (int)idx_len, &v) || v >= NV_MAX_INDEX) {
			if (report)
				wc__bad_line(&rd->bad, line, "unreadable GPU index '%.*s'", (int)idx_len, idx);
			return -3;
		}
		int s = rd->slot_of_index[v], other = 0;
		if (s >= 0 && (!uuid || uuid_len == 0 || !rd->info->uuid[s][0] || same_uuid(rd, s, uuid, uuid_len)))
			return s;
		if (s >= 0) {
			/* Another uuid under an index seen: another GPU, as in the
			 * nodes of a multi-node job merged into one log, whose
			 * indices repeat (docs/formats/telemetry.md). */
			for (int g = 0; g < rd->n_gpus; g++)
				if (same_uuid(rd, g, uuid, uuid_len))
					return g;
			other = 1;
		}
		if (rd->frozen) {
			if (report && uuid)
				wc__nv_note_late(rd, line, v, uuid, uuid_len);
			if (report && other)
				wc__bad_line(&rd->bad, line, "GPU %d %.*s was not in the first sample", v, (int)uuid_len,
				             uuid);
			else if (report)
				wc__bad_line(&rd->bad, line, "GPU %d was not in the first sample", v);
			return -1;
		}
		if (rd->n_gpus >= WC_TELEMETRY_MAX_GPUS) {
			if (report)
				wc__bad_line(&rd->bad, line, "more than %d GPUs", WC_TELEMETRY_MAX_GPUS);
			return -1;
		}
		if (other && uuid_len >= sizeof rd->info->uuid[0]) {
			if (report)
				wc__bad_line(&rd->bad, line, "uuid too long");
			return -1;
		}
		int g = rd->n_gpus++;
		if (!other)
			rd->slot_of_index[v] = (short)g;
		rd->info->index[g] = v;
		rd->info->uuid[g][0] = '\0';
		if (uuid && uuid_len < sizeof rd->info->uuid[g]) {
			memcpy(rd->info->uuid[g], uuid, uuid_len);
			rd->info->uuid[g][uuid_len] = '\0';
		}
		return g;
	}
	/* NV_KEY_UUID */
	for (int g = 0; g < rd->n_gpus; g++)
		if (same_uuid(rd, g, uuid, uuid_len))
			return g;
	if (rd->frozen) {
		if (report)
			wc__nv_note_late(rd, line, -1, uuid, uuid_len);
		if (report)
			wc__bad_line(&rd->bad, line, "%s%.*s was not in the first sample", wc_telemetry_gpu_word(uuid),
			             (int)uuid_len, uuid);
		return -1;
	}
	if (rd->n_gpus >= WC_TELEMETRY_MAX_GPUS || uuid_len >= sizeof rd->info->uuid[0]) {
		if (report)
			wc__bad_line(&rd->bad, line, "too many GPUs or uuid too long");
		return -1;
	}
	int g = rd->n_gpus++;
	memcpy(rd->info->uuid[g], uuid, uuid_len);
	rd->info->uuid[g][uuid_len] = '\0';
	rd->info->index[g] = -1;
	return g;
}

static void
open_sample(nv_reader *rd, double t, size_t line_no)
{
	rd->open = 1;
	rd->t = rd->t_min = rd->t_max = t;
	rd->first_line = line_no;
	rd->mask = 0;
	rd->rows = 0;
	rd->tainted = 0;
	rd->presumed = 0;
	rd->flipped = 0;
}

void
wc__nv_put_value(nv_reader *rd, int slot, double t, double watts)
{
	rd->vals[slot] = watts;
	rd->times[slot] = t;
	rd->place[slot] = (unsigned char)rd->rows;
	rd->mask |= (uint64_t)1 << slot;
	rd->rows++;
	if (t < rd->t_min)
		rd->t_min = t;
	if (t > rd->t_max)
		rd->t_max = t;
}

/* The place a bad line holds (see the top of the file): the slot of the
 * GPU it names; else, once the sweep order is known, the GPU after the
 * last row's in that order (the first of the next sweep after the last
 * GPU), *presumed = 1. The same with gpu_uuids: an unnamed row of a GPU
 * left out holds the next GPU's place only until that GPU's own row
 * follows (take_keyed), so it drops nothing, and skipping it paired the
 * sweeps on either side (docs/formats/telemetry.md, "Bad lines in a
 * sweep"). -1 = no place (the first sweep, which a bad line drops anyway;
 * with gpu_uuids, whose slots need not be in the sweep order, before the
 * first sample gives that order), -2 = a GPU outside the selection. */
static int
bad_row_slot(nv_reader *rd, const nv_row *row, size_t line, int *presumed)
{
	int named = rd->mode == NV_KEY_INDEX && !rd->selecting ? row->idx != NULL : row->uuid != NULL;
	int g = named ? wc__nv_find_slot(rd, row, line, 0) : -3;
	*presumed = 0;
	if (g != -3)
		return g;
	if (!rd->frozen || rd->n_gpus == 0 || (rd->selecting && !rd->ranked))
		return -1;
	*presumed = 1;
	if (!rd->ranked)
		return rd->open ? (rd->last_slot + 1) % rd->n_gpus : 0;
	int want = rd->open ? (rd->rank[rd->last_slot] + 1) % rd->n_gpus : 0;
	for (g = 0; g < rd->n_gpus; g++)
		if (rd->rank[g] == want)
			return g;
	return rd->open ? (rd->last_slot + 1) % rd->n_gpus : 0;
}

static int
row_slot(nv_reader *rd, const nv_row *row, size_t line_no, int *presumed)
{
	*presumed = 0;
	return row->ok ? wc__nv_find_slot(rd, row, line_no, 1) : bad_row_slot(rd, row, line_no, presumed);
}

/* A log cut at its head (a window taken out of a longer log by line
 * numbers, a rotation) begins within a sweep: its first rows are the end
 * of one and the rows after them the start of the next, and taking them
 * for one sample would pair GPUs of consecutive sweeps in every sample
 * after it. Where nvidia-smi stamps a sweep's rows with one time, this
 * shows when a GPU of the first sample comes again at the time of the
 * sample's last row: the rows before that time are the older sweep's, and
 * are dropped. 1 when it did so. (Logs stamped row by row are not
 * recognised: no time there tells a sweep's rows apart.) With gpu_uuids
 * the selection fixed the GPUs from the start, so the rule holds until the
 * first sample is delivered (and gives the sweep order), and the newer
 * rows keep their slots. */
static int
rephase_first(nv_reader *rd, const nv_row *row)
{
	int last = -1, older = 0, keep = 0;
	int idx[WC_TELEMETRY_MAX_GPUS], slot[WC_TELEMETRY_MAX_GPUS];
	char uuid[WC_TELEMETRY_MAX_GPUS][sizeof rd->info->uuid[0]];
	double val[WC_TELEMETRY_MAX_GPUS];
	for (int g = 0; g < rd->n_gpus; g++)
		if ((rd->mask >> g & 1) && rd->place[g] == rd->rows - 1)
			last = g;
	if ((rd->selecting ? rd->ranked : rd->frozen) || rd->tainted || !row->ok || last < 0 ||
	    rd->times[last] != row->t)
		return 0;
	for (int g = 0; g < rd->n_gpus; g++)
		older += (rd->mask >> g & 1) && rd->times[g] < row->t;
	if (older == 0)
		return 0;
	/* The newer rows, in their order, become the first GPUs of the set,
	 * so that the GPUs keep the sweep's order. */
	for (int p = older; p < rd->rows; p++)
		for (int g = 0; g < rd->n_gpus; g++)
			if ((rd->mask >> g & 1) && rd->place[g] == p) {
				slot[keep] = g;
				idx[keep] = rd->info->index[g];
				memcpy(uuid[keep], rd->info->uuid[g], sizeof uuid[keep]);
				val[keep++] = rd->vals[g];
			}
	if (rd->lead_samples > 0)
		rd->lead_rows += (size_t)older; /* said with the rows skipped for GPUs starting later */
	else
		wc__warn(rd->opt, rd->path, ":%zu: the log begins within a sweep: its first %d row%s, at an earlier time "
		         "than the rows after, lack the sweep's other GPUs; dropped", rd->first_line, older,
		         older == 1 ? "" : "s");
	size_t first = rd->first_line + (size_t)older;
	if (!rd->selecting)
		wc__nv_forget_gpus(rd);
	open_sample(rd, row->t, first);
	rd->info->dropped_samples++;
	for (int j = 0; j < keep; j++) {
		int g = rd->selecting ? slot[j] : j;
		if (!rd->selecting) {
			rd->info->index[j] = idx[j];
			memcpy(rd->info->uuid[j], uuid[j], sizeof uuid[j]);
			if (idx[j] >= 0 && rd->slot_of_index[idx[j]] < 0)
				rd->slot_of_index[idx[j]] = (short)j;
			rd->n_gpus++;
		}
		wc__nv_put_value(rd, g, row->t, val[j]);
		rd->last_slot = g;
	}
	return 1;
}

/* Keyed rows: a sample closes when one of its GPUs comes again, or a GPU
 * that comes before the last one in the sweep order (the first of the
 * next sweep when the rest of this one was lost); a bad line's place marks
 * the sample it falls in, which is then dropped. A row of a GPU at the
 * time of its row in the sample holds no place: the same reading is that
 * line written twice, another drops the sample. */
static int
take_keyed(nv_reader *rd, const nv_row *row, size_t line_no)
{
	if (rd->refusal_held)
		return WC_OK; /* refused at the end (wc__nv_fix_set) */
	if (rd->nodes.n > 1)
		return wc__nv_nodes_row(rd, row, line_no);
	int presumed, slot = row_slot(rd, row, line_no, &presumed);
	uint64_t bit = (uint64_t)1 << (slot >= 0 ? slot : 0);
	if (slot == -2)
		return WC_OK;
	if (slot < 0) {
		rd->last_bad_line = line_no;
		return WC_OK;
	}
	if (!presumed)
		rd->seen |= bit;
	if (rd->open && !presumed && (rd->presumed & bit) && rd->last_slot == slot) {
		/* The bad line just before was taken for this GPU, which comes
		 * next itself: it was no row of a GPU (a header repeated where
		 * a log was appended to, a stray line), so it holds no place. */
		rd->presumed &= ~bit;
		rd->mask &= ~bit;
		rd->rows--;
		rd->tainted--;
		rd->open = rd->rows > 0;
	}
	if (rd->open && row->ok && (rd->mask & bit) && rd->times[slot] == row->t) {
		/* The GPU again at the same time, not a sweep later: the line
		 * written twice, or, with another reading, a stray line that
		 * leaves the GPU's reading unknown. */
		if (rd->vals[slot] != row->watts) {
			char label[64];
			wc__nv_gpu_label(rd, slot, label, sizeof label);
			wc__bad_line(&rd->bad, line_no, "%s again at the time of its row at line %zu, with "
			             "another reading; sample dropped%s", label, rd->first_line,
			             rd->mode == NV_KEY_INDEX && rd->col_uuid < 0
			             ? " (nodes merged without uuid? add uuid to --query-gpu)" : "");
			rd->tainted++;
			rd->again_rows++;
		}
		return WC_OK;
	}
	if (rd->open && (rd->mask & bit) && rephase_first(rd, row)) {
		/* the sample goes on with this row, a GPU of its own now */
		slot = row_slot(rd, row, line_no, &presumed);
		bit = (uint64_t)1 << slot;
	} else if (rd->open && ((rd->mask & bit) || (rd->ranked && rd->rank[slot] < rd->rank[rd->last_slot] &&
	                                             !wc__nv_order_changed(rd, row, slot, line_no)))) {
		int rc = close_keyed(rd, line_no, row, slot);
		if (rc != WC_OK || rd->refusal_held)
			return rc;
		if (rd->nodes.n > 1)
			return wc__nv_nodes_row(rd, row, line_no);
		/* The first sweep may just have been dropped, forgetting
		 * the slots: look the GPU up again. */
		if (!rd->frozen && rd->n_gpus == 0 && (slot = row_slot(rd, row, line_no, &presumed)) < 0) {
			rd->last_bad_line = line_no;
			return WC_OK;
		}
		bit = (uint64_t)1 << slot;
	}
	int ok = row->ok;
	if (rd->open && ok && rd->t_max - row->t > WC_NVSMI_SWEEP_TOL_S) {
		int rc = wc__nv_time_backward(rd, row, slot, line_no);
		if (rc != NV_ROW_BAD)
			return rc;
		ok = 0; /* a clock stepped back: a bad line of the sweep */
		rd->last_bad_line = line_no;
	}
	if (!rd->open)
		open_sample(rd, row->t, line_no);
	if (ok) {
		wc__nv_put_value(rd, slot, row->t, row->watts);
	} else {
		rd->times[slot] = NAN;
		rd->place[slot] = (unsigned char)rd->rows;
		rd->mask |= bit;
		rd->rows++;
		rd->tainted++;
		if (presumed)
			rd->presumed |= bit;
	}
	rd->last_slot = slot;
	return WC_OK;
}

int
wc__nv_take_row(nv_reader *rd, const nv_row *row, size_t line_no)
{
	if (!row->ok && rd->mode != NV_KEY_POSITION)
		rd->last_bad_line = line_no;
	/* Logs joined one after another: a keyed row names the two GPUs
	 * where it can (wc__nv_time_backward), so it is taken first; a row
	 * without a GPU is not, as a row "not later than the one before". */
	if (rd->mode != NV_KEY_POSITION || rd->selecting) {
		/* ... unless its GPU is none of the first sample's: then it would
		 * be a bad line of "GPU 1 was not in the first sample" first */
		if (wc__nv_runs_back(rd, row) && rd->frozen && !rd->selecting && rd->nodes.n <= 1 &&
		    wc__nv_find_slot(rd, row, line_no, 0) < 0)
			return wc__nv_joined_logs(rd, row, line_no);
		int rc = take_keyed(rd, row, line_no);
		return rc == WC_OK ? wc__nv_joined_logs(rd, row, line_no) : rc;
	}
	int rc = wc__nv_joined_logs(rd, row, line_no);
	nv_held_row h = { row->t, row->watts, line_no, row->ok };
	return rc == WC_OK ? wc__nv_take_positional(rd, &h) : rc;
}

int
wc__nv_finish(nv_reader *rd)
{
	if (rd->mode == NV_KEY_POSITION && !rd->selecting)
		return wc__nv_finish_positional(rd);
	if (rd->refusal_held)
		return rd->refusal_held;
	int rc = rd->nodes.n > 1 ? wc__nv_nodes_finish(rd) : rd->open ? close_keyed(rd, 0, NULL, -1) : WC_OK;
	if (rc != WC_OK)
		return rc;
	wc__nv_tail_missing(rd);
	if ((rc = wc__nv_unseen_selected(rd)) != WC_OK)
		return rc;
	/* Selected by uuid, each GPU's index as the log gives it (-1 without
	 * an index column): what places a data-parallel replica's GPUs
	 * (docs/formats/telemetry.md, "Data-parallel engines"). */
	for (int g = 0; g < rd->n_gpus && rd->selecting; g++)
		rd->info->index[g] = wc__nv_gpu_index(rd, g);
	if (rd->order_flips > 0) {
		char label[64], before[64];
		wc__nv_gpu_label(rd, rd->flip_gpu, label, sizeof label);
		wc__nv_gpu_label(rd, rd->flip_before, before, sizeof before);
		wc__warn(rd->opt, rd->path, ":%zu: the GPU order changed within %zu sweep%s (%s %.3f s after %s "
		         "here, against the first sample's order: per-GPU loggers merged?); each read as one "
		         "sample", rd->flip_line, rd->order_flips, rd->order_flips == 1 ? "" : "s",
		         label, rd->flip_after, before);
	}
	return WC_OK;
}
