/*
 * NaN samples of an engine's counter and of its waiting count in
 * `wattcast ingest --scrapes` at --step 15 (docs/fleet.md, "Rows" and
 * "Problems in the data"): two GPUs at 300 W under 8 running requests,
 * the engine scraped every second, generating 160 tokens/s.
 *  - The generation counter reads NaN for 40 s (400..439 s) while the
 *    engine makes 1600 tokens/s. A NaN is no count, as -5 or +Inf are:
 *    the increases either side are left out and the window goes on. It
 *    was an engine outage: the window was cut ("NaN sample at ...; the
 *    steps until it resumes are left out of the rows") and the row after
 *    it counted the 40 s of tokens it said were left out, 276.4 tok/s.
 *  - The waiting count reads NaN for 60 s (200..259 s), 2 otherwise: no
 *    reading, as a missing sample is; the window goes on (it was cut and
 *    75 s of power, load and tokens dropped), said once.
 */
#include "data/data.h"
#include "tests/support/ingest_run.h"
#include "tests/support/prom_ingest.h"
#include "tests/support/support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T0 1767225600L
#define LABELS "model_name=\"Qwen/Qwen3-8B\",engine=\"0\""

/* `seconds` of scrapes: generation NaN over [gen_nan0, gen_nan1) s, made
 * at 1600 tokens/s there; waiting NaN over [wait_nan0, wait_nan1) s. */
static char *
scrapes(int seconds, int gen_nan0, int gen_nan1, int wait_nan0, int wait_nan1)
{
	size_t cap = 1 << 21, len = 0;
	char *buf = malloc(cap);
	double gen = 0.0;
	for (int s = 0; s < seconds && buf; s++) {
		int gnan = s >= gen_nan0 && s < gen_nan1, wnan = s >= wait_nan0 && s < wait_nan1;
		char g[32];
		gen += gnan ? 1600.0 : 160.0;
		if (gnan)
			snprintf(g, sizeof g, "NaN");
		else
			snprintf(g, sizeof g, "%.17g", gen);
		len += (size_t)snprintf(buf + len, cap - len, "# wattcast-scrape %ld dcgm-h1:9400\n"
		                        "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\",UUID=\"GPU-0\",Hostname=\"h1\",modelName=\"NVIDIA "
		                        "H100 80GB HBM3\"} 300\n"
		                        "DCGM_FI_DEV_POWER_USAGE{gpu=\"1\",UUID=\"GPU-1\",Hostname=\"h1\",modelName=\"NVIDIA "
		                        "H100 80GB HBM3\"} 300\n# wattcast-scrape %ld h1:8000\n"
		                        "vllm:num_requests_running{" LABELS "} 8\n"
		                        "vllm:num_requests_waiting{" LABELS "} %s\n"
		                        "vllm:generation_tokens_total{" LABELS "} %s\n",
		                        T0 + s, T0 + s, wnan ? "NaN" : "2", g);
	}
	return buf;
}

/* One row over the whole range at 160 tokens/s and waiting 2, no gap. */
static void
check_one_row(const run_result *r, wc_runs_table *t, const char *what)
{
	CHECK(r->err && !strstr(r->err, "the steps until it resumes") && !strstr(r->err, "left out of the rows") &&
	      !strstr(r->err, "resumes at"));
	if (!t) {
		CHECK(0);
		return;
	}
	CHECK_INT(t->n_runs, 1);
	for (size_t i = 0; i < t->n_runs; i++) {
		double gen = test_runs_extra(t, i, "generation_tok_s"), wait = test_runs_extra(t, i, "waiting");
		fprintf(stderr, "%s: row %zu from %+.0f s, %.0f s: %.9g tok/s, waiting %.9g\n", what, i,
		        test_runs_extra(t, i, "start_epoch") - (double)T0, test_runs_extra(t, i, "duration_s"), gen, wait);
		CHECK_NEAR(gen, 160.0, 0.5);
		CHECK_NEAR(wait, 2.0, 1e-9);
	}
}

int
main(void)
{
	char *dir = test_tmpdir("prom_nan_counter");
	run_result r;
	wc_runs_table *t = NULL;

	char *text = scrapes(900, 400, 440, -1, -1);
	test_prom_ingest(dir, "gen_nan.prom", text, NULL, &r, &t);
	CHECK_CONTAINS(r.err, "counter value NaN at 2026-01-01T00:06:40.000Z is implausible, not a count: the "
	               "increases either side are left out of the rates (later ones not said); series "
	               "vllm:generation_tokens_total{");
	check_one_row(&r, t, "generation NaN");
	wc_runs_free(t);
	run_result_free(&r);
	free(text);

	text = scrapes(600, -1, -1, 200, 260);
	test_prom_ingest(dir, "wait_nan.prom", text, NULL, &r, &t);
	CHECK_CONTAINS(r.err, "NaN sample at 2026-01-01T00:03:20.000Z not averaged: the step's waiting is of its "
	               "other samples, or unknown without one (later ones not said); series vllm:num_requests_waiting{");
	CHECK(r.err && strstr(r.err, "NaN sample at") == strstr(r.err, "NaN sample at 2026-01-01T00:03:20") &&
	      !strstr(strstr(r.err, "NaN sample at") + 1, "NaN sample at"));
	check_one_row(&r, t, "waiting NaN");
	wc_runs_free(t);
	run_result_free(&r);
	free(text);

	free(dir);
	return check_report("test_prom_nan_counter");
}
