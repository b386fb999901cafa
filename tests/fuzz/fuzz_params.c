/*
 * Parameter files (data/params_read.c, wc_params_load_buffer): any bytes
 * in. A file that loads must dump and load again to the same set (the
 * same fingerprint): what the reader accepts, the writer can write.
 */
#include "data/data.h"
#include "tests/fuzz/fuzz_common.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	wc_params p = WC_PARAMS_INIT, q = WC_PARAMS_INIT;
	wc_error err;
	char fp[17], fq[17];
	if (wc_params_load_buffer((const char *)data, size, "fuzz.json", &p, &err) == WC_OK) {
		FUZZ_PARSED();
		char *dump = wc_params_dump(&p, 1, &err);
		FUZZ_ASSERT(dump != NULL);
		FUZZ_ASSERT(wc_params_load_buffer(dump, strlen(dump), "dump.json", &q, &err) == WC_OK);
		FUZZ_ASSERT(wc_params_fingerprint(&p, fp, &err) == WC_OK);
		FUZZ_ASSERT(wc_params_fingerprint(&q, fq, &err) == WC_OK);
		FUZZ_ASSERT(strcmp(fp, fq) == 0);
		free(dump);
	} else {
		FUZZ_ONE_LINE(err.msg);
	}
	wc_params_clear(&p);
	wc_params_clear(&q);
	return 0;
}
