/*
 * The real PowerTrace-Sim runs, end to end (label realdata): ingest every
 * run, fit the law on the eight rows with the frozen default as prior and
 * a bootstrap. Eight runs cannot identify eight parameters, so the fit
 * must say so -- and still freeze a valid file: replicates that run off
 * along the flat directions (S overflowing once exponentiated) are left
 * out and counted, never written as inf (test_fit_degenerate checks the
 * counting on a constructed case).
 */
#include "data/data.h"
#include "tests/support/support.h"

#include <stdlib.h>

int
main(void)
{
	const char *shared = test_shared_dir();
	if (!shared)
		return TEST_SKIP;
	char *dir = test_tmpdir("real_powertrace_fit");
	char *runs_dir = path_join(shared, "data/real/powertrace-sim");
	char *runs = path_join(dir, "runs.csv"), *params = path_join(dir, "params.json");
	run_result r;
	const char *ingest[] = { "wattcast", "ingest", runs_dir, "-o", runs, "--platform", "A100", "--tp", "1",
	                         "--model", "Qwen/Qwen3-8B", "--utc-offset", "-25200", "--quiet", NULL };
	CHECK(run_wattcast(ingest, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	run_result_free(&r);
	const char *fit[] = { "wattcast", "fit", "inference", runs, "-o", params, "--bootstrap", "50",
	                      "--seed", "1", NULL };
	CHECK(run_wattcast(fit, NULL, &r) == 0);
	CHECK(r.status == 0 || r.status == 1); /* 1 = not converged, file still written */
	CHECK_CONTAINS(r.out, "weakly identified");
	wc_params p = WC_PARAMS_INIT;
	wc_error err;
	CHECK_INT(wc_params_load_file(params, &p, &err), WC_OK);
	CHECK(p.n_draws > 0 && p.n_draws <= 50);
	/* Replicates left out are counted, never silently dropped. */
	if (p.n_draws < 50)
		CHECK_CONTAINS(r.out, "replicates did not converge");
	for (long i = 0; i < (long)p.n_draws * p.n_draw_params; i++)
		CHECK(isfinite(p.draws[i]));
	wc_params_clear(&p);
	run_result_free(&r);
	free(runs_dir);
	free(runs);
	free(params);
	free(dir);
	return check_report("test_real_powertrace_fit");
}
