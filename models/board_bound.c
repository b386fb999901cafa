/*
 * The one rule for a law's mean power no board can draw (docs/intervals.md,
 * "Physical ceiling"): beyond twice the boards' ceiling a prediction is
 * not held at the ceiling, as an interval's end is, but refused, since the
 * law that gave it does not hold at that configuration.
 */
#include "models/evaluate.h"
#include "models/limits.h"

#include <math.h>

int
wc_power_beyond_boards(double node_w, double limit_w, int gpus)
{
	double ceiling_w = wc_power_ceiling_w(limit_w, gpus);
	return isfinite(ceiling_w) && node_w > WC_BOARD_LIMIT_MULTIPLE_MAX * ceiling_w;
}
