/*
 * The caveat of a clock asked (docs/inference-law.md, "Unseen
 * configurations"): no clock-locked runs calibrated, so the clock term's
 * kappa is assumed, or a clock outside the calibrated span; and a clock
 * below half the top clock. One rule for the power answer
 * (predict/predictor.c) and the envelope's power map (predict/envelope.c).
 */
#include "predict_internal.h"

#include <stdio.h>

int
wc__predict_clock_note(const wc_params *p, const wc_level *lvl, const wc_config *c, char *buf, size_t cap)
{
	const wc_range *r = &lvl->range;
	buf[0] = '\0';
	if (!(c->sm_clock_mhz > 0.0))
		return 0;
	if (r->clock_max <= 0.0)
		snprintf(buf, cap, "sm_clock_mhz: no clock-locked runs were calibrated on %s; kappa = %g is %s",
		         lvl->name, p->kappa.value, wc_source_name(p->kappa.source));
	else if (c->sm_clock_mhz < r->clock_min || c->sm_clock_mhz > r->clock_max) {
		char lo[40], hi[40];
		const int dg = wc__predict_span_digits(c->sm_clock_mhz, c->sm_clock_mhz, r->clock_min, r->clock_max);
		snprintf(buf, cap, "sm_clock_mhz: %.*g MHz is outside the calibrated span %s-%s MHz on %s",
		         dg > 6 ? dg : 6, c->sm_clock_mhz, wc__predict_sig(lo, sizeof lo, r->clock_min, dg > 6 ? dg : 6),
		         wc__predict_sig(hi, sizeof hi, r->clock_max, dg > 6 ? dg : 6), lvl->name);
	}
	return buf[0] != '\0';
}

int
wc__predict_clock_low(const wc_params *p, const char *platform, double mhz)
{
	const wc_platform_info *b = wc_predict_board(p, platform);
	return b && mhz > 0.0 && mhz < 0.5 * b->max_sm_clock_mhz;
}

int
wc__predict_clock_low_note(const wc_params *p, const char *platform, const char *field, double mhz, char *buf,
                           size_t cap)
{
	buf[0] = '\0';
	if (!wc__predict_clock_low(p, platform, mhz))
		return 0;
	snprintf(buf, cap, "%s: the GPU runs at %.0f MHz of %.64s's %.0f MHz top clock; " WC__CLOCK_LOW_CLAUSE, field, mhz,
	         platform, wc_predict_board(p, platform)->max_sm_clock_mhz);
	return 1;
}
