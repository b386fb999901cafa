/*
 * The built-in paper profile's held-out errors (docs/intervals.md,
 * "Built-in profiles"): numbers cli/record-pred-error.sh regenerates and
 * tests/test_real_intervals.c recomputes and checks.
 */
#include "params_internal.h"

#include <stdio.h>
#include <string.h>

/* The held-out error of the published law (docs/intervals.md, "Built-in
 * profiles"): the 95 % split-conformal quantile of |log(measured /
 * predicted)| over the ML.ENERGY runs it can predict (153 H100 runs of 12
 * models it never saw; B200 has no level), as `cli/record-pred-error.sh`
 * computes it with `wattcast fit intervals --profile paper --folds frozen`;
 * tests/test_real_intervals.c recomputes and checks it. Pooled: one
 * platform of measured runs cannot stratify. A second stratum answers for
 * datasheet levels: leave one platform out (`--folds platform`), each
 * platform's runs predicted through the datasheet transfer from the other
 * levels (325 runs: H100 from A100 and H200, B200 from all three). */
static void
paper_pred_error(wc_pred_error *pe)
{
	static const double q = 0.38818860360995544, q_datasheet = 0.5547880188004253;
	memset(pe, 0, sizeof *pe);
	pe->present = 1;
	pe->level = WC_INTERVAL_LEVEL;
	snprintf(pe->quantity, sizeof pe->quantity, "mean_power_w");
	snprintf(pe->folds, sizeof pe->folds, "frozen");
	snprintf(pe->data, sizeof pe->data, "ML.ENERGY configurations_text.csv (source sha256 0624f15474b83a4b)");
	pe->n_strata = 2;
	pe->strata[0] = (wc_pe_stratum){ .platform = "", .source = "", .n = 153, .q_lo = -q, .q_hi = q };
	pe->strata[1] = (wc_pe_stratum){ .platform = "", .source = "datasheet", .n = 325, .q_lo = -q_datasheet,
		                         .q_hi = q_datasheet };
}

/* The capacity model's held-out error (docs/intervals.md, "Built-in
 * profiles"): leave one model out on the ML.ENERGY runs (12 models per
 * platform, 325 runs; the capacity model and the power law refitted
 * without each), as `cli/record-pred-error.sh` computes it with
 * `wattcast fit intervals --quantity capacity --plain`; tests/test_real_intervals.c
 * recomputes and checks it. The built-in section was fitted on the
 * published periods, not on these runs: what is recorded is how far the
 * same capacity model misses a model it was not fitted on. Pooled. */
static void
paper_quantity_errors(wc_pred_error *pe)
{
	static const double q[2] = { 0.59471529798938394, 0.65100393038994508 };
	static const int which[2] = { WC_PEQ_LATENCY, WC_PEQ_ENERGY_TOKEN };
	for (int i = 0; i < 2; i++)
		wc_pe_set_pooled(&pe[which[i]], which[i], "model",
		                 "ML.ENERGY configurations_text.csv (source sha256 0624f15474b83a4b)", 325, q[i]);
	/* A board transferred from a datasheet: each platform's runs predicted
	 * from a capacity fit on the other's and its power level transferred
	 * (same command). */
	static const double q_datasheet[2] = { 0.64759788293476073, 0.74244356932737199 };
	for (int i = 0; i < 2; i++)
		pe[which[i]].strata[pe[which[i]].n_strata++] = (wc_pe_stratum){
			.platform = "", .source = "datasheet", .n = 325, .q_lo = -q_datasheet[i], .q_hi = q_datasheet[i]
		};
}

void
wc__paper_held_out_errors(wc_params *out)
{
	paper_pred_error(&out->pred_error);
	paper_quantity_errors(out->quantity_error);
}
