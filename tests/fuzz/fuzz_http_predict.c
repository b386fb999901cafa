/* POST /v1/predict/inference bodies: see fuzz_http.h. */
#include "tests/fuzz/fuzz_http.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	wc_response res = { 0 };
	wc_answer_predict_inference(fuzz_profiles, (const char *)data, size, &res);
	json_t *root = check_answer(&res);
	if (res.status == 200) {
		FUZZ_PARSED();
		FUZZ_ASSERT(json_is_number(json_object_get(root, "node_power_w")));
	}
	json_decref(root);
	wc_response_free(&res);
	return 0;
}
