/*
 * The ML.ENERGY Leaderboard import (data/import.c): a table that imports
 * has unique run ids (the runs-table reader refuses duplicates) that fit
 * their field, and tp within 1..4096. The bytes go to the in-memory entry
 * (wc_import_mlenergy_buffer, what wc_import_mlenergy calls once it has
 * read the file): no file per input, and ASan sees a read past the end.
 */
#include "data/data.h"
#include "tests/fuzz/fuzz_common.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	wc_runs_table *t = NULL;
	wc_error err;
	if (wc_import_mlenergy_buffer((const char *)data, size, "configurations.csv", &t, &err) != WC_OK) {
		FUZZ_ONE_LINE(err.msg);
		return 0;
	}
	FUZZ_PARSED();
	for (size_t i = 0; i < t->n_runs; i++) {
		const wc_run *r = &t->runs[i];
		FUZZ_ASSERT(r->tp >= 1 && r->tp <= 4096);
		FUZZ_ASSERT(strlen(r->run_id) < sizeof r->run_id);
		/* Unique ids; tables here are small (max_len), so pairwise. */
		for (size_t j = 0; j < i && t->n_runs <= 2048; j++)
			FUZZ_ASSERT(strcmp(r->run_id, t->runs[j].run_id) != 0);
	}
	wc_runs_free(t);
	return 0;
}
