/*
 * `--max-bad 0` allows no malformed line, in ingest as in metrics
 * (docs/cli.md, `ingest`: "share of malformed lines above which a file is
 * refused, 0–1"; one parsing rule, cli_parse_max_bad). ingest took 0 for
 * "unset" and read a log with one bad power reading under the default
 * 1 %, exit 0, while metrics refused the same file. One unreadable
 * reading among 200 lines (0.5 %): the default accepts it, 0 refuses it
 * in both commands naming the flag, 0.005 accepts it (not above).
 * The refusal names the bad line, file:line:column and why: --quiet hides
 * the warning that said it, and the refusal said only how many.
 */
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define ARGS(...) ((const char *const[]){ "wattcast", __VA_ARGS__, NULL })

/* 200 samples of one GPU 0.1 s apart, the fifth reading 'abc'. */
static void
write_power(const char *path)
{
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (!f)
		exit(1);
	fprintf(f, "timestamp, index, power.draw [W]\n");
	for (int i = 0; i < 200; i++) {
		time_t sec = (time_t)1700000000 + i / 10;
		struct tm tm;
		char ts[40];
		gmtime_r(&sec, &tm);
		strftime(ts, sizeof ts, "%Y/%m/%d %H:%M:%S", &tm);
		if (i == 4)
			fprintf(f, "%s.%03d, 0, abc\n", ts, 100 * (i % 10));
		else
			fprintf(f, "%s.%03d, 0, %.2f W\n", ts, 100 * (i % 10), i > 40 && i < 160 ? 300.0 : 100.0);
	}
	fclose(f);
}

static void
ingest(const char *run, const char *out, const char *max_bad, int status)
{
	run_result r;
	const char *argv[] = { "wattcast", "ingest", run, "-o", out, "--power-only", "--platform", "H100",
		               "--model", "Qwen/Qwen3-8B", "--tp", "1", "--utc-offset", "0", "--quiet",
		               max_bad ? "--max-bad" : NULL, max_bad, NULL };
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, status);
	if (status == 1) {
		CHECK_CONTAINS(r.err, "power.csv: fix the bad lines or allow more with --max-bad FRACTION: 1 of 200 "
		                      "data lines are malformed (more than 0 %); the first: line 6:29: ");
		CHECK(!test_exists(out));
	} else {
		CHECK(test_exists(out));
	}
	run_result_free(&r);
	remove(out);
}

int
main(void)
{
	char *dir = test_tmpdir("cli_max_bad_zero"), *run = path_join(dir, "run"), *out = path_join(dir, "out.csv");
	mkdir(run, 0755);
	char *power = path_join(run, "power.csv");
	write_power(power);

	ingest(run, out, NULL, 0);    /* the default 1 % */
	ingest(run, out, "0", 1);     /* none allowed */
	ingest(run, out, "0.005", 0); /* 1 of 200 is not above 0.5 % */

	run_result r;
	CHECK(run_wattcast(ARGS("metrics", power, "--max-bad", "0"), NULL, &r) == 0);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "1 of 200 data lines are malformed (more than 0 %); the first: line 6:29: ");
	run_result_free(&r);
	CHECK(run_wattcast(ARGS("metrics", power), NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	run_result_free(&r);

	test_usage_error(ARGS("ingest", run, "-o", out, "--max-bad", "2"), "--max-bad: must be a fraction in [0, 1]");
	test_usage_error(ARGS("ingest", run, "-o", out, "--max-bad", "-0.1"), "--max-bad: must be >= 0");
	free(power);
	free(out);
	free(run);
	free(dir);
	return check_report("test_cli_max_bad_zero");
}
