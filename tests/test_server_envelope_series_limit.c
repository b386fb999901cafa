/*
 * An n(t) whose law is over the board's limit says so, as every other
 * workload does (docs/envelopes.md, "Board limit"): A100 Qwen3-32B
 * (`measured` profile) at 59 running, where the law draws 468.3 W per GPU
 * (457.1 W until A100's idle was the real runs', 2026-12-07) on a 400 W
 * board. The envelope held it at 399.97 W and said only that
 * the series ran past the window; the budget plan of 10 such servers
 * (4000 W) said only that they ran in lockstep; the routes alike. Now the
 * envelope, the plan and both routes give the warning the closed loop
 * gives, by the one rule (wc__envelope_limit_note). An n(t) under the
 * limit is not warned of.
 */
#include "data/params_file.h"
#include "predict/envelope.h"
#include "predict/envelope_budget.h"
#include "server/server.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static CURL *h;
static wc_params measured;

#define LIMIT_WORDS "above the 400 W board limit: power is held there"

/* how many of `n` warnings say the law at `mean` running is over the limit */
static int
limit_said(char warnings[][WC_WARNING_LEN], int n, const char *mean)
{
	int said = 0;
	for (int i = 0; i < n; i++)
		said += strncmp(warnings[i], "platform: the law draws ", 24) == 0 && strstr(warnings[i], mean) &&
		        strstr(warnings[i], LIMIT_WORDS) && strlen(warnings[i]) <= 255;
	return said;
}

/* an n(t) of `running` on `tp` x A100 serving `model` for 600 s; its
 * envelope's and 4000 W plan's board-limit warnings */
static void
series_said(const char *model, int tp, double running, const char *mean, int expect)
{
	wc_config c = test_catalog_config("A100", tp, model, 0);
	wc_power_map_law store;
	wc_power_map pm;
	wc_error err;
	CHECK_INT(wc_power_map_from_law(&measured, &c, NULL, &store, &pm, &err), WC_OK);
	wc_envelope_workload w;
	wc_envelope_workload_init(&w);
	w.kind = WC_ENVELOPE_SERIES;
	w.series_len = 1;
	w.series_running = &running;
	w.series_dt_s = 600;
	wc_envelope_options o;
	wc_envelope_options_init(&o);
	o.horizon_s = 600;
	o.replicas = 1;
	wc_envelope_result r;
	CHECK_INT(wc_envelope_run(&w, NULL, &pm, &o, &r, &err), WC_OK);
	CHECK(r.server.mean_w.value <= 400.0 * tp + 1e-9);
	CHECK_INT(limit_said(r.warnings, r.n_warnings, mean), expect);
	if (limit_said(r.warnings, r.n_warnings, mean) != expect)
		for (int i = 0; i < r.n_warnings; i++)
			fprintf(stderr, "%s %d x A100 n = %g: %s\n", model, tp, running, r.warnings[i]);
	wc_envelope_result_clear(&r);
	wc_budget_options bo = { 4000.0, WC_BUDGET_P95, 16, 1.0 };
	wc_budget_plan plan;
	CHECK_INT(wc_envelope_budget(&w, NULL, &pm, &o, &bo, &plan, &err), WC_OK);
	CHECK_INT(limit_said(plan.warnings, plan.n_warnings, mean), expect);
}

static void
test_library(void)
{
	series_said("Qwen3-32B", 1, 59, "468.3 W per GPU at the mean 59 running", 1);
	series_said("Mixtral-8x7B", 2, 32, "W per GPU at the mean 32 running", 1);
	/* under the limit: nothing said (the law at 2 running is 373.6 W) */
	series_said("Qwen3-32B", 1, 2, "at the mean 2 running", 0);
}

/* the tester's requests */
static void
test_http(void)
{
	static const char *const req[][2] = {
		{ "/v1/forecast/envelope", "{\"platform\":\"A100\",\"model\":\"Qwen3-32B\",\"include_bins\":false,"
		  "\"horizon_s\":600,\"workload\":{\"type\":\"n_series\",\"running_series\":[59],\"dt_s\":600}}" },
		{ "/v1/plan/budget", "{\"platform\":\"A100\",\"model\":\"Qwen3-32B\",\"budget_w\":4000,"
		  "\"horizon_s\":600,\"workload\":{\"type\":\"n_series\",\"running_series\":[59],\"dt_s\":600}}" },
	};
	for (size_t k = 0; k < sizeof req / sizeof req[0]; k++) {
		http_reply r;
		http_post_json(h, url(req[k][0]), req[k][1], &r);
		CHECK_INT(r.status, 200);
		const json_t *ws = json_object_get(r.json, "warnings");
		int said = 0;
		for (size_t i = 0; i < json_array_size(ws); i++) {
			const char *s = json_string_value(json_array_get(ws, i));
			said += s && strncmp(s, "platform: the law draws 468.3 W per GPU at the mean 59 running", 62) == 0 &&
			        strstr(s, LIMIT_WORDS);
		}
		CHECK_INT(said, 1);
		if (said != 1)
			fprintf(stderr, "%s -> %s\n", req[k][0], r.body ? r.body : "");
		http_reply_free(&r);
	}
}

int
main(void)
{
	wc_server *srv = NULL;
	wc_error err;
	gsl_set_error_handler_off();
	CHECK_INT(wc_params_profile("measured", &measured, &err), WC_OK);
	test_library();
	curl_global_init(CURL_GLOBAL_DEFAULT);
	h = curl_easy_init();
	srv = http_server_start(&measured, "profile:measured", 2);
	if (srv) {
		test_http();
		wc_server_stop(srv);
	}
	curl_easy_cleanup(h);
	curl_global_cleanup();
	wc_params_clear(&measured);
	return check_report("test_server_envelope_series_limit");
}
