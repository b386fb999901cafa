/*
 * Calibration above the level's ceiling (docs/calibration.md, "Runs
 * above the ceiling"): a model run on H100 measuring 1000 W, more than
 * the level's tp x (P0 + S) can draw, used to calibrate silently into a
 * law predicting about 637 W. Now the calibration warns, names the run,
 * gives the ceiling, and says how much of the excess the shift absorbed
 * and how much it could not; a run below the ceiling gets no such
 * warning. The power-law forms have no ceiling and no warning.
 */
#include "data/data.h"
#include "fit/calibrate.h"
#include "models/catalog.h"
#include "tests/support/support.h"

#include <stdio.h>
#include <string.h>

static wc_runs_table *
one_run(const char *id, double watts)
{
	wc_runs_table *t = wc_runs_new();
	wc_run r;
	wc_run_init(&r);
	snprintf(r.run_id, sizeof r.run_id, "%s", id);
	snprintf(r.platform, sizeof r.platform, "H100");
	snprintf(r.model, sizeof r.model, "Qwen3-8B");
	r.tp = 1;
	r.active_params_b = wc_model_lookup("Qwen3-8B")->active_params_b;
	r.running = 32;
	r.mean_power_w = watts;
	CHECK_INT(wc_runs_append(t, &r, NULL), WC_OK);
	return t;
}

/* Index of the first warning containing `needle`, or -1. */
static int
warning_with(const wc_calibrate_result *r, const char *needle)
{
	for (int i = 0; i < r->n_warnings; i++)
		if (strstr(r->warnings[i], needle))
			return i;
	return -1;
}

static void
calibrate(const wc_params *base, const char *id, double watts, wc_calibrate_result *r)
{
	wc_runs_table *t = one_run(id, watts);
	wc_calibrate_options o = WC_CALIBRATE_OPTIONS_INIT;
	wc_error err;
	o.seed = 1;
	o.threads = 1;
	CHECK_INT(wc_calibrate(base, t, &o, r, &err), WC_OK);
	for (int i = 0; i < r->n_warnings; i++)
		printf("  warning: %s\n", r->warnings[i]);
	wc_runs_free(t);
}

int
main(void)
{
	wc_params base = WC_PARAMS_INIT;
	wc_calibrate_result r;
	wc_params_default(&base);
	const wc_level *h100 = wc_params_level(&base, "H100");
	double ceiling = h100->p0.value + h100->s.value;
	printf("H100 ceiling: %.1f W\n", ceiling);
	CHECK(1000.0 > ceiling);

	calibrate(&base, "hot-1000w", 1000.0, &r);
	int w = warning_with(&r, "above the level's ceiling");
	CHECK(w >= 0);
	if (w >= 0) {
		CHECK_CONTAINS(r.warnings[w], "model term Qwen3-8B on H100: 1 run above");
		CHECK_CONTAINS(r.warnings[w], "'hot-1000w'");
		CHECK_CONTAINS(r.warnings[w], "1000 W measured");
		char c[32];
		snprintf(c, sizeof c, "ceiling %.0f W", ceiling);
		CHECK_CONTAINS(r.warnings[w], c);
	}
	int a = warning_with(&r, "cannot absorb");
	CHECK(a >= 0);
	if (a >= 0)
		CHECK_CONTAINS(r.warnings[a], "the shift absorbed");
	wc_calibrate_result_clear(&r);

	/* Below the ceiling: no such warning. */
	calibrate(&base, "warm-450w", 450.0, &r);
	CHECK(warning_with(&r, "ceiling") < 0);
	wc_calibrate_result_clear(&r);

	/* A power-law form has no ceiling to warn about. */
	base.form = WC_FORM_POWER_LAW_QUADRATIC;
	if (wc_params_validate(&base, NULL) == WC_OK) {
		calibrate(&base, "hot-power-law", 1000.0, &r);
		CHECK(warning_with(&r, "ceiling") < 0);
		wc_calibrate_result_clear(&r);
	}
	wc_params_clear(&base);
	return check_report("test_calibrate_ceiling");
}
