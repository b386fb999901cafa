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
 * named no line). Uneven samples were put on a grid of the closest
 * spacing, moving each off it by up to a step: the envelope's mean
 * count and power were not predict's on the same file.
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

	/* Uneven samples (0.25 and 0.3 s apart): each holds at its own time.
	 * On a grid of the closest spacing (0.25 s) the 16 sampled at 0.30 s
	 * ran from 0.50 s: 6.588 running and 180.35 W where predict's time
	 * average is 16 x 0.8 / 1.7 = 7.529 and 195.87 W. The 50 ms grid
	 * integrates each hold exactly: the means agree to the JSON's ten
	 * digits, the power to the 1 ms response's lag at its edges. */
	char *ex2 = test_fixture(dir, "ex2.csv", "t_s,running\n0,0\n0.3,16\n0.55,0\n0.85,16\n1.1,0\n1.4,16\n");
	const char *pu[] = { "wattcast", "predict", "inference", "--platform", "A100", "--model", "Qwen3-8B",
		             "--running-series", ex2, "--json", NULL };
	const char *eu[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--n-series", ex2,
		             "--horizon", "1.7", "--tau", "0.001", "--hold", "0", "--decay", "0", "--quiet", "--json",
		             NULL };
	p = json_of(pu);
	e = json_of(eu);
	double pm = json_number_value(json_object_get(p, "mean_running"));
	CHECK_NEAR(pm, 16.0 * 0.8 / 1.7, 1e-9 * pm);
	CHECK_NEAR(summary(e, "mean_running"), pm, 1e-9 * pm);
	CHECK_NEAR(summary(e, "mean_w"), json_number_value(json_object_get(p, "node_power_w")), 0.5);
	/* its samples have no one step: dt_s null, the 1.7 s they cover */
	const json_t *wl = json_object_get(e, "workload");
	CHECK(json_is_null(json_object_get(wl, "dt_s")));
	CHECK_NEAR(json_number_value(json_object_get(wl, "span_s")), 1.7, 1e-12);
	json_decref(e);
	json_decref(p);
	free(ex2);

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
