/*
 * Numbers too small or too large for a double are numbers (docs/cli.md,
 * "Conventions"): strtod underflows 1e-320 (ERANGE, a subnormal) and
 * overflows 1e999 (ERANGE, HUGE_VAL). The one number parser of cli/args.c
 * said "expected a number" for both, so `--budget 1e-320` and
 * `--think 1e-320` were refused where HTTP answers budget_w and think_s
 * 1e-320 with 200, and `--budget 1e999` or `--burstiness 1e999` did not
 * get their range. Now 1e-320 is taken where the range takes it and
 * refused with the range where not, and +-1e999 gets the bound it passes:
 * for every numeric flag of `envelope`, and of the other commands.
 */
#include "tests/support/support.h"

#include <stdio.h>
#include <string.h>

#define ENV "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--quiet"

/* flag, value, the workload it needs, and what the answer is: NULL =
 * accepted (exit 0), else exit 2 with this text on stderr */
static const struct {
	const char *flag, *value, *base[6], *want;
} cases[] = {
	{ "--think", "1e-320", { "--closed", "2", "--horizon", "10" }, NULL },
	{ "--hold", "1e-320", { "--poisson", "1", "--horizon", "10" }, NULL },
	{ "--tau", "1e-320", { "--poisson", "1", "--horizon", "10" }, NULL },
	{ "--decay", "1e-320", { "--poisson", "1", "--horizon", "10" }, NULL },
	{ "--prefill-ratio", "1e-320", { "--poisson", "1", "--horizon", "10" }, NULL },
	{ "--idle-power", "1e-320", { "--poisson", "1", "--horizon", "10" }, "W per GPU is under 1 W" },
	{ "--utc-offset", "1e-320", { "--poisson", "1", "--horizon", "10" }, NULL },
	{ "--budget", "1e-320", { "--poisson", "1", "--horizon", "10" }, NULL },
	{ "--warmup",
	  "1e-320",
	  { "--poisson", "1", "--horizon", "10" },
	  "--warmup: must be 0 or a multiple of 0.05 s" },
	{ "--horizon", "1e-320", { "--poisson", "1" }, "--horizon: must be between 0.05 and 604800 s" },
	{ "--bin", "1e-320", { "--poisson", "1", "--horizon", "10" }, "--bin: must be a multiple of 0.05 s" },
	{ "--sample", "1e-320", { "--poisson", "1", "--horizon", "10" }, "--sample: must be a multiple of 0.05 s" },
	{ "--sm-clock", "1e-320", { "--poisson", "1", "--horizon", "10" }, "is outside the clock range of A100" },
	{ "--budget-bin",
	  "1e-320",
	  { "--poisson", "1", "--horizon", "10", "--budget", "100" },
	  "--budget-bin: must be a multiple of 0.05 s" },
	{ "--active-params",
	  "1e-320",
	  { "--poisson", "1", "--horizon", "10" },
	  "--active-params: must be >= 0.0001, got '1e-320'" },
	{ "--closed", "1e-320", { "--horizon", "10" }, "--closed: must be >= 1, got '1e-320'" },
	{ "--burstiness",
	  "1e-320",
	  { "--bursty", "1", "--horizon", "10" },
	  "--burstiness: must be between 0.01 and 1000, got '1e-320'" },
	{ "--budget",
	  "1e999",
	  { "--poisson", "1", "--horizon", "10" },
	  "--budget: must be at most 1e+12, got '1e999'" },
	{ "--burstiness",
	  "1e999",
	  { "--bursty", "1", "--horizon", "10" },
	  "--burstiness: must be between 0.01 and 1000, got '1e999'" },
	{ "--burstiness",
	  "-1e999",
	  { "--bursty", "1", "--horizon", "10" },
	  "--burstiness: must be between 0.01 and 1000, got '-1e999'" },
	{ "--active-params",
	  "1e999",
	  { "--poisson", "1", "--horizon", "10" },
	  "--active-params: must be at most 100000, got '1e999'" },
	{ "--think",
	  "1e999",
	  { "--closed", "2", "--horizon", "10" },
	  "--think: must be >= 0 and <= 86400 s, got '1e999'" },
	{ "--think", "-1e999", { "--closed", "2", "--horizon", "10" }, "--think: must be >= 0, got '-1e999'" },
	{ "--horizon", "1e999", { "--poisson", "1" }, "--horizon: must be between 0.05 and 604800 s" },
	{ "--poisson", "1e999", { "--horizon", "10" }, "--poisson: must be a number of requests/s > 0 and <= 1e+06" },
	{ "--poisson", "-1e999", { "--horizon", "10" }, "--poisson: must be > 0, got '-1e999'" },
	{ "--bin", "1e999", { "--poisson", "1", "--horizon", "10" }, "--bin: must be a multiple of 0.05 s up to the horizon" },
	{ "--tau", "-1e999", { "--poisson", "1", "--horizon", "10" }, "--tau: must be >= 0, got '-1e999'" },
	{ "--utc-offset",
	  "-1e999",
	  { "--poisson", "1", "--horizon", "10" },
	  "--utc-offset: must be >= -50400, got '-1e999'" },
	{ "--closed", "1e999", { "--horizon", "10" }, "--closed: must be a whole number 1 to 65536" },
};

static void
check_envelope(void)
{
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		const char *argv[16] = { ENV };
		size_t n = 7;
		for (int k = 0; k < 6 && cases[i].base[k]; k++)
			argv[n++] = cases[i].base[k];
		argv[n++] = cases[i].flag;
		argv[n++] = cases[i].value;
		argv[n] = NULL;
		run_result r;
		CHECK_INT(run_wattcast_limited(argv, NULL, 60, &r), 0);
		CHECK_INT(r.status, cases[i].want ? 2 : 0);
		if (cases[i].want)
			CHECK_CONTAINS(r.err, cases[i].want);
		CHECK(strstr(r.err ? r.err : "", "expected a number") == NULL);
		if (r.status != (cases[i].want ? 2 : 0))
			fprintf(stderr, "%s %s: %s\n", cases[i].flag, cases[i].value, r.err ? r.err : "");
		run_result_free(&r);
	}
}

/* the same parser behind the other commands' flags */
static void
check_others(void)
{
	const char *const big[] = { "wattcast", "predict",  "inference",     "--platform", "H100",
				    "--model",  "Qwen3-8B", "--concurrency", "1e999",      NULL };
	run_result r;
	CHECK_INT(run_wattcast(big, NULL, &r), 0);
	CHECK_INT(r.status, 2);
	CHECK_CONTAINS(r.err, "--concurrency: must be at most");
	CHECK_CONTAINS(r.err, "got '1e999'");
	run_result_free(&r);
	const char *const clock[] = { "wattcast", "predict",       "inference", "--platform", "H100",   "--model",
				      "Qwen3-8B", "--concurrency", "8",         "--sm-clock", "-1e999", NULL };
	CHECK_INT(run_wattcast(clock, NULL, &r), 0);
	CHECK_INT(r.status, 2);
	CHECK_CONTAINS(r.err, "--sm-clock: must be > 0, got '-1e999'");
	run_result_free(&r);
	/* a word is still no number */
	const char *const word[] = { "wattcast", "predict",       "inference", "--platform", "H100", "--model",
				     "Qwen3-8B", "--concurrency", "8",         "--sm-clock", "fast", NULL };
	CHECK_INT(run_wattcast(word, NULL, &r), 0);
	CHECK_INT(r.status, 2);
	CHECK_CONTAINS(r.err, "--sm-clock: expected a number, got 'fast'");
	run_result_free(&r);
}

int
main(void)
{
	check_envelope();
	check_others();
	return check_report("test_cli_number_edges");
}
