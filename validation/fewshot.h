/*
 * Few-shot calibration, validated (docs/validation.md, "Few-shot
 * calibration"): for every model (or platform) of a runs table, calibrate
 * the base law on k of its runs -- those closest to the law's reference
 * load n = 32 first, ties by run_id -- and predict the rest; the same
 * held-out runs are scored for every k, so k = 0 (the base as it is),
 * 1, 3 compare side by side. The base is a frozen law, or (leave one
 * out) a law fitted per held-out model or platform on the other runs, so
 * that k = 0 is never in-sample.
 */
#ifndef WC_VALIDATION_FEWSHOT_H
#define WC_VALIDATION_FEWSHOT_H

#include "validation/accuracy.h"

#ifdef __cplusplus
extern "C" {
#endif

/** k = 0 and at most eight more: a curve of calibration counts (1,2,3,5,8,13,
 *  ...) without a report too large for a caller's stack. */
#define WC_FEWSHOT_K_MAX 9

typedef struct {
	wc_calibrate_scope scope;
	/** The frozen base; ignored when `refit` is set. */
	const wc_params *base;
	/** Non-NULL: fit the base per held-out model (model scope) or
	 *  platform (platform scope) on the other runs with these options. */
	const wc_fit_options *refit;
	int n_k;
	int k[WC_FEWSHOT_K_MAX];    /* calibration run counts, increasing; 0 = the base */
	/** P0 when a calibration's runs carry none (as wc_calibrate_options);
	 *  at or above the board limit of a level that takes it the
	 *  validation is refused (WC_EINVAL) with calibrate's message. */
	double idle_power_w;
	double run_scatter;         /* as wc_calibrate_options (0 = the base's) */
	/** As wc_calibrate_options, and with the same defaults (0 = as many
	 *  draws as the base has, seed 0), so that a k-run calibration here
	 *  is the one `wattcast calibrate` makes, interval included
	 *  (docs/intervals.md). */
	int replicates;
	uint64_t seed;
	int threads;                /* 0 = 1 */
	/** 1: calibrate and predict within one workload (`set`) at a time --
	 *  a planner's own runs under their own workload -- instead of
	 *  across every workload of the model. */
	int per_set;
} wc_fewshot_options;

#define WC_FEWSHOT_WHY_MAX 12
#define WC_FEWSHOT_WHY_LEN 200

typedef struct {
	int n_k;
	int k[WC_FEWSHOT_K_MAX];
	/** Accuracy per k, one set per platform; the same runs for every k
	 *  (`skipped` counts runs that could not be predicted at that k). */
	wc_heldout_report by_k[WC_FEWSHOT_K_MAX];
	/** Why runs were not predicted: each distinct reason per k with its
	 *  count (docs/validation.md, "Few-shot calibration"); the last one
	 *  gathers "other reasons" when more than WC_FEWSHOT_WHY_MAX differ. */
	struct {
		int k_index, count;
		char why[WC_FEWSHOT_WHY_LEN];
	} skips[WC_FEWSHOT_WHY_MAX];
	int n_skips;
	int groups;                 /* models (or platforms) scored */
	int groups_too_small;       /* with no run left after the largest k */
	int groups_without_base;    /* whose base, refitted without them (--lomo), failed */
	int largest_too_small;      /* runs of the largest of those */
} wc_fewshot_report;

/** Run the protocol on every run of `t` not excluded. `per_run` (may be
 *  NULL) receives one row per predicted run and k, its fold naming the
 *  group and k ("Qwen3-8B k=1"). */
int wc_validate_fewshot(const wc_runs_table *t, const wc_fewshot_options *o, wc_fewshot_report *out,
                        wc_per_run *per_run, wc_error *err);

#ifdef __cplusplus
}
#endif
#endif
