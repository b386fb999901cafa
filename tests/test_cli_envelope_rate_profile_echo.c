/*
 * An envelope answer echoes the rate profile that produced it: its steps
 * (until_s, rate) in workload.rate_profile, beside rate_profile_steps
 * (docs/http-api.md; the CLI's --json and the HTTP route share the
 * renderer). It echoed only "rate": null and the count, 2, so a saved
 * answer could not tell which profile it was of.
 */
#include "tests/support/support.h"

#include <jansson.h>

int
main(void)
{
	const char *argv[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--poisson",
		               "profile", "--rate-profile", "60:0,120:5", "--horizon", "120", "--replicas", "2",
		               "--json", "--quiet", NULL };
	run_result r;
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	json_t *j = json_loads(r.out ? r.out : "", 0, NULL);
	CHECK(j != NULL);
	const json_t *w = json_object_get(j, "workload");
	CHECK_INT((int)json_integer_value(json_object_get(w, "rate_profile_steps")), 2);
	const json_t *steps = json_object_get(w, "rate_profile");
	CHECK_INT((int)json_array_size(steps), 2);
	const double until[] = { 60, 120 }, rate[] = { 0, 5 };
	for (size_t i = 0; i < 2; i++) {
		const json_t *s = json_array_get(steps, i);
		CHECK_NEAR(json_number_value(json_object_get(s, "until_s")), until[i], 0);
		CHECK_NEAR(json_number_value(json_object_get(s, "rate")), rate[i], 0);
	}
	json_decref(j);
	run_result_free(&r);
	/* one rate: no steps to echo */
	const char *one[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--poisson", "2",
		              "--horizon", "10", "--replicas", "2", "--json", "--quiet", NULL };
	CHECK_INT(run_wattcast(one, NULL, &r), 0);
	j = json_loads(r.out ? r.out : "", 0, NULL);
	CHECK(j != NULL && json_object_get(json_object_get(j, "workload"), "rate_profile") == NULL);
	json_decref(j);
	run_result_free(&r);
	return check_report("test_cli_envelope_rate_profile_echo");
}
