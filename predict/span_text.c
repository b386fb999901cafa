/*
 * How a warning states a calibrated span and the value outside it
 * (docs/inference-law.md, "Unseen configurations"): few digits, as a
 * reader takes them in, but never so few that a value outside the span
 * prints as equal to the bound it lies beyond ("load 7.9 is outside the
 * calibrated span 7.9-1915" when the bound is 7.90085). One rule for the
 * power answer's spans (predict/predictor.c), the capacity answer's
 * (predict/capacity_span.c) and the clock's (predict/clock_note.c).
 */
#include "predict_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const char *
wc__predict_sig(char *buf, size_t cap, double v, int digits)
{
	double m = fabs(v);
	int dec = m > 0.0 && m < 1e6 ? digits - 1 - (int)floor(log10(m)) : 0;
	if (!(m < 1e6))
		snprintf(buf, cap, "%.*g", digits, v);
	else
		snprintf(buf, cap, "%.*f", dec > 0 ? dec : 0, v);
	/* "7.90" -> "7.9", "32.0" -> "32": trailing zeros say nothing */
	if (strchr(buf, '.') && !strchr(buf, 'e')) {
		char *e = buf + strlen(buf) - 1;
		while (*e == '0')
			*e-- = '\0';
		if (*e == '.')
			*e = '\0';
	}
	return buf;
}

/* Does `x`, beyond the bound `b` (below it when `below`), print as `b`
 * at `digits`? */
static int
prints_as_bound(double x, double b, int below, int digits)
{
	char xs[40], bs[40];
	if (!(below ? x < b : x > b))
		return 0;
	return strcmp(wc__predict_sig(xs, sizeof xs, x, digits), wc__predict_sig(bs, sizeof bs, b, digits)) == 0;
}

int
wc__predict_span_digits(double v_lo, double v_hi, double lo, double hi)
{
	int d = WC__SPAN_DIGITS;
	while (d < 17 && (prints_as_bound(v_lo, lo, 1, d) || prints_as_bound(v_hi, lo, 1, d) ||
	                  prints_as_bound(v_lo, hi, 0, d) || prints_as_bound(v_hi, hi, 0, d)))
		d++;
	return d;
}

const char *
wc_predict_share_format(char *buf, size_t cap, double share)
{
	char pct[32];
	snprintf(pct, sizeof pct, "%.1f", 100.0 * (share >= WC__SHARE_ALL ? 1.0 : share));
	/* one sample of 3000 read "for 0.0 % of the series' time", 2999 of
	 * them "for 100.0 %": a caveat that holds somewhere, said of nowhere
	 * or of everywhere */
	if (share > 0.0 && strcmp(pct, "0.0") == 0)
		snprintf(buf, cap, "<0.1 %%");
	else if (share < WC__SHARE_ALL && strcmp(pct, "100.0") == 0)
		snprintf(buf, cap, ">99.9 %%");
	else
		snprintf(buf, cap, "%s %%", pct);
	return buf;
}

const char *
wc__predict_series_share(char *buf, size_t cap, double share)
{
	char pct[32];
	buf[0] = '\0';
	if (share > 0.0 && share < WC__SHARE_ALL)
		snprintf(buf, cap, " for %s of the series' time", wc_predict_share_format(pct, sizeof pct, share));
	return buf;
}

const char *
wc_predict_power_text(char *buf, size_t cap, double w, double bound_w)
{
	char ws[40], bs[40];
	snprintf(ws, sizeof ws, "%.1f", w);
	snprintf(bs, sizeof bs, "%.1f", bound_w);
	/* 200.027 W above a 200 W cap read "draws 200.0 W": the span rule's
	 * digits then, as a span bound's (docs/inference-law.md, "Unseen
	 * configurations") */
	if (w > bound_w && strcmp(ws, bs) == 0)
		wc__predict_sig(ws, sizeof ws, w, wc__predict_span_digits(w, w, bound_w, bound_w));
	snprintf(buf, cap, "%s", ws);
	return buf;
}
