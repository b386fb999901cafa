/*
 * One fitted or published scalar with its 95 % interval and where it came
 * from: the unit every section of a parameter set (the power law, the
 * capacity model, the fine-tuning law) is written in
 * (docs/formats/params-file.md).
 */
#ifndef WC_MODELS_SCALAR_H
#define WC_MODELS_SCALAR_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** How a parameter value came to be. */
typedef enum {
	WC_SRC_PUBLISHED = 0, /* transcribed from a paper */
	WC_SRC_FITTED,        /* estimated by `wattcast fit` */
	WC_SRC_MEASURED,      /* read from telemetry (idle power) */
	WC_SRC_ESTIMATED,     /* derived from published aggregates (gamma2) */
	WC_SRC_ASSUMED,       /* not published, not fitted: a stated default */
	WC_SRC_CALIBRATED,    /* estimated by `wattcast calibrate` from a few runs */
	WC_SRC_BOUND,         /* the fit ended at a physical bound and held it there
	                       * (docs/fitting.md, "Physical bounds") */
	WC_SRC_DATASHEET,     /* transferred from datasheet facts (docs/fitting.md,
	                       * "Platforms without a fitted level") */
	WC_SRC_SIMULATED,     /* read from a synthetic runs table's idle column: a
	                       * simulation's input, not a measurement (docs/fitting.md,
	                       * "Where P0 comes from") */
	WC_SRC_COUNT
} wc_source;
const char *wc_source_name(wc_source s);
int wc_source_from_name(const char *name, wc_source *out);
/** Every source name in the table's order, joined by ", " into `buf`
 *  (cut to fit `cap`), which it returns: the list a refusal of an
 *  unknown source gives, from the one table of them (models/form.c). */
const char *wc_source_names(char *buf, size_t cap);

/** One scalar with its 95 % interval (lo/hi are NaN when there is none). */
typedef struct {
	double value;
	double lo, hi;
	wc_source source;
} wc_param;

#ifdef __cplusplus
}
#endif
#endif
