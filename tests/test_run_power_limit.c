/*
 * Power above the named board's limit (docs/formats/telemetry.md, "Units
 * and plausibility"). `ingest` dropped samples beyond 2x the limit
 * but said nothing of a run whose mean sat between 1x and 2x it, and
 * `import csv` checked only 5 kW per GPU: 1500 W per GPU on a 350 W L40S
 * was taken without a word and showed up only as a calibration miss. Both
 * now warn, naming the run (and the row), the power and the limit; a p95
 * warns only beyond 1.5x the limit, as genuine short logs overshoot it.
 */
#include "tests/support/support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* A run folder on `platform`: 60 s at 0.25 s, power `watts` +- 5 W, 4
 * requests running throughout but for the first and last 5 s. */
static char *
run_folder(const char *root, const char *name, const char *platform, double watts)
{
	char *dir = path_join(root, name), body[64], man[400];
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
		snprintf(body, sizeof body, "%.3f", t);
		fprintf(fp, "%s, 0, %.2f W\n", body, busy ? watts + 5.0 * sin(0.7 * k) : 60.0);
		fprintf(fe, "%.3f,%d\n", t, busy ? 4 : 0);
	}
	fclose(fp);
	fclose(fe);
	snprintf(man, sizeof man, "{\"schema\": \"wattcast.run/2\", \"run_id\": \"%s\", \"platform\": \"%s\", "
	         "\"tp\": 1, \"model\": \"mistralai/Mistral-7B-Instruct-v0.3\", \"utc_offset_s\": 0}\n", name, platform);
	free(test_fixture(dir, "wattcast-run.json", man));
	free(p);
	free(e);
	return dir;
}

int
main(void)
{
	char *dir = test_tmpdir("run_power_limit"), *out = path_join(dir, "runs.csv");
	run_result r;

	/* ingest: a mean of ~410 W per GPU on a 350 W L40S (below the 700 W
	 * sample bound) is warned; the same run on a 700 W H100 is not. */
	char *hot = run_folder(dir, "hot", "L40S", 480.0), *fine = run_folder(dir, "fine", "H100", 480.0);
	const char *argv[] = { "wattcast", "ingest", hot, fine, "-o", out, NULL };
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.err, "hot: run hot: mean power ");
	CHECK_CONTAINS(r.err, " W per GPU is above the L40S board limit 350 W: wrong platform or tp?");
	CHECK(strstr(r.err, "run fine:") == NULL);
	run_result_free(&r);

	/* import csv: the row is named by its line. */
	char *src = test_fixture(dir, "fleet.csv",
	                         "job,gpu,n_gpu,llm,params_b,avg_batch,avg_watts,idle_watts\n"
	                         "j1,L40S,1,Mistral-7B,7.2,8,250,60\n"
	                         "j6,L40S,1,Mistral-7B,7.2,8,1500,60\n"
	                         "j7,L40S,2,Mistral-7B,7.2,8,600,60\n"
	                         "j8,RTX6000Ada,1,Mistral-7B,7.2,8,1500,60\n");
	const char *imp[] = { "wattcast", "import", "csv", src, "--map",
	                      "job=run_id,gpu=platform,n_gpu=tp,llm=model,params_b=active_params_b,avg_batch=running,"
	                      "avg_watts=mean_power_w,idle_watts=idle_power_w", "-o", out, NULL };
	CHECK_INT(run_wattcast(imp, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.err, "fleet.csv:3: run j6: mean power 1500.0 W per GPU is above the L40S board limit "
	               "350 W: wrong platform or tp?");
	CHECK(strstr(r.err, "run j1:") == NULL);
	CHECK(strstr(r.err, "run j7:") == NULL); /* 300 W per GPU of its 2 */
	CHECK(strstr(r.err, "run j8:") == NULL); /* no board known */
	run_result_free(&r);

	free(src);
	free(hot);
	free(fine);
	free(out);
	free(dir);
	return check_report("test_run_power_limit");
}
