/*
 * Inputs a fleet's pipelines produce that wattcast reads past or names
 * (docs/formats/prometheus.md, docs/fleet.md "Queries"): an OpenMetrics
 * exemplar after a sample was refused as "expected a timestamp in whole
 * milliseconds"; a \u0000 in a saved answer named jansson's flag
 * JSON_ALLOW_NUL; a saved answer of metrics none of which is read
 * (vllm_generation_tokens_total, an OTel pipeline's name) was passed over
 * unsaid. A gzip-compressed answer or scrape file (it starts 1f 8b) was
 * named by its first bytes: `not JSON ... it begins ' ...'`, or `:1:1:
 * not exposition text but plain text (an HTML or error page ...)`.
 */
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *dir;

static void
ingest(const char *const *argv, run_result *r)
{
	CHECK(run_wattcast(argv, NULL, r) == 0);
	fprintf(stderr, "%s%s", r->out ? r->out : "", r->err ? r->err : "");
}

/* 40 scrapes every 15 s, the counter's with an exemplar (after the value,
 * or after a timestamp): read as without it. */
static void
check_exemplar(void)
{
	size_t cap = 1 << 16, len = 0;
	char *buf = malloc(cap);
	for (int k = 0; k < 40; k++)
		len += (size_t)snprintf(buf + len, cap - len, "# wattcast-scrape %d dcgm-h1:9400\n"
		                        "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\",UUID=\"GPU-A\",modelName=\"NVIDIA H100 80GB "
		                        "HBM3\",Hostname=\"h1\"} 300\n# wattcast-scrape %d h1:8000\n"
		                        "vllm:num_requests_running{model_name=\"Qwen/Qwen3-8B\"} 8\n"
		                        "vllm:generation_tokens_total{model_name=\"Qwen/Qwen3-8B\"} %d%s # "
		                        "{trace_id=\"abc\"} 1.0 1767225600.000\n", 1767225600 + 15 * k,
		                        1767225600 + 15 * k, 100 * 15 * k, k % 2 ? "" : ".0");
	char *path = path_join(dir, "ex.prom"), *out = path_join(dir, "ex.csv");
	CHECK(write_text(path, buf) == 0);
	const char *argv[] = { "wattcast", "ingest", "--scrapes", path, "-o", out, NULL };
	run_result r;
	ingest(argv, &r);
	CHECK_INT(r.status, 0);
	CHECK(!strstr(r.err, "timestamp"));
	char *csv = test_slurp(out);
	CHECK(csv && strstr(csv, ",300,100,3,") != NULL);
	free(csv);
	run_result_free(&r);
	free(buf);
	free(path);
	free(out);
}

static void
check_nul_and_unread(void)
{
	char *nul = test_fixture(dir, "nul.json", "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\","
	                         "\"result\":[{\"metric\":{\"__name__\":\"x\",\"a\":\"b\\u0000c\"},\"values\":[]}]}}\n");
	char *out = path_join(dir, "n.csv");
	const char *argv[] = { "wattcast", "ingest", "--prometheus-json", nul, "-o", out, NULL };
	run_result r;
	ingest(argv, &r);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "nul.json:1:");
	CHECK_CONTAINS(r.err, "\\u0000 (a NUL character)");
	CHECK(!strstr(r.err, "JSON_ALLOW_NUL"));
	run_result_free(&r);
	char *otel = test_fixture(dir, "otel.json", "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\","
	                          "\"result\":[{\"metric\":{\"__name__\":\"vllm_generation_tokens_total\","
	                          "\"model_name\":\"m\"},\"values\":[[1767225600,\"1\"],[1767225615,\"2\"]]}]}}\n");
	argv[3] = otel;
	ingest(argv, &r);
	CHECK_CONTAINS(r.err, "otel.json: no series read (vllm_generation_tokens_total): no metric "
	               "docs/fleet.md \"Metrics\" names");
	run_result_free(&r);
	/* promtool's output, the result array without the API's envelope:
	 * named, with the curl that saves the answer (it was "/status:
	 * missing (not a Prometheus API response)") */
	char *bare = test_fixture(dir, "pt.json", "[{\"metric\":{\"__name__\":\"DCGM_FI_DEV_POWER_USAGE\"},"
	                          "\"values\":[[1767225600,\"300\"]]}]\n");
	argv[3] = bare;
	ingest(argv, &r);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "pt.json: a bare array of series, not a query_range answer (promtool query range -o "
	               "json's?): save the API's answer, curl -sG SERVER/api/v1/query_range --data-urlencode query=... "
	               "(docs/fleet.md)\n");
	run_result_free(&r);
	free(bare);
	free(nul);
	free(otel);
	free(out);
}

/* A saved answer and a scrape file gzipped (curl --compressed -o, a
 * rotated log): said gzip, with the decompression, not bad JSON or an
 * error page (docs/formats/prometheus.md). */
static void
check_gzip(void)
{
	static const char gz[] = "\x1f\x8b\x08\x08\x9a\x12\x55\x69\x00";
	char *json = path_join(dir, "power.json.gz"), *prom = path_join(dir, "h1.prom.gz"), *out = path_join(dir, "g.csv");
	CHECK(write_text(json, gz) == 0 && write_text(prom, gz) == 0);
	const char *argv[] = { "wattcast", "ingest", "--prometheus-json", json, "-o", out, NULL };
	for (int k = 0; k < 2; k++) {
		run_result r;
		argv[2] = k ? "--scrapes" : "--prometheus-json";
		argv[3] = k ? prom : json;
		ingest(argv, &r);
		CHECK_INT(r.status, 1);
		CHECK_CONTAINS(r.err, k ? "h1.prom.gz:1:1: a gzip-compressed file (it starts 1f 8b), not text: "
		                          "decompress it first (gunzip -c FILE > NEW)"
		                        : "power.json.gz:1:1: a gzip-compressed file (it starts 1f 8b)");
		CHECK(!strstr(r.err, "not JSON") && !strstr(r.err, "plain text"));
		run_result_free(&r);
	}
	free(json);
	free(prom);
	free(out);
}

int
main(void)
{
	dir = test_tmpdir("prom_odd_inputs");
	check_exemplar();
	check_nul_and_unread();
	check_gzip();
	free(dir);
	return check_report("test_prom_odd_inputs");
}
