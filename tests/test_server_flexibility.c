/*
 * Power caps and flexibility over real HTTP (docs/http-api.md):
 * POST /v1/predict/inference with power_cap_w settles the clock and
 * reports both; POST /v1/predict/flexibility answers the sweep with the
 * fields the API names, the same numbers as `wattcast predict flexibility
 * --json`; a cap at or below idle power, a clock outside the platform's
 * range and bad sweep fields are refused with 422 naming the field. And
 * over every built-in profile and both routes, every energy figure comes
 * from the headline node power (energy per hour x 1000 = node power).
 */
#include "data/data.h"
#include "server/server.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static CURL *h;

#define BODY "\"platform\":\"H100\",\"tp\":1,\"model\":\"Qwen3-14B\",\"concurrency\":32,\"input_tokens\":512," \
	     "\"output_tokens\":256"

static json_t *
post(const char *path, const char *body, long want)
{
	http_reply r;
	http_post_json(h, url(path), body, &r);
	CHECK_INT(r.status, want);
	if (r.status != want)
		fprintf(stderr, "  %s %s -> %ld %s\n", path, body, r.status, r.body ? r.body : "");
	json_t *o = r.json;
	r.json = NULL;
	http_reply_free(&r);
	return o;
}

static void
expect_422(const char *path, const char *body, const char *field, const char *needle)
{
	json_t *o = post(path, body, 422);
	const json_t *e = json_object_get(o, "error");
	CHECK_CONTAINS(json_string_value(json_object_get(e, "field")), field);
	CHECK_CONTAINS(json_string_value(json_object_get(e, "message")), needle);
	json_decref(o);
}

static void
cap(void)
{
	json_t *a = post("/v1/predict/inference", "{" BODY ",\"power_cap_w\":450}", 200);
	const json_t *c = json_object_get(a, "config");
	CHECK_NEAR(http_json_num(c, "power_cap_w"), 450, 0);
	CHECK(http_json_num(c, "sm_clock_mhz") >= 345 && http_json_num(c, "sm_clock_mhz") < 1980);
	/* the clock settles where the headline power meets the cap */
	CHECK_NEAR(http_json_num(a, "per_gpu_power_w"), 450, 0.5);
	json_decref(a);
	expect_422("/v1/predict/inference", "{" BODY ",\"power_cap_w\":100}", "/power_cap_w", "idle power");
	expect_422("/v1/predict/inference", "{" BODY ",\"sm_clock_mhz\":2500}", "/sm_clock_mhz", "clock range 345-1980 MHz");
	expect_422("/v1/predict/inference", "{" BODY ",\"sm_clock_mhz\":1500,\"power_cap_w\":450}", "/power_cap_w",
	           "not both");
}

static void
sweep(void)
{
	json_t *a = post("/v1/predict/flexibility", "{" BODY ",\"steps\":6}", 200);
	const json_t *steps = json_object_get(a, "steps");
	CHECK_INT(json_array_size(steps), 6);
	static const char *const keys[] = { "sm_clock_mhz", "power_cap_w", "node_power_w", "throughput_tok_s",
		                            "energy_per_output_token_j", "power_shed_w", "throughput_lost_pct", "pfi" };
	for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
		CHECK(json_object_get(json_array_get(steps, 5), keys[k]) != NULL);
	CHECK_NEAR(http_json_num(json_array_get(steps, 0), "sm_clock_mhz"), 1980, 0);
	CHECK_NEAR(http_json_num(json_array_get(steps, 5), "sm_clock_mhz"), 345, 0);
	CHECK(http_json_num(json_array_get(steps, 5), "node_power_w") < http_json_num(json_array_get(steps, 0), "node_power_w"));
	CHECK(isfinite(http_json_num(a, "knee_clock_mhz")) && isfinite(http_json_num(a, "energy_optimal_clock_mhz")));
	/* the board's limit does not bind here: null, never absent */
	const json_t *lim = json_object_get(json_object_get(a, "config"), "board_power_limit_w");
	CHECK(lim != NULL && json_is_null(lim));
	/* where it comes from, as every answer says it */
	CHECK_CONTAINS(json_string_value(json_object_get(a, "profile")), "paper");
	CHECK_CONTAINS(json_string_value(json_object_get(a, "level_source")), "published");
	CHECK_CONTAINS(json_string_value(json_object_get(a, "capacity_level_source")), "fitted");
	/* the same numbers as the CLI */
	run_result r;
	const char *argv[] = { "wattcast", "predict", "flexibility", "--platform", "H100", "--model", "Qwen3-14B",
		               "--concurrency", "32", "--input-tokens", "512", "--output-tokens", "256", "--steps", "6",
		               "--json", "--profile", "paper", NULL };
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	json_t *cli = json_loads(r.out ? r.out : "", 0, NULL);
	CHECK_NEAR(http_json_num(cli, "knee_clock_mhz"), http_json_num(a, "knee_clock_mhz"), 0);
	CHECK_NEAR(http_json_num(json_array_get(json_object_get(cli, "steps"), 3), "node_power_w"),
	           http_json_num(json_array_get(steps, 3), "node_power_w"), 1e-6);
	json_decref(cli);
	run_result_free(&r);
	json_decref(a);
	/* Whole at the digits written is an integer: L40S clocks read
	 * 2520, 2058.0, 1596.0 (docs/http-api.md, the prediction object). */
	http_reply hr;
	http_post_json(h, url("/v1/predict/flexibility"), "{\"platform\":\"L40S\",\"model\":\"Qwen3-8B\",\"concurrency\":32,"
	               "\"input_tokens\":512,\"output_tokens\":256,\"steps\":6,\"sweep\":\"power_cap\"}", &hr);
	CHECK_INT(hr.status, 200);
	for (const char *s = hr.body; s && (s = strstr(s, ".0")) != NULL; s++)
		if (s[2] == ',' || s[2] == '}' || s[2] == ']') {
			CHECK(!"a whole number written with .0");
			fprintf(stderr, "  ...%.30s\n", s - 10);
			break;
		}
	http_reply_free(&hr);
	a = post("/v1/predict/flexibility", "{" BODY ",\"sweep\":\"power_cap\",\"steps\":4}", 200);
	CHECK_CONTAINS(json_string_value(json_object_get(a, "sweep")), "power_cap");
	json_decref(a);
	/* a board without a level names its transfer, power and capacity */
	a = post("/v1/predict/flexibility", "{\"platform\":\"H100-NVL\",\"tp\":1,\"model\":\"Qwen3-8B\","
	         "\"concurrency\":32,\"input_tokens\":512,\"output_tokens\":256,\"steps\":4}", 200);
	CHECK_CONTAINS(json_string_value(json_object_get(a, "level_source")), "datasheet");
	CHECK_CONTAINS(json_string_value(json_object_get(a, "capacity_level_source")), "datasheet");
	json_decref(a);
	/* where the law gives more than the board's 700 W, the sweep starts at
	 * the clock a GPU settles at under it, and config names the limit */
	a = post("/v1/predict/flexibility", "{\"platform\":\"H200\",\"tp\":1,\"model\":\"Qwen3-8B\","
	         "\"concurrency\":256,\"input_tokens\":512,\"output_tokens\":256,\"steps\":3}", 200);
	CHECK_NEAR(http_json_num(json_object_get(a, "config"), "board_power_limit_w"), 700, 0);
	CHECK(http_json_num(json_array_get(json_object_get(a, "steps"), 0), "node_power_w") <= 700 * (1 + 1e-6));
	CHECK(http_json_num(json_array_get(json_object_get(a, "steps"), 0), "sm_clock_mhz") < 1980);
	json_decref(a);
	expect_422("/v1/predict/flexibility", "{" BODY ",\"steps\":1}", "/steps", "between 2 and");
	expect_422("/v1/predict/flexibility", "{" BODY ",\"sweep\":\"fan\"}", "/sweep", "clock");
	/* a wrong JSON type is `wrong_type` naming what came, as for every
	 * other field; a value out of range echoes the value (it was
	 * `invalid_value` for both, without it) */
	static const char *const typed[][4] = {
		{ "\"steps\":\"4\"", "/steps", "wrong_type", "steps: expected an integer, got string" },
		{ "\"steps\":true", "/steps", "wrong_type", "steps: expected an integer, got boolean" },
		{ "\"steps\":2.5", "/steps", "wrong_type", "steps: expected an integer, got 2.5" },
		{ "\"steps\":1e300", "/steps", "invalid_value", "steps: must be between 2 and 64, got 1e+300" },
		{ "\"sweep\":5", "/sweep", "wrong_type", "sweep: expected \"clock\" or \"power_cap\", got integer" },
		{ "\"sweep\":null", "/sweep", "wrong_type", "got null" },
		{ "\"sweep\":\"fan\"", "/sweep", "invalid_value", "got \"fan\"" },
	};
	for (size_t i = 0; i < sizeof typed / sizeof typed[0]; i++) {
		char body[512];
		snprintf(body, sizeof body, "{" BODY ",%s}", typed[i][0]);
		json_t *o = post("/v1/predict/flexibility", body, 422);
		const json_t *e = json_object_get(o, "error");
		CHECK(strcmp(json_string_value(json_object_get(e, "code")) ? json_string_value(json_object_get(e, "code")) : "", typed[i][2]) == 0);
		CHECK(strcmp(json_string_value(json_object_get(e, "field")) ? json_string_value(json_object_get(e, "field")) : "", typed[i][1]) == 0);
		CHECK_CONTAINS(json_string_value(json_object_get(e, "message")), typed[i][3]);
		json_decref(o);
	}
	expect_422("/v1/predict/flexibility", "{\"platform\":\"H100\",\"tp\":1,\"model\":\"Qwen3-14B\",\"concurrency\":8}",
	           "/output_tokens", "required");
	expect_422("/v1/predict/flexibility", "{" BODY ",\"sm_clock_mhz\":1500}", "/sm_clock_mhz", "the sweep sets");
}

static void
consistency(void)
{
	static const char *const profiles[] = { "paper", "paper-prefill" };
	static const char *const loads[] = {
		"\"platform\":\"A100\",\"tp\":1,\"model\":\"Qwen3-8B\",\"concurrency\":4,\"input_tokens\":600,"
		"\"output_tokens\":600",
		"\"platform\":\"H100\",\"tp\":1,\"model\":\"Qwen3-8B\",\"rate\":2,\"input_tokens\":1000,"
		"\"output_tokens\":300",
		"\"platform\":\"A100\",\"tp\":1,\"model\":\"Qwen3-32B\",\"concurrency\":32,\"input_tokens\":1000,"
		"\"output_tokens\":512",
	};
	char body[512];
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 3; j++) {
			snprintf(body, sizeof body, "{%s,\"profile\":\"%s\",\"power_cap_w\":350}", loads[j], profiles[i]);
			json_t *a = post("/v1/predict/inference", body, 200);
			const json_t *c = json_object_get(a, "capacity");
			double P = http_json_num(a, "node_power_w");
			CHECK_NEAR(http_json_num(c, "energy_per_hour_kwh") * 1000, P, 1e-6 * P);
			CHECK_NEAR(http_json_num(c, "energy_per_output_token_j") * http_json_num(c, "throughput_tok_s"), P, 1e-6 * P);
			json_decref(a);
			snprintf(body, sizeof body, "{%s,\"profile\":\"%s\",\"steps\":4}", loads[j], profiles[i]);
			a = post("/v1/predict/flexibility", body, 200);
			for (size_t k = 0; k < json_array_size(json_object_get(a, "steps")); k++) {
				const json_t *s = json_array_get(json_object_get(a, "steps"), k);
				CHECK_NEAR(http_json_num(s, "energy_per_output_token_j") * http_json_num(s, "throughput_tok_s"), http_json_num(s, "node_power_w"),
				           1e-6 * http_json_num(s, "node_power_w"));
			}
			json_decref(a);
		}
}

/* Does the answer `a` hold a warning starting with `prefix`? */
static int
warned(const json_t *a, const char *prefix)
{
	const json_t *w = json_object_get(a, "warnings");
	for (size_t i = 0; i < json_array_size(w); i++)
		if (strncmp(json_string_value(json_array_get(w, i)), prefix, strlen(prefix)) == 0)
			return 1;
	return 0;
}

/* The sweep says a price and an intensity are ignored, as an inference
 * answer without token lengths does (they were dropped without a word);
 * a clock far below half the top clock says the law keeps the bandwidth
 * there, as the sweep does at its edge (docs/capacity.md, "Clocks and
 * power caps"). */
static void
said(void)
{
	json_t *a = post("/v1/predict/flexibility", "{" BODY ",\"steps\":4,\"price_per_kwh\":0.15,"
	                 "\"grams_co2_per_kwh\":400}", 200);
	CHECK(warned(a, "price_per_kwh: ignored: the sweep answers no cost or CO2"));
	CHECK(warned(a, "grams_co2_per_kwh: ignored: the sweep answers no cost or CO2"));
	json_decref(a);
	a = post("/v1/predict/flexibility", "{" BODY ",\"steps\":4}", 200);
	CHECK(!warned(a, "price_per_kwh:") && !warned(a, "grams_co2_per_kwh:"));
	json_decref(a);
	a = post("/v1/predict/inference", "{" BODY ",\"sm_clock_mhz\":400}", 200);
	CHECK(warned(a, "sm_clock_mhz: the GPU runs at 400 MHz of H100's 1980 MHz top clock; the law does not "
	                "model the bandwidth real boards lose below about half the top clock (docs/capacity.md)"));
	json_decref(a);
	a = post("/v1/predict/inference", "{" BODY ",\"sm_clock_mhz\":990}", 200);
	CHECK(!warned(a, "sm_clock_mhz: the GPU runs at"));
	json_decref(a);
}

/* Each step's interval_95 has latency's, the interval POST
 * /v1/predict/inference gives at the step's clock (the same capacity
 * answer, docs/capacity.md, "Power flexibility"); the unconstrained point
 * its latency and interval, as the answer with no lock. It had node power,
 * throughput (itself covering latency's held-out error) and energy per
 * token, but no latency_s. */
static void
latency_interval(void)
{
	json_t *f = post("/v1/predict/flexibility", "{" BODY ",\"steps\":4}", 200);
	json_t *free_a = post("/v1/predict/inference", "{" BODY "}", 200);
	const json_t *steps = json_object_get(f, "steps"), *top = json_object_get(f, "interval_95");
	const json_t *fcap = json_object_get(free_a, "capacity");
	const json_t *fiv = json_object_get(json_object_get(fcap, "interval_95"), "latency_s");
	CHECK(json_array_size(fiv) == 2);
	CHECK_NEAR(http_json_num(json_object_get(f, "unconstrained"), "latency_s"), http_json_num(fcap, "latency_s"), 0);
	CHECK(json_equal(json_object_get(top, "latency_s"), fiv));
	const char *cov = json_string_value(json_object_get(json_object_get(top, "covers_by_quantity"), "latency_s"));
	const char *fcov = json_string_value(
	        json_object_get(json_object_get(json_object_get(fcap, "interval_95"), "covers_by_quantity"), "latency_s"));
	CHECK(cov && fcov && strcmp(cov, fcov) == 0);
	CHECK_INT(json_array_size(steps), 4);
	for (size_t i = 0; i < json_array_size(steps); i++) {
		const json_t *st = json_array_get(steps, i);
		const json_t *iv = json_object_get(json_object_get(st, "interval_95"), "latency_s");
		CHECK(json_array_size(iv) == 2);
		if (json_array_size(iv) != 2)
			continue;
		const double lo = json_number_value(json_array_get(iv, 0)), hi = json_number_value(json_array_get(iv, 1));
		CHECK(lo < http_json_num(st, "latency_s") && http_json_num(st, "latency_s") < hi);
		char body[512];
		snprintf(body, sizeof body, "{" BODY ",\"sm_clock_mhz\":%.17g}", http_json_num(st, "sm_clock_mhz"));
		json_t *a = post("/v1/predict/inference", i ? body : "{" BODY "}", 200);
		const json_t *aiv = json_object_get(json_object_get(json_object_get(a, "capacity"), "interval_95"),
		                                    "latency_s");
		CHECK_NEAR(lo, json_number_value(json_array_get(aiv, 0)), 1e-9 * lo);
		CHECK_NEAR(hi, json_number_value(json_array_get(aiv, 1)), 1e-9 * hi);
		json_decref(a);
	}
	json_decref(free_a);
	json_decref(f);
}

int
main(void)
{
	wc_params paper = WC_PARAMS_INIT, prefill = WC_PARAMS_INIT;
	wc_server *srv = NULL;
	curl_global_init(CURL_GLOBAL_DEFAULT);
	h = curl_easy_init();
	wc_params_default(&paper);
	wc_params_default_prefill(&prefill);
	const wc_params *sets[2] = { &paper, &prefill };
	const char *sources[2] = { "profile:paper", "profile:paper-prefill" };
	srv = http_server_start_profiles(2, sets, sources, 2);
	if (!srv)
		return check_report("test_server_flexibility");
	cap();
	sweep();
	consistency();
	said();
	latency_interval();
	wc_server_stop(srv);
	curl_easy_cleanup(h);
	curl_global_cleanup();
	wc_params_clear(&paper);
	wc_params_clear(&prefill);
	return check_report("test_server_flexibility");
}
