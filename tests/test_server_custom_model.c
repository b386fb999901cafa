/*
 * A model the catalog does not have, calibrated by `wattcast calibrate`
 * (a model term under the name as written, docs/calibration.md), is
 * reached by its name beside its size: `predict inference --model NAME
 * --active-params B` and HTTP `model` with `active_params_b`. Both
 * used to refuse the pair ("give exactly one"), and the size alone
 * answered without the term: the few-runs flow could not be used.
 * A catalog model with a size of its own is still refused, naming it.
 */
#include "data/data.h"
#include "server/server.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

static double
cli_power(const char *file, const char *model)
{
	const char *argv[] = { "wattcast", "predict", "inference", "--params", file, "--platform", "H100",
		               "--active-params", "8", "--concurrency", "16", "--json", model ? "--model" : NULL, model,
		               NULL };
	run_result r;
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	json_t *j = json_loads(r.out ? r.out : "", 0, NULL);
	double w = j ? json_number_value(json_object_get(j, "node_power_w")) : NAN;
	json_decref(j);
	run_result_free(&r);
	return w;
}

int
main(void)
{
	wc_params cal = WC_PARAMS_INIT;
	wc_error err;
	wc_params_default(&cal);
	snprintf(cal.name, sizeof cal.name, "cal");
	cal.model_terms[0] = (wc_model_term){ .model = "MyModel", .level = "H100",
	                                      .shift = { -1.0, NAN, NAN, WC_SRC_CALIBRATED }, .runs = 3 };
	cal.n_model_terms = 1;
	char *dir = test_tmpdir("server_custom_model"), *file = path_join(dir, "cal.json");
	CHECK_INT(wc_params_save_file(file, &cal, &err), WC_OK);

	/* CLI: the term lowers z by 1, so the named model draws less. */
	double named = cli_power(file, "MyModel"), plain = cli_power(file, NULL);
	fprintf(stderr, "named %.1f W, size alone %.1f W\n", named, plain);
	CHECK(named < plain - 20.0);
	test_usage_error((const char *const[]){ "wattcast", "predict", "inference", "--params", file, "--platform",
	                                        "H100", "--model", "Qwen3-8B", "--active-params", "8",
	                                        "--concurrency", "16", NULL },
	                 "--model: 'Qwen3-8B' is the catalog's Qwen3-8B (8.19 B active): give the model or its active "
	                 "parameters, not both");
	test_usage_error((const char *const[]){ "wattcast", "predict", "inference", "--params", file, "--platform",
	                                        "H100", "--concurrency", "16", NULL },
	                 "give --model, or --active-params");

	/* a misspelt name of one's own: answered by its size, and said so */
	{
		const char *typo[] = { "wattcast", "predict", "inference", "--params", file, "--platform", "H100",
			               "--active-params", "8", "--concurrency", "16", "--model", "MyModl", NULL };
		run_result tr;
		CHECK_INT(run_wattcast(typo, NULL, &tr), 0);
		CHECK_INT(tr.status, 0);
		CHECK_CONTAINS(tr.out, "model: 'MyModl' is not in the catalog and the set has no model term for it on H100");
		run_result_free(&tr);
	}
	/* a mixture of experts described by its architecture: answered by
	 * it (the MoE term moves the power), not "by its size alone" */
	{
		const char *moe[] = { "wattcast", "predict", "inference", "--platform", "H100", "--tp", "4", "--model",
			              "databricks/dbrx-instruct", "--active-params", "36", "--total-params", "132",
			              "--experts", "16", "--experts-per-token", "4", "--layers", "40", "--kv-heads", "8",
			              "--head-dim", "128", "--d-model", "6144", "--concurrency", "32", NULL };
		run_result tr;
		CHECK_INT(run_wattcast(moe, NULL, &tr), 0);
		CHECK_INT(tr.status, 0);
		CHECK_CONTAINS(tr.out, "answered by the architecture given (16 experts, 4 per token, 36 of 132 B) through "
		                       "the law's MoE term");
		CHECK(tr.out && !strstr(tr.out, "size alone"));
		run_result_free(&tr);
	}
	/* envelope takes the pair too (it refused "give one of"), and the
	 * term lowers the mean as it lowers predict's power */
	double mean[2];
	for (int k = 0; k < 2; k++) {
		const char *ev[] = { "wattcast", "envelope", "--params", file, "--platform", "H100", "--active-params", "8",
			             "--closed", "32", "--horizon", "60", "--replicas", "2", "--json", k ? NULL : "--model",
			             "MyModel", NULL };
		run_result er;
		CHECK_INT(run_wattcast(ev, NULL, &er), 0);
		CHECK_INT(er.status, 0);
		json_t *j = json_loads(er.out ? er.out : "", 0, NULL);
		mean[k] = json_number_value(json_object_get(json_object_get(json_object_get(json_object_get(j, "server"),
		                                                                             "summary"), "mean_w"), "value"));
		json_decref(j);
		run_result_free(&er);
	}
	CHECK(mean[0] < mean[1] - 10.0);
	/* HTTP answers as the CLI does. */
	curl_global_init(CURL_GLOBAL_DEFAULT);
	CURL *h = curl_easy_init();
	wc_server *srv = NULL;
	const wc_params *sets[1] = { &cal };
	const char *sources[1] = { "cal" };
	wc_server_options so = WC_SERVER_OPTIONS_INIT;
	so.listen = "127.0.0.1:0";
	CHECK_INT(wc_server_start_profiles(&so, 1, sets, sources, &srv, &err), WC_OK);
	if (srv) {
		http_set_base(wc_server_port(srv));
		http_reply a;
		http_post_json(h, url("/v1/predict/inference"),
		               "{\"platform\":\"H100\",\"model\":\"MyModel\",\"active_params_b\":8,\"concurrency\":16}", &a);
		CHECK_INT(a.status, 200);
		double w = json_number_value(json_object_get(a.json, "node_power_w"));
		CHECK(fabs(w - named) < 1e-6 * named);
		http_reply_free(&a);
		http_post_json(h, url("/v1/predict/inference"),
		               "{\"platform\":\"H100\",\"model\":\"Qwen3-8B\",\"active_params_b\":8,\"concurrency\":16}", &a);
		CHECK_INT(a.status, 422);
		CHECK_CONTAINS(json_string_value(json_object_get(json_object_get(a.json, "error"), "field")), "/model");
		CHECK_CONTAINS(json_string_value(json_object_get(json_object_get(a.json, "error"), "message")),
		               "is the catalog's Qwen3-8B");
		http_reply_free(&a);
		wc_server_stop(srv);
	}
	curl_easy_cleanup(h);
	curl_global_cleanup();
	wc_params_clear(&cal);
	free(file);
	free(dir);
	return check_report("test_server_custom_model");
}
