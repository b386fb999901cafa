/*
 * An envelope's and a plan's `response` carries the dynamic scale its
 * power map keeps (docs/envelopes.md, "Power"; docs/http-api.md): the
 * CLI's text said "dynamic scale 0.877 (fitted)" where the JSON, the
 * CLI's --json and HTTP's alike (one renderer), had only tau_s, hold_s,
 * decay_s, prefill_ratio and source. A set without a fitted response
 * says 1.
 */
#include "models/response.h"
#include "server/server.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

#include <gsl/gsl_errno.h>
#include <math.h>
#include <string.h>

static CURL *h;

#define CFG "\"platform\":\"A100\",\"model\":\"Qwen3-8B\""

/* The answer's response.dynamic_scale (NaN when absent). */
static double
scale_of(const char *path, const char *tail)
{
	char body[512];
	snprintf(body, sizeof body, "{" CFG ",%s}", tail);
	http_reply r;
	http_post_json(h, url(path), body, &r);
	CHECK_INT(r.status, 200);
	const double s = http_json_num(json_object_get(r.json, "response"), "dynamic_scale");
	if (!isfinite(s))
		fprintf(stderr, "  %s -> %.300s\n", body, r.body ? r.body : "");
	http_reply_free(&r);
	return s;
}

static void
check_scale(double want)
{
	const char *env = "\"workload\":{\"type\":\"poisson\",\"rate\":4},\"horizon_s\":10,\"replicas\":1,"
	                  "\"include_bins\":false";
	const char *plan = "\"workload\":{\"type\":\"poisson\",\"rate\":1},\"horizon_s\":10,\"budget_w\":1000";
	CHECK(fabs(scale_of("/v1/forecast/envelope", env) - want) < 1e-12);
	CHECK(fabs(scale_of("/v1/plan/budget", plan) - want) < 1e-12);
}

int
main(void)
{
	wc_params p;
	gsl_set_error_handler_off();
	curl_global_init(CURL_GLOBAL_DEFAULT);
	h = curl_easy_init();
	wc_params_default(&p);
	wc_server *srv = http_server_start(&p, "profile:measured", 2);
	if (srv) { /* no fitted response: the law's dynamic power whole */
		check_scale(1.0);
		wc_server_stop(srv);
	}
	/* a fitted response, as `fit response` stores it */
	wc_response_assumed(&p.response);
	p.response.fitted = 1;
	p.response.dynamic_scale = (wc_response_value){ 0.877, NAN, NAN };
	srv = http_server_start(&p, "fitted", 2);
	if (srv) {
		check_scale(0.877);
		wc_server_stop(srv);
	}
	wc_params_clear(&p);
	curl_easy_cleanup(h);
	curl_global_cleanup();
	return check_report("test_server_envelope_response_scale");
}
