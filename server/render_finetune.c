/* JSON form of fine-tuning predictions (one format for the REST API and
 * `wattcast predict finetune --json`; docs/http-api.md). */
#include "server/server.h"
#include "render_internal.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>

static json_t *
num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *
pair(double lo, double hi)
{
	return isfinite(lo) && isfinite(hi) ? json_pack("[ff]", lo, hi) : json_null();
}

static json_t *
relations_json(const wc_finetune_prediction *p)
{
	json_t *o = json_object();
	for (int k = 0; k < WC_FT_REL_COUNT; k++) {
		const wc_finetune_relation_check *c = &p->relations[k];
		json_t *v = !c->present ? json_null()
		            : json_pack("{s:o,s:o,s:o}", "energy_per_token_j", num(c->energy_per_token_j),
		                        "on_sweep", c->on_sweep < 0 ? json_null() : json_boolean(c->on_sweep),
		                        "difference_pct", num(c->diff_pct));
		json_object_set_new(o, wc_ft_relation_name((wc_ft_relation_kind)k), v);
	}
	return o;
}

static json_t *
config_json(const wc_finetune_query *q, const wc_finetune_prediction *p)
{
	const wc_ft_config *c = &q->config;
	return json_pack("{s:s,s:s,s:f,s:i,s:i,s:o,s:i,s:i,s:i,s:i,s:i,s:b,s:f}",
	                 "platform", p->platform, "method", wc_ft_method_name(c->method),
	                 "active_params_b", c->params_b, "layers", c->layers, "d_model", c->d_model,
	                 "lora_rank", c->method == WC_FT_FULL ? json_null() : json_integer(c->lora_rank),
	                 "micro_batch", c->micro_batch, "seq_len", c->seq_len, "grad_accum", c->grad_accum,
	                 "gpus", c->gpus, "data_parallel", wc_ft_replicas(c), "checkpointing", c->checkpointing,
	                 "tokens_per_step", p->flops.tokens_per_step);
}

/* The law behind the headline: which figure is the prediction, and how
 * e0 entered it (docs/finetune.md, "e0 and the number of GPUs"). */
static json_t *
law_json(const wc_finetune_prediction *p)
{
	json_t *o = json_pack("{s:s,s:o,s:s,s:o,s:o,s:o}", "prediction_from", "compute_law",
	                      "e0_j", num(p->e0_j), "e0_per", wc_ft_e0_scope_name(p->e0_scope),
	                      "fixed_energy_per_step_j", num(p->fixed_energy_j),
	                      "kappa_j_per_tflop", num(p->kappa_j_per_tflop),
	                      "compute_energy_per_step_j", num(p->energy_per_step_j - p->fixed_energy_j));
	json_object_set_new(o, "e0_source", json_string(wc_source_name(p->e0_source)));
	json_object_set_new(o, "kappa_source", json_string(wc_source_name(p->kappa_source)));
	const wc_ft_calibrated *c = &p->calibrated;
	json_object_set_new(o, "calibrated", !c->present ? json_null()
	                    : json_pack("{s:s,s:s,s:o,s:o,s:i}", "mode", wc_ft_cal_mode_name(c->mode),
	                                "held", wc_ft_cal_mode_held(c->mode), "factor", num(c->factor.value),
	                                "factor_ci95", pair(c->factor.lo, c->factor.hi), "runs", c->runs));
	return o;
}

json_t *
wc_finetune_json(const wc_finetune_query *q, const wc_finetune_prediction *p, const char *params_version)
{
	const wc_ft_flops *f = &p->flops;
	json_t *o = json_object(), *warnings = json_array();
	json_object_set_new(o, "energy_per_step_j", json_real(p->energy_per_step_j));
	json_object_set_new(o, "energy_per_token_j", json_real(p->energy_per_token_j));
	json_object_set_new(o, "flops_per_step_tflop", json_real(f->flops_per_step_tflop));
	json_object_set_new(o, "tokens_per_step", json_real(f->tokens_per_step));
	json_object_set_new(o, "steps", num(p->steps));
	json_object_set_new(o, "energy_total_kwh", num(p->energy_total_kwh));
	json_object_set_new(o, "interval_95", !p->has_interval ? json_null()
	                    : json_pack("{s:o,s:o,s:o,s:i,s:s}", "energy_per_step_j", pair(p->step_lo_j, p->step_hi_j),
	                                "energy_per_token_j", pair(p->token_lo_j, p->token_hi_j),
	                                "energy_total_kwh", pair(p->total_lo_kwh, p->total_hi_kwh),
	                                "draws", p->n_draws, "covers", p->covers ? p->covers : "parameters"));
	json_object_set_new(o, "flops", json_pack("{s:f,s:f,s:f,s:f,s:f,s:f}",
	                    "weight_flops_per_token", f->weight_flops,
	                    "attention_flops_per_token", f->attention_flops,
	                    "adapter_flops_per_token", f->adapter_flops, "base_passes", f->base_passes,
	                    "adapter_passes", f->adapter_passes, "flops_per_token", f->flops_per_token));
	json_object_set_new(o, "law", law_json(p));
	json_object_set_new(o, "relations", relations_json(p));
	for (int i = 0; i < p->n_warnings; i++)
		json_array_append_new(warnings, json_string(p->warnings[i]));
	json_object_set_new(o, "warnings", warnings);
	json_object_set_new(o, "params_version", json_string(params_version ? params_version : ""));
	/* Every answer names its profile and where its level comes from
	 * (docs/http-api.md, "Profiles"); a fine-tuning law's is how the law
	 * was obtained (docs/finetune.md, "Predicting"). */
	json_object_set_new(o, "profile", json_string(p->profile));
	json_object_set_new(o, "level_source", p->level_source ? json_string(p->level_source) : json_null());
	json_object_set_new(o, "config", config_json(q, p));
	return o;
}

char *
wc_render_finetune(const wc_finetune_query *q, const wc_finetune_prediction *pred,
                   const char *params_version, int indent, wc_error *err)
{
	json_t *o = wc_finetune_json(q, pred, params_version);
	return wc__render_dump(o, indent, err);
}
