/*
 * --seed is a whole-number flag like the others (docs/cli.md,
 * "Conventions"): `--seed 1e3` said "expected a whole number 0..2^63-1"
 * and `--seed -0` "must be a whole number >= 0, got '-0'", where
 * --bootstrap took 1e3 and -0 and HTTP takes "seed":1e3 and -0. Now a seed
 * is read by cli_parse_int: 1e3 is 1000, -0 is 0, 2e0 is 2, 4.0 is 4; one
 * written with an exponent or a fraction part is taken up to 2^53 - 1
 * (above it a double is not always the number written: 9007199254740993e0
 * reads ...992), one in plain digits exactly up to 2^63 - 1, as before.
 */
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ENV                                                                                                 \
	"wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--poisson", "2", "--replicas", "2", \
	    "--horizon", "10", "--json", "--seed"

/* the seed `envelope --json` says it drew from, or -1 on a refusal */
static long long
envelope_seed(const char *text, run_result *r)
{
	const char *argv[] = { ENV, text, NULL };
	CHECK_INT(run_wattcast(argv, NULL, r), 0);
	if (r->status != 0)
		return -1;
	json_t *o = json_loads(r->out ? r->out : "", 0, NULL);
	long long seed = (long long)json_integer_value(json_object_get(json_object_get(o, "simulation"), "seed"));
	json_decref(o);
	return seed;
}

static void
check_seed(const char *text, long long want)
{
	run_result r;
	long long got = envelope_seed(text, &r);
	CHECK(got == want);
	if (got != want)
		fprintf(stderr, "--seed %s: seed %lld (want %lld): %s\n", text, got, want, r.err ? r.err : "");
	run_result_free(&r);
}

static void
check_refused(const char *text, const char *why)
{
	run_result r;
	CHECK(envelope_seed(text, &r) == -1);
	CHECK_INT(r.status, 2);
	CHECK_CONTAINS(r.err, why);
	run_result_free(&r);
}

int
main(void)
{
	check_seed("1e3", 1000);
	check_seed("-0", 0);
	check_seed("2e0", 2);
	check_seed("4.0", 4);
	check_seed("9007199254740991e0", 9007199254740991LL);
	/* plain digits are exact past 2^53, to 2^63 - 1 */
	check_seed("9007199254740993", 9007199254740993LL);
	check_seed("9223372036854775807", 9223372036854775807LL);
	check_refused("9007199254740993e0", "--seed: must be between 0 and 9223372036854775807, in plain digits "
	                                    "above 9007199254740991, got '9007199254740993e0'");
	check_refused("1e17", "in plain digits above 9007199254740991, got '1e17'");
	check_refused("-1", "--seed: must be between 0 and 9223372036854775807, got '-1'");
	check_refused("9223372036854775808", "--seed: must be between 0 and 9223372036854775807, got '9223372036854775808'");
	check_refused("1e999", "--seed: must be between 0 and 9223372036854775807, got '1e999'");
	check_refused("1.5", "--seed: expected a whole number, got '1.5'");

	/* every command's --seed: calibrate's, the same draws for 1e3 as for 1000 */
	char *dir = test_tmpdir("cli_seed_forms");
	char src[1024];
	snprintf(src, sizeof src, "%s/tests/fixtures/finetune/h100-lora-7runs.csv", getenv("WC_SOURCE_DIR"));
	char *a = path_join(dir, "a.json"), *b = path_join(dir, "b.json");
	const char *ca[] = { "wattcast", "calibrate", "finetune", src, "--profile", "paper", "--bootstrap", "50",
		             "--seed", "1e3", "--quiet", "-o", a, NULL };
	const char *cb[] = { "wattcast", "calibrate", "finetune", src, "--profile", "paper", "--bootstrap", "50",
		             "--seed", "1000", "--quiet", "-o", b, NULL };
	setenv("SOURCE_DATE_EPOCH", "1700000000", 1);
	test_run_ok(ca);
	test_run_ok(cb);
	char *ta = test_slurp(a), *tb = test_slurp(b);
	CHECK(strcmp(ta, tb) == 0);
	free(ta);
	free(tb);
	static const char *const cmds[][6] = {
		{ "simulate", "inference", "-o", "x.csv" }, { "simulate", "finetune", "-o", "x.csv" },
		{ "calibrate", "x.csv", "-o", "x.json" },   { "fit", "inference", "x.csv", "-o" },
		{ "fit", "finetune", "x.csv", "-o" },       { "fit", "capacity", "x.csv", "-o" },
		{ "fit", "response", "x.csv", "-o" },       { "validate", "envelope", "x.csv" },
	};
	for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++) {
		const char *argv[12] = { "wattcast" };
		size_t n = 1;
		for (size_t k = 0; k < 6 && cmds[i][k]; k++)
			argv[n++] = cmds[i][k];
		if (strcmp(argv[n - 1], "-o") == 0)
			argv[n++] = "x.json";
		argv[n++] = "--seed";
		argv[n++] = "-0.0";
		argv[n++] = "--seed";
		argv[n++] = "2.5";
		argv[n] = NULL;
		run_result r;
		CHECK_INT(run_wattcast(argv, NULL, &r), 0);
		CHECK_INT(r.status, 2);
		CHECK_CONTAINS(r.err, "--seed: expected a whole number, got '2.5'"); /* -0.0 was a seed */
		run_result_free(&r);
	}
	free(a);
	free(b);
	free(dir);
	return check_report("test_cli_seed_forms");
}
