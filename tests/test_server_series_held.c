/*
 * A running_series with token lengths, on the CLI (--running-series FILE)
 * and over HTTP (docs/inference-law.md, "Averaging over a load series"):
 *  - each sample runs at most what the KV cache holds, as a concurrency
 *    does (docs/capacity.md, "Memory as vLLM does it"): a series held at
 *    64 is the closed loop at 64, the same power, mean_running the 12
 *    that run, with the KV cache's warning once (it was averaged at 64:
 *    499.3 W against 414.5 W on the measured profile);
 *  - expert_parallel, which places the experts for the series' memory and
 *    prefill share, is not called ignored (it changes the power);
 *  - the lengths' warnings that apply to the power -- the model's context,
 *    the capacity calibration's span -- are in the answer's warnings,
 *    capacity being null (they were dropped).
 */
#include "data/data.h"
#include "server/server.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

#include <stdlib.h>
#include <string.h>

static int
warned(const json_t *answer, const char *needle)
{
	int found = 0;
	const json_t *w = json_object_get(answer, "warnings");
	for (size_t i = 0; i < json_array_size(w); i++)
		found += strstr(json_string_value(json_array_get(w, i)), needle) != NULL;
	return found;
}

/* `wattcast predict inference ARGS --json`, parsed; NULL on failure. */
static json_t *
cli_answer(const char *const *args)
{
	const char *argv[32] = { "wattcast", "predict", "inference" };
	int n = 3;
	for (; args[n - 3] && n < 30; n++)
		argv[n] = args[n - 3];
	argv[n++] = "--json";
	argv[n] = NULL;
	run_result r;
	json_t *j = NULL;
	if (run_wattcast(argv, NULL, &r) == 0 && r.status == 0)
		j = json_loads(r.out ? r.out : "", 0, NULL);
	else
		fprintf(stderr, "wattcast failed: %s\n", r.err ? r.err : "");
	run_result_free(&r);
	return j;
}

static double
num(const json_t *j, const char *key)
{
	return json_number_value(json_object_get(j, key));
}

static const char kv_note[] = "running_series: up to 64 requests asked; the KV cache";
static const char ep_ignored[] = "expert_parallel: ignored";
static const char context_note[] = "exceed Qwen3-8B's context of 40960 tokens";
static const char span_note[] = "capacity: calibrated only at";

int
main(void)
{
	char *dir = test_tmpdir("server_series_held");
	char *s64 = path_join(dir, "s64.csv"), *s12 = path_join(dir, "s12.csv");
	CHECK_INT(write_text(s64, "t_s,running\n0,64\n1,64\n"), 0);
	CHECK_INT(write_text(s12, "t_s,running\n0,1\n1,2\n"), 0);

	/* 1. The KV cache's limit, on the measured profile as the tester ran it. */
	const char *held[] = { "--platform", "H100", "--model", "Qwen3-8B", "--running-series", s64, "--input-tokens",
	                       "32000", "--output-tokens", "100", NULL };
	const char *closed[] = { "--platform", "H100", "--model", "Qwen3-8B", "--concurrency", "64", "--input-tokens",
	                         "32000", "--output-tokens", "100", NULL };
	json_t *a = cli_answer(held), *b = cli_answer(closed);
	CHECK(a && b);
	if (a && b) {
		CHECK_NEAR(num(a, "node_power_w"), num(b, "node_power_w"), 1e-9 * num(b, "node_power_w"));
		CHECK_NEAR(num(a, "mean_running"), num(a, "max_concurrency_fit"), 1e-12);
		CHECK_NEAR(num(a, "mean_running"), num(b, "mean_running"), 1e-12);
		CHECK(num(a, "mean_running") < 64);
		CHECK_INT(warned(a, kv_note), 1);
	}
	json_decref(a);
	json_decref(b);

	/* 2. expert_parallel on a series with lengths enters its power. */
	const char *moe[] = { "--profile", "paper-prefill", "--platform", "H100", "--tp", "4", "--model",
	                      "Qwen3-30B-A3B", "--running-series", s12, "--input-tokens", "8000", "--output-tokens",
	                      "100", NULL };
	const char *moe_ep[] = { "--profile", "paper-prefill", "--platform", "H100", "--tp", "4", "--model",
	                         "Qwen3-30B-A3B", "--running-series", s12, "--input-tokens", "8000",
	                         "--output-tokens", "100", "--expert-parallel", NULL };
	a = cli_answer(moe);
	b = cli_answer(moe_ep);
	CHECK(a && b);
	if (a && b) {
		CHECK(num(a, "node_power_w") - num(b, "node_power_w") > 10.0); /* it changed the answer */
		CHECK_INT(warned(b, ep_ignored), 0);
	}
	json_decref(a);
	json_decref(b);

	/* 3. A context past the model's, answered as if it ran: said. */
	const char *longp[] = { "--profile", "paper-prefill", "--platform", "H100", "--model", "Qwen3-8B",
	                        "--running-series", s12, "--input-tokens", "100000", "--output-tokens", "100", NULL };
	a = cli_answer(longp);
	CHECK(a != NULL);
	if (a) {
		CHECK(json_is_null(json_object_get(a, "capacity")));
		CHECK_INT(warned(a, context_note), 1);
		CHECK_INT(warned(a, span_note), 1);
	}
	json_decref(a);

	/* The same over HTTP. */
	wc_params p = WC_PARAMS_INIT;
	wc_server *srv = NULL;
	wc_params_default_prefill(&p);
	curl_global_init(CURL_GLOBAL_DEFAULT);
	CURL *h = curl_easy_init();
	CHECK((srv = http_server_start(&p, "profile:paper-prefill", 2)) != NULL);
	if (srv) {
		http_reply hs, hc;
		http_post_json(h, url("/v1/predict/inference"),
		               "{\"platform\":\"H100\",\"model\":\"Qwen3-8B\",\"running_series\":[64,64],\"dt_s\":1,"
		               "\"input_tokens\":32000,\"output_tokens\":100}", &hs);
		http_post_json(h, url("/v1/predict/inference"),
		               "{\"platform\":\"H100\",\"model\":\"Qwen3-8B\",\"concurrency\":64,"
		               "\"input_tokens\":32000,\"output_tokens\":100}", &hc);
		CHECK_INT(hs.status, 200);
		CHECK_INT(hc.status, 200);
		if (hs.json && hc.json) {
			CHECK_NEAR(num(hs.json, "node_power_w"), num(hc.json, "node_power_w"),
			           1e-9 * num(hc.json, "node_power_w"));
			CHECK_NEAR(num(hs.json, "mean_running"), num(hc.json, "mean_running"), 1e-12);
			CHECK_INT(warned(hs.json, kv_note), 1);
		}
		http_reply_free(&hs);
		http_reply_free(&hc);

		http_post_json(h, url("/v1/predict/inference"),
		               "{\"platform\":\"H100\",\"tp\":4,\"model\":\"Qwen3-30B-A3B\",\"running_series\":[1,2],"
		               "\"dt_s\":1,\"input_tokens\":8000,\"output_tokens\":100,\"expert_parallel\":true}", &hs);
		CHECK_INT(hs.status, 200);
		CHECK(hs.json && warned(hs.json, ep_ignored) == 0);
		http_reply_free(&hs);

		http_post_json(h, url("/v1/predict/inference"),
		               "{\"platform\":\"H100\",\"model\":\"Qwen3-8B\",\"running_series\":[1,2],\"dt_s\":1,"
		               "\"input_tokens\":100000,\"output_tokens\":100}", &hs);
		CHECK_INT(hs.status, 200);
		CHECK(hs.json && warned(hs.json, context_note) == 1);
		CHECK(hs.json && warned(hs.json, span_note) == 1);
		http_reply_free(&hs);
		wc_server_stop(srv);
	}
	curl_easy_cleanup(h);
	curl_global_cleanup();
	wc_params_clear(&p);
	free(s64);
	free(s12);
	free(dir);
	return check_report("test_server_series_held");
}
