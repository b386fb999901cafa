/* Private to validation/: scoring a frozen law on one run. */
#ifndef WC_VALIDATION_INTERNAL_H
#define WC_VALIDATION_INTERNAL_H

#include "validation/validation.h"

/** Residual of the law on a run in the fit's metric, model minus data in
 *  log(P̄ − G·P0) (P0: the run's measured idle, else the level's). NaN when
 *  the run cannot be scored (unknown level, P̄ <= G·P0, law error). */
double wc__log_residual(const wc_params *p, const wc_run *run);

#endif
