/* The powertrace-sim manifest.json: see fuzz_manifest.h. */
#include "tests/fuzz/fuzz_manifest.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_manifest("{\"manifest_version\":2,", data, size);
}
