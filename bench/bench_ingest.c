/*
 * Benchmark (not a test) of the nvidia-smi ingest path: the streaming
 * reader alone, then reader + the bounded per-GPU and group metrics that
 * `wattcast metrics` computes (the same function, trace/stream_log.h), on
 * one log. Prints wall time, CPU time (all threads), throughput and peak
 * RSS (getrusage). bench/run_ingest.sh runs it beside the CLI and the
 * pandas peer.
 *
 * usage: bench_ingest POWER.csv
 */
#include "data/data.h"
#include "trace/trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

typedef struct {
	double checksum;
} sink;

/* Seconds on clock `which`: CLOCK_MONOTONIC for wall time, the CPU time of
 * the whole process (every thread), or of this thread alone (the reader:
 * the critical path of `wattcast metrics`). */
static double
clock_s(clockid_t which)
{
	struct timespec ts;
	clock_gettime(which, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int
count_only(double t, const double *w, int n_gpus, void *payload)
{
	sink *k = payload;
	(void)t;
	k->checksum += w[n_gpus - 1]; /* touch the values */
	return 0;
}

int
main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: bench_ingest POWER.csv\n");
		return 2;
	}
	struct stat st;
	if (stat(argv[1], &st) != 0) {
		perror(argv[1]);
		return 1;
	}
	double mb = (double)st.st_size / 1048576.0;
	wc_error err;
	wc_nvsmi_info info;
	sink k = { 0.0 };

	double t0 = clock_s(CLOCK_MONOTONIC), c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID),
	       r0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
	if (wc_nvsmi_read(argv[1], NULL, count_only, &k, &info, &err) != WC_OK) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	double t1 = clock_s(CLOCK_MONOTONIC), c1 = clock_s(CLOCK_PROCESS_CPUTIME_ID),
	       r1 = clock_s(CLOCK_THREAD_CPUTIME_ID);
	printf("read only:      %8.3f s  %7.1f MB/s  %6.1f M lines/s  CPU %.3f s, reader thread %.3f s  "
	       "(%zu samples x %d GPUs)\n", t1 - t0, mb / (t1 - t0), (double)info.data_lines / (t1 - t0) / 1e6,
	       c1 - c0, r1 - r0, info.samples, info.n_gpus);

	/* What `wattcast metrics` runs (trace/stream_log.h: reader, metrics
	 * thread, traces finished two at a time). */
	wc_trace_log_metrics *m = malloc(sizeof *m);
	if (!m || wc_trace_log_measure(argv[1], NULL, m, &err) != WC_OK) {
		fprintf(stderr, "%s\n", m ? err.msg : "out of memory");
		free(m);
		return 1;
	}
	double t2 = clock_s(CLOCK_MONOTONIC), c2 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	printf("read + metrics: %8.3f s  %7.1f MB/s  CPU %.3f s  group energy %.6g J, mean %.1f W (%s%s)\n",
	       t2 - t1, mb / (t2 - t1), c2 - c1, m->group.energy_j, m->group.mean_w,
	       m->exact ? "exact" : "bounded mode", m->reads > 1 ? ", read twice" : "");
	printf("peak RSS:       %8.1f MB\n", (double)ru.ru_maxrss / 1024.0);
	free(m);
	return 0;
}
