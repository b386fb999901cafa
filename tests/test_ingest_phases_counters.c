/*
 * Phase energies from engine counters when the running gauge misses the
 * work (docs/trace-metrics.md, "Phases"). The gauge is read between
 * engine steps: with short requests it reads 0 at most samples while the
 * GPU draws busy power, and the split booked those cells idle. A cell is
 * busy when a work counter (tokens, time sums) advanced over it, whatever
 * the gauge reads; idle is only where nothing moved.
 */
#include "data/data.h"
#include "tests/support/support.h"
#include "trace/trace.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T0 1784415000.0

/* 40 s at 0.25 s: 300 W at the samples of 4-23.75 s, 85 W at the others
 * (linear between samples). The engine, sampled at the same instants,
 * counts 100 prompt and 50 generated tokens and 0.025 s of prefill and
 * 0.225 s of decode in each interval that ends at a busy sample, so its
 * counters move over [3.75, 23.75] s; its gauge reads 1 at one busy
 * sample in `every` (0: never). */
static void
write_run(const char *dir, int every)
{
	char *p = path_join(dir, "power.csv"), *e = path_join(dir, "engine.csv");
	char *m = path_join(dir, "wattcast-run.json");
	FILE *fp = fopen(p, "w"), *fe = fopen(e, "w");
	double in = 0.0, out = 0.0, pre = 0.0, dec = 0.0;
	fprintf(fp, "timestamp, index, power.draw [W]\n");
	fprintf(fe, "timestamp,num_requests_running,prompt_tokens_total,generation_tokens_total,"
	            "request_prefill_time_seconds_sum,request_decode_time_seconds_sum\n");
	for (int k = 0; k < 160; k++) {
		double t = T0 + 0.25 * k, s = 0.25 * k;
		int busy = s >= 4.0 && s < 24.0;
		long ms = (long)llround(fmod(t, 86400.0) * 1000.0);
		if (busy) {
			in += 100.0;
			out += 50.0;
			pre += 0.025;
			dec += 0.225;
		}
		fprintf(fp, "2026/07/18 %02ld:%02ld:%02ld.%03ld, 0, %.2f W\n", ms / 3600000, ms / 60000 % 60,
		        ms / 1000 % 60, ms % 1000, busy ? 300.0 : 85.0);
		fprintf(fe, "%.3f,%d,%.0f,%.0f,%.4f,%.4f\n", t, busy && every > 0 && k % every == 0, in, out,
		        pre, dec);
	}
	fclose(fp);
	fclose(fe);
	write_text(m, "{\"schema\": \"wattcast.run/2\", \"run_id\": \"counters\", \"platform\": \"A100\", "
	              "\"tp\": 1, \"model\": \"Qwen/Qwen3-8B\", \"utc_offset_s\": 0}\n");
	free(p);
	free(e);
	free(m);
}

int
main(void)
{
	char *dir = test_tmpdir("ingest_phases_counters");
	/* Busy: the ramp cell [3.75, 4] at 192.5 W mean, then 19.75 s at
	 * 300 W; the counters' time sums split it 1:9. */
	const double busy = 0.25 * 192.5 + 19.75 * 300.0;
	const int every[] = { 0, 4 };
	for (size_t i = 0; i < sizeof every / sizeof every[0]; i++) {
		wc_ingest_options o;
		wc_ingest_result res = { NULL, 0, 0 };
		wc_error err;
		write_run(dir, every[i]);
		wc_ingest_options_init(&o);
		CHECK_INT(wc_ingest_run(dir, &o, &res, &err), WC_OK);
		CHECK_INT(res.n_rows, 1);
		if (res.n_rows != 1) {
			fprintf(stderr, "%s\n", err.msg);
			continue;
		}
		const wc_ingest_row *r = &res.rows[0];
		fprintf(stderr, "gauge 1 at 1 busy sample in %d: energy %.3f prefill %.3f decode %.3f idle %.3f (%s)\n",
		        every[i], r->metrics.energy_j, r->prefill_energy_j, r->decode_energy_j, r->idle_energy_j,
		        r->phase_source);
		CHECK(strcmp(r->phase_source, "engine") == 0);
		CHECK_NEAR(r->prefill_energy_j + r->decode_energy_j, busy, 1e-6 * busy);
		CHECK_NEAR(r->prefill_energy_j, 0.1 * busy, 1e-6 * busy);
		CHECK_NEAR(r->decode_energy_j, 0.9 * busy, 1e-6 * busy);
		/* Idle is the rest: the cells in which no counter moved, near
		 * 85 W but for the falling ramp [23.75, 24]. */
		CHECK_NEAR(r->idle_energy_j, r->metrics.energy_j - busy, 1e-6 * busy);
		double idle_s = r->metrics.duration_s - 20.0;
		CHECK_NEAR((r->idle_energy_j - 0.25 * 192.5) / (idle_s - 0.25), 85.0, 1e-6);
		wc_ingest_result_clear(&res);
	}
	free(dir);
	return check_report("test_ingest_phases_counters");
}
