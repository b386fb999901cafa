/*
 * What an envelope test runs on: Qwen3-8B on one A100, a law's power map
 * and the roofline stand-in's service times.
 */
#ifndef WC_TESTS_ENVELOPE_SETUP_H
#define WC_TESTS_ENVELOPE_SETUP_H

#include "predict/envelope_power.h"
#include "predict/envelope_service.h"

typedef struct {
	wc_config c;
	wc_capacity_service_store rs;
	wc_service_times st;
	wc_power_map_law store;
	wc_power_map pm;
} envelope_setup;

/** Fill `s`: the configuration (tp 1, the catalog's active parameters),
 *  the stand-in's service times and the power map of law `law`; a
 *  refusal is a failed CHECK. */
void envelope_setup_init(envelope_setup *s, const wc_params *law);

/** Whether member `key` of object `obj` of JSON `text` is the string
 *  `want` (the envelope's fleet.mode, the plan's plan.fleet_mode); what
 *  it is printed when not. */
int envelope_json_is(const char *text, const char *obj, const char *key, const char *want);

#endif
