/*
 * The documented range of every parameter of the inference law
 * (docs/formats/params-file.md, "Ranges"), checked when a file is loaded
 * and before one is written, so a set no fit could produce (delta =
 * 1e308) is refused naming its key instead of predicting nonsense.
 *
 * The bounds follow from the law, not from any data set:
 *  - logits (theta, floor_logit, shifts inside z): sigma(z) is 0 or 1 to
 *    double precision well before |z| = 100, so a larger one carries no
 *    information; for the power-law forms theta is log W, and e^100 W is
 *    no machine either;
 *  - slopes (delta, gamma1, gamma2, kappa) multiply log-ratio coordinates
 *    of order 1 (a factor e from the reference point), so a slope beyond
 *    100 moves z past that bound within a factor e;
 *  - powers per GPU (p0_w, s_w): 0 to 10 kW, ten times the largest board
 *    limit in the platform catalog;
 *  - phi (prefill power as a share of the headroom) and a factor on S:
 *    0 to 100; clock_ref_mhz: 0 to 10 000 MHz.
 */
#include "params_internal.h"
#include "models/limits.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	double lo, hi;
	const char *what;
} param_range;

static const param_range LOGIT = { -100.0, 100.0, "a logit" };
static const param_range SLOPE = { -100.0, 100.0, "a slope in z per log unit" };
static const param_range POWER = { 0.0, 1e4, "W per GPU" };
static const param_range SHARE = { 0.0, 100.0, "a ratio" };
static const param_range CLOCK = { 0.0, 1e4, "MHz" };
/* provenance/residual_rms is a fit's RMS in log units, which calibrate
 * takes as the run scatter when given none: at most --run-scatter's top
 * (models/limits.h); a perfect fit's 1e-15 is a true RMS and loads, and
 * calibrate takes the range's floor for it (docs/calibration.md). */
static const param_range SCATTER = { 0.0, WC_RUN_SCATTER_MAX,
	                             "a fit's residual RMS, the scatter calibrate takes as --run-scatter" };

/* NaN is "not set" (an optional parameter); the validator decides
 * whether the form needs it. */
static int
check(const char *path, const char *key, double x, const param_range *r, wc_error *err)
{
	if (isnan(x) || (x >= r->lo && x <= r->hi))
		return WC_OK;
	/* the value as it reads back: %g printed 10.0000001 as "10", inside
	 * the range [0, 10] it was refused for (models/error.h) */
	return wc_error_set(err, WC_ERANGE,
	                    "%s%s: %s is outside the documented range [%g, %g] (%s; "
	                    "docs/formats/params-file.md, \"Ranges\")",
	                    path, key, WC_NUM_TEXT(x), r->lo, r->hi, r->what);
}

static int
check_levels(const wc_params *p, wc_error *err)
{
	char path[64];
	int rc = WC_OK;
	for (int i = 0; i < p->n_levels && rc == WC_OK; i++) {
		const wc_level *l = &p->levels[i];
		snprintf(path, sizeof path, "levels/%d/", i);
		/* theta is log W in the power-law forms and a logit otherwise;
		 * both bounds are the same. */
		if ((rc = check(path, "p0_w/value", l->p0.value, &POWER, err)) ||
		    (rc = check(path, "s_w/value", l->s.value, &POWER, err)) ||
		    (rc = check(path, "theta/value", l->theta.value, &LOGIT, err)) ||
		    (rc = check(path, "floor_logit/value", l->floor_logit.value, &LOGIT, err)))
			break;
	}
	return rc;
}

static int
check_terms(const wc_params *p, wc_error *err)
{
	char path[64];
	int rc = WC_OK;
	for (int i = 0; i < p->n_terms && rc == WC_OK; i++) {
		const wc_precision_term *t = &p->terms[i];
		snprintf(path, sizeof path, "precision_terms/%d/", i);
		rc = check(path, "value/value", t->value.value,
		           t->placement == WC_PLACE_ON_S ? &SHARE : &LOGIT, err);
	}
	for (int i = 0; i < p->n_model_terms && rc == WC_OK; i++) {
		snprintf(path, sizeof path, "model_terms/%d/", i);
		rc = check(path, "shift/value", p->model_terms[i].shift.value, &LOGIT, err);
		if (rc == WC_OK && p->model_terms[i].p0.value > 0.0)
			rc = check(path, "p0_w/value", p->model_terms[i].p0.value, &POWER, err);
	}
	return rc;
}

/* Two digits at s[at] within [lo, hi]. */
static int
field(const char *s, int at, int lo, int hi)
{
	if (!isdigit((unsigned char)s[at]) || !isdigit((unsigned char)s[at + 1]))
		return 0;
	int v = (s[at] - '0') * 10 + (s[at + 1] - '0');
	return v >= lo && v <= hi;
}

int
wc__params_utc_stamp_ok(const char *s)
{
	/* YYYY-MM-DDTHH:MM:SSZ (docs/formats/params-file.md, "Provenance");
	 * 60 seconds for a leap second. */
	static const char shape[] = "dddd-dd-ddTdd:dd:ddZ";
	if (strlen(s) != sizeof shape - 1)
		return 0;
	for (size_t i = 0; shape[i]; i++)
		if (shape[i] == 'd' ? !isdigit((unsigned char)s[i]) : s[i] != shape[i])
			return 0;
	return field(s, 5, 1, 12) && field(s, 8, 1, 31) && field(s, 11, 0, 23) && field(s, 14, 0, 59) &&
	       field(s, 17, 0, 60);
}

int
wc_params_check_name(const char *name, wc_error *err)
{
	size_t n = strlen(name);
	if (n == 0)
		return wc_error_set(err, WC_EINVAL, "name: empty (a set needs a label)");
	if (n > WC_NAME_MAX - 1)
		return wc_error_set(err, WC_EINVAL, "name: %zu bytes, more than the %d a set's name may have", n,
		                    WC_NAME_MAX - 1);
	/* The label is printed on one line and used as ?profile=NAME. */
	size_t at = wc_text_control_at(name);
	if (at > 0)
		return wc_error_set(err, WC_EINVAL, "name: control character at byte %zu", at);
	return WC_OK;
}

/* What the set says about itself: a label, and a provenance a reader can
 * trace the set back by (docs/formats/params-file.md, "Provenance"). */
static int
check_record(const wc_params *p, wc_error *err)
{
	size_t n = strlen(p->input_sha256);
	if (wc_params_check_name(p->name, err) != WC_OK)
		return WC_EINVAL;
	if (n && (n != 64 || strspn(p->input_sha256, "0123456789abcdef") != 64))
		return wc_error_set(err, WC_EINVAL, "provenance/input_sha256: '%.64s' is not a SHA-256 "
		                    "(64 lowercase hex digits) or null", p->input_sha256);
	if (p->created_utc[0] && !wc__params_utc_stamp_ok(p->created_utc))
		return wc_error_set(err, WC_EINVAL, "provenance/created_utc: '%s' is not "
		                    "YYYY-MM-DDTHH:MM:SSZ or null", p->created_utc);
	for (int i = 0; i < p->n_terms; i++)
		if (!isnan(p->terms[i].p_value) && !(p->terms[i].p_value >= 0 && p->terms[i].p_value <= 1))
			return wc_error_set(err, WC_EINVAL, "precision_terms/%d/p_value: %g is not a "
			                    "probability (0 to 1)", i, p->terms[i].p_value);
	return WC_OK;
}

/* The smallest value a draw of `prm` may take, and whether it may take
 * it: a draw is one value of the parameter, so a scale S or a factor on
 * S must be > 0 and an idle power P0 >= 0, as the value itself
 * (models/params.c); other parameters have no sign. */
static int
draw_floor(const wc_params *p, const wc_param *prm, int *strict)
{
	for (int i = 0; i < p->n_levels; i++)
		if (prm == &p->levels[i].s || prm == &p->levels[i].p0) {
			*strict = prm == &p->levels[i].s;
			return 1;
		}
	for (int i = 0; i < p->n_terms; i++)
		if (prm == &p->terms[i].value && p->terms[i].placement == WC_PLACE_ON_S) {
			*strict = 1;
			return 1;
		}
	return 0;
}

static int
check_draws(const wc_params *p, wc_error *err)
{
	for (int j = 0; j < p->n_draw_params; j++) {
		const wc_param *prm = wc_params_param_named(p, p->draw_names[j]);
		int strict;
		if (!prm || !draw_floor(p, prm, &strict))
			continue;
		for (int r = 0; r < p->n_draws; r++) {
			double v = p->draws[(size_t)r * p->n_draw_params + j];
			if (strict ? !(v > 0) : !(v >= 0))
				return wc_error_set(err, WC_ERANGE, "draws/values/%d/%d: %s = %g must be %s 0, as its value",
				                    r, j, p->draw_names[j], v, strict ? ">" : ">=");
		}
	}
	return WC_OK;
}

/* Every interval fit and calibrate write is widened to contain its point
 * estimate (docs/intervals.md) and written with 17 digits, so one that
 * does not is a hand-editing slip (docs/formats/params-file.md, "Ranges").
 * Checked on the JSON so every section's scalars are covered, and the
 * writer checks what it is about to write by the same walk. */
static int
walk_intervals(json_t *v, char *path, size_t used, wc_error *err)
{
	const char *key;
	json_t *x;
	int rc;
	if (json_is_array(v)) {
		for (size_t i = 0; i < json_array_size(v); i++) {
			x = json_array_get(v, i);
			if (!json_is_object(x) && !json_is_array(x))
				continue;
			snprintf(path + used, WC__JSON_PATH_MAX - used, "/%zu", i);
			if ((rc = walk_intervals(x, path, strlen(path), err)))
				return rc;
		}
		return WC_OK;
	}
	if (!json_is_object(v))
		return WC_OK;
	json_t *val = json_object_get(v, "value"), *ci = json_object_get(v, "ci95");
	if (json_is_number(val) && json_is_array(ci) && json_array_size(ci) == 2 &&
	    json_is_number(json_array_get(ci, 0)) && json_is_number(json_array_get(ci, 1))) {
		double x0 = json_number_value(val), lo = json_number_value(json_array_get(ci, 0)),
		       hi = json_number_value(json_array_get(ci, 1));
		if (!(x0 >= lo && x0 <= hi))
			return wc_error_set(err, WC_ERANGE, "%s/ci95: [%g, %g] does not contain the value %g",
			                    path[0] ? path + 1 : "", lo, hi, x0);
	}
	json_object_foreach(v, key, x) {
		if (!json_is_object(x) && !json_is_array(x))
			continue;
		snprintf(path + used, WC__JSON_PATH_MAX - used, "/%s", key);
		if ((rc = walk_intervals(x, path, strlen(path), err)))
			return rc;
	}
	return WC_OK;
}

int
wc__params_check_intervals(json_t *root, wc_error *err)
{
	char path[WC__JSON_PATH_MAX] = "";
	return walk_intervals(root, path, 0, err);
}

int
wc__params_check_ranges(const wc_params *p, wc_error *err)
{
	int rc;
	if ((rc = check_record(p, err)) || (rc = check_levels(p, err)) || (rc = check_terms(p, err)) ||
	    (rc = check_draws(p, err)) ||
	    (rc = check("shared/", "delta/value", p->delta.value, &SLOPE, err)) ||
	    (rc = check("shared/", "gamma1/value", p->gamma1.value, &SLOPE, err)) ||
	    (rc = check("shared/", "gamma2/value", p->gamma2.value, &SLOPE, err)) ||
	    (rc = check("shared/", "kappa/value", p->kappa.value, &SLOPE, err)) ||
	    (rc = check("shared/", "phi/value", p->phi.value, &SHARE, err)) ||
	    (rc = check("", "clock_ref_mhz", p->clock_ref_mhz, &CLOCK, err)) ||
	    /* 0, like null, is "not recorded" (models/params.h) */
	    (rc = check("provenance/", "residual_rms", p->residual_rms == 0.0 ? NAN : p->residual_rms, &SCATTER,
	                err)))
		return rc;
	return WC_OK;
}
