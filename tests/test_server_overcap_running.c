/*
 * An open loop's running count at the ends of latency's interval follows
 * the open-loop rule there (docs/intervals.md, "Where it applies"): at an
 * end whose capacity the rate exceeds it is the n_cap requests the KV
 * cache holds, at one under it rate x that end's latency (Little's law).
 * Over capacity the point is n_cap, and scaling it by latency's error gave
 * H100 Qwen3-8B at 200 requests/s of 512 + 256 the interval [349, 616]
 * ("held-out error of latency"), though even at the fast end of latency's
 * interval capacity is 48.2 requests/s and every latency in it runs 616.
 * Now: 200 and 50 requests/s have no interval (null, with the reason);
 * 30 requests/s, under the fast end's capacity, [30 x latency's lower
 * end, 616]; 5 requests/s, clearly under capacity, as before (the point
 * times latency's error). Measured profile (it has held-out errors).
 */
#include "data/params_file.h"
#include "server/server.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static CURL *h;

static json_t *
answer_at(double rate)
{
	char body[256];
	snprintf(body, sizeof body, "{\"platform\":\"H100\",\"tp\":1,\"model\":\"Qwen3-8B\",\"rate\":%g,"
	         "\"input_tokens\":512,\"output_tokens\":256}", rate);
	http_reply r;
	http_post_json(h, url("/v1/predict/inference"), body, &r);
	CHECK_INT(r.status, 200);
	json_t *o = r.json;
	r.json = NULL;
	http_reply_free(&r);
	return o;
}

static double
end_of(const json_t *iv, const char *k, int i)
{
	return json_number_value(json_array_get(json_object_get(iv, k), (size_t)i));
}

static void
test_ends(void)
{
	static const double rates[] = { 200, 50, 30, 5 };
	for (int i = 0; i < 4; i++) {
		json_t *a = answer_at(rates[i]);
		const json_t *cap = json_object_get(a, "capacity"), *iv = json_object_get(cap, "interval_95");
		const double n = json_number_value(json_object_get(a, "mean_running"));
		const double lat = json_number_value(json_object_get(cap, "latency_s"));
		const double capacity = json_number_value(json_object_get(cap, "capacity_rate"));
		const char *why = json_string_value(json_object_get(json_object_get(iv, "covers_by_quantity"),
		                                                    "mean_running"));
		const double lat_lo = end_of(iv, "latency_s", 0), lat_hi = end_of(iv, "latency_s", 1);
		CHECK(lat_lo > 0 && lat_hi > lat_lo);
		/* the capacity at the fast end of latency's interval */
		const double fast = capacity * lat / lat_lo;
		printf("rate %g: running %g, capacity %g (%g at the fast end), interval %s\n", rates[i], n, capacity,
		       fast, json_is_null(json_object_get(iv, "mean_running")) ? "null" : "given");
		if (rates[i] > fast) { /* 200, 50: n_cap at every latency in the interval */
			CHECK(json_is_true(json_object_get(cap, "over_capacity")));
			CHECK_NEAR(n, 616, 0.5);
			CHECK(json_is_null(json_object_get(iv, "mean_running")));
			CHECK(why && strncmp(why, "none: the rate exceeds the capacity at every latency in latency's "
			                          "interval", 70) == 0);
		} else if (rates[i] > capacity) { /* 30: n_cap at the point, Little's law at the fast end */
			CHECK(json_is_true(json_object_get(cap, "over_capacity")));
			CHECK_NEAR(end_of(iv, "mean_running", 0), rates[i] * lat_lo, 1e-6 * n);
			CHECK_NEAR(end_of(iv, "mean_running", 1), n, 1e-9 * n);
			CHECK(why && strcmp(why, "held-out error of latency") == 0);
		} else { /* 5: rate x latency at both ends, as before */
			CHECK(json_is_false(json_object_get(cap, "over_capacity")));
			CHECK_NEAR(end_of(iv, "mean_running", 0), n * lat_lo / lat, 1e-6 * n);
			CHECK_NEAR(end_of(iv, "mean_running", 1), n * lat_hi / lat, 1e-6 * n);
			CHECK(end_of(iv, "mean_running", 1) < 616);
		}
		json_decref(a);
	}
}

int
main(void)
{
	wc_params measured = WC_PARAMS_INIT;
	wc_server *srv = NULL;
	wc_error err;
	curl_global_init(CURL_GLOBAL_DEFAULT);
	h = curl_easy_init();
	CHECK_INT(wc_params_profile("measured", &measured, &err), WC_OK);
	if (!(srv = http_server_start(&measured, "profile:measured", 2)))
		return check_report("test_server_overcap_running");
	test_ends();
	wc_server_stop(srv);
	curl_easy_cleanup(h);
	curl_global_cleanup();
	wc_params_clear(&measured);
	return check_report("test_server_overcap_running");
}
