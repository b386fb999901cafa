/*
 * Calibrating the fine-tuning law from one or a few runs (docs/finetune.md,
 * "Calibrating from one run"): keep the base law's shape and estimate the
 * one number a single run can identify --
 *   scale: E_step = s (m e0 + kappa F), e0 and kappa scaled together;
 *   kappa: E_step = m e0 + kappa' F, e0 held at the base's value;
 * each by least squares on log residuals -- the scatter model the
 * replicates draw from (a run is the law times exp(sigma eps)), so the
 * estimate is that model's maximum likelihood and its replicates centre on
 * it (least squares on relative residuals is biased low by about
 * 1.5 sigma^2 under that scatter). Replicate r of the draws takes base draw r (cycled;
 * the point law when the base has none) and each run's energy times
 * exp(sigma eps), eps standard normal from PCG32 stream (seed, r) -- the
 * inference calibration's rule (docs/calibration.md) -- so results are
 * bit-identical for a seed.
 */
#include "finetune_fit_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/error.h"
#include "models/warnings.h"
#include "models/interval.h"
#include "models/pcg32.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_roots.h>

/* Run scatter assumed when neither the user nor the base gives one (the
 * inference calibration's default, docs/calibration.md). */
#define ASSUMED_SCATTER 0.1
/* A factor outside [1/2, 2] is worth a warning: the base described
 * another stack or platform. A choice of wattcast. */
#define FACTOR_WARN 2.0

/* The runs, prepared once: F, the e0 multiplier and E of each. */
typedef struct {
	int n;
	double *F, *m, *E, *e;   /* e: the energies of one replicate */
	int n_below;             /* runs measured at or below the base's fixed energy */
	char below_id[96];       /* the first such */
	double below_E, below_fixed;
} cal_runs;

/* kappa mode's normal equation: d/dkappa of sum (log fit - log E)^2 / 2,
 * fit = wc_ft_step_energy = m e0 + kappa F, whose derivative in kappa is
 * F. */
typedef struct {
	const cal_runs *c;
	const double *E;
	double e0;
} kappa_problem;

static double
kappa_gradient(double kappa, void *arg)
{
	const kappa_problem *k = arg;
	double g = 0.0;
	for (int i = 0; i < k->c->n; i++) {
		double fit = wc_ft_step_energy(k->e0, kappa, k->c->m[i], k->c->F[i]);
		g += (log(fit) - log(k->E[i])) * k->c->F[i] / fit;
	}
	return g;
}

/* kappa' with e0 held: the root of the gradient, bracketed by the kappas
 * that fit the runs one at a time (below the smallest every residual is
 * negative, above the largest every one positive) and kept where every fit
 * is positive; GSL's Brent solver. NaN when no kappa > 0 fits. */
static double
solve_kappa(const cal_runs *c, const double *E, double e0)
{
	double lo = INFINITY, hi = -INFINITY, floor_k = 0.0;
	for (int i = 0; i < c->n; i++) {
		double k = (E[i] - c->m[i] * e0) / c->F[i];
		lo = fmin(lo, k);
		hi = fmax(hi, k);
		floor_k = fmax(floor_k, -c->m[i] * e0 / c->F[i]); /* fits > 0 above it */
	}
	if (!(hi > 0) || !(hi > floor_k))
		return NAN;
	if (!(lo > floor_k))
		lo = floor_k + (hi - floor_k) * 1e-12;
	kappa_problem kp = { c, E, e0 };
	if (!(hi > lo) || kappa_gradient(lo, &kp) >= 0)
		return lo;
	if (kappa_gradient(hi, &kp) <= 0)
		return hi;
	gsl_function fn = { kappa_gradient, &kp };
	gsl_root_fsolver *s = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
	double root = NAN;
	if (s && gsl_root_fsolver_set(s, &fn, lo, hi) == GSL_SUCCESS)
		for (int it = 0; it < 200; it++) {
			if (gsl_root_fsolver_iterate(s) != GSL_SUCCESS)
				break;
			root = gsl_root_fsolver_root(s);
			if (gsl_root_test_interval(gsl_root_fsolver_x_lower(s), gsl_root_fsolver_x_upper(s), 0, 1e-13) ==
			    GSL_SUCCESS)
				break;
		}
	gsl_root_fsolver_free(s);
	return root;
}

/* How far off the law (e0, kappa) is on energies `E`: exp of the mean
 * log ratio E_i / L_i, the one factor that minimises sum (log E - log
 * s L)^2 -- scale mode's coefficient, and in either mode the base's error
 * the report warns of (docs/finetune.md, "Calibrating from one run").
 * NaN when the law gives a run no energy. */
static double
law_ratio(const cal_runs *c, const double *E, double e0, double kappa)
{
	double sum = 0.0;
	for (int i = 0; i < c->n; i++) {
		double L = wc_ft_step_energy(e0, kappa, c->m[i], c->F[i]);
		if (!(L > 0) || !(E[i] > 0))
			return NAN;
		sum += log(E[i] / L);
	}
	return exp(sum / c->n);
}

/* The coefficient of `mode` for energies `E` under the law (e0, kappa):
 * the scale s (closed form, law_ratio), or kappa' with e0 held. Minimises
 * sum (log E - log fit)^2; NaN when the law gives a run no energy. */
static double
solve(wc_ft_cal_mode mode, const cal_runs *c, const double *E, double e0, double kappa)
{
	return mode == WC_FT_CAL_KAPPA ? solve_kappa(c, E, e0) : law_ratio(c, E, e0, kappa);
}

/* (e0, kappa) of the calibrated law from the coefficient. */
static void
law_of(wc_ft_cal_mode mode, double coef, double e0, double kappa, double *out)
{
	out[0] = mode == WC_FT_CAL_SCALE ? coef * e0 : e0;
	out[1] = mode == WC_FT_CAL_SCALE ? coef * kappa : coef;
}

/* sd of the log residuals of the point calibration, one coefficient
 * spent (n - 1 dof); NaN with one run. */
static double
own_scatter(const cal_runs *c, const double *law)
{
	double ss = 0.0;
	if (c->n < 2)
		return NAN;
	for (int i = 0; i < c->n; i++) {
		double r = log(c->E[i] / wc_ft_step_energy(law[0], law[1], c->m[i], c->F[i]));
		ss += r * r;
	}
	return sqrt(ss / (c->n - 1));
}

static void
cal_runs_free(cal_runs *c)
{
	free(c->F);
	free(c->m);
	free(c->E);
	free(c->e);
	memset(c, 0, sizeof *c);
}

/* The runs `o->use` keeps, with their facts; the section's calibration
 * facts (platforms, methods, ranges) from the same runs. */
static int
prepare(const wc_finetune_params *base, const wc_ft_table *t, const wc_ft_calibrate_options *o,
        cal_runs *c, wc_ft_calibrate_result *out, wc_error *err)
{
	wc__ft_design d;
	int rc = wc__ft_compute_design(t, o->use, &d, err);
	memset(c, 0, sizeof *c);
	if (rc != WC_OK)
		return rc;
	if (d.n == 0) {
		wc__ft_design_free(&d);
		return wc_error_set(err, WC_EINVAL, "calibrate finetune: no run to calibrate on (every row is "
		                    "excluded or refused)");
	}
	size_t n = (size_t)d.n;
	c->F = wc_alloc_array(n, sizeof *c->F);
	c->m = wc_alloc_array(n, sizeof *c->m);
	c->E = wc_alloc_array(n, sizeof *c->E);
	c->e = wc_alloc_array(n, sizeof *c->e);
	if (!c->F || !c->m || !c->E || !c->e) {
		wc__ft_design_free(&d);
		cal_runs_free(c);
		return wc_error_set(err, WC_ENOMEM, "calibrate finetune: out of memory");
	}
	c->n = d.n;
	for (int i = 0; i < d.n; i++) {
		const wc_ft_run *run = &t->runs[d.row[i]];
		c->F[i] = d.X[2 * i + 1];
		c->m[i] = wc_ft_e0_multiplier(base->e0_scope, run->config.gpus);
		c->E[i] = d.y[i];
		if (c->m[i] * base->e0.value >= c->E[i] && c->n_below++ == 0) {
			snprintf(c->below_id, sizeof c->below_id, "%s", run->run_id);
			c->below_E = c->E[i];
			c->below_fixed = c->m[i] * base->e0.value;
		}
		if (i < WC_FT_CAL_RUNS_SHOWN) {
			wc_ft_calibrate_run *s = &out->shown[out->n_shown++];
			snprintf(s->run_id, sizeof s->run_id, "%s", run->run_id);
			s->measured_j = c->E[i];
			s->base_j = wc_ft_step_energy(base->e0.value, base->kappa.value, c->m[i], c->F[i]);
		}
	}
	wc__ft_section_facts(t, &d, &out->section);
	wc__ft_design_free(&d);
	return WC_OK;
}

/* sigma: the user's, else the base's, else assumed; raised to the runs'
 * own when they say more. */
static void
choose_scatter(const wc_finetune_params *base, const wc_ft_calibrate_options *o, const cal_runs *c,
               const double *law, wc_ft_calibrate_result *out)
{
	double own = own_scatter(c, law);
	if (o->run_scatter > 0) {
		out->run_scatter = o->run_scatter;
		snprintf(out->scatter_source, sizeof out->scatter_source, "--run-scatter");
		return;
	}
	const int has_base = isfinite(base->residual_rms) && base->residual_rms > 0;
	out->run_scatter = has_base ? base->residual_rms : ASSUMED_SCATTER;
	snprintf(out->scatter_source, sizeof out->scatter_source, "%s",
	         has_base ? "the base law's residual RMS" : "assumed");
	if (isfinite(own) && own > out->run_scatter) {
		out->run_scatter = own;
		snprintf(out->scatter_source, sizeof out->scatter_source, "the runs' own residual RMS");
	} else if (!has_base) {
		/* Only when the assumption is the one used: beside the runs' own
		 * 0.162 in the header, "0.1 assumed" contradicted it. */
		WC_WARN(out, "run_scatter: the base records no residual RMS; %.2g assumed for the scatter of "
		        "one run (give --run-scatter)", ASSUMED_SCATTER);
	}
}

/* The 95 % interval of column j of `rows` (models/interval.h: contains
 * the estimate, never zero-width; NaN when the draws cannot give one). */
static void
set_interval(wc_param *p, const double *rows, int stride, int j, int n, double *col)
{
	for (int r = 0; r < n; r++)
		col[r] = rows[(size_t)r * stride + j];
	wc_interval_from_draws(col, (size_t)n, p->value, &p->lo, &p->hi);
}

/* Replicates: rows of (e0, kappa, coefficient). */
static int
replicate(const wc_finetune_params *base, const wc_ft_calibrate_options *o, cal_runs *c, int B,
          wc_ft_calibrate_result *out, wc_error *err)
{
	static const char names[2][WC_LABEL_MAX] = { WC_FT_DRAW_E0, WC_FT_DRAW_KAPPA };
	double *rows = wc_alloc_array((size_t)B, 3 * sizeof *rows);
	double *col = wc_alloc_array((size_t)B, sizeof *col);
	int col_e0 = wc_draws_column(&base->draws, WC_FT_DRAW_E0);
	int col_k = wc_draws_column(&base->draws, WC_FT_DRAW_KAPPA);
	int kept = 0, rc = WC_OK;
	if (!rows || !col) {
		rc = wc_error_set(err, WC_ENOMEM, "calibrate finetune: out of memory");
		goto done;
	}
	for (int r = 0; r < B; r++) {
		double e0 = base->e0.value, kappa = base->kappa.value;
		if (base->draws.n > 0 && col_e0 >= 0 && col_k >= 0) {
			const double *d = wc_draws_row(&base->draws, r % base->draws.n);
			e0 = d[col_e0];
			kappa = d[col_k];
		}
		wc_pcg32 rng;
		wc_pcg32_seed(&rng, o->seed, (uint64_t)r);
		for (int i = 0; i < c->n; i++)
			c->e[i] = c->E[i] * exp(out->run_scatter * wc_pcg32_normal(&rng));
		double coef = solve(o->mode, c, c->e, e0, kappa), *row = rows + 3 * (size_t)kept;
		if (!(coef > 0) || !isfinite(coef))
			continue; /* kappa mode: the held e0 left nothing for the FLOPs */
		law_of(o->mode, coef, e0, kappa, row);
		row[2] = o->mode == WC_FT_CAL_SCALE ? coef : coef / kappa;
		kept++;
	}
	out->failed = B - kept;
	if (kept < 2) {
		rc = wc_error_set(err, WC_ENOCONV, "calibrate finetune: only %d of %d replicates gave kappa > 0",
		                  kept, B);
		goto done;
	}
	wc_finetune_params *s = &out->section;
	/* A held e0 keeps the base's interval (none for a published one): its
	 * replicates are the base's draws, or one value repeated. */
	if (o->mode == WC_FT_CAL_SCALE)
		set_interval(&s->e0, rows, 3, 0, kept, col);
	set_interval(&s->kappa, rows, 3, 1, kept, col);
	set_interval(&s->calibrated.factor, rows, 3, 2, kept, col);
	for (int r = 0; r < kept; r++) /* pack (e0, kappa) pairs for the draws */
		memmove(rows + 2 * (size_t)r, rows + 3 * (size_t)r, 2 * sizeof *rows);
	rc = wc_draws_set(&s->draws, kept, 2, names, rows, err);
done:
	free(rows);
	free(col);
	return rc;
}

/* Warnings on what the calibration changed. */
static void
report(const wc_finetune_params *base, const wc_ft_calibrate_options *o, int B,
       wc_ft_calibrate_result *out)
{
	const wc_finetune_params *s = &out->section;
	/* The base's own error on the runs, in both modes: kappa mode's
	 * factor is kappa'/kappa, not the base's error (a base 1.42x high
	 * read as 2.94x, 1/0.34, when e0 held took most of the energy). */
	double f = out->base_ratio;
	if (f > FACTOR_WARN || f < 1.0 / FACTOR_WARN) {
		/* A fitted base records no stack: "(H200, )" named none. What is
		 * kept is the mode's (docs/finetune.md, "Calibrating from one
		 * run"): scale keeps the shape, kappa holds e0 and refits kappa.
		 * The stack gets the room the rest leaves, whole when it fits
		 * (the built-in's 62 bytes do), else ending "..." at a character:
		 * a %.48s ended it mid-word, "eager attentio". */
#define OFF_FMT "%s: the base law was off by a factor %.3g on these runs, and only %s: the base (%s%s%s) " \
                "describes another platform, method or stack"
		const char *mode = wc_ft_cal_mode_name(o->mode), *sep = base->stack[0] ? ", " : "";
		const char *kept = o->mode == WC_FT_CAL_SCALE ? "its shape is kept (e0:kappa)" : "its e0 is kept (kappa refitted)";
		int fixed = snprintf(NULL, 0, OFF_FMT, mode, 1.0 / f, kept, base->platform, sep, "");
		char stack[sizeof base->stack];
		wc_error_name_cut(base->stack, fixed >= 0 && fixed < WC_WARNING_LEN - 1 ? WC_WARNING_LEN - 1 - (size_t)fixed : 0,
		                  stack, sizeof stack);
		WC_WARN(out, OFF_FMT, mode, 1.0 / f, kept, base->platform, sep, stack);
#undef OFF_FMT
	}
	if (strchr(s->platform, '+'))
		WC_WARN(out, "calibration: runs from several platforms (%s) share one factor", s->platform);
	char list[32];
	if (wc_ft_methods_join(s->methods, "+", list, sizeof list) > 1)
		WC_WARN(out, "calibration: runs of several methods (%s) share one factor; energy per token differs "
		        "several-fold between methods", list);
	if (B > 0 && base->draws.n == 0)
		WC_WARN(out, "interval: the base has no bootstrap draws; the interval covers the runs' scatter only");
	if (out->failed > 0)
		WC_WARN(out, "kappa: %d of %d replicates gave kappa <= 0 (the held e0 took all their energy) "
		        "and were left out", out->failed, B);
	if (out->n_runs > WC_FT_CAL_RUNS_SHOWN)
		WC_WARN(out, "runs: %d used, the first %d shown", out->n_runs, WC_FT_CAL_RUNS_SHOWN);
}

int
wc_ft_calibrate(const wc_finetune_params *base, const wc_ft_table *t, const wc_ft_calibrate_options *o,
                wc_ft_calibrate_result *out, wc_error *err)
{
	cal_runs c;
	double law[2];
	int rc;
	memset(out, 0, sizeof *out);
	if (!base->present)
		return wc_error_set(err, WC_EINVAL, "finetune: the base parameter set has no fine-tuning law");
	if ((rc = wc_finetune_params_copy(&out->section, base, err)) != WC_OK)
		return rc;
	if ((rc = prepare(base, t, o, &c, out, err)) != WC_OK)
		return rc;
	out->n_runs = c.n;
	/* No kappa >= 0 matches a run at or below the held fixed energy
	 * (docs/finetune.md, "Calibrating from one run"): refused before
	 * solving, as the log-residual estimator finds a root regardless,
	 * pulled low by the run no kappa fits. */
	if (o->mode == WC_FT_CAL_KAPPA && c.n_below > 0) {
		rc = wc_error_set(err, WC_EINVAL, "kappa: %.64s measured %.6g J per step, not above the %.6g J of "
		                  "fixed energy e0 held at the base's (%d run%s so); use --mode scale", c.below_id,
		                  c.below_E, c.below_fixed, c.n_below, c.n_below == 1 ? "" : "s");
		goto done;
	}
	double coef = solve(o->mode, &c, c.E, base->e0.value, base->kappa.value);
	if (o->mode == WC_FT_CAL_SCALE && (!(coef > 0) || !isfinite(coef))) {
		rc = wc_error_set(err, WC_EINVAL, "scale: the base law (e0 %g J, kappa %g J/TFLOP) gives no "
		                  "usable energy for these runs", base->e0.value, base->kappa.value);
		goto done;
	}
	if (!(coef > 0) || !isfinite(coef)) {
		rc = wc_error_set(err, WC_EINVAL,
		                  "kappa: with e0 held at the base's %.6g J%s, the runs leave no energy for the "
		                  "FLOPs (first run measured %.6g J against %.6g J of fixed energy); use --mode scale",
		                  base->e0.value, base->e0_scope == WC_FT_E0_PER_GPU ? " per GPU" : "", c.E[0],
		                  c.m[0] * base->e0.value);
		goto done;
	}
	out->base_ratio = law_ratio(&c, c.E, base->e0.value, base->kappa.value);
	law_of(o->mode, coef, base->e0.value, base->kappa.value, law);
	choose_scatter(base, o, &c, law, out);
	/* Replicate r takes the base's draw r and its residual RMS
	 * (docs/finetune.md, "Interval"): a base fitted on 3 or 4 runs passes
	 * on its too narrow draws, which its fit and its predictions said. */
	if (base->kappa.source == WC_SRC_FITTED && base->runs > 0 && base->runs - 2 < WC_FT_BOOT_MIN_DOF &&
	    base->draws.n > 0)
		WC_WARN(out, "interval_95: the base law was fitted on %d runs (%d degree%s of freedom) and its draws "
		        "make this calibration's intervals; such intervals held the truth in 70-90 %% of synthetic "
		        "fits, not 95 %%: too narrow", base->runs, base->runs - 2, base->runs == 3 ? "" : "s");
	wc_finetune_params *s = &out->section;
	s->e0 = (wc_param){ law[0], NAN, NAN, WC_SRC_CALIBRATED };
	s->kappa = (wc_param){ law[1], NAN, NAN, WC_SRC_CALIBRATED };
	/* In kappa mode e0 is the base's: say so by its source. */
	if (o->mode == WC_FT_CAL_KAPPA)
		s->e0 = base->e0;
	s->e0_se = s->kappa_se = s->r2 = NAN;
	s->residual_rms = out->run_scatter;
	s->runs = c.n;
	s->stack[0] = '\0';
	snprintf(s->input_sha256, sizeof s->input_sha256, "%s", t->sha256);
	s->seed = o->seed;
	/* The relations describe the base's sweeps, not the calibration's
	 * stack: a calibrated law carries none. */
	for (int k = 0; k < WC_FT_REL_COUNT; k++)
		memset(&s->relations[k], 0, sizeof s->relations[k]);
	wc_draws_clear(&s->draws);
	s->calibrated = (wc_ft_calibrated){ .present = 1, .mode = o->mode, .runs = c.n,
	                                    .run_scatter = out->run_scatter };
	s->calibrated.factor = (wc_param){ o->mode == WC_FT_CAL_SCALE ? coef : coef / base->kappa.value,
	                                   NAN, NAN, WC_SRC_CALIBRATED };
	/* The runs' fixed share under the calibrated law, as fit finetune
	 * records its own (docs/finetune.md, "Predicting"). */
	wc__ft_fixed_share_span(c.m, c.F, 1, c.n, law[0], law[1], &s->ranges.fixed_share);
	for (int i = 0; i < out->n_shown; i++)
		out->shown[i].calibrated_j = wc_ft_step_energy(law[0], law[1], c.m[i], c.F[i]);
	int B = o->replicates < 0 ? 0 : o->replicates > 0 ? o->replicates
	        : base->draws.n > 0 ? base->draws.n : 1000;
	out->replicates = B;
	s->bootstrap = B;
	if (B >= 2 && (rc = replicate(base, o, &c, B, out, err)) != WC_OK)
		goto done;
	report(base, o, B, out);
done:
	cal_runs_free(&c);
	return rc;
}

void
wc_ft_calibrate_result_clear(wc_ft_calibrate_result *r)
{
	wc_finetune_params_clear(&r->section);
	memset(r, 0, sizeof *r);
}
