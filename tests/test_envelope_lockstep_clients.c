/*
 * One server's closed loop with a think time and lengths that draw
 * nothing runs its clients in step forever (docs/envelopes.md, "Closed
 * loops in lockstep"): they finish, think and send together, the server
 * idle in between. H100 Qwen3-8B, 32 clients thinking 10 s, 512 + 256
 * tokens gave a mean of 213.9 W with the median at idle power, against
 * 366.4 W with a length spread, and said nothing, where a fleet of the
 * same workload warns (wc__envelope_fleet_note, the one note of both).
 * Said whole, ending with the docs' name; not said without a think time
 * (the load never drops) nor with lengths drawn.
 */
#include "tests/support/support.h"

#include <jansson.h>
#include <string.h>

#define BASE                                                                                                 \
	"wattcast", "envelope", "--platform", "H100", "--model", "Qwen3-8B", "--closed", "32", "--horizon", "120", \
	        "--warmup", "10", "--json", "--quiet"

/* The think_s warnings of an envelope run by `argv`; the first in `*first`. */
static int
think_said(const char *const *argv, char *first, size_t cap)
{
	run_result r;
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	json_t *j = json_loads(r.out ? r.out : "", 0, NULL);
	const json_t *w = json_object_get(j, "warnings");
	int said = 0;
	first[0] = '\0';
	for (size_t i = 0; i < json_array_size(w); i++) {
		const char *m = json_string_value(json_array_get(w, i));
		if (m && strncmp(m, "think_s: ", 9) == 0 && said++ == 0)
			snprintf(first, cap, "%s", m);
	}
	json_decref(j);
	run_result_free(&r);
	return said;
}

int
main(void)
{
	char m[512];
	CHECK_INT(think_said((const char *const[]){ BASE, "--think", "10", "--input-tokens", "512", "--output-tokens",
	                                            "256", NULL },
	                     m, sizeof m),
	          1);
	CHECK_CONTAINS(m, "think_s: the 32 clients run in step (fixed lengths draw nothing): they finish, think 10 s, "
	                  "send together, the server idle between: mean, p50 and ramps are a square wave's");
	const char *end = "(docs/envelopes.md)";
	CHECK(strlen(m) > strlen(end) && strcmp(m + strlen(m) - strlen(end), end) == 0);
	CHECK(strlen(m) <= 255);
	/* no think time: every client back at once, the load never drops */
	CHECK_INT(think_said((const char *const[]){ BASE, "--input-tokens", "512", "--output-tokens", "256", NULL }, m,
	                     sizeof m),
	          0);
	/* lengths drawn: the clients drift apart */
	CHECK_INT(think_said((const char *const[]){ BASE, "--think", "10", "--input-tokens", "lognormal:512:400",
	                                            "--output-tokens", "lognormal:256:200", NULL },
	                     m, sizeof m),
	          0);
	return check_report("test_envelope_lockstep_clients");
}
