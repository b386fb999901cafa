/*
 * The built-in "measured" profile (docs/fitting.md, "The measured
 * profile"): the inference law and capacity model fitted by
 * validation/refit-measured.sh on the real measurements beside the
 * repository, the default of predict, serve and envelope.
 *
 * Ownership: as models/params.h (the set owns no draws).
 */
#ifndef WC_MODELS_PROFILE_MEASURED_H
#define WC_MODELS_PROFILE_MEASURED_H

#include "models/params.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Name of the profile answers use when no --params/--profile is given. */
#define WC_DEFAULT_PROFILE "measured"

/** What the measured profile was fitted on and how: the data, the commands
 *  and the date (also written into its "provenance"). */
extern const char wc_measured_provenance[];

/** Fill `out` (WC_PARAMS_INIT or a filled set, released first) with the
 *  measured profile. */
void wc_params_measured(wc_params *out);

#ifdef __cplusplus
}
#endif
#endif
