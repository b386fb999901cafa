/*
 * `wattcast ingest` of a TGI run whose manifest states a level's counts
 * (docs/formats/telemetry.md, "What ingest derives", Requests and
 * Tokens): TGI's engine.csv counts no tokens, so a row's output tokens
 * are the level's stated count, which covers the whole level. A level
 * cut by the power log (or cut into segments) has none in its rows, and
 * the warning said "no request log or level count" beside a manifest
 * stating 1000 output tokens. It now says why the count stands in for no
 * row. The control: the whole level's row takes the stated count and
 * nothing is said about tokens.
 */
#include "data/data.h"
#include "tests/support/ingest_run.h"
#include "tests/support/support.h"
#include "tests/support/synth_epoch.h"
#include "trace/trace.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define T0 1700000000.0

/* TGI's gauges at 0.25 s and power at 0.1 s over T0 .. T0 + 5.9 s, and a
 * level ending at T0 + 5 s from `start`, stating 13 requests and 1000
 * output tokens. */
static char *
write_run(const char *root, const char *name, const char *start)
{
	char buf[8192], *p, *d = path_join(root, name);
	mkdir(d, 0755);
	int running[24];
	for (int k = 0; k < 24; k++)
		running[k] = 4;
	synth_epoch_tgi(d, T0, 0.25, running, 24);
	synth_epoch_power(d, T0, 60, 200.0, 0.0);
	snprintf(buf, sizeof buf,
	         "{\"run_id\": \"%s\", \"hardware\": \"A100\", \"model\": \"Qwen/Qwen3-8B\", \"tp\": 1,"
	         " \"clock\": {\"power_timestamp_basis\": \"unix_epoch\", \"engine_timestamp_basis\": \"unix_epoch\"},"
	         " \"probe\": {\"levels\": [{\"label\": \"rate\", \"t_start_epoch\": %s,"
	         " \"t_end_epoch\": 1700000005.0, \"params\": {\"request_rate\": 2.0, \"burstiness\": 1.0},"
	         " \"summary\": {\"completed\": 13, \"total_input_tokens\": 1300, \"total_output_tokens\": 1000}}]}}",
	         name, start);
	p = path_join(d, "manifest.json");
	CHECK_INT(write_text(p, buf), 0);
	free(p);
	return d;
}

int
main(void)
{
	char *root = test_tmpdir("ingest_tgi_cut_level");
	wc_ingest_result res = { NULL, 0, 0 };
	test_warnings w;

	/* The control: the whole level's row has the stated 1000 tokens over
	 * its 5 s, and no warning about tokens. */
	char *d = write_run(root, "whole", "1700000000.0");
	CHECK_INT(test_ingest_a100(d, 0, &res, &w), WC_OK);
	CHECK_INT(res.n_rows, 1);
	if (res.n_rows == 1)
		CHECK_NEAR(res.rows[0].run.throughput_tok_s, 200.0, 1e-9);
	CHECK(strstr(w.text, "output-token count") == NULL);
	wc_ingest_result_clear(&res);

	/* Segments of the whole level: the count is the level's, not a
	 * segment's. */
	CHECK_INT(test_ingest_a100(d, 2.0, &res, &w), WC_OK);
	CHECK_CONTAINS(w.text, "rows have no output-token count (engine.csv has no generation_tokens_total, as "
	                       "TGI's has none; the level's stated count covers the whole level, not a segment)");
	CHECK(strstr(w.text, "no request log or level count") == NULL);
	wc_ingest_result_clear(&res);
	free(d);

	/* The level starts 2 s before the power log: cut, its row blank. */
	d = write_run(root, "cut", "1699999998.0");
	CHECK_INT(test_ingest_a100(d, 0, &res, &w), WC_OK);
	CHECK_INT(res.n_rows, 1);
	if (res.n_rows == 1)
		CHECK(isnan(res.rows[0].run.throughput_tok_s) && isnan(res.rows[0].requests));
	/* (the folder's path is shortened to keep the message in 255 bytes) */
	CHECK_CONTAINS(w.text, "/cut: 1 of 1 rows have no output-token count (engine.csv has no "
	               "generation_tokens_total, as TGI's has none; the level's stated count covers the whole level; "
	               "the window is cut): throughput_tok_s and energy_per_token_j are blank\n");
	CHECK(strstr(w.text, "no request log or level count") == NULL);
	wc_ingest_result_clear(&res);
	free(d);

	free(root);
	return check_report("test_ingest_tgi_cut_level");
}
