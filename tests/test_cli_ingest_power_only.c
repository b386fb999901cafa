/*
 * `wattcast ingest --power-only` (docs/formats/telemetry.md, "Run
 * folders") and the sweep report of `ingest` and `metrics`, on a log of 8
 * GPUs with no index column whose sweeps now and then spread over up to
 * 0.96 s (tests/support/synth_log.c): without an engine or request log
 * ingest refuses the run and names the mode; with it, the row holds the
 * power metrics and leaves the load columns empty. Both commands report
 * the widest sweep and read the GPU count off the timestamps.
 */
#include "tests/support/support.h"
#include "tests/support/synth_log.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
main(void)
{
	char *dir = test_tmpdir("ingest_power_only"), *run = path_join(dir, "run");
	char *power = path_join(run, "power.csv"), *out = path_join(dir, "runs.csv"), *man = path_join(run, "wattcast-run.json");
	synth_ft_design d;
	synth_ft_truth truth;
	char cmd[256], v[64];
	snprintf(cmd, sizeof cmd, "mkdir -p '%s'", run);
	CHECK_INT(system(cmd), 0);
	synth_ft_default(&d);
	d.steps = 20;
	d.wide_share = 0.05;
	CHECK_INT(synth_ft_write(power, &d, &truth), 0);
	write_text(man, "{\"schema\": \"wattcast.run/2\", \"run_id\": \"plain\", \"platform\": \"H100\", "
	                "\"model\": \"Qwen/Qwen3-8B\", \"utc_offset_s\": 0}\n");

	run_result r;
	const char *plain[] = { "wattcast", "ingest", run, "-o", out, NULL };
	CHECK_INT(run_wattcast(plain, NULL, &r), 0);
	CHECK(r.status != 0);
	CHECK_CONTAINS(r.err, "`ingest --power-only` gives the power metrics");
	run_result_free(&r);

	const char *po[] = { "wattcast", "ingest", run, "-o", out, "--power-only", NULL };
	CHECK_INT(run_wattcast(po, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.err, "spread over more than 40 ms (widest 0.9");
	CHECK_CONTAINS(r.err, "one sample of 8 GPUs (told apart by timestamps)");
	/* no n(t): the summary's n_mean is "-", as its idle is (it printed nan) */
	CHECK(r.out && strstr(r.out, "nan") == NULL);
	CHECK_CONTAINS(r.out, "none                -");
	run_result_free(&r);
	FILE *f = fopen(out, "r");
	char *csv = calloc(1, 1 << 16);
	CHECK(f && fread(csv, 1, (1 << 16) - 1, f) > 0);
	if (f)
		fclose(f);
	test_csv_field(csv, "run_id", v, sizeof v);
	CHECK(strcmp(v, "plain") == 0);
	test_csv_field(csv, "tp", v, sizeof v);
	CHECK(strcmp(v, "8") == 0);
	test_csv_field(csv, "running", v, sizeof v);
	CHECK(strcmp(v, "") == 0);
	test_csv_field(csv, "n_series", v, sizeof v);
	CHECK(strcmp(v, "") == 0);
	test_csv_field(csv, "n_source", v, sizeof v);
	CHECK(strcmp(v, "") == 0);
	test_csv_field(csv, "requests", v, sizeof v);
	CHECK(strcmp(v, "") == 0);
	test_csv_field(csv, "max_w", v, sizeof v);
	/* The training level of the log: 8 x 550 W, 3 % noise. */
	CHECK(atof(v) > 8 * 550.0 * 0.98 && atof(v) < 8 * 550.0 * 1.1);
	free(csv);

	/* The manifest's stated count fills the per-request columns, as for any
	 * run without a request log (docs/formats/telemetry.md, "Requests"). */
	write_text(man, "{\"schema\": \"wattcast.run/2\", \"run_id\": \"plain\", \"platform\": \"H100\", "
	                "\"model\": \"Qwen/Qwen3-8B\", \"utc_offset_s\": 0, \"requests\": 40}\n");
	CHECK_INT(run_wattcast(po, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	run_result_free(&r);
	csv = test_slurp(out);
	test_csv_field(csv, "requests", v, sizeof v);
	CHECK(strcmp(v, "40") == 0);
	test_csv_field(csv, "energy_per_request_j", v, sizeof v);
	CHECK(atof(v) > 0);
	test_csv_field(csv, "running", v, sizeof v);
	CHECK(strcmp(v, "") == 0);
	free(csv);

	const char *me[] = { "wattcast", "metrics", power, "--json", NULL };
	CHECK_INT(run_wattcast(me, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, "\"gpu_count_source\": \"timestamps\"");
	CHECK_CONTAINS(r.out, "\"gpus\": 8");
	const char *span = strstr(r.out, "\"max_sweep_span_s\": ");
	CHECK(span != NULL);
	if (span)
		CHECK_NEAR(atof(span + strlen("\"max_sweep_span_s\": ")), truth.max_spread_s, 0.002);
	run_result_free(&r);
	free(dir);
	free(run);
	free(power);
	free(out);
	free(man);
	return check_report("test_cli_ingest_power_only");
}
