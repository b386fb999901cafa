/*
 * The sweeps of a fine-tuning runs table (docs/finetune.md, "Sweeps"):
 * runs on one platform that share every factor but one -- micro-batch,
 * sequence length or model size -- found automatically, so a user's table
 * needs no extra column to say which experiment a run belongs to.
 */
#include "fit/finetune_fit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/grow.h"

static int
same_size(double a, double b)
{
	return fabs(a - b) <= 1e-9 * fmax(fabs(a), fabs(b));
}

/* Do runs a and b share every factor but the one `kind` sweeps? */
static int
same_sweep(wc_ft_relation_kind kind, const wc_ft_run *a, const wc_ft_run *b)
{
	const wc_ft_config *x = &a->config, *y = &b->config;
	if (strcmp(a->platform, b->platform) != 0 || x->method != y->method ||
	    x->lora_rank != y->lora_rank || x->grad_accum != y->grad_accum || x->gpus != y->gpus ||
	    wc_ft_replicas(x) != wc_ft_replicas(y) || x->checkpointing != y->checkpointing)
		return 0;
	/* Runs whose steps hold different shares of their room (packed and
	 * unpacked) measure different energies per token at one level: one
	 * sweep takes one share, by the 1 % rule a query is held to
	 * (docs/finetune.md, "Sweeps"). */
	if (!wc_ft_same_share(wc_ft_step_fill(x), wc_ft_step_fill(y)))
		return 0;
	if (kind != WC_FT_REL_BATCH && x->micro_batch != y->micro_batch)
		return 0;
	if (kind != WC_FT_REL_SEQ && x->seq_len != y->seq_len)
		return 0;
	if (kind != WC_FT_REL_SIZE && (!same_size(x->params_b, y->params_b) || x->layers != y->layers ||
	                               x->d_model != y->d_model))
		return 0;
	return 1;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static void
sweep_free(wc_ft_sweep *s)
{
	free(s->rows);
	free(s->levels);
	s->rows = NULL;
	s->levels = NULL;
}

/* The group of `kind` that starts at row `first`; members are marked in
 * `taken`. Returns WC_OK with s->n_levels = 0 when it is no sweep. */
static int
collect(const wc_ft_table *t, const unsigned char *keep, wc_ft_relation_kind kind, size_t first,
        unsigned char *taken, wc_ft_sweep *s)
{
	memset(s, 0, sizeof *s);
	s->kind = kind;
	s->rows = wc_alloc_array(t->n_runs, sizeof *s->rows);
	s->levels = wc_alloc_array(t->n_runs, sizeof *s->levels);
	if (!s->rows || !s->levels) {
		sweep_free(s);
		return WC_ENOMEM;
	}
	for (size_t j = first; j < t->n_runs; j++) {
		if (!keep[j] || taken[j] || !same_sweep(kind, &t->runs[first], &t->runs[j]))
			continue;
		taken[j] = 1;
		s->rows[s->n_rows++] = j;
		double x = wc_ft_relation_x(kind, &t->runs[j].config);
		int seen = 0;
		for (int k = 0; k < s->n_levels && !seen; k++)
			seen = s->levels[k] == x;
		if (!seen)
			s->levels[s->n_levels++] = x;
	}
	qsort(s->levels, (size_t)s->n_levels, sizeof *s->levels, cmp_double);
	s->base = t->runs[first].config;
	memcpy(s->platform, t->runs[first].platform, sizeof s->platform);
	if (s->n_levels < wc_ft_relation_terms(kind) + 1)
		s->n_levels = 0;
	return WC_OK;
}

static int
push(wc_ft_sweeps *out, size_t *cap, wc_ft_sweep *s)
{
	wc_ft_sweep *ns = wc_grow(out->sweeps, cap, (size_t)out->n + 1, sizeof *ns, 8);
	if (!ns)
		return WC_ENOMEM;
	out->sweeps = ns;
	out->sweeps[out->n++] = *s;
	return WC_OK;
}

int
wc_ft_find_sweeps(const wc_ft_table *t, const unsigned char *use, wc_ft_sweeps *out, wc_error *err)
{
	size_t cap = 0, n = t->n_runs;
	unsigned char *keep = wc_alloc_array(n ? n : 1, 1), *taken = wc_alloc_array(n ? n : 1, 1);
	int rc = WC_OK;
	memset(out, 0, sizeof *out);
	for (size_t i = 0; keep && i < n; i++) {
		wc_ft_run_facts f;
		keep[i] = (use ? use[i] : t->runs[i].exclude[0] == '\0') &&
		          wc_ft_run_facts_of(&t->runs[i], &f, NULL) == WC_OK;
	}
	for (int k = 0; k < WC_FT_REL_COUNT && rc == WC_OK && keep && taken; k++) {
		memset(taken, 0, n ? n : 1);
		for (size_t i = 0; i < n && rc == WC_OK; i++) {
			wc_ft_sweep s;
			if (!keep[i] || taken[i])
				continue;
			if ((rc = collect(t, keep, (wc_ft_relation_kind)k, i, taken, &s)) != WC_OK)
				break;
			if (s.n_levels == 0)
				sweep_free(&s);
			else if ((rc = push(out, &cap, &s)) != WC_OK)
				sweep_free(&s);
		}
	}
	if (!keep || !taken)
		rc = WC_ENOMEM;
	free(keep);
	free(taken);
	if (rc != WC_OK) {
		wc_ft_sweeps_clear(out);
		return wc_error_set(err, WC_ENOMEM, "sweeps: out of memory");
	}
	return WC_OK;
}

void
wc_ft_sweeps_clear(wc_ft_sweeps *s)
{
	for (int i = 0; i < s->n; i++)
		sweep_free(&s->sweeps[i]);
	free(s->sweeps);
	memset(s, 0, sizeof *s);
}

int
wc_ft_sweeps_best(const wc_ft_sweeps *s, wc_ft_relation_kind kind)
{
	int best = -1;
	for (int i = 0; i < s->n; i++) {
		const wc_ft_sweep *w = &s->sweeps[i];
		if (w->kind != kind)
			continue;
		if (best < 0 || w->n_levels > s->sweeps[best].n_levels ||
		    (w->n_levels == s->sweeps[best].n_levels && w->n_rows > s->sweeps[best].n_rows))
			best = i;
	}
	return best;
}
