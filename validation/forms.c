/*
 * Candidate forms by held-out tests (docs/validation.md, Table 11): each form is
 * refitted with part of the runs held out and scored by the RMS of the
 * held-out residuals in log(P̄ − G·P0).
 *   T1 leave one model out;  T2 fit n in 1-64, predict n in 128-256;
 *   T3 leave one TP degree out;  T4 leave one platform-model pair out.
 * A test is "not scored" for a form when one of its folds cannot be
 * fitted or predicted: a held-out level without training runs, a fit that
 * fails or leaves a parameter unidentified. The primary score averages
 * the tests every form could be scored on (a form no test could score is
 * dropped from the comparison); the lowest primary is chosen.
 */
#include "validation_internal.h"
#include "models/grow.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A parameter with a standard error this large (z-units / e-folds) is not
 * identified by the fold's runs at all (weakly identified is fine). */
#define UNIDENTIFIED_SE 30.0

static const char *const test_names[WC_TEST_COUNT] = { "T1", "T2", "T3", "T4" };
static const char *const test_desc[WC_TEST_COUNT] = {
	"leave one model out", "fit n 1-64, predict n 128-256", "leave one TP degree out",
	"leave one platform-model pair out",
};

const char *
wc_test_name(int test)
{
	return test >= 0 && test < WC_TEST_COUNT ? test_names[test] : "?";
}

const char *
wc_test_description(int test)
{
	return test >= 0 && test < WC_TEST_COUNT ? test_desc[test] : "?";
}

static double
mean_running(const wc_run *r)
{
	if (!r->series.len)
		return r->running;
	double s = 0, w = 0;
	for (size_t j = 0; j < r->series.len; j++) {
		s += r->series.running[j] * r->series.weight[j];
		w += r->series.weight[j];
	}
	return w > 0 ? s / w : NAN;
}

/* Fold key of a row for a test: rows with the same key are held out
 * together. T2 has one fold: key 1 = test, 0 = train, -1 = neither. */
static void
fold_key(const wc_run *r, int test, char *key, size_t cap)
{
	double n = mean_running(r);
	switch (test) {
	case WC_TEST_T1: snprintf(key, cap, "%s", r->model); break;
	case WC_TEST_T2:
		snprintf(key, cap, "%s", n >= 1 && n <= 64 ? "train" : n >= 128 && n <= 256 ? "test" : "");
		break;
	case WC_TEST_T3: snprintf(key, cap, "%d", r->tp); break;
	default: snprintf(key, cap, "%s|%s", r->platform, r->model); break;
	}
}

typedef struct {
	double ss;
	int n;
	int failed;
} test_acc;

/* Does the fit identify every parameter the law uses for this run? A
 * nuisance parameter of another level (the locked-clock host's theta,
 * say) does not disqualify a fold that never predicts that level. */
static int
run_identified(const wc_fit_result *r, const wc_run *run)
{
	const wc_params *p = &r->params;
	const wc_level *lvl = wc_params_level(p, run->platform);
	if (!lvl)
		return 0;
	char used[8][WC_LABEL_MAX];
	int n = 0;
	wc_level_param_label(WC_LEVEL_S, wc_params_scale_level(p, lvl)->name, used[n++], WC_LABEL_MAX);
	wc_level_param_label(WC_LEVEL_THETA, lvl->name, used[n++], WC_LABEL_MAX);
	wc_level_param_label(WC_LEVEL_FLOOR, lvl->name, used[n++], WC_LABEL_MAX);
	wc_level_param_label(WC_LEVEL_P0, lvl->name, used[n++], WC_LABEL_MAX);
	snprintf(used[n++], WC_LABEL_MAX, "delta");
	snprintf(used[n++], WC_LABEL_MAX, "gamma1");
	snprintf(used[n++], WC_LABEL_MAX, "gamma2");
	snprintf(used[n++], WC_LABEL_MAX, "%s", run->sm_clock_mhz > 0 ? "kappa" : "");
	for (int k = 0; k < r->n_free; k++)
		for (int u = 0; u < n; u++)
			if (strcmp(r->names[k], used[u]) == 0 && !(r->se[k] <= UNIDENTIFIED_SE))
				return 0;
	return 1;
}

/* Fit on `train`, score rows in `test_rows`. */
static int
score_fold(const wc_runs_table *t, const wc_fit_options *base, const unsigned char *train,
           const unsigned char *test_rows, test_acc *acc, wc_error *err)
{
	wc_fit_options o = *base;
	wc_fit_result r;
	wc_error ferr;
	o.use = train;
	if (wc_fit_inference_law(t, &o, &r, &ferr) != WC_OK) {
		if (ferr.code == WC_ENOMEM)
			return wc_error_set(err, WC_ENOMEM, "%s", ferr.msg);
		acc->failed = 1;
		return WC_OK;
	}
	if (!r.converged) {
		acc->failed = 1;
	} else {
		for (size_t i = 0; i < t->n_runs && !acc->failed; i++) {
			if (!test_rows[i])
				continue;
			if (!run_identified(&r, &t->runs[i])) {
				acc->failed = 1; /* no runs left for its level, or unidentified */
				break;
			}
			double e = wc__log_residual(&r.params, &t->runs[i]);
			if (isfinite(e)) {
				acc->ss += e * e;
				acc->n++;
			}
		}
	}
	wc_fit_result_clear(&r);
	return WC_OK;
}

static int
run_test(const wc_runs_table *t, const wc_fit_options *o, const unsigned char *eligible, int test,
         test_acc *acc, wc_error *err)
{
	const size_t n = t->n_runs;
	char (*keys)[128] = wc_alloc_array(n, sizeof *keys);
	unsigned char *train = wc_alloc_array(n, 1), *held = wc_alloc_array(n, 1), *done = wc_alloc_zeroed(n, 1);
	int rc = WC_OK;
	memset(acc, 0, sizeof *acc);
	if (!keys || !train || !held || !done) {
		rc = wc_error_set(err, WC_ENOMEM, "forms: out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		fold_key(&t->runs[i], test, keys[i], sizeof keys[i]);
	if (test == WC_TEST_T2) {
		for (size_t i = 0; i < n; i++) {
			train[i] = eligible[i] && strcmp(keys[i], "train") == 0;
			held[i] = eligible[i] && strcmp(keys[i], "test") == 0;
		}
		rc = score_fold(t, o, train, held, acc, err);
		goto out;
	}
	for (size_t i = 0; i < n && rc == WC_OK && !acc->failed; i++) {
		if (!eligible[i] || done[i])
			continue;
		for (size_t j = 0; j < n; j++) {
			int same = eligible[j] && strcmp(keys[j], keys[i]) == 0;
			held[j] = (unsigned char)same;
			train[j] = eligible[j] && !same;
			done[j] |= (unsigned char)same;
		}
		rc = score_fold(t, o, train, held, acc, err);
	}
out:
	if (acc->n == 0)
		acc->failed = 1;
	free(keys);
	free(train);
	free(held);
	free(done);
	return rc;
}

int
wc_validate_forms(const wc_runs_table *t, const wc_fit_options *base, wc_forms_report *out,
                  wc_error *err)
{
	unsigned char *eligible = wc_alloc_array(t->n_runs ? t->n_runs : 1, 1);
	int rc = WC_OK;
	memset(out, 0, sizeof *out);
	out->chosen = -1;
	if (!eligible)
		return wc_error_set(err, WC_ENOMEM, "forms: out of memory");
	/* The saturation study: bf16 runs at the default clock (Table 11 was
	 * fitted on these; precision and clock terms have their own tests). */
	for (size_t i = 0; i < t->n_runs; i++) {
		const wc_run *r = &t->runs[i];
		eligible[i] = !r->exclude[0] && (!base->use || base->use[i]) && r->weights == WC_PREC_BF16 &&
		              r->kv == WC_PREC_BF16 && r->sm_clock_mhz == 0;
		out->runs += eligible[i];
	}
	for (int f = 0; f < WC_FORM_COUNT && rc == WC_OK; f++) {
		wc_form_score *s = &out->forms[f];
		wc_fit_options o = *base;
		wc_fit_result full;
		wc_error ferr;
		o.form = (wc_form)f;
		o.use = eligible;
		s->form = (wc_form)f;
		s->primary = NAN;
		/* k counts the free parameters of a fit: a form that cannot be
		 * fitted on these runs has none to count, and says why
		 * (docs/validation.md, "Candidate forms") */
		s->k = -1;
		if (wc_fit_inference_law(t, &o, &full, &ferr) == WC_OK) {
			s->k = full.n_free;
			wc_fit_result_clear(&full);
		} else {
			snprintf(s->k_reason, sizeof s->k_reason, "%s", ferr.msg);
		}
		for (int test = 0; test < WC_TEST_COUNT && rc == WC_OK; test++) {
			test_acc acc;
			rc = run_test(t, &o, eligible, test, &acc, err);
			s->scored[test] = !acc.failed;
			s->held_out[test] = acc.n;
			s->score[test] = acc.failed ? NAN : sqrt(acc.ss / acc.n);
		}
	}
	free(eligible);
	if (rc != WC_OK)
		return rc;
	/* A form no test could score (its parameters are not identified by
	 * these runs, like a floor on data without one) is no candidate; the
	 * primary averages the tests every remaining form was scored on. When
	 * no test is common to them all, the forms scored on the fewest tests
	 * leave the comparison in turn (docs/validation.md, "Primary score and
	 * choice"): without it, forms scored on different single tests leave
	 * the others without a choice. */
	int viable[WC_FORM_COUNT], n_scored[WC_FORM_COUNT], any = 0;
	for (int f = 0; f < WC_FORM_COUNT; f++) {
		n_scored[f] = 0;
		for (int test = 0; test < WC_TEST_COUNT; test++)
			n_scored[f] += out->forms[f].scored[test] != 0;
		viable[f] = n_scored[f] > 0;
	}
	for (;;) {
		int lo = WC_TEST_COUNT + 1, hi = 0;
		any = 0;
		for (int test = 0; test < WC_TEST_COUNT; test++) {
			out->in_primary[test] = 1;
			for (int f = 0; f < WC_FORM_COUNT; f++)
				if (viable[f])
					out->in_primary[test] &= out->forms[f].scored[test];
			any |= out->in_primary[test];
		}
		for (int f = 0; f < WC_FORM_COUNT; f++)
			if (viable[f]) {
				lo = n_scored[f] < lo ? n_scored[f] : lo;
				hi = n_scored[f] > hi ? n_scored[f] : hi;
			}
		if (any || lo >= hi) /* a common test, or all alike: stop */
			break;
		for (int f = 0; f < WC_FORM_COUNT; f++)
			if (viable[f] && n_scored[f] == lo)
				viable[f] = 0;
	}
	for (int f = 0; f < WC_FORM_COUNT; f++)
		out->forms[f].compared = viable[f] && any;
	if (!any)
		return WC_OK;
	for (int f = 0; f < WC_FORM_COUNT; f++) {
		double sum = 0;
		int m = 0;
		if (!viable[f])
			continue;
		for (int test = 0; test < WC_TEST_COUNT; test++)
			if (out->in_primary[test]) {
				sum += out->forms[f].score[test];
				m++;
			}
		out->forms[f].primary = sum / m;
		if (out->chosen < 0 || out->forms[f].primary < out->forms[out->chosen].primary)
			out->chosen = f;
	}
	return WC_OK;
}
