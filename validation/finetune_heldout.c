/*
 * Level-held-out validation of the fine-tuning law (docs/finetune.md,
 * "Validation"), as the published protocol: every level of every sweep is
 * held out in turn and its energy per token predicted from the rest, by
 * two predictors -- the sweep's relation refitted on its other levels (the
 * published parity figure), and the compute law refitted on every other
 * run (what `wattcast predict finetune` answers with). Per level the
 * error; over the levels the median |error|, the share within 5 % and the
 * bias.
 */
#include "validation/finetune_validate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/grow.h"
#include "models/stats.h"
#include "validation_internal.h"

/* Median |error|, share within 5 % and bias of the finite errors. */
static void
score(const wc_ft_level *lv, int n, int compute, wc_accuracy *out)
{
	double *a = wc_alloc_array(n ? (size_t)n : 1, sizeof *a), sum = 0.0;
	int m = 0, within = 0;
	memset(out, 0, sizeof *out);
	snprintf(out->set, sizeof out->set, "%s", compute ? "compute_law" : "relation");
	out->median_abs_err_pct = out->share_within_5pct = out->bias_pct = NAN;
	for (int i = 0; a && i < n; i++) {
		double e = compute ? lv[i].compute_err_pct : lv[i].relation_err_pct;
		if (!isfinite(e))
			continue;
		a[m++] = fabs(e);
		sum += e;
		within += fabs(e) <= 5.0;
	}
	out->n = m;
	if (m > 0) {
		out->median_abs_err_pct = wc_stats_median(a, (size_t)m);
		out->share_within_5pct = (double)within / m;
		out->bias_pct = sum / m;
	}
	free(a);
}

/* Has `pr` a row of run `run_id` by `predictor` already? */
static int
predicted_before(const wc_per_run *pr, const char *run_id, const char *predictor)
{
	for (size_t i = 0; i < pr->n; i++)
		if (!strcmp(pr->rows[i].run_id, run_id))
			for (int k = 0; k < pr->rows[i].n_inputs; k++)
				if (!strcmp(pr->rows[i].input_name[k], "predictor") &&
				    !strcmp(pr->rows[i].input_value[k], predictor))
					return 1;
	return 0;
}

/* Per-run rows for one predictor of one held-out level. A base point
 * shared by two sweeps weighs once in the coverage and in the quantiles
 * (docs/finetune.md, "Validation"): its first sweep's row goes to `pr`,
 * which they are drawn from; its later sweeps' rows go to `again` (NULL:
 * dropped), without an interval, so that the per-run file still holds
 * every prediction the level table scores (docs/validation.md, "Per-run
 * output"). */
static int
per_run_rows(const wc_ft_table *t, const wc_ft_sweep *s, const wc_ft_level *lv, int compute,
             const wc_ft_linear_fit *law, wc_per_run *pr, wc_per_run *again, wc_error *err)
{
	for (size_t i = 0; i < s->n_rows; i++) {
		const wc_ft_run *r = &t->runs[s->rows[i]];
		wc_ft_run_facts f;
		wc_per_run_row row;
		if (wc_ft_relation_x(s->kind, &r->config) != lv->x || wc_ft_run_facts_of(r, &f, NULL) != WC_OK)
			continue;
		int repeat = predicted_before(pr, r->run_id, compute ? "compute_law" : "relation");
		if (repeat && !again)
			continue;
		wc_per_run_row_init(&row);
		snprintf(row.run_id, sizeof row.run_id, "%s", r->run_id);
		snprintf(row.set, sizeof row.set, "%s", wc_ft_relation_name(s->kind));
		snprintf(row.fold, sizeof row.fold, "sweep %d: %s = %g held out", lv->sweep + 1,
		         wc_ft_relation_factor(s->kind), lv->x);
		snprintf(row.quantity, sizeof row.quantity, "energy_per_token_j");
		wc_per_run_row_input(&row, "predictor", compute ? "compute_law" : "relation");
		wc_per_run_row_input(&row, "model", r->model);
		wc_per_run_row_input(&row, "method", wc_ft_method_name(r->config.method));
		wc_per_run_row_input_number(&row, "params_b", r->config.params_b);
		wc_per_run_row_input_number(&row, "micro_batch", r->config.micro_batch);
		wc_per_run_row_input_number(&row, "seq_len", r->config.seq_len);
		wc_per_run_row_input_number(&row, "grad_accum", r->config.grad_accum);
		wc_per_run_row_input_number(&row, "gpus", r->config.gpus);
		wc_per_run_row_input_number(&row, "flops_per_step_tflop", f.flops.flops_per_step_tflop);
		row.measured = f.energy_per_token_j;
		row.predicted = compute ? wc_ft_step_energy(law->coef[0], law->coef[1],
		                                            wc_ft_e0_multiplier(WC_FT_E0_PER_GPU, r->config.gpus),
		                                            f.flops.flops_per_step_tflop) /
		                          f.flops.tokens_per_step
		                        : lv->relation;
		row.error_pct = 100.0 * (row.predicted - row.measured) / row.measured;
		if (repeat)
			wc_per_run_row_warn(&row, "held out in an earlier sweep too: its interval and coverage are "
			                          "that sweep's row's (docs/finetune.md, \"Validation\")");
		int rc = wc_per_run_add(repeat ? again : pr, &row, err);
		if (rc != WC_OK)
			return rc;
	}
	return WC_OK;
}

/* Hold out level `x` of sweep `si`: both predictions for `lv`. */
static int
hold_out(const wc_ft_table *t, const wc_ft_heldout *rep, int si, double x, unsigned char *use,
         wc_ft_level *lv, wc_per_run *pr, wc_per_run *again, wc_error *err)
{
	const wc_ft_sweep *s = &rep->sweeps.sweeps[si];
	size_t *rest = wc_alloc_array(s->n_rows ? s->n_rows : 1, sizeof *rest), n_rest = 0;
	wc_ft_linear_fit rel, law;
	double sum_meas = 0.0, sum_comp = 0.0;
	int rc = WC_OK, law_ok;
	if (!rest)
		return wc_error_set(err, WC_ENOMEM, "validate finetune: out of memory");
	memset(lv, 0, sizeof *lv);
	lv->sweep = si;
	lv->kind = s->kind;
	lv->x = x;
	for (size_t i = 0; i < t->n_runs; i++)
		use[i] = t->runs[i].exclude[0] == '\0';
	for (size_t i = 0; i < s->n_rows; i++) {
		if (wc_ft_relation_x(s->kind, &t->runs[s->rows[i]].config) != x)
			rest[n_rest++] = s->rows[i];
		else
			use[s->rows[i]] = 0;
	}
	law_ok = wc_ft_fit_compute(t, use, &law, NULL) == WC_OK;
	for (size_t i = 0; i < s->n_rows; i++) {
		wc_ft_run_facts f;
		if (use[s->rows[i]] || wc_ft_run_facts_of(&t->runs[s->rows[i]], &f, NULL) != WC_OK)
			continue;
		lv->n_runs++;
		sum_meas += f.energy_per_token_j;
		const wc_ft_config *c = &t->runs[s->rows[i]].config;
		sum_comp += wc_ft_step_energy(law.coef[0], law.coef[1], wc_ft_e0_multiplier(WC_FT_E0_PER_GPU, c->gpus),
		                              f.flops.flops_per_step_tflop) / f.flops.tokens_per_step;
	}
	lv->measured = sum_meas / lv->n_runs;
	lv->compute = law_ok ? sum_comp / lv->n_runs : NAN;
	lv->relation = wc_ft_fit_relation(t, s->kind, rest, n_rest, &rel, NULL) == WC_OK
	               ? rel.coef[0] + rel.coef[1] * wc_ft_relation_basis(s->kind, 1, x) +
	                 (rel.terms > 2 ? rel.coef[2] * wc_ft_relation_basis(s->kind, 2, x) : 0.0)
	               : NAN;
	lv->relation_err_pct = 100.0 * (lv->relation - lv->measured) / lv->measured;
	lv->compute_err_pct = 100.0 * (lv->compute - lv->measured) / lv->measured;
	if (pr && isfinite(lv->relation))
		rc = per_run_rows(t, s, lv, 0, NULL, pr, again, err);
	if (pr && rc == WC_OK && law_ok)
		rc = per_run_rows(t, s, lv, 1, &law, pr, again, err);
	free(rest);
	return rc;
}

static int
held_out_levels(const wc_ft_table *t, wc_per_run *per_run, wc_per_run *again, wc_ft_heldout *out,
                wc_error *err)
{
	size_t cap = 0;
	unsigned char *use = wc_alloc_array(t->n_runs ? t->n_runs : 1, 1);
	int rc;
	memset(out, 0, sizeof *out);
	if (!use)
		return wc_error_set(err, WC_ENOMEM, "validate finetune: out of memory");
	if ((rc = wc_ft_find_sweeps(t, NULL, &out->sweeps, err)) != WC_OK)
		goto done;
	for (size_t i = 0; i < t->n_runs; i++)
		out->runs += t->runs[i].exclude[0] == '\0';
	if (out->sweeps.n == 0) {
		rc = wc_error_set(err, WC_EINVAL,
		                  "validate finetune: no sweep in %s (runs that differ in only the micro-batch, "
		                  "the sequence length or the model, at 3 or more levels)", t->path);
		goto done;
	}
	for (int si = 0; si < out->sweeps.n && rc == WC_OK; si++) {
		const wc_ft_sweep *s = &out->sweeps.sweeps[si];
		for (int k = 0; k < s->n_levels && rc == WC_OK; k++) {
			wc_ft_level *nl = wc_grow(out->levels, &cap, (size_t)out->n_levels + 1, sizeof *nl, 16);
			if (!nl) {
				rc = wc_error_set(err, WC_ENOMEM, "validate finetune: out of memory");
				break;
			}
			out->levels = nl;
			if ((rc = hold_out(t, out, si, s->levels[k], use, &out->levels[out->n_levels], per_run,
			                   again, err)) == WC_OK)
				out->n_levels++;
		}
	}
	score(out->levels, out->n_levels, 0, &out->relation);
	score(out->levels, out->n_levels, 1, &out->compute);
done:
	free(use);
	if (rc != WC_OK)
		wc_ft_heldout_clear(out);
	return rc;
}


/* The rows of one predictor ("relation" or "compute_law") of `all`, with
 * the index of each in `all`. */
static int
select_predictor(const wc_per_run *all, const char *predictor, wc_per_run *out, size_t *index, wc_error *err)
{
	int rc = WC_OK;
	for (size_t i = 0; i < all->n && rc == WC_OK; i++) {
		const wc_per_run_row *r = &all->rows[i];
		for (int k = 0; k < r->n_inputs; k++)
			if (!strcmp(r->input_name[k], "predictor") && !strcmp(r->input_value[k], predictor)) {
				index[out->n] = i;
				rc = wc_per_run_add(out, r, err);
				break;
			}
	}
	return rc;
}

/* Cross-conformal intervals of one predictor's rows (each held-out
 * level's from the other levels' residuals, docs/intervals.md), written
 * back into `all`, and their coverage overall and per relation. */
static int
predictor_coverage(wc_per_run *all, const char *predictor, size_t *index, wc_heldout_report *cov, wc_error *err)
{
	wc_per_run sub = WC_PER_RUN_INIT;
	int rc = select_predictor(all, predictor, &sub, index, err);
	memset(cov, 0, sizeof *cov);
	if (rc == WC_OK)
		rc = wc__pe_cross_intervals(&sub, 1, err);
	for (size_t i = 0; rc == WC_OK && i < sub.n; i++) {
		all->rows[index[i]].lo = sub.rows[i].lo;
		all->rows[index[i]].hi = sub.rows[i].hi;
		int seen = 0;
		for (int k = 0; k < cov->n_sets && !seen; k++)
			seen = !strcmp(cov->sets[k].set, sub.rows[i].set);
		if (!seen && cov->n_sets < WC_HELDOUT_SETS_MAX)
			snprintf(cov->sets[cov->n_sets++].set, sizeof cov->sets[0].set, "%s", sub.rows[i].set);
	}
	if (rc == WC_OK)
		rc = wc__coverage_summary(&sub, NULL, cov, err);
	wc_per_run_clear(&sub);
	return rc;
}

int
wc_validate_finetune(const wc_ft_table *t, wc_per_run *per_run, wc_ft_heldout *out, wc_error *err)
{
	wc_per_run all = WC_PER_RUN_INIT, again = WC_PER_RUN_INIT;
	int rc = held_out_levels(t, &all, per_run ? &again : NULL, out, err);
	size_t *index = rc == WC_OK ? malloc((all.n ? all.n : 1) * sizeof *index) : NULL;
	if (rc == WC_OK && !index)
		rc = wc_error_set(err, WC_ENOMEM, "validate finetune: out of memory");
	if (rc == WC_OK)
		rc = predictor_coverage(&all, "relation", index, &out->cov_relation, err);
	if (rc == WC_OK)
		rc = predictor_coverage(&all, "compute_law", index, &out->cov_compute, err);
	for (size_t i = 0; rc == WC_OK && per_run && i < all.n; i++)
		rc = wc_per_run_add(per_run, &all.rows[i], err);
	for (size_t i = 0; rc == WC_OK && per_run && i < again.n; i++)
		rc = wc_per_run_add(per_run, &again.rows[i], err);
	if (rc != WC_OK)
		wc_ft_heldout_clear(out);
	free(index);
	wc_per_run_clear(&all);
	wc_per_run_clear(&again);
	return rc;
}

int
wc_validate_finetune_pred_error(const wc_ft_table *t, const char *data, wc_pred_error *out, wc_error *err)
{
	wc_per_run all = WC_PER_RUN_INIT, law = WC_PER_RUN_INIT;
	wc_ft_heldout rep;
	size_t *index = NULL;
	int rc = held_out_levels(t, &all, NULL, &rep, err);
	if (rc == WC_OK)
		wc_ft_heldout_clear(&rep);
	if (rc == WC_OK && !(index = malloc((all.n ? all.n : 1) * sizeof *index)))
		rc = wc_error_set(err, WC_ENOMEM, "fit intervals: out of memory");
	/* The compute law's residuals: energy per token and per step differ
	 * by the step's token count only, so their log residuals are one. */
	if (rc == WC_OK)
		rc = select_predictor(&all, "compute_law", &law, index, err);
	if (rc == WC_OK)
		rc = wc__pe_from_rows(&law, 1, NULL, "level", data, NULL, &out[WC_PEQ_FT_STEP], err);
	if (rc == WC_OK)
		snprintf(out[WC_PEQ_FT_STEP].quantity, sizeof out[WC_PEQ_FT_STEP].quantity, "%s",
		         wc_pe_quantity_name(WC_PEQ_FT_STEP));
	free(index);
	wc_per_run_clear(&all);
	wc_per_run_clear(&law);
	return rc;
}

void
wc_ft_heldout_clear(wc_ft_heldout *r)
{
	wc_ft_sweeps_clear(&r->sweeps);
	free(r->levels);
	memset(r, 0, sizeof *r);
}
