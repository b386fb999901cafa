/*
 * An envelope's energy_per_output_token_j is the workload's: the
 * replicas' total energy over their total tokens (energy_j / output_tokens
 * of the summary), its p5 / p95 the spread of their own ratios, and a
 * warning says why when the value lies outside that spread
 * (docs/envelopes.md, "Outputs"). At Poisson 0.02 req/s over 30 s (200
 * replicas) it was the mean of the ratios of the replicas that served a
 * token, 14.01 J against energy_j / output_tokens 21.36 J, above its own
 * p95 of 11.58 J with no word.
 */
#include "tests/support/support.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static double
stat(const json_t *summary, const char *key, const char *part)
{
	return json_number_value(json_object_get(json_object_get(summary, key), part));
}

static void
ratio(const char *rate, const char *horizon, const char *replicas, int outside)
{
	const char *argv[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--poisson", rate,
		               "--horizon", horizon, "--replicas", replicas, "--json", "--quiet", NULL };
	run_result r;
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	json_t *j = json_loads(r.out ? r.out : "", 0, NULL);
	CHECK(j != NULL);
	const json_t *s = json_object_get(json_object_get(j, "server"), "summary");
	const double e = stat(s, "energy_j", "value"), t = stat(s, "output_tokens", "value");
	const double v = stat(s, "energy_per_output_token_j", "value");
	const double lo = stat(s, "energy_per_output_token_j", "p5"), hi = stat(s, "energy_per_output_token_j", "p95");
	CHECK(t > 0.0);
	CHECK_NEAR(v, e / t, 1e-6 * v);
	CHECK_INT(v < lo || v > hi, outside);
	int said = 0;
	size_t i;
	json_t *w;
	json_array_foreach(json_object_get(j, "warnings"), i, w) {
		const char *text = json_string_value(w);
		if (text && strstr(text, "energy_per_output_token_j: ") == text) {
			said = 1;
			CHECK_CONTAINS(text, "total energy over total tokens, is outside the replicas' own ratios");
			CHECK_CONTAINS(text, "served no token");
			CHECK(strlen(text) <= 255);
		}
	}
	CHECK_INT(said, outside);
	json_decref(j);
	run_result_free(&r);
}

int
main(void)
{
	ratio("0.02", "30", "200", 1); /* most replicas serve nothing: outside, said */
	ratio("3", "60", "10", 0);     /* a steady load: inside, no warning */
	return check_report("test_cli_envelope_energy_per_token");
}
