/*
 * models/record.h -- what a fitted part of a parameter set was made from.
 *
 * A record says which inputs, how many runs, which seed and how many
 * bootstrap replicates stand behind a part of the set, which tool wrote it
 * and when (docs/formats/params-file.md, "Provenance"). The inference law's
 * own record is the top-level `provenance`; a calibration of the law and a
 * fitted response carry their own (schema 10), so that no record mixes
 * two events. Plain data, owned by whatever embeds it; "" / 0 = unknown.
 */
#ifndef WC_MODELS_RECORD_H
#define WC_MODELS_RECORD_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
	char fitted_on[160];   /* the inputs as given, or the first and how many more */
	char input_sha256[65]; /* 64 lowercase hex digits */
	int runs;              /* runs behind the part */
	uint64_t seed;         /* of its replicates */
	int bootstrap;         /* replicates asked for; 0 = none */
	char tool_version[16];
	char created_utc[24];  /* YYYY-MM-DDTHH:MM:SSZ */
} wc_record;

/** 1 when the record says anything (a runs count or an input). */
static inline int
wc_record_present(const wc_record *r)
{
	return r->runs > 0 || r->input_sha256[0] || r->fitted_on[0];
}

#ifdef __cplusplus
}
#endif
#endif
