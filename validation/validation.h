/*
 * validation/ — held-out reports composed of fit + predict, and the
 * synthetic runs tables they are checked on:
 *   - simulate: a runs table drawn from a known law (the published design);
 *   - forms: the five candidate forms scored by held-out tests (Table 11);
 *   - precision: paired-run analysis of precision terms (Table 12);
 *   - heldout: accuracy of a frozen law on runs it did not see (Table 14).
 *
 * Ownership: tables returned through `**out` are freed with wc_runs_free;
 * report structs are plain values (no allocation).
 */
#ifndef WC_VALIDATION_H
#define WC_VALIDATION_H

#include <stdint.h>

#include "data/runs_table.h"
#include "fit/fit.h"
#include "models/models.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------ simulate */

typedef struct {
	const char *design;  /* "paper": the published design, ~250 closed-loop runs */
	uint64_t seed;
	double noise;        /* multiplicative noise on mean power (sd, 0.03) */
	double idle_noise;   /* on the measured idle power (sd, 0.01) */
} wc_simulate_options;

#define WC_SIMULATE_OPTIONS_INIT { "paper", 42, 0.03, 0.01 }

/** Draw a runs table from `truth` with the named design. Every draw comes
 *  from PCG32 stream (seed, 0) in row order, so a seed gives the same
 *  table byte for byte. Caller frees `*out` with wc_runs_free. */
int wc_simulate_inference(const wc_params *truth, const wc_simulate_options *opt,
                          wc_runs_table **out, wc_error *err);
/** The comment block written at the top of a simulated table. */
void wc_simulate_header(const wc_simulate_options *opt, const wc_params *truth, char *buf,
                        size_t cap);

/* --------------------------------------------------------------- forms */

enum { WC_TEST_T1 = 0, WC_TEST_T2, WC_TEST_T3, WC_TEST_T4, WC_TEST_COUNT };
/** "T1" .. "T4" and what each holds out. */
const char *wc_test_name(int test);
const char *wc_test_description(int test);

typedef struct {
	wc_form form;
	int k;                        /* free parameters on this table */
	double score[WC_TEST_COUNT];  /* held-out RMS in log(P̄ − G·P0) */
	int scored[WC_TEST_COUNT];    /* 0 = not scored ("–") */
	int held_out[WC_TEST_COUNT];  /* runs predicted */
	double primary;               /* mean over the tests in `in_primary`; NaN if
	                               * none, or if no test could score this form */
} wc_form_score;

typedef struct {
	wc_form_score forms[WC_FORM_COUNT];
	int in_primary[WC_TEST_COUNT]; /* tests every form scored on any test could
	                                * be scored on */
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

/* ----------------------------------------------------------- precision */

#define WC_PRECISION_GROUPS_MAX 16

typedef struct {
	wc_setting setting;
	wc_precision precision;
	char level[WC_NAME_MAX];       /* "" = all levels (KV cache) */
	int pairs;
	double rms[3];                 /* leave-one-pair-out RMS: none, inside z, on S */
	wc_placement better;           /* the better of inside z / on S */
	double p_value;                /* paired t-test, better vs none */
	int kept;                      /* p < 0.05 */
	double value;                  /* b (shift) or m (factor) from all pairs */
} wc_precision_group;

typedef struct {
	int n_groups;
	wc_precision_group groups[WC_PRECISION_GROUPS_MAX];
	int base_runs;                 /* bf16 runs the frozen base law is fitted on */
} wc_precision_report;

/** Find the pairs (runs identical but for one precision setting), group
 *  them (weights per precision and level; KV cache per precision, all
 *  levels), and compare placements with the base law frozen. */
int wc_validate_precision(const wc_runs_table *t, const wc_fit_options *base,
                          wc_precision_report *out, wc_error *err);
/** The report as precision-term specs for wc_fit_options.term_specs. */
int wc_precision_terms_from_report(const wc_precision_report *r, wc_precision_term *terms,
                                   int cap);

/* ------------------------------------------------------------- heldout */

#define WC_HELDOUT_SETS_MAX 32

typedef struct {
	char set[48];                  /* "" for the overall row */
	int n;
	double median_abs_err_pct;
	double share_within_5pct;      /* 0..1 */
	double bias_pct;               /* mean signed error, + = overprediction */
} wc_accuracy;

typedef struct {
	wc_accuracy overall;
	int n_sets;
	wc_accuracy sets[WC_HELDOUT_SETS_MAX];
	int skipped;                   /* rows whose platform the law lacks */
} wc_heldout_report;

/** Accuracy of a frozen law on every row of `t` (excluded rows included:
 *  held-out sets are usually excluded from the fit), overall and per
 *  `set` value (rows without one form the set "unlabelled"). */
int wc_validate_heldout(const wc_params *p, const wc_runs_table *t, wc_heldout_report *out,
                        wc_error *err);

/* ---------------------------------------------------------- crossval */

/** Leave-one-model-out accuracy: for each model (variants such as
 *  "-Instruct-2507", "-FP8" or "-Thinking" are grouped with their base
 *  model through the catalog, so a held-out model has no twin in the
 *  training runs), fit `base` on the other models' runs and predict the
 *  held-out ones. Reported like heldout, with one set per platform; runs
 *  that cannot be predicted (their level has no other model) are counted
 *  in `skipped`. Excluded runs take no part. */
int wc_validate_lomo(const wc_runs_table *t, const wc_fit_options *base, wc_heldout_report *out,
                     wc_error *err);

#ifdef __cplusplus
}
#endif
#endif
