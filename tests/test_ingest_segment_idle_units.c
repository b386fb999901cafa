/*
 * An idle `ingest --segment` row (mean running below 0.5) blanks every
 * energy per unit of work, not only its energy per token
 * (trace/idle.h, wc_trace_idle_row; docs/formats/telemetry.md, "What
 * ingest derives", Segments): its power over a little stray work is idle
 * power, whether divided by that work's tokens, its requests or its
 * engine steps. On a real A100 run with --segment 10, `#seg2` at 0.055
 * running and 97 W kept 17.49 J per iteration over 55 interpolated steps
 * once its energy per token was blank, and a replay's idle segment 639 J
 * per request over 0.52 requests, so that energy_per_request_j /
 * output_tokens no longer gave energy_per_token_j. A loaded segment keeps
 * all three.
 */
#include "data/data.h"
#include "tests/support/support.h"
#include "trace/trace.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T0 1784415000.0

/* 40 s at 0.25 s on an A100: one stray 0.4 s request at 3 s in an idle
 * first 20 s (85 W), then four lanes of 5-s requests of 100 tokens at
 * about 300 W. The engine counts the same work: its running gauge, its
 * output tokens and its steps (one a token per lane). */
static void
write_run(const char *dir)
{
	char *p = path_join(dir, "power.csv"), *e = path_join(dir, "engine.csv");
	char *q = path_join(dir, "requests.csv"), *m = path_join(dir, "wattcast-run.json");
	FILE *fp = fopen(p, "w"), *fe = fopen(e, "w"), *fq = fopen(q, "w");
	CHECK(fp && fe && fq);
	if (!fp || !fe || !fq)
		exit(1);
	fprintf(fp, "timestamp, index, power.draw [W]\n");
	fprintf(fe, "timestamp,num_requests_running,generation_tokens_total,iteration_tokens_total_count\n");
	fprintf(fq, "arrival_s,first_token_s,completion_s,input_tokens,output_tokens\n");
	fprintf(fq, "%.3f,%.3f,%.3f,100,8\n", T0 + 3.0, T0 + 3.1, T0 + 3.4);
	for (int lane = 0; lane < 4; lane++)
		for (double a = 20.0; a < 40.0 - 1e-9; a += 5.0)
			fprintf(fq, "%.3f,%.3f,%.3f,100,100\n", T0 + a, T0 + a + 0.2, T0 + a + 5.0);
	double tok = 0.0, steps = 0.0;
	for (int k = 0; k <= 160; k++) {
		double t = T0 + 0.25 * k, s = 0.25 * k;
		int busy = s >= 20.0, stray = s >= 3.0 && s < 3.4;
		long ms = (long)llround(fmod(t, 86400.0) * 1000.0);
		/* A counter read at s holds the work done by s. */
		if (s > 3.0 && s <= 3.5) {
			tok += 4.0;
			steps += 4.0;
		}
		if (s > 20.0) {
			tok += 4 * 0.25 * 20.0;
			steps += 0.25 * 20.0;
		}
		fprintf(fp, "2026/07/18 %02ld:%02ld:%02ld.%03ld, 0, %.2f W\n", ms / 3600000, ms / 60000 % 60,
		        ms / 1000 % 60, ms % 1000, busy ? 300.0 + 40.0 * sin(0.3 * k) : stray ? 200.0 : 85.0);
		fprintf(fe, "%.3f,%d,%.1f,%.1f\n", t, busy ? 4 : stray, tok, steps);
	}
	fclose(fp);
	fclose(fe);
	fclose(fq);
	CHECK_INT(write_text(m, "{\"schema\": \"wattcast.run/2\", \"run_id\": \"units\", \"platform\": \"A100\", "
	                        "\"tp\": 1, \"model\": \"Qwen/Qwen3-8B\", \"utc_offset_s\": 0}\n"),
	          0);
	free(p);
	free(e);
	free(q);
	free(m);
}

int
main(void)
{
	char *dir = test_tmpdir("ingest_segment_idle_units");
	wc_ingest_result seg = { NULL, 0, 0 };
	wc_ingest_options o;
	wc_error err;
	write_run(dir);
	wc_ingest_options_init(&o);
	o.segment_s = 10.0;
	CHECK_INT(wc_ingest_run(dir, &o, &seg, &err), WC_OK);
	CHECK_INT(seg.n_rows, 4);
	for (size_t i = 0; i < seg.n_rows; i++) {
		const wc_ingest_row *s = &seg.rows[i];
		fprintf(stderr, "%s: running %.3f, %.3f requests, %.1f steps: %.3f J/token, %.3f J/request, "
		                "%.3f J/step; exclude '%s'\n",
		        s->run.run_id, s->run.running, s->requests, s->iterations, s->run.energy_per_token_j,
		        s->energy_per_request_j, s->energy_per_iteration_j, s->run.exclude);
	}
	if (seg.n_rows == 4) {
		/* #seg1 ran the stray request: its work is counted ... */
		const wc_ingest_row *idle = &seg.rows[0];
		CHECK(idle->run.running > 0 && idle->run.running < 0.5);
		CHECK(idle->requests > 0.5 && idle->iterations > 1);
		CHECK(strncmp(idle->run.exclude, "idle: ", 6) == 0);
		/* ... but no energy per unit of it is written */
		CHECK(isnan(idle->run.energy_per_token_j));
		CHECK(isnan(idle->energy_per_request_j));
		CHECK(isnan(idle->energy_per_iteration_j));
		/* a loaded segment keeps all three, and they agree */
		const wc_ingest_row *busy = &seg.rows[3];
		CHECK(busy->run.exclude[0] == '\0');
		CHECK(busy->run.energy_per_token_j > 0 && busy->energy_per_request_j > 0 &&
		      busy->energy_per_iteration_j > 0);
		CHECK_NEAR(busy->energy_per_request_j / busy->run.output_tokens, busy->run.energy_per_token_j,
		           1e-9 * busy->run.energy_per_token_j);
	}
	wc_ingest_result_clear(&seg);
	free(dir);
	return check_report("test_ingest_segment_idle_units");
}
