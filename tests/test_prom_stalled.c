/*
 * A stalled engine (docs/fleet.md, "Rows"): requests running and its
 * generation counter flat over a whole window, a hung engine that still
 * draws power. Host h1, one GPU: 4 running at 140 W generating 40 tok/s
 * for 120 s, then 8 running at 180 W and no token for 120 s. The second
 * window was an ordinary row (running 8, 0 tok/s, no exclude) that fit
 * and calibrate took as load; it is now excluded as `stalled: ...` and
 * said once for the group. The first row is as it was.
 */
#include "data/data.h"
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T0 1767225600L

int
main(void)
{
	char *dir = test_tmpdir("prom_stalled"), *in = path_join(dir, "stall.prom"), *out = path_join(dir, "out.csv");
	char *buf = NULL;
	size_t len = 0, cap = 0;
	long gen = 0;
	for (int s = 0; s < 240; s++) {
		int n = s < 120 ? 4 : 8;
		gen += s < 120 ? 40 : 0;
		test_appendf(&buf, &len, &cap, "# wattcast-scrape %ld h1:8000\nvllm:num_requests_running{model_name="
		             "\"Qwen/Qwen3-8B\"} %d\nvllm:generation_tokens_total{model_name=\"Qwen/Qwen3-8B\"} %ld\n"
		             "# wattcast-scrape %ld dcgm:9400\nDCGM_FI_DEV_POWER_USAGE{gpu=\"0\",Hostname=\"h1\","
		             "modelName=\"NVIDIA H100 80GB HBM3\"} %d\n", T0 + s, n, gen, T0 + s, 100 + 10 * n);
	}
	CHECK(write_text(in, buf) == 0);
	free(buf);
	const char *argv[] = { "wattcast", "ingest", "--scrapes", in, "-o", out, "--min-window", "1", NULL };
	run_result r;
	wc_runs_table *t = NULL;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	fprintf(stderr, "exit %d\n%s", r.status, r.err ? r.err : "");
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.err, "group 'h1': the row at 2026-01-01T00:02:00.000Z ran 8 requests on average and "
	               "generated no token over 119 s (vllm:generation_tokens_total flat): a stalled engine, excluded "
	               "as 'stalled'");
	if (r.status == 0 && wc_runs_read(out, &t, NULL) == WC_OK && t->n_runs == 2) {
		CHECK_NEAR(t->runs[0].running, 4.0, 1e-12);
		CHECK_NEAR(t->runs[0].throughput_tok_s, 40.0, 1e-9);
		CHECK(t->runs[0].exclude[0] == '\0');
		CHECK_NEAR(t->runs[1].running, 8.0, 1e-12);
		CHECK_NEAR(t->runs[1].mean_power_w, 180.0, 1e-9);
		CHECK_CONTAINS(t->runs[1].exclude, "stalled: 8 running requests on average and no token generated over "
		               "119 s (a hung engine?)");
	} else {
		CHECK(0);
	}
	wc_runs_free(t);
	run_result_free(&r);
	free(in);
	free(out);
	free(dir);
	return check_report("test_prom_stalled");
}
