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
#include "trace/trace.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define T0 1784415000.0
#define POWER_W 300.0

/* Two requests (s from T0): A arrives at 0.5, first token at 1.0, 401
 * tokens at 20 ms to 9.0; B arrives at 8.0, first token at 8.2, 81 tokens
 * to 9.8, running when the engine log stops at 9.5 s. */
static const double arrival[2] = { 0.5, 8.0 }, ttft[2] = { 0.5, 0.2 }, out_len[2] = { 401, 81 };
#define ITL 0.02

/* A run folder: power at 0.25 s over 0-10 s at 300 W, TGI's gauges at
 * 0.25 s to 9.5 s, a manifest stating 2 requests, the request log when
 * `with_log`. */
static char *
write_run(const char *root, const char *name, int with_log)
{
	char *d = path_join(root, name);
	mkdir(d, 0755);
	char *p = path_join(d, "power.csv"), *e = path_join(d, "engine.csv");
	char *m = path_join(d, "wattcast-run.json"), *q = path_join(d, "requests.json");
	FILE *fp = fopen(p, "w"), *fe = fopen(e, "w");
	CHECK(fp && fe);
	if (!fp || !fe)
		exit(1);
	fprintf(fp, "timestamp, index, power.draw [W]\n");
	fprintf(fe, "timestamp,tgi_batch_current_size,tgi_queue_size\n");
	for (int k = 0; k <= 40; k++) {
		double s = 0.25 * k, t = T0 + s;
		int running = 0;
		for (int i = 0; i < 2; i++)
			running += s >= arrival[i] && s < arrival[i] + ttft[i] + ITL * (out_len[i] - 1);
		long ms = (long)llround(fmod(t, 86400.0) * 1000.0);
		fprintf(fp, "2026/07/18 %02ld:%02ld:%02ld.%03ld, 0, %.2f W\n", ms / 3600000, ms / 60000 % 60,
		        ms / 1000 % 60, ms % 1000, POWER_W);
		if (s <= 9.5 + 1e-9)
			fprintf(fe, "%.3f,%d.0,0.0\n", t, running);
	}
	fclose(fp);
	fclose(fe);
	char json[400];
	snprintf(json, sizeof json,
	         "{\"schema\": \"wattcast.run/3\", \"run_id\": \"%s\", \"platform\": \"A100\", \"tp\": 1, "
	         "\"model\": \"Qwen/Qwen3-8B\", \"utc_offset_s\": 0, \"requests\": 2}\n", name);
	CHECK(write_text(m, json) == 0);
	if (with_log) {
		snprintf(json, sizeof json,
		         "{\"request_timestamps\": [%.3f, %.3f], \"ttfts\": [%g, %g], \"itls\": [%g, %g], "
		         "\"input_lens\": [100, 100], \"output_lens\": [%g, %g]}\n",
		         T0 + arrival[0], T0 + arrival[1], ttft[0], ttft[1], ITL, ITL, out_len[0], out_len[1]);
		CHECK(write_text(q, json) == 0);
	}
	free(p);
	free(e);
	free(m);
	free(q);
	return d;
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
	         "generation_tokens_total, as TGI's has none; no request log or level count): throughput_tok_s "
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
