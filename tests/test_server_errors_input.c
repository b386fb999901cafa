/*
 * The prediction routes' refusals of out-of-range values over real HTTP
 * (docs/http-api.md, "Errors" and "Limits"): each names the field the
 * request sent and prints the value so the difference from the limit
 * shows (a concurrency of 1000001 read "at most 1e+06 ..., got 1e+06"; the
 * limits keep the predictor's wording, so CLI and routes say the same);
 * an active parameter count past the largest sane model is refused on
 * /active_params_b instead of "/tp: the weights need inf GB".
 */
#include "data/data.h"
#include "server/server.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

static CURL *h;

/* POST `body` to `path`: 422 with `code`, `field` and a message
 * containing `needle` and no "inf". */
static void
expect(const char *path, const char *body, const char *code, const char *field, const char *needle)
{
	http_reply r;
	int before = check_failures;
	http_post_json(h, url(path), body, &r);
	CHECK_INT(r.status, 422);
	const char *c = http_error_str(&r, "code"), *f = http_error_str(&r, "field"),
		   *m = http_error_str(&r, "message");
	CHECK(c && strcmp(c, code) == 0);
	CHECK(f && strcmp(f, field) == 0);
	CHECK(m != NULL);
	if (m) {
		CHECK_CONTAINS(m, needle);
		CHECK(strstr(m, "inf") == NULL && strstr(m, "got 1e+06") == NULL && strstr(m, "got 1e+08") == NULL);
	}
	if (check_failures != before)
		fprintf(stderr, "  case: %s %s -> %ld %s\n", path, body, r.status, r.body ? r.body : "");
	http_reply_free(&r);
}

#define INF "/v1/predict/inference"

static void
test_model_size(void)
{
	expect(INF, "{\"platform\":\"H100\",\"tp\":1,\"active_params_b\":1e300,\"concurrency\":8}", "invalid_value",
	       "/active_params_b", "active_params_b: must be between 0.0001 and 100000 B, got 1e+300");
	/* below a tenth of the smallest published model: a unit slip */
	expect(INF, "{\"platform\":\"H100\",\"tp\":1,\"active_params_b\":1e-30,\"concurrency\":8}", "invalid_value",
	       "/active_params_b", "active_params_b: must be between 0.0001 and 100000 B, got 1e-30");
	expect(INF, "{\"platform\":\"H100\",\"tp\":1,\"active_params_b\":100000.5,\"concurrency\":8}", "invalid_value",
	       "/active_params_b", "got 100000.5");
	expect(INF, "{\"platform\":\"H100\",\"tp\":1,\"model\":\"Qwen3-8B\",\"concurrency\":8,"
	            "\"architecture\":{\"total_params_b\":1e300}}",
	       "invalid_value", "/architecture/total_params_b", "must be between 0.0001 and 100000 B, got 1e+300");
	/* The envelope shares the parser (the batch: test_capacity_limits). */
	expect("/v1/forecast/envelope", "{\"platform\":\"H100\",\"tp\":1,\"active_params_b\":1e300,"
	                                "\"workload\":{\"type\":\"closed\",\"concurrency\":4}}",
	       "invalid_value", "/active_params_b", "active_params_b: must be between 0.0001 and 100000 B");
}

/* A batch answers 200 with each item's error in results[]. */
static void
expect_batch_item(const char *body, const char *field, const char *needle)
{
	http_reply r;
	http_post_json(h, url("/v1/predict/batch"), body, &r);
	CHECK_INT(r.status, 200);
	json_t *err = json_object_get(json_array_get(json_object_get(r.json, "results"), 0), "error");
	const char *f = json_string_value(json_object_get(err, "field"));
	const char *m = json_string_value(json_object_get(err, "message"));
	CHECK(f && strcmp(f, field) == 0);
	CHECK(m && strstr(m, needle) != NULL);
	if (!(f && m && strcmp(f, field) == 0 && strstr(m, needle)))
		fprintf(stderr, "  batch %s -> %s\n", body, r.body ? r.body : "");
	http_reply_free(&r);
}

static void
test_capacity_limits(void)
{
	expect(INF, "{\"platform\":\"H100\",\"tp\":1,\"model\":\"Qwen3-8B\",\"concurrency\":1000001,"
	            "\"input_tokens\":100,\"output_tokens\":100}",
	       "invalid_value", "/concurrency",
	       "concurrency: must be at most 1e+06 requests at once, got 1000001");
	expect(INF, "{\"platform\":\"H100\",\"tp\":1,\"model\":\"Qwen3-8B\",\"concurrency\":8,"
	            "\"input_tokens\":100000001,\"output_tokens\":100}",
	       "invalid_value", "/input_tokens", "input_tokens: must be a number from 1 to 1e+08, got 100000001");
	expect(INF, "{\"platform\":\"H100\",\"tp\":1,\"model\":\"Qwen3-8B\",\"concurrency\":8,"
	            "\"input_tokens\":100,\"output_tokens\":100000001}",
	       "invalid_value", "/output_tokens", "output_tokens: must be a number from 1 to 1e+08, got 100000001");
	expect(INF, "{\"platform\":\"H100\",\"tp\":1,\"model\":\"Qwen3-8B\",\"rate\":1000001,"
	            "\"input_tokens\":100,\"output_tokens\":100}",
	       "invalid_value", "/rate", "rate: must be at least 1e-06 and at most 1e+06 requests/s, got 1000001");
	expect(INF, "{\"platform\":\"H100\",\"tp\":1,\"model\":\"Qwen3-8B\",\"rate\":1000000.5,"
	            "\"input_tokens\":100,\"output_tokens\":100}",
	       "invalid_value", "/rate", "got 1000000.5");
	expect("/v1/predict/flexibility", "{\"platform\":\"H100\",\"tp\":1,\"model\":\"Qwen3-8B\",\"concurrency\":1000001,"
	                                  "\"input_tokens\":100,\"output_tokens\":100}",
	       "invalid_value", "/concurrency", "got 1000001");
	expect_batch_item("[{\"platform\":\"H100\",\"tp\":1,\"active_params_b\":1e300,\"concurrency\":8}]",
	                  "/0/active_params_b", "active_params_b: must be between 0.0001 and 100000 B");
	expect_batch_item("[{\"platform\":\"H100\",\"tp\":1,\"model\":\"Qwen3-8B\",\"concurrency\":8,"
	                  "\"input_tokens\":100000001,\"output_tokens\":100}]",
	                  "/0/input_tokens", "got 100000001");
}

/* A positive concurrency or rate below a millionth (models/limits.h)
 * answered 200 with null energies per token and per request: the
 * throughput they divide by was subnormal. Refused on every route that
 * takes them, naming the bound; at the bound the energies are numbers. */
static void
test_least_load(void)
{
#define TOKENS "\"platform\":\"H100\",\"tp\":1,\"model\":\"Qwen3-8B\",\"input_tokens\":512,\"output_tokens\":256"
	expect(INF, "{" TOKENS ",\"concurrency\":5e-324}", "invalid_value", "/concurrency",
	       "concurrency: must be 0 (idle) or at least 1e-06 requests at once, got 4.94065645841247e-324");
	expect(INF, "{\"platform\":\"H100\",\"active_params_b\":8,\"concurrency\":1e-7}", "invalid_value",
	       "/concurrency", "at least 1e-06 requests at once, got 1e-07");
	expect(INF, "{" TOKENS ",\"rate\":5e-324}", "invalid_value", "/rate",
	       "rate: must be at least 1e-06 and at most 1e+06 requests/s, got 4.94065645841247e-324");
	expect(INF, "{" TOKENS ",\"rate\":2,\"concurrency\":1e-300}", "invalid_value", "/concurrency",
	       "at least 1e-06 requests at once");
	expect("/v1/predict/flexibility", "{" TOKENS ",\"concurrency\":5e-324}", "invalid_value", "/concurrency",
	       "at least 1e-06 requests at once");
	expect("/v1/predict/flexibility", "{" TOKENS ",\"rate\":1e-9}", "invalid_value", "/rate", "at least 1e-06");
	expect_batch_item("[{" TOKENS ",\"rate\":5e-324}]", "/0/rate", "at least 1e-06 and at most 1e+06 requests/s");
	expect_batch_item("[{" TOKENS ",\"concurrency\":1e-310}]", "/0/concurrency", "at least 1e-06 requests at once");
	static const char *const at_bound[] = { "{" TOKENS ",\"concurrency\":1e-6}", "{" TOKENS ",\"rate\":1e-6}" };
	for (int i = 0; i < 2; i++) {
		http_reply r;
		http_post_json(h, url(INF), at_bound[i], &r);
		CHECK_INT(r.status, 200);
		json_t *cap = json_object_get(r.json, "capacity");
		CHECK(json_is_number(json_object_get(cap, "energy_per_output_token_j")));
		CHECK(json_is_number(json_object_get(cap, "energy_per_request_j")));
		http_reply_free(&r);
	}
	/* An open loop whose engine limit serves under the least rate was
	 * refused on /rate quoting that internal capacity (5.06e-07), and the
	 * flexibility route answered it: both refuse the limit sent. The
	 * limit is a whole number (the case was a limit of 1e-06, itself now
	 * refused below): one running request of 10^8 + 10^8 tokens on a
	 * 20 B model whose cache holds them. */
	const char *slow = "{\"platform\":\"H100\",\"active_params_b\":20,\"architecture\":{\"layers\":80,"
	                   "\"kv_heads\":1,\"head_dim\":1,\"d_model\":1,\"sliding_window\":1,\"cache_layers\":1},"
	                   "\"input_tokens\":1e8,\"output_tokens\":1e8,\"rate\":1e-6,\"concurrency\":1}";
	expect(INF, slow, "invalid_value", "/concurrency", "concurrency: an engine limit of 1 running requests serves");
	expect("/v1/predict/flexibility", slow, "invalid_value", "/concurrency", "an engine limit of 1 running");
	/* With rate the limit is the engine's (vLLM's max_num_seqs), a whole
	 * number >= 1: 0.5 was answered as half a request running, over
	 * capacity, drawing more than a limit of 1 (docs/http-api.md). */
	static const char *const why = "concurrency: with rate it is the engine's limit on running requests: a "
	                               "whole number >= 1, or leave it out for none, got ";
	char want[256];
	snprintf(want, sizeof want, "%s0.5", why);
	expect(INF, "{" TOKENS ",\"rate\":0.3,\"concurrency\":0.5}", "invalid_value", "/concurrency", want);
	snprintf(want, sizeof want, "%s1e-06", why);
	expect(INF, "{" TOKENS ",\"rate\":20,\"concurrency\":1e-6}", "invalid_value", "/concurrency", want);
	expect("/v1/predict/flexibility", "{" TOKENS ",\"rate\":0.3,\"concurrency\":1.5}", "invalid_value",
	       "/concurrency", "a whole number >= 1, or leave it out for none, got 1.5");
	expect_batch_item("[{" TOKENS ",\"rate\":0.3,\"concurrency\":1.5}]", "/0/concurrency",
	                  "a whole number >= 1, or leave it out for none, got 1.5");
	/* a closed loop's mean count stays fractional; a limit of 2.0 is 2 */
	static const char *const whole[] = { "{" TOKENS ",\"concurrency\":0.5}", "{" TOKENS ",\"rate\":0.3,\"concurrency\":2.0}" };
	for (int i = 0; i < 2; i++) {
		http_reply r;
		http_post_json(h, url(INF), whole[i], &r);
		CHECK_INT(r.status, 200);
		http_reply_free(&r);
	}
	/* A series and a rate are two loads, refused as concurrency with a
	 * series is: the predictor's refusal said rate was missing. */
	const char *two = "{" TOKENS ",\"rate\":1,\"running_series\":[1,2],\"dt_s\":1}";
	expect(INF, two, "conflicting_fields", "/running_series",
	       "running_series: give at most one of rate and running_series");
	/* the sweep takes neither two loads nor the series alone: it says so */
	expect("/v1/predict/flexibility", two, "conflicting_fields", "/running_series",
	       "the sweep takes no series (it needs throughput at one concurrency or rate, which a series has not); "
	       "leave it out and keep rate");
	/* The sweep refuses a series; it asked first for the series' dt_s,
	 * then, given it, refused the series. */
	expect("/v1/predict/flexibility", "{" TOKENS ",\"running_series\":[1,2]}", "invalid_value", "/running_series",
	       "running_series: the sweep needs throughput at one concurrency or rate; a series has neither");
	expect("/v1/predict/flexibility", "{" TOKENS ",\"running_series\":[1,2],\"dt_s\":1}", "invalid_value",
	       "/running_series", "running_series: the sweep needs throughput");
	/* Without a series the sweep's refusals named running_series and
	 * dt_s, which it refuses: they name its loads, concurrency or rate;
	 * inference keeps its words, and a misspelt field is still unknown. */
	expect("/v1/predict/flexibility", "{" TOKENS "}", "missing_field", "/concurrency",
	       "concurrency: required, > 0 (or give rate): the sweep needs throughput");
	expect("/v1/predict/flexibility", "{" TOKENS ",\"concurrency\":4,\"dt_s\":1}", "conflicting_fields", "/dt_s",
	       "dt_s: the step of a running_series, which the sweep does not take; leave it out");
	expect("/v1/predict/flexibility", "{" TOKENS ",\"concurency\":4}", "unknown_field", "/concurency",
	       "unknown field \"concurency\"");
	expect(INF, "{" TOKENS "}", "missing_field", "/concurrency",
	       "concurrency: required (or give running_series with dt_s, or rate)");
	expect_batch_item("[{" TOKENS ",\"rate\":1,\"running_series\":[1,2],\"dt_s\":1}]", "/0/running_series",
	                  "running_series: give at most one of rate and running_series");
	/* A price or intensity so large the hourly figure overflowed was
	 * answered with per_hour null (the schema says number). */
	expect(INF, "{" TOKENS ",\"concurrency\":8,\"price_per_kwh\":1e308}", "invalid_value", "/price_per_kwh",
	       "price_per_kwh: must be from 0 to 1e+06 per kWh, got 1e+308");
	expect(INF, "{" TOKENS ",\"concurrency\":8,\"grams_co2_per_kwh\":1.7e308}", "invalid_value",
	       "/grams_co2_per_kwh", "grams_co2_per_kwh: must be from 0 to 1e+06 g/kWh");
	/* Just past the bound the value was printed rounded to it ("got
	 * 1e+06"); expect() refuses that text. */
	expect(INF, "{" TOKENS ",\"concurrency\":8,\"price_per_kwh\":1000001}", "invalid_value", "/price_per_kwh",
	       "price_per_kwh: must be from 0 to 1e+06 per kWh, got 1000001");
	expect(INF, "{" TOKENS ",\"concurrency\":8,\"grams_co2_per_kwh\":1000000.5}", "invalid_value",
	       "/grams_co2_per_kwh", "got 1000000.5");
	/* The flexibility route takes both fields (and uses neither): it
	 * accepted any value past the bound, which the other routes refuse. */
	expect("/v1/predict/flexibility", "{" TOKENS ",\"concurrency\":8,\"steps\":3,\"price_per_kwh\":2e6}",
	       "invalid_value", "/price_per_kwh", "price_per_kwh: must be from 0 to 1e+06 per kWh, got 2000000");
	expect("/v1/predict/flexibility", "{" TOKENS ",\"concurrency\":8,\"steps\":3,\"grams_co2_per_kwh\":1e300}",
	       "invalid_value", "/grams_co2_per_kwh", "grams_co2_per_kwh: must be from 0 to 1e+06 g/kWh, got 1e+300");
#undef TOKENS
}

/* A load has one range whatever fields come with it (models/limits.h):
 * without token lengths a concurrency of 1e300 was answered 200 with a
 * power and only a calibrated-span warning, as were a series' samples;
 * a power cap past any board was answered with a warning. */
static void
test_one_load_range(void)
{
#define Q8 "\"platform\":\"H100\",\"tp\":1,\"model\":\"Qwen3-8B\""
	expect(INF, "{" Q8 ",\"concurrency\":1e300}", "invalid_value", "/concurrency",
	       "concurrency: must be at most 1e+06 requests at once, got 1e+300");
	expect(INF, "{" Q8 ",\"concurrency\":1000001}", "invalid_value", "/concurrency",
	       "concurrency: must be at most 1e+06 requests at once, got 1000001");
	expect("/v1/predict/flexibility", "{" Q8 ",\"concurrency\":1e300,\"input_tokens\":10,\"output_tokens\":10}",
	       "invalid_value", "/concurrency", "must be at most 1e+06 requests at once, got 1e+300");
	expect_batch_item("[{" Q8 ",\"concurrency\":1e300}]", "/0/concurrency",
	                  "concurrency: must be at most 1e+06 requests at once, got 1e+300");
	expect(INF, "{" Q8 ",\"running_series\":[8,1e300,3],\"dt_s\":1}", "invalid_value", "/running_series/1",
	       "running_series/1: must be at most 1e+06 requests at once, got 1e+300");
	expect(INF, "{" Q8 ",\"running_series\":[8,1000001],\"dt_s\":1}", "invalid_value", "/running_series/1",
	       "got 1000001");
	expect("/v1/calibrate", "{\"runs\":[{\"platform\":\"H100\",\"tp\":1,\"model\":\"Qwen3-8B\",\"running_series\":[8,1e300],"
	                        "\"dt_s\":1,\"mean_power_w\":400}]}",
	       "invalid_value", "/runs/0/running_series/1", "runs/0/running_series/1: must be at most 1e+06 requests");
	expect(INF, "{" Q8 ",\"concurrency\":8,\"power_cap_w\":1e300}", "invalid_value", "/power_cap_w",
	       "power_cap_w: must be at most 5000 W per GPU (above any GPU board), got 1e+300");
	expect(INF, "{" Q8 ",\"concurrency\":8,\"power_cap_w\":5000.5}", "invalid_value", "/power_cap_w",
	       "got 5000.5");
	/* at the bounds: answered (a cap above the board's limit with the
	 * warning that it cannot bind, docs/capacity.md) */
	static const char *const ok[] = { "{" Q8 ",\"concurrency\":1e6}", "{" Q8 ",\"running_series\":[8,1e6],\"dt_s\":1}",
	                                  "{" Q8 ",\"concurrency\":8,\"power_cap_w\":5000}" };
	for (int i = 0; i < 3; i++) {
		http_reply r;
		http_post_json(h, url(INF), ok[i], &r);
		CHECK_INT(r.status, 200);
		if (r.status != 200)
			fprintf(stderr, "  case: %s -> %s\n", ok[i], r.body ? r.body : "");
		http_reply_free(&r);
	}
#undef Q8
}

/* Other values printed with %g lost the digits that made them wrong. */
static void
test_values_printed_whole(void)
{
	expect(INF, "{\"platform\":\"H100\",\"tp\":1,\"model\":\"Qwen3-8B\",\"concurrency\":8,"
	            "\"architecture\":{\"layers\":1000001}}",
	       "invalid_value", "/architecture/layers", "must be between 1 and 1000000, got 1000001");
	expect(INF, "{\"platform\":\"H100\",\"tp\":4096.0000001,\"model\":\"Qwen3-8B\",\"concurrency\":8}",
	       "wrong_type", "/tp", "tp: expected an integer, got 4096.0000001");
	expect(INF, "{\"platform\":\"H100\",\"tp\":1,\"model\":\"Qwen3-8B\",\"concurrency\":8,\"sm_clock_mhz\":1980.0001}",
	       "invalid_value", "/sm_clock_mhz", "sm_clock_mhz: 1980.0001 MHz is outside");
}

/* An envelope's fixed token length past its maximum (1e7) said "must be a
 * number of tokens >= 1"; it names both bounds, as the array form does. */
static void
test_envelope_lengths(void)
{
#define ENV "/v1/forecast/envelope"
#define CFG "\"platform\":\"H100\",\"tp\":1,\"model\":\"Qwen3-8B\""
	expect(ENV, "{" CFG ",\"workload\":{\"type\":\"poisson\",\"rate\":4,\"input_tokens\":2e7}}", "invalid_value",
	       "/workload/input_tokens", "workload/input_tokens: must be a number of tokens between 1 and 1e+07, got 20000000");
	expect(ENV, "{" CFG ",\"workload\":{\"type\":\"poisson\",\"rate\":4,\"output_tokens\":10000001}}",
	       "invalid_value", "/workload/output_tokens", "between 1 and 1e+07, got 10000001");
	expect(ENV, "{" CFG ",\"workload\":{\"type\":\"poisson\",\"rate\":4,\"output_tokens\":0.5}}",
	       "invalid_value", "/workload/output_tokens", "between 1 and 1e+07, got 0.5");
	expect(ENV, "{" CFG ",\"workload\":{\"type\":\"poisson\",\"rate\":4,\"input_tokens\":[2e7]}}",
	       "invalid_value", "/workload/input_tokens/0", "must be between 1 and 1e+07");
	/* an n(t) and a balancer: the envelope's field is fleet.mode (it
	 * named /fleet_mode, a field of the plan route only), and the plan
	 * says so before any work bound (it said 413 on /max_fleet first) */
	expect(ENV, "{" CFG ",\"workload\":{\"type\":\"n_series\",\"running_series\":[1,5,9,3],\"dt_s\":0.25},"
	       "\"fleet\":{\"size\":3,\"mode\":\"round_robin\"}}", "invalid_value", "/fleet/mode",
	       "fleet/mode: an explicit n(t) cannot be split by a balancer");
	expect("/v1/plan/budget", "{" CFG ",\"workload\":{\"type\":\"n_series\",\"running_series\":[1,5,9,3],"
	       "\"dt_s\":0.25},\"budget_w\":20000,\"fleet_mode\":\"least_loaded\"}", "invalid_value", "/fleet_mode",
	       "fleet_mode: an explicit n(t) cannot be split by a balancer");
	/* an unknown mode is quoted, as every other enum's refusal (it was not) */
	expect(ENV, "{" CFG ",\"workload\":{\"type\":\"poisson\",\"rate\":4},\"fleet\":{\"size\":2,\"mode\":\"bogus\"}}",
	       "invalid_value", "/fleet/mode",
	       "fleet/mode: expected \"independent\", \"round_robin\" or \"least_loaded\", got \"bogus\"");
	expect("/v1/plan/budget", "{" CFG ",\"workload\":{\"type\":\"poisson\",\"rate\":4},\"budget_w\":20000,"
	       "\"fleet_mode\":\"rr\"}", "invalid_value", "/fleet_mode", "least_loaded\", got \"rr\"");
	/* a replayed request with 0 output tokens ended at its prefill: replayed
	 * as that, as the CLI does (it was 422 on HTTP alone) */
	http_reply rr;
	http_post_json(h, url(ENV), "{" CFG ",\"workload\":{\"type\":\"replay\",\"arrivals\":{\"t_s\":[0,1,2],"
	               "\"input_tokens\":[500,400,300],\"output_tokens\":[100,0,50]}},\"horizon_s\":10,\"replicas\":1}", &rr);
	CHECK_INT(rr.status, 200);
	http_reply_free(&rr);
	/* a horizon off the 0.05 s grid ran at another length than echoed */
	expect(ENV, "{" CFG ",\"workload\":{\"type\":\"poisson\",\"rate\":1},\"horizon_s\":10.03}", "invalid_value",
	       "/horizon_s", "horizon_s: must be a multiple of 0.05 s");
#undef CFG
#undef ENV
}

/* A d_model of 0 over a catalog model erased its hidden size, and a
 * prompt was then refused as missing it (422 missing_field), or without
 * one answered with the 0 unsaid; it is out of the range the CLI's
 * --d-model takes, 1 to 10^6, as layers, kv_heads and head_dim of 0 are. */
static void
test_zero_facts(void)
{
#define Q14 "{\"platform\":\"H100\",\"model\":\"Qwen3-14B\",\"concurrency\":4,"
	static const char *const tails[] = { "\"input_tokens\":32000,\"output_tokens\":300,", "" };
	static const char *const facts[] = { "d_model", "layers", "kv_heads", "head_dim" };
	for (int t = 0; t < 2; t++)
		for (int f = 0; f < 4; f++) {
			char body[256], field[64], msg[96];
			snprintf(body, sizeof body, Q14 "%s\"architecture\":{\"%s\":0}}", tails[t], facts[f]);
			snprintf(field, sizeof field, "/architecture/%s", facts[f]);
			snprintf(msg, sizeof msg, "architecture/%s: must be between 1 and 1000000, got 0", facts[f]);
			expect(INF, body, "invalid_value", field, msg);
			expect("/v1/predict/flexibility", body, "invalid_value", field, msg);
		}
	expect_batch_item("[" Q14 "\"architecture\":{\"d_model\":0}}]", "/0/architecture/d_model",
	                  "must be between 1 and 1000000, got 0");
	/* the other facts take 0: no experts, every layer full, no window */
	http_reply r;
	http_post_json(h, url(INF), Q14 "\"architecture\":{\"experts\":0,\"cache_layers\":0,\"sliding_window\":0}}", &r);
	CHECK_INT(r.status, 200);
	http_reply_free(&r);
#undef Q14
}

int
main(void)
{
	wc_params params = WC_PARAMS_INIT;
	wc_server *srv = NULL;
	wc_error err;

	curl_global_init(CURL_GLOBAL_DEFAULT);
	h = curl_easy_init();
	CHECK_INT(wc_params_profile("measured", &params, &err), WC_OK);
	if (!(srv = http_server_start(&params, "profile:measured", 4)))
		return check_report("test_server_errors_input");
	test_model_size();
	test_capacity_limits();
	test_values_printed_whole();
	test_zero_facts();
	test_least_load();
	test_one_load_range();
	test_envelope_lengths();
	wc_server_stop(srv);
	wc_params_clear(&params);
	curl_easy_cleanup(h);
	curl_global_cleanup();
	return check_report("test_server_errors_input");
}
