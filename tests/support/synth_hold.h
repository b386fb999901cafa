/*
 * The assumed-hold cases of envelopes and budget plans (docs/envelopes.md,
 * "Assumed response"): A100 Qwen3-8B at 32 running and idle by turns every
 * 0.25 s over 600 s, which spends 20 % of its horizon in the 0.1 s hold.
 * One n(t) for the HTTP body, the CLI's series file and the warning's
 * search, so the envelope's and the plan's tests ask the same question.
 *
 * Ownership: synth_hold_body returns a malloc'd string the caller frees;
 * synth_hold_warning returns a string borrowed from `ws`.
 */
#ifndef WC_TESTS_SYNTH_HOLD_H
#define WC_TESTS_SYNTH_HOLD_H

#include <jansson.h>

/** Samples of the alternating n(t): 600 s at 0.25 s. */
#define SYNTH_HOLD_SAMPLES 2400

/** The JSON body: platform, model and the n(t) workload, then `tail`
 *  (members without a leading comma, e.g. "\"horizon_s\":600"), then
 *  `response` ("" = none) as a last member. */
char *synth_hold_body(const char *tail, const char *response);
/** The n(t) as a `t_s,running` file at `path`; 0 on success. */
int synth_hold_series_file(const char *path);
/** The one `hold_s:` warning of `ws`, or NULL (CHECKs there is at most one). */
const char *synth_hold_warning(const json_t *ws);

#endif
