/*
 * A clock the board's limit settles binds the envelope exactly as a lock
 * there does, and carries predict's caveat of that clock
 * (docs/envelopes.md, "Engine", "Board limit"): A100 Qwen3-32B (`measured`
 * profile), 256 clients settle at 1159 MHz and Poisson 2/s at 1173 MHz (1172 until the profile's refit with tau_ep)
 * (1201 and 1216 MHz until 2026-12-07, when A100's idle became the real
 * runs' and predict's open loop took a request to meet 1 + m requests,
 * docs/capacity.md),
 * where no runs at a known locked clock were calibrated. The CLI's and the route's
 * warnings said the run served and drew there but nothing of kappa,
 * while `--sm-clock 1200` and `predict inference` at 1201 MHz said it.
 */
#include "data/params_file.h"
#include "server/server.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static CURL *h;

/* how many of the answer's warnings are `said` */
static int
count(const json_t *j, const char *said)
{
	const json_t *ws = json_object_get(j, "warnings");
	int k = 0;
	for (size_t i = 0; i < json_array_size(ws); i++) {
		const char *m = json_string_value(json_array_get(ws, i));
		k += m && strcmp(m, said) == 0;
	}
	return k;
}

static const char *const caveat[2] = {
	"platform: the GPU settles at 1159 MHz; no runs at a known locked clock were calibrated on A100"
	" and kappa is unpublished; kappa = 1 is assumed",
	"platform: the GPU settles at 1173 MHz; no runs at a known locked clock were calibrated on A100"
	" and kappa is unpublished; kappa = 1 is assumed",
};

static void
test_cli(void)
{
	for (int open = 0; open < 2; open++) {
		const char *argv[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-32B", "--profile",
			               "measured", open ? "--poisson" : "--closed", open ? "2" : "256", "--horizon", "60",
			               "--replicas", "1", "--json", NULL };
		run_result r;
		CHECK_INT(run_wattcast(argv, NULL, &r), 0);
		CHECK_INT(r.status, 0);
		json_t *j = json_loads(r.out ? r.out : "", 0, NULL);
		CHECK_INT(count(j, caveat[open]), 1);
		if (count(j, caveat[open]) != 1)
			fprintf(stderr, "%s\n", r.out ? r.out : "");
		json_decref(j);
		run_result_free(&r);
	}
}

static void
test_http(void)
{
	static const char *const body[2] = {
		"{\"platform\":\"A100\",\"model\":\"Qwen3-32B\",\"horizon_s\":60,\"replicas\":1,\"include_bins\":false,"
		"\"workload\":{\"type\":\"closed\",\"concurrency\":256}}",
		"{\"platform\":\"A100\",\"model\":\"Qwen3-32B\",\"horizon_s\":60,\"replicas\":1,\"include_bins\":false,"
		"\"workload\":{\"type\":\"poisson\",\"rate\":2}}",
	};
	for (int open = 0; open < 2; open++) {
		http_reply r;
		http_post_json(h, url("/v1/forecast/envelope"), body[open], &r);
		CHECK_INT(r.status, 200);
		CHECK_INT(count(r.json, caveat[open]), 1);
		if (count(r.json, caveat[open]) != 1)
			fprintf(stderr, "%s\n", r.body ? r.body : "");
		http_reply_free(&r);
	}
}

int
main(void)
{
	wc_params measured = WC_PARAMS_INIT;
	wc_error err;
	CHECK_INT(wc_params_profile("measured", &measured, &err), WC_OK);
	test_cli();
	curl_global_init(CURL_GLOBAL_DEFAULT);
	h = curl_easy_init();
	wc_server *srv = http_server_start(&measured, "profile:measured", 2);
	if (srv) {
		test_http();
		wc_server_stop(srv);
	}
	curl_easy_cleanup(h);
	curl_global_cleanup();
	wc_params_clear(&measured);
	return check_report("test_server_envelope_settled_caveat");
}
