/*
 * A load below one running request under a power cap is judged on its
 * draw while it serves, one request's, as an open loop's is
 * (docs/capacity.md, "Clocks and power caps"; wc_load_serving_count). A
 * closed loop of 0.5 on H100 Qwen3-8B under 200 W answered "does not
 * bind" at 188.5 W, the duty-cycled mean, while it draws P(1) = 250.7 W
 * whenever it serves; the same load as running_series [0, 1] settled at
 * 1173 MHz and 163.2 W, [0.5, 0.5] did not (188.5 W), and an open loop at
 * 0.2 requests/s (0.42 running) settled at 1173 MHz too. Its interval
 * 128.8-188.5 W ended on the point. Now every form of the load settles at
 * the clock one request settles at, its power that duty cycle of the
 * draw there, inside its interval; in the CLI and over HTTP alike.
 */
#include "data/data.h"
#include "models/profile_measured.h"
#include "predict/predict.h"
#include "server/server.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NEAR(a, b) (fabs((a) - (b)) <= 1e-6 * fabs(b))

/* An answer's numbers: node power, its interval, the clock (NaN free). */
typedef struct {
	double node_w, lo_w, hi_w, idle_w, mhz, range_lo_mhz;
	int met;
} answer;

static answer
answer_of(const json_t *o)
{
	answer a = { NAN, NAN, NAN, NAN, NAN, NAN, -1 };
	const json_t *c = json_object_get(o, "config"), *iv = json_object_get(json_object_get(o, "interval_95"),
	                                                                        "node_power_w");
	a.node_w = json_number_value(json_object_get(o, "node_power_w"));
	a.idle_w = json_number_value(json_object_get(o, "idle_power_w"));
	a.lo_w = json_is_array(iv) ? json_number_value(json_array_get(iv, 0)) : NAN;
	a.hi_w = json_is_array(iv) ? json_number_value(json_array_get(iv, 1)) : NAN;
	const json_t *mhz = json_object_get(c, "sm_clock_mhz"), *range = json_object_get(c, "sm_clock_range_mhz");
	a.mhz = json_is_number(mhz) ? json_number_value(mhz) : NAN;
	a.range_lo_mhz = json_is_array(range) ? json_number_value(json_array_get(range, 0)) : NAN;
	const json_t *met = json_object_get(c, "power_limit_met");
	a.met = json_is_boolean(met) ? json_is_true(met) : -1;
	return a;
}

static answer
post(CURL *h, const char *body)
{
	http_reply r;
	http_post_json(h, url("/v1/predict/inference"), body, &r);
	CHECK_INT(r.status, 200);
	answer a = answer_of(r.json);
	if (r.status != 200)
		fprintf(stderr, "%s\n%s\n", body, r.body ? r.body : "");
	http_reply_free(&r);
	return a;
}

/* `wattcast predict inference` on H100 Qwen3-8B with the extra arguments,
 * --json. */
static answer
cli(const char *load_flag, const char *load, const char *cap, int tokens)
{
	const char *argv[] = { "wattcast", "predict", "inference", "--platform", "H100", "--model", "Qwen3-8B",
		               load_flag, load, "--power-cap", cap, "--json", tokens ? "--input-tokens" : NULL, "512",
		               "--output-tokens", "256", NULL };
	run_result r;
	answer a = { NAN, NAN, NAN, NAN, NAN, NAN, -1 };
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	json_t *o = r.out ? json_loads(r.out, 0, NULL) : NULL;
	CHECK(o != NULL);
	if (o)
		a = answer_of(o);
	else
		fprintf(stderr, "%s\n%s\n", r.out ? r.out : "", r.err ? r.err : "");
	json_decref(o);
	run_result_free(&r);
	return a;
}

/* Inside its interval, not on an end (docs/intervals.md). */
static void
inside(const answer *a, const char *what)
{
	CHECK(a->lo_w < a->node_w && a->node_w < a->hi_w);
	if (!(a->lo_w < a->node_w && a->node_w < a->hi_w))
		fprintf(stderr, "%s: %.6g W in %.6g-%.6g W\n", what, a->node_w, a->lo_w, a->hi_w);
}

static void
http_cases(CURL *h)
{
	const answer free_half = post(h, "{\"platform\":\"H100\",\"model\":\"Qwen3-8B\",\"concurrency\":0.5}");
	const answer one_zero = post(h, "{\"platform\":\"H100\",\"model\":\"Qwen3-8B\",\"running_series\":[0,1],"
	                                "\"dt_s\":1,\"power_cap_w\":200}");
	const answer halves = post(h, "{\"platform\":\"H100\",\"model\":\"Qwen3-8B\",\"running_series\":[0.5,0.5],"
	                              "\"dt_s\":1,\"power_cap_w\":200}");
	const answer closed = post(h, "{\"platform\":\"H100\",\"model\":\"Qwen3-8B\",\"concurrency\":0.5,"
	                              "\"input_tokens\":512,\"output_tokens\":256,\"power_cap_w\":200}");
	fprintf(stderr, "free 0.5: %.2f W; [0,1]: %.2f W from %.1f MHz; [0.5,0.5]: %.2f W at %.1f MHz; closed 0.5: "
	        "%.2f W at %.1f MHz (%.2f-%.2f W)\n", free_half.node_w, one_zero.node_w, one_zero.range_lo_mhz,
	        halves.node_w, halves.mhz, closed.node_w, closed.mhz, closed.lo_w, closed.hi_w);
	/* the cap binds: one request draws more than 200 W while it serves */
	CHECK(free_half.node_w < 200.0 && one_zero.node_w < free_half.node_w);
	CHECK(isfinite(one_zero.range_lo_mhz));
	/* one load, one answer, however it is written */
	CHECK(NEAR(halves.node_w, one_zero.node_w));
	CHECK(NEAR(halves.mhz, one_zero.range_lo_mhz));
	CHECK(NEAR(closed.node_w, one_zero.node_w));
	CHECK(NEAR(closed.mhz, one_zero.range_lo_mhz));
	CHECK_INT(closed.met, 1);
	inside(&closed, "HTTP closed 0.5 under 200 W");
	inside(&halves, "HTTP [0.5,0.5] under 200 W");
	/* the CLI answers it as the server does */
	const answer c = cli("--concurrency", "0.5", "200", 1);
	CHECK(NEAR(c.node_w, closed.node_w) && NEAR(c.mhz, closed.mhz) && NEAR(c.hi_w, closed.hi_w));
	inside(&c, "CLI closed 0.5 under 200 W");
	/* an open loop of 0.2 requests/s (0.42 running) takes the same rule:
	 * the clock one request settles at */
	const answer open = cli("--rate", "0.2", "200", 1);
	CHECK(NEAR(open.mhz, closed.mhz));
	/* under 150 W: the clock of one running under 150 W, and the duty
	 * cycle of its draw there (was 150 W at 754 MHz, met on the mean) */
	const answer half150 = cli("--concurrency", "0.5", "150", 0), one150 = cli("--concurrency", "1", "150", 0);
	CHECK(NEAR(half150.mhz, one150.mhz));
	CHECK(NEAR(half150.node_w, half150.idle_w + 0.5 * (one150.node_w - one150.idle_w)));
	inside(&half150, "CLI closed 0.5 under 150 W");
}

int
main(void)
{
	wc_params p = WC_PARAMS_INIT;
	wc_error err;
	CHECK_INT(wc_params_profile(WC_DEFAULT_PROFILE, &p, &err), WC_OK);
	curl_global_init(CURL_GLOBAL_DEFAULT);
	wc_server *srv = http_server_start(&p, "profile:" WC_DEFAULT_PROFILE, 2);
	if (srv) {
		CURL *h = curl_easy_init();
		http_cases(h);
		curl_easy_cleanup(h);
		wc_server_stop(srv);
	}
	curl_global_cleanup();
	wc_params_clear(&p);
	return check_report("test_server_fractional_cap");
}
