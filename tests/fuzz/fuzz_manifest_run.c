/* wattcast's own run manifest (wattcast-run.json): see fuzz_manifest.h. */
#include "tests/fuzz/fuzz_manifest.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_manifest("{\"schema\":\"wattcast.run/1\",", data, size);
}
