/* JSON form of a power-flexibility sweep (docs/http-api.md, "POST
 * /v1/predict/flexibility"): one format for the REST API and `wattcast
 * predict flexibility --json`. */
#include "server/server.h"
#include "render_internal.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>

/* NaN (an index with nothing lost) as null: JSON has no infinity. */
static json_t *
real_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static const char *const iq_names[WC_FLEX_IQ] = { "node_power_w", "throughput_tok_s", "energy_per_output_token_j",
                                                   "latency_s" };

/* {"node_power_w": [lo, hi] or null, ...}, or null when no quantity has
 * one: a sweep's step and its unconstrained point say their intervals as a
 * capacity answer does (docs/intervals.md). */
static json_t *
intervals_json(const double *lo, const double *hi)
{
	json_t *o = json_object();
	int any = 0;
	for (int k = 0; k < WC_FLEX_IQ; k++) {
		int has = isfinite(lo[k]) && isfinite(hi[k]);
		any |= has;
		json_object_set_new(o, iq_names[k], has ? json_pack("[ff]", lo[k], hi[k]) : json_null());
	}
	if (!any) {
		json_decref(o);
		return json_null();
	}
	return o;
}

static json_t *
step_json(const wc_flex_step *s)
{
	json_t *o = json_pack("{s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o}", "sm_clock_mhz", real_or_null(s->sm_clock_mhz),
	                 "power_cap_w", real_or_null(s->power_cap_w), "node_power_w", real_or_null(s->node_power_w),
	                 "throughput_tok_s", real_or_null(s->throughput_tok_s), "energy_per_output_token_j",
	                 real_or_null(s->energy_per_output_token_j), "latency_s", real_or_null(s->latency_s),
	                 "mean_running", real_or_null(s->mean_running), "power_shed_w", real_or_null(s->power_shed_w), "throughput_lost_pct",
	                 real_or_null(s->throughput_lost_pct), "pfi", real_or_null(s->pfi));
	json_object_set_new(o, "interval_95", intervals_json(s->lo, s->hi));
	/* an open loop's rate not served: the numbers are those at capacity */
	json_object_set_new(o, "over_capacity", json_boolean(s->over_capacity));
	return o;
}

/* The unconstrained point's intervals, with what each covers and the
 * draws behind them; each quantity without one says why in its entry. */
static json_t *
ref_interval_json(const wc_flexibility *f)
{
	json_t *o = intervals_json(f->ref_lo, f->ref_hi);
	if (json_is_null(o))
		return o;
	json_t *each = json_object();
	for (int k = 0; k < WC_FLEX_IQ; k++)
		json_object_set_new(each, iq_names[k], json_string(f->covers[k] ? f->covers[k] : "none"));
	/* the running count's, as predict inference's capacity block gives it
	 * (an open loop's held-out error of latency; a closed loop's none and
	 * why): the unconstrained point only, a step's count being no answer
	 * a planner asks */
	const int run = isfinite(f->ref_running_lo) && isfinite(f->ref_running_hi);
	json_object_set_new(o, "mean_running", run ? json_pack("[ff]", f->ref_running_lo, f->ref_running_hi) : json_null());
	json_object_set_new(each, "mean_running", json_string(f->running_covers ? f->running_covers : "none"));
	json_object_set_new(o, "draws", json_integer(f->n_draws));
	json_object_set_new(o, "covers_by_quantity", each);
	return o;
}

json_t *
wc_flexibility_json(const wc_inference_query *q, const wc_flexibility *f, const char *params_version)
{
	const wc_config *c = &q->config;
	json_t *o = json_object(), *steps = json_array(), *warnings = json_array();
	json_object_set_new(o, "sweep", json_string(f->by_cap ? "power_cap" : "clock"));
	/* the requests that run, as predict inference's mean_running: a
	 * concurrency held to what the KV cache holds (config.concurrency is
	 * the one asked) */
	json_object_set_new(o, "unconstrained", json_pack("{s:o,s:o,s:o,s:o,s:o}", "node_power_w",
	                    real_or_null(f->ref_node_power_w), "throughput_tok_s", real_or_null(f->ref_throughput_tok_s),
	                    "energy_per_output_token_j", real_or_null(f->ref_energy_per_output_token_j), "latency_s",
	                    real_or_null(f->ref_latency_s), "mean_running", real_or_null(f->ref_mean_running)));
	for (int i = 0; i < f->n_steps; i++)
		json_array_append_new(steps, step_json(&f->steps[i]));
	json_object_set_new(o, "steps", steps);
	json_object_set_new(o, "knee_clock_mhz", real_or_null(f->knee_clock_mhz));
	json_object_set_new(o, "knee_power_cap_w", real_or_null(f->knee_power_cap_w));
	json_object_set_new(o, "energy_optimal_clock_mhz", real_or_null(f->energy_optimal_clock_mhz));
	json_object_set_new(o, "interval_95", ref_interval_json(f));
	for (int i = 0; i < f->n_warnings; i++)
		json_array_append_new(warnings, json_string(f->warnings[i]));
	json_object_set_new(o, "warnings", warnings);
	json_object_set_new(o, "params_version", json_string(params_version ? params_version : ""));
	json_object_set_new(o, "profile", json_string(f->profile));
	json_object_set_new(o, "level_source", json_string(f->level_source ? f->level_source : ""));
	json_object_set_new(o, "capacity_level_source",
	                    json_string(f->capacity_level_source ? f->capacity_level_source : ""));
	json_object_set_new(o, "config", json_pack("{s:s,s:i,s:f,s:s,s:s,s:f,s:f,s:o,s:o}", "platform", c->platform,
	                    "tp", c->tp, "active_params_b", c->active_params_b, "weights", wc_precision_name(c->weights),
	                    "kv_cache", wc_precision_name(c->kv), "input_tokens", c->input_tokens, "output_tokens",
	                    c->output_tokens, "concurrency", c->request_rate > 0 && !(c->running > 0) ? json_null()
	                    : json_real(c->running), "rate", c->request_rate > 0 ? json_real(c->request_rate) : json_null()));
	json_object_set_new(json_object_get(o, "config"), "board_power_limit_w",
	                    real_or_null(f->board_limit_w > 0 ? f->board_limit_w : NAN));
	json_object_set_new(json_object_get(o, "config"), "engine", json_string(wc_config_engine(c)));
	return o;
}

char *
wc_render_flexibility(const wc_inference_query *q, const wc_flexibility *f, const char *params_version, int indent,
                      wc_error *err)
{
	json_t *o = wc_flexibility_json(q, f, params_version);
	return wc__render_dump(o, indent, err);
}
