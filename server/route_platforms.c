/*
 * GET /v1/platforms[?profile=NAME]: every platform a request may name,
 * for the profile asked (absent = the default): the set's levels first,
 * then each catalog board the set has no level of, answered from its
 * datasheet (docs/fitting.md, "Platforms without a fitted level"). Each
 * entry gives its board's datasheet facts (models/catalog.h), so the
 * planner's dropdown can offer every board and the clock range a locked
 * clock is checked against is readable (docs/http-api.md, "Limits").
 */
#include "routes_internal.h"

#include "models/catalog.h"
#include "models/evaluate.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

/* Zero means "not published" in the catalog; say so with null. */
static json_t *
fact(double v)
{
	return v > 0 ? json_real(v) : json_null();
}

/* One entry: `name` as a request spells it, `answered_from` "level" or
 * "datasheet", and the facts of board `pi` (NULL: a level on a board
 * the catalog does not know, facts null). */
static json_t *
entry(const char *name, const char *answered_from, const char *source, const wc_platform_info *pi)
{
	json_t *o = json_pack("{s:s,s:s,s:s,s:o}", "name", name, "answered_from", answered_from,
	                      "level_source", source, "board", pi ? json_string(pi->name) : json_null());
	json_t *aliases = json_array();
	if (!o || !aliases) {
		json_decref(o);
		json_decref(aliases);
		return NULL;
	}
	/* The board's spellings answer the entry of the board's own name: a
	 * level named otherwise (H100-locked on the H100) is never reached
	 * by them, so they are not its aliases (docs/http-api.md). */
	const int own = pi && strcasecmp(name, pi->name) == 0;
	for (int i = 0; own && i < (int)(sizeof pi->aliases / sizeof pi->aliases[0]) && pi->aliases[i]; i++)
		json_array_append_new(aliases, json_string(pi->aliases[i]));
	json_object_set_new(o, "architecture", pi && pi->architecture ? json_string(pi->architecture) : json_null());
	json_object_set_new(o, "memory_gb", fact(pi ? pi->memory_gb : 0));
	json_object_set_new(o, "bandwidth_tb_s", fact(pi ? pi->bandwidth_tb_s : 0));
	json_object_set_new(o, "bf16_tflops", fact(pi ? pi->bf16_tflops : 0));
	json_object_set_new(o, "fp8_tflops", fact(pi ? pi->fp8_tflops : 0));
	json_object_set_new(o, "board_power_limit_w", fact(pi ? pi->max_power_w : 0));
	json_object_set_new(o, "min_sm_clock_mhz", fact(pi ? pi->min_sm_clock_mhz : 0));
	json_object_set_new(o, "max_sm_clock_mhz", fact(pi ? pi->max_sm_clock_mhz : 0));
	json_object_set_new(o, "idle_power_w", fact(pi ? pi->idle_power_w : 0));
	json_object_set_new(o, "idle_power_source", pi && pi->idle_power_w > 0 ? json_string("published") : json_null());
	/* Facts a planner weighs in choosing a board: a TP group larger than
	 * the GPUs its link joins pays a slower communication term, over PCIe
	 * or the network (pcie_only: already a group of 2, no link at all;
	 * wc_platform_tp_crossing), and a module's limit counts
	 * the CPU too (docs/capacity.md, docs/fitting.md); null as the others
	 * when the catalog does not know the board, link_domain also when the
	 * system decides it (GH200). */
	json_object_set_new(o, "link_domain", pi && pi->link_domain > 0 ? json_integer(pi->link_domain) : json_null());
	json_object_set_new(o, "pcie_only", pi ? json_boolean(wc_platform_tp_crossing(pi, 2) != NULL) : json_null());
	json_object_set_new(o, "module_limit", pi ? json_boolean(pi->module_limit) : json_null());
	json_object_set_new(o, "aliases", aliases);
	return o;
}

static json_t *
platforms_json(const wc_state *st)
{
	const wc_params *p = wc_predictor_params(st->pred);
	json_t *root = json_object(), *list = json_array();
	if (!root || !list)
		goto fail;
	for (int i = 0; i < p->n_levels; i++) {
		const wc_level *lvl = &p->levels[i];
		json_t *o = entry(lvl->name, "level", wc_predict_level_source(p, lvl), wc_platform_board(lvl->name, lvl->s_shared_with));
		/* a level's idle is the P0 its answers use (a calibration's
		 * measured 60 W on an L40S), not the board's published one */
		if (o && lvl->p0.value > 0) {
			json_object_set_new(o, "idle_power_w", json_real(lvl->p0.value));
			json_object_set_new(o, "idle_power_source", json_string(wc_source_name(lvl->p0.source)));
		}
		if (!o || json_array_append_new(list, o) != 0)
			goto fail;
	}
	/* A board is answered by a level only under the level's own name
	 * (wc_params_platform): the rest come from their datasheets. */
	for (size_t i = 0; i < wc_platform_count(); i++) {
		const wc_platform_info *pi = wc_platform_at(i);
		if (wc_params_level(p, pi->name))
			continue;
		json_t *o = entry(pi->name, "datasheet", wc_source_name(WC_SRC_DATASHEET), pi);
		/* the idle its answers use is the transferred level's P0 (the
		 * published idle, else board limit x the paper levels' idle
		 * share; docs/fitting.md, "Platforms without a fitted level"),
		 * so a client can pick a power cap above it */
		wc_level tl;
		if (o && wc_params_datasheet_level(p, pi->name, pi->name, &tl) == WC_OK && tl.p0.value > 0) {
			char src[32];
			snprintf(src, sizeof src, "transfer:%s", wc_source_name(tl.p0.source));
			json_object_set_new(o, "idle_power_w", json_real(tl.p0.value));
			json_object_set_new(o, "idle_power_source", json_string(src));
		}
		if (!o || json_array_append_new(list, o) != 0)
			goto fail;
	}
	json_object_set_new(root, "profile", json_string(p->name));
	json_object_set_new(root, "params_version", json_string(st->version));
	json_object_set_new(root, "count", json_integer((json_int_t)json_array_size(list)));
	json_object_set_new(root, "platforms", list);
	return root;
fail:
	json_decref(list);
	json_decref(root);
	return NULL;
}

void
wc_route_platforms(wc_request *req, wc_response *res)
{
	const wc_state *st = wc_request_profile(req, res, NULL);
	json_t *o;
	wc_api_error e;
	if (!st)
		return;
	if (!(o = platforms_json(st))) {
		wc_api_error_set(&e, 500, "internal", NULL, "out of memory listing the platforms");
		wc_response_error(res, &e);
		return;
	}
	wc_response_json(res, 200, o);
}
