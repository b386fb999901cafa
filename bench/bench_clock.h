/*
 * The benchmarks' clock of CPU time: what one thread spent, so answers
 * timed on a loaded machine are not charged the other processes' time.
 * Header-only (each benchmark is its own executable).
 */
#ifndef WC_BENCH_CLOCK_H
#define WC_BENCH_CLOCK_H

#include <time.h>

static inline double
cpu_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#endif
