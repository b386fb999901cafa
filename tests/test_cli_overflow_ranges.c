/*
 * A flag gives its own range to a text past every double (docs/cli.md,
 * "Conventions"): 1e999 said "must be at most 1.79769e+308 (the largest
 * double)" where 1e300 named the flag's range -- envelope's --warmup,
 * --sample, --hold, --decay, --poisson, --closed, --sm-clock, ..., predict's
 * --price-per-kwh and --gpu-memory-utilization, predict finetune's --steps,
 * ingest's and metrics' --max-bad, simulate finetune's --noise. Now the
 * parser hands +HUGE_VAL on to the check that refuses 1e300 (cli_parse_double,
 * the default), and 1e300 and 1e999 get one message, up to the value it
 * quotes; a flag with no upper bound at all says the largest double, and
 * no flag takes 1e999.
 */
#include "tests/support/support.h"

#include <stdio.h>
#include <string.h>

#define ENV "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--quiet"
#define ENVP ENV, "--poisson", "1", "--horizon", "10"
#define PRED "wattcast", "predict", "inference", "--platform", "H100", "--model", "Qwen3-8B", "--concurrency", "8"
#define FT                                                                                                       \
	"wattcast", "predict", "finetune", "--platform", "H100", "--method", "lora", "--lora-rank", "16",         \
	    "--micro-batch", "4", "--seq-len", "1024"

/* the words before the value, the flag last */
static const char *const flags[][24] = {
	{ ENV, "--horizon" },
	{ ENVP, "--bin" },
	{ ENVP, "--tau" },
	{ ENVP, "--prefill-ratio" },
	{ ENVP, "--utc-offset" },
	{ ENV, "--closed", "2", "--horizon", "10", "--think" },
	{ ENVP, "--sm-clock" },
	{ ENVP, "--idle-power" },
	{ ENV, "--horizon", "10", "--closed" },
	{ ENV, "--horizon", "10", "--poisson" },
	{ ENV, "--horizon", "10", "--bursty" },
	{ ENVP, "--warmup" },
	{ ENVP, "--sample" },
	{ ENVP, "--hold" },
	{ ENVP, "--decay" },
	{ ENVP, "--budget", "300", "--budget-bin" },
	{ ENVP, "--input" },
	{ ENVP, "--output" },
	{ PRED, "--sm-clock" },
	{ PRED, "--price-per-kwh" },
	{ PRED, "--grams-co2-per-kwh" },
	{ PRED, "--gpu-memory-utilization" },
	{ PRED, "--power-cap" },
	{ "wattcast", "predict", "inference", "--platform", "H100", "--model", "Qwen3-8B", "--concurrency" },
	{ FT, "--model", "Qwen3-8B", "--tokens-per-step" },
	{ FT, "--model", "Qwen3-8B", "--steps" },
	{ FT, "--layers", "32", "--d-model", "4096", "--active-params" },
	{ "wattcast", "ingest", "run", "-o", "t.csv", "--max-bad" },
	{ "wattcast", "ingest", "run", "-o", "t.csv", "--active-params" },
	{ "wattcast", "metrics", "run", "--max-bad" },
	{ "wattcast", "metrics", "run", "--utc-offset" },
	{ "wattcast", "simulate", "finetune", "-o", "s.csv", "--noise" },
};

/* flags with no upper bound of their own: 1e999 is past the largest double */
static const char *const unbounded[][24] = {
	{ "wattcast", "simulate", "inference", "-o", "s.csv", "--noise" },
	{ "wattcast", "metrics", "run", "--requests" },
	{ "wattcast", "ingest", "run", "-o", "t.csv", "--segment" },
	{ "wattcast", "calibrate", "finetune", "runs.csv", "--run-scatter" },
};

static int
run_with(const char *const *base, const char *value, run_result *r)
{
	const char *argv[28];
	size_t n = 0;
	while (base[n] && n < 24) {
		argv[n] = base[n];
		n++;
	}
	argv[n++] = value;
	argv[n] = NULL;
	return run_wattcast(argv, NULL, r);
}

/* stderr's message, cut before the value it quotes ("got ..." or the
 * number leading it: "1e+300 MHz is outside ..."), into buf */
static void
message(const char *const *base, const char *value, char *buf, size_t cap)
{
	run_result r;
	CHECK_INT(run_with(base, value, &r), 0);
	CHECK_INT(r.status, 2);
	snprintf(buf, cap, "%s", r.err ? r.err : "");
	char *got = strstr(buf, ", got ");
	if (got)
		*got = '\0';
	/* 1e300 as it reads back, 1e999 as typed */
	const char *shown = value[0] == '-' ? (value[3] == '3' ? "-1e+300 " : "'-1e999' ")
	                                    : (value[2] == '3' ? "1e+300 " : "'1e999' ");
	char *num = strstr(buf, shown);
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
		CHECK(strstr(past, "got inf") == NULL && strstr(past, " inf ") == NULL);
		if (strcmp(big, past) != 0 || strstr(past, "largest double"))
			fprintf(stderr, "  1e300: %s\n  1e999: %s\n", big, past);
	}
	/* -1e999 below a range without a lower bound of the parser's own */
	const char *const price[] = { PRED, "--price-per-kwh", NULL };
	char low[512], below[512];
	message(price, "-1e300", low, sizeof low);
	message(price, "-1e999", below, sizeof below);
	CHECK(strcmp(low, below) == 0);
	CHECK_CONTAINS(below, "--price-per-kwh: must be from 0 to");
	for (size_t f = 0; f < sizeof unbounded / sizeof *unbounded; f++) {
		run_result r;
		CHECK_INT(run_with(unbounded[f], "1e999", &r), 0);
		CHECK_INT(r.status, 2);
		CHECK_CONTAINS(r.err, "must be at most 1.79769e+308 (the largest double), got '1e999'");
		run_result_free(&r);
	}
	return check_report("test_cli_overflow_ranges");
}
