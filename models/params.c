/*
 * Parameter sets (frozen laws): deep copies, level lookup, structural
 * validation and the flat named view used for bootstrap draws
 * (docs/formats/params-file.md). Parameter labels are formed only here;
 * the built-in "paper" profile is models/profile_paper.c.
 */
#include "models/params.h"

#include "models/catalog.h"
#include "models/grow.h"
#include "models/limits.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void
wc_params_clear(wc_params *p)
{
	if (!p)
		return;
	free(p->draw_names);
	free(p->draws);
	free(p->calibration_rows);
	free(p->response_runs);
	free(p->fit_rows);
	free(p->fit_runs);
	free(p->idle_rows);
	wc_capacity_params_clear(&p->capacity);
	wc_finetune_params_clear(&p->finetune);
	memset(p, 0, sizeof *p);
}

int
wc_params_set_draws(wc_params *p, int n_draws, int n_params,
                    const char (*names)[WC_LABEL_MAX], const double *values, wc_error *err)
{
	free(p->draw_names);
	free(p->draws);
	p->draw_names = NULL;
	p->draws = NULL;
	p->n_draws = p->n_draw_params = 0;
	if (n_draws <= 0 || n_params <= 0)
		return WC_OK;
	int ok;
	size_t cells = wc_size_mul((size_t)n_draws, (size_t)n_params, &ok);
	p->draw_names = wc_alloc_array((size_t)n_params, sizeof *p->draw_names);
	p->draws = ok ? wc_alloc_array(cells, sizeof *p->draws) : NULL;
	if (!p->draw_names || !p->draws) {
		free(p->draw_names);
		free(p->draws);
		p->draw_names = NULL;
		p->draws = NULL;
		return wc_error_set(err, WC_ENOMEM, "draws: out of memory");
	}
	memcpy(p->draw_names, names, (size_t)n_params * sizeof *p->draw_names);
	memcpy(p->draws, values, cells * sizeof *p->draws);
	p->n_draws = n_draws;
	p->n_draw_params = n_params;
	return WC_OK;
}

/* One owned list of 64-bit hashes in place of another. */
static int
set_hashes(uint64_t **dst, int *n_dst, const uint64_t *src, int n, const char *what, wc_error *err)
{
	uint64_t *own = n > 0 ? wc_alloc_array((size_t)n, sizeof *own) : NULL;
	if (n > 0 && !own)
		return wc_error_set(err, WC_ENOMEM, "%s: out of memory", what);
	if (own)
		memcpy(own, src, (size_t)n * sizeof *own);
	free(*dst);
	*dst = own;
	*n_dst = n > 0 ? n : 0;
	return WC_OK;
}

int
wc_params_set_calibration_rows(wc_params *p, const uint64_t *rows, int n, wc_error *err)
{
	return set_hashes(&p->calibration_rows, &p->n_calibration_rows, rows, n, "calibration rows", err);
}

/* Each row once, the set's own first: a calibration on top of a
 * calibrated set keeps the earlier one's rows, which stay in-sample
 * wherever they are scored (docs/validation.md, "Frozen-law accuracy"). */
int
wc_params_add_calibration_rows(wc_params *p, const uint64_t *rows, int n, wc_error *err)
{
	int have = p->n_calibration_rows;
	uint64_t *all = wc_alloc_array((size_t)have + (size_t)(n > 0 ? n : 0) + 1, sizeof *all);
	if (!all)
		return wc_error_set(err, WC_ENOMEM, "calibration rows: out of memory");
	int k = 0;
	for (int i = 0; i < have + n; i++) {
		uint64_t h = i < have ? p->calibration_rows[i] : rows[i - have];
		int seen = 0;
		for (int j = 0; j < k && !seen; j++)
			seen = all[j] == h;
		if (!seen)
			all[k++] = h;
	}
	int rc = set_hashes(&p->calibration_rows, &p->n_calibration_rows, all, k, "calibration rows", err);
	free(all);
	return rc;
}

int
wc_params_set_response_runs(wc_params *p, const uint64_t *runs, int n, wc_error *err)
{
	return set_hashes(&p->response_runs, &p->n_response_runs, runs, n, "response runs", err);
}

int
wc_params_set_fit_hashes(wc_params *p, char which, const uint64_t *h, int n, wc_error *err)
{
	uint64_t **dst = which == 'r' ? &p->fit_rows : which == 'u' ? &p->fit_runs : &p->idle_rows;
	int *n_dst = which == 'r' ? &p->n_fit_rows : which == 'u' ? &p->n_fit_runs : &p->n_idle_rows;
	uint64_t *once = wc_alloc_array((size_t)(n > 0 ? n : 0) + 1, sizeof *once);
	if (!once)
		return wc_error_set(err, WC_ENOMEM, "fit rows: out of memory");
	int k = 0;
	for (int i = 0; i < n; i++) {
		int seen = 0;
		for (int j = 0; j < k && !seen; j++)
			seen = once[j] == h[i];
		if (!seen)
			once[k++] = h[i];
	}
	int rc = set_hashes(dst, n_dst, once, k, "fit rows", err);
	free(once);
	return rc;
}

int
wc_params_copy(wc_params *dst, const wc_params *src, wc_error *err)
{
	if (dst == src)
		return WC_OK;
	wc_params_clear(dst);
	/* The one place a set is copied by value: every owned part is
	 * re-owned below. */
	*dst = *src;
	dst->draw_names = NULL;
	dst->draws = NULL;
	dst->n_draws = dst->n_draw_params = 0;
	dst->calibration_rows = NULL;
	dst->n_calibration_rows = 0;
	dst->response_runs = NULL;
	dst->n_response_runs = 0;
	dst->fit_rows = dst->fit_runs = dst->idle_rows = NULL;
	dst->n_fit_rows = dst->n_fit_runs = dst->n_idle_rows = 0;
	dst->capacity = (wc_capacity_params){ 0 };
	dst->finetune = (wc_finetune_params){ 0 };
	int rc = wc_params_set_draws(dst, src->n_draws, src->n_draw_params,
	                             (const char (*)[WC_LABEL_MAX])src->draw_names, src->draws, err);
	if (rc == WC_OK)
		rc = wc_params_set_calibration_rows(dst, src->calibration_rows, src->n_calibration_rows, err);
	if (rc == WC_OK)
		rc = wc_params_set_response_runs(dst, src->response_runs, src->n_response_runs, err);
	if (rc == WC_OK)
		rc = wc_params_set_fit_hashes(dst, 'r', src->fit_rows, src->n_fit_rows, err);
	if (rc == WC_OK)
		rc = wc_params_set_fit_hashes(dst, 'u', src->fit_runs, src->n_fit_runs, err);
	if (rc == WC_OK)
		rc = wc_params_set_fit_hashes(dst, 'i', src->idle_rows, src->n_idle_rows, err);
	if (rc == WC_OK)
		rc = wc_capacity_params_copy(&dst->capacity, &src->capacity, err);
	if (rc == WC_OK)
		rc = wc_finetune_params_copy(&dst->finetune, &src->finetune, err);
	if (rc != WC_OK)
		wc_params_clear(dst);
	return rc;
}

const wc_level *
wc_params_level(const wc_params *p, const char *name)
{
	/* case-insensitive, as --platform is: a valid set has no two
	 * levels equal but for case (wc_params_validate) */
	for (int i = 0; name && i < p->n_levels; i++)
		if (strcasecmp(p->levels[i].name, name) == 0)
			return &p->levels[i];
	return NULL;
}

const char *
wc_params_platform(const wc_params *p, const char *name)
{
	const wc_platform_info *hw;
	const wc_level *l;
	if ((l = wc_params_level(p, name)))
		return l->name;
	if (!(hw = wc_platform_lookup(name)))
		return NULL;
	return (l = wc_params_level(p, hw->name)) ? l->name : hw->name;
}

static int
uses_own_scale(const wc_params *p, const wc_level *l)
{
	return wc_form_has_scale(p->form) && l->s_shared_with[0] == '\0';
}

static int
validate_model_terms(const wc_params *p, wc_error *err)
{
	if (p->n_model_terms < 0 || p->n_model_terms > WC_MAX_MODEL_TERMS)
		return wc_error_set(err, WC_EINVAL, "model_terms: at most %d terms", WC_MAX_MODEL_TERMS);
	for (int i = 0; i < p->n_model_terms; i++) {
		const wc_model_term *t = &p->model_terms[i];
		char key[WC_MODEL_NAME_MAX];
		if (!t->model[0])
			return wc_error_set(err, WC_EINVAL, "model_terms/%d/model: empty", i);
		wc_model_key(t->model, key, sizeof key);
		if (strcmp(key, t->model) != 0)
			return wc_error_set(err, WC_EINVAL,
			                    "model_terms/%d/model: '%s' is a variant; name its base model '%s'",
			                    i, t->model, key);
		if (!wc_params_level(p, t->level))
			return wc_error_set(err, WC_EINVAL, "model_terms/%d/level: no level '%s'", i, t->level);
		if (!isfinite(t->shift.value))
			return wc_error_set(err, WC_EINVAL, "model_terms/%d/shift: must be finite", i);
		if (!(isfinite(t->p0.value) && t->p0.value >= 0.0))
			return wc_error_set(err, WC_EINVAL, "model_terms/%d/p0_w: must be a finite idle power, not negative", i);
		/* the bound calibrate puts on a run's idle_power_w, which p0_w is the mean of */
		const wc_level *l = wc_params_level(p, t->level);
		char field[48];
		snprintf(field, sizeof field, "model_terms/%d/p0_w", i);
		if (wc_params_check_idle(l->name, l->s_shared_with, t->p0.value, field, err) != WC_OK)
			return WC_EINVAL;
		for (int j = 0; j < i; j++)
			if (strcasecmp(p->model_terms[j].model, t->model) == 0 &&
			    strcasecmp(p->model_terms[j].level, t->level) == 0)
				return wc_error_set(err, WC_EINVAL, "model_terms/%d: a second term for %s on %s",
				                    i, t->model, t->level);
	}
	return WC_OK;
}

void
wc_model_key(const char *name, char *buf, size_t cap)
{
	const wc_model_info *m = wc_model_lookup(name);
	const char *slash = name ? strrchr(name, '/') : NULL;
	snprintf(buf, cap, "%s", m ? m->name : slash ? slash + 1 : name ? name : "");
}

void
wc_model_term_label(const wc_model_term *t, char *buf, size_t cap)
{
	snprintf(buf, cap, "shift[%s@%s]", t->model, t->level);
}

void
wc_params_drop_model_terms(wc_params *p, const char *level)
{
	int kept = 0;
	for (int i = 0; i < p->n_model_terms; i++)
		if (strcasecmp(p->model_terms[i].level, level) != 0)
			p->model_terms[kept++] = p->model_terms[i];
	p->n_model_terms = kept;
}

const wc_model_term *
wc_params_find_model_term(const wc_params *p, const char *model, const char *level)
{
	char key[WC_MODEL_NAME_MAX];
	if (!model || !model[0] || p->n_model_terms == 0)
		return NULL;
	wc_model_key(model, key, sizeof key);
	for (int i = 0; i < p->n_model_terms; i++) {
		const wc_model_term *t = &p->model_terms[i];
		if (strcasecmp(t->level, level) == 0 && strcasecmp(t->model, key) == 0)
			return t;
	}
	return NULL;
}

const wc_param *
wc_params_find_p0(const wc_params *p, const char *model, const wc_level *lvl, const wc_model_term **term)
{
	const wc_model_term *t = wc_params_find_model_term(p, model, lvl->name);
	if (t && !(t->p0.value > 0.0))
		t = NULL; /* a term without an idle of its own: the level's */
	if (term)
		*term = t;
	return t ? &t->p0 : &lvl->p0;
}

int
wc_params_check_idle(const char *level, const char *shared_with, double idle_w, const char *field,
                     wc_error *err)
{
	const wc_platform_info *board = wc_platform_board(level, shared_with);
	/* the low side is the floor of any GPU's power (models/limits.h), the
	 * one runs' mean power is refused under as a unit slip */
	if (idle_w > 0.0 && idle_w < WC_GPU_MIN_POWER_W)
		return wc_error_set(err, WC_EINVAL, "%s: %s W per GPU is under %g W, below any GPU's idle: a unit slip "
		                    "(kW given as W?); give one idle GPU's power", field, WC_NUM_TEXT(idle_w),
		                    WC_GPU_MIN_POWER_W);
	if (idle_w > 0.0 && board && board->max_power_w > 0.0 && idle_w >= board->max_power_w)
		return wc_error_set(err, WC_EINVAL, "%s: %s W per GPU is not below %s's board limit of %g W; "
		                    "give one idle GPU's power", field, WC_NUM_TEXT(idle_w), board->name, board->max_power_w);
	return WC_OK;
}

int
wc_params_validate(const wc_params *p, wc_error *err)
{
	if (p->n_levels < 1 || p->n_levels > WC_MAX_LEVELS)
		return wc_error_set(err, WC_EINVAL, "levels: need 1 to %d levels", WC_MAX_LEVELS);
	if ((unsigned)p->form >= WC_FORM_COUNT)
		return wc_error_set(err, WC_EINVAL, "form: unknown");
	for (int i = 0; i < p->n_levels; i++) {
		const wc_level *l = &p->levels[i];
		if (!l->name[0])
			return wc_error_set(err, WC_EINVAL, "levels/%d/name: empty", i);
		for (int j = 0; j < i; j++)
			if (strcasecmp(p->levels[j].name, l->name) == 0)
				/* level names are case-insensitive (--platform is) */
				return wc_error_set(err, WC_EINVAL, "levels/%d/name: duplicate level '%s'%s%s%s", i,
				                    l->name, strcmp(p->levels[j].name, l->name) ? " (names are "
				                    "case-insensitive: '" : "", strcmp(p->levels[j].name, l->name)
				                    ? p->levels[j].name : "", strcmp(p->levels[j].name, l->name) ? "')" : "");
		if (!isfinite(l->p0.value) || l->p0.value < 0.0)
			return wc_error_set(err, WC_EINVAL, "levels/%d/p0_w/value: must be finite and >= 0, got %s", i,
			                    WC_NUM_TEXT(l->p0.value));
		/* An idle draw at or above the board's limit is no GPU's: the
		 * bound a request's idle_power_w and a model term's p0_w are held
		 * to (docs/formats/params-file.md, "Ranges"); a board the catalog
		 * does not know has no limit to hold it to. */
		char field[48];
		snprintf(field, sizeof field, "levels/%d/p0_w/value", i);
		if (wc_params_check_idle(l->name, l->s_shared_with, l->p0.value, field, err) != WC_OK)
			return WC_EINVAL;
		if (!isfinite(l->theta.value))
			return wc_error_set(err, WC_EINVAL, "levels/%d/theta: must be finite", i);
		if (wc_form_has_floor(p->form) && !isfinite(l->floor_logit.value))
			return wc_error_set(err, WC_EINVAL, "levels/%d/floor_logit: required by form %s",
			                    i, wc_form_name(p->form));
		if (l->s_shared_with[0]) {
			const wc_level *t = wc_params_level(p, l->s_shared_with);
			if (!t || t == l)
				return wc_error_set(err, WC_EINVAL, "levels/%d/s_shared_with: %s '%s'", i,
				                    t ? "a level cannot share S with itself," : "no level", l->s_shared_with);
			if (t->s_shared_with[0])
				return wc_error_set(err, WC_EINVAL,
				                    "levels/%d/s_shared_with: '%s' shares its own S; chains are not allowed",
				                    i, l->s_shared_with);
		} else if (uses_own_scale(p, l) && (!isfinite(l->s.value) || l->s.value <= 0.0)) {
			return wc_error_set(err, WC_EINVAL, "levels/%d/s_w/value: must be finite and > 0, got %s", i,
			                    WC_NUM_TEXT(l->s.value));
		}
	}
	if (wc_form_has_prefill(p->form) && !(isfinite(p->phi.value) && p->phi.value > 0.0))
		return wc_error_set(err, WC_EINVAL, "shared/phi: must be finite and > 0 for form %s",
		                    wc_form_name(p->form));
	const wc_param *shared[4] = { &p->delta, &p->gamma1, &p->gamma2, &p->kappa };
	const char *names[4] = { "delta", "gamma1", "gamma2", "kappa" };
	for (int i = 0; i < 4; i++)
		if (!isfinite(shared[i]->value))
			return wc_error_set(err, WC_EINVAL, "shared/%s: must be finite", names[i]);
	for (int k = 0; k < WC_LT_COUNT; k++)
		if ((p->law_terms & WC_LT_BIT(k)) && !isfinite(p->law_term[k].value))
			return wc_error_set(err, WC_EINVAL, "shared/%s: must be finite", wc_law_term_name((wc_law_term)k));
	if (!isfinite(p->clock_ref_mhz) || p->clock_ref_mhz <= 0.0)
		return wc_error_set(err, WC_EINVAL, "clock_ref_mhz: must be > 0");
	for (int i = 0; i < p->n_terms; i++) {
		const wc_precision_term *t = &p->terms[i];
		if (t->level[0] && !wc_params_level(p, t->level))
			return wc_error_set(err, WC_EINVAL, "precision_terms/%d/level: no level '%s'", i, t->level);
		if (t->kept && t->placement == WC_PLACE_NONE)
			return wc_error_set(err, WC_EINVAL, "precision_terms/%d: a kept term needs a placement", i);
		if (t->kept && !isfinite(t->value.value))
			return wc_error_set(err, WC_EINVAL, "precision_terms/%d/value: must be finite", i);
		if (t->kept && t->placement == WC_PLACE_ON_S && t->value.value <= 0.0)
			return wc_error_set(err, WC_EINVAL, "precision_terms/%d/value: a factor on S must be > 0", i);
		if (t->precision == WC_PREC_BF16)
			return wc_error_set(err, WC_EINVAL, "precision_terms/%d/precision: bf16 is the reference", i);
	}
	int rc = validate_model_terms(p, err);
	if (rc == WC_OK)
		rc = wc_finetune_validate(&p->finetune, err);
	if (rc != WC_OK)
		return rc;
	if (p->n_draws > 0) {
		for (int j = 0; j < p->n_draw_params; j++) {
			double v;
			if (wc_params_get_named(p, p->draw_names[j], &v) != WC_OK)
				return wc_error_set(err, WC_EINVAL, "draws/names/%d: no parameter '%s'", j,
				                    p->draw_names[j]);
		}
		for (long k = 0; k < (long)p->n_draws * p->n_draw_params; k++)
			if (!isfinite(p->draws[k]))
				return wc_error_set(err, WC_EINVAL, "draws/values/%ld/%ld: must be finite",
				                    k / p->n_draw_params, k % p->n_draw_params);
	}
	if (wc_capacity_params_validate(&p->capacity, err) != 0)
		return -1;
	if ((rc = wc_response_validate(&p->response, err)) != WC_OK)
		return rc;
	return wc_response_validate_levels(&p->response, p, err);
}

void
wc_level_param_label(wc_level_param kind, const char *level, char *buf, size_t cap)
{
	static const char *const prefix[] = { "S", "theta", "floor", "P0" };
	snprintf(buf, cap, "%s[%s]", (unsigned)kind <= WC_LEVEL_P0 ? prefix[kind] : "?", level);
}

void
wc_precision_term_label(const wc_precision_term *t, char *buf, size_t cap)
{
	snprintf(buf, cap, "term[%s:%s@%s]", wc_setting_name(t->setting),
	         wc_precision_name(t->precision), t->level[0] ? t->level : "all");
}

/* Calls `visit` for every parameter in vector order; stops when it returns
 * non-zero. `free_only` limits the walk to fitted parameters. */
typedef int (*param_visitor)(const char *name, wc_param *param, void *payload);

static int
walk(wc_params *p, int free_only, param_visitor visit, void *payload)
{
	char name[WC_LABEL_MAX];
	int rc;
#define VISIT(label, prm)                                                        \
	do {                                                                     \
		if (!free_only || (prm)->source == WC_SRC_FITTED) {              \
			if ((rc = visit(label, prm, payload)) != 0)              \
				return rc;                                       \
		}                                                                \
	} while (0)
	for (int i = 0; i < p->n_levels; i++) {
		wc_level *l = &p->levels[i];
		if (uses_own_scale(p, l)) {
			wc_level_param_label(WC_LEVEL_S, l->name, name, sizeof name);
			VISIT(name, &l->s);
		}
		wc_level_param_label(WC_LEVEL_THETA, l->name, name, sizeof name);
		VISIT(name, &l->theta);
		if (wc_form_has_floor(p->form)) {
			wc_level_param_label(WC_LEVEL_FLOOR, l->name, name, sizeof name);
			VISIT(name, &l->floor_logit);
		}
		wc_level_param_label(WC_LEVEL_P0, l->name, name, sizeof name);
		VISIT(name, &l->p0);
	}
	VISIT("delta", &p->delta);
	VISIT("gamma1", &p->gamma1);
	if (wc_form_has_quadratic(p->form))
		VISIT("gamma2", &p->gamma2);
	VISIT("kappa", &p->kappa);
	if (wc_form_has_prefill(p->form))
		VISIT("phi", &p->phi);
	for (int i = 0; i < p->n_terms; i++) {
		if (!p->terms[i].kept)
			continue;
		wc_precision_term_label(&p->terms[i], name, sizeof name);
		VISIT(name, &p->terms[i].value);
	}
	for (int k = 0; k < WC_LT_COUNT; k++)
		if (p->law_terms & WC_LT_BIT(k))
			VISIT(wc_law_term_name((wc_law_term)k), &p->law_term[k]);
	for (int i = 0; i < p->n_model_terms; i++) {
		wc_model_term_label(&p->model_terms[i], name, sizeof name);
		VISIT(name, &p->model_terms[i].shift);
	}
#undef VISIT
	return 0;
}

typedef struct {
	char (*names)[WC_LABEL_MAX];
	int cap, count;
} name_collector;

static int
collect_name(const char *name, wc_param *param, void *payload)
{
	name_collector *c = payload;
	(void)param;
	if (c->count < c->cap)
		snprintf(c->names[c->count], WC_LABEL_MAX, "%s", name);
	c->count++;
	return 0;
}

int
wc_params_vector_names(const wc_params *p, char (*names)[WC_LABEL_MAX], int cap)
{
	name_collector c = { names, cap, 0 };
	/* walk() only reads through the pointer here; the cast keeps one walker. */
	walk((wc_params *)p, 1, collect_name, &c);
	return c.count;
}

typedef struct {
	const char *want;
	wc_param *found;
} name_finder;

static int
find_name(const char *name, wc_param *param, void *payload)
{
	name_finder *f = payload;
	if (strcmp(name, f->want) != 0)
		return 0;
	f->found = param;
	return 1;
}

int
wc_params_draw_column(const wc_params *p, const char *name)
{
	for (int j = 0; j < p->n_draw_params; j++)
		if (strcasecmp(p->draw_names[j], name) == 0) /* "theta[h100]" is theta[H100]'s, as levels match */
			return j;
	return -1;
}

int
wc_params_get_named(const wc_params *p, const char *name, double *out)
{
	name_finder f = { name, NULL };
	walk((wc_params *)p, 0, find_name, &f);
	if (!f.found)
		return WC_ENOTFOUND;
	*out = f.found->value;
	return WC_OK;
}

int
wc_params_set_named(wc_params *p, const char *name, double value)
{
	name_finder f = { name, NULL };
	walk(p, 0, find_name, &f);
	if (!f.found)
		return WC_ENOTFOUND;
	f.found->value = value;
	return WC_OK;
}

int
wc_params_set_interval_named(wc_params *p, const char *name, double lo, double hi)
{
	name_finder f = { name, NULL };
	walk(p, 0, find_name, &f);
	if (!f.found)
		return WC_ENOTFOUND;
	f.found->lo = lo;
	f.found->hi = hi;
	return WC_OK;
}

const wc_param *
wc_params_param_named(const wc_params *p, const char *name)
{
	name_finder f = { name, NULL };
	walk((wc_params *)p, 0, find_name, &f);
	return f.found;
}
