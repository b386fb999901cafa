/*
 * Every workload that draws nothing at random -- a replay whose lengths
 * are all known or filled by a fixed one, an n(t), a closed loop of fixed
 * lengths (predict/envelope_once.c; docs/envelopes.md, "Lockstep fleets")
 * -- is simulated once and charged once, by the library, the CLI and
 * POST /v1/forecast/envelope alike, and a budget plan of its lockstep
 * servers simulates one of them (docs/envelopes.md, "Budget plans").
 * Only the replay was: an n(t) of 86 400 s x 20 replicas and a closed loop
 * of 8 fixed clients were 413 on /replicas ("lower the replicas", which
 * changed nothing), `envelope --n-series --fleet 4 --replicas 3 --json`
 * answered replicas 3 with no spread, and a lockstep plan of a fixed
 * replay simulated 16 identical servers.
 */
#include "predict/envelope.h"
#include "predict/envelope_budget.h"
#include "server/server.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/envelope_setup.h"
#include "tests/support/support.h"

#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static CURL *h;
static wc_params paper;

#define CFG "\"platform\":\"A100\",\"model\":\"Qwen3-8B\""

/* `w` (drawing nothing or not, `fixed`) run once with its replicas asked,
 * in a fleet of 4, and charged so by the work bound. */
static void
check_run(envelope_setup *s, const wc_envelope_workload *w, int fixed)
{
	wc_envelope_options o;
	wc_envelope_result r;
	wc_error err;
	CHECK_INT(wc_envelope_draws_nothing(w), fixed);
	wc_envelope_options_init(&o);
	o.horizon_s = 20;
	o.replicas = 3;
	o.fleet_size = 4;
	CHECK_INT(wc_envelope_run_once_if_fixed(w, &s->st, &s->pm, &o, &r, &err), WC_OK);
	CHECK_INT(r.replicas, fixed ? 1 : 3);
	if (fixed) /* one run: no Monte-Carlo spread to show */
		CHECK(r.fleet.p95_w.lo == r.fleet.p95_w.hi);
	wc_envelope_result_clear(&r);
	/* a day x 20 replicas is 3.5e7 bins x servers, over a bound of 2e7;
	 * simulated once it is 1.7e6 */
	o.horizon_s = 86400;
	o.replicas = 20;
	o.fleet_size = 1;
	CHECK_INT(wc_envelope_work_check(w, &o, &s->st, NULL, &s->pm, 2e7, 1e12, NULL, &err),
	          fixed ? WC_OK : WC_EINVAL);
}

static void
test_library(void)
{
	envelope_setup s;
	wc_envelope_workload w;
	envelope_setup_init(&s, &paper);
	static const double n_t[] = { 0, 4, 12, 20, 18, 9, 0, 0, 6, 6 };
	wc_envelope_workload_init(&w);
	w.kind = WC_ENVELOPE_SERIES;
	w.series_len = sizeof n_t / sizeof n_t[0];
	w.series_running = n_t;
	w.series_dt_s = 2.0;
	check_run(&s, &w, 1);
	wc_envelope_workload_init(&w); /* a closed loop of fixed lengths */
	w.concurrency = 8;
	check_run(&s, &w, 1);
	w.output = (wc_length_dist){ WC_LENGTH_LOGNORMAL, 210, 200, NULL, 0 };
	check_run(&s, &w, 0);
	wc_envelope_workload_init(&w);
	w.kind = WC_ENVELOPE_POISSON;
	w.rate = 1.0;
	check_run(&s, &w, 0);

	/* A plan of lockstep servers simulates one: every server is it, and
	 * the fleet of K is K times it (exactly linear). */
	static const double at[] = { 0.0, 0.7, 1.1, 4.0, 4.2, 9.5, 12.0, 15.5 };
	static const double in[] = { 900, 300, 2000, 512, 64, 4000, 700, 128 };
	static const double out[] = { 100, 250, 50, 400, 30, 10, 200, 90 };
	wc_envelope_workload_init(&w);
	w.kind = WC_ENVELOPE_REPLAY;
	w.n_arrivals = sizeof at / sizeof at[0];
	w.arrival_s = at;
	w.arrival_input = in;
	w.arrival_output = out;
	wc_envelope_options o;
	wc_budget_plan plan;
	wc_error err;
	wc_envelope_options_init(&o);
	o.horizon_s = 20;
	wc_budget_options bo = { 3000.0, WC_BUDGET_P95, 64, 1.0 };
	CHECK_INT(wc_envelope_budget(&w, &s.st, &s.pm, &o, &bo, &plan, &err), WC_OK);
	CHECK_INT(plan.servers_simulated, 1);
	CHECK(plan.fleet_size > 1);
	CHECK_NEAR(plan.next_stat_w / (plan.fleet_size + 1), plan.stat_w / plan.fleet_size, 1e-9);
	/* a balancer's servers differ: simulated afresh per probe */
	o.fleet_mode = WC_FLEET_ROUND_ROBIN;
	CHECK_INT(wc_envelope_budget(&w, &s.st, &s.pm, &o, &bo, &plan, &err), WC_OK);
	CHECK(plan.servers_simulated > plan.fleet_size);
}

static int
replicas_of(const json_t *j)
{
	return (int)json_integer_value(json_object_get(json_object_get(j, "simulation"), "replicas"));
}

/* The tester's requests: a day of an n(t) and of a closed loop of fixed
 * lengths, 20 replicas each, answer as the replay does. */
static void
test_http(void)
{
	static const char *const workloads[] = {
		"{\"type\":\"n_series\",\"running_series\":[0,4,12,20,18,9,0,0,6,6],\"dt_s\":1}",
		"{\"type\":\"closed\",\"concurrency\":8}",
		"{\"type\":\"replay\",\"arrivals\":{\"t_s\":[0,0.5,1.2],\"input_tokens\":[300,1000,50],"
		"\"output_tokens\":[100,20,5]}}",
	};
	char body[512];
	for (size_t i = 0; i < sizeof workloads / sizeof *workloads; i++) {
		http_reply r;
		snprintf(body, sizeof body, "{" CFG ",\"workload\":%s,\"horizon_s\":86400,\"replicas\":20,"
		         "\"include_bins\":false}", workloads[i]);
		http_post_json(h, url("/v1/forecast/envelope"), body, &r);
		CHECK_INT(r.status, 200);
		CHECK_INT(replicas_of(r.json), 1);
		if (r.status != 200)
			fprintf(stderr, "%s -> %s\n", body, r.body ? r.body : "");
		http_reply_free(&r);
	}
	/* drawn lengths still run, and are charged, every replica */
	http_reply r;
	http_post_json(h, url("/v1/forecast/envelope"), "{" CFG ",\"workload\":{\"type\":\"closed\",\"concurrency\":8,"
	               "\"output_tokens\":{\"mean\":200,\"sd\":100}},\"horizon_s\":86400,\"replicas\":20,"
	               "\"include_bins\":false}", &r);
	CHECK_INT(r.status, 413);
	http_reply_free(&r);
	/* a plan of lockstep servers simulates one */
	http_post_json(h, url("/v1/plan/budget"), "{" CFG ",\"workload\":{\"type\":\"closed\",\"concurrency\":8},"
	               "\"horizon_s\":60,\"budget_w\":5e4}", &r);
	CHECK_INT(r.status, 200);
	CHECK_INT(json_integer_value(json_object_get(json_object_get(r.json, "plan"), "servers_simulated")), 1);
	http_reply_free(&r);
}

/* The CLI: --n-series with --fleet 4 --replicas 3 simulates it once. */
static void
test_cli(void)
{
	char *dir = test_tmpdir("envelope_once"), *ns = path_join(dir, "nt.csv");
	CHECK_INT(write_text(ns, "t_s,running\n0,0\n10,4\n20,12\n30,20\n40,18\n50,9\n60,0\n"), 0);
	run_result r;
	const char *json[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--n-series", ns,
		               "--horizon", "90", "--fleet", "4", "--replicas", "3", "--json", NULL };
	CHECK_INT(run_wattcast(json, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	json_t *j = json_loads(r.out ? r.out : "", 0, NULL);
	CHECK(j && replicas_of(j) == 1);
	json_decref(j);
	run_result_free(&r);
	const char *text[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--n-series", ns,
		               "--horizon", "90", "--replicas", "3", NULL };
	CHECK_INT(run_wattcast(text, NULL, &r), 0);
	CHECK_CONTAINS(r.out, "simulated once: an n(t) draws nothing at random, so --seed and --replicas change "
	                      "nothing");
	run_result_free(&r);
	const char *closed[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--closed", "8",
		                 "--horizon", "20", "--replicas", "3", NULL };
	CHECK_INT(run_wattcast(closed, NULL, &r), 0);
	CHECK_CONTAINS(r.out, "simulated once: a closed loop of fixed lengths draws nothing at random");
	run_result_free(&r);
	free(ns);
	free(dir);
}

int
main(void)
{
	wc_server *srv = NULL;
	gsl_set_error_handler_off();
	wc_params_default(&paper);
	test_library();
	test_cli();
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
	return check_report("test_server_envelope_once");
}
