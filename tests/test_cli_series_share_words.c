/*
 * A share of a series' time that is neither none nor all is never said as
 * either (docs/inference-law.md, "Unseen configurations"): one sample at 4
 * among 2999 at 500 read "load 4 is outside the calibrated span 7.9-1915
 * on H100 for 0.0 % of the series' time", the converse "for 100.0 %", and
 * under a 200 W cap "no clock meets it for 100.0 % (...), the rest settle
 * under it". One helper words every share (wc_predict_share_format), so
 * they read "<0.1 %" and ">99.9 %", and "100.0 %" only of all.
 */
#include "predict/predict.h"
#include "predict/predict_internal.h"
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* `predict inference` over `series` (and a cap): every line in want[]
 * said, none of never[]. */
static void
series_words(const char *series, const char *cap, const char *const *want, const char *const *never)
{
	const char *argv[] = { "wattcast", "predict", "inference", "--platform", "H100", "--model", "Qwen3-8B",
		               "--running-series", series, cap ? "--power-cap" : NULL, cap, NULL };
	char *all = test_run_said(argv);
	for (int i = 0; want[i]; i++)
		CHECK_CONTAINS(all, want[i]);
	for (int i = 0; never[i]; i++)
		if (strstr(all, never[i])) {
			CHECK(!"a share said as none or all");
			fprintf(stderr, "  %s (cap %s) says '%s':\n%s\n", series, cap ? cap : "none", never[i], all);
		}
	free(all);
}

/* samples 1 s apart: `first` once at `a`, then 2999 at `b` */
static char *
series_file(const char *dir, const char *name, int a, int b)
{
	size_t cap = 3000 * 16 + 32, used = 0;
	char *text = malloc(cap);
	used += (size_t)snprintf(text, cap, "t_s,running\n0,%d\n", a);
	for (int i = 1; i < 3000; i++)
		used += (size_t)snprintf(text + used, cap - used, "%d,%d\n", i, b);
	char *path = test_fixture(dir, name, text);
	free(text);
	return path;
}

static void
share_is(double share, const char *want)
{
	char pct[32];
	wc_predict_share_format(pct, sizeof pct, share);
	CHECK(strcmp(pct, want) == 0);
	if (strcmp(pct, want) != 0)
		fprintf(stderr, "  share %.17g: '%s', not '%s'\n", share, pct, want);
}

int
main(void)
{
	share_is(0.0, "0.0 %");
	share_is(1.0 / 3000, "<0.1 %");
	share_is(2999.0 / 3000, ">99.9 %");
	share_is(1.0, "100.0 %");
	share_is(1.0 - 1e-14, "100.0 %"); /* a sum's rounding */
	share_is(0.125, "12.5 %");
	share_is(0.001, "0.1 %");
	share_is(0.999, "99.9 %");

	char *dir = test_tmpdir("series_share_words");
	char *low = series_file(dir, "low.csv", 4, 500), *high = series_file(dir, "high.csv", 500, 4);
	static const char *const never[] = { "for 0.0 %", "for 100.0 %", NULL };
	static const char *const w_low[] = { "load 4 is outside the calibrated span 7.9-1915 on H100 for <0.1 % of "
		                             "the series' time", NULL };
	series_words(low, NULL, w_low, never);
	static const char *const w_high[] = { "for >99.9 % of the series' time", NULL };
	series_words(high, NULL, w_high, never);
	static const char *const w_low_cap[] = { "no clock meets it for >99.9 % (at the clock of least power, 345 MHz, "
		                                 "above it), the rest settle under it",
		                                 "200 W per GPU is not reached for >99.9 % of the series' time", NULL };
	static const char *const never_cap[] = { "for 0.0 %", "meets it for 100.0 %", "reached for 100.0 %",
		                                 "least power, 345 MHz, for 100.0 %", NULL };
	series_words(low, "200", w_low_cap, never_cap);
	static const char *const w_high_cap[] = { "no clock meets it for <0.1 %",
		                                  "200 W per GPU is not reached for <0.1 % of the series' time", NULL };
	series_words(high, "200", w_high_cap, never_cap);

	/* every limited step unmet: nothing rests to settle */
	char note[WC_WARNING_LEN];
	wc__predict_series_limit_note("power_cap_w", 200, 2999.0 / 3000, 2999.0 / 3000, 345, 0, note, sizeof note);
	CHECK_CONTAINS(note, "for >99.9 % of the series' time; no clock meets it there: those steps answer at the "
	                     "clock of least power, 345 MHz, still above it");
	CHECK(strstr(note, "the rest") == NULL);
	free(low);
	free(high);
	free(dir);
	return check_report("test_cli_series_share_words");
}
