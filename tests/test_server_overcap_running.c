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
 * end, 616]; 5 requests/s, clearly under capacity, rate x latency at both
 * ends, each end latency's answer for an engine that much faster or slower
 * (test_engine_ends). Measured profile (it has held-out errors).
 */
#include "data/params_file.h"
#include "models/interval.h"
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
	snprintf(body, sizeof body, "{\"platform\":\"H100\",\"tp\":1,\"model\":\"Qwen3-8B\",\"rate\":%.17g,"
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
test_ends(double f_lo)
{
	static const double rates[] = { 200, 50, 30, 5 };
	for (int i = 0; i < 4; i++) {
		json_t *a = answer_at(rates[i]);
		const json_t *cap = json_object_get(a, "capacity"), *iv = json_object_get(cap, "interval_95");
		const double n = json_number_value(json_object_get(a, "mean_running"));
		const double capacity = json_number_value(json_object_get(cap, "capacity_rate"));
		const char *why = json_string_value(json_object_get(json_object_get(iv, "covers_by_quantity"),
		                                                    "mean_running"));
		const double lat_lo = end_of(iv, "latency_s", 0), lat_hi = end_of(iv, "latency_s", 1);
		CHECK(lat_lo > 0 && lat_hi > lat_lo);
		/* the capacity of the fast end's engine, f_lo times the point's
		 * step times (test_engine_ends) */
		const double fast = capacity / f_lo;
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
		} else { /* 5: rate x latency at both ends */
			CHECK(json_is_false(json_object_get(cap, "over_capacity")));
			CHECK_NEAR(end_of(iv, "mean_running", 0), rates[i] * lat_lo, 1e-6 * n);
			CHECK_NEAR(end_of(iv, "mean_running", 1), rates[i] * lat_hi, 1e-6 * n);
			CHECK(end_of(iv, "mean_running", 1) < 616);
		}
		json_decref(a);
	}
}

/* Each end of an open loop's latency and running-count intervals is the
 * model's own answer for an engine f times the point's step times, f =
 * exp(q) of latency's held-out quantiles: at rate r that engine is the
 * point's at rate r f with every time f times, so its count is the answer
 * at r f and its latency f times that answer's (docs/intervals.md, "Where
 * it applies"). At 30 requests/s (over the point's capacity of 27.3, under
 * the fast end's 48.2) the fast end gave 383.6 running and 12.79 s (Little's
 * law on the saturated latency scaled by f) where the model answers 79.23
 * and f x 4.662 = 2.64 s; below capacity the ends were the point's latency
 * scaled (5 requests/s: 1.373-4.276 s, 6.864-21.38 running) where the
 * faster engine runs fewer requests and the slower more (1.263-5.049 s,
 * 6.316-25.25). A slow end over capacity serves fewer tokens than arrive,
 * so throughput has an interval there (16.997/s: 3959-4351 tokens/s). */
static void
test_engine_ends(const wc_params *measured)
{
	const wc_pe_stratum *s = wc_pe_find(&measured->quantity_error[WC_PEQ_LATENCY], "H100", "");
	CHECK(s != NULL);
	if (!s)
		return;
	wc_pe_stratum st;
	wc_pe_transfer_stratum(&measured->quantity_error[WC_PEQ_LATENCY], s, &st);
	const double f[2] = { exp(st.q_lo), exp(st.q_hi) };
	static const double rates[] = { 5, 16.997, 20, 30, 200 };
	for (int i = 0; i < 5; i++) {
		json_t *a = answer_at(rates[i]);
		const json_t *cap = json_object_get(a, "capacity"), *iv = json_object_get(cap, "interval_95");
		const double capacity = json_number_value(json_object_get(cap, "capacity_rate"));
		const double thr = json_number_value(json_object_get(cap, "throughput_tok_s"));
		double thr_end[2];
		for (int e = 0; e < 2; e++) {
			/* the point's engine at rate x f */
			json_t *b = answer_at(rates[i] * f[e]);
			const json_t *bc = json_object_get(b, "capacity");
			const double n_e = json_number_value(json_object_get(b, "mean_running"));
			const double lat_e = f[e] * json_number_value(json_object_get(bc, "latency_s"));
			const int over_e = rates[i] * f[e] >= capacity;
			thr_end[e] = over_e ? json_number_value(json_object_get(bc, "throughput_tok_s")) / f[e]
			                    : rates[i] * 256;
			printf("rate %g, end %d (f %.4g): running %.6g, latency %.6g s, throughput %.6g\n", rates[i], e, f[e],
			       n_e, lat_e, thr_end[e]);
			CHECK_NEAR(end_of(iv, "latency_s", e), lat_e, 1e-6 * lat_e);
			if (json_is_null(json_object_get(iv, "mean_running")))
				CHECK(over_e && n_e > 615.5);
			else
				CHECK_NEAR(end_of(iv, "mean_running", e), n_e, 1e-6 * n_e);
			json_decref(b);
		}
		/* throughput: the fast end's tokens at its high end, the slow
		 * end's at its low end; null where both serve every arrival */
		if (thr_end[0] == rates[i] * 256 && thr_end[1] == rates[i] * 256) {
			CHECK(json_is_null(json_object_get(iv, "throughput_tok_s")));
		} else {
			CHECK_NEAR(end_of(iv, "throughput_tok_s", 0), fmin(thr_end[1], thr), 1e-6 * thr);
			CHECK_NEAR(end_of(iv, "throughput_tok_s", 1), fmax(thr_end[0], thr), 1e-6 * thr);
		}
		json_decref(a);
	}
	/* the brief's numbers: 30/s runs at the fast end what 17/s runs
	 * (79.23 and 2.641 s on the measured profile before its 2026-12-06
	 * regeneration; 78.85 and 2.628 s until 2026-12-07, when a request
	 * was taken to meet the mean count, not 1 + it; 80.12 and 2.671 s
	 * until the profile's refit with tau_ep, 2026-12-07) */
	json_t *a = answer_at(30);
	const json_t *iv = json_object_get(json_object_get(a, "capacity"), "interval_95");
	CHECK_NEAR(end_of(iv, "mean_running", 0), 87.32, 0.05);
	CHECK_NEAR(end_of(iv, "latency_s", 0), 2.911, 0.005);
	json_decref(a);
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
	const wc_pe_stratum *s = wc_pe_find(&measured.quantity_error[WC_PEQ_LATENCY], "H100", "");
	CHECK(s != NULL);
	if (s) {
		test_ends(exp(s->q_lo));
		test_engine_ends(&measured);
	}
	wc_server_stop(srv);
	curl_easy_cleanup(h);
	curl_global_cleanup();
	wc_params_clear(&measured);
	return check_report("test_server_overcap_running");
}
