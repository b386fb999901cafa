/*
 * Inference predictions from a frozen law: the point value from the
 * parameter set, a 95 % interval from the bootstrap draws (each draw is a
 * full parameter vector; percentiles of the predicted node power), and
 * extrapolation warnings (SPEC §6).
 */
#include "predict/predict.h"

#include <gsl/gsl_sort.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct wc_predictor {
	wc_params params;
};

int
wc_predictor_new(const wc_params *p, wc_predictor **out, wc_error *err)
{
	int rc;
	*out = NULL;
	if ((rc = wc_params_validate(p, err)) != WC_OK)
		return rc;
	wc_predictor *pr = calloc(1, sizeof *pr);
	if (!pr)
		return wc_error_set(err, WC_ENOMEM, "predictor: out of memory");
	if ((rc = wc_params_copy(&pr->params, p, err)) != WC_OK) {
		free(pr);
		return rc;
	}
	*out = pr;
	return WC_OK;
}

void
wc_predictor_free(wc_predictor *pr)
{
	if (!pr)
		return;
	wc_params_clear(&pr->params);
	free(pr);
}

const wc_params *
wc_predictor_params(const wc_predictor *pr)
{
	return &pr->params;
}

static void
warn(wc_inference_prediction *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
warn(wc_inference_prediction *out, const char *fmt, ...)
{
	if (out->n_warnings >= WC_WARN_MAX)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(out->warnings[out->n_warnings++], WC_WARN_LEN, fmt, ap);
	va_end(ap);
}

/* Distinct load levels of a series and the time spent at each. */
typedef struct {
	double *n, *w;
	size_t len;
	double mean, max;
} load_histogram;

static int
histogram_build(const wc_inference_query *q, load_histogram *h, wc_error *err)
{
	memset(h, 0, sizeof *h);
	if (q->series_len == 0) {
		if (!isfinite(q->config.running) || q->config.running < 0.0)
			return wc_error_set(err, WC_EINVAL, "running: must be a finite number >= 0");
		h->n = malloc(sizeof *h->n);
		h->w = malloc(sizeof *h->w);
		if (!h->n || !h->w)
			return wc_error_set(err, WC_ENOMEM, "running_series: out of memory");
		h->n[0] = h->mean = h->max = q->config.running;
		h->w[0] = 1.0;
		h->len = 1;
		return WC_OK;
	}
	if (q->series_len > WC_SERIES_MAX)
		return wc_error_set(err, WC_EINVAL, "running_series: longer than %d samples", WC_SERIES_MAX);
	if (!isfinite(q->dt_s) || q->dt_s <= 0.0)
		return wc_error_set(err, WC_EINVAL, "dt_s: must be a finite number > 0");
	h->n = malloc(q->series_len * sizeof *h->n);
	h->w = malloc(q->series_len * sizeof *h->w);
	if (!h->n || !h->w)
		return wc_error_set(err, WC_ENOMEM, "running_series: out of memory");
	double sum = 0.0;
	for (size_t i = 0; i < q->series_len; i++) {
		double v = q->running_series[i];
		if (!isfinite(v) || v < 0.0)
			return wc_error_set(err, WC_EINVAL,
			                    "running_series/%zu: must be a finite number >= 0", i);
		h->n[i] = v;
		sum += v;
	}
	gsl_sort(h->n, 1, q->series_len);
	for (size_t i = 0; i < q->series_len; i++) {
		if (h->len > 0 && h->n[h->len - 1] == h->n[i]) {
			h->w[h->len - 1] += q->dt_s;
		} else {
			h->n[h->len] = h->n[i];
			h->w[h->len++] = q->dt_s;
		}
	}
	h->mean = sum / (double)q->series_len;
	h->max = h->n[h->len - 1];
	return WC_OK;
}

static void
histogram_free(load_histogram *h)
{
	free(h->n);
	free(h->w);
}

static void
range_warnings(const wc_params *p, const wc_level *lvl, const wc_config *c,
               const load_histogram *h, wc_inference_prediction *out)
{
	const wc_range *r = &lvl->range;
	if (p->runs > 0 && r->runs == 0)
		warn(out, "platform: level '%s' had no runs in the calibration; its parameters are %s",
		     lvl->name, wc_source_name(lvl->theta.source));
	if (r->active_b_max > 0 && (c->active_params_b < r->active_b_min * (1 - 1e-9) ||
	                            c->active_params_b > r->active_b_max * (1 + 1e-9)))
		warn(out, "active_params_b: %g B is outside the calibrated span %g-%g B on %s",
		     c->active_params_b, r->active_b_min, r->active_b_max, lvl->name);
	if (r->running_max > 0) {
		double lo = h->len ? h->n[0] : 0, hi = h->max;
		/* n = 0 is idle, which the law gives exactly; only loaded steps count. */
		for (size_t i = 0; i < h->len && lo <= 0.0; i++)
			lo = h->n[i];
		if (lo > 0.0 && (lo < r->running_min * (1 - 1e-9) || hi > r->running_max * (1 + 1e-9)))
			warn(out, "running: load %g-%g is outside the calibrated span %g-%g on %s",
			     lo, hi, r->running_min, r->running_max, lvl->name);
	}
	if (r->tp_max > 0 && (c->tp < r->tp_min || c->tp > r->tp_max))
		warn(out, "tp: %d is outside the calibrated span %d-%d on %s", c->tp, r->tp_min,
		     r->tp_max, lvl->name);
	if (c->sm_clock_mhz > 0.0) {
		if (r->clock_max <= 0.0)
			warn(out, "sm_clock_mhz: no clock-locked runs were calibrated on %s; kappa = %g is %s",
			     lvl->name, p->kappa.value, wc_source_name(p->kappa.source));
		else if (c->sm_clock_mhz < r->clock_min || c->sm_clock_mhz > r->clock_max)
			warn(out, "sm_clock_mhz: %g MHz is outside the calibrated span %g-%g MHz on %s",
			     c->sm_clock_mhz, r->clock_min, r->clock_max, lvl->name);
	}
	const struct {
		wc_setting setting;
		wc_precision prec;
	} used[2] = { { WC_SETTING_WEIGHTS, c->weights }, { WC_SETTING_KV, c->kv } };
	for (int i = 0; i < 2; i++) {
		if (used[i].prec == WC_PREC_BF16 ||
		    wc_params_find_term(p, used[i].setting, used[i].prec, lvl->name))
			continue;
		const wc_precision_term *t =
			wc_params_find_tested_term(p, used[i].setting, used[i].prec, lvl->name);
		const char *field = used[i].setting == WC_SETTING_KV ? "kv_cache" : "weights";
		if (t && isfinite(t->p_value))
			warn(out, "%s: %s on %s has no fitted term (tested on %d pairs, p = %.2g, not significant); predicted as bf16",
			     field, wc_precision_name(used[i].prec), lvl->name, t->pairs, t->p_value);
		else
			warn(out, "%s: %s on %s has no fitted term; predicted as bf16", field,
			     wc_precision_name(used[i].prec), lvl->name);
	}
}

/* Column of a named parameter in the draws, or -1 (value stays fixed). */
static int
draw_column(const wc_params *p, const char *name)
{
	for (int j = 0; j < p->n_draw_params; j++)
		if (strcmp(p->draw_names[j], name) == 0)
			return j;
	return -1;
}

typedef struct {
	double base;
	int col;
} draw_slot;

static draw_slot
slot(const wc_params *p, const char *name, double base)
{
	draw_slot s = { base, draw_column(p, name) };
	return s;
}

static double
at(const draw_slot *s, const double *row)
{
	return s->col >= 0 ? row[s->col] : s->base;
}

/* Node power for every draw; percentiles give the interval. */
static int
interval(const wc_params *p, const wc_level *lvl, const wc_config *c,
         const load_histogram *h, wc_inference_prediction *out, wc_error *err)
{
	char name[WC_NAME_MAX];
	const wc_level *slvl = wc_params_scale_level(p, lvl);
	const int has_scale = wc_form_has_scale(p->form);
	snprintf(name, sizeof name, "P0[%s]", lvl->name);
	draw_slot p0 = slot(p, name, lvl->p0.value);
	snprintf(name, sizeof name, "S[%s]", slvl->name);
	draw_slot s = slot(p, name, has_scale ? slvl->s.value : 1.0);
	if (!has_scale)
		s.col = -1;
	snprintf(name, sizeof name, "theta[%s]", lvl->name);
	draw_slot theta = slot(p, name, lvl->theta.value);
	snprintf(name, sizeof name, "floor[%s]", lvl->name);
	draw_slot floor_logit = slot(p, name, lvl->floor_logit.value);
	draw_slot delta = slot(p, "delta", p->delta.value);
	draw_slot g1 = slot(p, "gamma1", p->gamma1.value);
	draw_slot g2 = slot(p, "gamma2", p->gamma2.value);
	draw_slot kappa = slot(p, "kappa", p->kappa.value);
	draw_slot terms[2];
	wc_placement place[2] = { WC_PLACE_NONE, WC_PLACE_NONE };
	const wc_precision_term *used[2] = {
		c->weights != WC_PREC_BF16 ? wc_params_find_term(p, WC_SETTING_WEIGHTS, c->weights, lvl->name) : NULL,
		c->kv != WC_PREC_BF16 ? wc_params_find_term(p, WC_SETTING_KV, c->kv, lvl->name) : NULL,
	};
	for (int i = 0; i < 2; i++) {
		if (!used[i])
			continue;
		wc_precision_term_label(used[i], name, sizeof name);
		terms[i] = slot(p, name, used[i]->value.value);
		place[i] = used[i]->placement;
	}
	const double l_n = log(c->active_params_b / (8.0 * c->tp));
	const double l_f = c->sm_clock_mhz > 0.0 ? log(c->sm_clock_mhz / p->clock_ref_mhz) : 0.0;
	const size_t m = h->len;
	double sum_w = 0.0;
	for (size_t j = 0; j < m; j++)
		sum_w += h->w[j];
	/* log(n/32) and its square depend on the load only, not on the draw;
	 * n = 0 (idle) adds nothing to the dynamic part. */
	double *ln = malloc(2 * m * sizeof *ln);
	double *node = malloc((size_t)p->n_draws * sizeof *node);
	if (!ln || !node) {
		free(ln);
		free(node);
		return wc_error_set(err, WC_ENOMEM, "interval: out of memory");
	}
	for (size_t j = 0; j < m; j++) {
		ln[2 * j] = h->n[j] > 0 ? log(h->n[j] / 32.0) : 0.0;
		ln[2 * j + 1] = ln[2 * j] * ln[2 * j];
	}
	int kept = 0;
	for (int r = 0; r < p->n_draws; r++) {
		const double *row = p->draws + (size_t)r * p->n_draw_params;
		double scale = at(&s, row), z0 = at(&theta, row) + at(&delta, row) * l_n;
		for (int i = 0; i < 2; i++) {
			if (place[i] == WC_PLACE_INSIDE_Z)
				z0 += at(&terms[i], row);
			else if (place[i] == WC_PLACE_ON_S)
				scale *= at(&terms[i], row);
		}
		if (l_f != 0.0)
			scale *= exp(at(&kappa, row) * l_f);
		double gamma1 = at(&g1, row), gamma2 = wc_form_has_quadratic(p->form) ? at(&g2, row) : 0.0;
		double fl = at(&floor_logit, row), dyn = 0.0;
		for (size_t j = 0; j < m; j++)
			if (h->n[j] > 0)
				dyn += h->w[j] * wc_form_link(p->form, z0 + gamma1 * ln[2 * j] + gamma2 * ln[2 * j + 1],
				                              fl, NULL, NULL);
		double v = c->tp * (at(&p0, row) + scale * dyn / sum_w);
		if (isfinite(v))
			node[kept++] = v;
	}
	if (kept >= 2) {
		/* Type-7 percentiles need only the order statistics around
		 * (kept-1)*0.025 from each end: select them, don't sort all. */
		const double h_lo = (kept - 1) * 0.025;
		size_t k = (size_t)h_lo + 2;
		if (k > (size_t)kept)
			k = (size_t)kept;
		double *ends = malloc(2 * k * sizeof *ends);
		if (ends) {
			gsl_sort_smallest(ends, k, node, 1, (size_t)kept);
			gsl_sort_largest(ends + k, k, node, 1, (size_t)kept);
			size_t i = (size_t)h_lo;
			double f = h_lo - (double)i, *lo = ends, *hi = ends + k;
			out->node_lo_w = i + 1 < k ? lo[i] + f * (lo[i + 1] - lo[i]) : lo[i];
			/* the 97.5 % point counted from the top is symmetric */
			out->node_hi_w = i + 1 < k ? hi[i] + f * (hi[i + 1] - hi[i]) : hi[i];
			out->has_interval = 1;
			out->n_draws = kept;
			free(ends);
		}
	}
	free(ln);
	free(node);
	return WC_OK;
}

int
wc_predict_inference(const wc_predictor *pr, const wc_inference_query *q,
                     wc_inference_prediction *out, wc_error *err)
{
	const wc_params *p = &pr->params;
	load_histogram h;
	int rc;
	memset(out, 0, sizeof *out);
	out->node_lo_w = out->node_hi_w = NAN;
	if ((rc = histogram_build(q, &h, err)) != WC_OK)
		goto done;
	if ((rc = wc_law_power_series(p, &q->config, h.n, h.w, h.len, &out->power, err)) != WC_OK)
		goto done;
	out->mean_running = h.mean;
	const wc_level *lvl = wc_params_level(p, q->config.platform);
	range_warnings(p, lvl, &q->config, &h, out);
	if (q->want_interval && p->n_draws > 0)
		rc = interval(p, lvl, &q->config, &h, out, err);
done:
	histogram_free(&h);
	return rc;
}
