/*
 * POST /v1/calibrate with a run whose model the catalog lacks and no
 * active_params_b (docs/http-api.md, "POST /v1/calibrate" and "Errors"):
 * "Qwen3-8C" was 422 missing_field "runs/0/active_params_b: required",
 * naming neither the unknown name nor the catalog's Qwen3-8B, so a user
 * who followed it calibrated a term of the typo. Now it is 404
 * unknown_model on /runs/I/model, as every route that takes a model says
 * it: the name, the catalog entry it is likely a typo of, and how to give
 * a model of one's own. With active_params_b the run is one's own model.
 * An "active_params_b": null is absent: it still gave the old 422
 * missing_field.
 */
#include "data/data.h"
#include "server/server.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

#define RUN(model, extra)                                                                                    \
	"{\"platform\":\"H100\",\"tp\":1,\"model\":\"" model "\",\"running\":32,\"mean_power_w\":575.0" extra "}"
#define BODY(runs) "{\"runs\":[" runs "],\"bootstrap\":10,\"seed\":1}"

/* 404 unknown_model on `field`, saying `says` and how to give one's own
 * model, not `not_says` (NULL: no such words). */
static void
expect_unknown(CURL *h, const char *body, const char *field, const char *says, const char *not_says)
{
	http_expect_says(h, "POST", "/v1/calibrate", body, 404, "unknown_model", field, says, not_says);
	http_expect_says(h, "POST", "/v1/calibrate", body, 404, "unknown_model", field,
	                 "give its active_params_b beside it", not_says);
}

int
main(void)
{
	wc_params p = WC_PARAMS_INIT;
	wc_params_default(&p);
	wc_server *srv = http_server_start(&p, "calibrate-unknown-model", 4);
	if (!srv)
		return check_report("test_server_calibrate_unknown_model");
	CURL *h = curl_easy_init();

	expect_unknown(h, BODY(RUN("Qwen3-8C", "")), "/runs/0/model",
	               "runs/0/model: unknown model \"Qwen3-8C\": did you mean Qwen3-8B?", NULL);
	expect_unknown(h, BODY(RUN("Qwen3-8C", ",\"active_params_b\":null")), "/runs/0/model",
	               "runs/0/model: unknown model \"Qwen3-8C\": did you mean Qwen3-8B?", NULL);
	/* the run at fault, after a good one */
	expect_unknown(h, BODY(RUN("Qwen/Qwen3-8B", "") "," RUN("Qwen3-8C", "")), "/runs/1/model",
	               "runs/1/model: unknown model \"Qwen3-8C\"", NULL);
	/* a name near no catalog entry: no suggestion */
	expect_unknown(h, BODY(RUN("house-model-x", "")), "/runs/0/model",
	               "runs/0/model: unknown model \"house-model-x\" (see GET /v1/models", "did you mean");

	/* with its size the run is a model of one's own, as documented */
	http_reply r;
	http_post_json(h, url("/v1/calibrate"), BODY(RUN("house-model-x", ",\"active_params_b\":8.19")), &r);
	CHECK_INT(r.status, 200);
	if (r.status != 200)
		fprintf(stderr, "own model -> %s\n", r.body ? r.body : "");
	http_reply_free(&r);

	curl_easy_cleanup(h);
	wc_server_stop(srv);
	wc_params_clear(&p);
	return check_report("test_server_calibrate_unknown_model");
}
