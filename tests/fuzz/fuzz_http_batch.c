/* POST /v1/predict/batch bodies: see fuzz_http.h. */
#include "tests/fuzz/fuzz_http.h"

static void
check_results(const json_t *root)
{
	const json_t *results = json_object_get(root, "results");
	json_int_t count = json_integer_value(json_object_get(root, "count"));
	json_int_t failed = json_integer_value(json_object_get(root, "failed")), seen = 0;
	FUZZ_ASSERT(json_is_array(results) && (json_int_t)json_array_size(results) == count);
	for (size_t i = 0; i < json_array_size(results); i++) {
		const json_t *e = json_object_get(json_array_get(results, i), "error");
		char prefix[32];
		if (!e)
			continue;
		seen++;
		check_error(e, json_integer_value(json_object_get(e, "status")));
		FUZZ_ASSERT(json_integer_value(json_object_get(e, "index")) == (json_int_t)i);
		snprintf(prefix, sizeof prefix, "/%zu", i);
		const char *f = json_string_value(json_object_get(e, "field"));
		FUZZ_ASSERT(f && strncmp(f, prefix, strlen(prefix)) == 0);
	}
	FUZZ_ASSERT(seen == failed);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	wc_response res = { 0 };
	wc_answer_predict_batch(fuzz_profiles, (const char *)data, size, &res);
	json_t *root = check_answer(&res);
	if (res.status == 200) {
		FUZZ_PARSED();
		check_results(root);
	}
	json_decref(root);
	wc_response_free(&res);
	return 0;
}
