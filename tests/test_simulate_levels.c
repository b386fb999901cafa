/*
 * `simulate inference` with a parameter set that lacks some of the
 * design's levels (docs/validation.md, "A truth without every level"):
 * the measured profile has no 'H100-locked', and the command failed with
 * "the parameters have no level 'H100-locked'". The rows on that GPU are
 * left out with one warning counting them; the paper profile, which has
 * every level, keeps all 247 rows and no warning; a set with none of the
 * levels is refused.
 */
#include "data/data.h"
#include "tests/support/support.h"
#include "validation/validation.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t
runs_in(const char *path)
{
	wc_runs_table *t = NULL;
	wc_error err;
	CHECK_INT(wc_runs_read(path, &t, &err), WC_OK);
	size_t n = t ? t->n_runs : 0;
	wc_runs_free(t);
	return n;
}

static void
none_left(void)
{
	wc_params p = WC_PARAMS_INIT;
	wc_error err;
	wc_simulate_options so = WC_SIMULATE_OPTIONS_INIT;
	wc_runs_table *t = NULL;
	CHECK_INT(wc_params_profile("measured", &p, &err), WC_OK);
	for (int i = 0; i < p.n_levels; i++)
		snprintf(p.levels[i].name, sizeof p.levels[i].name, "X%d", i);
	CHECK_INT(wc_simulate_inference(&p, &so, &t, &err), WC_EINVAL);
	CHECK_CONTAINS(err.msg, "none of the design's levels");
	CHECK(t == NULL);
	wc_params_clear(&p);
}

int
main(void)
{
	char *dir = test_tmpdir("simulate_levels");
	char *measured = path_join(dir, "measured.csv"), *paper = path_join(dir, "paper.csv");
	run_result r;
	const char *m[] = { "wattcast", "simulate", "inference", "--profile", "measured", "-o", measured, NULL };
	CHECK(run_wattcast(m, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.err, "warning: simulate: left out 10 of the design's 247 rows: the parameters 'measured' "
	                      "have no level 'H100-locked'");
	CHECK_CONTAINS(r.err, "wrote 237 synthetic runs");
	run_result_free(&r);
	CHECK_INT(runs_in(measured), 237);

	const char *p[] = { "wattcast", "simulate", "inference", "--profile", "paper", "-o", paper, NULL };
	CHECK(run_wattcast(p, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	CHECK(strstr(r.err, "warning") == NULL);
	run_result_free(&r);
	CHECK_INT(runs_in(paper), 247);

	none_left();
	free(measured);
	free(paper);
	free(dir);
	return check_report("test_simulate_levels");
}
