/* Private to models/: the built-in paper profile's held-out errors
 * (models/params_paper_errors.c), kept apart from the profile's law. */
#ifndef WC_MODELS_PARAMS_INTERNAL_H
#define WC_MODELS_PARAMS_INTERNAL_H

#include "models/params.h"

/** The paper profile's pred_error and quantity_error sections, as
 *  cli/record-pred-error.sh regenerates them. */
void wc__paper_held_out_errors(wc_params *out);

#endif
