/*
 * `wattcast ingest`: a request log placed on the engine's clock (a
 * relative one aligned on its counters) and checked against the engine's
 * work (docs/formats/telemetry.md, "Request logs").
 */
#include "ingest_internal.h"
#include "trace/load.h"
#include "trace/request_align.h"

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

int
wc__ingest_place_requests(run_ctx *rc, const wc_ingest_options *opt, wc_error *err)
{
	if (rc->req->relative_clock) {
		int r;
		wc_request_alignment al;
		if ((r = wc_request_log_align(rc->req, rc->eng, rc->req_path, &al, err)) != WC_OK)
			return r;
		if (opt->warn) {
			char msg[WC_ERROR_MSG_MAX], why[80] = "";
			/* A counter that counts at completion places nothing by tokens
			 * (docs/formats/telemetry.md, "Request logs"). */
			const char *ended = rc->eng ? rc->eng->at_end[WC_ENG_GENERATION_TOKENS] : NULL;
			if (!al.tokens && ended)
				snprintf(why, sizeof why, "; %.40s counts at completion", ended);
			wc_error_format_path(msg, sizeof msg, rc->req_path, ": start_times on the load generator's own clock, placed on "
			         "the engine's at %+.3f s (%s: rms %.2f over %zu samples%s)",
			         al.offset_s, al.tokens ? "generated tokens against generation_tokens_total"
			                                : "requests in flight against running + waiting",
			         al.rms, al.samples, why);
			opt->warn(msg, opt->warn_payload);
		}
	}
	/* judged once, here: n(t) (wc_trace_running_series), every row,
	 * segment and replay window read it */
	wc_trace_log_account acc;
	rc->log_accounts = wc_trace_log_accounts(rc->req, rc->eng, &acc);
	warn_partial_log(rc, opt, &acc);
	return WC_OK;
}
