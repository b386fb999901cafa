/*
 * Every request example of the served OpenAPI document answers 2xx from a
 * server configured as a plain `wattcast serve` is: the built-in default
 * profile alone (WC_DEFAULT_PROFILE). An example that needs another
 * profile or a level only another set has (H100-locked, "profile":
 * "paper") fails for whoever copies it; test_server_openapi checks the
 * examples against the schemas with the paper set.
 */
#include "data/data.h"
#include "models/profile_measured.h"
#include "server/server.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

static CURL *h;

static int
examples_answered(const json_t *doc)
{
	const json_t *paths = json_object_get(doc, "paths"), *item, *op, *media, *ex;
	const char *path, *method, *type, *name;
	int n = 0;
	json_object_foreach((json_t *)paths, path, item) {
		json_object_foreach((json_t *)item, method, op) {
			json_object_foreach(json_object_get(json_object_get(op, "requestBody"), "content"), type, media) {
				json_object_foreach(json_object_get(media, "examples"), name, ex) {
					char *text = json_dumps(json_object_get(ex, "value"), JSON_COMPACT | JSON_ENCODE_ANY);
					http_reply r;
					CHECK(strcmp(method, "post") == 0 && strcmp(type, "application/json") == 0);
					http_post_json(h, url(path), text, &r);
					CHECK(r.status >= 200 && r.status < 300);
					if (!(r.status >= 200 && r.status < 300))
						fprintf(stderr, "  %s %s example '%s' -> %ld %.300s\n", method, path, name, r.status,
						        r.body ? r.body : "");
					http_reply_free(&r);
					free(text);
					n++;
				}
			}
		}
	}
	return n;
}

int
main(void)
{
	wc_params params = WC_PARAMS_INIT;
	wc_server *srv = NULL;
	wc_error err;
	http_reply r;

	curl_global_init(CURL_GLOBAL_DEFAULT);
	h = curl_easy_init();
	CHECK_INT(wc_params_profile(WC_DEFAULT_PROFILE, &params, &err), WC_OK);
	if (!(srv = http_server_start(&params, "profile:" WC_DEFAULT_PROFILE, 4)))
		return check_report("test_server_openapi_examples");
	http_get(h, url("/openapi.json"), &r);
	CHECK_INT(r.status, 200);
	CHECK(r.json != NULL);
	if (r.json)
		CHECK(examples_answered(r.json) >= 20);
	http_reply_free(&r);
	wc_server_stop(srv);
	wc_params_clear(&params);
	curl_easy_cleanup(h);
	curl_global_cleanup();
	return check_report("test_server_openapi_examples");
}
