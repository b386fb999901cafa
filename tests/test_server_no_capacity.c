/*
 * A platform calibrated from its own runs that neither the capacity
 * section nor the catalog knows (docs/capacity.md, "Platforms without a
 * capacity level"): a question with token lengths is answered with its
 * mean power and no capacity answers, with a warning saying why -- on the
 * CLI and over HTTP. It was refused ("platform: the capacity model has no
 * level 'X900'"), so the planner page, which always sends lengths, showed
 * nothing for such a platform.
 */
#include "data/data.h"
#include "server/server.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

#include <stdlib.h>
#include <string.h>

int
main(void)
{
	char *dir = test_tmpdir("server_no_capacity");
	char *runs = path_join(dir, "x900.csv"), *params = path_join(dir, "x900.json");
	CHECK_INT(write_text(runs, "run_id,platform,tp,model,active_params_b,running,mean_power_w,idle_power_w\n"
	                           "a,X900,1,Qwen3-8B,8.19,4,380,100\n"
	                           "b,X900,1,Qwen3-8B,8.19,32,560,100\n"
	                           "c,X900,1,Qwen3-8B,8.19,128,640,100\n"),
	          0);
	const char *cal[] = { "wattcast", "calibrate", "--profile", "paper", runs, "--scope", "platform", "--bootstrap",
	                      "20", "-o", params, NULL };
	test_run_ok(cal);

	const char *ask[] = { "wattcast", "predict", "inference", "--params", params, "--platform", "X900", "--model",
	                      "Qwen3-8B", "--concurrency", "32", "--input-tokens", "512", "--output-tokens", "256",
	                      "--json", NULL };
	run_result r;
	CHECK_INT(run_wattcast(ask, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	json_t *cli = json_loads(r.out ? r.out : "", 0, NULL);
	CHECK(json_is_null(json_object_get(cli, "capacity")));
	double w = json_number_value(json_object_get(cli, "node_power_w"));
	CHECK(w > 450 && w < 650);
	int found = 0;
	for (size_t i = 0; i < json_array_size(json_object_get(cli, "warnings")); i++)
		found += strstr(json_string_value(json_array_get(json_object_get(cli, "warnings"), i)),
		                "capacity: none: platform: the capacity model has no level 'X900'") != NULL;
	CHECK_INT(found, 1);
	run_result_free(&r);

	/* The same over HTTP, the same number. */
	wc_params p = WC_PARAMS_INIT;
	wc_error err;
	wc_server *srv = NULL;
	CHECK_INT(wc_params_load_file(params, &p, &err), WC_OK);
	curl_global_init(CURL_GLOBAL_DEFAULT);
	CURL *h = curl_easy_init();
	if ((srv = http_server_start(&p, params, 2)) != NULL) {
		http_reply hr;
		http_post_json(h, url("/v1/predict/inference"),
		               "{\"platform\":\"X900\",\"model\":\"Qwen3-8B\",\"concurrency\":32,\"input_tokens\":512,"
		               "\"output_tokens\":256}", &hr);
		CHECK_INT(hr.status, 200);
		CHECK(hr.json && json_is_null(json_object_get(hr.json, "capacity")));
		CHECK_NEAR(json_number_value(json_object_get(hr.json, "node_power_w")), w, 1e-6 * w);
		http_reply_free(&hr);
		wc_server_stop(srv);
	}
	curl_easy_cleanup(h);
	curl_global_cleanup();
	json_decref(cli);
	wc_params_clear(&p);
	free(runs);
	free(params);
	free(dir);
	return check_report("test_server_no_capacity");
}
