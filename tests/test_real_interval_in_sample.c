/*
 * The `paper` profile's held-out error is ML.ENERGY's (label realdata;
 * read in place from ../shared): its frozen q is the 147th smallest
 * |log residual| of the 153 H100 runs, its datasheet stratum's the 95 %
 * quantile of 325 platform-out residuals, B200's 172 among them. Scored
 * on that table, `validate heldout` reported the coverage (147 of 153,
 * 96.1 %; B200 by --datasheet 158 of 172) as held out with no warning;
 * wc_heldout_interval_in_sample now knows these rows by the quantiles
 * they give again (docs/validation.md, "Frozen-law accuracy"). The
 * `measured` profile's error came from model folds, not from its frozen
 * scores, and is not flagged by it (its fit's in-sample warning is).
 */
#include "data/data.h"
#include "models/profile_measured.h"
#include "tests/support/support.h"
#include "validation/validation.h"

#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int
main(void)
{
	const char *shared = test_shared_dir();
	if (!shared)
		return TEST_SKIP;
	char *path = path_join(shared, "data/real/mlenergy/configurations_text.csv");
	wc_runs_table *t = NULL;
	wc_error err;
	char buf[WC_ERROR_MSG_MAX];
	gsl_set_error_handler_off();
	CHECK_INT(wc_import_mlenergy(path, &t, &err), WC_OK);
	free(path);
	if (!t)
		return check_report("test_real_interval_in_sample");
	wc_params paper = WC_PARAMS_INIT, measured = WC_PARAMS_INIT;
	wc_params_default(&paper);
	wc_params_measured(&measured);

	wc_heldout_report rep;
	CHECK_INT(wc_validate_heldout(&paper, t, &rep, NULL, &err), WC_OK);
	CHECK_INT(rep.overall.n_interval, 153);
	CHECK_INT(wc_heldout_interval_in_sample(&paper, t, 0, "ml.csv", buf, sizeof buf), 1);
	CHECK_CONTAINS(buf, "ml.csv: coverage in-sample: the interval's quantile was computed on these rows (they give "
	                    "the set's frozen q 0.388 from 153 runs again); `validate lomo` is the held-out check");

	CHECK_INT(wc_validate_heldout_datasheet(&paper, t, &rep, NULL, &err), WC_OK);
	CHECK_INT(rep.overall.n_interval, 325);
	CHECK_INT(wc_heldout_interval_in_sample(&paper, t, 1, "ml.csv", buf, sizeof buf), 1);
	CHECK_CONTAINS(buf, "(they give the set's frozen q 0.388 from 153 runs and datasheet q 0.555 from 325 again)");

	CHECK_INT(wc_heldout_interval_in_sample(&measured, t, 0, "ml.csv", buf, sizeof buf), 0);
	CHECK_INT(wc_heldout_interval_in_sample(&measured, t, 1, "ml.csv", buf, sizeof buf), 0);

	wc_params_clear(&paper);
	wc_params_clear(&measured);
	wc_runs_free(t);
	return check_report("test_real_interval_in_sample");
}
