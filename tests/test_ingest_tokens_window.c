/*
 * `wattcast ingest`: energy and output tokens over one window
 * (docs/formats/telemetry.md, "What ingest derives", Tokens). An engine
 * log stopping a fraction of a second before the power log, within the
 * tolerance that leaves the window whole, held its token counter flat
 * while the energy ran on: a real A100 replay divided its whole 2163.67 J
 * by the 394 tokens counted to the engine's last sample, not the 397 its
 * requests generated before the power log ended (5.4915 J/token against
 * 5.4501). Now a request log that gives every request's tokens counts
 * them by its ramp over the window; without it, the window is cut to the
 * engine log's end when a request runs at its last sample.
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

/* The two requests of tests/support/synth_pair.h: 482 tokens, all before
 * the power log ends at 10 s. Engine counters at 0.25 s from 0 to e1 s,
 * and the request log when `with_log`. */
static char *
write_run(const char *root, const char *name, double e1, int with_log)
{
	return synth_pair_folder(root, name, SYNTH_PAIR_VLLM, e1, with_log);
}

/* Tokens the row's energy per token divides by, from its throughput. */
static double
row_tokens(const wc_ingest_row *r)
{
	return r->run.throughput_tok_s * (r->end_epoch - r->start_epoch);
}

int
main(void)
{
	char *root = test_tmpdir("ingest_tokens_window");
	wc_ingest_result res = { NULL, 0, 0 };
	test_warnings w;
	wc_error err;

	/* The engine log stops at 9.5 s (0.5 s short: within its 1 s
	 * tolerance) while B runs; the request log has every request's
	 * tokens. The row keeps 0-10 s and its 3000 J, and divides them by
	 * the 482 tokens generated in it (it took the counter's 467 at 9.5 s:
	 * 6.424 J/token against 6.224). */
	char *d = write_run(root, "with_log", 9.5, 1);
	CHECK_INT(test_ingest_run(d, 0, &res, &w, &err), WC_OK);
	CHECK_INT(res.n_rows, 1);
	if (res.n_rows == 1) {
		const wc_ingest_row *r = &res.rows[0];
		CHECK_NEAR(r->end_epoch - r->start_epoch, 10.0, 1e-6);
		CHECK_NEAR(r->metrics.energy_j, 3000.0, 1e-6);
		CHECK_NEAR(row_tokens(r), 482.0, 1e-6);
		CHECK_NEAR(r->run.energy_per_token_j, 3000.0 / 482.0, 1e-9);
		/* The row's fields agree: its requests all completed in it. */
		CHECK_NEAR(r->requests * r->run.output_tokens, row_tokens(r), 1e-6);
		/* The steps after 9.5 s are unseen: unknown, not none. */
		CHECK(isnan(r->iterations) && isnan(r->energy_per_iteration_j));
	}
	CHECK(strstr(w.text, "cut to") == NULL);
	wc_ingest_result_clear(&res);

	/* Segments of 5 s: each has its share of A's ramp, and they add up. */
	CHECK_INT(test_ingest_run(d, 5.0, &res, &w, &err), WC_OK);
	CHECK_INT(res.n_rows, 2);
	if (res.n_rows == 2) {
		/* A by 5 s: half a token below 1 + 400 * 4 / 8. */
		CHECK_NEAR(row_tokens(&res.rows[0]), 200.5, 1e-6);
		CHECK_NEAR(row_tokens(&res.rows[0]) + row_tokens(&res.rows[1]), 482.0, 1e-6);
	}
	wc_ingest_result_clear(&res);
	free(d);

	/* No request log: the counter says nothing after 9.5 s while B runs,
	 * so the row is cut to 0-9.5 s, its 2850 J over the 467 tokens by then
	 * (it was 3000 J over them), with a warning saying why. */
	const double by_9_5 = synth_pair_tokens_by(9.5);
	CHECK_NEAR(by_9_5, 467.0, 1.0);
	d = write_run(root, "counters", 9.5, 0);
	CHECK_INT(test_ingest_run(d, 0, &res, &w, &err), WC_OK);
	CHECK_INT(res.n_rows, 1);
	if (res.n_rows == 1) {
		const wc_ingest_row *r = &res.rows[0];
		CHECK_NEAR(r->end_epoch, T0 + 9.5, 1e-6);
		CHECK_NEAR(r->metrics.energy_j, 2850.0, 1e-6);
		CHECK_NEAR(row_tokens(r), by_9_5, 1e-6);
		CHECK_NEAR(r->run.energy_per_token_j, 2850.0 / by_9_5, 1e-9);
		CHECK_NEAR(r->iterations, by_9_5, 1e-6);
		/* A cut within the tolerance is a cut: the manifest's 2 are the
		 * whole run's, not the window's (B completes past it), so
		 * requests are blank. */
		CHECK(isnan(r->requests) && isnan(r->energy_per_request_j));
	}
	CHECK_CONTAINS(w.text, "the row cut to 1784415000.000-1784415009.500, the span both logs cover (power "
	                       "1784415000.000-1784415010.000, engine 1784415000.000-1784415009.500); a request runs "
	                       "at the engine log's end");
	wc_ingest_result_clear(&res);
	free(d);

	/* The control: an engine log reaching the power log's end cuts
	 * nothing, and its counter holds all 482 tokens. */
	d = write_run(root, "counters_whole", 10.0, 0);
	CHECK_INT(test_ingest_run(d, 0, &res, &w, &err), WC_OK);
	CHECK_INT(res.n_rows, 1);
	if (res.n_rows == 1) {
		CHECK_NEAR(res.rows[0].end_epoch, T0 + 10.0, 1e-6);
		CHECK_NEAR(row_tokens(&res.rows[0]), 482.0, 1e-6);
		CHECK_NEAR(res.rows[0].requests, 2.0, 0.0); /* the manifest's, the run whole */
	}
	CHECK(strstr(w.text, "cut to") == NULL);
	wc_ingest_result_clear(&res);
	free(d);

	free(root);
	return check_report("test_ingest_tokens_window");
}
