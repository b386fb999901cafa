/*
 * POST /v1/predict/inference's architecture.cache_layers over a catalog
 * model with a sliding window (docs/capacity.md, "Bytes and FLOPs";
 * docs/http-api.md): every layer caching the whole context (cache_layers
 * = layers, or 0 = every layer) sent alone drops the inherited window, as
 * sliding_window 0 would, and the answer's warnings say so; it was 422 on
 * /architecture/sliding_window, a field not sent. gemma-3-27b on one H100
 * at 8 requests of 8000 + 100 tokens: 19 fit with its window, 5 without.
 */
#include "data/data.h"
#include "server/server.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

#include <string.h>

static CURL *h;

#define BODY(arch)                                                                                          \
	"{\"platform\":\"H100\",\"model\":\"gemma-3-27b\",\"concurrency\":8,\"input_tokens\":8000,"              \
	"\"output_tokens\":100,\"architecture\":" arch "}"

static const char dropped[] = "sliding_window: gemma-3-27b's 1024-token window no longer applies: every layer "
                              "is charged the whole context";

/* 200; `fits` requests fit; the window's warning iff `warned`. */
static void
answered(const char *body, double fits, int warned)
{
	http_reply r;
	http_post_json(h, url("/v1/predict/inference"), body, &r);
	CHECK_INT(r.status, 200);
	if (r.status != 200) {
		fprintf(stderr, "  body %s -> %ld %s\n", body, r.status, r.body ? r.body : "");
		http_reply_free(&r);
		return;
	}
	const json_t *fit = json_object_get(r.json, "max_concurrency_fit");
	CHECK(json_is_number(fit) && json_number_value(fit) == fits);
	char *w = json_dumps(json_object_get(r.json, "warnings"), 0);
	CHECK_INT(w && strstr(w, dropped) != NULL, warned);
	free(w);
	http_reply_free(&r);
}

int
main(void)
{
	wc_params paper = WC_PARAMS_INIT;
	wc_server *srv = NULL;
	curl_global_init(CURL_GLOBAL_DEFAULT);
	h = curl_easy_init();
	wc_params_default(&paper);
	if (!(srv = http_server_start(&paper, "profile:paper", 2)))
		return check_report("test_server_window_override");
	answered(BODY("{\"cache_layers\":0}"), 5, 1);
	answered(BODY("{\"cache_layers\":62}"), 5, 1);
	answered(BODY("{\"sliding_window\":0}"), 5, 1);
	answered(BODY("{\"cache_layers\":62,\"sliding_window\":0}"), 5, 1);
	answered(BODY("{\"cache_layers\":10}"), 19, 0);
	/* a window sent with every layer full stays 422, on the field sent */
	http_reply r;
	http_post_json(h, url("/v1/predict/inference"), BODY("{\"cache_layers\":62,\"sliding_window\":1024}"), &r);
	CHECK_INT(r.status, 422);
	CHECK(http_error_str(&r, "field") && strcmp(http_error_str(&r, "field"), "/architecture/sliding_window") == 0);
	CHECK(http_error_str(&r, "message") && strstr(http_error_str(&r, "message"), "no layer attends within it"));
	http_reply_free(&r);
	/* the sweep answers the same architecture, and says it once */
	http_post_json(h, url("/v1/predict/flexibility"), BODY("{\"cache_layers\":0}"), &r);
	CHECK_INT(r.status, 200);
	char *w = json_dumps(json_object_get(r.json, "warnings"), 0);
	CHECK(w && strstr(w, dropped) && !strstr(strstr(w, dropped) + 1, dropped));
	if (r.status != 200 || !w || !strstr(w, dropped))
		fprintf(stderr, "  flexibility -> %ld %s\n", r.status, r.body ? r.body : "");
	free(w);
	http_reply_free(&r);
	wc_server_stop(srv);
	curl_easy_cleanup(h);
	curl_global_cleanup();
	wc_params_clear(&paper);
	return check_report("test_server_window_override");
}
