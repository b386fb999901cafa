/*
 * Power under WC_GPU_MIN_POWER_W per GPU is a unit slip (docs/formats/
 * telemetry.md, "Units and plausibility"): a copy of the real A100 4 req/s
 * run with power.draw divided by 1000 (kW logged as W) ingested to a mean
 * of 0.25 W at 8.07 running, 0.00044 J per token, with only the idle
 * estimate rejected, and a Prometheus scrape at 0.3 W gave no word at all;
 * validate then scored +99393 %. A run or window whose mean power is under
 * 1 W per GPU is now refused, as a fine-tuning table's step is and as a
 * reading beyond any board is, naming the file and the power column (the
 * series for a scrape); a run at a board's power is not.
 */
#include "tests/support/support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A run folder on A100: 60 s at 0.25 s, power `watts` when busy and
 * `idle` else, 4 requests running but for the first and last 5 s. */
static char *
run_folder(const char *root, const char *name, double watts, double idle)
{
	char *dir = path_join(root, name), man[400];
	mkdir(dir, 0755);
	char *p = path_join(dir, "power.csv"), *e = path_join(dir, "engine.csv");
	FILE *fp = fopen(p, "w"), *fe = fopen(e, "w");
	CHECK(fp && fe);
	if (!fp || !fe)
		exit(1);
	fprintf(fp, "timestamp, index, power.draw [W]\n");
	fprintf(fe, "timestamp,num_requests_running\n");
	for (int k = 0; k < 240; k++) {
		double t = 1784412000.0 + 0.25 * k;
		int busy = k >= 20 && k < 220;
		fprintf(fp, "%.3f, 0, %.5f W\n", t, busy ? watts * (1.0 + 0.01 * sin(0.7 * k)) : idle);
		fprintf(fe, "%.3f,%d\n", t, busy ? 4 : 0);
	}
	fclose(fp);
	fclose(fe);
	snprintf(man, sizeof man, "{\"schema\": \"wattcast.run/2\", \"run_id\": \"%s\", \"platform\": \"A100\", "
	         "\"tp\": 1, \"model\": \"Qwen/Qwen3-8B\", \"utc_offset_s\": 0}\n", name);
	free(test_fixture(dir, "wattcast-run.json", man));
	free(p);
	free(e);
	return dir;
}

/* Two minutes at 1 s of one H100 at `power` W and one engine running 10. */
static char *
scrape(const char *dir, const char *name, const char *power)
{
	size_t cap = 1 << 16, len = 0;
	char *buf = malloc(cap);
	for (int s = 0; s < 120; s++)
		len += (size_t)snprintf(buf + len, cap - len,
		                        "# wattcast-scrape %d h1:9400\n"
		                        "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\",UUID=\"GPU-0\",modelName=\"NVIDIA H100 80GB HBM3\","
		                        "Hostname=\"h1\"} %s\n"
		                        "# wattcast-scrape %d h1:8000\n"
		                        "vllm:num_requests_running{model_name=\"Qwen/Qwen3-8B\"} 10\n"
		                        "vllm:num_requests_waiting{model_name=\"Qwen/Qwen3-8B\"} 0\n"
		                        "vllm:generation_tokens_total{model_name=\"Qwen/Qwen3-8B\"} %d\n",
		                        1784000000 + s, power, 1784000000 + s, 500 * (s + 1));
	char *path = path_join(dir, name);
	CHECK(write_text(path, buf) == 0);
	free(buf);
	return path;
}

int
main(void)
{
	char *dir = test_tmpdir("run_power_floor"), *out = path_join(dir, "runs.csv");
	run_result r;

	/* a run folder in kW read as W: refused, file and column named */
	char *kw = run_folder(dir, "kw", 0.25, 0.07), *fine = run_folder(dir, "fine", 250.0, 70.0);
	const char *argv[] = { "wattcast", "ingest", kw, "-o", out, NULL };
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	CHECK(r.status != 0);
	CHECK_CONTAINS(r.err, "kw/power.csv: power.draw: run kw: mean power 0.2");
	CHECK_CONTAINS(r.err, " W per GPU is under 1 W, below any GPU's idle: a unit slip (kW read as W?)");
	CHECK(access(out, F_OK) != 0);
	run_result_free(&r);
	/* the same run at a board's power is taken */
	const char *ok[] = { "wattcast", "ingest", fine, "-o", out, NULL };
	CHECK_INT(run_wattcast(ok, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	CHECK(strstr(r.err ? r.err : "", "unit slip") == NULL);
	run_result_free(&r);

	/* a scrape at 0.3 W: refused, the series named */
	char *low = scrape(dir, "kwp.prom", "0.3"), *good = scrape(dir, "good.prom", "300");
	unlink(out);
	const char *sc[] = { "wattcast", "ingest", "--scrapes", low, "-o", out, NULL };
	CHECK_INT(run_wattcast(sc, NULL, &r), 0);
	CHECK(r.status != 0);
	CHECK_CONTAINS(r.err, "DCGM_FI_DEV_POWER_USAGE{");
	CHECK_CONTAINS(r.err, "mean power 0.3 W per GPU is under 1 W, below any GPU's idle: a unit slip");
	CHECK(access(out, F_OK) != 0);
	run_result_free(&r);
	const char *sg[] = { "wattcast", "ingest", "--scrapes", good, "-o", out, NULL };
	CHECK_INT(run_wattcast(sg, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	CHECK(strstr(r.err ? r.err : "", "unit slip") == NULL);
	run_result_free(&r);

	free(low);
	free(good);
	free(kw);
	free(fine);
	free(out);
	free(dir);
	return check_report("test_run_power_floor");
}
