/*
 * `ingest --scrapes` of a fleet of many hosts does work in proportion to
 * its series (docs/fleet.md, "Paging"). Every series of a page
 * looked its group up by comparing its key with every group's: a smoke
 * test's 80 000 hosts of one GPU and one engine, two scrapes each, took
 * 49 s (20 000: 3.6 s), quadratic in the hosts while parsing took under
 * a second. The work is measured as wattcast's calls of strcmp, counted
 * by a preloaded library (tests/preload/count_strcmp.c), since a time
 * depends on the machine: four times the hosts must cost at most five
 * times the comparisons (the scan cost 12 times; sorting the rows adds a
 * logarithm). The larger fleet's rows are checked too.
 */
#include "data/data.h"
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T0 1767225600

#ifndef WC_TEST_ASAN
/* `hosts` hosts of one H100 and one engine, two scrapes a second apart. */
static char *
fleet(int hosts)
{
	size_t cap = (size_t)hosts * 2 * 260 + 256, len = 0;
	char *buf = malloc(cap);
	for (int s = 0; buf && s < 2; s++) {
		len += (size_t)snprintf(buf + len, cap - len, "# wattcast-scrape %d\n", T0 + s);
		for (int h = 0; h < hosts; h++)
			len += (size_t)snprintf(buf + len, cap - len,
			                        "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\",UUID=\"GPU-%d\",modelName=\"NVIDIA H100 "
			                        "80GB HBM3\",Hostname=\"n%d\"} 300\nvllm:num_requests_running{engine=\"0\","
			                        "model_name=\"Qwen/Qwen3-8B\",instance=\"n%d:8000\"} 4\n", h, h, h);
	}
	return buf;
}

/* The strcmp calls of one ingest of `hosts` hosts (0 when not counted);
 * its table into *t. */
static unsigned long long
comparisons(const char *dir, const char *lib, int hosts, wc_runs_table **t)
{
	char name[64];
	snprintf(name, sizeof name, "fleet%d.prom", hosts);
	char *buf = fleet(hosts);
	CHECK(buf != NULL);
	char *in = test_fixture(dir, name, buf ? buf : "");
	free(buf);
	char *out = path_join(dir, "out.csv"), *count = path_join(dir, "count.txt");
	remove(count);
	setenv("WC_COUNT_STRCMP_OUT", count, 1);
	setenv("LD_PRELOAD", lib, 1);
	const char *argv[] = { "wattcast", "ingest", "--scrapes", in, "-o", out, "--quiet", NULL };
	run_result r;
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	unsetenv("LD_PRELOAD");
	CHECK_INT(r.status, 0);
	if (r.status != 0)
		fprintf(stderr, "ingest: %s\n", r.err ? r.err : "");
	run_result_free(&r);
	unsigned long long n = 0;
	char *text = test_slurp(count);
	CHECK(sscanf(text, "%llu", &n) == 1);
	free(text);
	wc_error err;
	CHECK_INT(wc_runs_read(out, t, &err), WC_OK);
	free(in);
	free(out);
	free(count);
	return n;
}
#endif

int
main(void)
{
#ifdef WC_TEST_ASAN
	printf("test_prom_scale: skipped: AddressSanitizer intercepts strcmp before a preloaded library\n");
	return TEST_SKIP;
#else
	const char *lib = test_env("WC_COUNT_STRCMP_LIB", NULL);
	CHECK(lib != NULL);
	if (!lib)
		return check_report("test_prom_scale");
	char *dir = test_tmpdir("prom_scale");
	wc_runs_table *t = NULL;
	unsigned long long small = comparisons(dir, lib, 1000, &t);
	wc_runs_free(t);
	t = NULL;
	unsigned long long large = comparisons(dir, lib, 4000, &t);
	printf("strcmp calls: %llu for 1000 hosts, %llu for 4000\n", small, large);
	CHECK(small > 0);
	CHECK(large <= 5 * small);
	/* One row per host, its GPU's power and the engine's load. */
	CHECK(t && t->n_runs == 4000);
	for (size_t i = 0; t && i < t->n_runs; i++) {
		CHECK_NEAR(t->runs[i].mean_power_w, 300.0, 1e-9);
		CHECK_NEAR(t->runs[i].running, 4.0, 1e-9);
		CHECK_INT(t->runs[i].tp, 1);
	}
	wc_runs_free(t);
	free(dir);
	return check_report("test_prom_scale");
#endif
}
