/* JSON form of predictions (one format for the REST API and the CLI). */
#include "server/server.h"
#include "render_internal.h"
#include "models/evaluate.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A number as jansson writes it fastest: whole values (token counts,
 * running requests, concurrency limits) as integers -- formatting a real
 * costs about a microsecond, most of an answer's time -- NaN as null. */
static json_t *
num(double v)
{
	if (!isfinite(v))
		return json_null();
	if (v == floor(v) && fabs(v) < 9e15)
		return json_integer((json_int_t)v);
	return json_real(v);
}

/* {"per_request", "per_million_tokens", "per_hour"} of cost or CO2. */
static json_t *
money_json(const wc_capacity_prediction *cp, int first, const char *rate_key, double rate)
{
	if (!isfinite(rate))
		return json_null();
	return json_pack("{s:o,s:o,s:o,s:o}", rate_key, num(rate), "per_request", num(cp->value[first]),
	                 "per_million_output_tokens", num(cp->value[first + 1]), "per_hour", num(cp->value[first + 2]));
}

static json_t *
capacity_interval_json(const wc_capacity_prediction *cp)
{
	if (!cp->has_interval)
		return json_null();
	json_t *o = json_object(), *each = json_object();
	/* Every answer given has its interval or null (covers_by_quantity says why);
	 * never a zero-width pair (docs/intervals.md). */
	for (int k = 0; k < WC_CAPQ_COUNT; k++)
		if (isfinite(cp->value[k])) {
			int has = isfinite(cp->lo[k]);
			json_object_set_new(o, wc_capacity_output_name(k), has ? json_pack("[ff]", cp->lo[k], cp->hi[k])
			                                                       : json_null());
			if (has || cp->covers[k]) /* a null interval's entry says why it has none */
				json_object_set_new(each, wc_capacity_output_name(k),
				                    json_string(cp->covers[k] ? cp->covers[k] : "parameters"));
		}
	json_object_set_new(o, "draws", json_integer(cp->n_draws));
	json_object_set_new(o, "covers", json_string(wc_predict_capacity_covers(cp)));
	json_object_set_new(o, "covers_by_quantity", each);
	return o;
}

static json_t *
capacity_json(const wc_config *c, const wc_capacity_prediction *cp)
{
	/* The running count and the power at it are the answer's own
	 * mean_running and node_power_w (an open loop's solved n). */
	json_t *o = json_object(), *warnings = json_array();
	json_object_set_new_nocheck(o, "mode", json_string_nocheck(cp->open_loop ? "open_loop" : "closed_loop"));
	json_object_set_new_nocheck(o, "level_source", json_string(cp->level_source ? cp->level_source : "fitted"));
	json_object_set_new_nocheck(o, "input_tokens", num(c->input_tokens));
	json_object_set_new_nocheck(o, "output_tokens", num(c->output_tokens));
	json_object_set_new_nocheck(o, "rate", cp->open_loop ? num(c->request_rate) : json_null());
	for (int k = 0; k < WC_CAPQ_RUNNING; k++)
		json_object_set_new_nocheck(o, wc_capacity_output_name(k), num(cp->value[k]));
	json_object_set_new_nocheck(o, "over_capacity", json_boolean(cp->over_capacity));
	json_object_set_new_nocheck(o, "capacity_rate", num(cp->capacity_rate));
	json_object_set_new_nocheck(o, "memory", json_pack("{s:o,s:o,s:o}", "need_gb", num(cp->memory_need_gb),
	                                                   "available_gb", num(cp->memory_available_gb),
	                                                   "workspace_gb", num(cp->memory_workspace_gb)));
	json_object_set_new_nocheck(o, "cost", money_json(cp, WC_CAPQ_COST_REQUEST, "price_per_kwh", cp->price_per_kwh));
	json_object_set_new_nocheck(o, "co2_g", money_json(cp, WC_CAPQ_CO2_REQUEST, "grams_co2_per_kwh",
	                                                   cp->grams_co2_per_kwh));
	json_object_set_new_nocheck(o, "interval_95", capacity_interval_json(cp));
	for (int i = 0; i < cp->n_warnings; i++)
		json_array_append_new(warnings, json_string(cp->warnings[i]));
	json_object_set_new_nocheck(o, "warnings", warnings);
	return o;
}

/* A series settles step by step (docs/http-api.md, "The prediction
 * object"): the limit that binds on some steps, whether a clock meets it
 * on all of them, and the clock when every step answers at one, else
 * null and the lowest and highest (null: the free clock), never a lock
 * the limit lowered. */
static void
series_config(json_t *cfg, const wc_inference_prediction *pred)
{
	json_object_set_new(cfg, "sm_clock_mhz", num(pred->series_clock_mhz));
	if (!isfinite(pred->series_clock_mhz))
		json_object_set_new(cfg, "sm_clock_range_mhz", json_pack("[oo]", num(pred->series_clock_range_mhz[0]),
		                                                         num(pred->series_clock_range_mhz[1])));
	if (pred->series_limit_board)
		json_object_set_new(cfg, "board_power_limit_w", json_real(pred->series_limit_w));
	json_object_set_new(cfg, "power_limit_met", json_boolean(pred->series_limit_met));
}

json_t *
wc_inference_json(const wc_inference_query *q, const wc_inference_prediction *pred,
                  const wc_capacity_prediction *cap, double max_fit, const char *params_version)
{
	const wc_config *c = &q->config;
	json_t *o = json_object(), *warnings = json_array();
	json_object_set_new(o, "node_power_w", json_real(pred->power.node_power_w));
	json_object_set_new(o, "per_gpu_power_w", json_real(pred->power.per_gpu_power_w));
	json_object_set_new(o, "idle_power_w", json_real(pred->power.idle_power_w));
	json_object_set_new(o, "dynamic_power_w", json_real(pred->power.dynamic_w));
	json_object_set_new(o, "mean_running", json_real(pred->mean_running));
	if (isfinite(pred->prefill_share)) /* prefill-aware sets only: other answers keep their bytes */
		json_object_set_new(o, "prefill_share", json_real(pred->prefill_share));
	json_object_set_new(o, "max_concurrency_fit", num(max_fit));
	if (pred->has_interval) {
		/* per GPU is node power over the group: the same interval, scaled */
		double g = pred->power.per_gpu_power_w / pred->power.node_power_w;
		json_object_set_new(o, "interval_95", json_pack("{s:[ff],s:[ff],s:i,s:s}", "node_power_w",
		                    pred->node_lo_w, pred->node_hi_w, "per_gpu_power_w", g * pred->node_lo_w,
		                    g * pred->node_hi_w, "draws", pred->n_draws, "covers",
		                    wc_predict_power_covers(pred)));
	} else
		json_object_set_new(o, "interval_95", json_null());
	for (int i = 0; i < pred->n_warnings; i++)
		json_array_append_new(warnings, json_string(pred->warnings[i]));
	json_object_set_new(o, "warnings", warnings);
	json_object_set_new(o, "capacity", cap ? capacity_json(c, cap) : json_null());
	json_object_set_new(o, "params_version", json_string(params_version ? params_version : ""));
	/* Every answer names its profile and where its level comes from
	 * (docs/http-api.md). */
	json_object_set_new(o, "profile", json_string(pred->profile));
	json_object_set_new(o, "level_source", pred->level_source ? json_string(pred->level_source) : json_null());
	json_object_set_new(o, "config", json_pack("{s:s,s:i,s:f,s:s,s:s,s:o,s:s}",
	                    "platform", c->platform, "tp", c->tp,
	                    "active_params_b", c->active_params_b,
	                    "weights", wc_precision_name(c->weights),
	                    "kv_cache", wc_precision_name(c->kv),
	                    "sm_clock_mhz", c->sm_clock_mhz > 0 ? json_real(c->sm_clock_mhz) : json_null(),
	                    "engine", wc_config_engine(c)));
	if (q->power_cap_w > 0) /* asked for: the cap, and above the clock it settles at (null: it does not bind) */
		json_object_set_new(json_object_get(o, "config"), "power_cap_w", json_real(q->power_cap_w));
	/* the board's limit, when it settled the clock (docs/capacity.md) */
	json_object_set_new(json_object_get(o, "config"), "board_power_limit_w",
	                    q->board_limit_w > 0 ? json_real(q->board_limit_w) : json_null());
	/* Whether the limit or cap that settled the clock is met: where no
	 * clock meets it the clock is that of least power and the answer above
	 * it (docs/capacity.md), as `wattcast predict inference` says. */
	const double limit = q->board_limit_w > 0 ? q->board_limit_w : q->power_cap_w;
	json_object_set_new(json_object_get(o, "config"), "power_limit_met",
	                    limit > 0 && c->sm_clock_mhz > 0
	                    ? json_boolean(wc_power_cap_met(limit, pred->serving_per_gpu_w)) : json_null());
	if (pred->series_limit_w > 0)
		series_config(json_object_get(o, "config"), pred);
	return o;
}

char *
wc_render_inference(const wc_inference_query *q, const wc_inference_prediction *pred,
                    const wc_capacity_prediction *cap, double max_fit, const char *params_version,
                    int indent, wc_error *err)
{
	json_t *o = wc_inference_json(q, pred, cap, max_fit, params_version);
	return wc__render_dump(o, indent, err);
}

/* jansson writes a real 32 as 32.0; the API promises integers for whole
 * numbers (docs/http-api.md), counts above all (concurrency, tokens,
 * steps): the one place that makes it so for every answer. A value whole
 * at the 10 significant digits written (a clock of 2058.00000003 MHz) is
 * one too: it was written 2058.0 beside 2520. */
static json_t *
whole_of(json_t *v)
{
	double x = json_real_value(v), r = nearbyint(x);
	if (x != r && fabs(x - r) <= 1e-9 * fabs(x)) {
		char text[32];
		snprintf(text, sizeof text, "%.10g", x);
		if (!strpbrk(text, ".eE"))
			x = r;
	}
	return x == floor(x) && fabs(x) < 9007199254740992.0 ? json_integer((json_int_t)x) : NULL;
}

void
wc__render_whole(json_t *o)
{
	json_t *w;
	if (json_is_object(o)) {
		for (void *it = json_object_iter(o); it; it = json_object_iter_next(o, it)) {
			json_t *v = json_object_iter_value(it);
			if (!json_is_real(v))
				wc__render_whole(v);
			else if ((w = whole_of(v)) != NULL)
				json_object_iter_set_new(o, it, w);
		}
	} else if (json_is_array(o)) {
		for (size_t i = 0; i < json_array_size(o); i++) {
			json_t *v = json_array_get(o, i);
			if (!json_is_real(v))
				wc__render_whole(v);
			else if ((w = whole_of(v)) != NULL)
				json_array_set_new(o, i, w);
		}
	}
}

/* Jansson writes every real of a document at one precision; a number
 * that needs its own digits travels as a marked string, put bare after
 * the dump. Answers' strings from a client never start with U+0001:
 * quoted input is made printable first (wc_error_printable). */
#define DIGITS_MARK "\"\\u0001"

json_t *
wc__render_digits(const char *text)
{
	char *end = NULL;
	double v = text ? strtod(text, &end) : NAN;
	if (!text || end == text || *end || !isfinite(v) || strlen(text) > 32)
		return json_null();
	char buf[40];
	snprintf(buf, sizeof buf, "\x01%s", text);
	return json_string(buf);
}

size_t
wc__render_digits_fix(char *s, size_t len)
{
	const size_t mark = sizeof DIGITS_MARK - 1;
	char *w = s, *r = s, *end = s + len;
	while (r < end) {
		char *m = strstr(r, DIGITS_MARK);
		if (!m || m >= end) {
			memmove(w, r, (size_t)(end - r));
			w += end - r;
			break;
		}
		size_t n = strspn(m + mark, "0123456789+-.eE");
		const int whole = m[mark + n] == '"' && n > 0;
		size_t keep = (size_t)(m - r) + (whole ? 0 : mark);
		memmove(w, r, keep);
		w += keep;
		if (whole) {
			memmove(w, m + mark, n);
			w += n;
			r = m + mark + n + 1;
		} else {
			r = m + mark;
		}
	}
	*w = '\0';
	return (size_t)(w - s);
}

char *
wc__render_dump(json_t *o, int indent, wc_error *err)
{
	wc__render_whole(o);
	char *s = o ? json_dumps(o, JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10) |
	                            (indent > 0 ? JSON_INDENT(indent) : JSON_COMPACT)) : NULL;
	json_decref(o);
	if (!s)
		wc_error_set(err, WC_ENOMEM, "render: out of memory");
	else
		wc__render_digits_fix(s, strlen(s));
	return s;
}
