/*
 * A running series' clock caveat names what set the clock, as a single
 * load's does (docs/cli.md, "predict"; docs/http-api.md, "The prediction object"): an
 * A100 series locked at 600 MHz said "platform: the GPU settles at 600
 * MHz" where --concurrency 8 at the same lock says "sm_clock_mhz: no
 * clock-locked runs ..."; a series the board's limit lowers on every step
 * from a 1400 MHz lock said it "settles at 1400 MHz"; under a 300 W cap
 * the series lost the kappa caveat that --concurrency 512 keeps. Now the
 * lock names sm_clock_mhz, a cap power_cap_w and the board's limit
 * platform, with no one clock for steps settled one by one at different
 * clocks, and the limit's warning says it lowers the lock. Steps that all
 * settle at one clock say it, as the single load at that clock does
 * ("settles at 809 MHz", not "settles under the cap").
 */
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* stdout and stderr of `predict inference` on A100 with `extra` flags */
static char *
predict(const char *model, const char *const *extra)
{
	const char *argv[24] = { "wattcast", "predict", "inference", "--platform", "a100", "--model", model, "--json" };
	int n = 8;
	for (int i = 0; extra[i] && n < 23; i++)
		argv[n++] = extra[i];
	argv[n] = NULL;
	return test_run_said(argv);
}

static void
never(const char *all, const char *text)
{
	CHECK(strstr(all, text) == NULL);
	if (strstr(all, text))
		fprintf(stderr, "  says '%s':\n%s\n", text, all);
}

int
main(void)
{
	char *dir = test_tmpdir("series_clock_caveat");
	char *ns = test_fixture(dir, "ns.csv", "t_s,running\n0,0\n1,16\n2,16\n3,4\n4,0\n5,32\n");
	char *big = test_fixture(dir, "s512b.csv", "t_s,running\n0,512\n1,512\n");
	static const char kappa[] = "no runs at a known locked clock were calibrated on A100"
	                            " and kappa is unpublished; kappa = 1 is assumed";
	char want[256];

	/* a lock: sm_clock_mhz, the same line as a single load's */
	const char *lock_series[] = { "--running-series", ns, "--sm-clock", "600", NULL };
	const char *lock_one[] = { "--concurrency", "8", "--sm-clock", "600", NULL };
	char *s = predict("qwen3-8b", lock_series), *one = predict("qwen3-8b", lock_one);
	snprintf(want, sizeof want, "\"sm_clock_mhz: %s\"", kappa);
	CHECK_CONTAINS(one, want);
	CHECK_CONTAINS(s, want);
	CHECK_CONTAINS(s, "\"sm_clock_mhz: the GPU runs at 600 MHz of A100's 1410 MHz top clock");
	never(s, "platform: the GPU settles at 600 MHz");
	never(s, "platform: the GPU runs at 600 MHz");
	free(s);
	free(one);

	/* a lock the board's limit lowers on every step: the limit names it,
	 * at the one clock both steps settle at; --concurrency 512's clock is
	 * said by the limit's own warning, its caveat the assumption alone */
	const char *lowered[] = { "--running-series", big, "--sm-clock", "1400", NULL };
	const char *lowered_one[] = { "--concurrency", "512", "--sm-clock", "1400", NULL };
	s = predict("qwen3-32b", lowered);
	one = predict("qwen3-32b", lowered_one);
	snprintf(want, sizeof want, "\"platform: the GPU settles at 1125 MHz; %s\"", kappa);
	CHECK_CONTAINS(s, want);
	snprintf(want, sizeof want, "\"platform: %s\"", kappa);
	CHECK_CONTAINS(one, want);
	CHECK_CONTAINS(one, "this answers at the clock it settles at, 1125 MHz (docs/capacity.md)");
	free(one);
	CHECK_CONTAINS(s, "platform: the law gives more than 400 W per GPU for 100.0 % of the series' time; the limit "
	                  "lowers the 1400 MHz locked there; those steps answer at the clock a GPU settles at under "
	                  "that limit");
	never(s, "settles at 1400 MHz");
	free(s);

	/* a cap: power_cap_w, with the kappa caveat a single load keeps */
	const char *capped[] = { "--running-series", big, "--power-cap", "300", NULL };
	const char *capped_one[] = { "--concurrency", "512", "--power-cap", "300", NULL };
	s = predict("qwen3-32b", capped);
	one = predict("qwen3-32b", capped_one);
	snprintf(want, sizeof want, "\"power_cap_w: the GPU settles at 769 MHz; %s\"", kappa);
	CHECK_CONTAINS(one, want);
	CHECK_CONTAINS(s, want);
	free(s);
	free(one);

	/* a cap some steps exceed: their share */
	const char *part[] = { "--running-series", ns, "--power-cap", "300", NULL };
	s = predict("qwen3-8b", part);
	snprintf(want, sizeof want, "\"power_cap_w: the GPU settles under the cap for 50.0 %% of the series' time; %s\"",
	         kappa);
	CHECK_CONTAINS(s, want);
	free(s);

	free(ns);
	free(big);
	free(dir);
	return check_report("test_cli_series_clock_caveat");
}
