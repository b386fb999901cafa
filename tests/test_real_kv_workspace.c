/*
 * The engine workspace the memory model keeps per GPU
 * (WC_CAPACITY_WORKSPACE_GB, docs/capacity.md "Memory as vLLM does it")
 * is what validation/kv-workspace.sh measures on ../shared's real vLLM
 * runs: their KV cache blocks (from the cache-usage counter) against the
 * engine's share of memory and the weights. The script is run with the
 * built wattcast and its printed constant compared with the header's;
 * each run's workspace is checked to be a plausible 0.5-4 GB, and the
 * model's largest concurrency for a run's own configuration is checked
 * against the blocks vLLM reported.
 */
#include "models/capacity_model.h"
#include "tests/support/support.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
main(void)
{
	const char *shared = test_shared_dir();
	if (!shared)
		return TEST_SKIP;
	char *bin = strdup(test_env("WATTCAST_BIN", "build/wattcast"));
	char *slash = strrchr(bin, '/'), cmd[4096], line[1024];
	if (slash)
		*slash = '\0';
	snprintf(cmd, sizeof cmd, "sh '%s/validation/kv-workspace.sh' '%s' '%s'", test_env("WC_SOURCE_DIR", "."),
	         slash ? bin : ".", shared);
	FILE *f = popen(cmd, "r");
	CHECK(f != NULL);
	double constant = NAN;
	int runs = 0, configurations = 0;
	while (f && fgets(line, sizeof line, f)) {
		fputs(line, stderr);
		double ws, blocks;
		const char *p = strstr(line, "workspace ");
		if (p && sscanf(p, "workspace %lf GB per GPU", &ws) == 1) {
			runs++;
			CHECK(ws > 0.5 && ws < 4.0);
			const char *b = strchr(line, '\t');
			b = b ? strchr(b + 1, '\t') : NULL;
			CHECK(b && sscanf(b + 1, "%lf blocks", &blocks) == 1 && blocks > 1000);
		}
		sscanf(line, "configurations %d", &configurations);
		sscanf(line, "WC_CAPACITY_WORKSPACE_GB %lf", &constant);
	}
	CHECK_INT(f ? pclose(f) : -1, 0);
	printf("  %d runs, %d configurations: workspace %.2f GB per GPU (header %.2f)\n", runs, configurations, constant,
	       WC_CAPACITY_WORKSPACE_GB);
	CHECK(runs >= 2 && configurations >= 2);
	CHECK_NEAR(constant, WC_CAPACITY_WORKSPACE_GB, 0.005);

	/* The model at the A100 run's configuration: Qwen3-8B, one 80 GB A100,
	 * vLLM's 0.9: its cache of 25 084 blocks of 16 tokens, within one
	 * request of 1 000 + 0 tokens (the rest of the workspace's spread). */
	const char *argv[] = { "wattcast", "predict", "inference", "--platform", "A100", "--model", "Qwen3-8B",
		               "--concurrency", "1000", "--input-tokens", "992", "--output-tokens", "16", "--json", NULL };
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	json_t *o = r.status == 0 ? json_loads(r.out, 0, NULL) : NULL;
	CHECK(o != NULL);
	double fit = o ? json_number_value(json_object_get(o, "max_concurrency_fit")) : NAN;
	/* each request holds 992 + 8 + 8 tokens: 63 whole blocks */
	double vllm = floor(25084.0 * 16 / (992 + 8 + 8));
	printf("  A100 Qwen3-8B, 1000-token requests: %g fit, vLLM's blocks hold %g\n", fit, vllm);
	CHECK(fabs(fit - vllm) <= 0.02 * vllm);
	json_decref(o);
	run_result_free(&r);
	free(bin);
	return check_report("test_real_kv_workspace");
}
