/*
 * The one rule for a law's mean power no board can draw (docs/intervals.md,
 * "Physical ceiling", power no board draws): beyond twice the boards' ceiling a
 * prediction is not held at the ceiling, as an interval's end is, but
 * refused, since the law that gave it does not hold at that configuration.
 * A mean over loads hides a load beyond it behind idle ones, so the rule
 * is applied load by load wherever an answer has more than one
 * (wc_power_beyond_boards_step), and refused in one set of words.
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

int
wc_power_beyond_boards_step(const wc_load_histogram *h, double (*per_gpu_w)(const void *ctx, double running),
                            const void *ctx, double limit_w, int gpus, size_t *step, double *step_w)
{
	if (!isfinite(wc_power_ceiling_w(limit_w, gpus)))
		return 0;
	int found = 0;
	for (size_t i = 0; i < h->len; i++) {
		double w = per_gpu_w(ctx, h->running[i]);
		if (wc_power_beyond_boards(gpus * w, limit_w, gpus) && !(found && w <= *step_w)) {
			found = 1;
			*step = i;
			*step_w = w;
		}
	}
	return found;
}

int
wc_power_beyond_boards_refuse(wc_error *err, double per_gpu_w, double limit_w, const char *board, const char *where)
{
	/* worded to fit 255 bytes with every part at its widest */
	return wc_error_set(err, WC_ERANGE, "platform: the law gives %.4g W per GPU %.50s, over twice the %.0f W %.20s "
	                    "boards can average (1.1 x their limit): no board draws that: the set's law does not "
	                    "hold; no answer (docs/intervals.md)", per_gpu_w, where, WC_LEVEL_LIMIT_FACTOR * limit_w,
	                    board);
}
