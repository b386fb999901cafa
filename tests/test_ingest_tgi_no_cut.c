/*
 * `wattcast ingest` of a TGI run (docs/formats/telemetry.md, "Clocks and
 * UTC offsets"; "What ingest derives", Tokens). Within the tolerance, a
 * window is cut to the engine log's end where its last sample shows a
 * request running only when the output tokens come from the engine's
 * counter; TGI's engine.csv has none. A BurstGPT replay with a TGI
 * engine.csv and no manifest was cut anyway, 0.034 s short of its power
 * log ("...; a request runs at the engine log's end"), and its row had no
 * throughput or energy per token with nothing saying why. Now the row
 * keeps the power log's window, and one warning a run says which rows
 * have no output-token count and why. The control: a request log giving
 * every request's tokens is the source, and nothing is said.
 */
#include "data/data.h"
#include "tests/support/ingest_run.h"
#include "tests/support/support.h"
#include "tests/support/synth_pair.h"
#include "trace/trace.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define T0 SYNTH_PAIR_T0

/* The two requests of tests/support/synth_pair.h, B running when the
 * engine log stops at 9.5 s: TGI's gauges (no token counter) to 9.5 s,
 * the request log when `with_log`. */
static char *
write_run(const char *root, const char *name, int with_log)
{
	return synth_pair_folder(root, name, SYNTH_PAIR_TGI, 9.5, with_log);
}

int
main(void)
{
	char *root = test_tmpdir("ingest_tgi_no_cut");
	wc_ingest_result res = { NULL, 0, 0 };
	test_warnings w;
	wc_error err;
	char want[600];

	/* No token source: the row keeps 0-10 s and its 3000 J (it was cut to
	 * 0-9.5 s, 2850 J), the manifest's 2 requests are the whole run's,
	 * and the blank throughput is said once. */
	char *d = write_run(root, "tgi", 0);
	CHECK_INT(test_ingest_run(d, 0, &res, &w, &err), WC_OK);
	CHECK_INT(res.n_rows, 1);
	if (res.n_rows == 1) {
		const wc_ingest_row *r = &res.rows[0];
		CHECK_NEAR(r->start_epoch, T0, 1e-6);
		CHECK_NEAR(r->end_epoch, T0 + 10.0, 1e-6);
		CHECK_NEAR(r->metrics.energy_j, 3000.0, 1e-6);
		CHECK_NEAR(r->requests, 2.0, 0.0);
		CHECK_NEAR(r->energy_per_request_j, 1500.0, 1e-9);
		CHECK(isnan(r->run.throughput_tok_s) && isnan(r->run.energy_per_token_j));
	}
	CHECK(strstr(w.text, "cut to") == NULL);
	snprintf(want, sizeof want, "%s: 1 of 1 rows have no output-token count (engine.csv has no "
	         "generation_tokens_total, as TGI's has none; no request log or token count): throughput_tok_s "
	         "and energy_per_token_j are blank", d);
	CHECK_CONTAINS(w.text, want);
	wc_ingest_result_clear(&res);

	/* Segments: one warning for the run's rows, not one per segment. */
	CHECK_INT(test_ingest_run(d, 5.0, &res, &w, &err), WC_OK);
	CHECK_INT(res.n_rows, 2);
	if (res.n_rows == 2)
		CHECK_NEAR(res.rows[1].end_epoch, T0 + 10.0, 1e-6);
	CHECK_CONTAINS(w.text, ": 2 of 2 rows have no output-token count");
	CHECK(strstr(strstr(w.text, "output-token count") + 1, "output-token count") == NULL);
	wc_ingest_result_clear(&res);
	free(d);

	/* The control: the request log gives every request's tokens, 482 over
	 * 0-10 s, and no warning is about tokens. */
	d = write_run(root, "tgi_log", 1);
	CHECK_INT(test_ingest_run(d, 0, &res, &w, &err), WC_OK);
	CHECK_INT(res.n_rows, 1);
	if (res.n_rows == 1) {
		const wc_ingest_row *r = &res.rows[0];
		CHECK_NEAR(r->end_epoch, T0 + 10.0, 1e-6);
		CHECK_NEAR(r->run.throughput_tok_s * 10.0, 482.0, 1e-6);
	}
	CHECK(strstr(w.text, "output-token count") == NULL);
	CHECK(strstr(w.text, "cut to") == NULL);
	wc_ingest_result_clear(&res);
	free(d);

	free(root);
	return check_report("test_ingest_tgi_no_cut");
}
