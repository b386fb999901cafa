/*
 * The two PowerTrace-Sim smoke replays (A100, Qwen3-8B, the same four
 * prompts) each have a request running across an end of the power log:
 * ..083's first arrives 45 ms before its first sample, ..161's first 52 ms
 * before and its fourth completes 27 ms after its last. Their energy and
 * output tokens hold those requests' shares; a count of the requests
 * completed in the window did not (..161: 3 requests, 118.67 tokens and
 * 582.42 J each, so 4.908 J per token against the row's 4.4307). Each
 * request now counts by the share of its lifetime inside the window
 * (docs/formats/telemetry.md, "What ingest derives", Requests), and the
 * row agrees with itself: energy_per_request_j / output_tokens is
 * energy_per_token_j. Skipped (77) when ../shared is absent.
 */
#include "data/data.h"
#include "tests/support/support.h"
#include "trace/trace.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static void
check_run(const char *shared, const char *id, double requests)
{
	char dir[1024];
	snprintf(dir, sizeof dir, "%s/data/real/powertrace-sim/trace_replay_smoke_qwen3-8b_a100/%s", shared, id);
	wc_ingest_options o;
	wc_ingest_options_init(&o);
	wc_ingest_result res = { NULL, 0, 0 };
	wc_error err;
	CHECK_INT(wc_ingest_run(dir, &o, &res, &err), WC_OK);
	CHECK_INT(res.n_rows, 1);
	if (res.n_rows == 1) {
		const wc_ingest_row *r = &res.rows[0];
		/* the shares of the 747 ms requests the log's ends cut */
		CHECK_NEAR(r->requests, requests, 1e-3);
		CHECK(r->run.output_tokens > 0 && r->run.input_tokens > 0);
		CHECK_NEAR(r->energy_per_request_j / r->run.output_tokens, r->run.energy_per_token_j,
		           1e-9 * r->run.energy_per_token_j);
		CHECK_NEAR(r->energy_per_request_j * r->requests, r->metrics.energy_j, 1e-9 * r->metrics.energy_j);
	}
	wc_ingest_result_clear(&res);
}

int
main(void)
{
	const char *shared = test_shared_dir();
	if (!shared)
		return TEST_SKIP;
	check_run(shared, "a100_trace_replay_tp1_1784415083", 3.939);
	check_run(shared, "a100_trace_replay_tp1_1784415161", 3.889);
	return check_report("test_real_request_shares");
}
