/*
 * vLLM engine counters (data/engine_csv.c): rows strictly later than the
 * one before, counters made monotone, values at any time well defined.
 */
#include "data/data.h"
#include "tests/fuzz/fuzz_common.h"

#include <math.h>

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file("engine.csv", data, size);
	wc_telemetry_options opt = WC_TELEMETRY_OPTIONS_INIT;
	wc_engine_log *e = NULL;
	wc_error err;
	opt.max_warnings = 0;
	if (wc_engine_read(path, &opt, (size_t)1 << 16, &e, &err) != WC_OK) {
		FUZZ_ONE_LINE(err.msg);
		return 0;
	}
	FUZZ_PARSED();
	for (size_t i = 0; i < e->n; i++) {
		FUZZ_ASSERT(isfinite(e->t[i]));
		if (i > 0)
			FUZZ_ASSERT(e->t[i] > e->t[i - 1]);
	}
	for (int c = 0; c < WC_ENG_COLUMNS; c++) {
		if (!e->col[c] || e->n == 0)
			continue;
		double span = e->t[e->n - 1] - e->t[0];
		for (int k = -1; k <= 4; k++)
			(void)wc_engine_value_at(e, (wc_engine_column)c, e->t[0] + span * k / 3.0);
	}
	wc_engine_free(e);
	return 0;
}
