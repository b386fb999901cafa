/* JSON form of predictions (one format for the REST API and the CLI). */
#include "server/server.h"
#include "server_internal.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>

json_t *
wc_inference_json(const wc_inference_query *q, const wc_inference_prediction *pred,
                  const char *params_version)
{
	const wc_config *c = &q->config;
	json_t *o = json_object(), *warnings = json_array();
	json_object_set_new(o, "node_power_w", json_real(pred->power.node_power_w));
	json_object_set_new(o, "per_gpu_power_w", json_real(pred->power.per_gpu_power_w));
	json_object_set_new(o, "idle_power_w", json_real(pred->power.idle_power_w));
	json_object_set_new(o, "dynamic_power_w", json_real(pred->power.dynamic_w));
	json_object_set_new(o, "mean_running", json_real(pred->mean_running));
	if (pred->has_interval)
		json_object_set_new(o, "interval_95", json_pack("{s:[ff],s:i}", "node_power_w",
		                    pred->node_lo_w, pred->node_hi_w, "draws", pred->n_draws));
	else
		json_object_set_new(o, "interval_95", json_null());
	for (int i = 0; i < pred->n_warnings; i++)
		json_array_append_new(warnings, json_string(pred->warnings[i]));
	json_object_set_new(o, "warnings", warnings);
	json_object_set_new(o, "params_version", json_string(params_version ? params_version : ""));
	json_object_set_new(o, "config", json_pack("{s:s,s:i,s:f,s:s,s:s,s:o}",
	                    "platform", c->platform, "tp", c->tp,
	                    "active_params_b", c->active_params_b,
	                    "weights", wc_precision_name(c->weights),
	                    "kv_cache", wc_precision_name(c->kv),
	                    "sm_clock_mhz", c->sm_clock_mhz > 0 ? json_real(c->sm_clock_mhz) : json_null()));
	return o;
}

char *
wc_render_inference(const wc_inference_query *q, const wc_inference_prediction *pred,
                    const char *params_version, int indent, wc_error *err)
{
	json_t *o = wc_inference_json(q, pred, params_version);
	char *s = o ? json_dumps(o, JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10) |
	                            (indent > 0 ? JSON_INDENT(indent) : JSON_COMPACT)) : NULL;
	json_decref(o);
	if (!s)
		wc_error_set(err, WC_ENOMEM, "render: out of memory");
	return s;
}
