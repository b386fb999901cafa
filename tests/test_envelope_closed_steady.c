/*
 * A closed loop without a think time holds its running count steady,
 * where the law gives one level, so its ramps and spectral entropy are
 * its prefill waves' alone: Fig. 29's closed loops of 32 ramp 55-94 W/s,
 * the envelope 0.1-30 W/s (docs/envelopes.md, "Closed loops against
 * Fig. 29"). Every such envelope says so, whether its lengths draw or
 * not (an output spread leaves the count steady too: ramps <= 8 W/s);
 * a think time (the load drops between turns) and an open loop do not.
 */
#include "tests/support/support.h"

#include <jansson.h>
#include <string.h>

#define BASE "wattcast", "envelope", "--platform", "H100", "--model", "Qwen3-8B", "--horizon", "60", "--json", "--quiet"

/* The concurrency warning of an envelope run by `argv`, in `said`. */
static int
steady_said(const char *const *argv, char *said, size_t cap)
{
	run_result r;
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	json_t *j = json_loads(r.out ? r.out : "", 0, NULL);
	const json_t *w = json_object_get(j, "warnings");
	int n = 0;
	said[0] = '\0';
	for (size_t i = 0; i < json_array_size(w); i++) {
		const char *m = json_string_value(json_array_get(w, i));
		if (m && strncmp(m, "concurrency: ", 13) == 0 && n++ == 0)
			snprintf(said, cap, "%s", m);
	}
	json_decref(j);
	run_result_free(&r);
	return n;
}

int
main(void)
{
	char m[512];
	CHECK_INT(steady_said((const char *const[]){ BASE, "--closed", "32", "--output-tokens", "512", NULL }, m,
	                      sizeof m),
	          1);
	CHECK_CONTAINS(m, "concurrency: 32 clients without a think time hold the running count steady, where the law "
	                  "gives one level: ramps and entropy are the prefill waves' alone, lower bounds (measured "
	                  "closed loops: 55-94 W/s) (docs/envelopes.md)");
	CHECK(strlen(m) <= 255);
	/* lengths drawn: desynchronised, the count steady all the same */
	CHECK_INT(steady_said((const char *const[]){ BASE, "--closed", "8", "--output-tokens", "lognormal:512:400",
	                                             "--replicas", "2", NULL },
	                      m, sizeof m),
	          1);
	/* a think time: the load drops between turns */
	CHECK_INT(steady_said((const char *const[]){ BASE, "--closed", "32", "--think", "2", NULL }, m, sizeof m), 0);
	/* an open loop: its count moves with its arrivals */
	CHECK_INT(steady_said((const char *const[]){ BASE, "--poisson", "2", "--replicas", "2", NULL }, m, sizeof m), 0);
	return check_report("test_envelope_closed_steady");
}
