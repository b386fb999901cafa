/*
 * The `measured` profile's `datasheet` strata of its capacity held-out
 * errors (latency, energy per output token: each platform left out, the
 * capacity model's datasheet transfer) are quoted on three pages; each
 * quote must be the profile's own value as `profile export measured`
 * gives it (runs of white space read as one space). After the refit with
 * tau_EP the profile held 0.6876 / 0.6652 while docs/results.md said 0.738
 * / 0.730 (and 0.7379 / 0.7297) and docs/capacity.md 0.738 / 0.722.
 */
#include "tests/support/support.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The upper log quantile of `quantity`'s `datasheet` stratum, or NAN. */
static double
datasheet_q(const json_t *profile, const char *quantity)
{
	const json_t *errors = json_object_get(profile, "prediction_errors");
	for (size_t i = 0; i < json_array_size(errors); i++) {
		const json_t *e = json_array_get(errors, i);
		const char *q = json_string_value(json_object_get(e, "quantity"));
		if (!q || strcmp(q, quantity) != 0)
			continue;
		const json_t *strata = json_object_get(e, "strata");
		for (size_t k = 0; k < json_array_size(strata); k++) {
			const json_t *s = json_array_get(strata, k);
			const char *src = json_string_value(json_object_get(s, "source"));
			if (src && strcmp(src, "datasheet") == 0)
				return json_number_value(json_array_get(json_object_get(s, "log_quantiles"), 1));
		}
	}
	return NAN;
}

int
main(void)
{
	char *dir = test_tmpdir("capacity_datasheet_q_docs");
	char *out = path_join(dir, "measured.json");
	const char *argv[] = { "wattcast", "profile", "export", "measured", "-o", out, NULL };
	test_run_ok(argv);
	json_error_t err;
	json_t *profile = json_load_file(out, 0, &err);
	CHECK(profile != NULL);
	const double lat = datasheet_q(profile, "latency_s"), en = datasheet_q(profile, "energy_per_output_token_j");
	CHECK(isfinite(lat) && isfinite(en));
	char phrase[512];
	snprintf(phrase, sizeof phrase, "recorded in the `measured` profile q = %.4f (latency), %.4f (energy per token;",
	         lat, en);
	CHECK(test_doc_says("docs/results.md", phrase));
	snprintf(phrase, sizeof phrase,
	         "|log error| at 95 %% of latency %.3f and of energy per token %.3f for `measured` (×%.2f to ×%.2f, "
	         "×%.2f to ×%.2f;",
	         lat, en, exp(-lat), exp(lat), exp(-en), exp(en));
	CHECK(test_doc_says("docs/capacity.md", phrase));
	snprintf(phrase, sizeof phrase, "capacity` gives %.4f and %.4f, the profile's own)", lat, en);
	CHECK(test_doc_says("docs/capacity.md", phrase));
	snprintf(phrase, sizeof phrase,
	         "`measured`: latency q = %.3f (×%.2f to ×%.2f), energy per output token q = %.3f (×%.2f to ×%.2f)", lat,
	         exp(-lat), exp(lat), en, exp(-en), exp(en));
	CHECK(test_doc_says("docs/intervals.md", phrase));
	json_decref(profile);
	free(out);
	free(dir);
	return check_report("test_capacity_datasheet_q_docs");
}
