/*
 * Platform facts: memory, bandwidth and BF16 throughput as the
 * LLM-PowerTrace appendix publishes them, B200 from NVIDIA's HGX B200
 * datasheet (dense BF16 = half the sparse figure); max SM clocks from the
 * vendors' specifications (used to bound locked-clock requests).
 */
#include "models/catalog.h"

#include <string.h>

static const wc_platform_info platforms[] = {
	/* name,  arch,           GB,  TB/s,  TFLOPS, W,    MHz */
	{ "L40S", "Ada Lovelace", 48,  0.864, 362,  350,  2520 },
	{ "A100", "Ampere",       80,  2.04,  312,  400,  1410 },
	{ "H100", "Hopper",       80,  3.35,  989,  700,  1980 },
	{ "H200", "Hopper",       141, 4.8,   989,  700,  1980 },
	{ "B200", "Blackwell",    180, 8.0,   2250, 1000, 1965 },
};

size_t
wc_platform_count(void)
{
	return sizeof platforms / sizeof platforms[0];
}

const wc_platform_info *
wc_platform_at(size_t i)
{
	return i < wc_platform_count() ? &platforms[i] : NULL;
}

const wc_platform_info *
wc_platform_lookup(const char *name)
{
	for (size_t i = 0; name && i < wc_platform_count(); i++)
		if (strcmp(platforms[i].name, name) == 0)
			return &platforms[i];
	return NULL;
}
