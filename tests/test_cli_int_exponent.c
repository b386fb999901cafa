/*
 * Whole-number flags take a whole number in exponent form and give their
 * range to one past it (docs/cli.md, "Conventions"): `--replicas 1e999`
 * said "expected a whole number, got '1e999'" where 1e300 named the range,
 * and 1e3 was no whole number. Now 1e300, 1e999 and a text past every
 * long give one message, the flag's range; 1e1 is 10; 1.5 and 1e-3 stay
 * "expected a whole number".
 */
#include "tests/support/support.h"

#include <stdio.h>
#include <string.h>

#define ENV "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--quiet", "--horizon", "10"
#define PRED "wattcast", "predict", "inference", "--platform", "H100", "--model", "Qwen3-8B", "--concurrency", "8"

static const struct {
	const char *argv[14], *range; /* the flag is the last but one word */
} flags[] = {
	{ { ENV, "--poisson", "1", "--replicas" }, "--replicas: must be between 1 and 100000" },
	{ { ENV, "--poisson", "1", "--max-running" }, "--max-running: must be between 1 and 65536" },
	{ { ENV, "--poisson", "1", "--fleet" }, "--fleet: must be between 1 and " },
	{ { PRED, "--tp" }, "--tp: must be between 1 and 4096" },
	{ { PRED, "--layers" }, "--layers: must be between 1 and 1000000" },
	{ { "wattcast", "calibrate", "--profile", "measured", "runs.csv", "--bootstrap" },
	  "--bootstrap: must be between 0 and 1000000" },
	{ { "wattcast", "predict", "flexibility", "--platform", "H100", "--model", "Qwen3-8B", "--concurrency", "8",
	    "--steps" },
	  "--steps: must be between 2 and " },
};

static int
run_with(const char *const *base, const char *value, run_result *r)
{
	const char *argv[20];
	size_t n = 0;
	while (base[n] && n < 16) {
		argv[n] = base[n];
		n++;
	}
	argv[n++] = value;
	argv[n] = NULL;
	return run_wattcast(argv, NULL, r);
}

int
main(void)
{
	static const char *const big[] = { "1e300", "1e999", "99999999999999999999", "-1e999" };
	for (size_t f = 0; f < sizeof flags / sizeof *flags; f++) {
		for (size_t i = 0; i < sizeof big / sizeof *big; i++) {
			char got[64];
			snprintf(got, sizeof got, ", got '%s'", big[i]);
			run_result r;
			CHECK_INT(run_with(flags[f].argv, big[i], &r), 0);
			CHECK_INT(r.status, 2);
			CHECK_CONTAINS(r.err, flags[f].range);
			CHECK_CONTAINS(r.err, got);
			CHECK(strstr(r.err ? r.err : "", "expected a whole number") == NULL);
			run_result_free(&r);
		}
		/* a fraction, in either form, is still no whole number */
		static const char *const frac[] = { "1.5", "1e-3", "2.5e0" };
		for (size_t i = 0; i < sizeof frac / sizeof *frac; i++) {
			run_result r;
			CHECK_INT(run_with(flags[f].argv, frac[i], &r), 0);
			CHECK_INT(r.status, 2);
			CHECK_CONTAINS(r.err, "expected a whole number");
			run_result_free(&r);
		}
	}
	/* 2e0 is 2, 3e0 is 3 */
	const char *const tp[] = { PRED, "--tp", "2e0", NULL };
	test_run_ok(tp);
	const char *const rep[] = { ENV, "--poisson", "1", "--replicas", "3e0", NULL };
	run_result r;
	CHECK_INT(run_wattcast(rep, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, "x 3 replicas");
	run_result_free(&r);
	return check_report("test_cli_int_exponent");
}
