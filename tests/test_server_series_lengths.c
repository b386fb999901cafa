/*
 * A load series with token lengths (docs/http-api.md, "POST
 * /v1/predict/inference"): the mean power is the law's time average over
 * the series, the lengths entering it where the law uses them (the
 * prefill-aware form's share, docs/inference-law.md), and no capacity
 * block, with a warning saying why -- over HTTP and on the CLI
 * (--running-series FILE), the same number. It was refused over HTTP
 * (422 "running_series: the capacity answers need concurrency or rate"),
 * though the schema takes it, and the CLI had no series at all.
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

static const char series_note[] = "capacity: none: running_series: the capacity answers need one concurrency or "
                                  "rate; a series has neither";

int
main(void)
{
	char *dir = test_tmpdir("server_series_lengths");
	char *series = path_join(dir, "nt.csv");
	/* 1 running for a second, then 2 for a second (the last sample holds
	 * the median step): the samples [1, 2] with dt_s 1 over HTTP. */
	CHECK_INT(write_text(series, "t_s,running\n0,1\n1,2\n"), 0);

	const char *ask[] = { "wattcast", "predict", "inference", "--profile", "paper-prefill", "--platform", "H100",
	                      "--model", "Qwen3-8B", "--running-series", series, "--input-tokens", "32000",
	                      "--output-tokens", "100", "--price-per-kwh", "0.2", "--json", NULL };
	run_result r;
	CHECK_INT(run_wattcast(ask, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	json_t *cli = json_loads(r.out ? r.out : "", 0, NULL);
	CHECK(cli != NULL);
	CHECK(json_is_null(json_object_get(cli, "capacity")));
	CHECK_NEAR(json_number_value(json_object_get(cli, "mean_running")), 1.5, 1e-12);
	double w = json_number_value(json_object_get(cli, "node_power_w"));
	/* the long prompts' prefill share enters the power */
	CHECK(json_number_value(json_object_get(cli, "prefill_share")) > 0.5);
	CHECK_INT(warned(cli, series_note), 1);
	CHECK_INT(warned(cli, "price_per_kwh: ignored: it enters only the capacity answers, which a running_series"), 1);
	run_result_free(&r);

	/* Without the lengths the prefill-aware form is the published one:
	 * the lengths above were used, not dropped. */
	const char *bare[] = { "wattcast", "predict", "inference", "--profile", "paper-prefill", "--platform", "H100",
	                       "--model", "Qwen3-8B", "--running-series", series, "--json", NULL };
	CHECK_INT(run_wattcast(bare, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	json_t *plain = json_loads(r.out ? r.out : "", 0, NULL);
	CHECK(w > json_number_value(json_object_get(plain, "node_power_w")) + 100.0);
	json_decref(plain);
	run_result_free(&r);

	/* One load: a series beside a concurrency or a rate is refused. */
	const char *two[] = { "wattcast", "predict", "inference", "--platform", "H100", "--model", "Qwen3-8B",
	                      "--running-series", series, "--concurrency", "4", NULL };
	CHECK_INT(run_wattcast(two, NULL, &r), 0);
	CHECK_INT(r.status, 2);
	CHECK(r.err && strstr(r.err, "--running-series: give exactly one of --concurrency and --running-series"));
	run_result_free(&r);

	/* A series at 0 throughout is idle: the line saying why it has no
	 * interval names the field that set the load, as a load's warnings do
	 * (docs/http-api.md); it said "at concurrency 0", a field not sent. */
	char *zeros = path_join(dir, "zeros.csv");
	CHECK_INT(write_text(zeros, "t_s,running\n0,0\n1,0\n"), 0);
	const char *idle[] = { "wattcast", "predict", "inference", "--platform", "H100", "--model", "Qwen3-8B",
	                       "--running-series", zeros, "--json", NULL };
	CHECK_INT(run_wattcast(idle, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	CHECK(r.out && strstr(r.out, "interval_95: none: at running_series 0 throughout the answer is the idle draw"));
	CHECK(r.out && !strstr(r.out, "concurrency 0"));
	run_result_free(&r);
	free(zeros);

	/* The same over HTTP, the same number. */
	wc_params p = WC_PARAMS_INIT;
	wc_server *srv = NULL;
	wc_params_default_prefill(&p);
	curl_global_init(CURL_GLOBAL_DEFAULT);
	CURL *h = curl_easy_init();
	if ((srv = http_server_start(&p, "profile:paper-prefill", 2)) != NULL) {
		http_reply hr;
		http_post_json(h, url("/v1/predict/inference"),
		               "{\"platform\":\"H100\",\"model\":\"Qwen3-8B\",\"running_series\":[1,2],\"dt_s\":1,"
		               "\"input_tokens\":32000,\"output_tokens\":100,\"price_per_kwh\":0.2}", &hr);
		CHECK_INT(hr.status, 200);
		CHECK(hr.json && json_is_null(json_object_get(hr.json, "capacity")));
		CHECK_NEAR(json_number_value(json_object_get(hr.json, "node_power_w")), w, 1e-9 * w);
		CHECK_INT(warned(hr.json, series_note), 1);
		http_reply_free(&hr);
		/* the lengths are still checked */
		http_post_json(h, url("/v1/predict/inference"),
		               "{\"platform\":\"H100\",\"model\":\"Qwen3-8B\",\"running_series\":[1,2],\"dt_s\":1,"
		               "\"input_tokens\":100,\"output_tokens\":0}", &hr);
		CHECK_INT(hr.status, 422);
		http_reply_free(&hr);
		http_post_json(h, url("/v1/predict/inference"),
		               "{\"platform\":\"H100\",\"model\":\"Qwen3-8B\",\"running_series\":[0,0],\"dt_s\":1}", &hr);
		CHECK_INT(hr.status, 200);
		CHECK_INT(warned(hr.json, "interval_95: none: at running_series 0 throughout the answer is the idle draw"), 1);
		CHECK_INT(warned(hr.json, "concurrency 0"), 0);
		http_reply_free(&hr);
		wc_server_stop(srv);
	}
	curl_easy_cleanup(h);
	curl_global_cleanup();
	json_decref(cli);
	wc_params_clear(&p);
	free(series);
	free(dir);
	return check_report("test_server_series_lengths");
}
