/*
 * Closed-loop envelopes against the published Fig. 29 (label realdata;
 * ../shared's data/paper/figure_aggregates.csv read in place): the
 * caption's setup -- Qwen3-8B and Qwen3-14B pooled (arithmetic mean),
 * TP 1, 32 in flight, 512 output tokens (EOS ignored, so fixed) -- on
 * A100, H100 and H200, as `wattcast envelope --closed 32` answers it with
 * the default (`measured`) profile. The input length is not published:
 * at the design's length the capacity fit estimates (the set
 * "powertrace-paper") and at 512 tokens. Prints the mean power, the ramp
 * rate on 1-s means and the spectral entropy beside the caption's, and
 * pins each ratio to today's value: the mean is within 10 % on every
 * board, the ramps are 2 to 700 times too small and not in the
 * caption's board order. Why (docs/envelopes.md, "Closed loops against
 * Fig. 29"): at a steady 32 running the law gives one level, so the only
 * swings are the prefill waves of the loop's turnover, and on A100 the
 * board limit holds even those. Nothing here is tuned; a change that moves a number must
 * move this table and the page's.
 */
#include "data/params_file.h"
#include "predict/predict.h"
#include "tests/support/support.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { N_BOARDS = 3, N_QTY = 3, N_INPUTS = 2 };
static const char *const boards[N_BOARDS] = { "A100", "H100", "H200" };
static const char *const models[] = { "Qwen3-8B", "Qwen3-14B" };
/* the caption's quantity, the envelope summary's */
static const char *const published_name[N_QTY] = { "mean_power", "ramping_rate", "spectral_entropy" };
static const char *const summary_name[N_QTY] = { "mean_w", "ramp_w_per_s", "spectral_entropy" };

/* Fig. 29's value of `quantity` on `board`, NAN when the file lacks it. */
static double
published(const char *csv, const char *board, const char *quantity)
{
	char want[96];
	snprintf(want, sizeof want, "fig29,platform,%s,%s,", board, quantity);
	const char *at = strstr(csv, want);
	return at ? strtod(at + strlen(want), NULL) : NAN;
}

/* One envelope's summary value of each quantity; 0 on failure. */
static int
envelope(const char *board, const char *model, const char *input, double v[N_QTY])
{
	const char *argv[] = { "wattcast", "envelope", "--platform", board, "--model", model, "--closed", "32",
		               "--input-tokens", input, "--output-tokens", "512", "--horizon", "600", "--warmup",
		               "60", "--replicas", "3", "--json", "--quiet", NULL };
	run_result r;
	int ok = run_wattcast(argv, NULL, &r) == 0 && r.status == 0;
	json_t *j = ok ? json_loads(r.out, 0, NULL) : NULL;
	for (int q = 0; q < N_QTY; q++) {
		json_t *s = json_object_get(json_object_get(json_object_get(j, "server"), "summary"), summary_name[q]);
		v[q] = json_number_value(json_object_get(s, "value"));
		ok = ok && json_is_number(json_object_get(s, "value"));
	}
	if (!ok)
		fprintf(stderr, "  %s %s: %s\n", board, model, r.err ? r.err : "");
	json_decref(j);
	run_result_free(&r);
	return ok;
}

int
main(void)
{
	const char *shared = test_shared_dir();
	if (!shared)
		return TEST_SKIP;
	char *path = path_join(shared, "data/paper/figure_aggregates.csv");
	char *csv = test_slurp(path);
	CHECK(csv != NULL);
	wc_params p = WC_PARAMS_INIT;
	wc_error err;
	CHECK_INT(wc_params_profile("measured", &p, &err), WC_OK);
	const wc_capacity_workload *w = wc_capacity_workload_find(&p.capacity, "powertrace-paper");
	CHECK(w != NULL);
	char design[32];
	snprintf(design, sizeof design, "%.0f", w ? w->input_tokens.value : 16.0);
	const char *inputs[N_INPUTS] = { design, "512" };
	/* predicted / published - 1, in %, today (pooled over the two models) */
	static const double today[N_INPUTS][N_BOARDS][N_QTY] = {
		{ { 8.8, -99.6, -20.8 }, { -9.2, -99.9, 39.3 }, { -7.0, -98.6, 18.6 } },
		{ { 9.3, -97.3, -29.9 }, { -7.2, -76.3, -32.8 }, { -4.7, -53.5, -14.2 } },
	};
	for (int i = 0; csv && i < N_INPUTS; i++) {
		printf("Fig. 29 at %s input tokens (pooled Qwen3-8B/14B, 32 closed, 512 out): predicted / published\n",
		       inputs[i]);
		double ramp[N_BOARDS];
		for (int b = 0; b < N_BOARDS; b++) {
			double pooled[N_QTY] = { 0, 0, 0 }, v[N_QTY];
			for (int m = 0; m < 2; m++) {
				CHECK(envelope(boards[b], models[m], inputs[i], v));
				for (int q = 0; q < N_QTY; q++)
					pooled[q] += v[q] / 2;
			}
			ramp[b] = pooled[1];
			for (int q = 0; q < N_QTY; q++) {
				double pub = published(csv, boards[b], published_name[q]);
				CHECK(isfinite(pub) && pub > 0);
				double pct = 100 * (pooled[q] / pub - 1);
				printf("  %s %-17s %9.4g / %-7.4g %+6.1f %%\n", boards[b], summary_name[q], pooled[q], pub, pct);
				CHECK_NEAR(pct, today[i][b][q], 1.0);
			}
		}
		/* The mean meets 10 % on every board (pinned above); the ramps'
		 * miss is the loop's one level (docs/envelopes.md): the published
		 * order is A100 > H100 > H200, today's is not. */
		for (int b = 0; b < N_BOARDS; b++)
			CHECK(fabs(today[i][b][0]) <= 10.0);
		CHECK(!(ramp[0] > ramp[1] && ramp[1] > ramp[2]));
	}
	wc_params_clear(&p);
	free(csv);
	free(path);
	return check_report("test_real_envelope_fig29");
}
