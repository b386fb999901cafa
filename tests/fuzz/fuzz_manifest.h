/*
 * Run manifests (data/run_manifest.c). The two formats are told apart by
 * their keys, so each harness puts its format's marker first and the
 * input supplies the rest of the object: `{"schema":"wattcast.run/1",`
 * (strict, own format) or `{"manifest_version":2,` (powertrace-sim,
 * lenient) followed by the bytes. A manifest that loads states a tp of
 * 1..4096 or none, and layering it over defaults keeps that. The bytes
 * go to the in-memory entry (wc_run_manifest_load_buffer, what
 * wc_run_manifest_load calls once it has read the file): no file per input.
 */
#ifndef WC_FUZZ_MANIFEST_H
#define WC_FUZZ_MANIFEST_H

#include "data/data.h"
#include "tests/fuzz/fuzz_common.h"

#include <math.h>

static inline int
fuzz_manifest(const char *prefix, const uint8_t *data, size_t size)
{
	size_t plen = strlen(prefix);
	uint8_t *text = malloc(plen + size);
	wc_run_manifest m, d;
	wc_error err;
	FUZZ_ASSERT(text != NULL);
	memcpy(text, prefix, plen);
	if (size)
		memcpy(text + plen, data, size);
	wc_run_manifest_init(&m);
	if (wc_run_manifest_load_buffer((const char *)text, plen + size, "manifest.json", &m, &err) == WC_OK) {
		FUZZ_PARSED();
		FUZZ_ASSERT(m.tp >= 0 && m.tp <= 4096);
		FUZZ_ASSERT(m.n_gpu_uuids >= 0 && m.n_gpu_uuids <= WC_TELEMETRY_MAX_GPUS);
		FUZZ_ASSERT(memchr(m.run_id, 0, sizeof m.run_id) && memchr(m.model, 0, sizeof m.model));
		wc_run_manifest_init(&d);
		d.tp = 8;
		wc_run_manifest_fill(&m, &d);
		FUZZ_ASSERT(m.tp >= 1 && m.tp <= 4096);
	} else {
		FUZZ_ONE_LINE(err.msg);
	}
	free(text);
	return 0;
}

#endif
