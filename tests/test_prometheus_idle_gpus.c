/*
 * `wattcast ingest --prometheus` against a real Prometheus (skipped when
 * it cannot be installed), and the same samples as text scrapes: GPUs
 * of a bare-metal host that no engine uses (docs/fleet.md, "Grouping").
 * Host h1 has 4 H100s; one vLLM engine runs TP 2 on GPUs 0-1 (400 W
 * each, 72 000 MiB of framebuffer used), GPUs 2-3 are idle (70 W, 4 and
 * 310 MiB). Every GPU series carries the host alone, so the engine was
 * read as TP 4 at 940 W. DCGM_FI_DEV_FB_USED now tells them apart: TP 2
 * at 800 W, GPUs 2 and 3 said apart. Host h2, the same without
 * DCGM_FI_DEV_FB_USED, keeps TP 4 at 940 W, said once.
 */
#include "data/data.h"
#include "tests/support/prom_server.h"
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T0 1767225600L /* 2026-01-01T00:00:00Z: in the past, kept by a 100-year retention */
#define SECONDS 300

static const double watts[4] = { 400, 400, 70, 70 }, mib[4] = { 72000, 72000, 4, 310 };

/* A GPU's labels: `instance` and `job` only where Prometheus added them
 * (scrapes get theirs from the # wattcast-scrape line). */
static void
gpu_labels(char *buf, size_t size, int host, int gpu, int scraped)
{
	snprintf(buf, size, "Hostname=\"h%d\",UUID=\"GPU-%d%d\",gpu=\"%d\",%smodelName=\"NVIDIA H100 80GB HBM3\"",
	         host, host, gpu, gpu, scraped ? "" : host == 1 ? "instance=\"dcgm-h1:9400\",job=\"dcgm\","
	                                                         : "instance=\"dcgm-h2:9400\",job=\"dcgm\",");
}

/* The OpenMetrics of both hosts (FB used of h1 alone), for promtool. */
static char *
openmetrics(void)
{
	size_t cap = 1 << 22, len = 0;
	char *text = malloc(cap), labels[256];
	static const char *const family[2] = { "DCGM_FI_DEV_POWER_USAGE", "DCGM_FI_DEV_FB_USED" };
	for (int m = 0; m < 2; m++) {
		len += (size_t)snprintf(text + len, cap - len, "# TYPE %s gauge\n", family[m]);
		for (int h = 1; h <= (m ? 1 : 2); h++)
			for (int g = 0; g < 4; g++) {
				gpu_labels(labels, sizeof labels, h, g, 0);
				for (long k = 0; k <= SECONDS; k++)
					len += (size_t)snprintf(text + len, cap - len, "%s{%s} %g %ld\n", family[m], labels,
					                        m ? mib[g] : watts[g], T0 + k);
			}
	}
	len += (size_t)snprintf(text + len, cap - len, "# TYPE vllm:num_requests_running gauge\n");
	for (int h = 1; h <= 2; h++)
		for (long k = 0; k <= SECONDS; k++)
			len += (size_t)snprintf(text + len, cap - len, "vllm:num_requests_running{instance=\"h%d:8000\","
			                        "job=\"vllm\",model_name=\"Qwen/Qwen3-8B\"} 8 %ld\n", h, T0 + k);
	snprintf(text + len, cap - len, "# EOF\n");
	return text;
}

/* The same samples as the exporters' scrapes. */
static char *
scrapes(void)
{
	size_t cap = 1 << 22, len = 0;
	char *text = malloc(cap), labels[256];
	for (long k = 0; k <= SECONDS; k++)
		for (int h = 1; h <= 2; h++) {
			len += (size_t)snprintf(text + len, cap - len, "# wattcast-scrape %ld dcgm-h%d:9400\n", T0 + k, h);
			for (int g = 0; g < 4; g++) {
				gpu_labels(labels, sizeof labels, h, g, 1);
				len += (size_t)snprintf(text + len, cap - len, "DCGM_FI_DEV_POWER_USAGE{%s} %g\n", labels,
				                        watts[g]);
				if (h == 1)
					len += (size_t)snprintf(text + len, cap - len, "DCGM_FI_DEV_FB_USED{%s} %g\n", labels,
					                        mib[g]);
			}
			len += (size_t)snprintf(text + len, cap - len, "# wattcast-scrape %ld h%d:8000\n"
			                        "vllm:num_requests_running{model_name=\"Qwen/Qwen3-8B\"} 8\n", T0 + k, h);
		}
	return text;
}

/* Each host's rows: h1 TP 2 at its engine's GPUs' 800 W, h2 TP 4 at
 * 940 W; both hosts' warnings. */
static void
check_rows(const char *how, const run_result *r, const char *out)
{
	wc_runs_table *t = NULL;
	wc_error err;
	fprintf(stderr, "%s: exit %d\n%s", how, r->status, r->err ? r->err : "");
	CHECK_INT(r->status, 0);
	int rc = wc_runs_read(out, &t, &err);
	CHECK(rc == WC_OK);
	size_t n[3] = { 0 };
	for (size_t i = 0; rc == WC_OK && i < t->n_runs; i++) {
		const char *host = wc_runs_get_extra(t, i, "host");
		int h = host && strcmp(host, "h1") == 0 ? 1 : host && strcmp(host, "h2") == 0 ? 2 : 0;
		n[h]++;
		fprintf(stderr, "%s: %s tp %d %.2f W\n", how, t->runs[i].run_id, t->runs[i].tp, t->runs[i].mean_power_w);
		CHECK_INT(t->runs[i].tp, h == 1 ? 2 : 4);
		CHECK_NEAR(t->runs[i].mean_power_w, h == 1 ? 800.0 : 940.0, 1e-6);
		CHECK_NEAR(t->runs[i].running, 8.0, 1e-9);
	}
	CHECK(n[0] == 0 && n[1] == 1 && n[2] == 1);
	CHECK_CONTAINS(r->err, "group 'h1': 2 of its 4 GPUs (gpu 2, 3) hold at most 310 MiB at "
	                       "2026-01-01T00:00:00.000Z (DCGM_FI_DEV_FB_USED), under the 8156 MiB an engine holds "
	                       "of each H100 it runs on: no engine uses them, left out of its TP and power\n");
	CHECK_CONTAINS(r->err, "1 group of several GPUs and no pod ('h2' first, 4 GPUs): TP is the host's GPU count, "
	                       "each GPU's power counted: no DCGM_FI_DEV_FB_USED series (a default counter of the "
	                       "DCGM exporter) tells the GPUs an engine holds from idle ones\n");
	/* Each warning within the 255 bytes of a message. */
	for (const char *l = r->err; l && (l = strstr(l, "warning: ")); l++)
		CHECK(strcspn(l, "\n") - strlen("warning: ") <= 255);
	wc_runs_free(t);
}

int
main(void)
{
	if (!test_prom_ensure())
		return TEST_SKIP;
	char *dir = test_tmpdir("prometheus_idle_gpus"), *om = path_join(dir, "idle.om");
	char *in = path_join(dir, "idle.prom"), *out = path_join(dir, "out.csv"), url[64];
	char *text = openmetrics(), *scraped = scrapes();
	CHECK(write_text(om, text) == 0 && write_text(in, scraped) == 0);
	free(text);
	free(scraped);
	run_result r;
	const char *files[] = { "wattcast", "ingest", "--scrapes", in, "--step", "15", "-o", out, NULL };
	CHECK(run_wattcast(files, NULL, &r) == 0);
	check_rows("scrapes", &r, out);
	run_result_free(&r);
	if (!test_prom_serve(dir, om, url, sizeof url)) {
		CHECK(0);
		return check_report("test_prometheus_idle_gpus");
	}
	const char *server[] = { "wattcast", "ingest", "--prometheus", url, "--start", "1767225600", "--end",
	                         "1767225900", "--step", "15", "-o", out, NULL };
	CHECK(run_wattcast(server, NULL, &r) == 0);
	check_rows("server", &r, out);
	run_result_free(&r);
	test_prom_stop();
	free(out);
	free(in);
	free(om);
	free(dir);
	return check_report("test_prometheus_idle_gpus");
}
