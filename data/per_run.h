/*
 * Per-run validation output (docs/validation.md, "Per-run output"): what
 * every validation command writes with `--per-run FILE` -- one CSV row per
 * run it predicted, with the inputs it used, predicted and measured
 * values, the error, the interval and the warnings, so a researcher sees
 * which run missed and why, not only medians.
 *
 * Ownership: a wc_per_run owns its rows; start at WC_PER_RUN_INIT, free
 * with wc_per_run_clear.
 */
#ifndef WC_DATA_PER_RUN_H
#define WC_DATA_PER_RUN_H

#include <stddef.h>

#include "models/error.h"
#include "models/warnings.h"

#ifdef __cplusplus
extern "C" {
#endif

#define WC_PER_RUN_INPUTS_MAX 24
/** Warnings one row holds whole: a prediction's full list (WC_WARNINGS_MAX)
 *  and the few a writer adds of its own (envelope: the replay note, the
 *  service fallback and the response bound note, up to 511 bytes = two).
 *  Sized so no writer's warnings are cut (docs/validation.md, "Per-run
 *  output"); a list longer still ends in "...". */
#define WC_PER_RUN_WARNINGS_MAX (WC_WARNINGS_MAX + 4)
/** Bytes of a row's `warnings`: that many of WC_WARNING_LEN - 1 bytes,
 *  "; " between them, room for a closing "; ..." and the NUL. */
#define WC_PER_RUN_WARNINGS_LEN (WC_PER_RUN_WARNINGS_MAX * (WC_WARNING_LEN + 1) + 8)

/** One prediction checked against one measurement. Inputs are named
 *  columns (the union over rows, in order of first appearance, becomes
 *  the header). Numbers that do not apply are NaN (blank in the file). */
typedef struct {
	char run_id[96];
	char set[48];          /* the validation set, or the platform for lomo */
	char fold[96];         /* what was held out to predict it ("" = nothing) */
	char quantity[40];     /* "mean_power_w", "throughput_tok_s", ... */
	int n_inputs;
	char input_name[WC_PER_RUN_INPUTS_MAX][32];
	char input_value[WC_PER_RUN_INPUTS_MAX][64];
	double predicted, measured;
	double error_pct;      /* 100 (predicted - measured) / measured */
	double lo, hi;         /* 95 % interval of the prediction, NaN without */
	double ceiling, floor; /* what holds an interval built later (the
	                        * answer's physical bounds), NaN = none */
	char p0_source[24];    /* "run", or the parameter set's source of P0 */
	char warnings[WC_PER_RUN_WARNINGS_LEN]; /* "; "-separated, each whole */
	int warnings_closed;   /* ended in "; ...": later warnings dropped */
	int twin;              /* the measurement of an earlier row given again
	                        * (a period's twin, wc_fit_period_twins): its
	                        * interval is built, but it has no share in a
	                        * quantile (docs/capacity.md, "Twins count once") */
} wc_per_run_row;

typedef struct {
	wc_per_run_row *rows;
	size_t n, cap;
} wc_per_run;

#define WC_PER_RUN_INIT { .rows = NULL, .n = 0, .cap = 0 }

/** A row with every number NaN and every text empty. */
void wc_per_run_row_init(wc_per_run_row *row);
/** Add an input column (`value` formatted by the caller; cut at 63 bytes;
 *  ignored beyond WC_PER_RUN_INPUTS_MAX). */
void wc_per_run_row_input(wc_per_run_row *row, const char *name, const char *value);
/** Same for a number (%.10g; blank when not finite). */
void wc_per_run_row_input_number(wc_per_run_row *row, const char *name, double value);
/** The value of input column `name`, "" when the row has none. */
const char *wc_per_run_row_get(const wc_per_run_row *row, const char *name);
/** Append a warning to the row's "; "-separated list, whole. One that
 *  does not fit (more than WC_PER_RUN_WARNINGS_MAX long ones) ends the
 *  list in "; ..." and it and later ones are dropped: never cut mid-word. */
void wc_per_run_row_warn(wc_per_run_row *row, const char *warning);
/** Append a copy of `row`. */
int wc_per_run_add(wc_per_run *pr, const wc_per_run_row *row, wc_error *err);
void wc_per_run_clear(wc_per_run *pr);
/** Write the rows as CSV, atomically: run_id, set, fold, the input
 *  columns, quantity, predicted, measured, error_pct, lo, hi, p0_source,
 *  warnings. An empty set of rows writes the fixed header only. */
int wc_per_run_write(const char *path, const wc_per_run *pr, wc_error *err);

#ifdef __cplusplus
}
#endif
#endif
