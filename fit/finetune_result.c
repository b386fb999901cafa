/*
 * `wattcast fit finetune` (docs/finetune.md, "Fitting"): the compute law
 * on every usable run, each relation on the table's largest sweep of its
 * factor, the calibrated ranges, and the bootstrap -- assembled into the
 * parameter file's fine-tuning section.
 */
#include "finetune_fit_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "models/interval.h"
#include "models/warnings.h"

/* value with the 95 % t interval of models/interval.h (n - p dof); none
 * when the fit is exact (docs/intervals.md). */
static wc_param
fitted(double v, double se, int dof)
{
	wc_param p = { v, NAN, NAN, WC_SRC_FITTED };
	wc_interval_t(v, se, dof, &p.lo, &p.hi);
	return p;
}

static void
widen(wc_ft_span *s, double v)
{
	if (!isfinite(v))
		return;
	s->lo = isnan(s->lo) ? v : fmin(s->lo, v);
	s->hi = isnan(s->hi) ? v : fmax(s->hi, v);
}

void
wc__ft_fixed_share_span(const double *m, const double *F, size_t stride, int n, double e0, double kappa,
                        wc_ft_span *out)
{
	out->lo = out->hi = NAN;
	for (int i = 0; i < n; i++)
		widen(out, wc_ft_fixed_share(e0, kappa, m[(size_t)i * stride], F[(size_t)i * stride]));
}

void
wc__ft_section_facts(const wc_ft_table *t, const wc__ft_design *d, wc_finetune_params *s)
{
	s->platform[0] = '\0';
	s->methods = 0;
	wc_ft_ranges_unknown(&s->ranges);
	for (int i = 0; i < d->n; i++) {
		const wc_ft_run *run = &t->runs[d->row[i]];
		const wc_ft_config *c = &run->config;
		s->methods |= 1u << c->method;
		widen(&s->ranges.micro_batch, c->micro_batch);
		widen(&s->ranges.seq_len, c->seq_len);
		widen(&s->ranges.params_b, c->params_b);
		widen(&s->ranges.gpus, c->gpus);
		if (c->method != WC_FT_FULL)
			widen(&s->ranges.lora_rank, c->lora_rank);
		widen(&s->ranges.flops_tflop, d->X[2 * i + 1]);
		/* Platforms joined with '+', each once. */
		size_t len = strlen(run->platform);
		const char *at = strstr(s->platform, run->platform);
		int listed = at && (at == s->platform || at[-1] == '+') && (at[len] == '\0' || at[len] == '+');
		if (!listed && strlen(s->platform) + len + 2 <= sizeof s->platform)
			snprintf(s->platform + strlen(s->platform), sizeof s->platform - strlen(s->platform),
			         "%s%s", s->platform[0] ? "+" : "", run->platform);
	}
}

static void
calibration(const wc_ft_table *t, const wc__ft_design *d, wc_ft_fit_result *r)
{
	wc__ft_section_facts(t, d, &r->section);
	if (strchr(r->section.platform, '+'))
		WC_WARN(r, "calibration: runs from several platforms (%s) are fitted as one law", r->section.platform);
	/* As docs/finetune.md, "Limits", promises: energy per token differs
	 * several-fold between methods and stacks, and one law over full and
	 * LoRA runs fitted R^2 0.91 with a 26 % median held-out error. */
	char list[32];
	if (wc_ft_methods_join(r->section.methods, "+", list, sizeof list) > 1)
		WC_WARN(r, "calibration: runs of several methods (%s) are fitted as one law; energy per token differs "
		        "several-fold between methods: fit one law per method", list);
}

/* Each relation on the largest sweep of its factor. */
static void
relations(const wc_ft_table *t, wc_ft_fit_result *r)
{
	for (int k = 0; k < WC_FT_REL_COUNT; k++) {
		wc_ft_relation_kind kind = (wc_ft_relation_kind)k;
		int best = wc_ft_sweeps_best(&r->sweeps, kind);
		wc_error e;
		if (best < 0) {
			WC_WARN(r, "%s: no sweep of %s in the table (runs that differ only in it); not fitted",
			        wc_ft_relation_name(kind), wc_ft_relation_factor(kind));
			continue;
		}
		const wc_ft_sweep *s = &r->sweeps.sweeps[best];
		wc_ft_linear_fit *f = &r->relation[k];
		if (wc_ft_fit_relation(t, kind, s->rows, s->n_rows, f, &e) != WC_OK) {
			WC_WARN(r, "%s", e.msg);
			continue;
		}
		r->has_relation[k] = 1;
		wc_ft_relation *rel = &r->section.relations[k];
		rel->present = 1;
		for (int j = 0; j < 3; j++)
			rel->coef[j] = j < f->terms ? fitted(f->coef[j], f->se[j], f->n - f->terms)
			                            : (wc_param){ NAN, NAN, NAN, WC_SRC_ASSUMED };
		rel->r2 = f->r2;
		rel->runs = f->n;
		rel->levels = f->levels;
		rel->x.lo = f->x_lo;
		rel->x.hi = f->x_hi;
		rel->has_base = 1;
		rel->base = s->base;
		/* The share its runs filled, kept apart from the first run's
		 * tokens per step: the file records it (schema 15), and a query is
		 * on the sweep only at that share (docs/finetune.md). */
		rel->fill = wc_ft_step_fill(&s->base);
		rel->base.tokens_per_step = NAN;
	}
}

/* A law that says nothing is refused rather than written as fitted
 * (docs/finetune.md, "Fitting"): energies that do not vary leave R^2
 * undefined and kappa 0, and a kappa <= 0 says energy does not grow with
 * compute -- the runs measure something else (a save-dominated step, a
 * mislabelled configuration). */
static int
refuse_degenerate(const wc__ft_design *d, const wc_ft_linear_fit *f, wc_error *err)
{
	/* Judged on the energies themselves, not on R^2: with e0 per GPU the
	 * law has no intercept, and equal energies over runs of several G
	 * gave R^2 0.9375 and kappa 6e-18 -- zero to rounding, "fitted" */
	int equal = 1;
	double y_max = 0.0;
	for (int i = 0; i < d->n; i++) {
		equal &= d->y[i] == d->y[0];
		y_max = fmax(y_max, fabs(d->y[i]));
	}
	if (equal || !isfinite(f->r2))
		return wc_error_set(err, WC_EINVAL,
		                    "compute law: every one of the %d runs has the same energy per step "
		                    "(%.6g J); E_step does not vary with F_step (%.4g-%.4g TFLOP), so kappa "
		                    "cannot be estimated -- give runs whose measured energies differ",
		                    d->n, d->y[0], f->x_lo, f->x_hi);
	if (!(f->coef[1] * f->x_hi > 1e-9 * y_max))
		return wc_error_set(err, WC_EINVAL,
		                    "compute law: kappa fitted %.4g J/TFLOP, not > 0 (beyond rounding): energy per step does "
		                    "not grow with the compute of the step on these %d runs (F %.4g-%.4g "
		                    "TFLOP); check the runs' configurations and energies",
		                    f->coef[1], d->n, f->x_lo, f->x_hi);
	return WC_OK;
}

int
wc_fit_finetune(const wc_ft_table *t, const wc_bootstrap_options *bo, wc_ft_fit_result *out,
                wc_error *err)
{
	wc__ft_design d;
	int rc;
	memset(out, 0, sizeof *out);
	if ((rc = wc__ft_compute_design(t, NULL, &d, err)) != WC_OK)
		return rc;
	out->n_used = d.n;
	out->n_excluded = (int)t->n_runs - d.n;
	if ((rc = wc__ft_fit_design(&d, 2, &out->compute, err)) != WC_OK)
		goto done;
	if ((rc = refuse_degenerate(&d, &out->compute, err)) != WC_OK)
		goto done;
	wc_finetune_params *s = &out->section;
	s->present = 1;
	s->e0_scope = WC_FT_E0_PER_GPU;
	s->residual_rms = out->compute.rms_rel;
	s->runs = d.n;
	s->e0 = fitted(out->compute.coef[0], out->compute.se[0], d.n - 2);
	s->kappa = fitted(out->compute.coef[1], out->compute.se[1], d.n - 2);
	s->e0_se = out->compute.se[0];
	s->kappa_se = out->compute.se[1];
	s->r2 = out->compute.r2;
	calibration(t, &d, out);
	/* What the e0 warning of a prediction compares with: how much of a
	 * step the fixed term took in the runs fitted (docs/finetune.md,
	 * "Predicting"). The design's first column is G, e0 being per GPU. */
	wc__ft_fixed_share_span(d.X, d.X + 1, 2, d.n, s->e0.value, s->kappa.value, &s->ranges.fixed_share);
	if (s->e0.value < 0)
		WC_WARN(out, "compute law: e0 %.4g J is negative; a step's fixed energy cannot be, so the "
		        "runs do not identify it (extrapolating to small F will mislead)", s->e0.value);
	if (out->compute.r2 < 0.9)
		WC_WARN(out, "compute law: R^2 %.3f; E_step is not linear in F_step on these runs", out->compute.r2);
	if ((rc = wc_ft_find_sweeps(t, NULL, &out->sweeps, err)) != WC_OK)
		goto done;
	relations(t, out);
	/* The bootstrap's percentile intervals replace the t intervals. */
	if (bo && bo->replicates >= 2 &&
	    (rc = wc__ft_bootstrap(&d, &out->compute, bo, s, &out->boot_failed, err)) != WC_OK)
		goto done;
	if (out->boot_failed > 0)
		WC_WARN(out, "bootstrap: %d of %d replicates could not be fitted and were left out: their "
		        "resampled runs do not determine e0 and kappa (runs of one configuration, or of "
		        "proportional G and F); the interval is of the %d others", out->boot_failed,
		        bo->replicates, bo->replicates - out->boot_failed);
	if (bo && bo->replicates >= 2 && d.n - 2 < WC_FT_BOOT_MIN_DOF)
		WC_WARN(out, "bootstrap: %d runs for 2 coefficients (%d degree%s of freedom): resamples of so few runs "
		        "vary too little, and such 95 %% intervals held the true e0 and kappa in 70-90 %% of synthetic "
		        "fits; they are too narrow: give more runs", d.n, d.n - 2, d.n - 2 == 1 ? "" : "s");
	if (s->kappa.lo <= 0)
		WC_WARN(out, "compute law: kappa's 95 %% interval [%.4g, %.4g] reaches 0; the runs' F "
		        "(%.4g-%.4g TFLOP) barely tell energy per FLOP from the fixed energy",
		        s->kappa.lo, s->kappa.hi, out->compute.x_lo, out->compute.x_hi);
done:
	wc__ft_design_free(&d);
	if (rc != WC_OK)
		wc_ft_fit_result_clear(out);
	return rc;
}

void
wc_ft_fit_result_clear(wc_ft_fit_result *r)
{
	wc_finetune_params_clear(&r->section);
	wc_ft_sweeps_clear(&r->sweeps);
	memset(r, 0, sizeof *r);
}
