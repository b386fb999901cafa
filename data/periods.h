/*
 * Periods tables (docs/formats/periods-table.md): measured batch-turnover
 * periods of closed-loop runs -- the published ones ship as
 * data/default/published-periods.csv -- one of the inputs of the capacity
 * fit. A table is created by wc_periods_read and freed with
 * wc_periods_free.
 */
#ifndef WC_DATA_PERIODS_H
#define WC_DATA_PERIODS_H

#include <stddef.h>

#include "models/models.h"

#ifdef __cplusplus
extern "C" {
#endif

/** One closed-loop configuration and its period. Blank numbers are NaN. */
typedef struct {
	char run_id[96];
	char platform[WC_NAME_MAX];
	char model[WC_MODEL_NAME_MAX];
	int tp;
	double running;        /* requests in flight */
	double input_tokens;   /* NaN = not stated (the fit estimates it per set) */
	double output_tokens;
	double period_s;       /* measured batch-turnover period */
	wc_precision weights, kv;
	char set[48];
	char exclude[128];     /* non-empty = left out of fits, with the reason */
	int line;
} wc_period_row;

typedef struct {
	char path[512];
	char sha256[65];
	wc_period_row *rows;
	size_t n_rows, cap_rows;
} wc_periods_table;

/** Does the CSV at `path` look like a periods table (its header has a
 *  `period_s` column)? 1 yes, 0 no (or unreadable: the real reader says why). */
int wc_periods_detect(const char *path);
/** Read strictly: file:line:column and the reason on every refusal. */
int wc_periods_read(const char *path, wc_periods_table **out, wc_error *err);
void wc_periods_free(wc_periods_table *t);

#ifdef __cplusplus
}
#endif
#endif
