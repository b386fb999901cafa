/*
 * The saturating inference power law and its relatives (SPEC §1):
 *   z    = theta_H + delta*lN + g1*ln + g2*ln^2 + b_w
 *   P(n) = G*P0_H + G*S_H*m_KV*phi(f)*g(z),   P(0) = G*P0_H
 * with lN = log(N_act/(8G)), ln = log(n/32), phi(f) = (f/f_ref)^kappa.
 * g is the form's link (form.c); power-law forms have no S (S = 1).
 */
#include "models/models.h"

#include <math.h>
#include <string.h>

static const wc_precision_term *
find_term(const wc_params *p, wc_setting setting, wc_precision prec, const char *level,
          int kept_only)
{
	const wc_precision_term *all = NULL;
	for (int i = 0; i < p->n_terms; i++) {
		const wc_precision_term *t = &p->terms[i];
		if ((kept_only && !t->kept) || t->setting != setting || t->precision != prec)
			continue;
		if (t->level[0] == '\0')
			all = t;
		else if (strcmp(t->level, level) == 0)
			return t;
	}
	return all;
}

const wc_precision_term *
wc_params_find_term(const wc_params *p, wc_setting setting, wc_precision prec,
                    const char *level)
{
	return find_term(p, setting, prec, level, 1);
}

const wc_precision_term *
wc_params_find_tested_term(const wc_params *p, wc_setting setting, wc_precision prec,
                           const char *level)
{
	return find_term(p, setting, prec, level, 0);
}

const wc_level *
wc_params_scale_level(const wc_params *p, const wc_level *lvl)
{
	if (lvl->s_shared_with[0]) {
		const wc_level *t = wc_params_level(p, lvl->s_shared_with);
		if (t)
			return t;
	}
	return lvl;
}

double
wc_law_dynamic(wc_form form, double scale, double z0, double gamma1, double gamma2,
               double floor_logit, double n)
{
	if (n <= 0.0)
		return 0.0;
	double ln = log(n / 32.0);
	double z = z0 + gamma1 * ln;
	/* The quadratic never sees n = 0 (returned above): log(0)^2 would be +inf. */
	if (wc_form_has_quadratic(form))
		z += gamma2 * ln * ln;
	return scale * wc_form_link(form, z, floor_logit, NULL, NULL);
}

static int
check_config(const wc_params *p, const wc_config *c, const wc_level **lvl,
             wc_error *err)
{
	if (!c->platform)
		return wc_error_set(err, WC_EINVAL, "platform: missing");
	*lvl = wc_params_level(p, c->platform);
	if (!*lvl)
		return wc_error_set(err, WC_ENOTFOUND,
		                    "platform: unknown level '%s' in parameter set '%s'",
		                    c->platform, p->name);
	if (c->tp < 1)
		return wc_error_set(err, WC_EINVAL, "tp: must be >= 1, got %d", c->tp);
	if (!isfinite(c->active_params_b) || c->active_params_b <= 0.0)
		return wc_error_set(err, WC_EINVAL, "active_params_b: must be a finite number > 0");
	if (!isfinite(c->running) || c->running < 0.0)
		return wc_error_set(err, WC_EINVAL, "running: must be a finite number >= 0");
	if (!isfinite(c->sm_clock_mhz) || c->sm_clock_mhz < 0.0)
		return wc_error_set(err, WC_EINVAL, "sm_clock_mhz: must be a finite number >= 0");
	if ((unsigned)c->weights >= WC_PREC_COUNT || (unsigned)c->kv >= WC_PREC_COUNT ||
	    c->kv == WC_PREC_INT4)
		return wc_error_set(err, WC_EINVAL, "precision: unsupported weights/kv_cache value");
	return WC_OK;
}

/* Parts of the law that do not depend on n, for one configuration. */
typedef struct {
	double p0, scale, z0, floor_logit;
} law_point;

static void
resolve(const wc_params *p, const wc_level *lvl, const wc_config *c, law_point *lp)
{
	const wc_level *s_lvl = wc_params_scale_level(p, lvl);
	double scale = wc_form_has_scale(p->form) ? s_lvl->s.value : 1.0;
	double z0 = lvl->theta.value +
	            p->delta.value * log(c->active_params_b / (8.0 * c->tp));
	const wc_precision_term *tw = NULL, *tk = NULL;
	if (c->weights != WC_PREC_BF16)
		tw = wc_params_find_term(p, WC_SETTING_WEIGHTS, c->weights, lvl->name);
	if (c->kv != WC_PREC_BF16)
		tk = wc_params_find_term(p, WC_SETTING_KV, c->kv, lvl->name);
	const wc_precision_term *both[2] = { tw, tk };
	for (int i = 0; i < 2; i++) {
		if (!both[i])
			continue;
		if (both[i]->placement == WC_PLACE_INSIDE_Z)
			z0 += both[i]->value.value;
		else if (both[i]->placement == WC_PLACE_ON_S)
			scale *= both[i]->value.value;
	}
	if (c->sm_clock_mhz > 0.0)
		scale *= pow(c->sm_clock_mhz / p->clock_ref_mhz, p->kappa.value);
	lp->p0 = lvl->p0.value;
	lp->scale = scale;
	lp->z0 = z0;
	lp->floor_logit = lvl->floor_logit.value;
}

static double
dynamic_at(const wc_params *p, const law_point *lp, double n)
{
	return wc_law_dynamic(p->form, lp->scale, lp->z0, p->gamma1.value, p->gamma2.value,
	                      lp->floor_logit, n);
}

static int
fill(const law_point *lp, int tp, double dynamic, wc_power *out, wc_error *err)
{
	out->idle_power_w = tp * lp->p0;
	out->dynamic_w = tp * dynamic;
	out->node_power_w = out->idle_power_w + out->dynamic_w;
	out->per_gpu_power_w = out->node_power_w / tp;
	/* Checked on the group total: a finite per-GPU value can overflow
	 * once multiplied by tp. */
	if (!isfinite(out->node_power_w))
		return wc_error_set(err, WC_ERANGE, "law: non-finite power for this configuration");
	return WC_OK;
}

int
wc_law_power(const wc_params *p, const wc_config *c, wc_power *out, wc_error *err)
{
	const wc_level *lvl = NULL;
	law_point lp;
	int rc = check_config(p, c, &lvl, err);
	if (rc)
		return rc;
	resolve(p, lvl, c, &lp);
	return fill(&lp, c->tp, dynamic_at(p, &lp, c->running), out, err);
}

int
wc_law_power_series(const wc_params *p, const wc_config *c, const double *running,
                    const double *weight, size_t len, wc_power *out, wc_error *err)
{
	const wc_level *lvl = NULL;
	law_point lp;
	int rc = check_config(p, c, &lvl, err);
	if (rc)
		return rc;
	resolve(p, lvl, c, &lp);
	double sum_w = 0.0, sum = 0.0;
	for (size_t i = 0; i < len; i++) {
		if (!isfinite(running[i]) || running[i] < 0.0 || !isfinite(weight[i]) ||
		    weight[i] < 0.0)
			return wc_error_set(err, WC_EINVAL,
			                    "running_series[%zu]: needs finite running >= 0 and weight >= 0", i);
		sum_w += weight[i];
		sum += weight[i] * dynamic_at(p, &lp, running[i]);
	}
	if (!(sum_w > 0.0))
		return wc_error_set(err, WC_EINVAL, "running_series: total weight must be > 0");
	return fill(&lp, c->tp, sum / sum_w, out, err);
}
