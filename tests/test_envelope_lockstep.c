/*
 * Fleets whose servers run in lockstep (docs/envelopes.md, "Lockstep fleets"): an
 * "independent" fleet of a replay, an n(t) or a closed loop of fixed
 * lengths draws no arrival at random, so its K servers replay the same
 * arrivals in step and its p95 and ramps are K times one server's, the
 * synchronised worst case. Such a fleet, and a plan of such servers, is
 * labelled "lockstep" (library, JSON as the API and --json give it, CLI
 * text) and warned of once, whole (not cut at the warning's length); a
 * Poisson fleet, a closed loop of drawn lengths and a balancer are not.
 * They were labelled "independent" with no word: a replay's fleet of 8 at
 * a p95 of exactly 8 x 334.40 W, its plan exactly linear in K.
 * A replay whose missing lengths are drawn replays its arrivals in step
 * but draws those lengths per server: it is labelled "independent" with a
 * warning that its arrivals are synchronised. It was labelled "lockstep",
 * warned of as drawing nothing at random, its fleet p95 (1074.16 W) not 4
 * times one server's (270.53 W).
 */
#include "predict/envelope.h"
#include "predict/envelope_budget.h"
#include "server/server.h"
#include "tests/support/envelope_setup.h"
#include "tests/support/support.h"

#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static wc_params paper;

/* The lockstep warnings among `n` (whole: ending with the docs' name). */
static int
lockstep_said(char (*warnings)[WC_WARNING_LEN], int n, const char *same, int plan)
{
	int said = 0;
	for (int i = 0; i < n; i++) {
		const char *m = warnings[i];
		if (strncmp(m, "fleet: its servers ", 19) != 0)
			continue;
		said++;
		CHECK_CONTAINS(m, same);
		CHECK_CONTAINS(m, "not independently: p95 and ramps are an upper bound, the synchronised worst case");
		CHECK(plan == (strstr(m, "the plan's size is a lower bound") != NULL));
		const char *end = "(docs/envelopes.md)";
		CHECK(strlen(m) > strlen(end) && strcmp(m + strlen(m) - strlen(end), end) == 0);
	}
	return said;
}

/* The warnings among `n` that a replay's arrivals are synchronised
 * across servers while its missing lengths are drawn. */
static int
synchronised_said(char (*warnings)[WC_WARNING_LEN], int n, int plan)
{
	int said = 0;
	for (int i = 0; i < n; i++) {
		const char *m = warnings[i];
		if (strncmp(m, "fleet: arrivals synchronised across servers", 43) != 0)
			continue;
		said++;
		CHECK_CONTAINS(m, "only the missing lengths drawn each its own");
		CHECK(plan == (strstr(m, "the plan's size is a lower bound") != NULL));
		CHECK_CONTAINS(m, "(docs/envelopes.md)");
	}
	return said;
}

/* One run of `w` by `mode` (fleet of 4 in the envelope, a plan beside
 * it): lockstep or not, in the library, the JSON and the warnings;
 * `synced` 1 where only the arrivals are in step (a replay whose missing
 * lengths are drawn). */
static void
check_fleet_as(envelope_setup *s, const wc_envelope_workload *w, wc_fleet_mode mode, const char *same, int synced)
{
	wc_envelope_options o;
	wc_envelope_result r;
	wc_budget_plan plan;
	wc_error err;
	const int lockstep = same != NULL;
	wc_envelope_options_init(&o);
	o.horizon_s = 20;
	o.replicas = 2;
	o.fleet_size = 4;
	o.fleet_mode = mode;
	CHECK_INT(wc_envelope_fleet_lockstep(w, mode), lockstep);
	CHECK_INT(wc_envelope_run(w, &s->st, &s->pm, &o, &r, &err), WC_OK);
	/* the label answers give, from the run's result */
	CHECK(strcmp(wc_envelope_fleet_mode_label(r.lockstep, r.fleet_mode),
	             lockstep ? "lockstep" : wc_fleet_mode_name(mode)) == 0);
	CHECK_INT(lockstep_said(r.warnings, r.n_warnings, same ? same : "", 0), lockstep);
	CHECK_INT(synchronised_said(r.warnings, r.n_warnings, 0), synced);
	if (lockstep) /* K copies of one server, limited each alone */
		CHECK_NEAR(r.fleet.p95_w.value / r.server.p95_w.value, 4.0, 1e-9);
	if (synced) { /* drawn lengths differ per server and per replica */
		CHECK(fabs(r.fleet.p95_w.value / r.server.p95_w.value - 4.0) > 1e-3);
		CHECK(r.server.p95_w.hi > r.server.p95_w.lo);
	}
	wc_response_params resp;
	wc_response_effective(NULL, &resp);
	wc_envelope_render ctx = { &s->c, w, &o, &resp, "assumed", &s->pm, &s->st, "v", 0, NULL };
	char *t = wc_render_envelope(&ctx, &r, 0, &err);
	CHECK(t && envelope_json_is(t, "fleet", "mode", lockstep ? "lockstep" : wc_fleet_mode_name(mode)));
	free(t);
	wc_envelope_result_clear(&r);
	/* one server has no fleet to warn of */
	o.fleet_size = 1;
	o.fleet_mode = WC_FLEET_INDEPENDENT;
	CHECK_INT(wc_envelope_run(w, &s->st, &s->pm, &o, &r, &err), WC_OK);
	CHECK_INT(lockstep_said(r.warnings, r.n_warnings, "", 0), 0);
	CHECK_INT(synchronised_said(r.warnings, r.n_warnings, 0), 0);
	wc_envelope_result_clear(&r);
	o.fleet_mode = mode;
	wc_budget_options bo = { 3000.0, WC_BUDGET_P95, 64, 1.0 };
	CHECK_INT(wc_envelope_budget(w, &s->st, &s->pm, &o, &bo, &plan, &err), WC_OK);
	CHECK_INT(lockstep_said(plan.warnings, plan.n_warnings, same ? same : "", 1), lockstep);
	CHECK_INT(synchronised_said(plan.warnings, plan.n_warnings, 1), synced);
	t = wc_render_budget(&ctx, &bo, &plan, 0, &err);
	CHECK(t && envelope_json_is(t, "plan", "fleet_mode", lockstep ? "lockstep" : wc_fleet_mode_name(mode)));
	free(t);
}

static void
check_fleet(envelope_setup *s, const wc_envelope_workload *w, wc_fleet_mode mode, const char *same)
{
	check_fleet_as(s, w, mode, same, 0);
}

static void
test_library_and_json(void)
{
	envelope_setup s;
	wc_envelope_workload w;
	envelope_setup_init(&s, &paper);
	/* a replay, lengths known */
	static const double at[] = { 0.0, 0.7, 1.1, 4.0, 4.2, 9.5, 12.0, 15.5 };
	static const double in[] = { 900, 300, 2000, 512, 64, 4000, 700, 128 };
	static const double out[] = { 100, 250, 50, 400, 30, 10, 200, 90 };
	wc_envelope_workload_init(&w);
	w.kind = WC_ENVELOPE_REPLAY;
	w.n_arrivals = sizeof at / sizeof at[0];
	w.arrival_s = at;
	w.arrival_input = in;
	w.arrival_output = out;
	check_fleet(&s, &w, WC_FLEET_INDEPENDENT, "replay the same arrivals in step (a replay draws none at random)");
	/* a balancer splits the log: its servers differ */
	check_fleet(&s, &w, WC_FLEET_ROUND_ROBIN, NULL);
	check_fleet(&s, &w, WC_FLEET_LEAST_LOADED, NULL);
	/* a replay whose missing lengths are drawn: arrivals in step, lengths
	 * each server's own, so neither lockstep nor run once (the tester's
	 * log: every other output unknown, drawn lognormal 300 +- 200) */
	static const double out_gaps[] = { 100, NAN, 200, NAN, 50, 300, NAN, 20 };
	w.arrival_output = out_gaps;
	w.output = (wc_length_dist){ WC_LENGTH_LOGNORMAL, 300, 200, NULL, 0 };
	CHECK_INT(wc_envelope_draws_nothing(&w), 0);
	check_fleet_as(&s, &w, WC_FLEET_INDEPENDENT, NULL, 1);
	check_fleet(&s, &w, WC_FLEET_ROUND_ROBIN, NULL);
	/* filled by a fixed length instead, it draws nothing: lockstep again */
	w.output = (wc_length_dist){ WC_LENGTH_FIXED, 300, 0, NULL, 0 };
	CHECK_INT(wc_envelope_draws_nothing(&w), 1);
	check_fleet(&s, &w, WC_FLEET_INDEPENDENT, "replay the same arrivals in step (a replay draws none at random)");
	/* an n(t) */
	static const double n_t[] = { 1, 4, 9, 16, 9, 4, 1, 0, 2, 8 };
	wc_envelope_workload_init(&w);
	w.kind = WC_ENVELOPE_SERIES;
	w.series_len = sizeof n_t / sizeof n_t[0];
	w.series_running = n_t;
	w.series_dt_s = 2.0;
	check_fleet(&s, &w, WC_FLEET_INDEPENDENT, "run the same n(t) in step (an n(t) draws nothing at random)");
	/* a closed loop of fixed lengths (the defaults), and of drawn ones */
	wc_envelope_workload_init(&w);
	w.concurrency = 8;
	check_fleet(&s, &w, WC_FLEET_INDEPENDENT, "run the same closed loop in step (fixed lengths draw nothing)");
	w.output = (wc_length_dist){ WC_LENGTH_LOGNORMAL, 210, 200, NULL, 0 };
	check_fleet(&s, &w, WC_FLEET_INDEPENDENT, NULL);
	/* Poisson arrivals are each server's own */
	wc_envelope_workload_init(&w);
	w.kind = WC_ENVELOPE_POISSON;
	w.rate = 1.0;
	check_fleet(&s, &w, WC_FLEET_INDEPENDENT, NULL);
}

/* The CLI's text says it as the JSON does. */
static void
test_cli_text(void)
{
	run_result r;
	const char *fleet[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--closed", "8",
		                "--horizon", "20", "--replicas", "2", "--fleet", "3", "--profile", "paper", NULL };
	CHECK_INT(run_wattcast(fleet, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, "fleet of 3 (lockstep)");
	CHECK_CONTAINS(r.out, "warning: fleet: its servers run the same closed loop in step");
	run_result_free(&r);
	const char *plan[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--closed", "8",
		               "--horizon", "20", "--budget", "3000", "--profile", "paper", NULL };
	CHECK_INT(run_wattcast(plan, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, "servers (lockstep) keep the aggregate p95");
	CHECK_CONTAINS(r.out, "the plan's size is a lower bound");
	run_result_free(&r);
	const char *drawn[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--closed", "8",
		                "--output-tokens", "lognormal:200:150", "--horizon", "20", "--replicas", "2",
		                "--fleet", "3", "--profile", "paper", NULL };
	CHECK_INT(run_wattcast(drawn, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, "fleet of 3 (independent)");
	CHECK(strstr(r.out, "fleet: its servers") == NULL);
	run_result_free(&r);
}

int
main(void)
{
	gsl_set_error_handler_off();
	wc_params_default(&paper);
	test_library_and_json();
	test_cli_text();
	wc_params_clear(&paper);
	return check_report("test_envelope_lockstep");
}
