/*
 * One rule of idle (wc_load_is_idle, models/law.h; wc_interval_applies,
 * models/interval.h, is its negation for intervals): a run below
 * WC_CAPACITY_MIN_CONCURRENCY running requests is idle for the fit, for
 * calibrate and for the validators alike. A row at 1e-300 running was
 * loaded for the fit (it tested running > 0) and broke it (RMS 44.8,
 * "NOT converged in 1 iterations"; lomo's B200 median 16.35 -> 20.58 %,
 * silently), while calibrate and predict called it idle; and lomo gave a
 * row at 0 running a 95 % interval that heldout's rule refuses
 * (docs/fitting.md, "Which runs enter"; docs/intervals.md, "Where it
 * applies").
 */
#include "fit/fit.h"
#include "models/interval.h"
#include "models/limits.h"
#include "validation/validation.h"
#include "tests/support/support.h"
#include "tests/support/synth_runs.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *
warning_with(const wc_fit_result *r, const char *text)
{
	for (int i = 0; i < r->n_warnings; i++)
		if (strstr(r->warnings[i], text))
			return r->warnings[i];
	return NULL;
}

int
main(void)
{
	CHECK(!wc_interval_applies(0.0));
	CHECK(!wc_interval_applies(1e-300));
	CHECK(!wc_interval_applies(NAN));
	CHECK(wc_interval_applies(WC_CAPACITY_MIN_CONCURRENCY));
	const double loads[] = { 0.0, 1e-300, NAN, -1.0, 0.5e-6, WC_CAPACITY_MIN_CONCURRENCY, 1.0, INFINITY };
	for (size_t i = 0; i < sizeof loads / sizeof *loads; i++)
		CHECK_INT(wc_load_is_idle(loads[i]), !wc_interval_applies(loads[i]));
	CHECK(wc_load_is_idle(0.5e-6));
	CHECK(!wc_load_is_idle(WC_CAPACITY_MIN_CONCURRENCY));

	/* the fit: a row at 1e-300 is left out as an idle row is, and the
	 * fit is the one without it */
	wc_runs_table *t = synth_a100_runs(1);
	wc_fit_options fo = WC_FIT_OPTIONS_INIT;
	wc_fit_result tiny, excluded;
	wc_error err;
	t->runs[12].running = 1e-300;
	CHECK_INT(wc_fit_inference_law(t, &fo, &tiny, &err), WC_OK);
	const char *w = warning_with(&tiny, "run r22: 1e-300 running requests, below the 1e-06 of a load (idle); "
	                                    "left out of the fit");
	CHECK(w != NULL);
	CHECK(tiny.converged);
	CHECK(tiny.rms < 0.1);
	snprintf(t->runs[12].exclude, sizeof t->runs[12].exclude, "x");
	CHECK_INT(wc_fit_inference_law(t, &fo, &excluded, &err), WC_OK);
	CHECK_INT(tiny.n_free, excluded.n_free);
	for (int k = 0; k < tiny.n_free && k < excluded.n_free; k++)
		CHECK(tiny.x[k] == excluded.x[k]);
	wc_fit_result_clear(&tiny);
	wc_fit_result_clear(&excluded);

	/* lomo: the idle rows (0 and 1e-300) are scored, with no interval and
	 * the reason; the loaded ones keep theirs */
	t->runs[12].exclude[0] = '\0';
	t->runs[12].running = 0.0;
	t->runs[3].running = 1e-300;
	wc_heldout_report rep;
	wc_per_run pr = WC_PER_RUN_INIT;
	fo.precision_terms = WC_TERMS_PER_LEVEL;
	CHECK_INT(wc_validate_lomo(t, &fo, &rep, &pr, &err), WC_OK);
	int idle_seen = 0, loaded_with = 0;
	for (size_t i = 0; i < pr.n; i++) {
		const wc_per_run_row *r = &pr.rows[i];
		if (!strcmp(r->run_id, "r22") || !strcmp(r->run_id, "r03")) {
			idle_seen++;
			CHECK(isnan(r->lo) && isnan(r->hi));
			CHECK_CONTAINS(r->warnings, "interval_95: none: the run is idle (running below 1e-06)");
		} else
			loaded_with += isfinite(r->lo) && isfinite(r->hi);
	}
	CHECK_INT(idle_seen, 2);
	CHECK(loaded_with > 0);
	CHECK_INT(rep.overall.n_interval, loaded_with);
	wc_per_run_clear(&pr);
	wc_runs_free(t);
	return check_report("test_fit_idle_load");
}
