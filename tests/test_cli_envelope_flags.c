/*
 * wattcast envelope's flags that the run does not use are refused naming
 * them, and a budget plan's text echoes the budget as given with
 * statistics precise enough to show the comparison (docs/cli.md,
 * "envelope"); one replica prints no Monte-Carlo spread (its "[x, x]"
 * read as no simulation uncertainty).
 */
#include "data/data.h"
#include "tests/support/support.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

/* A flag the run does not use is refused naming it (docs/cli.md,
 * "envelope"; it ran an ordinary envelope before, as if it had been used),
 * and a plan's text echoes the budget as given with statistics precise
 * enough to show the comparison (it printed "4000 W <= 4000 W"). */
static void
test_flags_apply_and_budget_digits(const char *dir)
{
	char *nt = path_join(dir, "n32.csv");
	write_text(nt, "t_s,running\n0,32\n1,32\n2,32\n");
	const struct {
		const char *a, *b, *c, *want;
	} cases[] = {
		{ "--poisson", "2", "--think", "--think applies to --closed" },
		{ "--poisson", "2", "--budget-stat", "--budget-stat applies to --budget" },
		{ "--poisson", "2", "--max-fleet", "--max-fleet applies to --budget" },
		{ "--poisson", "2", "--budget-bin", "--budget-bin applies to --budget" },
		{ "--poisson", "2", "--fleet-mode", "--fleet-mode applies to --fleet K (K > 1) or --budget" },
		{ "--n-series", nt, "--input-tokens", "--input-tokens does not apply to --n-series" },
		{ "--n-series", nt, "--max-running", "--max-running does not apply to --n-series" },
	};
	const char *value[] = { "5", "max", "10", "5", "round_robin", "100", "4" };
	run_result r;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const char *argv[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Llama-3.1-8B", "--horizon",
			               "3", "--quiet", cases[i].a, cases[i].b, cases[i].c, value[i], NULL };
		CHECK_INT(run_wattcast(argv, NULL, &r), 0);
		CHECK_INT(r.status, 2);
		CHECK_CONTAINS(r.err, cases[i].want);
		run_result_free(&r);
	}
	/* a metric that does not exist is "none" with why, as JSON's null,
	 * never "nan" (an n(t) serves no tokens; 0.5 s has no ramp) */
	const char *none[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Llama-3.1-8B", "--horizon", "3",
		               "--replicas", "2", "--quiet", "--n-series", nt, NULL };
	CHECK_INT(run_wattcast(none, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, "energy_per_output_token_j            none  (no output tokens served: an n(t) has no "
	                      "requests, and a short horizon may serve none (a replayed request of 0 output tokens "
	                      "generates none))");
	CHECK(r.out && !strstr(r.out, "nan"));
	run_result_free(&r);
	const char *shortest[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Llama-3.1-8B", "--horizon",
		                   "0.5", "--replicas", "2", "--quiet", "--poisson", "4", NULL };
	CHECK_INT(run_wattcast(shortest, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, "ramp_w_per_s                         none  (a ramp needs samples spanning two whole "
	                      "seconds, more than a 0.5 s horizon holds)");
	CHECK(r.out && !strstr(r.out, "nan"));
	run_result_free(&r);
	/* a horizon long enough for a ramp, sampled too sparsely for one: the
	 * cadence is the reason (it said "two whole seconds of horizon") */
	const char *sparse[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Llama-3.1-8B", "--horizon",
		                 "3", "--sample", "1.5", "--replicas", "2", "--quiet", "--poisson", "4", NULL };
	CHECK_INT(run_wattcast(sparse, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, "ramp_w_per_s                         none  (a ramp needs samples spanning two whole "
	                      "seconds: 2 samples every 1.5 s (--sample) span 1.5 s)");
	run_result_free(&r);
	/* an unknown board lists the boards that answer, as predict does (it
	 * said "unknown level 'RTX4090' in parameter set 'measured'") */
	const char *board[] = { "wattcast", "envelope", "--platform", "RTX4090", "--model", "Qwen3-8B", "--poisson", "1",
		                "--horizon", "3", "--quiet", NULL };
	CHECK_INT(run_wattcast(board, NULL, &r), 0);
	CHECK_INT(r.status, 2);
	CHECK_CONTAINS(r.err, "--platform: unknown platform 'RTX4090' (known: ");
	CHECK_CONTAINS(r.err, "; from datasheets: ");
	CHECK_CONTAINS(r.err, "L40S");
	run_result_free(&r);
	/* --service auto is the default and means nothing for an n(t): it runs,
	 * as "service": "auto" does over HTTP; a forced one is refused. A
	 * balancer on an n(t) is the command line's fault: exit 2 naming
	 * --fleet-mode (it was exit 1 naming the field fleet_mode). */
	const char *svc[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Llama-3.1-8B", "--horizon", "3",
		              "--replicas", "1", "--quiet", "--n-series", nt, "--service", "auto", NULL };
	CHECK_INT(run_wattcast(svc, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	run_result_free(&r);
	svc[14] = "capacity";
	CHECK_INT(run_wattcast(svc, NULL, &r), 0);
	CHECK_INT(r.status, 2);
	CHECK_CONTAINS(r.err, "--service does not apply to --n-series");
	run_result_free(&r);
	const char *split[][4] = { { "--fleet", "2", "--fleet-mode", "round_robin" },
		                   { "--budget", "20000", "--fleet-mode", "round_robin" } };
	for (int i = 0; i < 2; i++) {
		const char *argv[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Llama-3.1-8B", "--horizon",
			               "3", "--quiet", "--n-series", nt, split[i][0], split[i][1], split[i][2], split[i][3],
			               NULL };
		CHECK_INT(run_wattcast(argv, NULL, &r), 0);
		CHECK_INT(r.status, 2);
		CHECK_CONTAINS(r.err, "--fleet-mode: an explicit n(t) cannot be split by a balancer");
		run_result_free(&r);
	}
	/* with what they apply to, they run */
	const char *fleet[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Llama-3.1-8B", "--horizon", "3",
		                "--quiet", "--poisson", "2", "--fleet", "2", "--fleet-mode", "round_robin", NULL };
	CHECK_INT(run_wattcast(fleet, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	run_result_free(&r);
	/* a malformed request log: the refusal names the line and why (it
	 * said only "1 of 3 data lines are malformed"), whatever --quiet */
	char *log = path_join(dir, "req_bad.csv");
	write_text(log, "arrival_s,completion_s,input_tokens,output_tokens\n1780000020.000,1780000025.000,587,353\n"
	                "1780000020.262,1780000025.262,857,359\n1780000100.0,1780000099.0,10,10\n");
	const char *bad[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Llama-3.1-8B", "--replay", log,
		              "--horizon", "3", "--quiet", NULL };
	CHECK_INT(run_wattcast(bad, NULL, &r), 0);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "req_bad.csv:4:14: completion_s: completion before arrival");
	CHECK_CONTAINS(r.err, "1 of 3 data lines are malformed");
	run_result_free(&r);
	free(log);
	const char *plan[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-32B", "--closed", "256",
		               "--horizon", "60", "--budget", "3999.999", "--quiet", NULL };
	CHECK_INT(run_wattcast(plan, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, "W <= 3999.999 W; 10 would draw 4000 W");
	run_result_free(&r);
	free(nt);
}

/* A requests.csv row without output_tokens is drawn from --output-tokens
 * (or its default): said with the count and the source (it was silent,
 * and the output total moved 3x with the flag). */
static void
test_one_replica(void)
{
	run_result r;
	for (int k = 0; k < 2; k++) {
		const char *argv[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--poisson", "3",
			               "--horizon", "20", "--replicas", k ? "2" : "1", "--quiet", NULL };
		CHECK_INT(run_wattcast(argv, NULL, &r), 0);
		CHECK_INT(r.status, 0);
		CHECK_INT(r.out && strstr(r.out, "one replica: no Monte-Carlo spread") != NULL, !k);
		CHECK_INT(r.out && strstr(r.out, "Monte-Carlo spread [5 %, 95 %] over replicas") != NULL, k);
		run_result_free(&r);
	}
}

/* `wattcast envelope --json` on a small open loop, a plan with `budget`,
 * for stack `engine` (NULL: no --engine). */
static void
run_engine(int budget, const char *engine, run_result *r)
{
	const char *argv[20] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--poisson", "1",
		                 "--horizon", "10", "--quiet", "--json" };
	int n = 12;
	argv[n++] = budget ? "--budget" : "--replicas";
	argv[n++] = budget ? "3000" : "2";
	if (engine) {
		argv[n++] = "--engine";
		argv[n++] = engine;
	}
	argv[n] = NULL;
	CHECK_INT(run_wattcast(argv, NULL, r), 0);
	CHECK_INT(r->status, 0);
}

/* --engine names the serving stack (docs/capacity.md, "Serving stacks"):
 * refused unknown naming the flag and the accepted names (exit 2); another
 * stack's envelope and plan carry the one warning and echo it in JSON,
 * vllm's are those of no --engine. */
static void
test_engine(void)
{
	run_result r, base;
	const char *bad[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--poisson", "1",
		              "--horizon", "10", "--quiet", "--engine", "tensorrtllm", NULL };
	CHECK_INT(run_wattcast(bad, NULL, &r), 0);
	CHECK_INT(r.status, 2);
	CHECK_CONTAINS(r.err, "--engine: unknown serving stack 'tensorrtllm': did you mean tensorrt-llm? (accepted: "
	                      "vllm, sglang, tensorrt-llm, tgi, deepspeed-mii, transformers)");
	run_result_free(&r);
	static const char want[] = "engine: laws calibrated on vLLM runs; DeepSpeed-MII draws differently at the same "
	                           "batch";
	for (int budget = 0; budget < 2; budget++) {
		run_engine(budget, NULL, &base);
		run_engine(budget, "vllm", &r);
		json_t *a = json_loads(r.out ? r.out : "", 0, NULL), *b = json_loads(base.out ? base.out : "", 0, NULL);
		json_object_del(json_object_get(a, "plan"), "seconds"); /* the plan's own search time */
		json_object_del(json_object_get(b, "plan"), "seconds");
		CHECK(a && b && json_equal(a, b));
		json_decref(a);
		run_result_free(&r);
		run_engine(budget, "DeepSpeed_MII", &r);
		a = json_loads(r.out ? r.out : "", 0, NULL);
		const char *eng = json_string_value(json_object_get(json_object_get(a, "config"), "engine"));
		CHECK(eng && strcmp(eng, "deepspeed-mii") == 0);
		const json_t *ws = json_object_get(a, "warnings");
		int n = 0;
		for (size_t i = 0; i < json_array_size(ws); i++)
			n += strncmp(json_string_value(json_array_get(ws, i)), want, sizeof want - 1) == 0;
		CHECK_INT(n, 1);
		CHECK_INT((int)json_array_size(ws), (int)json_array_size(json_object_get(b, "warnings")) + 1);
		json_decref(a);
		json_decref(b);
		run_result_free(&r);
		run_result_free(&base);
	}
}

/* `wattcast envelope --platform A100 --model Qwen3-8B --quiet` with the
 * arguments after it (NULL-terminated, at most 16). */
static void
run_a100(run_result *r, const char *const *args)
{
	const char *argv[24] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--quiet" };
	int n = 7;
	while (*args && n < 23)
		argv[n++] = *args++;
	argv[n] = NULL;
	CHECK_INT(run_wattcast(argv, NULL, r), 0);
}

/* Work beyond the bounds is refused before any of it as bad input, exit 2
 * naming the flags, not the library's fields (it exited 1 naming rate,
 * max_fleet, budget_w); the grid's bins x servers are bounded as over HTTP
 * (a near-idle week for a million servers was accepted: hours of CPU);
 * the plan's memory bound names the flags too (docs/envelopes.md, "Limits
 * and choices"). */
static void
test_work_bounds(void)
{
	static const struct {
		const char *args[12], *want, *not_said;
	} cases[] = {
		{ { "--poisson", "4", "--horizon", "600", "--budget", "1e12", "--max-fleet", "1000000", NULL },
		  "--poisson: the simulation would draw 2400000000 requests", "budget_w" },
		{ { "--poisson", "4", "--horizon", "600", "--budget", "1e12", "--max-fleet", "1000000", NULL },
		  "lower the rate, the horizon, --max-fleet or --budget", "max_fleet" },
		{ { "--closed", "65536", "--max-running", "65536", "--horizon", "604800", "--input-tokens", "1",
		    "--output-tokens", "1", NULL }, "--closed: the simulation would draw", ".19 requests" },
		{ { "--poisson", "0.0003", "--horizon", "604800", "--replicas", "1", "--fleet", "1000000", NULL },
		  "--fleet: the simulation would take 12096000000000 grid bins x servers", "fleet_size" },
		{ { "--poisson", "0.1", "--horizon", "604800", "--budget", "1e6", NULL },
		  "--max-fleet: 1000 servers x 604800 bins of 1 s exceed the plan's memory", "max_fleet" },
		{ { "--poisson", "0.1", "--horizon", "604800", "--budget", "1e6", NULL },
		  "lower --max-fleet, or use a wider --budget-bin or a shorter --horizon", "budget_bin_s" },
		/* under --max-fleet it is the budget that sets the servers cached */
		{ { "--poisson", "0.1", "--horizon", "604800", "--budget", "20000", NULL },
		  "--budget: 20000 W may take 238 servers", "max-fleet" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		run_result r;
		run_a100(&r, cases[i].args);
		CHECK_INT(r.status, 2);
		CHECK_CONTAINS(r.err, cases[i].want);
		CHECK(r.err && !strstr(r.err, cases[i].not_said));
		run_result_free(&r);
	}
	/* The memory bound charges the servers a plan can simulate, not
	 * max_fleet: no 12 servers fit 1000 W (84.2 W idle each, the measured
	 * profile's A100), so at most 16 are simulated; 10 000 x 3600 bins was refused, never reached. */
	const char *const reach[] = { "--poisson", "2", "--horizon", "3600", "--budget", "1000", "--max-fleet",
		                      "10000", NULL };
	run_result r;
	run_a100(&r, reach);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, "budget plan: 2 servers (independent)");
	CHECK_CONTAINS(r.out, "4 servers simulated");
	run_result_free(&r);
}

/* A rate and a profile both setting the rate: refused naming both (the
 * rate was dropped unsaid, as the routes refuse rate beside rate_profile);
 * `--poisson profile` takes the profile's. With --budget, --bin and
 * --sample are refused (they were ignored; the plan route has neither). */
static void
test_rate_profile_and_plan_flags(void)
{
	static const struct {
		const char *args[12], *want;
		int status;
	} cases[] = {
		{ { "--poisson", "1", "--rate-profile", "30:8", "--horizon", "60", "--replicas", "1", NULL },
		  "--poisson 1 and --rate-profile: give one of the rate and the profile", 2 },
		{ { "--bursty", "1", "--rate-profile", "30:8", "--horizon", "60", "--replicas", "1", NULL },
		  "--bursty 1 and --rate-profile", 2 },
		{ { "--poisson", "profile", "--horizon", "60", "--replicas", "1", NULL },
		  "--poisson profile: needs --rate-profile", 2 },
		{ { "--poisson", "profile", "--rate-profile", "30:8", "--horizon", "60", "--replicas", "1", NULL },
		  "mean_w", 0 },
		{ { "--poisson", "4", "--horizon", "60", "--budget", "3000", "--bin", "5", NULL },
		  "--bin does not apply to --budget (--budget-bin sets the plan's bins)", 2 },
		{ { "--poisson", "4", "--horizon", "60", "--budget", "3000", "--sample", "5", NULL },
		  "--sample does not apply to --budget", 2 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		run_result r;
		run_a100(&r, cases[i].args);
		CHECK_INT(r.status, cases[i].status);
		CHECK_CONTAINS(cases[i].status ? r.err : r.out, cases[i].want);
		run_result_free(&r);
	}
}

/* The budget as given (it printed 19852.217561 as 19852.21756), and the
 * refused next server with the digits that put it over the budget (it
 * printed "59 would draw 19852.21756 W", the budget itself); a shared
 * arrival process stopped by the simulation's limit says that limit, not
 * --max-fleet (it said "the search bound --max-fleet 5 was reached"). */
static void
test_plan_text(void)
{
	run_result r;
	/* The budget sits just under 59 servers' p95 (19852.217517 W with the
	 * old measured profile, 19933.65183 W with the 2026-12-06 one; the
	 * time to first token counts the prefills before it): read from the
	 * plan's next_stat_w, whose 10 digits are within 5e-6 W here, so 1.5e-5
	 * W under it is under the exact p95 and prints with more digits. */
	const char *probe[] = { "--poisson", "3", "--horizon", "120", "--max-fleet", "200", "--budget", "19700",
		                "--json", NULL };
	run_a100(&r, probe);
	json_t *pj = json_loads(r.out ? r.out : "", 0, NULL), *pplan = json_object_get(pj, "plan");
	const double next = json_number_value(json_object_get(pplan, "next_stat_w"));
	CHECK(next > 19700 && next < 1e5);
	json_decref(pj);
	run_result_free(&r);
	char budget[32], want[96];
	snprintf(budget, sizeof budget, "%.6f", next - 1.5e-5);
	for (size_t n = strlen(budget); n > 0 && budget[n - 1] == '0'; n--)
		budget[n - 1] = '\0'; /* as given, as the plan prints it */
	const char *digits[] = { "--poisson", "3", "--horizon", "120", "--max-fleet", "200", "--budget", budget, NULL };
	run_a100(&r, digits);
	CHECK_INT(r.status, 0);
	snprintf(want, sizeof want, "<= %s W; 57 would draw %.10g W", budget, next);
	CHECK_CONTAINS(r.out, "budget plan: 56 servers");
	CHECK_CONTAINS(r.out, want);
	run_result_free(&r);
	/* 2 days of 50 ms steps: 2^24 bins hold 4 servers' grids */
	const char *capped[] = { "--poisson", "0.001", "--horizon", "172800", "--max-fleet", "5", "--budget", "1e6",
		                 "--fleet-mode", "round_robin", "--threads", "2", NULL };
	run_a100(&r, capped);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, "budget plan: 4 servers (round_robin)");
	CHECK_CONTAINS(r.out, "the search stopped at the simulation's limit, 4 servers sharing one arrival process "
	                      "over this horizon (below --max-fleet 5)");
	CHECK(r.out && !strstr(r.out, "the search bound --max-fleet 5 was reached"));
	run_result_free(&r);
	run_a100(&r, (const char *const[]){ "--poisson", "0.001", "--horizon", "172800", "--max-fleet", "5", "--budget",
		                           "1e6", "--fleet-mode", "round_robin", "--threads", "2", "--json", NULL });
	json_t *j = json_loads(r.out ? r.out : "", 0, NULL);
	const json_t *plan = json_object_get(j, "plan");
	CHECK(json_is_true(json_object_get(plan, "at_bound")));
	CHECK(json_string_value(json_object_get(plan, "stopped_by")) &&
	      strcmp(json_string_value(json_object_get(plan, "stopped_by")), "simulation_limit") == 0);
	CHECK_INT((int)json_integer_value(json_object_get(plan, "search_bound")), 4);
	json_decref(j);
	run_result_free(&r);
}

int
main(void)
{
	char *dir = test_tmpdir("cli_envelope_flags");
	test_one_replica();
	test_engine();
	test_flags_apply_and_budget_digits(dir);
	test_work_bounds();
	test_rate_profile_and_plan_flags();
	test_plan_text();
	free(dir);
	return check_report("test_cli_envelope_flags");
}
