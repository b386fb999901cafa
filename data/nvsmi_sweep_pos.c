/*
 * nvidia-smi rows of a log without index or uuid into samples
 * (docs/formats/telemetry.md, "Samples" and "GPU count from the
 * timestamps"): row k of a sweep is GPU k, G being the count the caller
 * gives (--gpus, tp), else the count the timestamps make evident
 * (read_count below). A bad line keeps its GPU's place, so the sweep it is
 * in is dropped and the next ones stay aligned.
 *
 * A row lost or added would shift every later sample by one row if the
 * rows were simply counted off G at a time, so the sweeps are taken from
 * the timestamps too: a sweep ends at a gap between readable rows longer
 * than the cut that made the count evident (between the gaps within
 * sweeps and those between them). A sweep of G rows is a sample. Rows
 * between such sweeps that are not G at a time (a sweep spread over gaps
 * longer than the cut by a busy host, split in pieces; a sweep run into by
 * the next one; a row lost; a stray row) are kept until the next sweep of
 * G rows and then read G at a time when they make whole sweeps, after
 * leaving out, when they are one row too many, a row written twice (the
 * same time and reading as the row before it) or else a lone bad line (no
 * GPU's row: a header repeated where a log was appended to), and dropped
 * otherwise: one lost or stray row costs its own sweep. When the count
 * is given and the timestamps make another one evident, or G is 1, the
 * rows are only counted off.
 */
#include "nvsmi_internal.h"
#include "models/stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Positional rows once G is fixed: row k of a sweep is GPU k. */
static int
put_positional(nv_reader *rd, double t, double watts, int ok, size_t line_no)
{
	if (!rd->open) {
		rd->open = 1;
		rd->first_line = line_no;
		rd->mask = rd->presumed = 0;
		rd->rows = rd->tainted = 0;
		rd->t_min = INFINITY;
		rd->t_max = -INFINITY;
		rd->t = NAN;
	}
	int slot = rd->rows;
	if (ok) {
		if (isnan(rd->t))
			rd->t = t;
		wc__nv_put_value(rd, slot, t, watts);
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
	return wc__nv_deliver(rd);
}

/* What cutting the held rows into sweeps at gaps over `cut` shows: the
 * commonest sweep size (0 = none), how many sweeps have it, and the share
 * of the rows in them. */
typedef struct {
	int gpus;
	size_t sweeps, rows; /* rows: those in the sweeps cut, the share's whole */
	double share, cut;
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
	nv_count c = { 0, 0, rows, 0.0, cut };
	for (int g = 1; g <= WC_TELEMETRY_MAX_GPUS; g++)
		if (count[g] > count[c.gpus])
			c.gpus = g;
	if (c.gpus > 0) {
		c.sweeps = count[c.gpus];
		c.share = (double)(c.sweeps * (size_t)c.gpus) / (double)rows;
	}
	return c;
}

/* The GPU count the held rows make evident. nvidia-smi writes a sweep's
 * rows one right after another and the next sweep a sampling interval
 * later, so the gaps between neighbouring rows fall into short ones
 * (within sweeps) and long ones (between them), with a jump between the
 * two in the sorted gaps. Cut there, the rows fall into sweeps of one
 * size. A jump is taken when it is at least NV_GAP_RATIO, the median gap
 * below it (the one rule, docs/statistics.md: the mean of the two middle
 * gaps for an even count) is within WC_NVSMI_SWEEP_TOL_S (rows of a sweep usually are;
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
	wc_stats_sort(gaps, n);
	for (int k = 0; k < NV_GAP_CUTS; k++) {
		size_t at = 0;
		double ratio = NV_GAP_RATIO;
		for (size_t i = 1; i < n; i++) {
			int seen = 0;
			for (int j = 0; j < k; j++)
				seen |= tried[j] == i;
			if (!seen && gaps[i] / gaps[i - 1] >= ratio &&
			    wc_stats_median_sorted(gaps, i) <= WC_NVSMI_SWEEP_TOL_S) {
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


/* Rows [from, to) of the held ones, but `skip`, into samples. */
static int
emit(nv_reader *rd, size_t from, size_t to, size_t skip)
{
	for (size_t i = from; i < to; i++) {
		const nv_held_row *h = &rd->held[i];
		int rc = i == skip ? WC_OK : put_positional(rd, h->t, h->watts, h->ok, h->line);
		if (rc != WC_OK)
			return rc;
	}
	return WC_OK;
}

/* The row of held rows [from, to), one too many, that is no GPU's: the
 * first that repeats the readable row before it (a line written twice),
 * else the bad line when there is one alone (a header repeated where a log
 * was appended to); `to` if neither. */
static size_t
extra_row(const nv_reader *rd, size_t from, size_t to)
{
	size_t bad = to, n_bad = 0;
	for (size_t i = from; i < to; i++) {
		const nv_held_row *a = &rd->held[i > from ? i - 1 : i], *b = &rd->held[i];
		if (i > from && a->ok && b->ok && a->t == b->t && a->watts == b->watts)
			return i;
		if (!b->ok) {
			bad = i;
			n_bad++;
		}
	}
	return n_bad == 1 ? bad : to;
}

/* Held rows [from, to), which are not a sweep of G rows, into samples when
 * they make whole sweeps (one row too many left out, see extra_row), else
 * dropped:
 * reported as a bad line unless one is among them (it was reported), or,
 * for the last rows of the file (`last`) short of a sweep, with a
 * warning, as a sweep the log stopped in. */
static int
settle(nv_reader *rd, size_t from, size_t to, int last)
{
	size_t n = to - from, g = (size_t)rd->n_gpus, skip = to;
	if (n == 0)
		return WC_OK;
	if (n % g == 1 && (skip = extra_row(rd, from, to)) < to)
		n--;
	if (n % g == 0)
		return emit(rd, from, to, skip);
	size_t dropped = n < g ? 1 : (n + g / 2) / g;
	int bad = 0;
	for (size_t i = from; i < to; i++)
		bad |= !rd->held[i].ok;
	rd->info->dropped_samples += dropped;
	if (last && n < g)
		wc__warn(rd->opt, rd->path, ":%zu: last sample is incomplete (%zu of %d GPUs); dropped",
		         rd->held[from].line, n, rd->n_gpus);
	else if (!bad)
		wc__bad_line(&rd->bad, rd->held[from].line,
		             "%zu rows to line %zu between sweep gaps do not make whole sweeps of %d GPUs (a row "
		             "lost or a stray one); %zu sample%s dropped",
		             n, rd->held[to - 1].line, rd->n_gpus, dropped, dropped == 1 ? "" : "s");
	return WC_OK;
}

/* The sweep being read ended at a gap: a sweep of G rows settles the rows
 * held before it and is a sample; another joins them. */
static int
end_sweep(nv_reader *rd)
{
	if (rd->n_held - rd->run_len != (size_t)rd->n_gpus) {
		rd->run_len = rd->n_held;
		return WC_OK;
	}
	int rc = settle(rd, 0, rd->run_len, 0);
	if (rc == WC_OK)
		rc = emit(rd, rd->run_len, rd->n_held, rd->n_held);
	rd->n_held = rd->run_len = 0;
	return rc;
}

/* The held rows full without a sweep of G rows: a log whose gaps tell no
 * sweeps apart after all; its rows are counted off G at a time. */
static int
counted_off(nv_reader *rd)
{
	size_t whole = rd->n_held / (size_t)rd->n_gpus * (size_t)rd->n_gpus;
	int rc = emit(rd, 0, whole, whole);
	memmove(rd->held, rd->held + whole, (rd->n_held - whole) * sizeof *rd->held);
	rd->n_held -= whole;
	rd->run_len = 0;
	return rc;
}

/* A count given (tp, --gpus, gpu_uuids' number) smaller than the rows of
 * each sweep: a node-wide log without index or uuid, of which position
 * cannot pick the run's GPUs out. The sweeps are the ones read_count cuts
 * at the timestamps' gaps, so rows sharing one timestamp and rows a few
 * ms apart (nvidia-smi's real sweeps) are one rule. Counted off G at a
 * time, a shared-timestamp log lost most samples as bad lines and the
 * refusal sent users to --max-bad, which read another GPU's power (122 W
 * of a TP 2 run's 421.6 W); rows 6 ms apart were read as 4 samples per
 * sweep of the wrong GPUs (260.7 W for 421.6 W). Refused here instead,
 * naming the column that tells them apart (docs/formats/telemetry.md,
 * "GPU count from the timestamps"). The share is the warning's below: 90
 * % of the rows, over at least NV_NODE_SWEEPS_MIN sweeps. */
#define NV_NODE_SWEEPS_MIN 3

/* The share of the held rows' lag-L differences (row i + L's time minus
 * row i's, both readable) within NV_LAG_TOL_S (or 2 % of it) of their
 * median, and that median; 0 with fewer than NV_NODE_SWEEPS_MIN. */
#define NV_LAG_TOL_S 0.0015
static double
lag_regular(const nv_reader *rd, size_t lag, double *median)
{
	double d[NV_GUESS_ROWS];
	size_t n = 0, near = 0;
	for (size_t i = 0; i + lag < rd->n_held; i++)
		if (rd->held[i].ok && rd->held[i + lag].ok)
			d[n++] = rd->held[i + lag].t - rd->held[i].t;
	if (n < NV_NODE_SWEEPS_MIN)
		return 0.0;
	wc_stats_sort(d, n);
	double m = wc_stats_median_sorted(d, n), tol = fmax(NV_LAG_TOL_S, 0.02 * fabs(m));
	for (size_t i = 0; i < n; i++)
		near += fabs(d[i] - m) <= tol;
	*median = m;
	return (double)near / (double)n;
}

/* The sweeps' size from the rows' own period, for when the gaps make no
 * cut: rows of a sweep 6 ms apart every 50 ms (8 GPUs, the pause 8 ms) or
 * 10 ms apart every 100 ms show no jump between the gaps within sweeps and
 * those between them, and a tp 2 run was read 2 rows at a time from a log
 * of 8 (190.7 W, 203.2 W for 421.6 W). Whatever the gaps, row i + S comes
 * one sampling period after row i when a sweep is S rows, so the
 * lag-S differences agree (90 %) where the lag-G ones of a smaller count
 * given do not (under 80 %: some lags cross a sweep's end, some do not).
 * Jitter of the logger spreads every lag alike, so a log of G GPUs does
 * not show another lag more regular than its own. The smallest regular
 * lag S when it is over G, or 0 (docs/formats/telemetry.md, "GPU count
 * from the timestamps"). */
static nv_count
periodic_count(const nv_reader *rd)
{
	nv_count c = { 0, 0, 0, 0.0, INFINITY };
	double m_g = 0.0, m = 0.0;
	if (rd->n_gpus < 1 || lag_regular(rd, (size_t)rd->n_gpus, &m_g) >= 0.8)
		return c;
	/* the smallest regular lag is the sweep: one of the count given or
	 * fewer (a 2-GPU log given 3 is regular at 2 and 4) is no node's */
	for (size_t lag = 1; lag <= WC_TELEMETRY_MAX_GPUS && rd->n_held >= lag * NV_NODE_SWEEPS_MIN; lag++) {
		double share = lag_regular(rd, lag, &m);
		if (share >= 0.9 && m > 0.0 && lag <= (size_t)rd->n_gpus)
			return c;
		if (share >= 0.9 && m > 0.0) {
			c.gpus = (int)lag;
			c.sweeps = rd->n_held / lag;
			c.rows = c.sweeps * lag;
			c.share = share;
			return c;
		}
	}
	return c;
}

/* A count given whose sweeps the timestamps do not show, where neither
 * rule above found a sweep of more rows: a node-wide log whose rows are
 * spread evenly over the sampling interval (8 rows 6.25 ms apart every
 * 50 ms) is regular at every lag, the count's too, and was read 2 rows
 * at a time, -55 % with no warning. Timing alone cannot say how many rows
 * such a sweep has, so whatever the spacing the log is refused when,
 * with G >= 2, the rows lie evenly: the lag-1 differences agree
 * (lag_regular, 90 %) at the period over G, so no pause between sweeps
 * of G shows. A pause of a third of the spacing (8 rows 6 ms apart every
 * 50 ms) shows, and so do a sweep's rows at one timestamp, however fast
 * the logger (-lms 20 reads: a refusal of a GPU coming again within
 * 40 ms was tried and taken back the same day, as nvidia-smi samples
 * that fast when asked; docs/formats/telemetry.md, "GPU count from the
 * timestamps"). */
static int
refuse_unseen_sweeps(nv_reader *rd)
{
	int g = rd->n_gpus;
	double period = NAN, step = 0.0;
	char fact[160];
	if (g >= 1)
		(void)lag_regular(rd, (size_t)g, &period); /* only its median */
	if (isnan(period))
		return WC_OK;
	if (g >= 2 && lag_regular(rd, 1, &step) >= 0.9 && step > 0.0 &&
	         fabs(period / g - step) <= fmax(NV_LAG_TOL_S, 0.02 * step))
		snprintf(fact, sizeof fact, "the rows lie evenly, %.1f ms apart, so no sweep of the %d GPUs given "
		         "shows: a log of more GPUs, or of fewer?", 1000.0 * step, g);
	else
		return WC_OK;
	return wc_error_set_path(rd->err, WC_EPARSE, rd->path, ":%zu:%d: %s No index or uuid column tells the "
	                         "GPUs apart%s: add uuid (or index) to --query-gpu",
	                         rd->held[0].line, rd->col_time + 1, fact,
	                         rd->opt->n_gpu_uuids > 0 ? " (gpu_uuids need a uuid column)" : "");
}

static int
refuse_node_wide(nv_reader *rd, nv_count c)
{
	if (c.gpus <= rd->n_gpus || c.share < 0.9 || c.sweeps < NV_NODE_SWEEPS_MIN) {
		/* the gaps cut no sweeps of more rows; the rows' period may,
		 * and else the count must show in the timestamps */
		if (c.gpus == rd->n_gpus && c.share >= 0.9)
			return refuse_unseen_sweeps(rd);
		c = periodic_count(rd);
		if (c.gpus <= rd->n_gpus || c.sweeps < NV_NODE_SWEEPS_MIN)
			return refuse_unseen_sweeps(rd);
	}
	/* The count is of the rows held before deciding, not of the log's:
	 * said as such (a log of 270 sweeps was said to have 39). */
	return wc_error_set_path(rd->err, WC_EPARSE, rd->path, ":%zu:%d: %d rows make each sweep (%zu sweeps, %.0f %% "
	                         "of the first %zu rows), more than the %d GPUs given, and no index or uuid column tells "
	                         "theirs apart%s: add uuid (or index) to --query-gpu", rd->held[0].line, rd->col_time + 1,
	                         c.gpus, c.sweeps, 100.0 * c.share, c.rows, rd->n_gpus,
	                         rd->opt->n_gpu_uuids > 0 ? " (gpu_uuids need a uuid column)" : "");
}

/* Fix G (unless given) and the cut from the held rows, and replay them. */
static int
release_held(nv_reader *rd, int at_end)
{
	nv_count c = read_count(rd, at_end);
	int rc = rd->frozen ? refuse_node_wide(rd, c) : WC_OK;
	if (rc != WC_OK && !at_end) {
		/* said at the end unless a second log joined to the first shows
		 * first: that one's rows alone lie evenly (wc__nv_joined_logs) */
		rd->refusal_held = rc;
		return WC_OK;
	}
	if (rc != WC_OK)
		return rc;
	if (!rd->frozen) {
		if (c.gpus == 0)
			return wc_error_set_path(rd->err, WC_EPARSE,
			                    rd->path, ": cannot tell the GPUs of a sweep apart (no index or uuid column and no "
			                    "common sweep size in the timestamps); give the GPU count (--gpus or tp)");
		rd->n_gpus = c.gpus;
		rd->frozen = 1;
		for (int k = 0; k < c.gpus; k++)
			rd->info->index[k] = k;
		snprintf(rd->info->gpu_count_source, sizeof rd->info->gpu_count_source, "timestamps");
	} else if (c.gpus > 0 && c.gpus != rd->n_gpus && c.share >= 0.9 && c.sweeps >= 10) {
		/* The count given wins, but timestamps that plainly say another
		 * are worth a line: `--gpus 3` on a 2-GPU log averaged a third of
		 * the next sweep into each sample (docs/formats/telemetry.md). */
		wc__warn(rd->opt, rd->path, ": the count given is %d GPUs, but the timestamps make %zu sweeps of %d rows "
		         "(%.0f %% of the first %zu rows); check --gpus or tp", rd->n_gpus, c.sweeps, c.gpus,
		         100.0 * c.share, c.rows);
	}
	/* A cut that makes sweeps of another size than the count given says
	 * nothing about where that count's sweeps end. */
	rd->cut = rd->n_gpus > 1 && c.gpus == rd->n_gpus ? c.cut : INFINITY;
	rd->counted = 1;
	size_t n = rd->n_held;
	rd->n_held = 0;
	for (size_t i = 0; i < n; i++) {
		/* taken again into held[0, i]: a copy */
		nv_held_row h = rd->held[i];
		rc = wc__nv_take_positional(rd, &h);
		if (rc != WC_OK)
			return rc;
	}
	return WC_OK;
}

int
wc__nv_take_positional(nv_reader *rd, const nv_held_row *row)
{
	int rc = WC_OK;
	if (rd->refusal_held)
		return WC_OK; /* refused at the end */
	if (!rd->counted) {
		rd->held[rd->n_held++] = *row;
		/* Checking the sweeps at every row would be quadratic: every 64. */
		if (rd->n_held == NV_GUESS_ROWS ||
		    (rd->n_held % 64 == 0 && read_count(rd, 0).sweeps > NV_GUESS_SWEEPS))
			return release_held(rd, 0);
		return WC_OK;
	}
	if (isinf(rd->cut))
		return put_positional(rd, row->t, row->watts, row->ok, row->line);
	if (row->ok) {
		if (rd->have_prev && fabs(row->t - rd->prev_t) > rd->cut && rd->n_held > rd->run_len)
			rc = end_sweep(rd);
		rd->prev_t = row->t;
		rd->have_prev = 1;
	}
	if (rc == WC_OK && rd->n_held == NV_GUESS_ROWS)
		rc = counted_off(rd);
	rd->held[rd->n_held++] = *row;
	return rc;
}

int
wc__nv_finish_positional(nv_reader *rd)
{
	int rc = WC_OK;
	if (rd->refusal_held)
		return rd->refusal_held;
	if (!rd->counted && rd->n_held > 0 && (rc = release_held(rd, 1)) != WC_OK)
		return rc;
	if (rd->n_held > 0) {
		/* the last sweep ends with the file */
		size_t g = (size_t)rd->n_gpus;
		if (rd->n_held - rd->run_len == g)
			rc = end_sweep(rd);
		else if (rd->run_len % g != 0 && rd->n_held % g == 0)
			rc = emit(rd, 0, rd->n_held, rd->n_held); /* pieces of a sweep */
		else if ((rc = settle(rd, 0, rd->run_len, 0)) == WC_OK)
			rc = settle(rd, rd->run_len, rd->n_held, 1);
		rd->n_held = rd->run_len = 0;
	}
	if (rc == WC_OK && rd->open) {
		wc__warn(rd->opt, rd->path, ":%zu: last sample is incomplete (%d of %d GPUs); dropped",
		         rd->first_line, rd->rows, rd->n_gpus);
		rd->info->dropped_samples++;
		rd->open = 0;
	}
	return rc;
}
