/* Per-request logs as JSON (requests.json): see fuzz_requests.h. */
#include "tests/fuzz/fuzz_requests.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_requests("requests.json", data, size);
}
