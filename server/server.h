/*
 * server/ — the HTTP face of wattcast (CivetWeb + jansson) and the JSON
 * representation of predictions shared by the REST API and `wattcast
 * ... --json`, so both print the same thing.
 *
 * Ownership: char * results are malloc'd; the caller frees them.
 */
#ifndef WC_SERVER_H
#define WC_SERVER_H

#include "predict/predict.h"

#ifdef __cplusplus
extern "C" {
#endif

/** JSON object for one inference prediction: node_power_w,
 *  per_gpu_power_w, idle_power_w, dynamic_power_w, mean_running,
 *  interval_95 ({"node_power_w": [lo, hi], "draws": B} or null), warnings
 *  (array of strings), params_version, and the configuration echoed back.
 *  `indent` > 0 pretty-prints. Returns NULL with `err` set on failure. */
char *wc_render_inference(const wc_inference_query *q, const wc_inference_prediction *pred,
                          const char *params_version, int indent, wc_error *err);

#ifdef __cplusplus
}
#endif
#endif
