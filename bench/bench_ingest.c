/*
 * Benchmark (not a test) of the nvidia-smi ingest path: the streaming
 * reader alone, then reader + the bounded per-GPU and group metrics that
 * `wattcast metrics` computes, on one log. Prints wall time, throughput and
 * peak RSS (getrusage). bench/run_ingest.sh runs it beside the CLI and the
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
	wc_trace_stream *s[WC_TELEMETRY_MAX_GPUS + 1];
	int n;
	double checksum;
	wc_error *err;
	const wc_nvsmi_info *info; /* the read's progress, for bounding early */
	double file_bytes;
} sink;

static double
now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
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

static int
to_streams(double t, const double *w, int n_gpus, void *payload)
{
	sink *k = payload;
	double sum = 0;
	for (int g = 0; g <= n_gpus; g++) {
		if (!k->s[g] && !(k->s[g] = wc_trace_stream_new(0)))
			return -1;
		if (g > k->n)
			k->n = g;
		double v = g < n_gpus ? w[g] : sum;
		if (g < n_gpus)
			sum += w[g];
		if (wc_trace_stream_push(k->s[g], t, v, k->err) != WC_OK)
			return -1;
	}
	/* As `wattcast metrics` does: the same rule (trace/stream.h). */
	if (wc_trace_stream_bound_early(k->info->samples, k->info->bytes_read, k->file_bytes))
		for (int g = 0; g <= k->n; g++)
			if (wc_trace_stream_bound(k->s[g], k->err) != WC_OK)
				return -1;
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
	sink k = { { NULL }, 0, 0.0, &err, &info, (double)st.st_size };

	double t0 = now();
	if (wc_nvsmi_read(argv[1], NULL, count_only, &k, &info, &err) != WC_OK) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	double t1 = now();
	printf("read only:      %8.3f s  %7.1f MB/s  %6.1f M lines/s  (%zu samples x %d GPUs)\n", t1 - t0,
	       mb / (t1 - t0), (double)info.data_lines / (t1 - t0) / 1e6, info.samples, info.n_gpus);

	if (wc_nvsmi_read(argv[1], NULL, to_streams, &k, &info, &err) != WC_OK) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	if (wc_trace_stream_bound_too_early(k.s[k.n]))
		printf("note: bounded too early (wattcast metrics would read this file again)\n");
	wc_trace_metrics m;
	int exact = 1;
	for (int g = 0; g <= k.n; g++)
		if (wc_trace_stream_finish(k.s[g], &m, &exact, &err) != WC_OK) {
			fprintf(stderr, "%s\n", err.msg);
			return 1;
		}
	double t2 = now();
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	printf("read + metrics: %8.3f s  %7.1f MB/s  group energy %.6g J, mean %.1f W (%s; one thread)\n",
	       t2 - t1, mb / (t2 - t1), m.energy_j, m.mean_w, exact ? "exact" : "bounded mode");
	printf("peak RSS:       %8.1f MB\n", (double)ru.ru_maxrss / 1024.0);
	for (int g = 0; g <= k.n; g++)
		wc_trace_stream_free(k.s[g]);
	return 0;
}
