/*
 * The caveat of a law without a prefill term names a profile that models
 * prefill (docs/inference-law.md, "Prefill-aware form"). Over HTTP it
 * named "profile paper-prefill" on a server serving only `measured`, which
 * answers that profile 422 unknown_profile: it now names one the server
 * serves, or says how to serve it (docs/http-api.md, "Profiles").
 */
#include "data/data.h"
#include "server/server.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

static const char body[] =
	"{\"platform\":\"A100\",\"model\":\"Qwen3-8B\",\"concurrency\":8,\"input_tokens\":8000,\"output_tokens\":256}";

/* The answer's prefill caveat from a server of `n` sets, or "" (malloc'd). */
static char *
caveat(CURL *h, int n, const wc_params *const *sets, const char *path)
{
	wc_server *srv = NULL;
	wc_error err;
	wc_server_options so = WC_SERVER_OPTIONS_INIT;
	so.listen = "127.0.0.1:0";
	char *said = strdup("");
	CHECK_INT(wc_server_start_profiles(&so, n, sets, NULL, &srv, &err), WC_OK);
	if (!srv)
		return said;
	http_set_base(wc_server_port(srv));
	http_reply a;
	http_post_json(h, url(path), body, &a);
	CHECK_INT(a.status, 200);
	json_t *w = json_object_get(a.json, "warnings");
	for (size_t i = 0; i < json_array_size(w); i++) {
		const char *s = json_string_value(json_array_get(w, i));
		if (s && strstr(s, "input_tokens: prefill takes") && !*said) {
			free(said);
			said = strdup(s);
		}
	}
	http_reply_free(&a);
	wc_server_stop(srv);
	return said;
}

int
main(void)
{
	wc_params m = WC_PARAMS_INIT, pp = WC_PARAMS_INIT;
	wc_error err;
	CHECK_INT(wc_params_profile("measured", &m, &err), WC_OK);
	CHECK_INT(wc_params_profile("paper-prefill", &pp, &err), WC_OK);
	curl_global_init(CURL_GLOBAL_DEFAULT);
	CURL *h = curl_easy_init();

	/* `measured` alone: paper-prefill is not served; the caveat says how */
	const wc_params *one[1] = { &m };
	char *s = caveat(h, 1, one, "/v1/predict/inference");
	CHECK_CONTAINS(s, "prefill may draw more (not served: serve --params `profile export paper-prefill`)");
	CHECK(strstr(s, "profile paper-prefill models it") == NULL);
	CHECK(strlen(s) < WC_WARNING_LEN - 1);
	free(s);
	/* a sweep's steps say it the same way */
	s = caveat(h, 1, one, "/v1/predict/flexibility");
	CHECK_CONTAINS(s, "(not served: serve --params `profile export paper-prefill`)");
	free(s);

	/* served beside it: the caveat names it, and a request can take it */
	const wc_params *two[2] = { &m, &pp };
	s = caveat(h, 2, two, "/v1/predict/inference");
	CHECK_CONTAINS(s, "prefill may draw more (profile paper-prefill models it)");
	free(s);

	curl_easy_cleanup(h);
	curl_global_cleanup();
	wc_params_clear(&m);
	wc_params_clear(&pp);
	return check_report("test_server_prefill_remedy");
}
