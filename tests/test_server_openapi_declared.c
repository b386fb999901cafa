/*
 * Every key of an answer is declared by server/openapi.json: the answers of
 * a live server to inference (closed and open loops, with cost and CO2, a
 * running_series), batch, flexibility (both sweeps), envelope (each
 * workload type, a fleet) and budget-plan requests validate against their
 * documented 200 schemas, and each key of each of their objects is named by
 * the schema that describes it (tests/support/schema_check.c,
 * wc_schema_declared). A schema that leaves an object open validates any
 * key, so without this walk the capacity intervals, the flexibility and
 * envelope configurations and the envelope's workload and simulation
 * echoes (docs/http-api.md) went undeclared, and a client generated from
 * the document (typed models) dropped them. Each of the capacity model's
 * quantities (wc_capacity_output_name) has its interval declared. The walk
 * is checked not to be vacuous: a key added to an answer is caught.
 */
#include "data/data.h"
#include "predict/capacity_predict.h"
#include "server/server.h"
#include "server/server_internal.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/schema_check.h"
#include "tests/support/support.h"

static CURL *h;
static json_t *doc;

/* The 200 schema of POST `path`. */
static const json_t *
answer_schema(const char *path)
{
	const json_t *op = json_object_get(json_object_get(json_object_get(doc, "paths"), path), "post");
	const json_t *resp = wc_schema_resolve(json_object_get(json_object_get(op, "responses"), "200"));
	return json_object_get(json_object_get(json_object_get(resp, "content"), "application/json"), "schema");
}

/* POST `body` to `path`: 200, valid, every key declared; the answer kept
 * (the caller frees it) when `keep`. */
static json_t *
declared(const char *path, const char *body, int keep)
{
	http_reply r;
	json_t *answer = NULL;
	const json_t *schema = answer_schema(path);
	char what[1200];
	snprintf(what, sizeof what, "POST %s %s", path, body);
	http_post_json(h, url(path), body, &r);
	CHECK_INT(r.status, 200);
	if (r.status != 200)
		fprintf(stderr, "%s -> %ld %s\n", what, r.status, r.body ? r.body : "");
	CHECK(schema != NULL);
	if (r.json && schema) {
		CHECK(wc_schema_valid(schema, r.json, what));
		CHECK(wc_schema_all_declared(schema, r.json, what));
	}
	if (keep) {
		answer = r.json;
		r.json = NULL;
	}
	http_reply_free(&r);
	return answer;
}

#define LENGTHS "\"input_tokens\":500,\"output_tokens\":200"

static void
test_inference_and_batch(void)
{
	/* the capacity interval's cost and CO2 arrays come with their prices */
	declared("/v1/predict/inference", "{\"platform\":\"H100\",\"model\":\"Qwen3-8B\",\"concurrency\":8," LENGTHS
	         ",\"price_per_kwh\":0.12,\"grams_co2_per_kwh\":400}", 0);
	declared("/v1/predict/inference", "{\"platform\":\"H100\",\"model\":\"Qwen3-8B\",\"rate\":3," LENGTHS "}", 0);
	declared("/v1/predict/inference", "{\"platform\":\"A100\",\"model\":\"Qwen3-8B\",\"tp\":2,\"rate\":40,"
	         "\"concurrency\":64," LENGTHS ",\"power_cap_w\":300}", 0);
	declared("/v1/predict/inference", "{\"platform\":\"H100\",\"model\":\"Qwen3-8B\",\"running_series\":[1,8,32],"
	         "\"dt_s\":1,\"power_cap_w\":400}", 0);
	declared("/v1/predict/batch", "[{\"platform\":\"H100\",\"model\":\"Qwen3-8B\",\"concurrency\":8," LENGTHS
	         ",\"price_per_kwh\":0.12,\"grams_co2_per_kwh\":400},"
	         "{\"platform\":\"L40S\",\"model\":\"Qwen3-8B\",\"rate\":2," LENGTHS "},"
	         "{\"platform\":\"H100\",\"model\":\"GPT-7\",\"concurrency\":1}]", 0);
}

static void
test_flexibility(void)
{
	declared("/v1/predict/flexibility", "{\"platform\":\"H100\",\"model\":\"Qwen3-8B\",\"rate\":20,"
	         "\"input_tokens\":512,\"output_tokens\":256,\"steps\":6,\"sweep\":\"power_cap\"}", 0);
	declared("/v1/predict/flexibility", "{\"platform\":\"A100\",\"model\":\"Qwen3-8B\",\"concurrency\":128,"
	         "\"input_tokens\":512,\"output_tokens\":256}", 0);
	declared("/v1/predict/flexibility", "{\"platform\":\"L40S\",\"model\":\"Llama-3.1-8B\",\"tp\":2,\"rate\":4,"
	         "\"concurrency\":32," LENGTHS ",\"weights\":\"fp8\"}", 0);
}

#define CONF "\"platform\":\"A100\",\"model\":\"Qwen3-8B\""

static void
test_envelope_and_plan(void)
{
	static const char *const workloads[] = {
		/* lognormal lengths, a fleet */
		"\"workload\":{\"type\":\"poisson\",\"rate\":4,\"input_tokens\":{\"mean\":330,\"sd\":300}},"
		"\"horizon_s\":60,\"replicas\":3,\"bin_s\":10,\"fleet\":{\"size\":3,\"mode\":\"round_robin\"}",
		/* a rate profile, lengths drawn from a list */
		"\"workload\":{\"type\":\"bursty\",\"burstiness\":0.5,\"rate_profile\":[{\"until_s\":10,\"rate\":2},"
		"{\"until_s\":20,\"rate\":5}],\"output_tokens\":[100,200,300]},\"horizon_s\":30,\"replicas\":2,"
		"\"warmup_s\":5,\"max_running\":64,\"sm_clock_mhz\":1200",
		/* a replay, its missing lengths drawn */
		"\"workload\":{\"type\":\"replay\",\"arrivals\":{\"t_s\":[0,1,2,30],\"input_tokens\":[100,null,300,400]}},"
		"\"horizon_s\":20,\"replicas\":2",
		"\"workload\":{\"type\":\"closed\",\"concurrency\":8,\"think_s\":0.5},\"horizon_s\":30,"
		"\"idle_power_w\":80,\"include_bins\":false",
	};
	char body[1024];
	for (size_t i = 0; i < sizeof workloads / sizeof workloads[0]; i++) {
		snprintf(body, sizeof body, "{" CONF ",%s}", workloads[i]);
		declared("/v1/forecast/envelope", body, 0);
	}
	declared("/v1/forecast/envelope", "{\"platform\":\"L40S\",\"active_params_b\":7,\"workload\":{\"type\":"
	         "\"n_series\",\"running_series\":[1,2,3,4],\"dt_s\":1},\"horizon_s\":4,\"sample_s\":0.05}", 0);
	/* the plan's echoes are the envelope's */
	declared("/v1/plan/budget", "{" CONF ",\"workload\":{\"type\":\"poisson\",\"rate\":4,\"input_tokens\":"
	         "{\"mean\":330,\"sd\":300}},\"horizon_s\":60,\"budget_w\":5000}", 0);
	declared("/v1/plan/budget", "{" CONF ",\"workload\":{\"type\":\"replay\",\"arrivals\":{\"t_s\":[0,1,2],"
	         "\"output_tokens\":[null,50,60]}},\"horizon_s\":20,\"budget_w\":3000,\"sm_clock_mhz\":1100}", 0);
	declared("/v1/plan/budget", "{" CONF ",\"workload\":{\"type\":\"closed\",\"concurrency\":4},\"horizon_s\":"
	         "20,\"budget_w\":4000}", 0);
}

/* Every quantity the capacity model answers has its interval declared, the
 * costs and CO2 (only with their prices) too, whatever the bodies above
 * asked. */
static void
test_capacity_intervals_declared(void)
{
	const json_t *cap = json_object_get(json_object_get(json_object_get(doc, "components"), "schemas"), "Capacity");
	const json_t *iv = wc_schema_resolve(json_object_get(json_object_get(cap, "properties"), "interval_95"));
	const json_t *props = json_object_get(iv, "properties");
	for (int k = 0; k < WC_CAPQ_COUNT; k++) {
		int has = json_object_get(props, wc_capacity_output_name(k)) != NULL;
		if (!has)
			fprintf(stderr, "Capacity.interval_95 does not declare %s\n", wc_capacity_output_name(k));
		CHECK(has);
	}
}

/* The walk catches a key no schema names, at any depth, where the
 * validator alone (open objects) lets it through. */
static void
test_walk_not_vacuous(void)
{
	json_t *a = declared("/v1/predict/inference", "{\"platform\":\"H100\",\"model\":\"Qwen3-8B\","
	                     "\"concurrency\":8," LENGTHS "}", 1);
	json_t *iv = json_object_get(json_object_get(a, "capacity"), "interval_95");
	char why[512] = "";
	CHECK(json_is_object(iv));
	if (!json_is_object(iv)) {
		json_decref(a);
		return;
	}
	json_object_set_new(iv, "colour_s", json_pack("[f,f]", 1.0, 2.0));
	CHECK(!wc_schema_declared(answer_schema("/v1/predict/inference"), a, "", why, sizeof why));
	CHECK_CONTAINS(why, "/capacity/interval_95/colour_s");
	json_object_del(iv, "colour_s");
	json_object_set_new(json_object_get(a, "config"), "colour", json_string("red"));
	CHECK(!wc_schema_declared(answer_schema("/v1/predict/inference"), a, "", why, sizeof why));
	CHECK_CONTAINS(why, "/config/colour");
	json_decref(a);
}

int
main(void)
{
	wc_params p = WC_PARAMS_INIT;
	wc_server *srv = NULL;
	wc_error err;

	curl_global_init(CURL_GLOBAL_DEFAULT);
	h = curl_easy_init();
	doc = wc_schema_load_served();
	/* the profile `wattcast serve` answers from by default */
	CHECK_INT(wc_params_profile("measured", &p, &err), WC_OK);
	if (doc && (srv = http_server_start(&p, "profile:measured", 2))) {
		test_inference_and_batch();
		test_flexibility();
		test_envelope_and_plan();
		test_capacity_intervals_declared();
		test_walk_not_vacuous();
		wc_server_stop(srv);
	}
	json_decref(doc);
	curl_easy_cleanup(h);
	curl_global_cleanup();
	wc_params_clear(&p);
	return check_report("test_server_openapi_declared");
}
