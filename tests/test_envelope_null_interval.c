/*
 * An envelope's and a budget plan's predictive interval is the law's
 * held-out error of mean power alone (docs/intervals.md, "Where it
 * applies"): from a set without a prediction_error section it is null,
 * and the answer says why in its warnings (JSON and HTTP alike) as the
 * text does, the plan's text included.
 */
#include "tests/support/check.h"
#include "data/data.h"
#include "models/models.h"
#include "predict/envelope.h"
#include "tests/support/support.h"

#include <stdlib.h>
#include <string.h>

/* An envelope or a budget plan from a set without a prediction_error
 * section: its interval is null, and the JSON said nothing of why. */
static void
null_interval_warned(void)
{
	wc_power_map pm;
	const char *notes[WC_ENVELOPE_SETUP_WARNINGS];
	memset(&pm, 0, sizeof pm);
	int n = wc_envelope_setup_warnings(&pm, NULL, NULL, notes, WC_ENVELOPE_SETUP_WARNINGS);
	CHECK_INT(n, 1);
	CHECK(n == 1 && strcmp(notes[0], WC_ENVELOPE_NO_INTERVAL_NOTE) == 0);
	CHECK(strlen(WC_ENVELOPE_NO_INTERVAL_NOTE) < WC_WARNING_LEN);
	pm.has_pe = 1;
	CHECK_INT(wc_envelope_setup_warnings(&pm, NULL, NULL, notes, WC_ENVELOPE_SETUP_WARNINGS), 0);

	wc_params p = WC_PARAMS_INIT;
	wc_error err;
	wc_params_default(&p);
	p.pred_error.present = 0;
	char *dir = test_tmpdir("interval_power_share"), *file = path_join(dir, "nope.json");
	char *s = wc_params_dump(&p, 1, &err);
	CHECK(s != NULL && write_text(file, s) == 0);
	free(s);
	const char *env[] = { "wattcast", "envelope", "--params", file, "--platform", "H100", "--model", "Qwen3-8B",
		              "--closed", "32", "--horizon", "30", "--json", NULL };
	const char *plan[] = { "wattcast", "envelope", "--params", file, "--platform", "H100", "--model", "Qwen3-8B",
		               "--closed", "32", "--horizon", "30", "--budget", "5000", NULL, NULL };
	run_result r;
	CHECK_INT(run_wattcast(env, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, "\"interval_95\": null");
	CHECK_CONTAINS(r.out, "interval_95: none: the parameter set has no prediction_error for this level");
	run_result_free(&r);
	CHECK_INT(run_wattcast(plan, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, "95 % predictive interval of that p95: none (the parameter set has no prediction_error "
	                      "for this level)");
	run_result_free(&r);
	plan[14] = "--json";
	CHECK_INT(run_wattcast(plan, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, "\"stat_interval_95\": null");
	CHECK_CONTAINS(r.out, "interval_95: none: the parameter set has no prediction_error for this level");
	run_result_free(&r);
	free(file);
	free(dir);
	wc_params_clear(&p);
}

int
main(void)
{
	null_interval_warned();
	return check_report("test_envelope_null_interval");
}
