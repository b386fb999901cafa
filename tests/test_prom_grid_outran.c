/*
 * A step shorter than the scrape interval on a query_range grid
 * (docs/fleet.md, "Queries"). Prometheus scraping every 2 s, asked with
 * --step 1.85, holds every scrape but leaves one step in 12 or 13
 * without a value: under the tenth of spacings a missed scrape may take,
 * so the 10 % allowed for scrape-time jitter accepted the step and each
 * hole was a gap claiming an outage (25 of them, "exporter down?", 106
 * rows where a 2 s step gave 44). On a grid the holes of a step too
 * short come as regularly as the scrapes: the step is refused, naming
 * --step and a step, and the saved answers' default step, the one the
 * refusal advises for them, holds a sample at every step. Missed scrapes, which fall
 * anywhere, stay gaps on a step of the interval.
 */
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T0 1796559000L

static char *dir;

/* Values of a query_range answer at grid step k (k * grid_ms), n steps:
 * present when a scrape (phase_ms + k' * scrape_ms, none at a `missed`
 * index) falls in (t - grid, t]. */
static int
present(long k, long grid_ms, long scrape_ms, long phase_ms, const long *missed, int n_missed)
{
	long t = k * grid_ms, j = (t - phase_ms) / scrape_ms; /* the last scrape at or before t */
	if (t < phase_ms || phase_ms + j * scrape_ms <= t - grid_ms)
		return 0;
	for (int i = 0; i < n_missed; i++)
		if (missed[i] == j)
			return 0;
	return 1;
}

static char *
write_answer(const char *name, const char *head, const char *const *labels, int n_series, const char *value,
             long n, long grid_ms, long scrape_ms, const long *missed, int n_missed)
{
	size_t cap = 1 << 20, len = 0;
	char *buf = malloc(cap);
	len += (size_t)snprintf(buf + len, cap - len, "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\","
	                        "\"result\":[");
	for (int s = 0; s < n_series; s++) {
		len += (size_t)snprintf(buf + len, cap - len, "%s{\"metric\":{\"__name__\":\"%s\",%s},\"values\":[",
		                        s ? "," : "", head, labels[s]);
		for (long k = 0, first = 1; k < n; k++)
			if (present(k, grid_ms, scrape_ms, 300, missed, n_missed)) {
				len += (size_t)snprintf(buf + len, cap - len, "%s[%.3f,\"%s\"]", first ? "" : ",",
				                        (double)T0 + (double)(k * grid_ms) / 1000.0, value);
				first = 0;
			}
		len += (size_t)snprintf(buf + len, cap - len, "]}");
	}
	snprintf(buf + len, cap - len, "]}}");
	char *path = path_join(dir, name);
	CHECK(write_text(path, buf) == 0);
	free(buf);
	return path;
}

/* Power of two H100 GPUs on h1 and its engine's load, on a grid of
 * grid_ms over scrapes every scrape_ms. */
static void
write_pair(const char *tag, long n, long grid_ms, long scrape_ms, const long *missed, int n_missed, char **power,
           char **running)
{
	const char *gpus[] = { "\"Hostname\":\"h1\",\"gpu\":\"0\",\"UUID\":\"GPU-0\",\"modelName\":\"NVIDIA H100 80GB HBM3\"",
		               "\"Hostname\":\"h1\",\"gpu\":\"1\",\"UUID\":\"GPU-1\",\"modelName\":\"NVIDIA H100 80GB HBM3\"" };
	const char *engine[] = { "\"instance\":\"h1:8000\",\"model_name\":\"Qwen/Qwen3-8B\"" };
	char name[64];
	snprintf(name, sizeof name, "%s_power.json", tag);
	*power = write_answer(name, "DCGM_FI_DEV_POWER_USAGE", gpus, 2, "300", n, grid_ms, scrape_ms, missed, n_missed);
	snprintf(name, sizeof name, "%s_running.json", tag);
	*running = write_answer(name, "vllm:num_requests_running", engine, 1, "4", n, grid_ms, scrape_ms, missed,
	                        n_missed);
}

static void
ingest(const char *power, const char *running, const char *step, run_result *r)
{
	char *out = path_join(dir, "out.csv");
	const char *argv[] = { "wattcast", "ingest", "--prometheus-json", power, "--prometheus-json", running,
		               "-o", out, step ? "--step" : NULL, step, NULL };
	CHECK(run_wattcast(argv, NULL, r) == 0);
	fprintf(stderr, "%s%s", r->out ? r->out : "", r->err ? r->err : "");
	free(out);
}

int
main(void)
{
	dir = test_tmpdir("prom_grid_outran");
	char *power, *running;
	run_result r;

	/* 2 s scrapes on a 1.85 s grid, 300 steps: none missed. */
	write_pair("outran", 300, 1850, 2000, NULL, 0, &power, &running);
	ingest(power, running, "1.85", &r);
	CHECK(r.status != 0);
	/* Saved answers hold only their grid's values: the step advised is
	 * the least multiple of the grid that is accepted, and following it
	 * gives no gap. "--step 2" was advised, the interval a server could
	 * be asked at; over the 1.85 s grid it gave 22 gaps. */
	CHECK_CONTAINS(r.err, "--step 1.85 s is shorter than the scrape interval: --step 3.7 or longer");
	CHECK(!r.err || !strstr(r.err, "no sample"));
	run_result_free(&r);
	ingest(power, running, "3.7", &r);
	CHECK_INT(r.status, 0);
	CHECK(!r.err || !strstr(r.err, "no sample"));
	run_result_free(&r);
	/* The default step holds a sample at every step: no gap. */
	ingest(power, running, NULL, &r);
	CHECK_INT(r.status, 0);
	CHECK(!r.err || !strstr(r.err, "no sample"));
	CHECK_CONTAINS(r.err, "--step 3.7 s over saved answers of a value every 1.85 s");
	run_result_free(&r);
	free(power);
	free(running);

	/* 2 s scrapes on a 2 s grid, five scrapes missed here and there: the
	 * step is the interval, and each missed scrape a gap. */
	const long missed[] = { 20, 57, 61, 150, 240 };
	write_pair("missed", 300, 2000, 2000, missed, 5, &power, &running);
	ingest(power, running, "2", &r);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.err, "no sample");
	run_result_free(&r);
	ingest(power, running, NULL, &r);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.err, "no sample");
	run_result_free(&r);
	free(power);
	free(running);
	return check_report("test_prom_grid_outran");
}
