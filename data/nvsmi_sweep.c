/*
 * nvidia-smi rows into samples (docs/formats/telemetry.md, "nvidia-smi
 * power logs"): nvidia-smi writes one row per GPU per sweep, one GPU after
 * another, so the rows of one sweep can lie up to a second apart on a
 * busy host. A sweep is therefore never cut by time:
 *
 * - with an `index` or `uuid` column, a sample holds each GPU once and is
 *   closed when a GPU repeats; the first one fixes the set of GPUs, and a
 *   later one that lacks a GPU is refused unless a bad line explains it.
 *   A bad line keeps its GPU's place: the GPU it names, or, when its index
 *   or uuid cannot be read, the GPU that comes next in the sweep order
 *   (nvidia-smi writes every sweep in the same GPU order). Skipping it
 *   instead would let the next sweep's row of that GPU complete the
 *   sample: with GPU 0's row gone, every later sample would pair GPU 1 of
 *   one sweep with GPU 0 of the next;
 * - without either, a sample is the next G rows, G being the count the
 *   caller gives (--gpus, tp), else the count the timestamps make evident
 *   (read_count below). A bad line keeps its GPU's place, so the sweep it
 *   is in is dropped and the next ones stay aligned.
 *
 * The spread of each sweep (its last row's time minus its first's) is
 * reported: the largest, and how many exceed WC_NVSMI_SWEEP_TOL_S.
 */
#include "nvsmi_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void
gpu_label(const nv_reader *rd, int g, char *buf, size_t cap)
{
	if (rd->info->index[g] >= 0)
		snprintf(buf, cap, "%d", rd->info->index[g]);
	else if (rd->info->uuid[g][0])
		snprintf(buf, cap, "%s", rd->info->uuid[g]);
	else
		snprintf(buf, cap, "#%d", g);
}

void
wc__nv_forget_gpus(nv_reader *rd)
{
	rd->n_gpus = 0;
	for (int i = 0; i < NV_MAX_INDEX; i++)
		rd->slot_of_index[i] = -1;
}

/* Hand a complete sample to the caller, after the order and gap checks. */
static int
deliver(nv_reader *rd)
{
	double span = rd->t_max - rd->t_min;
	if (span > rd->info->max_sweep_span_s)
		rd->info->max_sweep_span_s = span;
	rd->info->wide_sweeps += span > WC_NVSMI_SWEEP_TOL_S;
	if (rd->have_last && !(rd->t > rd->last_t)) {
		wc__bad_line(&rd->bad, rd->first_line, "sample is not later than the one before; skipped");
		rd->last_bad_line = rd->first_line;
		return WC_OK;
	}
	if (rd->have_last && rd->t - rd->last_t > WC_TELEMETRY_MAX_GAP_S) {
		wc__bad_line(&rd->bad, rd->first_line,
		             "sample is %.0f s after the one before (gaps over %.0f s are not bridged); skipped",
		             rd->t - rd->last_t, WC_TELEMETRY_MAX_GAP_S);
		rd->last_bad_line = rd->first_line;
		return WC_OK;
	}
	rd->have_last = 1;
	rd->last_t = rd->t;
	if (rd->info->samples == 0)
		rd->info->t_first = rd->t;
	rd->info->t_last = rd->t;
	rd->info->samples++;
	rd->info->n_gpus = rd->n_gpus;
	if (rd->on_sample && rd->on_sample(rd->t, rd->vals, rd->n_gpus, rd->payload) != 0) {
		if (rd->err && rd->err->code == 0)
			wc_error_set(rd->err, WC_EINVAL, "%s: stopped by the caller", rd->path);
		return rd->err && rd->err->code ? rd->err->code : WC_EINVAL;
	}
	return WC_OK;
}

/* Close the open keyed sample; `line` is the line that caused it (0 at
 * the end). */
static int
close_keyed(nv_reader *rd, size_t line)
{
	int at_end = line == 0;
	int bad_near = rd->last_bad_line > 0 &&
	               rd->last_bad_line + (size_t)(rd->n_gpus > 0 ? rd->n_gpus : 1) >= rd->first_line;
	rd->open = 0;
	if (!rd->frozen) {
		if (bad_near || rd->tainted) {
			/* A bad line in the first sweep would hide a GPU: wait for
			 * a clean one before fixing the set. */
			rd->info->dropped_samples++;
			wc__nv_forget_gpus(rd);
			return WC_OK;
		}
		int want = rd->opt->n_gpus;
		if (want > 0 && rd->n_gpus != want)
			return wc_error_set(rd->err, WC_EPARSE,
			                    "%s:%zu: the first sample holds %d GPU%s, expected %d%s", rd->path,
			                    rd->first_line, rd->n_gpus, rd->n_gpus == 1 ? "" : "s", want,
			                    rd->n_gpus > want ? " (name the run's GPUs with gpu_uuids)" : "");
		rd->frozen = 1;
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
		int g = 0;
		while (g < rd->n_gpus && (rd->mask >> g & 1))
			g++;
		char label[64];
		gpu_label(rd, g, label, sizeof label);
		if (at_end) {
			wc__warn(rd->opt, "%s:%zu: last sample is incomplete (GPU %s missing); dropped",
			         rd->path, rd->first_line, label);
			rd->info->dropped_samples++;
			return WC_OK;
		}
		return wc_error_set(rd->err, WC_EPARSE, "%s:%zu: GPU %s is missing from the sample at line %zu",
		                    rd->path, line, label, rd->first_line);
	}
	return deliver(rd);
}

/* Slot of the GPU of a row, assigning one in the first sweep; -1 = bad
 * line, -2 = a GPU outside the selection (ignored), -3 = an unreadable
 * index; a bad line is reported when `report` (not for a row that is bad
 * already). */
static int
find_slot(nv_reader *rd, const nv_row *row, size_t line, int report)
{
	const char *idx = row->idx, *uuid = row->uuid;
	size_t idx_len = row->il, uuid_len = row->ul;
	if (rd->selecting) {
		for (int g = 0; g < rd->n_gpus; g++)
			if (strlen(rd->info->uuid[g]) == uuid_len && memcmp(rd->info->uuid[g], uuid, uuid_len) == 0)
				return g;
		return -2;
	}
	if (rd->mode == NV_KEY_INDEX) {
		int v = 0;
		if (idx_len == 0 || idx_len > 4 || wc__nv_digits(idx, (int)idx_len, &v) || v >= NV_MAX_INDEX) {
			if (report)
				wc__bad_line(&rd->bad, line, "unreadable GPU index '%.*s'", (int)idx_len, idx);
			return -3;
		}
		if (rd->slot_of_index[v] >= 0)
			return rd->slot_of_index[v];
		if (rd->frozen) {
			if (report)
				wc__bad_line(&rd->bad, line, "GPU %d was not in the first sample", v);
			return -1;
		}
		if (rd->n_gpus >= WC_TELEMETRY_MAX_GPUS) {
			if (report)
				wc__bad_line(&rd->bad, line, "more than %d GPUs", WC_TELEMETRY_MAX_GPUS);
			return -1;
		}
		int g = rd->n_gpus++;
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
		if (strlen(rd->info->uuid[g]) == uuid_len && memcmp(rd->info->uuid[g], uuid, uuid_len) == 0)
			return g;
	if (rd->frozen) {
		if (report)
			wc__bad_line(&rd->bad, line, "GPU %.*s was not in the first sample", (int)uuid_len, uuid);
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
}

static void
put_value(nv_reader *rd, int slot, double t, double watts)
{
	rd->vals[slot] = watts;
	rd->mask |= (uint64_t)1 << slot;
	rd->rows++;
	if (t < rd->t_min)
		rd->t_min = t;
	if (t > rd->t_max)
		rd->t_max = t;
}

/* The place a bad line holds (see the top of the file): the slot of the
 * GPU it names; else, once the GPUs are known, the slot after the last
 * row's (the first of the next sweep after the last GPU), *presumed = 1.
 * -1 = no place (the first sweep, which a bad line drops anyway, or a
 * selection, whose unnamed rows may be of GPUs left out), -2 = a GPU
 * outside the selection. */
static int
bad_row_slot(nv_reader *rd, const nv_row *row, size_t line, int *presumed)
{
	int named = rd->mode == NV_KEY_INDEX && !rd->selecting ? row->idx != NULL : row->uuid != NULL;
	int g = named ? find_slot(rd, row, line, 0) : -3;
	*presumed = 0;
	if (g != -3)
		return g;
	if (!rd->frozen || rd->selecting || rd->n_gpus == 0)
		return -1;
	*presumed = 1;
	return rd->open ? (rd->last_slot + 1) % rd->n_gpus : 0;
}

static int
row_slot(nv_reader *rd, const nv_row *row, size_t line_no, int *presumed)
{
	*presumed = 0;
	return row->ok ? find_slot(rd, row, line_no, 1) : bad_row_slot(rd, row, line_no, presumed);
}

/* Keyed rows: a sample closes when one of its GPUs comes again; a bad
 * line's place marks the sample it falls in, which is then dropped. */
static int
take_keyed(nv_reader *rd, const nv_row *row, size_t line_no)
{
	int presumed, slot = row_slot(rd, row, line_no, &presumed);
	uint64_t bit = (uint64_t)1 << (slot >= 0 ? slot : 0);
	if (slot == -2)
		return WC_OK;
	if (slot < 0) {
		rd->last_bad_line = line_no;
		return WC_OK;
	}
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
	if (rd->open && (rd->mask & bit)) {
		int rc = close_keyed(rd, line_no);
		if (rc != WC_OK)
			return rc;
		/* The first sweep may just have been dropped, forgetting
		 * the slots: look the GPU up again. */
		if (!rd->frozen && rd->n_gpus == 0 && (slot = row_slot(rd, row, line_no, &presumed)) < 0) {
			rd->last_bad_line = line_no;
			return WC_OK;
		}
		bit = (uint64_t)1 << slot;
	}
	if (!rd->open)
		open_sample(rd, row->t, line_no);
	if (row->ok) {
		put_value(rd, slot, row->t, row->watts);
	} else {
		rd->mask |= bit;
		rd->rows++;
		rd->tainted++;
		if (presumed)
			rd->presumed |= bit;
	}
	rd->last_slot = slot;
	return WC_OK;
}

/* Positional rows once G is fixed: row k of a sweep is GPU k. */
static int
put_positional(nv_reader *rd, double t, double watts, int ok, size_t line_no)
{
	if (!rd->open) {
		open_sample(rd, t, line_no);
		rd->t_min = INFINITY;
		rd->t_max = -INFINITY;
		rd->t = NAN;
	}
	int slot = rd->rows;
	if (ok) {
		if (isnan(rd->t))
			rd->t = t;
		put_value(rd, slot, t, watts);
	} else {
		rd->rows++;
		rd->tainted++;
	}
	if (rd->rows < rd->n_gpus)
		return WC_OK;
	rd->open = 0;
	if (rd->tainted) {
		rd->info->dropped_samples++;
		return WC_OK;
	}
	return deliver(rd);
}

/* What cutting the held rows into sweeps shows: the commonest sweep size
 * (0 = none), how many sweeps have it, and the share of the rows in them. */
typedef struct {
	int gpus;
	size_t sweeps;
	double share;
} nv_count;

/* The held rows cut into sweeps wherever neighbouring readable rows lie
 * more than `cut` apart (a bad row stays in the sweep it falls in); the
 * last sweep only at the end of the file, when nothing can follow it. A
 * size must be commoner than sweeps too large to be one. */
static nv_count
count_at_cut(const nv_reader *rd, double cut, int at_end)
{
	size_t count[WC_TELEMETRY_MAX_GPUS + 1] = { 0 }, rows = 0, size = 0;
	double t_prev = NAN;
	for (size_t i = 0; i < rd->n_held; i++) {
		const nv_held_row *h = &rd->held[i];
		if (h->ok && size > 0 && !isnan(t_prev) && fabs(h->t - t_prev) > cut) {
			count[size > WC_TELEMETRY_MAX_GPUS ? 0 : size]++;
			rows += size;
			size = 0;
		}
		if (h->ok)
			t_prev = h->t;
		size++;
	}
	if (at_end && size > 0) {
		count[size > WC_TELEMETRY_MAX_GPUS ? 0 : size]++;
		rows += size;
	}
	nv_count c = { 0, 0, 0.0 };
	for (int g = 1; g <= WC_TELEMETRY_MAX_GPUS; g++)
		if (count[g] > count[c.gpus])
			c.gpus = g;
	if (c.gpus > 0) {
		c.sweeps = count[c.gpus];
		c.share = (double)(c.sweeps * (size_t)c.gpus) / (double)rows;
	}
	return c;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The GPU count the held rows make evident. nvidia-smi writes a sweep's
 * rows one right after another and the next sweep a sampling interval
 * later, so the gaps between neighbouring rows fall into short ones
 * (within sweeps) and long ones (between them), with a jump between the
 * two in the sorted gaps. Cut there, the rows fall into sweeps of one
 * size. A jump is taken when it is at least NV_GAP_RATIO, the median gap
 * below it is within WC_NVSMI_SWEEP_TOL_S (rows of a sweep usually are;
 * rows further apart than the shortest logging interval are a 1-GPU log,
 * even with pauses as regular as sweeps) and its commonest size holds
 * NV_GAP_SHARE of the rows (a jump to a few irregular pauses makes no
 * common size); the NV_GAP_CUTS largest are tried, largest first. Without
 * one, the rows are cut at gaps over WC_NVSMI_SWEEP_TOL_S. Either way the
 * cut is between neighbours, never at a distance from a sweep's first
 * row: 8 rows 6 ms apart are one sweep 42 ms wide. A sweep wider than the
 * pause after it is cut apart, but such sweeps are rare and the commonest
 * size stands (docs/formats/telemetry.md, "GPU count from the
 * timestamps"). */
static nv_count
read_count(const nv_reader *rd, int at_end)
{
	double gaps[NV_GUESS_ROWS];
	size_t n = 0, tried[NV_GAP_CUTS];
	for (size_t i = 1; i < rd->n_held; i++)
		if (rd->held[i - 1].ok && rd->held[i].ok)
			gaps[n++] = fmax(fabs(rd->held[i].t - rd->held[i - 1].t), NV_GAP_FLOOR_S);
	qsort(gaps, n, sizeof *gaps, cmp_double);
	for (int k = 0; k < NV_GAP_CUTS; k++) {
		size_t at = 0;
		double ratio = NV_GAP_RATIO;
		for (size_t i = 1; i < n; i++) {
			int seen = 0;
			for (int j = 0; j < k; j++)
				seen |= tried[j] == i;
			if (!seen && gaps[i] / gaps[i - 1] >= ratio && gaps[i / 2] <= WC_NVSMI_SWEEP_TOL_S) {
				ratio = gaps[i] / gaps[i - 1];
				at = i;
			}
		}
		if (at == 0)
			break;
		tried[k] = at;
		nv_count c = count_at_cut(rd, sqrt(gaps[at - 1] * gaps[at]), at_end);
		if (c.gpus > 0 && c.share >= NV_GAP_SHARE)
			return c;
	}
	return count_at_cut(rd, WC_NVSMI_SWEEP_TOL_S, at_end);
}

/* Fix G from the held rows and replay them. */
static int
release_held(nv_reader *rd, int at_end)
{
	int g = read_count(rd, at_end).gpus;
	if (g == 0)
		return wc_error_set(rd->err, WC_EPARSE,
		                    "%s: cannot tell the GPUs of a sweep apart (no index or uuid column and no "
		                    "common sweep size in the timestamps); give the GPU count (--gpus or tp)",
		                    rd->path);
	rd->n_gpus = g;
	rd->frozen = 1;
	for (int k = 0; k < g; k++)
		rd->info->index[k] = k;
	snprintf(rd->info->gpu_count_source, sizeof rd->info->gpu_count_source, "timestamps");
	size_t n = rd->n_held;
	rd->n_held = 0;
	for (size_t i = 0; i < n; i++) {
		const nv_held_row *h = &rd->held[i];
		int rc = put_positional(rd, h->t, h->watts, h->ok, h->line);
		if (rc != WC_OK)
			return rc;
	}
	return WC_OK;
}

int
wc__nv_take_row(nv_reader *rd, const nv_row *row, size_t line_no)
{
	if (!row->ok && rd->mode != NV_KEY_POSITION)
		rd->last_bad_line = line_no;
	if (rd->mode != NV_KEY_POSITION || rd->selecting)
		return take_keyed(rd, row, line_no);
	if (rd->frozen)
		return put_positional(rd, row->t, row->watts, row->ok, line_no);
	rd->held[rd->n_held++] = (nv_held_row){ row->t, row->watts, line_no, row->ok };
	/* Checking the sweeps at every row would be quadratic: every 64. */
	if (rd->n_held == NV_GUESS_ROWS || (rd->n_held % 64 == 0 && read_count(rd, 0).sweeps > NV_GUESS_SWEEPS))
		return release_held(rd, 0);
	return WC_OK;
}

int
wc__nv_finish(nv_reader *rd)
{
	if (rd->mode == NV_KEY_POSITION && !rd->selecting && !rd->frozen && rd->n_held > 0) {
		int rc = release_held(rd, 1);
		if (rc != WC_OK)
			return rc;
	}
	if (!rd->open)
		return WC_OK;
	if (rd->mode == NV_KEY_POSITION && !rd->selecting) {
		wc__warn(rd->opt, "%s:%zu: last sample is incomplete (%d of %d GPUs); dropped", rd->path,
		         rd->first_line, rd->rows, rd->n_gpus);
		rd->info->dropped_samples++;
		rd->open = 0;
		return WC_OK;
	}
	return close_keyed(rd, 0);
}
