/*
 * `wattcast envelope --json` charges its answer's per-bin values in the
 * memory check, before the simulation (docs/envelopes.md, "Limits and
 * choices, in one place"): a week's n(t) at 1 s steps in 0.05 s bins is
 * 1.21e7 bins x 5 arrays, about 5.8 GB of jansson tree and text, and the
 * check charged only the bands (0.2 GB): under `ulimit -v 8000000` it
 * simulated for 58 s, then failed "render: out of memory" with no output.
 * Here the address space is limited to 4 GB (the check takes the smaller of
 * it and the machine's memory): refused before simulating (well inside a
 * 30 s CPU limit), exit 2, naming --bin and --horizon. Skipped under
 * AddressSanitizer, whose shadow memory cannot be mapped in 4 GB.
 */
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

int
main(void)
{
#ifdef WC_TEST_ASAN
	printf("test_cli_envelope_json_memory: skipped: AddressSanitizer cannot map its shadow memory under a 4 GB address-space limit\n");
	return TEST_SKIP;
#endif
	char *dir = test_tmpdir("cli_envelope_json_memory"), *ns = path_join(dir, "week.csv");
	FILE *f = fopen(ns, "w");
	CHECK(f != NULL);
	if (!f)
		return check_report("test_cli_envelope_json_memory");
	fputs("t_s,running\n", f);
	unsigned s = 12345;
	for (int t = 0; t < 604800; t++) {
		s = s * 1103515245u + 12345u;
		fprintf(f, "%d,%u\n", t, (s >> 16) % 41);
	}
	fclose(f);
	struct rlimit old, lim;
	CHECK_INT(getrlimit(RLIMIT_AS, &old), 0);
	lim = old;
	lim.rlim_cur = (rlim_t)4000000000ULL;
	if (old.rlim_max != RLIM_INFINITY && old.rlim_max < lim.rlim_cur)
		lim.rlim_cur = old.rlim_max;
	CHECK_INT(setrlimit(RLIMIT_AS, &lim), 0);
	const char *fleets[] = { NULL, "3" };
	for (int i = 0; i < 2; i++) {
		const char *argv[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B",
			               "--n-series", ns, "--horizon", "604800", "--bin", "0.05", "--replicas", "40",
			               "--quiet", "--json", fleets[i] ? "--fleet" : NULL, fleets[i], NULL };
		run_result r;
		/* 30 s of CPU: without the charge it simulated for about 55 s */
		CHECK_INT(run_wattcast_limited(argv, NULL, 30, &r), 0);
		CHECK_INT(r.status, 2);
		char want[128];
		snprintf(want, sizeof want, "--bin, --horizon: --json would carry %s per-bin values (12096000 bins of 0.05 s)",
		         i ? "120960000" : "60480000");
		CHECK_CONTAINS(r.err, want);
		CHECK_CONTAINS(r.err, "use wider bins, a shorter horizon or the text output");
		CHECK(strlen(r.err) <= 256);
		CHECK(r.out == NULL || r.out[0] == '\0');
		run_result_free(&r);
	}
	CHECK_INT(setrlimit(RLIMIT_AS, &old), 0);
	remove(ns);
	free(ns);
	free(dir);
	return check_report("test_cli_envelope_json_memory");
}
