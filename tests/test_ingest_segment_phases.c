/*
 * Phase energies of `ingest --segment` from engine counters only
 * (docs/trace-metrics.md, "Phases"): a segment in which nothing runs is
 * all idle -- its idle energy is its energy, prefill and decode 0 -- so
 * the segments' idle energies add up to the run's, and their prefill plus
 * decode energies too. Blank stays "unknown": a segment where requests
 * run but neither time sum moves cannot be split -- only that split is
 * blank; its idle cells are known, and written, so that the segments'
 * idle energies still add up to the run's. On a real A100 run the
 * all-idle first segment was left blank and the segments' idle energy
 * summed to 834.8 J of the run's 1657.4 J; on another at --segment 1, ten
 * segments whose time sums stood still lost their idle energy too (902.2
 * of 1022.6 J).
 */
#include "data/data.h"
#include "tests/support/ingest_run.h"
#include "tests/support/support.h"
#include "trace/trace.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T0 1784415000.0

/* 60 s at 0.25 s: idle (85 W, nothing running) for the first 20 s, then
 * 4 requests at about 300 W whose prefill and decode time sums grow at
 * 0.4 and 3.6 s/s; with `frozen`, requests run from 50 to 55 s while
 * neither sum moves, and nothing runs after (85 W). */
static void
write_run(const char *dir, int frozen)
{
	char *p = path_join(dir, "power.csv"), *e = path_join(dir, "engine.csv");
	char *m = path_join(dir, "wattcast-run.json");
	FILE *fp = fopen(p, "w"), *fe = fopen(e, "w");
	double pre = 0.0, dec = 0.0;
	fprintf(fp, "timestamp, index, power.draw [W]\n");
	fprintf(fe, "timestamp,num_requests_running,request_prefill_time_seconds_sum,"
	            "request_decode_time_seconds_sum\n");
	for (int k = 0; k < 240; k++) {
		double t = T0 + 0.25 * k, s = 0.25 * k;
		int busy = s >= 20.0 && !(frozen && s >= 55.0);
		double w = busy ? 300.0 + 40.0 * sin(0.3 * k) : 85.0;
		long ms = (long)llround(fmod(t, 86400.0) * 1000.0);
		/* A counter read at s holds the work done by s: the sums
		 * first move at the sample after 20 s, so that nothing has
		 * run in the first 20 s by the counters too. */
		if (s > 20.0 && !(frozen && s >= 50.0)) {
			pre += 0.25 * 0.4;
			dec += 0.25 * 3.6;
		}
		fprintf(fp, "2026/07/18 %02ld:%02ld:%02ld.%03ld, 0, %.2f W\n", ms / 3600000, ms / 60000 % 60,
		        ms / 1000 % 60, ms % 1000, w);
		fprintf(fe, "%.3f,%d,%.3f,%.3f\n", t, busy ? 4 : 0, pre, dec);
	}
	fclose(fp);
	fclose(fe);
	write_text(m, "{\"schema\": \"wattcast.run/2\", \"run_id\": \"phases\", \"platform\": \"A100\", "
	              "\"tp\": 1, \"model\": \"Qwen/Qwen3-8B\", \"utc_offset_s\": 0}\n");
	free(p);
	free(e);
	free(m);
}

int
main(void)
{
	char *dir = test_tmpdir("ingest_segment_phases");
	wc_ingest_result run = { NULL, 0, 0 }, seg = { NULL, 0, 0 };

	write_run(dir, 0);
	test_ingest_ok(dir, 0, &run);
	test_ingest_ok(dir, 10.0, &seg);
	CHECK_INT(run.n_rows, 1);
	CHECK(seg.n_rows >= 6);
	if (run.n_rows == 1 && seg.n_rows >= 6) {
		const wc_ingest_row *r = &run.rows[0];
		double energy = 0.0, idle = 0.0, busy = 0.0;
		for (size_t i = 0; i < seg.n_rows; i++) {
			const wc_ingest_row *s = &seg.rows[i];
			fprintf(stderr, "segment %zu: %.1f J: prefill %.3f, decode %.3f, idle %.3f J (%s)\n", i,
			        s->metrics.energy_j, s->prefill_energy_j, s->decode_energy_j, s->idle_energy_j,
			        s->phase_source);
			CHECK(isfinite(s->prefill_energy_j) && isfinite(s->decode_energy_j) &&
			      isfinite(s->idle_energy_j));
			CHECK(strcmp(s->phase_source, "engine") == 0);
			CHECK_NEAR(s->prefill_energy_j + s->decode_energy_j + s->idle_energy_j, s->metrics.energy_j,
			           1e-9 * s->metrics.energy_j);
			energy += s->metrics.energy_j;
			idle += s->idle_energy_j;
			busy += s->prefill_energy_j + s->decode_energy_j;
		}
		/* The first two segments run nothing: all idle. */
		for (size_t i = 0; i < 2; i++) {
			CHECK_NEAR(seg.rows[i].prefill_energy_j, 0.0, 0.0);
			CHECK_NEAR(seg.rows[i].decode_energy_j, 0.0, 0.0);
			CHECK_NEAR(seg.rows[i].idle_energy_j, seg.rows[i].metrics.energy_j, 0.0);
		}
		CHECK_NEAR(energy, r->metrics.energy_j, 1e-9 * r->metrics.energy_j);
		CHECK_NEAR(idle, r->idle_energy_j, 1e-9 * r->metrics.energy_j);
		CHECK_NEAR(busy, r->prefill_energy_j + r->decode_energy_j, 1e-9 * r->metrics.energy_j);
		CHECK(r->idle_energy_j > 1500.0); /* 20 s at 85 W */
	}
	wc_ingest_result_clear(&run);
	wc_ingest_result_clear(&seg);

	/* Requests run in the last segment but neither time sum moves: its
	 * split is unknown, and blank; its idle half is known, and the
	 * segments' idle energies add up to the run's; the idle segments stay
	 * known. */
	write_run(dir, 1);
	test_ingest_ok(dir, 0, &run);
	test_ingest_ok(dir, 10.0, &seg);
	if (run.n_rows == 1 && seg.n_rows >= 6) {
		const wc_ingest_row *last = &seg.rows[seg.n_rows - 1];
		double idle = 0.0;
		for (size_t i = 0; i < seg.n_rows; i++)
			idle += seg.rows[i].idle_energy_j;
		fprintf(stderr, "frozen: last segment %.1f J: prefill %.3f, decode %.3f, idle %.3f J (%s); "
		                "segments' idle %.3f J, the run's %.3f J\n",
		        last->metrics.energy_j, last->prefill_energy_j, last->decode_energy_j, last->idle_energy_j,
		        last->phase_source, idle, run.rows[0].idle_energy_j);
		CHECK(isnan(last->prefill_energy_j) && isnan(last->decode_energy_j));
		CHECK(strcmp(last->phase_source, "engine") == 0);
		/* 5 s at 85 W, within a cell or two of the step */
		CHECK(last->idle_energy_j > 380.0 && last->idle_energy_j < 440.0);
		CHECK_NEAR(idle, run.rows[0].idle_energy_j, 1e-9 * run.rows[0].metrics.energy_j);
		CHECK_NEAR(seg.rows[0].idle_energy_j, seg.rows[0].metrics.energy_j, 0.0);
	} else {
		CHECK(0);
	}
	wc_ingest_result_clear(&run);
	wc_ingest_result_clear(&seg);
	free(dir);
	return check_report("test_ingest_segment_phases");
}
