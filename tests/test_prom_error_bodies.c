/*
 * Fleet ingest inputs that are not what they claim (docs/formats/prometheus.md,
 * docs/fleet.md, docs/cli.md "ingest"):
 * a scrape saved as an exporter's plain-text or JSON error page (Go's
 * `404 page not found`, FastAPI's `{"detail":"Not Found"}`) refused the
 * whole --scrapes file at "expected a metric name", and `Internal Server
 * Error` was read as a metric nobody reads, the scrape missed unsaid;
 * a grid of more than 1e9 steps refused as "step: N steps between start
 * and end (at most 1e9)", naming no flag and no way out, before the
 * scrape interval's advice where that applied.
 */
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T0 1767225600L /* 2026-01-01T00:00:00Z */

static char *dir;

static void
ingest(const char *const *argv, run_result *r)
{
	CHECK(run_wattcast(argv, NULL, r) == 0);
	fprintf(stderr, "%s%s", r->out ? r->out : "", r->err ? r->err : "");
}

/* Scrapes every 15 s of one GPU and its engine, the engine's scrapes
 * from the 11th on the error page `page` (NULL: none), `n` of each. */
static char *
scrapes(const char *name, const char *page, int n)
{
	size_t cap = 1 << 16, len = 0;
	char *buf = malloc(cap);
	for (int k = 0; k < n; k++) {
		len += (size_t)snprintf(buf + len, cap - len, "# wattcast-scrape %ld dcgm-h1:9400\n"
		                        "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\",UUID=\"GPU-A\",modelName=\"NVIDIA H100 80GB "
		                        "HBM3\",Hostname=\"h1\"} 300\n# wattcast-scrape %ld h1:8000\n", T0 + 15 * k,
		                        T0 + 15 * k);
		len += (size_t)snprintf(buf + len, cap - len, "%s\n", page && k >= 10
		                        ? page : "vllm:num_requests_running{model_name=\"Qwen/Qwen3-8B\"} 8");
	}
	char *path = path_join(dir, name);
	CHECK(write_text(path, buf) == 0);
	free(buf);
	return path;
}

/* (1) Plain-text and JSON error pages opening a scrape: skipped, said
 * once naming the line and what the page starts with, counted at the
 * end; the scrapes missed are a gap. Without `# wattcast-scrape` lines
 * such a body is refused naming it. */
static void
check_text_pages(void)
{
	static const char *const pages[] = { "404 page not found", "{\"detail\":\"Not Found\"}",
		                             "Internal Server Error" };
	for (int i = 0; i < 3; i++) {
		char name[32];
		snprintf(name, sizeof name, "page%d.prom", i);
		char *in = scrapes(name, pages[i], 21), *out = path_join(dir, "page.csv");
		const char *argv[] = { "wattcast", "ingest", "--scrapes", in, "-o", out, NULL };
		run_result r;
		ingest(argv, &r);
		CHECK_INT(r.status, 0);
		char want[256];
		snprintf(want, sizeof want, "%s:44:1: not exposition text (an HTML or error page, a failed scrape?): "
		         "the scrape of h1:8000 at 2026-01-01T00:02:30.000Z is skipped; it starts '%s'", name, pages[i]);
		CHECK_CONTAINS(r.err, want);
		snprintf(want, sizeof want, "%s: 11 scrapes in all were not exposition text", name);
		CHECK_CONTAINS(r.err, want);
		CHECK_CONTAINS(r.out, "wrote 1 row to"); /* the 10 scrapes before the page */
		run_result_free(&r);
		free(in);
		free(out);
	}
	char *bare = path_join(dir, "bare.prom"), *out = path_join(dir, "bare.csv");
	CHECK(write_text(bare, "404 page not found\n") == 0);
	const char *argv[] = { "wattcast", "ingest", "--scrapes", bare, "-o", out, NULL };
	run_result r;
	ingest(argv, &r);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "bare.prom:1:1: not exposition text but plain text (an HTML or error page saved as a scrape? "
	               "curl -sf leaves them out): it starts '404 page not found'");
	run_result_free(&r);
	free(bare);
	free(out);
}

/* (2) More than 1e9 steps: refused naming the flags, the limit and the
 * step that fits, before any query (no server listens on port 1); from
 * files a step shorter than their scrape interval is refused first,
 * with the step to take. */
static void
check_step_count(void)
{
	char *out = path_join(dir, "count.csv");
	const char *http[] = { "wattcast", "ingest", "--prometheus", "http://127.0.0.1:1", "--start",
		               "2000-01-01T00:00:00Z", "--end", "2099-12-31T00:00:00Z", "--step", "2", "-o", out,
		               NULL };
	run_result r;
	ingest(http, &r);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "--start/--end/--step: 1577836801 steps of 2 s from 2000-01-01T00:00:00.000Z to "
	               "2099-12-31T00:00:00.000Z, more than the 1e+09 a range may hold: give a shorter range, or "
	               "--step 3.156 or longer");
	CHECK(r.err && !strstr(r.err, "onnect"));
	run_result_free(&r);
	char *in = scrapes("count.prom", NULL, 21);
	const char *files[] = { "wattcast", "ingest", "--scrapes", in, "--start", "2025-01-01T00:00:00Z", "--end",
		                "2026-01-01T00:05:00Z", "--step", "0.01", "-o", out, NULL };
	ingest(files, &r);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "--step 0.01 s is shorter than the scrape interval: --step 15 or longer");
	CHECK(r.err && !strstr(r.err, "a range may hold"));
	run_result_free(&r);
	free(in);
	free(out);
}

int
main(void)
{
	dir = test_tmpdir("prom_error_bodies");
	check_text_pages();
	check_step_count();
	free(dir);
	return check_report("test_prom_error_bodies");
}
