/*
 * The "prediction_error" section of a parameter file (schema 5,
 * docs/formats/params-file.md and docs/intervals.md): the law's held-out
 * error of mean power as conformal quantiles of log residuals, per
 * stratum (platform and level source, "" = pooled); and the
 * "prediction_errors" array (schema 6), the same section for latency,
 * energy per output token and fine-tuning energy per step.
 */
#include <math.h>
#include <string.h>

#include "params_internal.h"

static int
read_stratum(wc__json_loader *ld, json_t *v, const char *path, wc_pe_stratum *s)
{
	static const char *const keys[] = { "platform", "source", "n", "log_quantiles", NULL };
	static const char *const required[] = { "n", "log_quantiles", NULL };
	char p[WC__JSON_PATH_MAX];
	long long n;
	int rc;
	memset(s, 0, sizeof *s);
	if ((rc = wc__json_check_keys(ld, v, path, keys, required)) ||
	    (rc = wc__json_optional_string(ld, v, path, "platform", s->platform, sizeof s->platform)) ||
	    (rc = wc__json_optional_string(ld, v, path, "source", s->source, sizeof s->source)))
		return rc;
	wc__json_join(p, path, "n");
	if ((rc = wc__json_int(ld, json_object_get(v, "n"), p, 1, 1000000000, &n)))
		return rc;
	s->n = (int)n;
	wc__json_join(p, path, "log_quantiles");
	if ((rc = wc__json_pair(ld, json_object_get(v, "log_quantiles"), p, &s->q_lo, &s->q_hi)))
		return rc;
	/* The interval must contain its estimate and have width. */
	if (!(s->q_lo < 0.0 && s->q_hi > 0.0 && s->q_hi - s->q_lo < 20.0))
		return wc__json_fail(ld, p, "expected [lo, hi] with lo < 0 < hi (log residuals), got [%g, %g]",
		                     s->q_lo, s->q_hi);
	return WC_OK;
}

/* One section; `quantity` NULL = mean power (optional key), else the
 * key is required and names one of wc_pe_quantity. */
static int
read_section(wc__json_loader *ld, json_t *v, const char *path, int any_quantity, wc_pred_error *out)
{
	static const char *const keys[] = { "quantity", "folds", "method", "level", "data", "strata", NULL };
	static const char *const required[] = { "folds", "level", "strata", NULL };
	static const char *const required_q[] = { "quantity", "folds", "level", "strata", NULL };
	char p[WC__JSON_PATH_MAX], buf[40] = "";
	int rc;
	memset(out, 0, sizeof *out);
	if ((rc = wc__json_check_keys(ld, v, path, keys, any_quantity ? required_q : required)) ||
	    (rc = wc__json_optional_string(ld, v, path, "quantity", out->quantity, sizeof out->quantity)))
		return rc;
	if (!any_quantity && out->quantity[0] && strcmp(out->quantity, "mean_power_w") != 0)
		return wc__json_fail(ld, path, "quantity: expected \"mean_power_w\", got \"%s\"", out->quantity);
	if (any_quantity && wc_pe_quantity_from_name(out->quantity) < 0)
		return wc__json_fail(ld, path, "quantity: expected %s, %s or %s, got \"%s\"",
		                     wc_pe_quantity_name(0), wc_pe_quantity_name(1), wc_pe_quantity_name(2),
		                     out->quantity);
	if (!any_quantity)
		snprintf(out->quantity, sizeof out->quantity, "mean_power_w");
	if ((rc = wc__json_optional_string(ld, v, path, "method", buf, sizeof buf)))
		return rc;
	if (buf[0] && strcmp(buf, WC_PE_METHOD) != 0)
		return wc__json_fail(ld, path, "method: expected \"%s\", got \"%s\"", WC_PE_METHOD, buf);
	wc__json_join(p, path, "folds");
	if ((rc = wc__json_string(ld, json_object_get(v, "folds"), p, 0, out->folds, sizeof out->folds)))
		return rc;
	if (strcmp(out->folds, "model") && strcmp(out->folds, "workload") && strcmp(out->folds, "platform") &&
	    strcmp(out->folds, "frozen") && strcmp(out->folds, "level"))
		return wc__json_fail(ld, p, "expected model, workload, platform, level or frozen, got \"%s\"",
		                     out->folds);
	if ((rc = wc__json_optional_string(ld, v, path, "data", out->data, sizeof out->data)))
		return rc;
	wc__json_join(p, path, "level");
	if ((rc = wc__json_number(ld, json_object_get(v, "level"), p, &out->level)))
		return rc;
	if (out->level != WC_INTERVAL_LEVEL)
		return wc__json_fail(ld, p, "expected %g (the level of every interval)", WC_INTERVAL_LEVEL);
	json_t *a = json_object_get(v, "strata");
	wc__json_join(p, path, "strata");
	if (!json_is_array(a) || json_array_size(a) < 1 || json_array_size(a) > WC_PE_STRATA_MAX)
		return wc__json_fail(ld, p, "expected an array of 1 to %d strata", WC_PE_STRATA_MAX);
	for (size_t i = 0; i < json_array_size(a); i++) {
		char q[WC__JSON_PATH_MAX];
		wc__json_join_index(q, p, i);
		if ((rc = read_stratum(ld, json_array_get(a, i), q, &out->strata[i])))
			return rc;
		for (size_t j = 0; j < i; j++)
			if (!strcmp(out->strata[j].platform, out->strata[i].platform) &&
			    !strcmp(out->strata[j].source, out->strata[i].source))
				return wc__json_fail(ld, q, "a second stratum for the same platform and source");
		out->n_strata++;
	}
	out->present = 1;
	return WC_OK;
}

int
wc__params_read_pred_error(wc__json_loader *ld, json_t *v, const char *path, wc_pred_error *out)
{
	return read_section(ld, v, path, 0, out);
}

int
wc__params_read_quantity_errors(wc__json_loader *ld, json_t *v, const char *path, wc_pred_error *out)
{
	char p[WC__JSON_PATH_MAX];
	int rc;
	if (!json_is_array(v) || json_array_size(v) > WC_PEQ_COUNT)
		return wc__json_fail(ld, path, "expected an array of at most %d sections", WC_PEQ_COUNT);
	for (size_t i = 0; i < json_array_size(v); i++) {
		wc_pred_error pe;
		wc__json_join_index(p, path, i);
		if ((rc = read_section(ld, json_array_get(v, i), p, 1, &pe)))
			return rc;
		int q = wc_pe_quantity_from_name(pe.quantity);
		if (out[q].present)
			return wc__json_fail(ld, p, "a second section for %s", pe.quantity);
		out[q] = pe;
	}
	return WC_OK;
}

static json_t *
string_or_null(const char *s)
{
	return s[0] ? wc__json_text(s) : json_null();
}

json_t *
wc__params_pred_error_json(const wc_pred_error *pe)
{
	json_t *strata = json_array();
	for (int i = 0; i < pe->n_strata; i++) {
		const wc_pe_stratum *s = &pe->strata[i];
		json_array_append_new(strata, json_pack("{s:o,s:o,s:i,s:[ff]}", "platform", string_or_null(s->platform),
		                                        "source", string_or_null(s->source), "n", s->n,
		                                        "log_quantiles", s->q_lo, s->q_hi));
	}
	return json_pack("{s:o,s:o,s:s,s:f,s:o,s:o}", "quantity",
	                 wc__json_text(pe->quantity[0] ? pe->quantity : "mean_power_w"), "folds", wc__json_text(pe->folds), "method",
	                 WC_PE_METHOD, "level", pe->level, "data", string_or_null(pe->data), "strata", strata);
}

json_t *
wc__params_quantity_errors_json(const wc_pred_error *pe)
{
	json_t *a = json_array();
	for (int q = 0; q < WC_PEQ_COUNT; q++) {
		if (!pe[q].present)
			continue;
		wc_pred_error x = pe[q];
		snprintf(x.quantity, sizeof x.quantity, "%s", wc_pe_quantity_name(q));
		json_array_append_new(a, wc__params_pred_error_json(&x));
	}
	return a;
}
