/*
 * POST /v1/predict/inference: one configuration in, one prediction out
 * (the same JSON object as `wattcast predict inference --json`).
 */
#include "server_internal.h"

void
wc_route_predict_inference(wc_request *req, wc_response *res)
{
	json_t *body = NULL, *answer;
	wc_api_error e;

	if (wc_request_read_json(req, req->srv->max_body, &body, res) != 0)
		return;
	if ((answer = wc_inference_answer(body, req->profiles, &e)) != NULL)
		wc_response_json(res, 200, answer);
	else
		wc_response_error(res, &e);
	json_decref(body);
}
