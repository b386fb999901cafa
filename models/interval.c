/*
 * Intervals of predictions (models/interval.h, docs/intervals.md): the one
 * percentile rule for draws, and the conformal quantiles of the law's
 * held-out error.
 */
#include "models/interval.h"
#include "models/limits.h"

#include "models/error.h"
#include "models/stats.h"

#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int
wc_interval_contain(double point, double *lo, double *hi)
{
	if (!isfinite(*lo) || !isfinite(*hi)) {
		*lo = *hi = NAN;
		return 0;
	}
	if (isfinite(point)) {
		*lo = fmin(*lo, point);
		*hi = fmax(*hi, point);
	}
	if (!(*hi > *lo)) {
		*lo = *hi = NAN;
		return 0;
	}
	return 1;
}

int
wc_interval_t(double v, double se, int dof, double *lo, double *hi)
{
	*lo = *hi = NAN;
	if (!isfinite(v) || !isfinite(se) || se < 0.0 || dof < 1)
		return 0;
	/* 0.5 + 0.5 x 0.95 is 0.975 exactly in binary, the literal the
	 * fine-tuning fit used before this rule lived here. */
	double t = gsl_cdf_tdist_Pinv(0.5 + 0.5 * WC_INTERVAL_LEVEL, dof);
	*lo = v - t * se;
	*hi = v + t * se;
	return wc_interval_contain(v, lo, hi);
}

int
wc_interval_from_draws(double *v, size_t n, double point, double *lo, double *hi)
{
	size_t m = 0;
	*lo = *hi = NAN;
	for (size_t i = 0; i < n; i++)
		if (isfinite(v[i]))
			v[m++] = v[i];
	if (m < 2)
		return 0;
	qsort(v, m, sizeof *v, cmp_double);
	/* Every draw the same: no interval. Said explicitly because type 7's
	 * (1 - d) v + d v need not round back to v. */
	if (v[0] == v[m - 1])
		return 0;
	/* The 2.5 / 97.5 percentiles of WC_INTERVAL_LEVEL, written as the
	 * literals the inference fit always used: (1 - 0.95) / 2 is not 0.025
	 * in binary and would move the last bit of its intervals. */
	*lo = wc_stats_quantile_sorted(v, m, 0.025);
	*hi = wc_stats_quantile_sorted(v, m, 0.975);
	return wc_interval_contain(point, lo, hi);
}

int
wc_pe_quantiles(double *r, size_t n, double level, double *q_lo, double *q_hi)
{
	*q_lo = *q_hi = NAN;
	if (n == 0 || !(level > 0.0 && level < 1.0))
		return 0;
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		if (isfinite(r[i]))
			r[m++] = fabs(r[i]);
	/* The (n + 1) is the conformal correction: the new run is one more
	 * exchangeable residual (docs/intervals.md). */
	size_t k = (size_t)ceil((double)(m + 1) * level - 1e-9);
	if (m == 0 || k < 1 || k > m)
		return 0;
	qsort(r, m, sizeof *r, cmp_double);
	/* Width even when every held-out residual was zero. */
	double q = fmax(r[k - 1], 1e-6);
	*q_lo = -q;
	*q_hi = q;
	return 1;
}

static const wc_pe_stratum *
find_exact(const wc_pred_error *pe, const char *platform, const char *source)
{
	for (int i = 0; i < pe->n_strata; i++) {
		const wc_pe_stratum *s = &pe->strata[i];
		if (strcmp(s->platform, platform) == 0 && strcmp(s->source, source) == 0)
			return s;
	}
	return NULL;
}

const wc_pe_stratum *
wc_pe_find(const wc_pred_error *pe, const char *platform, const char *source)
{
	if (!pe || !pe->present)
		return NULL;
	const wc_pe_stratum *s = find_exact(pe, platform, source);
	if (!s)
		s = find_exact(pe, platform, "");
	if (!s)
		s = find_exact(pe, "", source);
	if (!s)
		s = find_exact(pe, "", "");
	return s;
}

int
wc_pe_widen(const wc_pe_stratum *s, double point, double *lo, double *hi)
{
	if (s && isfinite(point) && point > 0.0 && isfinite(s->q_lo) && isfinite(s->q_hi)) {
		double a = point * exp(s->q_lo), b = point * exp(s->q_hi);
		*lo = isfinite(*lo) ? fmin(*lo, a) : a;
		*hi = isfinite(*hi) ? fmax(*hi, b) : b;
	}
	return wc_interval_contain(point, lo, hi);
}

void
wc_pe_transfer_stratum(const wc_pred_error *pe, const wc_pe_stratum *s, wc_pe_stratum *out)
{
	*out = *s;
	if (pe && pe->present && strcmp(s->source, "datasheet") == 0) {
		const wc_pe_stratum *fitted = find_exact(pe, "", "");
		if (fitted && fitted != s) {
			/* point * exp(q) is monotone in q: the union of the two
			 * intervals is the interval of the outer quantiles */
			out->q_lo = fmin(s->q_lo, fitted->q_lo);
			out->q_hi = fmax(s->q_hi, fitted->q_hi);
		}
	}
}

int
wc_pe_widen_transfer(const wc_pred_error *pe, const wc_pe_stratum *s, double point, double *lo, double *hi)
{
	if (!s)
		return wc_pe_widen(s, point, lo, hi);
	wc_pe_stratum both;
	wc_pe_transfer_stratum(pe, s, &both);
	return wc_pe_widen(&both, point, lo, hi);
}

int
wc_pe_calibrated_stratum(const wc_pred_error *pe, const wc_pe_stratum *s, double point, double lo, double hi,
                         wc_pe_stratum *out)
{
	wc_pe_transfer_stratum(pe, s, out);
	if (!isfinite(point) || !(point > 0.0) || !isfinite(lo) || !isfinite(hi) || !(lo > 0.0) ||
	    !isfinite(out->q_lo) || !isfinite(out->q_hi))
		return 0;
	/* the draws' ends moved by the held-out error: their log half-widths add */
	out->q_lo += log(fmin(lo, point) / point);
	out->q_hi += log(fmax(hi, point) / point);
	return 1;
}

int
wc_pe_widen_calibrated(const wc_pred_error *pe, const wc_pe_stratum *s, double point, double *lo, double *hi)
{
	wc_pe_stratum both;
	if (!s || !isfinite(*lo) || !isfinite(*hi) || !(*lo > 0.0))
		return wc_pe_widen_transfer(pe, s, point, lo, hi);
	if (!wc_pe_calibrated_stratum(pe, s, point, *lo, *hi, &both))
		return wc_pe_widen(NULL, point, lo, hi);
	*lo = *hi = NAN; /* the draws are in the stratum now */
	return wc_pe_widen(&both, point, lo, hi);
}

double
wc_interval_hold_ceiling(double point, double ceiling, double *hi)
{
	if (!isfinite(ceiling) || !isfinite(*hi) || !isfinite(point) || *hi <= ceiling || *hi <= 0.0)
		return 1.0;
	double held = fmax(ceiling, point);
	double f = held / *hi;
	*hi = held;
	return f;
}

void
wc_interval_hold_floor(double point, double floor, double *lo)
{
	if (isfinite(floor) && floor > 0.0 && isfinite(*lo) && isfinite(point) && *lo < floor)
		*lo = fmin(floor, point);
}

int
wc_interval_applies(double mean_running)
{
	return !wc_load_is_idle(mean_running);
}

int
wc_interval_includes(double lo, double hi, double v)
{
	/* The tie tolerance of docs/intervals.md, "Validation": ten printed
	 * digits cannot tell the two apart either. */
	static const double tie = 1e-9;
	return isfinite(lo) && isfinite(hi) && isfinite(v) && v >= lo - tie * fabs(lo) && v <= hi + tie * fabs(hi);
}

int
wc_pe_add(wc_pred_error *pe, const wc_pe_stratum *s)
{
	if (pe->n_strata >= WC_PE_STRATA_MAX)
		return WC_ERANGE;
	pe->strata[pe->n_strata++] = *s;
	return WC_OK;
}

static const char *const pe_names[WC_PEQ_COUNT] = {
	"latency_s", "energy_per_output_token_j", "finetune_energy_per_step_j",
};

const char *
wc_pe_quantity_name(int q)
{
	return q >= 0 && q < WC_PEQ_COUNT ? pe_names[q] : "?";
}

void
wc_pe_set_pooled(wc_pred_error *x, int q, const char *folds, const char *data, int n, double q_log)
{
	memset(x, 0, sizeof *x);
	x->present = 1;
	x->level = WC_INTERVAL_LEVEL;
	snprintf(x->quantity, sizeof x->quantity, "%s", wc_pe_quantity_name(q));
	snprintf(x->folds, sizeof x->folds, "%s", folds);
	snprintf(x->data, sizeof x->data, "%s", data);
	x->n_strata = 1;
	x->strata[0] = (wc_pe_stratum){ .platform = "", .source = "", .n = n, .q_lo = -q_log, .q_hi = q_log };
}

int
wc_pe_quantity_from_name(const char *name)
{
	for (int q = 0; q < WC_PEQ_COUNT; q++)
		if (strcmp(pe_names[q], name) == 0)
			return q;
	return -1;
}

/* What intervals can cover (wc_interval_covers): static strings, so that
 * answers can borrow them; server/openapi.json lists every one
 * (IntervalCovers), and wc_interval_covers_at walks them for its test. */
static const char *const whats[] = { NULL, "latency", "energy per output token", "mean power",
                                     "mean power (not of latency)", "latency of datasheet transfers",
                                     "latency and mean power of datasheet transfers",
                                     "energy per output token of datasheet transfers",
                                     "mean power of datasheet transfers", WC_COVERS_DATASHEET };
static const char *const both[] = { "parameters and held-out error", "parameters and held-out error of latency",
                                    "parameters and held-out error of energy per output token",
                                    "parameters and held-out error of mean power",
                                    "parameters and held-out error of mean power (not of latency)",
                                    "parameters and held-out error of latency of datasheet transfers",
                                    "parameters and held-out error of latency and mean power of datasheet "
                                    "transfers",
                                    "parameters and held-out error of energy per output token of datasheet "
                                    "transfers",
                                    "parameters and held-out error of mean power of datasheet transfers",
                                    "parameters and held-out error of " WC_COVERS_DATASHEET };
static const char *const alone[] = { "held-out error", "held-out error of latency",
                                     "held-out error of energy per output token", "held-out error of mean power",
                                     "held-out error of mean power (not of latency)",
                                     "held-out error of latency of datasheet transfers",
                                     "held-out error of latency and mean power of datasheet transfers",
                                     "held-out error of energy per output token of datasheet transfers",
                                     "held-out error of mean power of datasheet transfers",
                                     "held-out error of " WC_COVERS_DATASHEET };
#define COVERS_WHATS (sizeof whats / sizeof whats[0])
/* Mean power's whats, which an open loop's caveat follows
 * (wc_interval_covers_loop): composed, not listed one by one. */
#define POWER_WHATS(X) X("mean power") X("mean power of datasheet transfers")
#define AS_WHAT(w) w,
#define AS_ALONE(w) "held-out error of " w WC_COVERS_OPEN_LOOP,
#define AS_BOTH(w) "parameters and held-out error of " w WC_COVERS_OPEN_LOOP,
static const char *const open_whats[] = { POWER_WHATS(AS_WHAT) };
static const char *const open_alone[] = { POWER_WHATS(AS_ALONE) };
static const char *const open_both[] = { POWER_WHATS(AS_BOTH) };
#define OPEN_WHATS (sizeof open_whats / sizeof open_whats[0])

const char *
wc_interval_covers(int draws, int held_out, const char *what)
{
	if (!held_out)
		return "parameters";
	size_t k = 0; /* an unknown `what` is left unnamed */
	for (size_t i = 1; what && i < COVERS_WHATS; i++)
		if (strcmp(whats[i], what) == 0)
			k = i;
	return draws > 0 ? both[k] : alone[k];
}

const char *
wc_interval_covers_loop(int draws, int held_out, const char *what, int open_loop)
{
	for (size_t i = 0; open_loop && held_out && what && i < OPEN_WHATS; i++)
		if (strcmp(open_whats[i], what) == 0)
			return draws > 0 ? open_both[i] : open_alone[i];
	return wc_interval_covers(draws, held_out, what);
}

const char *
wc_interval_covers_at(size_t i)
{
	static const char *const params[] = { "parameters", WC_COVERS_PARAMETERS_NOT_LATENCY,
		                              WC_COVERS_PARAMETERS_NOT_POWER };
	if (i < 3)
		return params[i];
	i -= 3;
	if (i < 2 * COVERS_WHATS)
		return i < COVERS_WHATS ? alone[i] : both[i - COVERS_WHATS];
	i -= 2 * COVERS_WHATS;
	return i < OPEN_WHATS ? open_alone[i] : i < 2 * OPEN_WHATS ? open_both[i - OPEN_WHATS] : NULL;
}
