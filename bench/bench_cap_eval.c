/*
 * Benchmark (not a test) of the answer a power cap's clock is made of
 * (predict/clock.c): one capacity answer at one locked clock, without
 * draws, as the solver asks it up to WC_CLOCK_CAP_EVALS times per
 * settle. For every board of the catalog, on the built-in set, the worst
 * over three models (Qwen3-8B on 1 GPU, Llama-3.1-70B on 4, the MoE
 * Qwen3-30B-A3B on 2) and five loads (closed loops of 32 and 256, open
 * loops at 0.5, 5 and 50 requests/s), each timed over clocks spread over
 * the board's range. The peer, in the same run: the boards with a level
 * of the set; the others are answered from their datasheet
 * (docs/fitting.md, "Platforms without a fitted level"). The worst of
 * all is what server/server.h charges a cap's answer
 * (WC_SERVER_BATCH_CHARGE_CAP_EVAL, one law evaluation about 50 ns).
 * Thread CPU time, so a shared machine changes it less than wall time.
 * Timed with libquadmath loaded, as in the server: OpenBLAS, linked for
 * the fit, loads it, and glibc then formats every number (the answers'
 * warnings) on its slow path (docs/results.md, "Server speed").
 *
 * usage: bench_cap_eval [N]      (default 400 answers per case)
 */
#include "bench/bench_clock.h"
#include "predict/capacity_predict.h"
#include "predict/predict.h"
#include "server/server.h"

#include <dlfcn.h>
#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* The worst microseconds of CPU per answer on `info` over the cases; its
 * case into `worst`. */
static double
board(const wc_predictor *pr, const wc_platform_info *info, int n, wc_capacity_prediction *cp, char *worst,
      size_t cap)
{
	static const char *const models[] = { "Qwen3-8B", "Llama-3.1-70B", "Qwen3-30B-A3B" };
	static const int tps[] = { 1, 4, 2 };
	static const double running[] = { 32, 256, 256, 256, 256 }, rates[] = { 0, 0, 0.5, 5, 50 };
	double most = 0.0;
	wc_error err;
	for (int m = 0; m < 3; m++)
		for (int k = 0; k < 5; k++) {
			wc_inference_query q = { .config = WC_CONFIG_INIT };
			q.config.platform = info->name;
			q.config.tp = tps[m];
			q.config.model = models[m];
			q.config.arch = wc_model_lookup(models[m]);
			q.config.active_params_b = q.config.arch ? q.config.arch->active_params_b : 8.0;
			q.config.input_tokens = 2000;
			q.config.output_tokens = 300;
			q.config.running = running[k];
			q.config.request_rate = rates[k];
			int ok = 1;
			double t0 = cpu_seconds();
			for (int i = 0; i < n && ok; i++) {
				q.config.sm_clock_mhz = info->min_sm_clock_mhz +
				                        (info->max_sm_clock_mhz - info->min_sm_clock_mhz) * (i % 47) / 47.0;
				ok = wc_predict_capacity(pr, &q, NAN, NAN, cp, &err) == WC_OK;
			}
			double us = (cpu_seconds() - t0) / n * 1e6;
			if (ok && us > most) {
				most = us;
				snprintf(worst, cap, "%s tp %d, %s%g", models[m], tps[m], rates[k] > 0 ? "rate " : "concurrency ",
				         rates[k] > 0 ? rates[k] : running[k]);
			}
		}
	return most;
}

int
main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 400;
	wc_params p = WC_PARAMS_INIT;
	wc_predictor *pr = NULL;
	wc_capacity_prediction *cp = malloc(sizeof *cp);
	wc_error err;
	char what[160];
	gsl_set_error_handler_off();
	wc_params_default(&p);
	if (n <= 0 || !cp || wc_predictor_new(&p, &pr, &err) != WC_OK) {
		fprintf(stderr, "usage: bench_cap_eval [N > 0]\n");
		return 2;
	}
	if (!dlopen("libquadmath.so.0", RTLD_NOW | RTLD_GLOBAL))
		printf("libquadmath not found (%s): timed on glibc's fast path, faster than the server\n", dlerror());
	double worst[2] = { 0, 0 };
	board(pr, wc_platform_at(0), n / 10 + 1, cp, what, sizeof what); /* warm the caches */
	for (size_t i = 0; i < wc_platform_count(); i++) {
		const wc_platform_info *info = wc_platform_at(i);
		int sheet = wc_params_level(&p, info->name) == NULL;
		double us = board(pr, info, n, cp, what, sizeof what);
		printf("%-15s %-9s %6.2f us an answer at most (%s)\n", info->name, sheet ? "datasheet" : "fitted", us, what);
		worst[sheet] = us > worst[sheet] ? us : worst[sheet];
	}
	printf("CAP_EVAL_US_FITTED %.2f\nCAP_EVAL_US_DATASHEET %.2f\n", worst[0], worst[1]);
	printf("datasheet / fitted: %.2fx; worst %.2f us = %.0f law evaluations of 50 ns (charged %.0f)\n",
	       worst[1] / worst[0], fmax(worst[0], worst[1]), fmax(worst[0], worst[1]) / 0.05,
	       WC_SERVER_BATCH_CHARGE_CAP_EVAL);
	wc_predictor_free(pr);
	wc_params_clear(&p);
	free(cp);
	return 0;
}
