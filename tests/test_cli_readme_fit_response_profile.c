/*
 * README's response workflow names the profile it fits into: `fit
 * response` loads the `paper` profile by default (as every fit command
 * does, cli_load_params) while `envelope` and `validate` default to
 * `measured`, so `fit response RUN_DIR... -o response.json` then
 * `--params response.json` silently swapped the law and the capacity
 * model (eta_c 0.164, prefill 3-5x too slow; 334.15 W against 345.18 W
 * at Poisson 3 over 120 s). The README line passes --profile measured,
 * and the command it shows runs with it.
 */
#include "tests/support/support.h"

int
main(void)
{
	CHECK(test_doc_says("README.md", "wattcast fit response --profile measured RUN_DIR... -o response.json"));
	CHECK(!test_doc_says("README.md", "wattcast fit response RUN_DIR... -o response.json"));
	const char *argv[] = { "wattcast", "fit", "response", "--help", NULL };
	run_result r;
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, "--profile measured|paper|paper-prefill");
	run_result_free(&r);
	return check_report("test_cli_readme_fit_response_profile");
}
