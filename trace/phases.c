/*
 * Energy by phase (docs/trace-metrics.md, "Phases"): each 50 ms cell of a
 * row's window is prefill while a request awaits its first token, else
 * decode while one generates, else idle (from the request log); with
 * engine counters only, idle while nothing runs and no counter moves, and
 * the rest split in the ratio of the engine's prefill and decode time sums.
 */
#include "ingest_internal.h"
#include "models/grow.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "trace/load.h"

/* Energy per 50 ms cell of the cut trace: complete cells from the bin
 * means, the remainder in a last partial cell; returns the cell count.
 * A window of whole cells leaves a remainder of rounding only, in a cell
 * of no length whose middle lies past the window: it joins the last
 * whole cell, so that it cannot make an idle window busy. */
static size_t
cell_energies(const double *ct, const double *cp, size_t cn, double total, double **out)
{
	const double dt = WC_INGEST_GRID_S;
	size_t full = wc_stats_bin_means(ct, cp, cn, dt, NULL, 0);
	double *e = wc_alloc_array(full + 1, sizeof *e);
	if (!e)
		return 0;
	wc_stats_bin_means(ct, cp, cn, dt, e, full);
	double sum = 0.0;
	for (size_t k = 0; k < full; k++) {
		e[k] *= dt;
		sum += e[k];
	}
	e[full] = total - sum;
	*out = e;
	if (full > 0 && cn > 0 && ct[cn - 1] - ct[0] - (double)full * dt < 1e-3 * dt) {
		e[full - 1] += e[full];
		return full;
	}
	return full + 1;
}

/* The engine's work counters that advance only while it runs requests:
 * tokens prefilled and generated, and the prefill and decode time sums. */
static const wc_engine_column work_counters[] = {WC_ENG_PROMPT_TOKENS, WC_ENG_GENERATION_TOKENS,
                                                 WC_ENG_PREFILL_S, WC_ENG_DECODE_S};

/* Some work counter advanced over [c0, c1] (counters interpolate between
 * samples, so over the sample interval the cell lies in). The running
 * gauge alone is not enough: it is read between engine steps, and reads 0
 * at both ends of a sample interval that held a whole short request or
 * the end of one and the start of the next, while the GPU drew busy power
 * (docs/trace-metrics.md, "Phases"). An absent counter never advances. */
static int
counters_advanced(const run_ctx *rc, double c0, double c1)
{
	for (size_t i = 0; i < sizeof work_counters / sizeof work_counters[0]; i++)
		if (wc__ingest_counter_delta(rc, work_counters[i], c0, c1) > 0)
			return 1;
	return 0;
}

void
wc__ingest_phases(const run_ctx *rc, const wc__ingest_reqs *reqs, double a, const double *ct, const double *cp,
                  size_t cn, wc_ingest_row *row)
{
	const double dt = WC_INGEST_GRID_S;
	double *cell = NULL, *pre = NULL, *dec = NULL, *times = NULL;
	/* The request log splits only when it has every request's prefill
	 * and decode spans: an unknown completion (a mean itl with no output
	 * count) would leave that request's decode cells idle, so such a log
	 * leaves the split to the engine counters, as an unknown first token
	 * does (docs/trace-metrics.md, "Phases"). So does a log that leaves
	 * out work the engine counted (rc->log_accounts 0, the one judgement
	 * n(t) and tokens follow): the missing requests' cells would be idle. */
	int by_requests = rc->req != NULL && rc->log_accounts != 0 && reqs->times_whole;
	int by_engine = !by_requests && rc->eng && rc->eng->col[WC_ENG_RUNNING] &&
	                rc->eng->col[WC_ENG_PREFILL_S] && rc->eng->col[WC_ENG_DECODE_S];
	if (!by_requests && !by_engine)
		return;
	size_t nc = cell_energies(ct, cp, cn, row->metrics.energy_j, &cell);
	if (nc == 0)
		return;
	double e_pre = 0.0, e_dec = 0.0, e_idle = 0.0;
	if (by_requests) {
		const size_t m = reqs->n;
		pre = wc_alloc_array(nc, sizeof *pre);
		dec = wc_alloc_array(nc, sizeof *dec);
		times = wc_alloc_array(3 * (m ? m : 1), sizeof *times);
		if (!pre || !dec || !times)
			goto done;
		/* The row's requests' arrivals, first tokens and completions
		 * (counts are whole numbers: the order of the requests is not
		 * theirs to change). */
		for (size_t k = 0; k < m; k++) {
			size_t i = wc__ingest_req_at(reqs, k);
			times[k] = rc->req->arrival[i];
			times[m + k] = rc->req->first_token[i];
			times[2 * m + k] = rc->req->completion[i];
		}
		/* Counts at cell midpoints (the last, partial cell: its start). */
		wc_trace_interval_counts(times, times + m, m, a + 0.5 * dt, dt, nc, pre);
		wc_trace_interval_counts(times + m, times + 2 * m, m, a + 0.5 * dt, dt, nc, dec);
		for (size_t k = 0; k < nc; k++) {
			if (pre[k] > 0)
				e_pre += cell[k];
			else if (dec[k] > 0)
				e_dec += cell[k];
			else
				e_idle += cell[k];
		}
		snprintf(row->phase_source, sizeof row->phase_source, "requests");
	} else {
		double dp = wc__ingest_counter_delta(rc, WC_ENG_PREFILL_S, row->start_epoch, row->end_epoch);
		double dd = wc__ingest_counter_delta(rc, WC_ENG_DECODE_S, row->start_epoch, row->end_epoch);
		double busy = 0.0;
		int any_busy = 0;
		for (size_t k = 0; k < nc; k++) {
			double c0 = a + (double)k * dt, c1 = k + 1 == nc ? row->end_epoch : c0 + dt;
			double n = wc_engine_value_at(rc->eng, WC_ENG_RUNNING, a + ((double)k + 0.5) * dt);
			if (n > 0 || counters_advanced(rc, c0, c1)) {
				busy += cell[k];
				any_busy = 1;
			} else {
				e_idle += cell[k];
			}
		}
		if (!any_busy) {
			/* Nothing ran: the whole energy is idle whatever the time
			 * sums say, and prefill and decode are known to be 0 (a
			 * blank here lost the idle energy of a --segment row that
			 * ran nothing; docs/trace-metrics.md, "Phases"). */
			e_idle = row->metrics.energy_j;
		} else if (dp + dd > 0) {
			e_pre = busy * dp / (dp + dd);
			e_dec = busy - e_pre;
		} else {
			/* Requests ran, but how they split is unknown: only that
			 * split is blank. The idle cells are known as in any other
			 * row, and writing them keeps the segments' idle energies
			 * summing to the run's (docs/trace-metrics.md, "Phases"): a
			 * --segment 1 row at 82.8 W whose last 25 ms a token
			 * counter's interpolated move made busy lost all its idle
			 * energy, 10 of 94 rows and 120 J of a run's 1023 J. */
			e_pre = e_dec = NAN;
		}
		snprintf(row->phase_source, sizeof row->phase_source, "engine");
	}
	row->prefill_energy_j = e_pre;
	row->decode_energy_j = e_dec;
	row->idle_energy_j = e_idle;
done:
	free(cell);
	free(pre);
	free(dec);
	free(times);
}
