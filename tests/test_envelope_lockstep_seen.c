/*
 * A fleet whose lengths are drawn from a spread too small to move a
 * rounded length (lognormal 512 +- 0.1 and 256 +- 0.1) draws the same
 * whole tokens on every server: its servers run in step as those of
 * fixed lengths do (docs/envelopes.md, "Lockstep fleets"). Whether they
 * did is seen -- no length drawn came out another token than the
 * distribution's fixed one -- not guessed from the spread. Such a fleet
 * and plan were labelled "independent" with no word, the fleet's p95
 * exactly 4 times one server's, 20 replicas identical; now "lockstep",
 * with the warning. A spread that moves lengths (sd 2) stays independent,
 * and the numbers are the same as before either way.
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

/* The warnings among `n` that the servers ran in step, each whole: a
 * plan's of lengths drawn that rounded alike, its longest, took 275 bytes
 * and was cut at 255 before its docs/ name. */
static int
lockstep_said(char (*warnings)[WC_WARNING_LEN], int n, const char *same)
{
	int said = 0;
	const char *end = "(docs/envelopes.md)";
	for (int i = 0; i < n; i++)
		if (strncmp(warnings[i], "fleet: its servers ", 19) == 0) {
			said++;
			CHECK_CONTAINS(warnings[i], same);
			const size_t len = strlen(warnings[i]);
			CHECK(len < WC_WARNING_LEN && len > strlen(end) && strcmp(warnings[i] + len - strlen(end), end) == 0);
		}
	return said;
}

/* A fleet of 4 and a plan of `w`: in step (`same` the warning's words)
 * or not (`same` NULL). */
static void
check_seen(envelope_setup *s, const wc_envelope_workload *w, const char *same)
{
	wc_envelope_options o;
	wc_envelope_result r;
	wc_budget_plan plan;
	wc_error err;
	const int lockstep = same != NULL;
	wc_envelope_options_init(&o);
	o.horizon_s = 20;
	o.replicas = 4;
	o.fleet_size = 4;
	/* not the rule of a workload that draws nothing: it draws */
	CHECK_INT(wc_envelope_fleet_lockstep(w, o.fleet_mode), 0);
	CHECK_INT(wc_envelope_draws_nothing(w), 0);
	CHECK_INT(wc_envelope_run(w, &s->st, &s->pm, &o, &r, &err), WC_OK);
	CHECK_INT(r.lockstep, lockstep);
	CHECK_INT(r.replicas, 4); /* they were simulated: the count is what ran */
	CHECK_INT(lockstep_said(r.warnings, r.n_warnings, same ? same : ""), lockstep);
	if (lockstep) { /* every server and replica the same run */
		CHECK_NEAR(r.fleet.p95_w.value / r.server.p95_w.value, 4.0, 1e-9);
		/* no Monte-Carlo spread (to the percentile's rounding) */
		CHECK_NEAR(r.server.p95_w.hi, r.server.p95_w.lo, 1e-9 * r.server.p95_w.value);
	} else {
		CHECK(r.server.p95_w.hi > r.server.p95_w.lo || r.server.mean_w.hi > r.server.mean_w.lo);
	}
	wc_response_params resp;
	wc_response_effective(NULL, &resp);
	wc_envelope_render ctx = { &s->c, w, &o, &resp, "assumed", &s->pm, &s->st, "v", 0, NULL };
	char *t = wc_render_envelope(&ctx, &r, 0, &err);
	CHECK(t && envelope_json_is(t, "fleet", "mode", lockstep ? "lockstep" : "independent"));
	free(t);
	wc_envelope_result_clear(&r);
	/* threads change nothing, the label included */
	o.threads = 3;
	CHECK_INT(wc_envelope_run(w, &s->st, &s->pm, &o, &r, &err), WC_OK);
	CHECK_INT(r.lockstep, lockstep);
	wc_envelope_result_clear(&r);
	o.threads = 1;
	wc_budget_options bo = { 3000.0, WC_BUDGET_P95, 64, 1.0 };
	CHECK_INT(wc_envelope_budget(w, &s->st, &s->pm, &o, &bo, &plan, &err), WC_OK);
	CHECK_INT(plan.lockstep, lockstep);
	CHECK_INT(lockstep_said(plan.warnings, plan.n_warnings, same ? same : ""), lockstep);
	t = wc_render_budget(&ctx, &bo, &plan, 0, &err);
	CHECK(t && envelope_json_is(t, "plan", "fleet_mode", lockstep ? "lockstep" : "independent"));
	free(t);
}

int
main(void)
{
	gsl_set_error_handler_off();
	wc_params_default(&paper);
	envelope_setup s;
	envelope_setup_init(&s, &paper);
	wc_envelope_workload w;
	wc_envelope_workload_init(&w);
	w.concurrency = 8;
	w.input = (wc_length_dist){ WC_LENGTH_LOGNORMAL, 512, 0.1, NULL, 0 };
	w.output = (wc_length_dist){ WC_LENGTH_LOGNORMAL, 256, 0.1, NULL, 0 };
	check_seen(&s, &w, "run the same closed loop in step (every length drawn rounded to the same whole token)");
	w.output = (wc_length_dist){ WC_LENGTH_LOGNORMAL, 256, 2, NULL, 0 };
	check_seen(&s, &w, NULL);
	/* an empirical of values that round alike draws one token too */
	static const double alike[] = { 300.2, 299.9, 300.4 };
	w.output = (wc_length_dist){ WC_LENGTH_EMPIRICAL, 0, 0, alike, 3 };
	check_seen(&s, &w, "run the same closed loop in step (every length drawn rounded to the same whole token)");
	/* a replay whose missing outputs are drawn from such a spread */
	static const double at[] = { 0.0, 0.7, 1.1, 4.0, 4.2, 9.5, 12.0, 15.5 };
	static const double in[] = { 900, 300, 2000, 512, 64, 4000, 700, 128 };
	static const double out[] = { 100, NAN, 50, NAN, 30, 10, NAN, 90 };
	wc_envelope_workload_init(&w);
	w.kind = WC_ENVELOPE_REPLAY;
	w.n_arrivals = sizeof at / sizeof at[0];
	w.arrival_s = at;
	w.arrival_input = in;
	w.arrival_output = out;
	w.output = (wc_length_dist){ WC_LENGTH_LOGNORMAL, 300, 0.1, NULL, 0 };
	check_seen(&s, &w, "replay the same arrivals in step (every missing length drawn rounded to the same whole "
	                   "token)");
	wc_params_clear(&paper);
	return check_report("test_envelope_lockstep_seen");
}
