/*
 * The datasheet transfer rule (docs/fitting.md, "Platforms without a
 * fitted level"): a level for a platform the parameter set has no runs of,
 * from the platform catalog's facts and the set's own fitted levels.
 *
 *   P0 = the catalog's typical idle (else wc_params_estimated_idle_w)
 *   S  = r · (limit − P0),   r = mean of S_L / (limit_L − P0_L)
 *   θ  = mean of θ_L + δ · log(F_L / F)
 *
 * over the set's levels with their own S that the catalog knows (a
 * locked-clock or shared level is not a board); F is the dense BF16
 * throughput. The dynamic range scales with the board's headroom; the
 * model size enters the law per unit of the board's compute (a board with
 * twice the FLOPS runs a model as the other runs half of it), so each
 * fitted level's θ is carried to the new board through the set's own size
 * slope δ. Held out one platform at a time this cut the misses of the
 * published levels and of the measured profile's (docs/results.md,
 * "Datasheet transfer"); the compute/bandwidth ratio did not. Nor did
 * taking a board whose die has a fitted level (A100-40GB) from that level
 * alone: H100 and H200 rebuilt from each other missed more than from
 * every level (docs/fitting.md), so the mean stays and the answer names
 * the level (wc_params_die_levels).
 */
#include "models/params.h"

#include "models/catalog.h"
#include "models/error.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* δ · log(F_from / F_to): the shift of z that carries a level fitted on
 * board `from` to board `to` at the same model size; 0 when either
 * throughput is unknown. */
static double
compute_shift(const wc_params *p, const wc_platform_info *from, const wc_platform_info *to)
{
	if (!(from->bf16_tflops > 0) || !(to->bf16_tflops > 0) || !isfinite(p->delta.value))
		return 0.0;
	return p->delta.value * log(from->bf16_tflops / to->bf16_tflops);
}

int
wc_params_transfer_source(const wc_params *p, const wc_level *l, const char *skip)
{
	(void)p;
	const wc_platform_info *li = wc_platform_lookup(l->name);
	return li && !l->s_shared_with[0] && !(skip && strcmp(l->name, skip) == 0) &&
	       l->s.source != WC_SRC_DATASHEET && l->s.value > 0 && isfinite(l->theta.value) &&
	       li->max_power_w > l->p0.value;
}

int
wc_params_datasheet_level(const wc_params *p, const char *platform, const char *skip, wc_level *out)
{
	const wc_platform_info *hw = wc_platform_lookup(platform);
	double ratio = 0.0, theta = 0.0;
	int n = 0;
	if (!hw || !(hw->max_power_w > 0))
		return WC_ENOTFOUND;
	for (int i = 0; i < p->n_levels; i++) {
		const wc_level *l = &p->levels[i];
		const wc_platform_info *li = wc_platform_lookup(l->name);
		if (!wc_params_transfer_source(p, l, skip))
			continue;
		ratio += l->s.value / (li->max_power_w - l->p0.value);
		theta += l->theta.value + compute_shift(p, li, hw);
		n++;
	}
	if (!n || !wc_form_has_scale(p->form))
		return WC_ENOTFOUND;
	double p0 = hw->idle_power_w > 0 ? hw->idle_power_w : wc_params_estimated_idle_w(hw->name);
	memset(out, 0, sizeof *out);
	snprintf(out->name, sizeof out->name, "%s", hw->name);
	out->p0 = (wc_param){ p0, NAN, NAN, hw->idle_power_w > 0 ? WC_SRC_PUBLISHED : WC_SRC_ESTIMATED };
	out->s = (wc_param){ ratio / n * (hw->max_power_w - p0), NAN, NAN, WC_SRC_DATASHEET };
	out->theta = (wc_param){ theta / n, NAN, NAN, WC_SRC_DATASHEET };
	out->floor_logit = (wc_param){ NAN, NAN, NAN, WC_SRC_ASSUMED };
	return WC_OK;
}

int
wc_params_die_levels(const wc_params *p, const char *platform, char *buf, size_t cap)
{
	const wc_platform_info *hw = wc_platform_lookup(platform);
	size_t used = 0;
	int n = 0;
	if (cap)
		buf[0] = '\0';
	for (int i = 0; hw && hw->die && i < p->n_levels; i++) {
		const wc_level *l = &p->levels[i];
		const wc_platform_info *li = wc_platform_lookup(l->name);
		if (!wc_params_transfer_source(p, l, platform) || !wc_platform_same_die(li, hw))
			continue;
		if (used < cap)
			used += (size_t)snprintf(buf + used, cap - used, "%s%s", n ? ", " : "", l->name);
		n++;
	}
	return n;
}

/* The copy is shallow: the owned draws are not carried (a transferred
 * level has none), so nothing it points to belongs to it. A level added
 * to a full set takes the spare slot (WC_LEVEL_SLOTS); a set beyond the
 * limit is refused as such, not as an unknown platform. */
int
wc_params_datasheet_copy(const wc_params *p, const char *name, wc_params **out, wc_error *err)
{
	*out = NULL;
	if (p->n_levels > WC_MAX_LEVELS)
		return wc_error_set(err, WC_EINVAL, "levels: the set '%s' has %d levels, more than %d", p->name,
		                    p->n_levels, WC_MAX_LEVELS);
	wc_params *copy = malloc(sizeof *copy);
	if (!copy)
		return wc_error_set(err, WC_ENOMEM, "params: out of memory");
	memcpy(copy, p, sizeof *copy);
	copy->n_draws = copy->n_draw_params = 0;
	copy->draws = NULL;
	copy->draw_names = NULL;
	copy->calibration_rows = NULL; /* owns nothing */
	copy->n_calibration_rows = 0;
	copy->response_runs = NULL;
	copy->n_response_runs = 0;
	copy->fit_rows = copy->fit_runs = copy->idle_rows = NULL;
	copy->n_fit_rows = copy->n_fit_runs = copy->n_idle_rows = 0;
	/* Model terms calibrated on the platform's runs do not belong to a
	 * level that never saw them. */
	wc_params_drop_model_terms(copy, name);
	int k = 0;
	while (k < copy->n_levels && strcmp(copy->levels[k].name, name) != 0)
		k++;
	if (wc_params_datasheet_level(p, name, name, &copy->levels[k]) != WC_OK) {
		free(copy);
		return WC_ENOTFOUND;
	}
	copy->n_levels += k == copy->n_levels;
	*out = copy;
	return WC_OK;
}

/* The paper profile's idle-to-limit ratios, summed (0 on no memory). The
 * paper set (tens of KB) lives on the heap: the server answers datasheet
 * platforms on CivetWeb's small worker stacks (server/server_internal.h),
 * where a copy on the stack overflowed. */
static int
paper_idle_ratios(double *sum, int *n)
{
	wc_params *paper = calloc(1, sizeof *paper); /* zeroed: WC_PARAMS_INIT */
	*sum = 0.0;
	*n = 0;
	if (!paper)
		return 0;
	wc_params_default(paper);
	for (int i = 0; i < paper->n_levels; i++) {
		const wc_platform_info *info = wc_platform_lookup(paper->levels[i].name);
		if (info && info->max_power_w > 0 && isfinite(paper->levels[i].p0.value)) {
			*sum += paper->levels[i].p0.value / info->max_power_w;
			(*n)++;
		}
	}
	wc_params_clear(paper);
	free(paper);
	return 1;
}

/* Summed once: the built-in set never changes, and building it at every
 * answer on a board without a catalog idle was a fifth of that answer's
 * time (a power cap's clock takes hundreds of them; docs/http-api.md,
 * "POST /v1/predict/batch"). */
static pthread_once_t ratios_once = PTHREAD_ONCE_INIT;
static double ratios_sum;
static int ratios_n, ratios_made;

static void
ratios_make(void)
{
	ratios_made = paper_idle_ratios(&ratios_sum, &ratios_n);
}

/* P0 of a platform the catalog gives no typical idle for: its board limit
 * times the mean idle-to-limit ratio of the paper profile's levels
 * (docs/calibration.md). */
double
wc_params_estimated_idle_w(const char *platform)
{
	const wc_platform_info *target = wc_platform_lookup(platform);
	if (!target || !(target->max_power_w > 0))
		return NAN;
	pthread_once(&ratios_once, ratios_make);
	double sum = ratios_sum;
	int n = ratios_n;
	if (!ratios_made && !paper_idle_ratios(&sum, &n)) /* out of memory the first time: try again */
		return NAN;
	return n ? target->max_power_w * sum / n : NAN;
}

void
wc_params_datasheet_names(const wc_params *p, const char *listed, wc_name_list *l)
{
	for (size_t i = 0; i < wc_platform_count(); i++) {
		const char *name = wc_platform_at(i)->name;
		size_t n = strlen(name);
		int seen = 0;
		for (const char *q = listed ? listed : ""; *q && !seen;) {
			size_t k = strcspn(q, "+");
			seen = k == n && strncmp(q, name, n) == 0;
			q += k + (q[k] == '+');
		}
		if (!wc_params_level(p, name) && !seen)
			wc_name_list_add(l, name, strlen(name));
	}
}

void
wc_params_unknown_platform(const wc_params *p, const char *field, char quote, const char *asked,
                           const char *pointer, char *out)
{
	char known[WC_ERROR_MSG_MAX], sheets[WC_ERROR_MSG_MAX], see[64] = "";
	char name[64];
	/* the name as asked, cut by the one rule of a message: "..." when cut */
	wc_error_name_cut(asked, 50, name, sizeof name);
	if (pointer)
		snprintf(see, sizeof see, "; see %s", pointer);
	int fixed = snprintf(NULL, 0, "%s: unknown platform %c%s%c (known: ; from datasheets: %s)", field, quote, name,
	                     quote, see);
	size_t room = fixed > 0 && fixed < WC_ERROR_MSG_MAX - 1 ? (size_t)(WC_ERROR_MSG_MAX - 1 - fixed) : 0;
	wc_name_list a, b;
	/* measured whole first, then written in the room each gets */
	wc_name_list_init(&a, NULL, 0);
	wc_name_list_init(&b, NULL, 0);
	for (int i = 0; i < p->n_levels; i++)
		wc_name_list_add(&a, p->levels[i].name, strlen(p->levels[i].name));
	wc_params_datasheet_names(p, NULL, &b);
	wc_name_list_init(&a, known, wc_name_lists_share(room, a.full, b.full) + 1);
	for (int i = 0; i < p->n_levels; i++)
		wc_name_list_add(&a, p->levels[i].name, strlen(p->levels[i].name));
	wc_name_list_end(&a);
	wc_name_list_init(&b, sheets, room - a.used + 1);
	wc_params_datasheet_names(p, NULL, &b);
	wc_name_list_end(&b);
	snprintf(out, WC_ERROR_MSG_MAX, "%s: unknown platform %c%s%c (known: %s; from datasheets: %s%s)", field, quote,
	         name, quote, known, sheets, see);
}
