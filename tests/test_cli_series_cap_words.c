/*
 * A running series under a power cap says what it does (docs/capacity.md,
 * "The board's power limit"): each step settles under the cap where a
 * clock meets it, else runs at the clock of least power. The header said
 * "power cap 300 W per GPU (does not bind)" beside 2400.0 W = 8 x 300 W;
 * at 150 W the warning said "those steps answer at the clock a GPU
 * settles at under that limit" beside "no clock of H100's range meets
 * it", and "at the clock of least power (0 MHz)" for H100's 345 MHz. Now
 * the header gives the share of time the cap binds, the least-power clock
 * is named, and "settles" is said only of steps a clock brings under it.
 */
#include "predict/predict_internal.h"
#include "tests/support/support.h"

#include <stdio.h>
#include <string.h>

static void
series_cap(const char *series, const char *cap, const char *const *want, const char *const *never)
{
	const char *argv[] = { "wattcast", "predict", "inference", "--platform", "H100", "--tp", "8", "--model",
		               "Qwen/Qwen3-235B-A22B-Instruct-2507", "--running-series", series, "--power-cap",
		               cap, NULL };
	char *all = test_run_said(argv);
	for (int i = 0; want[i]; i++)
		CHECK_CONTAINS(all, want[i]);
	for (int i = 0; never[i]; i++) {
		CHECK(strstr(all, never[i]) == NULL);
		if (strstr(all, never[i]))
			fprintf(stderr, "  --power-cap %s says '%s':\n%s\n", cap, never[i], all);
	}
	free(all);
}

int
main(void)
{
	char *dir = test_tmpdir("series_cap_words");
	char *rs = test_fixture(dir, "rs.csv", "t_s,running\n0,64\n60,32\n120,64\n");

	/* a cap every step exceeds and some clock meets: binds all the time */
	static const char *const w300[] = { "power cap 300 W per GPU (binds on 100.0 % of the series' time)",
		                            "node power       2400.0 W",
		                            "those steps answer at the clock a GPU settles at under that limit", NULL };
	static const char *const n300[] = { "does not bind", "clock of least power", NULL };
	series_cap(rs, "300", w300, n300);

	/* a cap no clock meets: the clock of least power, named, never "settles" */
	static const char *const w150[] = { "power cap 150 W per GPU (binds on 100.0 % of the series' time)",
		                            "no clock meets it there: those steps answer at the clock of least power, "
		                            "345 MHz, still above it",
		                            "at the clock of least power (345 MHz)", NULL };
	static const char *const n150[] = { "does not bind", "settles at under that limit", "(0 MHz)", NULL };
	series_cap(rs, "150", w150, n150);

	/* some steps met, some not: both said, with their shares */
	char note[WC_WARNING_LEN];
	wc__predict_series_limit_note("power_cap_w", 186, 1.0, 2.0 / 3.0, 345, 0, note, sizeof note);
	CHECK_CONTAINS(note, "for 100.0 % of the series' time; no clock meets it for 66.7 % (at the clock of least "
	                     "power, 345 MHz, above it), the rest settle under it");
	free(rs);
	free(dir);
	return check_report("test_cli_series_cap_words");
}
