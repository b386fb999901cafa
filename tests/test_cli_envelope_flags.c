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
	                      "requests, and a short horizon may serve none)");
	CHECK(r.out && !strstr(r.out, "nan"));
	run_result_free(&r);
	const char *shortest[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Llama-3.1-8B", "--horizon",
		                   "0.5", "--replicas", "2", "--quiet", "--poisson", "4", NULL };
	CHECK_INT(run_wattcast(shortest, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, "ramp_w_per_s                         none  (a ramp needs at least two whole seconds");
	CHECK(r.out && !strstr(r.out, "nan"));
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
	CHECK_CONTAINS(r.err, "req_bad.csv:4: completion before arrival");
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

int
main(void)
{
	char *dir = test_tmpdir("cli_envelope_flags");
	test_one_replica();
	test_engine();
	test_flags_apply_and_budget_digits(dir);
	free(dir);
	return check_report("test_cli_envelope_flags");
}
