/*
 * POST /v1/predict/inference: one configuration in, one prediction out
 * (the same JSON object as `wattcast predict inference --json`), from the
 * profile the request names.
 */
#include "requests_internal.h"
#include "routes_internal.h"

#include <stdlib.h>

void
wc_answer_predict_inference(const wc_profiles *pf, const char *body, size_t len, wc_response *res)
{
	json_t *item = NULL, *answer = NULL;
	wc_inference_item *parsed = NULL; /* parsed once, for its charge and its answer */
	wc_api_error e;

	if (wc_request_parse_json(body, len, &item, res) != 0)
		return;
	/* One item may not do more than a whole batch may: a 1 MiB series
	 * on a set of 2000 draws took 21 s of a core outside the heavy cap
	 * (docs/http-api.md, "POST /v1/predict/batch"). */
	double law = 1.0, cap = 1.0, work;
	const char *kind;
	/* charged by the profile it names (a batch's items may name any) */
	const wc_state *st = wc_profiles_select(pf, item, &e);
	if (st)
		wc__state_draws(st, &law, &cap);
	else
		wc__batch_draws(pf, &law, &cap); /* its own refusal comes below */
	if ((work = wc__item_work(item, 1, pf, &parsed, law, cap, &kind)) > WC_SERVER_BATCH_WORK_MAX)
		wc__item_over_budget(&e, "", kind, kind, work);
	else if (!parsed)
		answer = wc_inference_answer(item, pf, &e); /* not parsed for its charge: a power_cap_w */
	else
		answer = wc__inference_item_answer(parsed, &e);
	if (answer)
		wc_response_json_small(res, 200, answer);
	else
		wc_response_error(res, &e);
	wc__inference_item_free(parsed);
	json_decref(item);
}

void
wc_route_predict_inference(wc_request *req, wc_response *res)
{
	char *body;
	size_t len;

	if (wc_request_read_body(req, req->srv->max_body, &body, &len, res) != 0)
		return;
	/* The answer is a function of the body bytes and the profiles alone
	 * (no clock, no randomness without a seed), so a repeat is served from
	 * the profiles' memo (docs/http-api.md, "Answer cache"). */
	wc_answer_cache *memo = req->profiles->answers;
	size_t n;
	char *hit = wc_answer_cache_get(memo, body, len, &n);
	if (hit) {
		wc_response_text(res, 200, hit, n);
	} else {
		wc_answer_predict_inference(req->profiles, body, len, res);
		if (res->status == 200 && !res->borrowed && res->body)
			wc_answer_cache_put(memo, body, len, res->body, res->len);
	}
	free(body);
}
