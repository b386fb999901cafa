/* Private to models/: the per-level numbers of a datasheet capacity level
 * (models/capacity_transfer.c; docs/capacity.md, "Platforms without a
 * capacity level"). */
#ifndef WC_MODELS_CAPACITY_INTERNAL_H
#define WC_MODELS_CAPACITY_INTERNAL_H

#include "models/capacity_model.h"

/** Kind `k` of a datasheet binding: the median over its source levels of
 *  their point values (`draw` NULL) or of their columns in `draw`. */
double wc__capacity_transfer_value(const wc_capacity_binding *b, wc_capacity_kind k, const double *draw);

#endif
