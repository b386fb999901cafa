/*
 * `ingest --scrapes --min-window`: a window shorter than the bound is
 * excluded, its reason naming its length (docs/fleet.md, "Windows"). The
 * length was printed to the second, so a 9.984 s window under a 10 s
 * bound read "short window: 10 s of steady load (< 10 s)"; it is now
 * printed to the ms (every digit when that rounds up to the bound).
 */
#include "data/data.h"
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T0 1767225600.0

/* Scrapes every 0.256 s: 2 running for 234 scrapes, 40 for 39, 2 for 234
 * (power rising with the load, 100 tokens a second per request). */
static char *
scrapes(void)
{
	size_t cap = 1 << 20, len = 0;
	char *buf = malloc(cap);
	double tokens = 0;
	for (int k = 0; buf && k < 234 + 39 + 234; k++) {
		int n = k >= 234 && k < 234 + 39 ? 40 : 2;
		double t = T0 + 0.256 * k;
		tokens += n * 100 * 0.256;
		len += (size_t)snprintf(buf + len, cap - len,
		                        "# wattcast-scrape %.3f h1:9400\nDCGM_FI_DEV_POWER_USAGE{gpu=\"0\",UUID=\"GPU-0\","
		                        "modelName=\"NVIDIA H100 80GB HBM3\",Hostname=\"h1\"} %d\n"
		                        "# wattcast-scrape %.3f h1:8000\n"
		                        "vllm:num_requests_running{model_name=\"Qwen/Qwen3-8B\"} %d\n"
		                        "vllm:generation_tokens_total{model_name=\"Qwen/Qwen3-8B\"} %.0f\n",
		                        t, 200 + 5 * n, t + 0.1, n, tokens);
	}
	return buf;
}

int
main(void)
{
	char *dir = test_tmpdir("prom_short_window");
	char *buf = scrapes();
	char *in = path_join(dir, "s.prom"), *out = path_join(dir, "s.csv");
	CHECK(buf && write_text(in, buf) == 0);
	free(buf);
	const char *argv[] = { "wattcast", "ingest", "--scrapes", in, "-o", out, "--min-window", "10", "--hold", "2",
		               NULL };
	run_result r;
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	run_result_free(&r);
	wc_runs_table *t = NULL;
	wc_error err;
	CHECK_INT(wc_runs_read(out, &t, &err), WC_OK);
	CHECK(t && t->n_runs == 3);
	if (t && t->n_runs == 3) {
		CHECK_NEAR(t->runs[1].running, 40.0, 1e-9);
		CHECK(strcmp(t->runs[1].exclude, "short window: 9.984 s of steady load (< 10 s)") == 0);
		if (strcmp(t->runs[1].exclude, "short window: 9.984 s of steady load (< 10 s)") != 0)
			fprintf(stderr, "  exclude: %s\n", t->runs[1].exclude);
		CHECK(t->runs[0].exclude[0] == '\0' && t->runs[2].exclude[0] == '\0');
	}
	wc_runs_free(t);
	free(in);
	free(out);
	free(dir);
	return check_report("test_prom_short_window");
}
