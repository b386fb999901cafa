/*
 * The structure terms of the joint fit (docs/fitting.md, "Structure
 * terms"): per row the covariates of models/law.h, and which terms enter
 * the parameter vector. A term enters only when the rows can identify it
 * apart from a single model: an indicator that one model alone carries
 * (the only hybrid of a table) would be that model's own offset, which
 * says nothing about another model of the same kind.
 */
#include "fit_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void
wc__fit_law_terms_row(fit_problem *pb, const wc_run *r, size_t k, const wc_capacity_params *cap)
{
	wc_config c;
	wc_run_config(r, &c);
	for (int j = 0; j < WC_LT_COUNT; j++)
		pb->lt_x[k * WC_LT_COUNT + (size_t)j] = wc_law_term_covariate((wc_law_term)j, &c, cap);
}

/* Distinct models (catalog base names) among the rows whose covariate j
 * is not 0, up to 2, with the first one's key in `first`; `varies` says
 * whether the covariate takes more than one value over all rows. */
static int
models_carrying(const fit_problem *pb, const wc_runs_table *t, int j, char *first, size_t cap,
                int *varies)
{
	char key[WC_MODEL_NAME_MAX];
	int n = 0;
	*varies = 0;
	first[0] = '\0';
	for (size_t i = 0; i < pb->n_rows; i++) {
		const double x = pb->lt_x[i * WC_LT_COUNT + (size_t)j];
		*varies |= x != pb->lt_x[(size_t)j];
		if (x == 0.0 || n >= 2)
			continue;
		wc_model_key(t->runs[pb->row[i]].model, key, sizeof key);
		if (n == 0) {
			snprintf(first, cap, "%s", key);
			n = 1;
		} else if (strcmp(key, first) != 0) {
			n = 2;
		}
	}
	return n;
}

void
wc__fit_law_terms_layout(fit_problem *pb, const wc_runs_table *t, const wc_fit_options *opt,
                     const wc_params *prior)
{
	for (int j = 0; j < WC_LT_COUNT; j++) {
		pb->p_lt[j] = -1;
		if (!(opt->law_terms & WC_LT_BIT(j)))
			continue;
		const char *name = wc_law_term_name((wc_law_term)j);
		char first[WC_MODEL_NAME_MAX];
		int varies, models = models_carrying(pb, t, j, first, sizeof first, &varies);
		if (!varies || models == 0) {
			wc__fit_problem_warn(pb, "structure term %s: its covariate does not vary over the runs; not fitted",
			                 name);
			continue;
		}
		if (models < 2) {
			wc__fit_problem_warn(pb, "structure term %s: only one model (%s) identifies it, so it would be "
			                 "that model's own offset; not fitted", name, first);
			continue;
		}
		const double v0 = (prior->law_terms & WC_LT_BIT(j)) && isfinite(prior->law_term[j].value)
		                  ? prior->law_term[j].value : 0.0;
		if (pb->n_params >= FIT_MAX_PARAMS)
			return;
		pb->p_lt[j] = pb->n_params;
		pb->slots[pb->n_params].kind = PK_LAW_TERM;
		pb->slots[pb->n_params].index = j;
		pb->x0[pb->n_params++] = v0;
	}
}

/* Count `count` refusals of term j for reason `why` (the same words add
 * up); past WC_LT_NOTE_REASONS distinct ones they count in refused only. */
static void
note_reason(wc_law_terms_notes *n, int j, const char *why, int count)
{
	n->refused[j] += count;
	for (int k = 0; k < n->n_why[j]; k++)
		if (strcmp(n->why[j][k], why) == 0) {
			n->why_count[j][k] += count;
			return;
		}
	if (n->n_why[j] >= WC_LT_NOTE_REASONS)
		return;
	const int k = n->n_why[j]++;
	snprintf(n->why[j][k], sizeof n->why[j][k], "%s", why);
	n->why_count[j][k] = count;
}

void
wc_fit_law_terms_note(wc_law_terms_notes *n, unsigned asked, const wc_fit_result *r)
{
	n->refits++;
	for (int j = 0; j < WC_LT_COUNT; j++) {
		if (!(asked & WC_LT_BIT(j)) || (r->params.law_terms & WC_LT_BIT(j)))
			continue;
		/* the layout's own warning above, found by its start */
		char start[64], why[WC_WARNING_LEN] = "";
		snprintf(start, sizeof start, "structure term %s: ", wc_law_term_name((wc_law_term)j));
		for (int i = 0; i < r->n_warnings && !why[0]; i++)
			if (strncmp(r->warnings[i], start, strlen(start)) == 0)
				snprintf(why, sizeof why, "%s", r->warnings[i]);
		if (!why[0])
			snprintf(why, sizeof why, "%snot fitted", start);
		note_reason(n, j, why, 1);
	}
}

void
wc_fit_law_terms_merge(wc_law_terms_notes *into, const wc_law_terms_notes *from)
{
	into->refits += from->refits;
	for (int j = 0; j < WC_LT_COUNT; j++) {
		int worded = 0;
		for (int k = 0; k < from->n_why[j]; k++) {
			note_reason(into, j, from->why[j][k], from->why_count[j][k]);
			worded += from->why_count[j][k];
		}
		into->refused[j] += from->refused[j] - worded;
	}
}

/* A recorded mode and the --terms mode that fits it, both ways (paired
 * has no --terms mode: its terms are specs). */
static const struct {
	wc_precision_mode mode;
	int terms;
} mode_terms[] = {
	{ WC_PMODE_ALL, WC_TERMS_PER_LEVEL },
	{ WC_PMODE_POOLED, WC_TERMS_POOLED },
	{ WC_PMODE_AS_BF16, WC_TERMS_AS_BF16 },
	{ WC_PMODE_NONE, WC_TERMS_NONE },
};

wc_precision_mode
wc_fit_precision_mode(const wc_fit_options *opt)
{
	/* Paired runs that support no term still make a paired fit: its
	 * quantized runs were left out, which no --terms mode does. */
	if (opt->term_specs)
		return WC_PMODE_PAIRED;
	for (size_t i = 0; i < sizeof mode_terms / sizeof mode_terms[0]; i++)
		if (mode_terms[i].terms == opt->precision_terms)
			return mode_terms[i].mode;
	return WC_PMODE_UNKNOWN;
}

void
wc_fit_options_like(wc_fit_options *opt, const wc_params *set, int precision)
{
	/* A fold of another form measures another law's error: the set's
	 * intervals would quote it as their own (docs/intervals.md, "Folds"). */
	opt->form = set->form;
	opt->law_terms = set->law_terms;
	opt->n_term_specs = 0;
	opt->term_specs = NULL;
	if (precision >= 0) {
		opt->precision_terms = precision;
		return;
	}
	if (set->precision_mode == WC_PMODE_PAIRED) {
		/* The set's own terms, kept ones refitted with their placement;
		 * runs whose setting has none are left out, as in the fit. With
		 * no term at all, every quantized run was left out. */
		opt->precision_terms = WC_TERMS_NONE;
		if (set->n_terms > 0) {
			opt->n_term_specs = set->n_terms;
			opt->term_specs = set->terms;
		}
		return;
	}
	/* A set that does not record its mode (schema 8 or older, the `paper`
	 * profile): a term per level when it has terms, else every run in as
	 * bf16. A recorded mode: the --terms mode that fits it. */
	opt->precision_terms = set->n_terms > 0 ? WC_TERMS_PER_LEVEL : WC_TERMS_AS_BF16;
	for (size_t i = 0; i < sizeof mode_terms / sizeof mode_terms[0]; i++)
		if (mode_terms[i].mode == set->precision_mode)
			opt->precision_terms = mode_terms[i].terms;
}
