/*
 * GPU UUIDs compared as what they name: NVIDIA's are hex
 * ("GPU-c5d32af0-..."), which nvidia-smi writes in lower case and a
 * manifest or an exporter may write in upper case; the same GPU either
 * way (docs/formats/telemetry.md, "`power.csv`: nvidia-smi", gpu_uuids).
 */
#include "data/telemetry.h"

#include <string.h>

static char
lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

int
wc_telemetry_uuid_same(const char *a, const char *b, size_t blen)
{
	if (strlen(a) != blen)
		return 0;
	for (size_t i = 0; i < blen; i++)
		if (lower(a[i]) != lower(b[i]))
			return 0;
	return 1;
}

const char *
wc_telemetry_gpu_word(const char *name)
{
	static const char *const own[] = { "gpu-", "mig-" };
	for (size_t i = 0; i < sizeof own / sizeof own[0]; i++)
		if (strlen(name) >= 4 && wc_telemetry_uuid_same(own[i], name, 4))
			return "";
	return "GPU ";
}
