/*
 * Benchmark (not a test) of one fresh answer in process: the CPU time of
 * wc_answer_predict_inference (parse the body, predict with every capacity
 * field, build the object, print it) on bodies that differ every time, as
 * bench_server's varied route sends them, without sockets or CivetWeb.
 * Thread CPU time, so a shared machine changes it less than wall time.
 *
 * It says whether libquadmath is loaded: OpenBLAS, linked for the fit,
 * needs libgfortran, which loads it, and its constructor registers printf
 * handlers, after which glibc formats every number on its slow path
 * (docs/results.md, "Server speed"). When it is not loaded, a second pass
 * after loading it (dlopen) shows that cost.
 *
 * usage: bench_answer [N]      (default 200000 answers per pass)
 */
#include "bench/bench_clock.h"
#include "data/data.h"
#include "server/server_internal.h"

#include <dlfcn.h>
#include <gsl/gsl_errno.h>
#include <stdio.h>
#include <stdlib.h>

/* Microseconds of CPU per answer over n bodies; the answers' total length
 * into *bytes (so the work cannot be optimised away). */
static double
pass(const wc_profiles *pf, long n, size_t *bytes)
{
	char body[256];
	*bytes = 0;
	double t0 = cpu_seconds();
	for (long i = 0; i < n; i++) {
		/* Concurrency 1-200 x output 64-1087, as bench_server's varied bodies. */
		int len = snprintf(body, sizeof body,
		                   "{\"platform\":\"H100\",\"tp\":1,\"model\":\"Qwen3-8B\",\"concurrency\":%ld,"
		                   "\"input_tokens\":500,\"output_tokens\":%ld,\"price_per_kwh\":0.15,"
		                   "\"grams_co2_per_kwh\":400}",
		                   1 + i % 200, 64 + (i * 7919) % 1024);
		wc_response res = { 0 };
		wc_answer_predict_inference(pf, body, (size_t)len, &res);
		if (res.status != 200) {
			fprintf(stderr, "bench_answer: status %d: %.*s\n", res.status, (int)res.len, res.body);
			exit(1);
		}
		*bytes += res.len;
		wc_response_free(&res);
	}
	return (cpu_seconds() - t0) / (double)n * 1e6;
}

int
main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 200000;
	wc_params p = WC_PARAMS_INIT;
	wc_profiles *pf = NULL;
	wc_error err;
	size_t bytes;
	gsl_set_error_handler_off();
	json_object_seed(0);
	wc_params_default(&p);
	const wc_params *sets[1] = { &p };
	const char *sources[1] = { "built-in" };
	if (n <= 0 || wc_profiles_new(1, sets, sources, &pf, &err) != WC_OK) {
		fprintf(stderr, "usage: bench_answer [N > 0]\n");
		return 2;
	}
	pass(pf, n / 10 + 1, &bytes); /* warm the caches and the allocator */
	double plain = pass(pf, n, &bytes);
	int had_quad = dlopen("libquadmath.so.0", RTLD_NOW | RTLD_NOLOAD) != NULL;
	printf("fresh answer, as linked:          %.2f us of CPU (%zu bytes an answer; libquadmath %s)\n",
	       plain, bytes / (size_t)n, had_quad ? "loaded" : "not loaded");
	if (had_quad) {
		/* Nothing to compare: the handlers are already registered. */
	} else if (dlopen("libquadmath.so.0", RTLD_NOW | RTLD_GLOBAL)) {
		double quad = pass(pf, n, &bytes);
		printf("fresh answer, libquadmath loaded: %.2f us of CPU (%.2fx)\n", quad, quad / plain);
	} else {
		printf("libquadmath not found: %s\n", dlerror());
	}
	printf("load average: ");
	fflush(stdout);
	if (system("cut -d' ' -f1-3 /proc/loadavg") != 0)
		printf("?\n");
	wc_profiles_release(pf);
	wc_params_clear(&p);
	return 0;
}
