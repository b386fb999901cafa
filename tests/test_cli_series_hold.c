/*
 * One n(t) file, one load (docs/formats/runs-table.md, n(t) files): its
 * last sample holds for the median step and it needs two samples, in
 * `predict inference --running-series` and `envelope --n-series` alike.
 * Samples at 0, 1 and 3 s (0, then 16 running) span 4.5 s: 12.44
 * running on average in both. The envelope held the last sample for its
 * grid's step, the closest spacing (1 s): 10.67 running over 4.5 s, and a
 * warning that the file covers 4 s; it took a one-sample file, which
 * predict refuses, as 0.05 s of load. A one-sample file is refused at
 * its sample's line, a header-only one at the line after the header (it
 * named no line).
 */
#include "tests/support/support.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static json_t *
json_of(const char *const *argv)
{
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	if (r.status != 0)
		fprintf(stderr, "%s", r.err ? r.err : "");
	json_t *j = json_loads(r.out ? r.out : "", 0, NULL);
	CHECK(j != NULL);
	run_result_free(&r);
	return j;
}

static double
summary(const json_t *j, const char *name)
{
	const json_t *s = json_object_get(json_object_get(j, "server"), "summary");
	return json_number_value(json_object_get(json_object_get(s, name), "value"));
}

int
main(void)
{
	char *dir = test_tmpdir("cli_series_hold");
	char *s3 = test_fixture(dir, "s3.csv", "t_s,running\n0,0\n1,16\n3,16\n");
	char *s1 = test_fixture(dir, "s1.csv", "t_s,running\n0,5\n");
	char *s0 = test_fixture(dir, "s0.csv", "# none yet\nt_s,running\n");

	const char *pv[] = { "wattcast", "predict", "inference", "--platform", "H100", "--model", "Qwen3-8B",
		             "--running-series", s3, "--json", NULL };
	json_t *p = json_of(pv);
	double mean_running = json_number_value(json_object_get(p, "mean_running"));
	CHECK_NEAR(mean_running, 56.0 / 4.5, 1e-6);
	json_decref(p);

	const char *ev[] = { "wattcast", "envelope", "--platform", "H100", "--model", "Qwen3-8B", "--n-series", s3,
		             "--horizon", "4.5", "--quiet", "--json", NULL };
	json_t *e = json_of(ev);
	CHECK_NEAR(summary(e, "mean_running"), mean_running, 1e-6);
	/* it covers the 4.5 s simulated: nothing to warn of */
	const json_t *w = json_object_get(e, "warnings");
	for (size_t i = 0; i < json_array_size(w); i++)
		CHECK(strstr(json_string_value(json_array_get(w, i)), "running_series:") == NULL);
	json_decref(e);

	/* a tiny response (tau 1 ms): the envelope's mean is the law's time
	 * average, predict's 363.86 W (the lag of a real board's response is
	 * the rest; docs/envelopes.md) */
	const char *fast[] = { "wattcast", "envelope", "--platform", "H100", "--model", "Qwen3-8B", "--n-series", s3,
		               "--horizon", "4.5", "--tau", "0.001", "--hold", "0", "--decay", "0", "--quiet", "--json",
		               NULL };
	e = json_of(fast);
	p = json_of(pv);
	CHECK_NEAR(summary(e, "mean_w"), json_number_value(json_object_get(p, "node_power_w")), 0.5);
	json_decref(e);
	json_decref(p);

	/* one sample: refused by both, in the same words */
	const char *p1[] = { "wattcast", "predict", "inference", "--platform", "H100", "--model", "Qwen3-8B",
		             "--running-series", s1, NULL };
	const char *e1[] = { "wattcast", "envelope", "--platform", "H100", "--model", "Qwen3-8B", "--n-series", s1,
		             "--horizon", "4.5", "--quiet", NULL };
	const char *const *argvs[2] = { p1, e1 };
	for (int i = 0; i < 2; i++) {
		run_result r;
		CHECK(run_wattcast(argvs[i], NULL, &r) == 0);
		CHECK(r.status != 0);
		CHECK_CONTAINS(r.err, "s1.csv:2:1: needs at least two samples");
		run_result_free(&r);
	}
	p1[8] = s0;
	run_result r0;
	CHECK(run_wattcast(p1, NULL, &r0) == 0);
	CHECK(r0.status != 0);
	CHECK_CONTAINS(r0.err, "s0.csv:3:1: needs at least two samples, got none");
	run_result_free(&r0);
	free(s0);
	free(s3);
	free(s1);
	free(dir);
	return check_report("test_cli_series_hold");
}
