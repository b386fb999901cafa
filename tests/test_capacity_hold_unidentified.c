/*
 * A held overhead borrows only from levels whose rows identify theirs
 * (docs/capacity.md, "Held at the other levels' median"): inside the
 * domain is not enough. A100's rows were made by an engine without a fixed
 * step overhead (t0 = 0, below the fit's 1 us), so the fit runs t0[A100]
 * to the edge; H100 has one row with a latency alone, which leaves the fit
 * no curvature along eta[H100] or t0[H100] (standard error of the log
 * ~1e15), so "not identified". `fit capacity` on PowerTrace-Sim's runs held
 * t0[A100] at H100's t0 so, while calling t0[H100] "not identified" in the
 * same output. Now:
 * - with H100 the only other level, t0[A100] is not held: it stays at its
 *   bound (source "bound") and a warning says H100 was passed over;
 * - with B200's rows identifying t0 at 5 ms as well, it is held at B200's
 *   5 ms (the median of the identified levels), not at the median of
 *   H100's and B200's, and the warning names H100 as no source.
 */
#include "fit/capacity_fit.h"
#include "tests/support/support.h"
#include "tests/support/synth_capacity.h"

#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static const wc_capacity_point engine = { 0.8, 5e-3, 4e-5, 0.5, 3e-5, 3e-5 };
/* A100's engine: no fixed step overhead */
static const wc_capacity_point fast = { 0.8, 0.0, 4e-5, 0.5, 3e-5, 3e-5 };

static void
add_rows(wc_capacity_data *d, const char *level, const wc_capacity_point *pt)
{
	static const char *const models[3] = { "Qwen3-8B", "Qwen3-14B", "Qwen3-32B" };
	static const double ns[3] = { 8, 64, 160 };
	for (int m = 0; m < 3; m++)
		for (int tp = 1; tp <= 2; tp++)
			for (int k = 0; k < 3; k++) {
				char id[64];
				snprintf(id, sizeof id, "%s-%s-%d-%g", level, models[m], tp, ns[k]);
				synth_capacity_row(d, id, level, models[m], "stated", tp, ns[k], 500.0, NAN, 512.0, pt, NULL, 1);
			}
}

/* H100: one row, its latency alone (PowerTrace-Sim's one H100 run) */
static void
add_lone_row(wc_capacity_data *d)
{
	synth_capacity_row(d, "H100-lone", "H100", "Qwen3-8B", "stated", 1, 16, 500.0, NAN, 512.0, &engine, NULL, 1);
	d->rows[d->n_rows - 1].itl_s = NAN;
	d->rows[d->n_rows - 1].ttft_s = NAN;
}

static int
has_warning(const wc_capacity_fit_result *r, const char *needle)
{
	for (int i = 0; i < r->n_warnings; i++)
		if (strstr(r->warnings[i], needle))
			return 1;
	return 0;
}

static void
fit(int with_b200, wc_capacity_fit_result *r)
{
	wc_capacity_data d = WC_CAPACITY_DATA_INIT;
	wc_capacity_fit_options o = WC_CAPACITY_FIT_OPTIONS_INIT;
	wc_error err;
	o.robust = 0;
	add_rows(&d, "A100", &fast);
	add_lone_row(&d);
	if (with_b200)
		add_rows(&d, "B200", &engine);
	CHECK_INT(wc_fit_capacity(&d, &o, r, &err), WC_OK);
	printf("%s B200:\n", with_b200 ? "with" : "without");
	for (int i = 0; i < r->n_warnings; i++)
		printf("  warning: %s\n", r->warnings[i]);
	/* the premise: H100's rows do not identify its t0 */
	CHECK_INT(wc_capacity_fit_named_unidentified(r, "t0[H100]"), 1);
	wc_capacity_data_clear(&d);
}

int
main(void)
{
	gsl_set_error_handler_off();
	wc_capacity_fit_result r;

	/* no level identifies t0 but A100's own: nothing to borrow */
	fit(0, &r);
	const wc_capacity_level *a100 = wc_capacity_level_find(&r.params, "A100");
	CHECK(a100 != NULL);
	if (a100) {
		printf("  t0[A100] = %.6g s (%s)\n", a100->p[WC_CAP_T0].value, wc_source_name(a100->p[WC_CAP_T0].source));
		CHECK_INT(a100->p[WC_CAP_T0].source, WC_SRC_BOUND);
		CHECK(a100->p[WC_CAP_T0].value < 2e-6);
	}
	CHECK(!has_warning(&r, "the edge of its domain; held at ")); /* a median hold; tau_ep is "held at tau" */
	CHECK(has_warning(&r, "t0[A100]: its rows ran it to 1 us, the edge of its domain; not held: no other level's "
	                      "rows identify t0 (not H100: its rows do not identify it), so it stays at the bound"));
	for (int i = 0; i < r.n_warnings; i++)
		CHECK(strlen(r.warnings[i]) <= 255 && !strstr(r.warnings[i], "..."));
	wc_capacity_fit_result_clear(&r);

	/* B200 identifies t0 at 5 ms: the one source */
	fit(1, &r);
	a100 = wc_capacity_level_find(&r.params, "A100");
	const wc_capacity_level *b200 = wc_capacity_level_find(&r.params, "B200");
	CHECK(a100 && b200);
	if (a100 && b200) {
		printf("  t0[A100] = %.6g s (%s), t0[B200] = %.6g s\n", a100->p[WC_CAP_T0].value,
		       wc_source_name(a100->p[WC_CAP_T0].source), b200->p[WC_CAP_T0].value);
		CHECK_INT(a100->p[WC_CAP_T0].source, WC_SRC_ASSUMED);
		CHECK_NEAR(a100->p[WC_CAP_T0].value / engine.t0, 1.0, 1e-2);
	}
	CHECK(has_warning(&r, "t0[A100]: its rows ran it to 1 us, the edge of its domain; held at 5 ms, the median of "
	                      "t0 on B200 (not H100: its rows do not identify it), and the fit solved again without it "
	                      "(source \"assumed\")"));
	wc_capacity_fit_result_clear(&r);
	return check_report("test_capacity_hold_unidentified");
}
