/*
 * A flag whose range is checked after the number parser gives that range
 * to a text past every double (docs/cli.md, "Conventions"): 1e999 said
 * "must be at most 1.79769e+308 (the largest double)" where 1e300 named
 * the flag's range. Now the parser hands +HUGE_VAL on
 * (cli_parse_double_ranged) and 1e300 and 1e999 get one message, up to
 * the value it quotes.
 */
#include "tests/support/support.h"

#include <stdio.h>
#include <string.h>

#define ENV "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--quiet", "--poisson", "1"
#define PRED "wattcast", "predict", "inference", "--platform", "H100", "--model", "Qwen3-8B", "--concurrency", "8"

/* the words before the flag and the flag, which the value follows */
static const char *const flags[][14] = {
	{ ENV, "--horizon" },
	{ ENV, "--horizon", "10", "--bin" },
	{ ENV, "--horizon", "10", "--tau" },
	{ ENV, "--horizon", "10", "--prefill-ratio" },
	{ ENV, "--horizon", "10", "--utc-offset" },
	{ "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--quiet", "--closed", "2", "--horizon",
	  "10", "--think" },
	{ PRED, "--sm-clock" },
};

/* stderr's message, cut before the value it quotes ("got ..." or the
 * number leading it), into buf */
static void
message(const char *const *base, const char *value, char *buf, size_t cap)
{
	const char *argv[20];
	size_t n = 0;
	while (base[n] && n < 16) {
		argv[n] = base[n];
		n++;
	}
	argv[n++] = value;
	argv[n] = NULL;
	run_result r;
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	CHECK_INT(r.status, 2);
	snprintf(buf, cap, "%s", r.err ? r.err : "");
	char *got = strstr(buf, ", got ");
	if (got)
		*got = '\0';
	char *num = strstr(buf, value[2] == '3' ? "1e+300 " : "inf ");
	if (num)
		memmove(num, strchr(num, ' '), strlen(strchr(num, ' ')) + 1);
	run_result_free(&r);
}

int
main(void)
{
	for (size_t f = 0; f < sizeof flags / sizeof *flags; f++) {
		char big[512], past[512];
		message(flags[f], "1e300", big, sizeof big);
		message(flags[f], "1e999", past, sizeof past);
		CHECK(strcmp(big, past) == 0);
		CHECK(strstr(past, "largest double") == NULL);
		if (strcmp(big, past) != 0)
			fprintf(stderr, "  1e300: %s\n  1e999: %s\n", big, past);
	}
	return check_report("test_cli_overflow_ranges");
}
