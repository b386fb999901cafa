/*
 * POST /v1/predict/batch: an array of up to WC_SERVER_BATCH_MAX_ITEMS
 * inference requests, answered in order against one parameter set. Each
 * item gets its own prediction or its own error; a bad item does not fail
 * the batch. Item errors carry `index` and a `field` pointer into the
 * whole batch document ("/3/tp"), so it can be resolved as is. POST
 * /v1/predict/finetune/batch is the same over fine-tuning requests.
 */
#include "server_internal.h"

#include <stdio.h>

void
wc_route_batch_of(wc_request *req, wc_response *res, wc_item_answer_fn answer, const char *what)
{
	json_t *body = NULL, *results = NULL, *root = NULL;
	wc_api_error e;
	size_t n, failed = 0;

	if (wc_request_read_json(req, req->srv->max_batch_body, &body, res) != 0)
		return;
	if (!json_is_array(body)) {
		wc_api_error_set(&e, 422, "wrong_type", "", "expected a JSON array of %s requests", what);
		wc_response_error(res, &e);
		goto done;
	}
	if ((n = json_array_size(body)) > WC_SERVER_BATCH_MAX_ITEMS) {
		wc_api_error_set(&e, 422, "too_many_items", "",
		                 "a batch holds at most %d items, got %zu", WC_SERVER_BATCH_MAX_ITEMS, n);
		wc_response_error(res, &e);
		goto done;
	}
	if (!(results = json_array()))
		goto oom;
	for (size_t i = 0; i < n; i++) {
		json_t *item = answer(json_array_get(body, i), req->profiles, &e);
		if (!item) {
			char prefix[32];
			json_t *err;
			snprintf(prefix, sizeof prefix, "/%zu", i);
			/* Every item error names its place, even "the whole item". */
			e.has_field = 1;
			err = wc_api_error_json(&e, prefix);
			if (!err)
				goto oom;
			json_object_set_new(err, "index", json_integer((json_int_t)i));
			item = json_pack("{s:o}", "error", err);
			failed++;
		}
		if (!item || json_array_append_new(results, item) != 0)
			goto oom;
	}
	root = json_pack("{s:s,s:I,s:I,s:o}", "params_version", req->state->version,
	                 "count", (json_int_t)n, "failed", (json_int_t)failed, "results", results);
	results = NULL; /* stolen by json_pack, also on failure */
	if (!root)
		goto oom;
	wc_response_json(res, 200, root);
	goto done;
oom:
	wc_api_error_set(&e, 500, "internal", NULL, "out of memory answering the batch");
	wc_response_error(res, &e);
done:
	json_decref(results);
	json_decref(body);
}

void
wc_route_predict_batch(wc_request *req, wc_response *res)
{
	wc_route_batch_of(req, res, wc_inference_answer, "inference");
}
