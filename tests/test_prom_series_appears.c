/*
 * An engine's series that first appears mid-range (docs/fleet.md,
 * "Problems in the data"): one GPU at 300 W from second 0 whose engine's
 * series begin at second 150, and two data-parallel engines on two GPUs
 * whose second engine's series begin at second 150. The steps before the
 * first sample were left out with no line (150 s of power and load gone
 * unsaid); they are still left out, as where an engine's series stops,
 * and now said with the series, its first time and the seconds.
 */
#include "data/data.h"
#include "tests/support/ingest_run.h"
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T0 1767225600L
#define SECONDS 301
#define UP 150 /* the late engine's first second */

/* engines 1: one engine, its series from UP; 2: engine 0 from 0, engine 1
 * from UP, each on its GPU. */
static char *
scrapes(int engines)
{
	size_t cap = 1 << 20, len = 0;
	char *buf = malloc(cap);
	for (int s = 0; s < SECONDS; s++) {
		len += (size_t)snprintf(buf + len, cap - len, "# wattcast-scrape %ld a:8000\n", T0 + s);
		for (int e = 0; e < engines; e++) {
			int from = e == engines - 1 ? UP : 0;
			if (s < from)
				continue;
			len += (size_t)snprintf(buf + len, cap - len,
			                        "vllm:num_requests_running{model_name=\"Qwen/Qwen3-8B\",engine=\"%d\"} 5\n"
			                        "vllm:generation_tokens_total{model_name=\"Qwen/Qwen3-8B\",engine=\"%d\"} "
			                        "%d\n", e, e, 100 * (s - from));
		}
		len += (size_t)snprintf(buf + len, cap - len, "# wattcast-scrape %ld dcgm:9400\n", T0 + s);
		for (int gpu = 0; gpu < engines; gpu++)
			len += (size_t)snprintf(buf + len, cap - len, "DCGM_FI_DEV_POWER_USAGE{gpu=\"%d\",UUID=\"GPU-%d\","
			                        "Hostname=\"a\",modelName=\"NVIDIA H100 80GB HBM3\"} %d\n", gpu, gpu,
			                        gpu == engines - 1 && s < UP && engines > 1 ? 100 : 300);
	}
	return buf;
}

static void
one(const char *dir, int engines)
{
	char name[32];
	snprintf(name, sizeof name, "e%d.prom", engines);
	char *in = path_join(dir, name), *out = path_join(dir, "out.csv"), *buf = scrapes(engines);
	CHECK(write_text(in, buf) == 0);
	free(buf);
	const char *argv[] = { "wattcast", "ingest", "--scrapes", in, "--step", "15", "-o", out, NULL };
	run_result r;
	wc_runs_table *t = NULL;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	fprintf(stderr, "%s", r.err ? r.err : "");
	char late[96];
	snprintf(late, sizeof late, "vllm:num_requests_running{engine=\"%d\"", engines - 1);
	const char *said = r.err ? strstr(r.err, late) : NULL;
	CHECK(said && strstr(said, ": no sample yet at 2026-01-01T00:00:00.000Z while group 'a' has samples of other "
	                           "series; the steps until its first are left out of the rows"));
	CHECK(said && strstr(said, ": first sample at 2026-01-01T00:02:30.000Z, within that step, which is left out "
	                           "too; 165 s left out of group 'a'"));
	if (r.status == 0 && wc_runs_read(out, &t, NULL) == WC_OK) {
		CHECK_INT(t->n_runs, 1);
		if (t->n_runs == 1) {
			CHECK_NEAR(t->runs[0].mean_power_w, 300.0 * engines, 1e-9);
			CHECK_NEAR(t->runs[0].running, 5.0 * engines, 1e-9);
			CHECK_NEAR(test_runs_extra(t, 0, "start_epoch"), (double)(T0 + UP + 15), 1e-6); /* its first step, (150, 165] */
			CHECK_NEAR(test_runs_extra(t, 0, "duration_s"), 150.0, 1e-6);
		}
	} else {
		CHECK(0);
	}
	wc_runs_free(t);
	run_result_free(&r);
	free(in);
	free(out);
}

int
main(void)
{
	char *dir = test_tmpdir("prom_series_appears");
	one(dir, 1);
	one(dir, 2);
	free(dir);
	return check_report("test_prom_series_appears");
}
