/*
 * The caveat of the clock an answer runs at (docs/inference-law.md,
 * "Unseen configurations"): no runs at a known locked clock calibrated, so
 * the clock term's kappa is assumed, or a clock outside the calibrated span; and a
 * clock below half the top clock. One rule for the power answer
 * (predict/predictor.c) and the envelope's power map (predict/envelope.c):
 * said where the answer's clock is not the free one and the answer
 * depends on it, naming what set the clock.
 */
#include "predict_internal.h"

#include <stdio.h>
#include <string.h>

#include "models/evaluate.h"

int
wc__predict_clock_note(const wc_params *p, const wc_level *lvl, const char *field, double mhz, double running,
                       double least, double settled, int said, char *buf, size_t cap)
{
	const wc_range *r = &lvl->range;
	buf[0] = '\0';
	const int asked = strcmp(field, "sm_clock_mhz") == 0;
	/* A series settled step by step has no one clock: its steps over the
	 * cap or limit each settle under it, at clocks kappa places
	 * (docs/capacity.md, "The board's power limit"). */
	const int stepwise = !asked && !(least > 0.0) && settled > 0.0;
	/* The free clock is the clock term's reference (phi = 1): a lock
	 * there is the unlocked answer, and an idle answer, G x P0, has no
	 * clock term at all. */
	if (!stepwise && (!(mhz > 0.0) || mhz == wc_law_clock_ref_mhz(lvl, p->clock_ref_mhz)))
		return 0;
	if (!(running > 0.0) || (stepwise && r->clock_max > 0.0))
		return 0;
	/* No clock meets the cap or limit (docs/capacity.md, "Clocks and
	 * power caps"): the clock is that of least power, not one the GPU
	 * settles at, as the CLI's header and the "not reached" warning say. */
	const char *limit = strcmp(field, "power_cap_w") == 0 ? "cap" : "board's limit";
	/* A series' steps run there only for the share no clock meets: said
	 * with it, not as the whole series' clock (docs/capacity.md, "The
	 * board's power limit"). */
	char share[48];
	wc__predict_series_share(share, sizeof share, stepwise ? settled : least);
	char at[128] = "";
	/* The board's limit's own warning says the clock it set and why
	 * (docs/capacity.md, "The board's power limit"): one line per fact,
	 * so only the kappa or span caveat is said here. */
	const int named = asked || said;
	if (stepwise)
		snprintf(at, sizeof at, "the GPU settles under the %s%s; ", limit, share);
	else if (!named && least > 0.0)
		wc_error_format(at, sizeof at, "the GPU runs at the clock of least power, %.0f MHz,%s%s still above the %s; ",
		                mhz, share, share[0] ? "," : "", limit);
	else if (!named)
		snprintf(at, sizeof at, "the GPU settles at %.0f MHz; ", mhz);
	/* What is missing is a clock the runs are known to have run at: a
	 * host whose runs were all locked at one clock the source does not
	 * give (Table 13's H100-locked) has its lock in its theta and P0, not
	 * in kappa, which no table publishes (docs/inference-law.md, "Clock
	 * term"). */
	if (r->clock_max <= 0.0)
		snprintf(buf, cap, "%s: %sno runs at a known locked clock were calibrated on %s%s; kappa = %g is %s", field,
		         at, lvl->name, p->kappa.source == WC_SRC_ASSUMED ? " and kappa is unpublished" : "",
		         p->kappa.value, wc_source_name(p->kappa.source));
	else if (mhz < r->clock_min || mhz > r->clock_max) {
		char v[40], lo[40], hi[40];
		int dg = wc__predict_span_digits(mhz, mhz, r->clock_min, r->clock_max);
		dg = dg > 6 ? dg : 6;
		char whose[80];
		snprintf(whose, sizeof whose, "the clock of least power%s, ", share);
		snprintf(buf, cap, "%s: %s%s MHz is outside the calibrated span %s-%s MHz on %s", field,
		         named ? "" : least > 0.0 ? whose : "the clock it settles at, ", wc__predict_sig(v, sizeof v, mhz, dg),
		         wc__predict_sig(lo, sizeof lo, r->clock_min, dg), wc__predict_sig(hi, sizeof hi, r->clock_max, dg),
		         lvl->name);
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

int
wc__predict_clock_low_steps_note(const wc_params *p, const char *platform, const char *field,
                                 const wc__series_steps *st, char *buf, size_t cap)
{
	buf[0] = '\0';
	if (!(st->low_share > 0.0))
		return 0;
	if (st->low_share >= WC__SHARE_ALL && st->low_mhz[0] == st->low_mhz[1])
		return wc__predict_clock_low_note(p, platform, field, st->low_mhz[0], buf, cap);
	char share[48], at[48];
	wc__predict_series_share(share, sizeof share, st->low_share);
	if (st->low_mhz[0] == st->low_mhz[1])
		snprintf(at, sizeof at, "at %.0f MHz", st->low_mhz[0]);
	else
		snprintf(at, sizeof at, "at %.0f-%.0f MHz", st->low_mhz[0], st->low_mhz[1]);
	snprintf(buf, cap, "%s: the GPU runs %s, below half of %.64s's %.0f MHz top clock%s; " WC__CLOCK_LOW_CLAUSE,
	         field, at, platform, wc_predict_board(p, platform)->max_sm_clock_mhz, share);
	return 1;
}
