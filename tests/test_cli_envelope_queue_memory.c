/*
 * `wattcast envelope` refuses before any work what its engines' waiting
 * queues could not hold (docs/envelopes.md, "Limits and choices, in one
 * place"), and a fleet sharing arrivals past the grids its servers' own
 * limits may hold, as every other bound does: exit 2 naming the flags.
 *
 * An open loop of 2000 req/s on one A100 over a day queues nearly every
 * arrival (1.7e8 requests, 48 bytes each at the ring's peak): the memory
 * guard counted only the bands, and under `ulimit -v 3000000` the run
 * failed "out of memory" after about 5 s, exit 1, no flag named. 234
 * round-robin servers over an hour (234 x 72000 bins, over 2^24) failed
 * in the run, exit 1, naming the library's fleet_size. The memory part is
 * skipped under AddressSanitizer, whose shadow memory cannot be mapped in
 * 3 GB.
 */
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

static void
test_shared_fleet_grids(void)
{
	const char *argv[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--poisson", "0.5",
		               "--fleet", "234", "--fleet-mode", "round_robin", "--horizon", "3600", "--replicas", "1",
		               "--quiet", NULL };
	run_result r;
	CHECK_INT(run_wattcast_limited(argv, NULL, 60, &r), 0);
	CHECK_INT(r.status, 2);
	CHECK_CONTAINS(r.err, "--fleet: 234 servers sharing arrivals, each on a grid of its own of 72000 bins");
	CHECK_CONTAINS(r.err, "exceed the 233 such grids");
	CHECK_CONTAINS(r.err, "lower the fleet or shorten --horizon");
	CHECK(strstr(r.err ? r.err : "", "fleet_size") == NULL);
	CHECK(r.err && strlen(r.err) <= 256);
	CHECK(r.out == NULL || r.out[0] == '\0');
	run_result_free(&r);
}

static void
test_queue_memory(void)
{
#ifdef WC_TEST_ASAN
	printf("test_cli_envelope_queue_memory: queue part skipped: AddressSanitizer cannot map its shadow memory "
	       "under a 3 GB address-space limit\n");
	return;
#endif
	struct rlimit old, lim;
	CHECK_INT(getrlimit(RLIMIT_AS, &old), 0);
	lim = old;
	lim.rlim_cur = (rlim_t)3000000ULL * 1024;
	if (old.rlim_max != RLIM_INFINITY && old.rlim_max < lim.rlim_cur)
		lim.rlim_cur = old.rlim_max;
	CHECK_INT(setrlimit(RLIMIT_AS, &lim), 0);
	const char *argv[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--poisson", "2000",
		               "--horizon", "86400", "--replicas", "1", "--quiet", NULL };
	run_result r;
	/* 60 s of CPU: unrefused it simulated until memory ran out */
	CHECK_INT(run_wattcast_limited(argv, NULL, 60, &r), 0);
	CHECK_INT(r.status, 2);
	CHECK_CONTAINS(r.err, "--poisson, --horizon: the queues may hold 1.73e+08 requests (1 server at once)");
	CHECK_CONTAINS(r.err, "8.3 GB at 48 bytes each");
	CHECK(r.err && strlen(r.err) <= 256);
	CHECK(r.out == NULL || r.out[0] == '\0');
	run_result_free(&r);
	CHECK_INT(setrlimit(RLIMIT_AS, &old), 0);
}

int
main(void)
{
	test_shared_fleet_grids();
	test_queue_memory();
	return check_report("test_cli_envelope_queue_memory");
}
