/*
 * Group verdicts past the 50 warnings' budget (docs/fleet.md, "Problems
 * in the data"): 60 hosts of one H100 each, their engines scraped every
 * 5 s, each changing from 8 to 96 running within a step (one "the load
 * changed within the step" warning per host: the budget is spent), beside
 * host 'free' (a GPU no engine uses), host 'lone' (an engine without GPU
 * series) and host 'two' (two vLLM servers at once, ports 8000 and 8001).
 * The three are left out; their lines went through the budget and were
 * suppressed, so the hosts vanished from the table with exit 0.
 */
#include "data/data.h"
#include "tests/support/ingest_run.h"
#include "tests/support/prom_ingest.h"
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T0 1767225600L
#define HOSTS 60
#define GPU "modelName=\"NVIDIA H100 80GB HBM3\""

static size_t
engine(char *buf, size_t cap, long t, const char *instance, int running)
{
	return (size_t)snprintf(buf, cap, "# wattcast-scrape %ld %s\n"
	                        "vllm:num_requests_running{model_name=\"Qwen/Qwen3-8B\"} %d\n", t, instance, running);
}

/* The fleet with host 'free' (lone 0) or host 'lone' (lone 1): a GPU no
 * engine uses beside an engine without GPUs is refused, not left out. */
static char *
fleet(int lone)
{
	size_t cap = 1 << 22, len = 0;
	char *buf = malloc(cap), inst[40];
	for (int s = 0; s < 300 && buf; s += 5) {
		int running = s < 157 ? 8 : 96;
		for (int h = 0; h < HOSTS + 2; h++) {
			const char *host = h == HOSTS ? "free" : h == HOSTS + 1 ? "two" : NULL;
			char name[16];
			snprintf(name, sizeof name, "h%d", h);
			if (h == HOSTS && lone)
				continue;
			len += (size_t)snprintf(buf + len, cap - len, "# wattcast-scrape %ld dcgm-%s:9400\n"
			                        "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\",UUID=\"GPU-%d\",Hostname=\"%s\"," GPU
			                        "} 300\n", T0 + s, host ? host : name, h, host ? host : name);
			if (h == HOSTS)
				continue;
			snprintf(inst, sizeof inst, "%s:8000", host ? host : name);
			len += engine(buf + len, cap - len, T0 + s, inst, running);
		}
		len += engine(buf + len, cap - len, T0 + s, "two:8001", running);
		if (lone)
			len += engine(buf + len, cap - len, T0 + s, "lone:8000", running);
	}
	return buf;
}

/* The hosts' rows are written, not those of the groups left out. */
static void
check_rows(const wc_runs_table *t)
{
	if (!t) {
		CHECK(0);
		return;
	}
	size_t hosts = 0;
	for (size_t i = 0; i < t->n_runs; i++) {
		hosts += t->runs[i].run_id[0] == 'h';
		CHECK(strncmp(t->runs[i].run_id, "two#", 4) != 0 && strncmp(t->runs[i].run_id, "free#", 5) != 0);
	}
	CHECK(hosts >= HOSTS);
}

int
main(void)
{
	char *dir = test_tmpdir("prom_verdict_budget");
	run_result r;
	wc_runs_table *t = NULL;
	char *buf = fleet(0);
	test_prom_ingest(dir, "free.prom", buf, NULL, &r, &t);
	free(buf);
	CHECK_CONTAINS(r.err, "further warnings suppressed");
	CHECK_CONTAINS(r.err, "group 'two' left out: two engines at once");
	CHECK_CONTAINS(r.err, "GPU with no engine series in group 'free', and every engine has GPUs: 1 GPU series no "
	               "engine uses, left out");
	/* said after the budget was spent, as the count of groups without rows is */
	CHECK(r.err && strstr(r.err, "group 'two' left out") > strstr(r.err, "further warnings suppressed"));
	check_rows(t);
	wc_runs_free(t);
	run_result_free(&r);

	buf = fleet(1);
	test_prom_ingest(dir, "lone.prom", buf, NULL, &r, &t);
	free(buf);
	CHECK_CONTAINS(r.err, "vllm:num_requests_running{instance=\"lone:8000\",model_name=\"Qwen/Qwen3-8B\"}: engine "
	               "with no GPU series (DCGM_FI_DEV_POWER_USAGE) in group 'lone': left out");
	CHECK_CONTAINS(r.err, "group 'two' left out: two engines at once");
	check_rows(t);
	wc_runs_free(t);
	run_result_free(&r);
	free(dir);
	return check_report("test_prom_verdict_budget");
}
