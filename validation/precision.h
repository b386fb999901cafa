/*
 * Precision terms from paired runs (docs/validation.md, "Precision
 * terms"). Reports are plain values.
 */
#ifndef WC_VALIDATION_PRECISION_H
#define WC_VALIDATION_PRECISION_H

#include "data/runs_table.h"
#include "fit/fit.h"

#ifdef __cplusplus
extern "C" {
#endif

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

#ifdef __cplusplus
}
#endif
#endif
