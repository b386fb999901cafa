/*
 * The law never decreases with load (docs/inference-law.md, "Below one
 * running request"): for every form, for the
 * published profile, for 100 bootstrap draws of a fit of each form, and
 * for random parameter sets whose load term turns around inside the
 * range (negative gamma1 or gamma2), predicted power is non-decreasing on
 * a fine grid of n in [0, 256], and continuous at n = 1 (the duty-cycle
 * mix below one request meets the law at one request).
 */
#include "fit/fit.h"
#include "tests/support/check.h"
#include "validation/validation.h"

#include <gsl/gsl_errno.h>
#include <stdlib.h>

#define GRID 400

static double grid[GRID];

static void
make_grid(void)
{
	int k = 0;
	grid[k++] = 0.0;
	for (int i = 0; i < 120; i++) /* 1e-4 .. 0.999 */
		grid[k++] = 1e-4 * pow(0.999 / 1e-4, i / 119.0);
	grid[k++] = 1.0 - 1e-9;
	grid[k++] = 1.0;
	grid[k++] = 1.0 + 1e-9;
	while (k < GRID) /* 1 .. 256, geometric */
		grid[k] = pow(256.0, (double)(k - 123) / (GRID - 124)), k++;
}

/* Checks one set on every level, for a few sizes and TP degrees; returns
 * the number of violations (also counted as failed checks). */
static int
check_monotone(const wc_params *p, const char *what)
{
	static const double sizes[3] = { 0.6, 8.19, 70.6 };
	static const int tps[2] = { 1, 4 };
	int bad = 0;
	for (int l = 0; l < p->n_levels; l++)
		for (int s = 0; s < 3; s++)
			for (int t = 0; t < 2; t++) {
				wc_config c = WC_CONFIG_INIT;
				wc_power pw;
				double prev = -INFINITY, at1 = NAN;
				c.platform = p->levels[l].name;
				c.active_params_b = sizes[s];
				c.tp = tps[t];
				c.sm_clock_mhz = p->levels[l].s_shared_with[0] ? 1500 : 0;
				for (int k = 0; k < GRID; k++) {
					c.running = grid[k];
					if (wc_law_power(p, &c, &pw, NULL) != WC_OK)
						continue; /* a drawn set may overflow: no value, no order */
					double v = pw.node_power_w;
					if (v < prev - 1e-9 * fabs(prev)) {
						if (bad++ == 0)
							fprintf(stderr, "%s: %s %s N=%g tp=%d: P(%g) = %.9g < P(%g) = %.9g\n",
							        what, wc_form_name(p->form), c.platform, sizes[s], tps[t],
							        grid[k], v, grid[k - 1], prev);
					}
					if (grid[k] == 1.0)
						at1 = v;
					prev = v;
				}
				/* continuity at n = 1, from both sides */
				c.running = 1.0 - 1e-9;
				if (isfinite(at1) && wc_law_power(p, &c, &pw, NULL) == WC_OK)
					CHECK_NEAR(pw.node_power_w, at1, 1e-6 * (1 + at1));
				c.running = 1.0 + 1e-9;
				if (isfinite(at1) && wc_law_power(p, &c, &pw, NULL) == WC_OK)
					CHECK_NEAR(pw.node_power_w, at1, 1e-6 * (1 + at1));
			}
	CHECK(bad == 0);
	return bad;
}

/* The profile recast as `form` (its load slopes kept; a floor when the
 * form has one). */
static void
profile_as(wc_form form, wc_params *p)
{
	wc_params_default(p);
	p->form = form;
	for (int i = 0; i < p->n_levels; i++)
		p->levels[i].floor_logit.value = -1.0;
}

/* Bootstrap draws of a fit of `form` on a simulated table, checked one by
 * one. */
static void
check_fitted_draws(const wc_params *paper, const wc_runs_table *t, wc_form form)
{
	wc_fit_options fo = WC_FIT_OPTIONS_INIT;
	wc_bootstrap_options bo = { 100, 17, 2 };
	wc_fit_result r;
	wc_error err;
	fo.form = form;
	fo.prior = paper;
	if (wc_fit_inference_law(t, &fo, &r, &err) != WC_OK) {
		fprintf(stderr, "fit of %s: %s\n", wc_form_name(form), err.msg);
		CHECK(0);
		return;
	}
	check_monotone(&r.params, "fitted point");
	if (wc_fit_bootstrap(t, &fo, &bo, &r, &err) == WC_OK) {
		wc_params d = WC_PARAMS_INIT;
		int bad = 0;
		CHECK(r.params.n_draws >= 50);
		wc_params_copy(&d, &r.params, NULL);
		for (int k = 0; k < r.params.n_draws && bad == 0; k++) {
			for (int j = 0; j < r.params.n_draw_params; j++)
				wc_params_set_named(&d, r.params.draw_names[j],
				                    r.params.draws[(size_t)k * r.params.n_draw_params + j]);
			bad += check_monotone(&d, "bootstrap draw");
		}
		wc_params_clear(&d);
	}
	wc_fit_result_clear(&r);
}

int
main(void)
{
	wc_params paper = WC_PARAMS_INIT, p = WC_PARAMS_INIT;
	wc_simulate_options so = WC_SIMULATE_OPTIONS_INIT;
	wc_runs_table *t = NULL;
	wc_error err;
	wc_pcg32 rng;
	gsl_set_error_handler_off();
	make_grid();
	wc_params_default(&paper);
	check_monotone(&paper, "published profile");
	for (int f = 0; f < WC_FORM_COUNT; f++) {
		profile_as((wc_form)f, &p);
		check_monotone(&p, "profile as form");
	}

	/* Random load slopes, many of them turning around inside [1, 256]. */
	wc_pcg32_seed(&rng, 2026, 13);
	for (int k = 0; k < 100; k++) {
		profile_as((wc_form)(k % WC_FORM_COUNT), &p);
		p.gamma1.value = -2.0 + 4.0 * wc_pcg32_uniform(&rng);
		p.gamma2.value = -1.0 + 2.0 * wc_pcg32_uniform(&rng);
		p.delta.value = 2.0 * wc_pcg32_uniform(&rng);
		check_monotone(&p, "random slopes");
	}

	/* Fitted sets: a fit of each form and 100 bootstrap draws of it. */
	CHECK_INT(wc_simulate_inference(&paper, &so, &t, &err), WC_OK);
	for (int f = 0; f < WC_FORM_COUNT; f++)
		if (f != WC_FORM_FLOOR_PLUS_RISE) /* no floor in these data: it diverges */
			check_fitted_draws(&paper, t, (wc_form)f);
	wc_runs_free(t);
	wc_params_clear(&paper);
	wc_params_clear(&p);
	return check_report("test_law_monotone");
}
