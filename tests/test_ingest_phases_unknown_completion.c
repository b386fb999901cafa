/*
 * Phase energies when a request's completion is unknown (a requests.json
 * mean itl with a null or NaN output_lens; docs/trace-metrics.md,
 * "Phases"). The request log split booked such a request's whole decode
 * as idle: on a real A100 replay whose 281-token request had its count
 * nulled, decode fell from 1550.9 J to 317.6 J and idle rose from 67.2 J
 * to 1300.5 J. Such a log leaves the split to the engine counters, as an
 * unknown first token does, and without them the split is blank.
 */
#include "data/data.h"
#include "tests/support/support.h"
#include "trace/trace.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T0 1784415000.0

/* 40 s at 0.25 s: 85 W idle but for 4-34 s at 300 W, where request 0
 * (arrival 4 s, 51 tokens) then request 1 (arrival 5 s, output_lens
 * `hole`: 2851 tokens at 10 ms, so running to 34 s) generate; with
 * `engine`, an engine log whose gauge and time sums say so. */
static void
write_run(const char *dir, const char *hole, int engine)
{
	char *p = path_join(dir, "power.csv"), *e = path_join(dir, "engine.csv");
	char *m = path_join(dir, "wattcast-run.json"), *q = path_join(dir, "requests.json");
	FILE *fp = fopen(p, "w"), *fe = engine ? fopen(e, "w") : NULL;
	double pre = 0.0, dec = 0.0;
	fprintf(fp, "timestamp, index, power.draw [W]\n");
	if (fe)
		fprintf(fe, "timestamp,num_requests_running,request_prefill_time_seconds_sum,"
		            "request_decode_time_seconds_sum\n");
	for (int k = 0; k < 160; k++) {
		double t = T0 + 0.25 * k, s = 0.25 * k;
		int busy = s >= 4.0 && s < 34.0;
		long ms = (long)llround(fmod(t, 86400.0) * 1000.0);
		if (busy) {
			pre += 0.25 * 0.03;
			dec += 0.25 * 0.97;
		}
		fprintf(fp, "2026/07/18 %02ld:%02ld:%02ld.%03ld, 0, %.2f W\n", ms / 3600000, ms / 60000 % 60,
		        ms / 1000 % 60, ms % 1000, busy ? 300.0 : 85.0);
		if (fe)
			fprintf(fe, "%.3f,%d,%.4f,%.4f\n", t, busy, pre, dec);
	}
	fclose(fp);
	if (fe)
		fclose(fe);
	else
		remove(e);
	char text[1024];
	snprintf(text, sizeof text, "{\"request_timestamps\": [%.3f, %.3f], \"ttfts\": [0.5, 0.5], "
	         "\"itls\": [0.01, 0.01], \"input_lens\": [4000, 4200], \"output_lens\": [51, %s]}\n",
	         T0 + 4.0, T0 + 5.0, hole);
	write_text(q, text);
	write_text(m, "{\"schema\": \"wattcast.run/2\", \"run_id\": \"phases\", \"platform\": \"A100\", "
	              "\"tp\": 1, \"model\": \"Qwen/Qwen3-8B\", \"utc_offset_s\": 0}\n");
	free(p);
	free(e);
	free(m);
	free(q);
}

static void
ingest(const char *dir, wc_ingest_result *res)
{
	wc_ingest_options o;
	wc_error err;
	wc_ingest_options_init(&o);
	CHECK_INT(wc_ingest_run(dir, &o, res, &err), WC_OK);
}

int
main(void)
{
	char *dir = test_tmpdir("ingest_phases_unknown_completion");
	wc_ingest_result res = { NULL, 0, 0 };

	/* Every count known: the request log splits, 30 s busy. */
	write_run(dir, "2851", 1);
	ingest(dir, &res);
	CHECK_INT(res.n_rows, 1);
	if (res.n_rows == 1) {
		const wc_ingest_row *r = &res.rows[0];
		CHECK(strcmp(r->phase_source, "requests") == 0);
		CHECK(r->prefill_energy_j + r->decode_energy_j > 8800.0);
		CHECK(r->idle_energy_j < 900.0);
	}
	wc_ingest_result_clear(&res);

	/* The count null or NaN: the engine counters split, and the 29 s of
	 * request 1's decode are not idle. */
	static const char *const holes[] = { "null", "NaN" };
	for (int h = 0; h < 2; h++) {
		write_run(dir, holes[h], 1);
		ingest(dir, &res);
		CHECK_INT(res.n_rows, 1);
		if (res.n_rows == 1) {
			const wc_ingest_row *r = &res.rows[0];
			fprintf(stderr, "%s: %.1f J: prefill %.1f, decode %.1f, idle %.1f J (%s)\n", holes[h],
			        r->metrics.energy_j, r->prefill_energy_j, r->decode_energy_j, r->idle_energy_j,
			        r->phase_source);
			CHECK(strcmp(r->phase_source, "engine") == 0);
			CHECK(r->decode_energy_j > 8000.0);
			CHECK(r->idle_energy_j < 900.0);
			CHECK_NEAR(r->prefill_energy_j + r->decode_energy_j + r->idle_energy_j, r->metrics.energy_j,
			           1e-9 * r->metrics.energy_j);
		}
		wc_ingest_result_clear(&res);
	}

	/* No engine log: the decode span is unknown, so is the split. */
	write_run(dir, "null", 0);
	ingest(dir, &res);
	CHECK_INT(res.n_rows, 1);
	if (res.n_rows == 1) {
		const wc_ingest_row *r = &res.rows[0];
		CHECK(isnan(r->prefill_energy_j) && isnan(r->decode_energy_j) && isnan(r->idle_energy_j));
		CHECK(strcmp(r->phase_source, "") == 0);
	}
	wc_ingest_result_clear(&res);
	free(dir);
	return check_report("test_ingest_phases_unknown_completion");
}
