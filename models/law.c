/*
 * The inference law, evaluated in one place (docs/inference-law.md):
 *   z    = theta_H + delta*lN + g1*ln + g2*ln^2 + b_w + s_M
 *   P(n) = G*P0_H + G*S_H*m_KV*phi(f)*g(z),   P(0) = G*P0_H
 * with lN = log(N_act/(8G)), ln = log(n/32), phi(f) = (f/f_ref)^kappa and
 * g the form's link (form.c), s_M the model term of the configuration's
 * model on H (docs/calibration.md). A configuration is bound to a parameter set
 * once (wc_law_bind); the point estimate and every bootstrap draw then go
 * through wc_law_bound_point and wc_law_point_dynamic alike.
 */
#include "models/evaluate.h"

#include "models/capacity_model.h"
#include "models/catalog.h"
#include "models/grow.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

double
wc_law_log_size(double active_params_b, int tp)
{
	return log(active_params_b / (WC_LAW_REF_ACTIVE_B * tp));
}

double
wc_law_log_load(double running)
{
	return log(running / WC_LAW_REF_RUNNING);
}

double
wc_law_load_argument(double gamma1, double gamma2, double ln)
{
	/* The maximum of h over [ln0, ln] is attained at ln, at ln0 or at the
	 * vertex: convex h at an end, concave h at the vertex clamped into the
	 * interval, linear h at the end its slope favours. */
	const double ln0 = -log(WC_LAW_REF_RUNNING);
	if (!(ln > ln0))
		return ln;
	if (gamma2 > 0.0) {
		double h_end = gamma1 * ln + gamma2 * ln * ln;
		double h_start = gamma1 * ln0 + gamma2 * ln0 * ln0;
		return h_start > h_end ? ln0 : ln;
	}
	if (gamma2 < 0.0) {
		double v = -gamma1 / (2.0 * gamma2);
		return v <= ln0 ? ln0 : (v < ln ? v : ln);
	}
	return gamma1 < 0.0 ? ln0 : ln;
}

double
wc_law_z(double z0, double gamma1, double gamma2, double ln, double *a_out)
{
	const double a = wc_law_load_argument(gamma1, gamma2, ln);
	double z = z0 + gamma1 * a;
	/* Forms without the quadratic term never evaluate it. */
	if (gamma2 != 0.0)
		z += gamma2 * a * a;
	if (a_out)
		*a_out = a;
	return z;
}

double
wc_law_point_dynamic(const wc_law_point *lp, double n)
{
	if (n <= 0.0)
		return 0.0;
	/* Below one request: the duty-cycle mix of idle and one request. The
	 * quadratic thus never sees n = 0: log(0)^2 would be +inf. */
	if (n < 1.0)
		return n * wc_law_point_dynamic(lp, 1.0);
	const double z = wc_law_z(lp->z0, lp->gamma1, lp->gamma2, wc_law_log_load(n), NULL);
	return lp->scale * wc_form_link(lp->form, z, lp->floor_logit, NULL, NULL);
}

/* ------------------------------------------------------ power limits */

double
wc_level_power_limit_w(const wc_level *level)
{
	const wc_platform_info *info = wc_platform_board(level->name, level->s_shared_with);
	return info && info->max_power_w > 0 ? info->max_power_w : NAN;
}

double
wc_power_ceiling_w(double limit_w, int gpus)
{
	return gpus >= 1 && isfinite(limit_w) && limit_w > 0.0 ? gpus * WC_LEVEL_LIMIT_FACTOR * limit_w : NAN;
}

int
wc_power_cap_met(double cap_w, double per_gpu_w)
{
	return cap_w > 0.0 && !(per_gpu_w > cap_w * (1.0 + 1e-9));
}

double
wc_level_power_ceiling_w(const wc_level *level, double cap_w, double per_gpu_w, int tp)
{
	double board = wc_level_power_limit_w(level);
	/* A cap no clock meets does not hold the power: the GPU runs at its
	 * lowest clock and draws what the law gives there, up to the board's
	 * limit (docs/intervals.md, "Physical ceiling"). */
	if (!wc_power_cap_met(cap_w, per_gpu_w))
		cap_w = 0.0;
	return wc_power_ceiling_w(cap_w > 0.0 && !(board < cap_w) ? cap_w : board, tp);
}

double
wc_law_loop_ceiling_w(double ceiling_w, double floor_w, double m, double n_max, int arrivals)
{
	double one = 1.0, top = ceiling_w;
	wc_load_histogram h = { &m, &one, 1, m }; /* a closed loop runs m all the time */
	if (!arrivals)
		return wc_load_histogram_ceiling_w(&h, floor_w, ceiling_w);
	if (wc_load_histogram_open_loop(m, n_max, &h) == WC_OK)
		top = wc_load_histogram_ceiling_w(&h, floor_w, ceiling_w);
	wc_load_histogram_free(&h);
	return top;
}

/* ------------------------------------------------------------ terms */

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
		else if (strcasecmp(t->level, level) == 0)
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

/* ---------------------------------------------------------- binding */

enum { B_P0, B_S, B_THETA, B_FLOOR, B_DELTA, B_G1, B_G2, B_KAPPA, B_TERM_W, B_TERM_KV,
       B_MODEL, B_PHI, B_LAW_TERM };

static int
check_config(const wc_params *p, const wc_config *c, const wc_level **lvl, wc_error *err)
{
	if (!c->platform)
		return wc_error_set(err, WC_EINVAL, "platform: missing");
	*lvl = wc_params_level(p, c->platform);
	if (!*lvl)
		return wc_error_set(err, WC_ENOTFOUND,
		                    "platform: unknown level '%s' in parameter set '%s'",
		                    c->platform, p->name);
	if (c->tp < 1 || c->tp > WC_LAW_MAX_TP)
		return wc_error_set(err, WC_EINVAL, "tp: must be between 1 and %d, got %d",
		                    WC_LAW_MAX_TP, c->tp);
	if (!isfinite(c->active_params_b) || c->active_params_b <= 0.0)
		return wc_error_set(err, WC_EINVAL, "active_params_b: must be a finite number > 0");
	if (!isfinite(c->running) || c->running < 0.0)
		return wc_error_set(err, WC_EINVAL, "running: must be a finite number >= 0");
	if (!isfinite(c->sm_clock_mhz) || c->sm_clock_mhz < 0.0)
		return wc_error_set(err, WC_EINVAL, "sm_clock_mhz: must be a finite number >= 0");
	/* An idle GPU draws far below what its board allows: a figure at or
	 * above the limit is a node's or a busy GPU's, and answers from it
	 * would hold power above the board's limit whatever the load. First:
	 * the CLI's 1e999 gets the board's limit, as 1e300 (docs/cli.md, "Conventions"). */
	if (wc_params_check_idle((*lvl)->name, (*lvl)->s_shared_with, c->idle_power_w, "idle_power_w", err))
		return WC_EINVAL;
	if (!(c->idle_power_w >= 0.0) || !isfinite(c->idle_power_w))
		return wc_error_set(err, WC_EINVAL, "idle_power_w: must be a finite number >= 0");
	if ((unsigned)c->weights >= WC_PREC_COUNT || (unsigned)c->kv >= WC_PREC_COUNT ||
	    c->kv == WC_PREC_INT4)
		return wc_error_set(err, WC_EINVAL, "precision: unsupported weights/kv_cache value");
	return WC_OK;
}

static void
bind_slot(wc_law_binding *b, int slot, const char *name, double base)
{
	b->base[slot] = base;
	b->col[slot] = name ? wc_params_draw_column(b->p, name) : -1;
}

double
wc_law_clock_ref_mhz(const wc_level *lvl, double fallback_mhz)
{
	const wc_platform_info *board = lvl ? wc_platform_board(lvl->name, lvl->s_shared_with) : NULL;
	return board && board->max_sm_clock_mhz > 0.0 ? board->max_sm_clock_mhz : fallback_mhz;
}

double
wc_law_clock_ratio(const wc_level *lvl, double fallback_mhz, double sm_clock_mhz)
{
	return sm_clock_mhz > 0.0 ? sm_clock_mhz / wc_law_clock_ref_mhz(lvl, fallback_mhz) : 0.0;
}

int
wc_law_bind(const wc_params *p, const wc_config *c, wc_law_binding *b, wc_error *err)
{
	const wc_level *lvl = NULL;
	char name[WC_LABEL_MAX];
	int rc = check_config(p, c, &lvl, err);
	if (rc)
		return rc;
	memset(b, 0, sizeof *b);
	b->p = p;
	b->level = lvl;
	b->log_size = wc_law_log_size(c->active_params_b, c->tp);
	b->clock_ratio = wc_law_clock_ratio(lvl, p->clock_ref_mhz, c->sm_clock_mhz);

	const wc_level *s_lvl = wc_params_scale_level(p, lvl);
	wc_level_param_label(WC_LEVEL_P0, lvl->name, name, sizeof name);
	/* first the model term: its shift was fitted above the idle it records */
	b->model_term = wc_params_find_model_term(p, c->model, lvl->name);
	const wc_param *p0 = wc_params_find_p0(p, c->model, lvl, NULL);
	b->p0_measured = c->idle_power_w > 0.0 ? 1 : p0 != &lvl->p0 ? 2 : 0;
	/* measured: the same for every draw */
	bind_slot(b, B_P0, b->p0_measured ? NULL : name, b->p0_measured == 1 ? c->idle_power_w : p0->value);
	wc_level_param_label(WC_LEVEL_S, s_lvl->name, name, sizeof name);
	if (wc_form_has_scale(p->form))
		bind_slot(b, B_S, name, s_lvl->s.value);
	else
		bind_slot(b, B_S, NULL, 1.0);
	wc_level_param_label(WC_LEVEL_THETA, lvl->name, name, sizeof name);
	bind_slot(b, B_THETA, name, lvl->theta.value);
	wc_level_param_label(WC_LEVEL_FLOOR, lvl->name, name, sizeof name);
	bind_slot(b, B_FLOOR, name, lvl->floor_logit.value);
	bind_slot(b, B_DELTA, "delta", p->delta.value);
	bind_slot(b, B_G1, "gamma1", p->gamma1.value);
	if (wc_form_has_quadratic(p->form))
		bind_slot(b, B_G2, "gamma2", p->gamma2.value);
	else
		bind_slot(b, B_G2, NULL, 0.0);
	bind_slot(b, B_KAPPA, "kappa", p->kappa.value);

	const wc_precision_term *used[2] = {
		c->weights != WC_PREC_BF16
			? wc_params_find_term(p, WC_SETTING_WEIGHTS, c->weights, lvl->name) : NULL,
		c->kv != WC_PREC_BF16 ? wc_params_find_term(p, WC_SETTING_KV, c->kv, lvl->name) : NULL,
	};
	for (int i = 0; i < 2; i++) {
		b->place[i] = used[i] ? used[i]->placement : WC_PLACE_NONE;
		if (used[i]) {
			wc_precision_term_label(used[i], name, sizeof name);
			bind_slot(b, B_TERM_W + i, name, used[i]->value.value);
		} else {
			bind_slot(b, B_TERM_W + i, NULL, NAN);
		}
	}
	if (wc_form_has_prefill(p->form)) {
		b->rho = wc_law_prefill_share(p, c);
		b->headroom = wc_law_prefill_headroom(p, lvl);
		if (!isfinite(b->headroom))
			b->rho = 0.0; /* no power limit to scale the prefill by */
		bind_slot(b, B_PHI, "phi", p->phi.value);
	} else {
		bind_slot(b, B_PHI, NULL, 0.0);
	}
	/* Structure terms the set carries; an absent one shifts nothing. */
	for (int k = 0; k < WC_LT_COUNT; k++) {
		const int on = (p->law_terms & WC_LT_BIT(k)) != 0;
		b->lt_x[k] = on ? wc_law_term_covariate((wc_law_term)k, c, &p->capacity) : 0.0;
		bind_slot(b, B_LAW_TERM + k, on ? wc_law_term_name((wc_law_term)k) : NULL,
		          on ? p->law_term[k].value : 0.0);
	}
	/* The model term enters here, so the point and every draw carry it. */
	if (b->model_term) {
		wc_model_term_label(b->model_term, name, sizeof name);
		bind_slot(b, B_MODEL, name, b->model_term->shift.value);
	} else {
		bind_slot(b, B_MODEL, NULL, 0.0);
	}
	return WC_OK;
}

static double
slot_value(const wc_law_binding *b, int slot, const double *draw)
{
	return draw && b->col[slot] >= 0 ? draw[b->col[slot]] : b->base[slot];
}

void
wc_law_bound_point(const wc_law_binding *b, const double *draw, wc_law_point *out)
{
	double scale = slot_value(b, B_S, draw);
	double z0 = slot_value(b, B_THETA, draw) + slot_value(b, B_DELTA, draw) * b->log_size +
	            slot_value(b, B_MODEL, draw);
	for (int k = 0; k < WC_LT_COUNT; k++)
		if (b->lt_x[k] != 0.0)
			z0 += slot_value(b, B_LAW_TERM + k, draw) * b->lt_x[k];
	for (int i = 0; i < 2; i++) {
		if (b->place[i] == WC_PLACE_INSIDE_Z)
			z0 += slot_value(b, B_TERM_W + i, draw);
		else if (b->place[i] == WC_PLACE_ON_S)
			scale *= slot_value(b, B_TERM_W + i, draw);
	}
	/* A locked clock scales every dynamic power, the prefill's too. */
	const double clock = b->clock_ratio > 0.0 ? pow(b->clock_ratio, slot_value(b, B_KAPPA, draw)) : 1.0;
	scale *= clock;
	out->form = b->p->form;
	out->p0 = slot_value(b, B_P0, draw);
	out->rho = b->rho;
	out->a_pre = b->rho > 0.0 ? slot_value(b, B_PHI, draw) * b->headroom * clock : 0.0;
	out->scale = scale;
	out->z0 = z0;
	out->gamma1 = slot_value(b, B_G1, draw);
	out->gamma2 = slot_value(b, B_G2, draw);
	out->floor_logit = slot_value(b, B_FLOOR, draw);
}

/* ------------------------------------------------------------ power */

static int
fill(const wc_law_point *lp, int tp, double dynamic, wc_power *out, wc_error *err)
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

/* Each sample takes its own mix (rho bound at the series' mean count), so
 * an idle one draws G*P0 alone (docs/inference-law.md, "Averaging over a
 * load series"); mixing the mean decode power charged rho*A idle too. */
static double
mean_dynamic(const wc_law_point *lp, const double *running, const double *weight, size_t len,
             double sum_w)
{
	double sum = 0.0;
	for (size_t i = 0; i < len; i++)
		sum += weight[i] * wc_law_point_mix(lp, wc_law_point_dynamic(lp, running[i]), running[i]);
	return sum / sum_w;
}

int
wc_law_point_power(const wc_law_point *lp, int tp, const wc_load_histogram *h, wc_power *out,
                   wc_error *err)
{
	double sum_w = 0.0;
	for (size_t i = 0; i < h->len; i++)
		sum_w += h->weight[i];
	if (!(sum_w > 0.0))
		return wc_error_set(err, WC_EINVAL, "running_series: total weight must be > 0");
	return fill(lp, tp, mean_dynamic(lp, h->running, h->weight, h->len, sum_w), out, err);
}

/* The law's numbers for `c` with the point parameters of `p`. */
static int
point_of(const wc_params *p, const wc_config *c, wc_law_point *lp, wc_error *err)
{
	wc_law_binding b;
	int rc = wc_law_bind(p, c, &b, err);
	if (rc)
		return rc;
	wc_law_bound_point(&b, NULL, lp);
	return WC_OK;
}

int
wc_law_power(const wc_params *p, const wc_config *c, wc_power *out, wc_error *err)
{
	wc_law_point lp;
	int rc = point_of(p, c, &lp, err);
	if (rc)
		return rc;
	return fill(&lp, c->tp, wc_law_point_mix(&lp, wc_law_point_dynamic(&lp, c->running), c->running), out,
	            err);
}

int
wc_law_power_series(const wc_params *p, const wc_config *c, const double *running,
                    const double *weight, size_t len, wc_power *out, wc_error *err)
{
	wc_law_point lp;
	int rc = point_of(p, c, &lp, err);
	if (rc)
		return rc;
	double sum_w = 0.0;
	for (size_t i = 0; i < len; i++) {
		if (!isfinite(running[i]) || running[i] < 0.0 || !isfinite(weight[i]) ||
		    weight[i] < 0.0)
			return wc_error_set(err, WC_EINVAL,
			                    "running_series[%zu]: needs finite running >= 0 and weight >= 0", i);
		sum_w += weight[i];
	}
	if (!(sum_w > 0.0))
		return wc_error_set(err, WC_EINVAL, "running_series: total weight must be > 0");
	/* The prefill share was bound at the configuration's running count:
	 * callers give the series mean there. */
	return fill(&lp, c->tp, mean_dynamic(&lp, running, weight, len, sum_w), out, err);
}

/* ------------------------------------------------------- load series */

typedef struct {
	double n;
	size_t i;
} sample_ref;

static int
cmp_sample(const void *a, const void *b)
{
	const sample_ref *x = a, *y = b;
	if (x->n != y->n)
		return x->n < y->n ? -1 : 1;
	return x->i < y->i ? -1 : (x->i > y->i);
}

int
wc_load_is_idle(double mean_running)
{
	/* below the least load an answer takes, idle in all but name; NaN
	 * fails the comparison and is idle too */
	return !(mean_running >= WC_CAPACITY_MIN_CONCURRENCY);
}

int
wc_load_histogram_build(const double *running, const double *hold, double hold_each, size_t len,
                        wc_load_histogram *out, size_t *bad_index)
{
	memset(out, 0, sizeof *out);
	sample_ref *s = wc_alloc_array(len ? len : 1, sizeof *s);
	out->running = wc_alloc_array(len ? len : 1, sizeof *out->running);
	out->weight = wc_alloc_array(len ? len : 1, sizeof *out->weight);
	if (!s || !out->running || !out->weight) {
		free(s);
		wc_load_histogram_free(out);
		return WC_ENOMEM;
	}
	double sum = 0.0, sum_w = 0.0;
	for (size_t i = 0; i < len; i++) {
		double w = hold ? hold[i] : hold_each;
		if (!isfinite(running[i]) || running[i] < 0.0 || !isfinite(w) || w < 0.0) {
			if (bad_index)
				*bad_index = i;
			free(s);
			wc_load_histogram_free(out);
			return WC_EINVAL;
		}
		s[i].n = running[i];
		s[i].i = i;
		sum += w * running[i];
		sum_w += w;
	}
	/* Ties broken by sample index: equal values are summed in sample
	 * order, so the result does not depend on the sort. */
	qsort(s, len, sizeof *s, cmp_sample);
	for (size_t k = 0; k < len; k++) {
		double w = hold ? hold[s[k].i] : hold_each;
		if (out->len > 0 && out->running[out->len - 1] == s[k].n) {
			out->weight[out->len - 1] += w;
		} else {
			out->running[out->len] = s[k].n;
			out->weight[out->len++] = w;
		}
	}
	out->mean = sum_w > 0.0 ? sum / sum_w : 0.0;
	free(s);
	return WC_OK;
}

double
wc_load_histogram_met(const wc_load_histogram *h)
{
	/* Time at count k is k P(k) request-seconds, so a request spends the
	 * share k P(k) / m of its life among k (docs/capacity.md, "Closed
	 * loop, open loop, energy"). */
	double s1 = 0.0, s2 = 0.0;
	for (size_t i = 0; i < h->len; i++) {
		s1 += h->weight[i] * h->running[i];
		s2 += h->weight[i] * h->running[i] * h->running[i];
	}
	return s1 > 0.0 ? s2 / s1 : h->mean;
}

double
wc_load_histogram_busy(const wc_load_histogram *h)
{
	double busy = 0.0, all = 0.0;
	for (size_t i = 0; i < h->len; i++) {
		busy += h->weight[i] * wc_load_busy_share(h->running[i]);
		all += h->weight[i];
	}
	return all > 0.0 ? busy / all : 0.0;
}

double
wc_load_histogram_ceiling_w(const wc_load_histogram *h, double floor_w, double ceiling_w)
{
	/* n below one idles 1 - n of its time, 0 all of it (the law's duty
	 * cycle, docs/inference-law.md "Below one running request") */
	double idle = 0.0, all = 0.0;
	for (size_t i = 0; i < h->len && h->running[i] < 1.0; i++)
		idle += h->weight[i] * (1.0 - wc_load_busy_share(h->running[i]));
	for (size_t i = 0; idle > 0.0 && i < h->len; i++)
		all += h->weight[i];
	return idle > 0.0 && isfinite(floor_w) && isfinite(ceiling_w) ? (idle * floor_w + (all - idle) * ceiling_w) / all
	                                                              : ceiling_w;
}

void
wc_load_histogram_free(wc_load_histogram *h)
{
	if (!h)
		return;
	free(h->running);
	free(h->weight);
	memset(h, 0, sizeof *h);
}
