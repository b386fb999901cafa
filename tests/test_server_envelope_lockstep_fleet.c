/*
 * An independent fleet of a workload that draws nothing at random runs in
 * lockstep (docs/envelopes.md, "Lockstep fleets"): every server is server
 * 0, so the fleet is K times it. It was simulated and charged server by
 * server: a closed loop of 8 over 600 s in a fleet of 1700 was 413
 * simulation_too_large on /fleet/size ("lower the replicas or the fleet")
 * while the budget plan of the same servers answered from one; the time
 * grew with K. Now one server is simulated and charged, the fleet is K
 * times its trace, and a refusal names only what changes the work.
 *
 * A replayed log a balancer splits is the fleet's load, not each server's
 * (a Poisson rate is per server, carried K times): the answers said
 * nothing of it, so a round-robin plan of 8 servers for a log that a
 * lockstep plan gave 5 read as the same per-server workload. Every such
 * envelope and plan now says it (docs/envelopes.md, "Fleets").
 */
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
static wc_params paper;

#define CFG "\"platform\":\"H100\",\"model\":\"Qwen3-8B\""

/* relative closeness: K x one server's numbers, up to the last bits of
 * a sum taken in another order */
static int
near_rel(double a, double b)
{
	return fabs(a - b) <= 1e-12 * fmax(fabs(a), fabs(b)) || a == b;
}

static void
test_library(void)
{
	wc_config c = WC_CONFIG_INIT;
	wc_capacity_service_store rs;
	wc_service_times st;
	wc_power_map_law store;
	wc_power_map pm;
	wc_error err;
	c.platform = "H100";
	c.tp = 1;
	c.arch = wc_model_lookup("Qwen3-8B");
	c.active_params_b = c.arch->active_params_b;
	CHECK_INT(wc_roofline_standin_init(&rs, &c, &err), WC_OK);
	wc_roofline_standin_service(&rs, &st);
	CHECK_INT(wc_power_map_from_law(&paper, &c, NULL, &store, &pm, &err), WC_OK);

	wc_envelope_workload w; /* a closed loop of 8, fixed lengths */
	wc_envelope_workload_init(&w);
	w.concurrency = 8;
	wc_envelope_options o;
	wc_envelope_options_init(&o);
	o.horizon_s = 60;
	o.fleet_size = 4;
	CHECK(wc_envelope_fleet_lockstep(&w, o.fleet_mode));
	wc_envelope_result r;
	CHECK_INT(wc_envelope_run_once_if_fixed(&w, &st, &pm, &o, &r, &err), WC_OK);
	/* the fleet of 4 is 4 x server 0, bin by bin and in every metric */
	CHECK(near_rel(r.fleet.mean_w.value, 4 * r.server.mean_w.value));
	CHECK(near_rel(r.fleet.p95_w.value, 4 * r.server.p95_w.value));
	CHECK(near_rel(r.fleet.energy_j.value, 4 * r.server.energy_j.value));
	CHECK(r.fleet.output_tokens.value == 4 * r.server.output_tokens.value);
	CHECK(near_rel(r.fleet.mean_running.value, 4 * r.server.mean_running.value));
	CHECK_INT((int)r.fleet_band.n_bins, (int)r.server_band.n_bins);
	int bins_ok = 1;
	for (size_t b = 0; b < r.fleet_band.n_bins; b++)
		bins_ok &= near_rel(r.fleet_band.mean_w[b], 4 * r.server_band.mean_w[b]);
	CHECK(bins_ok);
	wc_envelope_result_clear(&r);

	/* one server run charged, whatever K: the tester's 600 s x 1700 is
	 * 12 000 bins (it was 2.04e7, over the server's 2e7) */
	o.horizon_s = 600;
	o.fleet_size = 1700;
	CHECK_INT(wc_envelope_work_check(&w, &o, &st, NULL, &pm, 2e7, 1e12, NULL, &err), WC_OK);
	/* a balancer's servers differ and are still charged each */
	o.fleet_mode = WC_FLEET_ROUND_ROBIN;
	CHECK_INT(wc_envelope_work_check(&w, &o, &st, NULL, &pm, 2e7, 1e12, NULL, &err), WC_EINVAL);
	CHECK_CONTAINS(err.msg, "lower the fleet");
	CHECK(!strstr(err.msg, "replicas")); /* drawing nothing, one replica */
	/* beyond the bound only the horizon helps a lockstep fleet: its
	 * refusal names it, not the replicas or the fleet */
	o.fleet_mode = WC_FLEET_INDEPENDENT;
	o.horizon_s = 2e6;
	o.replicas = 20;
	CHECK_INT(wc_envelope_work_check(&w, &o, &st, NULL, &pm, 2e7, 1e12, NULL, &err), WC_EINVAL);
	CHECK(strncmp(err.msg, "horizon_s:", 10) == 0);
	CHECK(!strstr(err.msg, "replicas") && !strstr(err.msg, "fleet"));
	CHECK(strlen(err.msg) <= 255);
}

/* how many of `n` warnings say one log is shared by `who` */
static int
shared_said(char warnings[][WC_WARNING_LEN], int n, const char *who)
{
	int said = 0;
	for (int i = 0; i < n; i++)
		said += strncmp(warnings[i], "replay: one log is shared by ", 29) == 0 && strstr(warnings[i], who) &&
		        strstr(warnings[i], "the workload is fleet-wide, not per server") && strlen(warnings[i]) <= 255;
	return said;
}

static void
test_shared_replay(void)
{
	wc_config c = test_catalog_config("H100", 1, "Qwen3-8B", 0);
	wc_capacity_service_store rs;
	wc_service_times st;
	wc_power_map_law store;
	wc_power_map pm;
	wc_error err;
	CHECK_INT(wc_roofline_standin_init(&rs, &c, &err), WC_OK);
	wc_roofline_standin_service(&rs, &st);
	CHECK_INT(wc_power_map_from_law(&paper, &c, NULL, &store, &pm, &err), WC_OK);
	static const double t[] = { 0, 0.5, 1, 2, 3, 5, 8, 13, 21, 34 };
	wc_envelope_workload w;
	wc_envelope_workload_init(&w);
	w.kind = WC_ENVELOPE_REPLAY;
	w.n_arrivals = sizeof t / sizeof t[0];
	w.arrival_s = t;
	wc_envelope_options o;
	wc_envelope_options_init(&o);
	o.horizon_s = 60;
	o.fleet_size = 4;
	wc_envelope_result r;
	wc_budget_options bo = { 2000.0, WC_BUDGET_P95, 16, 1.0 };
	wc_budget_plan plan;
	static const char *const who[] = { "the 4 servers (independent)", "the 4 servers (round_robin)",
		                           "the 4 servers (least_loaded)" };
	for (int m = 0; m < WC_FLEET_MODE_COUNT; m++) {
		o.fleet_mode = (wc_fleet_mode)m;
		const int expect = m != WC_FLEET_INDEPENDENT; /* a lockstep fleet replays it all on each */
		CHECK_INT(wc_envelope_run_once_if_fixed(&w, &st, &pm, &o, &r, &err), WC_OK);
		CHECK_INT(shared_said(r.warnings, r.n_warnings, who[m]), expect);
		wc_envelope_result_clear(&r);
		wc_envelope_options one = o;
		one.fleet_size = 1;
		CHECK_INT(wc_envelope_budget(&w, &st, &pm, &one, &bo, &plan, &err), WC_OK);
		CHECK_INT(shared_said(plan.warnings, plan.n_warnings, "the plan's servers"), expect);
	}
	/* a Poisson rate is per server, shared or not: nothing said */
	wc_envelope_workload_init(&w);
	w.kind = WC_ENVELOPE_POISSON;
	w.rate = 1;
	o.fleet_mode = WC_FLEET_ROUND_ROBIN;
	CHECK_INT(wc_envelope_run(&w, &st, &pm, &o, &r, &err), WC_OK);
	CHECK_INT(shared_said(r.warnings, r.n_warnings, "servers"), 0);
	wc_envelope_result_clear(&r);
}

/* The tester's requests: the envelope answers the fleet the plan answers. */
static void
test_http(void)
{
	http_reply r;
	http_post_json(h, url("/v1/forecast/envelope"), "{" CFG ",\"horizon_s\":600,\"include_bins\":false,"
	               "\"fleet\":{\"size\":1700},\"workload\":{\"type\":\"closed\",\"concurrency\":8}}", &r);
	CHECK_INT(r.status, 200);
	if (r.status != 200)
		fprintf(stderr, "-> %s\n", r.body ? r.body : "");
	double fleet_mean = NAN, server_mean = NAN;
	if (r.status == 200) {
		json_t *f = json_object_get(json_object_get(json_object_get(r.json, "fleet"), "summary"), "mean_w");
		json_t *s = json_object_get(json_object_get(json_object_get(r.json, "server"), "summary"), "mean_w");
		fleet_mean = json_number_value(json_object_get(f, "value"));
		server_mean = json_number_value(json_object_get(s, "value"));
	}
	CHECK(fabs(fleet_mean - 1700 * server_mean) <= 1e-6 * fleet_mean);
	http_reply_free(&r);
	/* beyond the requests bound by the clients and the horizon alone:
	 * named so, neither the replicas nor the fleet */
	http_post_json(h, url("/v1/forecast/envelope"), "{" CFG ",\"horizon_s\":86400,\"include_bins\":false,"
	               "\"fleet\":{\"size\":1700},\"workload\":{\"type\":\"closed\",\"concurrency\":256,"
	               "\"input_tokens\":16,\"output_tokens\":1}}", &r);
	CHECK_INT(r.status, 413);
	CHECK_CONTAINS(r.body, "lower the clients or the horizon");
	CHECK(r.body && !strstr(r.body, "replicas") && !strstr(r.body, "the fleet"));
	if (r.status != 413 || (r.body && strstr(r.body, "replicas")))
		fprintf(stderr, "-> %s\n", r.body ? r.body : "");
	http_reply_free(&r);
	/* a replay split by a balancer: said by the envelope and the plan */
#define REPLAY "\"workload\":{\"type\":\"replay\",\"arrivals\":{\"t_s\":[0,1,2,3,5,8,13]}}"
	http_post_json(h, url("/v1/forecast/envelope"), "{" CFG ",\"horizon_s\":60,\"include_bins\":false,"
	               "\"fleet\":{\"size\":3,\"mode\":\"round_robin\"}," REPLAY "}", &r);
	CHECK_INT(r.status, 200);
	CHECK_CONTAINS(r.body, "replay: one log is shared by the 3 servers (round_robin): the workload is fleet-wide");
	http_reply_free(&r);
	http_post_json(h, url("/v1/plan/budget"), "{" CFG ",\"horizon_s\":60,\"budget_w\":2000,"
	               "\"fleet_mode\":\"least_loaded\"," REPLAY "}", &r);
	CHECK_INT(r.status, 200);
	CHECK_CONTAINS(r.body, "replay: one log is shared by the plan's servers (least_loaded): the workload is "
	               "fleet-wide");
	http_reply_free(&r);
}

int
main(void)
{
	wc_server *srv = NULL;
	gsl_set_error_handler_off();
	wc_params_default(&paper);
	test_library();
	test_shared_replay();
	curl_global_init(CURL_GLOBAL_DEFAULT);
	h = curl_easy_init();
	srv = http_server_start(&paper, "profile:paper", 2);
	if (srv) {
		test_http();
		wc_server_stop(srv);
	}
	curl_easy_cleanup(h);
	curl_global_cleanup();
	wc_params_clear(&paper);
	return check_report("test_server_envelope_lockstep_fleet");
}
