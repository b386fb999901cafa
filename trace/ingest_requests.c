/*
 * `wattcast ingest`: a request log placed on the engine's clock (a
 * relative one aligned on its counters) and checked against the engine's
 * work (docs/formats/telemetry.md, "Request logs").
 */
#include "ingest_internal.h"
#include "trace/load.h"
#include "trace/request_align.h"

#include <math.h>
#include <stdio.h>

/* engine.csv counts no completed requests: what only the log gives is blank */
#define PER_REQUEST_BLANK "requests and their means blank"

/* A request log that does not account for the engine's work
 * (wc_trace_log_accounts) is not the load's record: n(t), tokens and
 * replay's arrivals come from the engine then, and the user is told why. */
static void
warn_partial_log(const run_ctx *rc, const wc_ingest_options *opt, const wc_trace_log_account *acc)
{
	if (!opt->warn || rc->log_accounts != 0)
		return;
	char msg[WC_ERROR_MSG_MAX];
	if (acc->align_rms > acc->tolerance)
		wc_error_format_path(msg, sizeof msg, rc->req_path, ": placed with rms %.2f tokens, more than the %.0f the "
		                     "counter adds in one sample; n(t) and tokens from engine.csv, " PER_REQUEST_BLANK, acc->align_rms,
		                     acc->tolerance);
	else
		wc_error_format_path(msg, sizeof msg, rc->req_path, ": %.1f output tokens over %.3f-%.3f, but "
		                     "generation_tokens_total rose %.0f (one sample adds up to %.0f); n(t) and tokens "
		                     "from engine.csv, " PER_REQUEST_BLANK, acc->log_tokens, acc->a, acc->b, acc->engine_tokens, acc->tolerance);
	opt->warn(msg, opt->warn_payload);
}

/* The log's output tokens (NaN when a request's are unknown) and
 * request-seconds (n(t)'s integral) in [a, b]. */
static void
log_load_in(const wc_request_log *log, double a, double b, double *tokens, double *req_s)
{
	wc_trace_token_ramp r;
	*tokens = *req_s = 0.0;
	for (size_t i = 0; i < log->n; i++) {
		*tokens += wc_trace_token_ramp_of(log, i, &r) ? wc_trace_token_ramp_in(&r, a, b, 1) : NAN;
		double lo = fmax(log->arrival[i], a), hi = fmin(wc_trace_request_end(log, i), b);
		if (hi > lo)
			*req_s += hi - lo;
	}
}

/* A placement by requests in flight whose starts and ends sit further
 * from the gauge's than sampling explains (WC_REQUEST_ALIGN_EDGE_SHARE) is
 * uncertain by about that rms: said with what moving the log so far either
 * way does to the power log's J/token and mean running (the log's tokens
 * and n(t) stand, there being no counter to take instead). */
static void
warn_uncertain(const run_ctx *rc, const wc_ingest_options *opt, const wc_request_alignment *al)
{
	double r = al->edge_rms_s;
	if (!opt->warn || al->tokens || !(r > WC_REQUEST_ALIGN_EDGE_SHARE * al->interval_s))
		return;
	double tok0, req0, dtok = 0.0, dreq = 0.0;
	log_load_in(rc->req, rc->t0, rc->t1, &tok0, &req0);
	for (int side = -1; side <= 1; side += 2) {
		double tok, req;
		log_load_in(rc->req, rc->t0 + side * r, rc->t1 + side * r, &tok, &req);
		dtok = isfinite(dtok) && tok0 > 0 && tok > 0 ? fmax(dtok, fabs(tok0 / tok - 1.0)) : NAN;
		dreq = isfinite(dreq) && req0 > 0 ? fmax(dreq, fabs(req / req0 - 1.0)) : NAN;
	}
	char msg[WC_ERROR_MSG_MAX], effect[96] = "none of its requests runs in the power log";
	if (isfinite(dtok) && isfinite(dreq))
		snprintf(effect, sizeof effect, "J/token changes by up to %.1f %% and mean running by %.1f %%",
		         100.0 * dtok, 100.0 * dreq);
	else if (isfinite(dreq))
		snprintf(effect, sizeof effect, "mean running changes by up to %.1f %%", 100.0 * dreq);
	wc_error_format_path(msg, sizeof msg, rc->req_path, ": placed by requests in flight with starts and ends off the "
	                     "gauge's by rms %.3f s, over half its %.3f-s sampling interval: uncertain; moved %.3f s "
	                     "either way, %s", r, al->interval_s, r, effect);
	opt->warn(msg, opt->warn_payload);
}

int
wc__ingest_place_requests(run_ctx *rc, const wc_ingest_options *opt, wc_error *err)
{
	if (rc->req->relative_clock) {
		int r;
		wc_request_alignment al;
		if ((r = wc_request_log_align(rc->req, rc->eng, rc->req_path, &al, err)) != WC_OK)
			return r;
		if (opt->warn) {
			char msg[WC_ERROR_MSG_MAX], why[80] = "", edges[48] = "";
			/* A counter that counts at completion places nothing by tokens
			 * (docs/formats/telemetry.md, "Request logs"). */
			const char *ended = rc->eng ? rc->eng->at_end[WC_ENG_GENERATION_TOKENS] : NULL;
			if (!al.tokens && ended)
				snprintf(why, sizeof why, "; %.40s counts at completion", ended);
			if (!al.tokens)
				snprintf(edges, sizeof edges, ", starts and ends %.3f s off", al.edge_rms_s);
			wc_error_format_path(msg, sizeof msg, rc->req_path, ": start_times on the load generator's own clock, placed on "
			         "the engine's at %+.3f s (%s: rms %.2f over %zu samples%s%s)",
			         al.offset_s, al.tokens ? "generated tokens against generation_tokens_total"
			                                : "requests in flight against running + waiting",
			         al.rms, al.samples, why, edges);
			opt->warn(msg, opt->warn_payload);
		}
		warn_uncertain(rc, opt, &al);
	}
	/* judged once, here: n(t) (wc_trace_running_series), every row,
	 * segment and replay window read it */
	wc_trace_log_account acc;
	rc->log_accounts = wc_trace_log_accounts(rc->req, rc->eng, &acc);
	warn_partial_log(rc, opt, &acc);
	return WC_OK;
}
