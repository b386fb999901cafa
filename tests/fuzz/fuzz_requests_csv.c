/* Per-request logs as CSV (requests.csv): see fuzz_requests.h. */
#include "tests/fuzz/fuzz_requests.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_requests("requests.csv", data, size);
}
