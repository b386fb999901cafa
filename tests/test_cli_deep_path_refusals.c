/*
 * A refusal quotes the file's path before its reason. Under a folder of
 * about 300 bytes the path alone filled the 255 bytes a message keeps to,
 * and the runs table, the scrape file, wattcast-run.json, steps.csv,
 * --running-series and --prometheus-json said only the folder
 * ("wattcast fit inference: /tmp/.../folder_xxxx..."): no file name, no
 * line:column, no reason. Each now quotes the path by the one rule, its
 * middle giving way, so the file name, where and why stay whole
 * (docs/architecture.md, "Errors"); the file's folder too where there is
 * room, since a run's folder says which run.
 */
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static char deep[1024];

/* Run argv; its refusal, the first stderr line after "wattcast CMD: ",
 * within 255 bytes, starting with the folder's head and ending with
 * `want` (the file name, line:column and the whole reason). */
static void
refused(const char *const *argv, const char *cmd, const char *flag, const char *want)
{
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK(r.status != 0);
	char prefix[128];
	snprintf(prefix, sizeof prefix, "wattcast %s: ", cmd);
	const char *l = r.err ? strstr(r.err, prefix) : NULL;
	CHECK(l != NULL);
	if (l) {
		const char *msg = l + strlen(prefix);
		size_t n = strcspn(msg, "\n");
		char one[2048];
		snprintf(one, sizeof one, "%.*s", (int)n, msg);
		CHECK(n <= 255);
		size_t w = strlen(want), k = flag ? strlen(flag) : 0;
		CHECK(n >= w && memcmp(one + n - w, want, w) == 0);
		CHECK(strncmp(one, flag ? flag : "", k) == 0);
		CHECK(strncmp(one + k, deep, 24) == 0); /* the path's head is kept */
		CHECK(strstr(one, "...") != NULL);
		if (n > 255 || n < w || memcmp(one + n - w, want, w) != 0)
			fprintf(stderr, "%zu bytes: %s\n  want the end: %s\n", n, one, want);
	}
	run_result_free(&r);
}

int
main(void)
{
	char *dir = test_tmpdir("cli_deep_path_refusals");
	snprintf(deep, sizeof deep, "%s", dir);
	for (int k = 0; strlen(deep) < 300; k++) {
		size_t len = strlen(deep);
		snprintf(deep + len, sizeof deep - len, "/folder_%s%d",
		         "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", k);
		CHECK(mkdir(deep, 0755) == 0);
	}
	char *out = path_join(dir, "out.csv"), *params = path_join(dir, "p.json");

	/* a runs table's bad cell */
	char *runs = test_fixture(deep, "runs.csv", "run_id,platform,tp,model,running,mean_power_w\n"
	                          "r1,H100,1,Qwen3-8B,8,abc\n");
	const char *fit[] = { "wattcast", "fit", "inference", runs, "-o", params, NULL };
	refused(fit, "fit inference", NULL, "/runs.csv:2:22: column 'mean_power_w': expected a number, got 'abc'");

	/* a scrape file's bad label */
	char *prom = test_fixture(deep, "s.prom", "# wattcast-scrape 1767225600 h1:9400\n"
	                          "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\" 12\n");
	const char *scrapes[] = { "wattcast", "ingest", "--scrapes", prom, "-o", out, NULL };
	refused(scrapes, "ingest", NULL, "/s.prom:2:33: expected ',' or '}' after a label value");

	/* a run's wattcast-run.json with a Latin-1 model name */
	char *run = path_join(deep, "run");
	CHECK(mkdir(run, 0755) == 0);
	free(test_fixture(run, "power.csv", "timestamp, index, power.draw [W]\n"
	                  "2026/07/18 15:57:25.000, 0, 80.12\n2026/07/18 15:57:25.250, 0, 80.12\n"));
	free(test_fixture(run, "wattcast-run.json", "{\"schema\":\"wattcast.run/3\",\"model\":\"caf\xe9\"}"));
	const char *ingest[] = { "wattcast", "ingest", run, "-o", out, "--platform", "A100", NULL };
	refused(ingest, "ingest", NULL, "/run/wattcast-run.json:1:37: not valid UTF-8 at byte 4");

	/* a fine-tuning run's steps.csv cell */
	char *ft = path_join(deep, "ft"), power[8192] = "timestamp, index, power.draw [W]\n";
	CHECK(mkdir(ft, 0755) == 0);
	for (int i = 0; i < 100; i++) {
		size_t len = strlen(power);
		snprintf(power + len, sizeof power - len, "2026/07/18 15:57:%02d.%03d, 0, 300.5\n", i / 4, 250 * (i % 4));
	}
	free(test_fixture(ft, "power.csv", power));
	free(test_fixture(ft, "wattcast-run.json", "{\"schema\": \"wattcast.run/3\", \"platform\": \"H100\", "
	                  "\"model\": \"Llama-3.1-8B\", \"utc_offset_s\": 0, \"finetune\": {\"method\": \"qlora\", "
	                  "\"micro_batch\": 8, \"seq_len\": 1024, \"grad_accum\": 4, \"lora_rank\": 64, "
	                  "\"checkpointing\": false}}\n"));
	free(test_fixture(ft, "steps.csv", "step,epoch_s,event\n0,1784390245,start\n1,abc,step\n"));
	const char *steps[] = { "wattcast", "ingest", ft, "-o", out, NULL };
	refused(steps, "ingest", NULL, "/ft/steps.csv:3:3: column 'epoch_s': expected Unix seconds, got 'abc'");

	/* --running-series: the flag's words before the path leave it less room */
	char *series = test_fixture(deep, "series.csv", "t_s,running\n0,4\n1,abc\n");
	const char *predict[] = { "wattcast", "predict", "inference", "--platform", "H100", "--model", "Qwen3-8B",
		                  "--running-series", series, NULL };
	refused(predict, "predict inference", "--running-series: ", "/series.csv:3:3: expected a number, got 'abc'");

	/* a saved Prometheus answer's value */
	char *json = test_fixture(deep, "q.json", "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":"
	                          "[{\"metric\":{\"__name__\":\"DCGM_FI_DEV_POWER_USAGE\",\"gpu\":\"0\",\"Hostname\":\"h1\"},"
	                          "\"values\":[[1767225600,\"abc\"]]}]}}");
	const char *pj[] = { "wattcast", "ingest", "--prometheus-json", json, "-o", out, NULL };
	refused(pj, "ingest", NULL, "/q.json: /data/result/0/values/0/1: value 'abc' is not a number (expected a "
	        "number, NaN, +Inf or -Inf)");

	free(runs);
	free(prom);
	free(run);
	free(ft);
	free(series);
	free(json);
	free(out);
	free(params);
	free(dir);
	return check_report("test_cli_deep_path_refusals");
}
