/*
 * Prometheus query_range responses (data/prom_json.c): every accepted
 * series has a metric name and samples at strictly increasing finite
 * times; errors are one line.
 */
#include "data/prom.h"
#include "tests/fuzz/fuzz_common.h"

#include <math.h>
#include <string.h>

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	wc_prom_set set = { 0 };
	wc_error err;
	if (wc_prom_json_parse((const char *)data, size, "response.json", NULL, &set, NULL, NULL, &err) == WC_OK) {
		FUZZ_PARSED();
		for (size_t i = 0; i < set.n; i++) {
			const wc_prom_series *s = &set.s[i];
			FUZZ_ASSERT(s->metric && s->metric[0]);
			for (size_t k = 0; k < s->n; k++) {
				FUZZ_ASSERT(isfinite(s->t[k]));
				if (k > 0)
					FUZZ_ASSERT(s->t[k] > s->t[k - 1]);
			}
		}
	} else {
		FUZZ_ONE_LINE(err.msg);
	}
	wc_prom_set_clear(&set);
	return 0;
}
