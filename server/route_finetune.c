/*
 * POST /v1/predict/finetune: one fine-tuning configuration in, one
 * prediction out (the object `wattcast predict finetune --json` prints);
 * POST /v1/predict/finetune/batch: an array of them, answered in order
 * like /v1/predict/batch (docs/http-api.md).
 */
#include "requests_internal.h"
#include "routes_internal.h"

void
wc_route_predict_finetune(wc_request *req, wc_response *res)
{
	json_t *body = NULL, *answer;
	wc_api_error e;

	if (wc_request_read_json(req, req->srv->max_body, &body, res) != 0)
		return;
	if ((answer = wc_finetune_answer(body, req->profiles, &e)) != NULL)
		wc_response_json(res, 200, answer);
	else
		wc_response_error(res, &e);
	json_decref(body);
}

void
wc_route_predict_finetune_batch(wc_request *req, wc_response *res)
{
	wc_route_batch_of(req, res, wc_finetune_answer, "fine-tuning");
}
