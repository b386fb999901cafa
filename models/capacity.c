/* The capacity model's parameter section (models/capacity_model.h): labels,
 * checks, lookups, and a level bound for the point and every draw. */
#include "models/capacity_model.h"
#include "capacity_internal.h"
#include "models/catalog.h"
#include "models/grow.h"

#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static const char *const kind_names[WC_CAP_KINDS] = { "eta", "t0", "t1", "etac", "tau", "tau_ep" };

const char *
wc_capacity_kind_name(wc_capacity_kind k)
{
	return (unsigned)k < WC_CAP_KINDS ? kind_names[k] : "?";
}

void
wc_capacity_kind_bounds(wc_capacity_kind k, double *lo, double *hi)
{
	/* Efficiencies up to 1.5 leave room for datasheets that understate;
	 * overheads from a microsecond to a second per step. */
	static const double b[WC_CAP_KINDS][2] = {
		{ 0.01, 1.5 }, { 1e-6, 1.0 }, { 1e-9, 1e-2 }, { 0.01, 1.5 }, { 1e-9, 1e-2 }, { 1e-9, 1e-2 },
	};
	*lo = b[k][0];
	*hi = b[k][1];
}

void
wc_capacity_params_init(wc_capacity_params *c)
{
	memset(c, 0, sizeof *c);
	c->memory_reserve = WC_CAPACITY_DEFAULT_RESERVE;
	c->price_per_kwh = NAN;
	c->grams_co2_per_kwh = NAN;
	for (int k = 0; k < WC_CAP_KINDS; k++)
		c->shared_p[k] = (wc_param){ NAN, NAN, NAN, WC_SRC_ASSUMED };
}

void
wc_capacity_params_clear(wc_capacity_params *c)
{
	if (!c)
		return;
	wc_draws_clear(&c->draws);
	free(c->run_hashes);
	memset(c, 0, sizeof *c);
}

int
wc_capacity_params_set_runs(wc_capacity_params *c, const uint64_t *runs, int n, wc_error *err)
{
	uint64_t *own = n > 0 ? wc_alloc_array((size_t)n, sizeof *own) : NULL;
	if (n > 0 && !own)
		return wc_error_set(err, WC_ENOMEM, "capacity run hashes: out of memory");
	if (own)
		memcpy(own, runs, (size_t)n * sizeof *own);
	free(c->run_hashes);
	c->run_hashes = own;
	c->n_run_hashes = n > 0 ? n : 0;
	return WC_OK;
}

int
wc_capacity_params_copy(wc_capacity_params *dst, const wc_capacity_params *src, wc_error *err)
{
	if (dst == src)
		return WC_OK;
	wc_capacity_params_clear(dst);
	/* Plain values by assignment; the draws are re-owned below. */
	*dst = *src;
	dst->draws = (wc_draws)WC_DRAWS_INIT;
	dst->run_hashes = NULL;
	dst->n_run_hashes = 0;
	int rc = wc_capacity_params_set_runs(dst, src->run_hashes, src->n_run_hashes, err);
	return rc == WC_OK ? wc_draws_copy(&dst->draws, &src->draws, err) : rc;
}

void
wc_capacity_label(wc_capacity_kind k, const char *level, char *buf, size_t cap)
{
	if (level)
		snprintf(buf, cap, "%s[%s]", wc_capacity_kind_name(k), level);
	else
		snprintf(buf, cap, "%s", wc_capacity_kind_name(k));
}

wc_capacity_kind
wc_capacity_value_kind(const wc_capacity_params *c, wc_capacity_kind k)
{
	return k == WC_CAP_TAU_EP && c->tau_ep_tied ? WC_CAP_TAU : k;
}

void
wc_capacity_tie_tau_ep(wc_capacity_params *c)
{
	c->shared[WC_CAP_TAU_EP] = c->shared[WC_CAP_TAU];
	c->shared_p[WC_CAP_TAU_EP] = c->shared_p[WC_CAP_TAU];
	for (int i = 0; i < WC_CAPACITY_MAX_LEVELS; i++)
		c->levels[i].p[WC_CAP_TAU_EP] = c->levels[i].p[WC_CAP_TAU];
	c->tau_ep_tied = 1;
}

void
wc_capacity_workload_label(const char *set, char *buf, size_t cap)
{
	snprintf(buf, cap, "input_tokens[%s]", set);
}

const wc_capacity_level *
wc_capacity_level_find(const wc_capacity_params *c, const char *name)
{
	for (int i = 0; name && i < c->n_levels; i++)
		if (strcasecmp(c->levels[i].name, name) == 0)
			return &c->levels[i];
	/* a level named by a catalog alias of the board asked (H100-SXM5 for
	 * H100) is that board's: the file loads such names */
	const wc_platform_info *hw = name ? wc_platform_lookup(name) : NULL;
	for (int i = 0; hw && i < c->n_levels; i++)
		if (wc_platform_lookup(c->levels[i].name) == hw)
			return &c->levels[i];
	return NULL;
}

const wc_capacity_workload *
wc_capacity_workload_find(const wc_capacity_params *c, const char *set)
{
	for (int i = 0; set && i < c->n_workloads; i++)
		if (strcmp(c->workloads[i].set, set) == 0)
			return &c->workloads[i];
	return NULL;
}

wc_param *
wc_capacity_param_named(wc_capacity_params *c, const char *name)
{
	char label[WC_LABEL_MAX];
	for (int k = 0; k < WC_CAP_KINDS; k++) {
		if (c->shared[k]) {
			wc_capacity_label((wc_capacity_kind)k, NULL, label, sizeof label);
			if (strcmp(label, name) == 0)
				return &c->shared_p[k];
			continue;
		}
		for (int i = 0; i < c->n_levels; i++) {
			wc_capacity_label((wc_capacity_kind)k, c->levels[i].name, label, sizeof label);
			if (strcmp(label, name) == 0)
				return &c->levels[i].p[k];
		}
	}
	for (int i = 0; i < c->n_workloads; i++) {
		wc_capacity_workload_label(c->workloads[i].set, label, sizeof label);
		if (strcmp(label, name) == 0)
			return &c->workloads[i].input_tokens;
	}
	return NULL;
}

static int
add_bound(const char *label, const wc_param *p, const char *unit, char *buf, size_t cap, int n)
{
	if (p->source != WC_SRC_BOUND)
		return n;
	size_t used = strlen(buf);
	snprintf(buf + used, cap - used, "%s%s = %.4g%s%s", n ? ", " : "", label, p->value, unit[0] ? " " : "", unit);
	return n + 1;
}

int
wc_capacity_bound_names(const wc_capacity_params *c, const char *level, const char *set, char *buf, size_t cap)
{
	const wc_capacity_level *l = wc_capacity_level_find(c, level);
	const wc_capacity_workload *w = set ? wc_capacity_workload_find(c, set) : NULL;
	char label[WC_LABEL_MAX];
	int n = 0;
	if (cap)
		buf[0] = '\0';
	if (!c->present || !cap)
		return 0;
	for (int k = 0; l && k < WC_CAP_KINDS; k++) {
		const char *unit = k == WC_CAP_ETA || k == WC_CAP_ETAC ? "" : "s";
		if ((int)wc_capacity_value_kind(c, (wc_capacity_kind)k) != k)
			continue; /* a tied tau_ep is tau, named once */
		wc_capacity_label((wc_capacity_kind)k, c->shared[k] ? NULL : l->name, label, sizeof label);
		n = add_bound(label, c->shared[k] ? &c->shared_p[k] : &l->p[k], unit, buf, cap, n);
	}
	if (w) {
		wc_capacity_workload_label(w->set, label, sizeof label);
		n = add_bound(label, &w->input_tokens, "tokens", buf, cap, n);
	}
	return n;
}

/* Another level's rows identified kind k (neither assumed nor at a
 * bound). */
static int
identified_elsewhere(const wc_capacity_params *c, const wc_capacity_level *l, int k)
{
	for (int i = 0; i < c->n_levels; i++) {
		const wc_param *q = &c->levels[i].p[k];
		if (&c->levels[i] != l && q->source != WC_SRC_ASSUMED && q->source != WC_SRC_BOUND)
			return 1;
	}
	return 0;
}

int
wc_capacity_held_names(const wc_capacity_params *c, const char *level, char *buf, size_t cap)
{
	const wc_capacity_level *l = wc_capacity_level_find(c, level);
	char label[WC_LABEL_MAX];
	int n = 0;
	if (cap)
		buf[0] = '\0';
	if (!c->present || !cap || !l)
		return 0;
	/* a value fixed at 0 (t1, tau the rows cannot see) is assumed too,
	 * but held at nobody's median */
	for (int k = 0; k < WC_CAP_KINDS; k++) {
		const wc_param *p = &l->p[k];
		if (c->shared[k] || p->source != WC_SRC_ASSUMED || !(p->value > 0) || !identified_elsewhere(c, l, k) ||
		    (int)wc_capacity_value_kind(c, (wc_capacity_kind)k) != k)
			continue;
		size_t used = strlen(buf);
		wc_capacity_label((wc_capacity_kind)k, l->name, label, sizeof label);
		if (k == WC_CAP_ETA || k == WC_CAP_ETAC)
			snprintf(buf + used, cap - used, "%s%s = %.3g", n ? ", " : "", label, p->value);
		else
			snprintf(buf + used, cap - used, "%s%s = %.3g ms", n ? ", " : "", label, 1e3 * p->value);
		n++;
	}
	return n;
}

/* eta and etac divide: > 0; overheads, communication and a workload's
 * input length (kind WC_CAP_KINDS here): >= 0. A draw is one value of its
 * parameter and is held to the same bound (docs/formats/params-file.md,
 * "capacity"): a negative eta made every capacity interval nonsense. */
static int
kind_positive(int k)
{
	return k == WC_CAP_ETA || k == WC_CAP_ETAC;
}

static int
kind_value_ok(int k, double v)
{
	return isfinite(v) && (kind_positive(k) ? v > 0.0 : v >= 0.0);
}

static int
check_value(wc_capacity_kind k, const wc_param *p, const char *where, wc_error *err)
{
	if (!kind_value_ok(k, p->value))
		return wc_error_set(err, WC_EINVAL, "capacity/%s/%s: must be finite and %s 0", where,
		                    wc_capacity_kind_name(k), kind_positive(k) ? ">" : ">=");
	return WC_OK;
}

/* The kind of the parameter a draw column names; WC_CAP_KINDS for a
 * workload's input length, -1 for no parameter. */
static int
draw_kind(const wc_capacity_params *c, const char *name)
{
	const wc_param *p = wc_capacity_param_named((wc_capacity_params *)c, name);
	if (!p)
		return -1;
	for (int k = 0; k < WC_CAP_KINDS; k++) {
		if (p == &c->shared_p[k])
			return k;
		for (int i = 0; i < c->n_levels; i++)
			if (p == &c->levels[i].p[k])
				return k;
	}
	return WC_CAP_KINDS;
}

static int
check_level(const wc_capacity_params *c, int i, wc_error *err)
{
	const wc_capacity_level *l = &c->levels[i];
	char where[32];
	int rc;
	snprintf(where, sizeof where, "levels/%d", i);
	if (!l->name[0])
		return wc_error_set(err, WC_EINVAL, "capacity/%s/name: empty", where);
	for (int j = 0; j < i; j++)
		if (strcasecmp(c->levels[j].name, l->name) == 0)
			return wc_error_set(err, WC_EINVAL, "capacity/%s/name: duplicate level '%s'", where, l->name);
	if (!(l->bandwidth_tb_s > 0) || !(l->bf16_tflops > 0) || !(l->memory_gb > 0) ||
	    !isfinite(l->bandwidth_tb_s + l->bf16_tflops + l->memory_gb))
		return wc_error_set(err, WC_EINVAL,
		                    "capacity/%s: bandwidth_tb_s, bf16_tflops and memory_gb must be finite and > 0", where);
	for (int k = 0; k < WC_CAP_KINDS; k++)
		if (!c->shared[k] && (rc = check_value((wc_capacity_kind)k, &l->p[k], where, err)))
			return rc;
	return WC_OK;
}

static int
check_draws(const wc_capacity_params *c, wc_error *err)
{
	for (int j = 0; j < c->draws.k; j++) {
		int k = draw_kind(c, c->draws.names[j]);
		if (k < 0)
			return wc_error_set(err, WC_EINVAL, "capacity/draws/names/%d: no parameter '%s'", j,
			                    c->draws.names[j]);
		for (int r = 0; r < c->draws.n; r++) {
			double v = c->draws.values[(size_t)r * c->draws.k + j];
			if (!kind_value_ok(k, v))
				return wc_error_set(err, WC_EINVAL, "capacity/draws/values/%d/%d: %s = %g must be "
				                    "finite and %s 0, as its value", r, j, c->draws.names[j], v,
				                    kind_positive(k) ? ">" : ">=");
		}
	}
	return WC_OK;
}

int
wc_capacity_params_validate(const wc_capacity_params *c, wc_error *err)
{
	int rc;
	if (!c->present)
		return WC_OK;
	if (c->n_levels < 1 || c->n_levels > WC_CAPACITY_MAX_LEVELS)
		return wc_error_set(err, WC_EINVAL, "capacity/levels: need 1 to %d levels", WC_CAPACITY_MAX_LEVELS);
	for (int k = 0; k < WC_CAP_KINDS; k++)
		if (c->shared[k] && (rc = check_value((wc_capacity_kind)k, &c->shared_p[k], "shared", err)))
			return rc;
	for (int i = 0; i < c->n_levels; i++)
		if ((rc = check_level(c, i, err)))
			return rc;
	for (int i = 0; i < c->n_workloads; i++) {
		const wc_param *p = &c->workloads[i].input_tokens;
		if (!kind_value_ok(WC_CAP_KINDS, p->value))
			return wc_error_set(err, WC_EINVAL, "capacity/workloads/%d/input_tokens: must be finite and >= 0", i);
	}
	if (!(c->memory_reserve >= 0.0 && c->memory_reserve <= 0.9))
		return wc_error_set(err, WC_EINVAL, "capacity/memory_reserve: must be between 0 and 0.9");
	if (c->price_per_kwh < 0 || c->grams_co2_per_kwh < 0)
		return wc_error_set(err, WC_EINVAL, "capacity/defaults: price and carbon intensity must be >= 0");
	return check_draws(c, err);
}

int
wc_capacity_bind(const wc_capacity_params *c, const char *platform, wc_capacity_binding *b,
                 wc_error *err)
{
	const wc_capacity_level *l = wc_capacity_level_find(c, platform);
	char label[WC_LABEL_MAX];
	if (!c->present)
		return wc_error_set(err, WC_ENOTFOUND, "capacity: the parameter set has no capacity model");
	if (!l)
		return wc_error_set(err, WC_ENOTFOUND, "platform: the capacity model has no level '%s'",
		                    platform ? platform : "");
	memset(b, 0, sizeof *b);
	b->c = c;
	b->level = l;
	b->hw = wc_capacity_hw_datasheet(l->name, l->bandwidth_tb_s, l->bf16_tflops, l->memory_gb);
	for (int k = 0; k < WC_CAP_KINDS; k++) {
		const wc_param *p = c->shared[k] ? &c->shared_p[k] : &l->p[k];
		/* a tied tau_ep's draws are tau's column (wc_capacity_value_kind) */
		wc_capacity_label(wc_capacity_value_kind(c, (wc_capacity_kind)k), c->shared[k] ? NULL : l->name, label,
		                  sizeof label);
		b->base[k] = p->value;
		b->col[k] = wc_draws_column(&c->draws, label);
	}
	return WC_OK;
}

void
wc_capacity_bound_point(const wc_capacity_binding *b, const double *draw, wc_capacity_point *out)
{
	double v[WC_CAP_KINDS];
	for (int k = 0; k < WC_CAP_KINDS; k++)
		v[k] = b->datasheet && !b->c->shared[k] ? wc__capacity_transfer_value(b, (wc_capacity_kind)k, draw)
		       : draw && b->col[k] >= 0      ? draw[b->col[k]]
		                                     : b->base[k];
	out->eta = v[WC_CAP_ETA];
	out->t0 = v[WC_CAP_T0];
	out->t1 = v[WC_CAP_T1];
	out->etac = v[WC_CAP_ETAC];
	out->tau = v[WC_CAP_TAU];
	out->tau_ep = v[WC_CAP_TAU_EP];
}
