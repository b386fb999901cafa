/*
 * docs/intervals.md's figures for `validate envelope` on the eight
 * PowerTrace-Sim runs with the default, assumed response (`--profile
 * measured`, level zero-shot: a fraction of a second, unlike the
 * leave-one-run-out fits test_real_envelope runs) are the ones the binary
 * prints now (label realdata; skipped without ../shared): the coverage
 * counts, the median widths and errors, and the interval of the run the
 * page names. After the capacity law's tau_EP the page still said 7 of 8
 * runs covered, widths 69.9 / 78.0 %, medians 10.54 / 12.08 / 0.95, that
 * run missing 154.21-330.12 W, where the binary gave 8 of 8, 69.4 / 78.0,
 * 10.88 / 10.48 / 0.96 and 163.0-349.0 W.
 */
#include "tests/support/run_json.h"
#include "tests/support/support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void
says(const char *phrase)
{
	CHECK(test_doc_says("docs/intervals.md", phrase));
}

int
main(void)
{
	const char *shared = test_shared_dir();
	if (!shared)
		return TEST_SKIP;
	char *runs = path_join(shared, "data/real/powertrace-sim");
	const char *argv[] = { "wattcast", "validate", "envelope", "--profile", "measured", runs, "--utc-offset", "-25200",
		               "--platform", "A100", "--model", "Qwen3-8B", "--tp", "1", "--json", NULL };
	json_t *j = test_run_json(argv, NULL);
	CHECK(j != NULL);
	const int with = (int)json_integer_value(json_object_get(j, "runs_with_interval"));
	const int in_mean = (int)lround(test_json_num(j, "coverage_mean_pct") * with / 100.0);
	const int in_p95 = (int)lround(test_json_num(j, "coverage_p95_pct") * with / 100.0);
	char phrase[512];
	snprintf(phrase, sizeof phrase, "covers %d of %d runs' mean and %d of %d runs' p95 with `measured` (median widths "
	         "%.1f %% / %.1f %%, medians of the errors %.2f %% / %.2f %% / %.2f;", in_mean, with, in_p95, with,
	         test_json_num(j, "median_width_mean_pct"), test_json_num(j, "median_width_p95_pct"),
	         test_json_num(j, "median_mean_err_pct"), test_json_num(j, "median_p95_err_pct"),
	         test_json_num(j, "median_ramp_ratio"));
	says(phrase);
	/* the run the page names, by the interval its JSON gives (6 digits:
	 * the page gives its ends to 0.1 W) */
	const json_t *list = json_object_get(j, "runs"), *run = NULL;
	for (size_t i = 0; i < json_array_size(list); i++) {
		const char *id = json_string_value(json_object_get(json_array_get(list, i), "run_id"));
		if (id && strcmp(id, "a100_trace_replay_tp1_1784415083") == 0)
			run = json_array_get(list, i);
	}
	CHECK(run != NULL);
	if (run) {
		const double pred = test_json_num(run, "predicted/mean_w"), meas = test_json_num(run, "measured/mean_w");
		char err[32], t[32];
		snprintf(t, sizeof t, "%+.1f", 100.0 * (pred / meas - 1.0));
		snprintf(err, sizeof err, "%s%.24s", t[0] == '-' ? "\xe2\x88\x92" : "+", t + 1);
		snprintf(phrase, sizeof phrase, "`a100_trace_replay_tp1_1784415083`, measured %.2f W mean against "
		         "%.1f–%.1f W (predicted %s %%) and %.2f W p95 against %.1f–%.1f W", meas,
		         test_json_num(run, "interval_95_lo/mean_w"), test_json_num(run, "interval_95_hi/mean_w"), err,
		         test_json_num(run, "measured/p95_w"), test_json_num(run, "interval_95_lo/p95_w"),
		         test_json_num(run, "interval_95_hi/p95_w"));
		says(phrase);
	}
	json_decref(j);
	free(runs);
	return check_report("test_real_docs_envelope_default");
}
