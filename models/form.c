/*
 * The five candidate forms of the dynamic part of inference power
 * (docs/inference-law.md) and the name tables of the enums used across the
 * law: each list of names exists here once, and parsers, writers, the CLI
 * and the JSON answers all go through it.
 */
#include "models/params.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const form_names[WC_FORM_COUNT] = {
	"power_law", "power_law_quadratic_load", "saturating",
	"saturating_quadratic_load", "floor_plus_rise", "saturating_prefill",
};

const char *
wc_form_name(wc_form form)
{
	return (unsigned)form < WC_FORM_COUNT ? form_names[form] : "unknown";
}

int
wc_form_from_name(const char *name, wc_form *out)
{
	for (int i = 0; i < WC_FORM_COUNT; i++)
		if (name && strcmp(name, form_names[i]) == 0) {
			*out = (wc_form)i;
			return WC_OK;
		}
	return WC_ENOTFOUND;
}

int
wc_form_has_scale(wc_form form)
{
	return form == WC_FORM_SATURATING || form == WC_FORM_SATURATING_QUADRATIC ||
	       form == WC_FORM_FLOOR_PLUS_RISE || form == WC_FORM_PREFILL;
}

int
wc_form_has_quadratic(wc_form form)
{
	return form == WC_FORM_POWER_LAW_QUADRATIC || form == WC_FORM_SATURATING_QUADRATIC ||
	       form == WC_FORM_FLOOR_PLUS_RISE || form == WC_FORM_PREFILL;
}

int
wc_form_has_floor(wc_form form)
{
	return form == WC_FORM_FLOOR_PLUS_RISE;
}

int
wc_form_has_prefill(wc_form form)
{
	return form == WC_FORM_PREFILL;
}

int
wc_form_is_published(wc_form form)
{
	return (unsigned)form <= WC_FORM_FLOOR_PLUS_RISE;
}

/* Logistic evaluated on the side that cannot overflow. */
static double
logistic(double z)
{
	if (z >= 0.0)
		return 1.0 / (1.0 + exp(-z));
	double e = exp(z);
	return e / (1.0 + e);
}

double
wc_form_link(wc_form form, double z, double floor_logit, double *dg_dz,
             double *dg_dfloor)
{
	double g, gz = 0.0, gf = 0.0;
	if (!wc_form_has_scale(form)) {
		g = exp(z);
		gz = g;
	} else if (!wc_form_has_floor(form)) {
		g = logistic(z);
		gz = g * (1.0 - g);
	} else {
		double f = logistic(floor_logit), r = logistic(z);
		g = f + (1.0 - f) * r;
		gz = (1.0 - f) * r * (1.0 - r);
		gf = f * (1.0 - f) * (1.0 - r);
	}
	if (dg_dz)
		*dg_dz = gz;
	if (dg_dfloor)
		*dg_dfloor = gf;
	return g;
}

double
wc_form_link_log(wc_form form, double z, double floor_logit, double *dlog_dz, double *dlog_dfloor)
{
	double lg, rz, rf = 0.0;
	if (!wc_form_has_scale(form)) {
		lg = z; /* log e^z */
		rz = 1.0;
	} else if (!wc_form_has_floor(form)) {
		/* log sigma(z) and sigma'/sigma = 1 - sigma from one exp(-|z|) */
		const double e = exp(-fabs(z));
		lg = (z >= 0 ? 0.0 : z) - log1p(e);
		rz = (z >= 0 ? e : 1.0) / (1.0 + e);
	} else {
		double gz, gf, g = wc_form_link(form, z, floor_logit, &gz, &gf);
		lg = log(g);
		rz = gz / g;
		rf = gf / g;
	}
	if (dlog_dz)
		*dlog_dz = rz;
	if (dlog_dfloor)
		*dlog_dfloor = rf;
	return lg;
}

static int
lookup(const char *const *names, int count, const char *name, int *out)
{
	for (int i = 0; i < count; i++)
		if (name && strcmp(name, names[i]) == 0) {
			*out = i;
			return WC_OK;
		}
	return WC_ENOTFOUND;
}

static const char *const precision_names[WC_PREC_COUNT] = { "bf16", "fp8", "int4" };

const char *
wc_precision_name(wc_precision p)
{
	return (unsigned)p < WC_PREC_COUNT ? precision_names[p] : "unknown";
}

int
wc_precision_from_name(const char *name, wc_precision *out)
{
	int i, rc = lookup(precision_names, WC_PREC_COUNT, name, &i);
	if (rc == WC_OK)
		*out = (wc_precision)i;
	return rc;
}

static const char *const source_names[WC_SRC_COUNT] = {
	"published", "fitted", "measured", "estimated", "assumed", "calibrated", "bound", "datasheet", "simulated",
};

const char *
wc_source_name(wc_source s)
{
	return (unsigned)s < WC_SRC_COUNT ? source_names[s] : "unknown";
}

int
wc_source_from_name(const char *name, wc_source *out)
{
	int i, rc = lookup(source_names, WC_SRC_COUNT, name, &i);
	if (rc == WC_OK)
		*out = (wc_source)i;
	return rc;
}

const char *
wc_source_names(char *buf, size_t cap)
{
	size_t at = 0;
	if (cap)
		buf[0] = '\0';
	for (int i = 0; i < WC_SRC_COUNT && at < cap; i++) {
		int n = snprintf(buf + at, cap - at, "%s%s", i ? ", " : "", source_names[i]);
		at += n > 0 ? (size_t)n : 0;
	}
	return buf;
}

static const char *const workload_names[WC_WORKLOAD_COUNT] = {
	"", "closed", "poisson", "bursty", "replay",
};

const char *
wc_workload_name(wc_workload w)
{
	return (unsigned)w < WC_WORKLOAD_COUNT ? workload_names[w] : "";
}

int
wc_workload_from_name(const char *name, wc_workload *out)
{
	int i, rc = lookup(workload_names, WC_WORKLOAD_COUNT, name, &i);
	if (rc == WC_OK)
		*out = (wc_workload)i;
	return rc;
}

const char *
wc_workload_choices(void)
{
	return "closed, poisson, bursty or replay";
}

const char *
wc_setting_name(wc_setting s)
{
	return s == WC_SETTING_KV ? "kv_cache" : "weights";
}

static const char *const placement_names[] = { "none", "inside_z", "on_s" };

const char *
wc_placement_name(wc_placement p)
{
	return (unsigned)p <= WC_PLACE_ON_S ? placement_names[p] : "none";
}

int
wc_placement_from_name(const char *name, wc_placement *out)
{
	int i, rc = lookup(placement_names, 3, name, &i);
	if (rc == WC_OK)
		*out = (wc_placement)i;
	return rc;
}

/* Index 0 (unknown) has no name: a set that does not record its mode
 * writes none. */
static const char *const precision_mode_names[WC_PMODE_COUNT] = {
	"", "paired", "all", "pooled", "as-bf16", "none",
};

const char *
wc_precision_mode_name(wc_precision_mode m)
{
	return (unsigned)m < WC_PMODE_COUNT && m != WC_PMODE_UNKNOWN ? precision_mode_names[m] : NULL;
}

int
wc_precision_mode_from_name(const char *name, wc_precision_mode *out)
{
	int i, rc = name && name[0] ? lookup(precision_mode_names, WC_PMODE_COUNT, name, &i) : WC_ENOTFOUND;
	if (rc == WC_OK)
		*out = (wc_precision_mode)i;
	return rc;
}
