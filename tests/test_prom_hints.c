/*
 * What `wattcast ingest` from Prometheus says when the input is not what
 * it reads (docs/fleet.md, "Problems in the data"; docs/formats/
 * prometheus.md). No engine series at all (vLLM's metric misnamed
 * `vllm_num_requests_running`) blamed --group-by as "GPU with no engine
 * series ... (--group-by matches them differently)".
 */
#include "tests/support/support.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>

#define T0 1767225600L

static char *dir;

static void
ingest(const char *const *argv, run_result *r)
{
	CHECK(run_wattcast(argv, NULL, r) == 0);
	fprintf(stderr, "%s", r->err ? r->err : "");
}

/* Power and vLLM's other metrics, the running count under a name it never
 * had: no engine load series anywhere, so no group is at fault. */
static void
check_no_engine(void)
{
	size_t cap = 1 << 16, len = 0;
	char *buf = malloc(cap);
	for (int k = 0; k < 40; k++)
		len += (size_t)snprintf(buf + len, cap - len,
		                        "# wattcast-scrape %ld h1:9400\nDCGM_FI_DEV_POWER_USAGE{gpu=\"0\",UUID=\"GPU-0\","
		                        "modelName=\"NVIDIA H100 80GB HBM3\",Hostname=\"h1\"} 300\n"
		                        "# wattcast-scrape %ld h1:8000\nvllm_num_requests_running{model_name=\"Qwen/Qwen3-8B\"} 8\n"
		                        "vllm:num_requests_waiting{model_name=\"Qwen/Qwen3-8B\"} 0\n",
		                        T0 + 15 * k, T0 + 15 * k);
	char *in = path_join(dir, "novllm.prom"), *out = path_join(dir, "x.csv");
	CHECK(write_text(in, buf) == 0);
	free(buf);
	const char *argv[] = { "wattcast", "ingest", "--scrapes", in, "-o", out, NULL };
	run_result r;
	ingest(argv, &r);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "wattcast ingest: no engine load series (vllm:num_requests_running or "
	               "sglang:num_running_reqs) in the range, only GPU power: is the engine's metric named so, "
	               "and does --selector match its series?");
	CHECK(!strstr(r.err, "--group-by"));
	CHECK(!test_exists(out));
	run_result_free(&r);
	free(in);
	free(out);
}

int
main(void)
{
	dir = test_tmpdir("prom_hints");
	check_no_engine();
	free(dir);
	return check_report("test_prom_hints");
}
