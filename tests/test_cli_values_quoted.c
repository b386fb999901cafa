/*
 * A CLI refusal quotes the value so that it does not contradict the bound
 * it prints (docs/cli.md, "Conventions"; docs/architecture.md, "Errors"):
 * "%g" printed --sm-clock 1980.00000000001 as "1980 MHz is outside ...
 * 345-1980 MHz" and --power-cap 72.9278481000001 as "72.9278 W is at or
 * below the idle power of A100, 72.9 W" (A100's idle then 72.928 W; the
 * real boards' 84.212 W since 2026-12-07), and a text past every double
 * (--horizon 1e999), handed on for the flag's own range to refuse, came
 * back as "got inf". Now the value reads back as the double it is, and a
 * text past every double is quoted as typed. engine.csv's refusals name
 * where and why: milliseconds at their cell, a header past the line limit
 * with the limit and the remedy.
 */
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define PRED "wattcast", "predict", "inference", "--platform"
#define ENV "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--quiet"

static const struct {
	const char *argv[16], *want;
} cases[] = {
	{ { PRED, "H100", "--model", "Qwen3-8B", "--concurrency", "8", "--sm-clock", "1980.00000000001" },
	  "--sm-clock: 1980.00000000001 MHz is outside the clock range of H100, 345-1980 MHz" },
	{ { PRED, "H100", "--model", "Qwen3-8B", "--concurrency", "8", "--sm-clock", "344.99999999" },
	  "--sm-clock: 344.99999999 MHz is outside the clock range of H100, 345-1980 MHz" },
	{ { PRED, "A100", "--model", "Qwen3-8B", "--concurrency", "8", "--power-cap", "84.2119999999999" },
	  "--power-cap: 84.2119999999999 W is at or below the idle power of A100, 84.212 W per GPU" },
	{ { ENV, "--closed", "4", "--horizon", "1e999" }, "--horizon: must be between 0.05 and 604800 s, got '1e999'" },
	{ { ENV, "--closed", "4", "--think", "1e999" }, "--think: must be >= 0 and <= 86400 s, got '1e999'" },
	{ { ENV, "--closed", "4", "--bin", "1e999" }, "--bin: must be a multiple of 0.05 s up to the horizon, got '1e999'" },
	{ { ENV, "--closed", "4", "--tau", "1e999" }, "--tau: must be a number between 0 and 60, got '1e999'" },
	{ { ENV, "--closed", "4", "--warmup", "1e999" }, "--warmup: must be between 0 and 604800 s, got '1e999'" },
	{ { ENV, "--closed", "4", "--idle-power", "1e999" }, "--idle-power: '1e999' W per GPU is not below A100's" },
	{ { ENV, "--closed", "4", "--idle-power", "400.0000000001" },
	  "--idle-power: 400.0000000001 W per GPU is not below A100's board limit of 400 W" },
	{ { ENV, "--closed", "4", "--sm-clock", "1e999" }, "--sm-clock: '1e999' MHz is outside the clock range of A100" },
	{ { ENV, "--closed", "1e999" }, "--closed: must be a whole number 1 to 65536, got '1e999'" },
};

static void
check_flags(void)
{
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		run_result r;
		CHECK_INT(run_wattcast(cases[i].argv, NULL, &r), 0);
		CHECK_INT(r.status, 2);
		CHECK_CONTAINS(r.err, cases[i].want);
		CHECK(strstr(r.err ? r.err : "", "got inf") == NULL && strstr(r.err ? r.err : "", " inf ") == NULL);
		if (r.status != 2 || !r.err || !strstr(r.err, cases[i].want))
			fprintf(stderr, "  want: %s\n  got:  %s\n", cases[i].want, r.err ? r.err : "");
		run_result_free(&r);
	}
}

/* a run folder whose engine.csv is `engine` (power.csv a minute at 250 W) */
static char *
run_folder(const char *dir, const char *name, const char *engine)
{
	char *run = path_join(dir, name);
	mkdir(run, 0755);
	char *power = malloc(64 * 1024), *p = power;
	p += sprintf(p, "timestamp, index, power.draw [W]\n");
	for (int k = 0; k < 240; k++)
		p += sprintf(p, "%.2f, 0, 250.00 W\n", 1784412000.0 + 0.25 * k);
	free(test_fixture(run, "power.csv", power));
	free(power);
	free(test_fixture(run, "engine.csv", engine));
	free(test_fixture(run, "wattcast-run.json", "{\"schema\": \"wattcast.run/2\", \"run_id\": \"r\", \"platform\": "
	                  "\"A100\", \"tp\": 1, \"model\": \"Qwen3-8B\", \"utc_offset_s\": 0}\n"));
	return run;
}

static void
check_engine_csv(void)
{
	char *dir = test_tmpdir("cli_values_quoted"), *out = path_join(dir, "runs.csv");
	char *eng = malloc(64 * 1024), *p = eng;
	/* milliseconds: named at the first timestamp's cell */
	p += sprintf(p, "num_requests_running,timestamp\n");
	for (int k = 0; k < 240; k++)
		p += sprintf(p, "%d,%.0f\n", k / 60, 1000.0 * (1784412000.0 + 0.25 * k));
	char *run = run_folder(dir, "ms", eng);
	const char *ms[] = { "wattcast", "ingest", run, "-o", out, NULL };
	run_result r;
	CHECK_INT(run_wattcast(ms, NULL, &r), 0);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "engine.csv:2:3: the first timestamp is not epoch seconds: time 1784412000000");
	CHECK_CONTAINS(r.err, "it looks like milliseconds; convert them to seconds");
	run_result_free(&r);
	free(run);
	/* a header past the line limit: every histogram bucket a column */
	p = eng;
	p += sprintf(p, "timestamp,num_requests_running");
	for (int k = 0; k < 120; k++)
		p += sprintf(p, ",\"vllm:e2e_request_latency_seconds_bucket{le=\"\"%d.0\"\"}\"", k);
	p += sprintf(p, "\n");
	for (int k = 0; k < 240; k++)
		p += sprintf(p, "%.2f,%d\n", 1784412000.0 + 0.25 * k, k / 60);
	run = run_folder(dir, "wide", eng);
	const char *wide[] = { "wattcast", "ingest", run, "-o", out, NULL };
	CHECK_INT(run_wattcast(wide, NULL, &r), 0);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "engine.csv:1:4097: header line longer than 4096 bytes: drop the columns wattcast does not "
	               "read, such as histograms' *_bucket series");
	run_result_free(&r);
	free(run);
	free(eng);
	free(out);
	free(dir);
}

int
main(void)
{
	check_flags();
	check_engine_csv();
	return check_report("test_cli_values_quoted");
}
