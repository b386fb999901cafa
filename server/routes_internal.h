/*
 * Private to server/: the routes the router's table names (router.c),
 * and the documents some of them serve.
 */
#ifndef WC_SERVER_ROUTES_INTERNAL_H
#define WC_SERVER_ROUTES_INTERNAL_H

#include <stddef.h>

#include "http_internal.h"

/* Routes. */
void wc_route_predict_inference(wc_request *req, wc_response *res);
void wc_route_predict_flexibility(wc_request *req, wc_response *res);
void wc_route_predict_batch(wc_request *req, wc_response *res);
void wc_route_predict_finetune(wc_request *req, wc_response *res);
void wc_route_predict_finetune_batch(wc_request *req, wc_response *res);
void wc_route_forecast_envelope(wc_request *req, wc_response *res);
void wc_route_plan_budget(wc_request *req, wc_response *res);
void wc_route_params(wc_request *req, wc_response *res);
void wc_route_profiles(wc_request *req, wc_response *res);
void wc_route_calibrate(wc_request *req, wc_response *res);
void wc_route_models(wc_request *req, wc_response *res);
void wc_route_platforms(wc_request *req, wc_response *res);
/** The profile a GET names in ?profile=NAME (absent = the request's
 *  default); NULL when refused, with the 422 answered on `res`. Where
 *  the route reads draws=0|1 (GET /v1/params), `draws` receives it (0
 *  when absent); NULL: any draws key is refused as unknown. */
const wc_state *wc_request_profile(wc_request *req, wc_response *res, int *draws);
void wc_route_health(wc_request *req, wc_response *res);
void wc_route_metrics(wc_request *req, wc_response *res);
void wc_route_openapi(wc_request *req, wc_response *res);
void wc_route_bench_trivial(wc_request *req, wc_response *res);
/* The planner page and its assets (page.c; docs/planner.md). */
void wc_route_page(wc_request *req, wc_response *res);
void wc_route_page_script(wc_request *req, wc_response *res); /* page.js, form.js, answers.js, panels.js, calibration.js */
void wc_route_page_css(wc_request *req, wc_response *res);

/** GET /v1/models body, built once at start-up (malloc'd). */
char *wc_models_body(size_t *len);
/** The embedded OpenAPI document (server/openapi.json; static). */
const char *wc_openapi_document(size_t *len);

#endif
