/*
 * `wattcast ingest` of a run whose logs cover part of a load level
 * (docs/formats/telemetry.md, "Load levels and idle windows"). An engine
 * log that stopped halfway was read as if its counters had stopped moving:
 * on a real H100 run cut after 33 of 66 s the row kept the whole level,
 * with 2.8x the true energy per token and n(t) frozen at its last value.
 * Now the row is cut to the span the power and engine logs both cover,
 * with a warning naming both spans, and refused when they share none of
 * it; an engine log starting late no longer fills the idle window before
 * it with its first sample's running count. A row cut short by either log
 * covers no whole level, so the manifest's request count (the level's)
 * is not its: requests and energy per request are left blank.
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
#define RATE 100.0 /* generated tokens per second while loaded */

/* A run folder: power at 0.25 s over 60 s (85 W idle, 300 W loaded),
 * one level from 5 s to 55 s with 100 requests and 8 running, an idle
 * window over the first 4 s, and engine counters at 0.25 s from e0 to
 * e1 s (generation tokens growing at RATE inside the level). The power
 * log covers p0 to p1 s. */
static char *
write_run(const char *root, const char *name, double p0, double p1, double e0, double e1)
{
	char *d = path_join(root, name);
	mkdir(d, 0755);
	char *p = path_join(d, "power.csv"), *e = path_join(d, "engine.csv");
	char *m = path_join(d, "wattcast-run.json");
	FILE *fp = fopen(p, "w"), *fe = fopen(e, "w");
	CHECK(fp && fe);
	if (!fp || !fe)
		exit(1);
	fprintf(fp, "timestamp, index, power.draw [W]\n");
	fprintf(fe, "timestamp,num_requests_running,num_requests_waiting,generation_tokens_total,"
	            "iteration_tokens_total_count\n");
	for (int k = 0; k <= 240; k++) {
		double s = 0.25 * k, t = T0 + s;
		int busy = s >= 5.0 && s < 55.0;
		double tok = RATE * fmin(fmax(s - 5.0, 0.0), 50.0);
		long ms = (long)llround(fmod(t, 86400.0) * 1000.0);
		if (s >= p0 && s <= p1)
			fprintf(fp, "2026/07/18 %02ld:%02ld:%02ld.%03ld, 0, %.2f W\n", ms / 3600000,
			        ms / 60000 % 60, ms / 1000 % 60, ms % 1000, busy ? 300.0 : 85.0);
		if (s >= e0 && s <= e1)
			fprintf(fe, "%.3f,%d,0,%.1f,%.1f\n", t, busy ? 8 : 0, tok, tok / 8.0);
	}
	fclose(fp);
	fclose(fe);
	char json[600];
	snprintf(json, sizeof json,
	         "{\"schema\": \"wattcast.run/3\", \"run_id\": \"%s\", \"platform\": \"A100\", \"tp\": 1, "
	         "\"model\": \"Qwen/Qwen3-8B\", \"utc_offset_s\": 0, "
	         "\"idle_window\": {\"start_epoch\": %.3f, \"end_epoch\": %.3f}, "
	         "\"levels\": [{\"label\": \"r4\", \"start_epoch\": %.3f, \"end_epoch\": %.3f, "
	         "\"request_rate\": 2, \"requests\": 100}]}\n",
	         name, T0, T0 + 4.0, T0 + 5.0, T0 + 55.0);
	CHECK(write_text(m, json) == 0);
	free(p);
	free(e);
	free(m);
	return d;
}

int
main(void)
{
	char *root = test_tmpdir("ingest_partial_logs");
	wc_ingest_result res = { NULL, 0, 0 };
	test_warnings w;
	wc_error err;

	/* The control: both logs cover the level; one row over it. */
	char *d = write_run(root, "whole", 0.0, 60.0, 0.0, 60.0);
	CHECK_INT(test_ingest_run(d, 0, &res, &w, &err), WC_OK);
	CHECK_INT(res.n_rows, 1);
	if (res.n_rows == 1) {
		const wc_ingest_row *r = &res.rows[0];
		CHECK_NEAR(r->end_epoch - r->start_epoch, 50.0, 1e-6);
		CHECK_NEAR(r->run.throughput_tok_s, RATE, 1e-6);
		CHECK_NEAR(r->requests, 100.0, 0.0);
	}
	CHECK(strstr(w.text, "engine log") == NULL);
	wc_ingest_result_clear(&res);
	free(d);

	/* The engine log stops at 30 s: the row is cut to 5-30 s, its
	 * throughput the true rate (it was 50 % of it: 2500 tokens over 50 s). */
	d = write_run(root, "engine_stops", 0.0, 60.0, 0.0, 30.0);
	CHECK_INT(test_ingest_run(d, 0, &res, &w, &err), WC_OK);
	CHECK_INT(res.n_rows, 1);
	if (res.n_rows == 1) {
		const wc_ingest_row *r = &res.rows[0];
		CHECK_NEAR(r->start_epoch, T0 + 5.0, 1e-6);
		CHECK_NEAR(r->end_epoch, T0 + 30.0, 1e-6);
		CHECK_NEAR(r->run.throughput_tok_s, RATE, 1e-6);
		CHECK_NEAR(r->run.running, 8.0, 1e-9);
		/* Half the level: not the level's 100 requests. */
		CHECK(isnan(r->requests) && isnan(r->energy_per_request_j));
	}
	CHECK_CONTAINS(w.text, "load level 0 ('r4') cut to 1784415005.000-1784415030.000, the span both logs cover "
	                       "(power 1784415000.000-1784415060.000, engine 1784415000.000-1784415030.000)");
	wc_ingest_result_clear(&res);
	free(d);

	/* The engine log starts at 20 s: no sample of it lies in the idle
	 * window, so its first (8 running) says nothing about it -- the run
	 * was refused as "idle_window ... overlaps load: 8 request(s)". */
	d = write_run(root, "engine_late", 0.0, 60.0, 20.0, 60.0);
	CHECK_INT(test_ingest_run(d, 0, &res, &w, &err), WC_OK);
	CHECK_INT(res.n_rows, 1);
	if (res.n_rows == 1) {
		CHECK_NEAR(res.rows[0].start_epoch, T0 + 20.0, 1e-6);
		CHECK_NEAR(res.rows[0].run.throughput_tok_s, RATE, 1e-6);
	}
	CHECK_CONTAINS(w.text, "engine 1784415020.000-1784415060.000)");
	wc_ingest_result_clear(&res);
	free(d);

	/* The power log stops at 30 s: the row keeps its tokens but not the
	 * manifest's count, which is the whole level's (it said 100
	 * requests, and energy per request 40 % of the truth, as --segment
	 * never did). */
	d = write_run(root, "power_stops", 0.0, 30.0, 0.0, 60.0);
	CHECK_INT(test_ingest_run(d, 0, &res, &w, &err), WC_OK);
	CHECK_INT(res.n_rows, 1);
	if (res.n_rows == 1) {
		const wc_ingest_row *r = &res.rows[0];
		CHECK_NEAR(r->end_epoch, T0 + 30.0, 1e-6);
		CHECK_NEAR(r->run.throughput_tok_s, RATE, 1e-6);
		CHECK(isnan(r->requests) && isnan(r->energy_per_request_j));
		CHECK(isnan(r->run.output_tokens));
	}
	CHECK_CONTAINS(w.text, "load level 0 ('r4') cut to the power log");
	wc_ingest_result_clear(&res);
	free(d);

	/* The engine log covers only the tail after the level: refused,
	 * naming the level and the engine log's span (the message fits its
	 * 255 bytes under a long folder path). */
	d = write_run(root, "engine_after", 0.0, 60.0, 57.0, 60.0);
	CHECK_INT(test_ingest_run(d, 0, &res, &w, &err), WC_EINVAL);
	CHECK_CONTAINS(err.msg, "engine_after: check engine.csv is whole: it covers 1784415057.000-1784415060.000, "
	                        "none of load level 0 ('r4') (1784415005.000-1784415055.000)");
	CHECK(strlen(err.msg) <= 255);
	CHECK_INT(res.n_rows, 0);
	free(d);

	free(root);
	return check_report("test_ingest_partial_logs");
}
