/*
 * Runs tables (data/runs_table.c) and the n(t) series files they name
 * (data/series.c). The input is the table; after its first NUL byte, the
 * rest is the series file `s.csv` beside it, so one input reaches both
 * readers (a table row with n_series = s.csv). Paths into /dev, /proc or
 * /sys are not followed (fuzz_names_device).
 */
#include "data/data.h"
#include "tests/fuzz/fuzz_common.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, 0, size);
	size_t tlen = nul ? (size_t)(nul - data) : size;
	char table[512];
	wc_runs_table *t = NULL;
	wc_error err;
	if (fuzz_names_device(data, tlen))
		return 0;
	fuzz_file("s.csv", nul ? nul + 1 : data, nul ? size - tlen - 1 : 0);
	snprintf(table, sizeof table, "%s/runs.csv", fuzz_folder());
	if (wc_runs_read_buffer((const char *)data, tlen, table, &t, &err) == WC_OK) {
		FUZZ_PARSED();
		for (size_t i = 0; i < t->n_runs; i++) {
			const wc_run *r = &t->runs[i];
			FUZZ_ASSERT(r->tp >= 1 && r->tp <= 4096);
			FUZZ_ASSERT(r->active_params_b > 0);
			FUZZ_ASSERT(memchr(r->run_id, 0, sizeof r->run_id) != NULL);
			for (size_t k = 0; k < t->extra.n; k++)
				FUZZ_ASSERT(wc_runs_get_extra(t, i, t->extra.names[k]) != NULL);
		}
	} else {
		FUZZ_ONE_LINE(err.msg);
	}
	wc_runs_free(t);
	return 0;
}
