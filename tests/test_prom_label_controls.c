/*
 * A control character in a label value of the metrics `wattcast ingest`
 * reads from Prometheus data (docs/formats/prometheus.md): the value
 * becomes a runs-table text cell (model, host, namespace, pod) or a series
 * name in messages. A scrape's `model_name="my,model\"x\ny"` was written
 * into the table, which `calibrate` then refused ("unterminated quoted
 * field"); it is refused where it enters, at the value's first byte, as a
 * value that is not UTF-8 is. Commas and quotes round-trip and stay read.
 */
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *dir;

static char *
scrape(const char *name, const char *model)
{
	char *buf = NULL;
	size_t len = 0, cap = 0;
	for (int s = 0; s < 120; s++)
		test_appendf(&buf, &len, &cap, "# wattcast-scrape %d h1:9400\nDCGM_FI_DEV_POWER_USAGE{gpu=\"0\","
		             "UUID=\"GPU-0\",modelName=\"NVIDIA H100 80GB HBM3\",Hostname=\"h1\"} 300\n"
		             "# wattcast-scrape %d h1:8000\nvllm:num_requests_running{model_name=\"%s\"} 8\n",
		             1767225600 + s, 1767225600 + s, model);
	char *path = test_fixture(dir, name, buf);
	free(buf);
	return path;
}

static void
ingest(const char *flag, const char *in, int status, const char *needle)
{
	char *out = path_join(dir, "out.csv");
	const char *argv[] = { "wattcast", "ingest", flag, in, "--active-params", "8", "-o", out, NULL };
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	fprintf(stderr, "%s", r.err ? r.err : "");
	CHECK_INT(r.status, status);
	if (status) {
		CHECK_CONTAINS(r.err, needle);
		CHECK(!test_exists(out));
	} else {
		char *t = test_slurp(out);
		CHECK_CONTAINS(t, needle);
		free(t);
		remove(out);
	}
	run_result_free(&r);
	free(out);
}

int
main(void)
{
	dir = test_tmpdir("prom_label_controls");
	char *in = scrape("nl.prom", "my,model\\\"x\\ny");
	ingest("--scrapes", in, 1, "nl.prom:4:39: label 'model_name': control character at byte 11\n");
	free(in);
	in = scrape("tab.prom", "my\tmodel");
	ingest("--scrapes", in, 1, "tab.prom:4:39: label 'model_name': control character at byte 3\n");
	free(in);
	in = scrape("ok.prom", "my,model\\\"x");
	ingest("--scrapes", in, 0, ",\"my,model\"\"x\",");
	free(in);
	in = test_fixture(dir, "q.json", "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[\n"
	                  " {\"metric\":{\"__name__\":\"vllm:num_requests_running\",\"model_name\":\"a\\nb\"},"
	                  "\"values\":[[1767225600,\"1\"]]}]}}\n");
	ingest("--prometheus-json", in, 1, "q.json: /data/result/0/metric/model_name: control character at byte 2\n");
	free(in);
	free(dir);
	return check_report("test_prom_label_controls");
}
