/*
 * `wattcast ingest --scrapes --platform` (docs/fleet.md, "Grouping"): the
 * flag names a group's platform only where its GPUs' modelName is not in
 * the catalog. On GPUs whose modelName names H100, `--platform FOO` and
 * `--platform A100` were accepted without a word; they are now said not
 * applied, naming the flag's value, the group and the platform read. A
 * --platform naming the GPUs' own platform (an alias too) says nothing,
 * and the rows are H100 in every case.
 */
#include "data/data.h"
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T0 1767225600L

static void
one(const char *in, const char *out, const char *platform, const char *said)
{
	const char *argv[] = { "wattcast", "ingest", "--scrapes", in, "--platform", platform, "-o", out, NULL };
	run_result r;
	wc_runs_table *t = NULL;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	fprintf(stderr, "--platform %s\n%s", platform, r.err ? r.err : "");
	if (said)
		CHECK(r.err && strstr(r.err, said));
	else
		CHECK(!r.err || !strstr(r.err, "--platform"));
	if (r.status == 0 && wc_runs_read(out, &t, NULL) == WC_OK) {
		CHECK_INT(t->n_runs, 1);
		if (t->n_runs == 1)
			CHECK(strcmp(t->runs[0].platform, "H100") == 0);
	} else {
		CHECK(0);
	}
	wc_runs_free(t);
	run_result_free(&r);
}

int
main(void)
{
	char *dir = test_tmpdir("prom_platform_flag");
	size_t cap = 1 << 20, len = 0;
	char *buf = malloc(cap);
	for (int s = 0; s < 120; s++)
		len += (size_t)snprintf(buf + len, cap - len, "# wattcast-scrape %ld a:8000\n"
		                        "vllm:num_requests_running{model_name=\"Qwen/Qwen3-8B\"} 8\n"
		                        "# wattcast-scrape %ld dcgm:9400\n"
		                        "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\",Hostname=\"a\",modelName=\"NVIDIA H100 "
		                        "80GB HBM3\"} 300\n", T0 + s, T0 + s);
	char *in = path_join(dir, "h100.prom"), *out = path_join(dir, "out.csv");
	CHECK(write_text(in, buf) == 0);
	free(buf);
	one(in, out, "FOO", "--platform FOO (not in the platform catalog): not applied to 1 group ('a' first): their "
	                    "GPUs' modelName names H100, and what the data states wins over a flag");
	one(in, out, "A100", "--platform A100: not applied to 1 group ('a' first): their GPUs' modelName names H100");
	one(in, out, "H100", NULL);
	one(in, out, "NVIDIA H100 80GB HBM3", NULL);
	free(in);
	free(out);
	free(dir);
	return check_report("test_prom_platform_flag");
}
