/*
 * The candidate forms scored by held-out tests T1-T4 (docs/validation.md,
 * "Candidate forms"). Reports are plain values.
 */
#ifndef WC_VALIDATION_FORMS_H
#define WC_VALIDATION_FORMS_H

#include "data/runs_table.h"
#include "fit/fit.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { WC_TEST_T1 = 0, WC_TEST_T2, WC_TEST_T3, WC_TEST_T4, WC_TEST_COUNT };
/** "T1" .. "T4" and what each holds out. */
const char *wc_test_name(int test);
const char *wc_test_description(int test);

typedef struct {
	wc_form form;
	int k;                        /* free parameters of its fit on every run of
	                               * the analysis; -1: that fit failed */
	char k_reason[WC_ERROR_MSG_MAX]; /* why, when k is -1 */
	double score[WC_TEST_COUNT];  /* held-out RMS in log(P̄ − G·P0) */
	int scored[WC_TEST_COUNT];    /* 0 = not scored ("–") */
	int held_out[WC_TEST_COUNT];  /* runs predicted */
	double primary;               /* mean over the tests in `in_primary`; NaN if
	                               * none, or if no test could score this form */
	int compared;                 /* 1: in the choice; 0: scored on no test,
	                               * or on fewer than the forms compared */
} wc_form_score;

typedef struct {
	wc_form_score forms[WC_FORM_COUNT];
	int in_primary[WC_TEST_COUNT]; /* tests every compared form was scored on */
	int chosen;                    /* form with the lowest primary; -1 if none */
	int runs;                      /* runs in the analysis */
} wc_forms_report;

/** Score the five forms on the saturation runs of `t` (not excluded, bf16
 *  weights and KV cache, no locked clock): T1 leave one model
 *  out, T2 fit on n 1-64 and predict 128-256, T3 leave one TP degree out,
 *  T4 leave one platform-model pair out. A fold whose fit fails, or that
 *  cannot identify a parameter its held-out runs use (e.g. their level has
 *  no training runs left), makes the test "not scored" for that form. `base` gives prior/sharing/terms;
 *  its form and mask are replaced. */
int wc_validate_forms(const wc_runs_table *t, const wc_fit_options *base,
                      wc_forms_report *out, wc_error *err);

/* ------------------------------------------------- forms on real runs */

/** One form on a real table: leave one model out and leave one workload
 *  out, reported per platform like `validate lomo`. */
typedef struct {
	wc_form form;
	int fitted;                   /* 0: no fold of this form could be fitted */
	wc_heldout_report lomo, lowo;
} wc_form_real_score;

typedef struct {
	int n_forms;
	wc_form_real_score forms[WC_FORM_COUNT];
	int models, workloads;        /* groups held out in turn */
} wc_forms_real_report;

/** Every form (the published five and wattcast's own) on the real runs of
 *  `t`, side by side (docs/validation.md, "Forms on real runs"): for each,
 *  leave one model out and leave one workload (`set`) out, with `base`'s
 *  prior, terms and mask. A table with one workload reports leave one
 *  workload out as not scored (n = 0). `per_run` (may be NULL) receives
 *  one row per prediction, its fold "FORM lomo MODEL" or "FORM lowo SET". */
int wc_validate_forms_real(const wc_runs_table *t, const wc_fit_options *base,
                           wc_forms_real_report *out, wc_per_run *per_run, wc_error *err);

#ifdef __cplusplus
}
#endif
#endif
