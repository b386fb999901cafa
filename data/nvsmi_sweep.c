/*
 * nvidia-smi rows into samples (docs/formats/telemetry.md, "nvidia-smi
 * power logs"): nvidia-smi writes one row per GPU per sweep, one GPU after
 * another, so the rows of one sweep can lie up to a second apart on a
 * busy host. A sweep is therefore never cut by time:
 *
 * - with an `index` or `uuid` column, a sample holds each GPU once and is
 *   closed when a GPU repeats; the first one fixes the set of GPUs, and a
 *   later one that lacks a GPU is refused unless a bad line explains it;
 * - without either, a sample is the next G rows, G being the count the
 *   caller gives (--gpus, tp), else the count the timestamps make evident:
 *   the commonest number of rows within WC_NVSMI_SWEEP_TOL_S of each
 *   other over the first NV_GUESS_SWEEPS sweeps. A bad line keeps its
 *   GPU's place, so the sweep it is in is dropped and the next ones stay
 *   aligned.
 *
 * The spread of each sweep (its last row's time minus its first's) is
 * reported: the largest, and how many exceed WC_NVSMI_SWEEP_TOL_S.
 */
#include "nvsmi_internal.h"

#include <math.h>
#include <stdio.h>
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
		if (bad_near) {
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
 * line (reported), -2 = a GPU outside the selection (ignored). */
static int
find_slot(nv_reader *rd, const nv_row *row, size_t line)
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
			wc__bad_line(&rd->bad, line, "unreadable GPU index '%.*s'", (int)idx_len, idx);
			return -1;
		}
		if (rd->slot_of_index[v] >= 0)
			return rd->slot_of_index[v];
		if (rd->frozen) {
			wc__bad_line(&rd->bad, line, "GPU %d was not in the first sample", v);
			return -1;
		}
		if (rd->n_gpus >= WC_TELEMETRY_MAX_GPUS) {
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
		wc__bad_line(&rd->bad, line, "GPU %.*s was not in the first sample", (int)uuid_len, uuid);
		return -1;
	}
	if (rd->n_gpus >= WC_TELEMETRY_MAX_GPUS || uuid_len >= sizeof rd->info->uuid[0]) {
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

/* Keyed rows: a sample closes when one of its GPUs comes again. */
static int
take_keyed(nv_reader *rd, const nv_row *row, size_t line_no)
{
	int slot = row->ok ? find_slot(rd, row, line_no) : -1;
	if (slot == -2)
		return WC_OK;
	if (slot < 0) {
		rd->last_bad_line = line_no;
		return WC_OK;
	}
	if (rd->open && (rd->mask >> slot & 1)) {
		int rc = close_keyed(rd, line_no);
		if (rc != WC_OK)
			return rc;
		/* The first sweep may just have been dropped, forgetting
		 * the slots: look the GPU up again. */
		if (!rd->frozen && rd->n_gpus == 0 && (slot = find_slot(rd, row, line_no)) < 0) {
			rd->last_bad_line = line_no;
			return WC_OK;
		}
	}
	if (!rd->open)
		open_sample(rd, row->t, line_no);
	put_value(rd, slot, row->t, row->watts);
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
		rd->tainted = 1;
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

/* The commonest number of rows within the sweep tolerance of each other
 * among the held rows (the last group only when it is complete). */
static int
guess_gpus(const nv_reader *rd, int at_end)
{
	int count[WC_TELEMETRY_MAX_GPUS + 1] = { 0 }, size = 0, best = 0;
	double t0 = NAN;
	for (size_t i = 0; i < rd->n_held; i++) {
		const nv_held_row *h = &rd->held[i];
		if (h->ok && size > 0 && !isnan(t0) && fabs(h->t - t0) > WC_NVSMI_SWEEP_TOL_S) {
			count[size > WC_TELEMETRY_MAX_GPUS ? 0 : size]++;
			size = 0;
		}
		if (size == 0)
			t0 = h->ok ? h->t : NAN;
		else if (isnan(t0) && h->ok)
			t0 = h->t;
		size++;
	}
	if (at_end && size > 0)
		count[size > WC_TELEMETRY_MAX_GPUS ? 0 : size]++;
	for (int g = 1; g <= WC_TELEMETRY_MAX_GPUS; g++)
		if (count[g] > count[best])
			best = g;
	return best;
}

/* Fix G from the held rows and replay them. */
static int
release_held(nv_reader *rd, int at_end)
{
	int g = guess_gpus(rd, at_end);
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

/* Sweeps the held rows make (complete ones: a later row moved on). */
static int
held_sweeps(const nv_reader *rd)
{
	int sweeps = 0;
	double t0 = NAN;
	for (size_t i = 0; i < rd->n_held; i++) {
		const nv_held_row *h = &rd->held[i];
		if (!h->ok)
			continue;
		if (isnan(t0))
			t0 = h->t;
		else if (fabs(h->t - t0) > WC_NVSMI_SWEEP_TOL_S) {
			sweeps++;
			t0 = h->t;
		}
	}
	return sweeps;
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
	if (rd->n_held == NV_GUESS_ROWS || (rd->n_held % 64 == 0 && held_sweeps(rd) > NV_GUESS_SWEEPS))
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
