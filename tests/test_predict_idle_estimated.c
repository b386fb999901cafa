/*
 * An idle answer (nothing runs) whose P0 is estimated from the board's
 * power limit says so (docs/intervals.md, "Where it applies"): B200 under
 * the measured profile (p0_w source "estimated") answered 178.46 W at
 * concurrency 0 with no interval and only "the answer is the idle draw,
 * G x P0", as if that idle were measured. Predict at concurrency 0, a
 * running series of zeros and an envelope of an n(t) all 0 say it in the
 * same words; a published idle (H100) says nothing of it.
 */
#include "tests/support/support.h"

#include <stdlib.h>
#include <string.h>

static const char note[] = "p0: B200's idle power, 178.46 W a GPU, is estimated from the board's power limit, not "
                           "measured: the idle draw answered is that estimate, whose miss no held-out run measures "
                           "(docs/intervals.md)";

int
main(void)
{
	char *dir = test_tmpdir("predict_idle_estimated");
	char *zeros = test_fixture(dir, "zeros.csv", "t_s,running\n0,0\n1,0\n2,0\n");
	const char *idle[] = { "wattcast", "predict", "inference", "--platform", "B200", "--model", "Qwen3-8B",
		               "--concurrency", "0", "--json", NULL };
	char *said = test_run_said(idle);
	CHECK_CONTAINS(said, note);
	CHECK_CONTAINS(said, "\"interval_95\": null");
	free(said);
	const char *series[] = { "wattcast", "predict", "inference", "--platform", "B200", "--model", "Qwen3-8B",
		                 "--running-series", zeros, "--json", NULL };
	said = test_run_said(series);
	CHECK_CONTAINS(said, note);
	free(said);
	const char *env[] = { "wattcast", "envelope", "--platform", "B200", "--model", "Qwen3-8B", "--n-series", zeros,
		              "--json", NULL };
	said = test_run_said(env);
	CHECK_CONTAINS(said, note);
	free(said);
	/* loaded: the interval is the held-out error's, and no such line */
	const char *loaded[] = { "wattcast", "predict", "inference", "--platform", "B200", "--model", "Qwen3-8B",
		                 "--concurrency", "8", "--json", NULL };
	said = test_run_said(loaded);
	CHECK(!strstr(said, "p0: B200's idle power"));
	free(said);
	const char *h100[] = { "wattcast", "predict", "inference", "--platform", "H100", "--model", "Qwen3-8B",
		               "--concurrency", "0", "--json", NULL };
	said = test_run_said(h100);
	CHECK(!strstr(said, "is estimated from the board's power limit"));
	free(said);
	free(zeros);
	free(dir);
	return check_report("test_predict_idle_estimated");
}
