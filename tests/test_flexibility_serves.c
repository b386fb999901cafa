/*
 * A flexibility sweep of an open loop recommends only steps that serve
 * the rate, and names every step each caveat holds at (docs/capacity.md,
 * "Power flexibility"):
 * - H200 NVL Qwen3-32B at 2 requests/s of 1000 + 400 tokens (engine limit
 *   128), 5 steps: the sweep named 345 MHz "energy-optimal" (0.363 J per
 *   token, the at-capacity number: 569.6 of the 800 tokens/s asked, the
 *   queue growing without bound); the least energy among the steps that
 *   serve 2 requests/s is 705 MHz, 0.378 J (714 MHz, 0.381 J in the cap
 *   sweep, whose caps start at the board's 600 W); 705 MHz, 0.381 J and
 *   708 MHz, 0.382 J since 2026-12-07, when the measured profile's A100
 *   idle became the real runs' (which moves the datasheet transfer of
 *   H200 NVL) and an open loop's request was taken to meet 1 + m requests;
 *   705 MHz, 0.380 J and 712 MHz, 0.382 J since its capacity level is
 *   taken from the H100 and H200 alone (its GH100 die's), 345 MHz serving
 *   552.72 tokens/s. Steps
 *   over capacity are marked (JSON over_capacity, CSV column, text) and
 *   are neither knee nor optimum; where none serves, both are none, said.
 * - H100 Llama-3.1-8B-Instruct at 64 running, 1000 + 600 tokens, 6 steps:
 *   the knee, 672 MHz, lacked predict inference's caveats there ("prefill
 *   takes 28 %", "runs at 672 MHz ... below about half the top clock"):
 *   a caveat in other numbers at each step named the lowest clock alone.
 *   Every caveat predict inference gives at the knee's and the optimum's
 *   clock is now said at that clock, in its numbers (on a line of its own
 *   where a caveat over many steps gives the range of their numbers:
 *   H100 Qwen3-8B at 20 requests/s, whose knee is 999 MHz).
 */
#include "data/data.h"
#include "predict/flexibility.h"
#include "predict/predict.h"
#include "tests/support/support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The rule on steps built by hand: least energy and the lowest step over
 * capacity; the knee stops above it though power falls faster than
 * throughput into it. */
static void
synthetic(void)
{
	static const double clk[] = { 2000, 1500, 1000, 500 }, pw[] = { 100, 80, 60, 30 }, tp[] = { 100, 100, 100, 80 };
	wc_flexibility f = { 0 };
	f.ref_node_power_w = 100;
	f.ref_throughput_tok_s = 100;
	f.n_steps = 4;
	for (int i = 0; i < 4; i++) {
		f.steps[i].sm_clock_mhz = clk[i];
		f.steps[i].node_power_w = pw[i];
		f.steps[i].power_cap_w = pw[i];
		f.steps[i].throughput_tok_s = tp[i];
		f.steps[i].energy_per_output_token_j = pw[i] / tp[i];
	}
	wc_flexibility_analyse(&f); /* all served: the lowest step is both */
	CHECK_NEAR(f.energy_optimal_clock_mhz, 500, 0);
	CHECK_NEAR(f.knee_clock_mhz, 500, 0);
	f.steps[3].over_capacity = 1;
	wc_flexibility_analyse(&f);
	CHECK_NEAR(f.energy_optimal_clock_mhz, 1000, 0);
	CHECK_NEAR(f.knee_clock_mhz, 1000, 0);
	CHECK_NEAR(f.knee_power_cap_w, 60, 0);
	for (int i = 0; i < 4; i++)
		f.steps[i].over_capacity = 1;
	wc_flexibility_analyse(&f);
	CHECK(isnan(f.energy_optimal_clock_mhz) && isnan(f.knee_clock_mhz) && isnan(f.knee_power_cap_w));
}

static wc_inference_query
h200_open_loop(double rate)
{
	wc_inference_query q = { .config = test_catalog_config("H200-NVL", 1, "Qwen3-32B", 128) };
	q.config.request_rate = rate;
	q.config.input_tokens = 1000;
	q.config.output_tokens = 400;
	return q;
}

static void
optimum_serves_the_rate(const wc_predictor *pr)
{
	wc_flexibility *f = malloc(sizeof *f);
	wc_error err;
	wc_inference_query q = h200_open_loop(2);
	for (int by_cap = 0; f && by_cap < 2; by_cap++) {
		CHECK_INT(wc_predict_flexibility(pr, &q, by_cap, 5, f, &err), WC_OK);
		int best = -1, knee = -1;
		for (int i = 0; i < f->n_steps; i++) {
			const wc_flex_step *s = &f->steps[i];
			/* over capacity exactly where the 800 tokens/s asked are not served */
			CHECK_INT(s->over_capacity, s->throughput_tok_s < 800 * (1 - 1e-9));
			best = s->sm_clock_mhz == f->energy_optimal_clock_mhz ? i : best;
			knee = s->sm_clock_mhz == f->knee_clock_mhz ? i : knee;
		}
		CHECK(f->steps[f->n_steps - 1].over_capacity); /* 345 MHz: 1.38 requests/s at most */
		CHECK(best >= 0 && knee >= 0);
		if (best < 0 || knee < 0)
			continue;
		fprintf(stderr, "%s sweep: optimum %.0f MHz, %.4f J/token; knee %.0f MHz\n", by_cap ? "cap" : "clock",
		        f->energy_optimal_clock_mhz, f->steps[best].energy_per_output_token_j, f->knee_clock_mhz);
		CHECK(!f->steps[best].over_capacity && !f->steps[knee].over_capacity);
		/* the caps run from the board's 600 W, where full load settles
		 * (docs/capacity.md, "Power flexibility"), so theirs is another grid */
		CHECK_NEAR(f->energy_optimal_clock_mhz, by_cap ? 712.5 : 705, 0.5);
		CHECK_NEAR(f->steps[best].energy_per_output_token_j, by_cap ? 0.382 : 0.380, 0.001);
	}
	/* no step serves 50 requests/s: no knee, no optimum, and why */
	q = h200_open_loop(50);
	if (f && wc_predict_flexibility(pr, &q, 0, 5, f, &err) == WC_OK) {
		int said = 0;
		CHECK(isnan(f->energy_optimal_clock_mhz) && isnan(f->knee_clock_mhz));
		for (int i = 0; i < f->n_warnings; i++)
			said |= strncmp(f->warnings[i], "knee_clock_mhz, energy_optimal_clock_mhz: none: every step is over "
			                "capacity for the rate of 50 requests/s", 98) == 0;
		CHECK(said);
	} else {
		CHECK(0);
	}
	free(f);
}

/* The same through the CLI: the text, the CSV and the JSON mark it. */
static void
cli_marks(void)
{
	char *dir = test_tmpdir("flexibility_serves"), *csv = path_join(dir, "flex.csv");
	const char *argv[] = { "wattcast", "predict", "flexibility", "--platform", "H200 NVL", "--model", "Qwen3-32B",
		               "--rate", "2", "--concurrency", "128", "--input-tokens", "1000", "--output-tokens", "400",
		               "--steps", "5", "--csv", csv, NULL, NULL };
	run_result r;
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, "energy-optimal clock 705 MHz\n");
	CHECK_CONTAINS(r.out, "       345       207.9      207.9     380.5       552.72     30.91     0.3762    2.09  "
	                      "over capacity\n");
	run_result_free(&r);
	char *text = test_slurp(csv);
	CHECK_CONTAINS(text, "energy_per_output_token_hi_j,latency_lo_s,latency_hi_s,over_capacity\n");
	/* the optimum's row (and the knee's) marked and serving, 345 MHz over capacity */
	const char *row = strstr(text, "\n705,"), *low = strstr(text, "\n345,");
	size_t rl = row ? strcspn(row + 1, "\n") : 0;
	CHECK(row && strstr(row, ",1,1,") && strstr(row, ",1,1,") < row + 1 + rl && strncmp(row + rl - 1, ",0", 2) == 0);
	CHECK(low && strncmp(low + strcspn(low + 1, "\n") - 1, ",1", 2) == 0);
	free(text);
	argv[17] = "--json";
	argv[18] = NULL;
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	CHECK_CONTAINS(r.out, "\"over_capacity\": true");
	CHECK_CONTAINS(r.out, "\"energy_optimal_clock_mhz\": 705");
	run_result_free(&r);
	free(csv);
	free(dir);
}

/* Does sweep warning `w` say caveat `c` at clock `mhz`: in the same words
 * (the unconstrained point's), or "at F1, F2 MHz: ..." naming the clock,
 * whose numbers "a/b" are the steps' in the order of the clocks, or over
 * a range "F1-F2" in the same words, each number within the range "lo-hi"
 * of the steps' values said there? */
static int
says_at(const char *w, const char *c, double mhz)
{
	if (strcmp(w, c) == 0)
		return 1;
	const char *end = strstr(w, " MHz: ");
	if (strncmp(w, "at ", 3) != 0 || !end)
		return 0;
	int n = 0, j = -1;
	for (const char *p = w + 3; p < end;) {
		char *q;
		double a = strtod(p, &q), b = a;
		if (q == p)
			return 0;
		if (*q == '-')
			b = strtod(q + 1, &q);
		if (a - 0.5 <= mhz && mhz < b + 0.5)
			j = a == b ? n : -2; /* -2: a range, its words are each step's */
		n++;
		p = strncmp(q, ", ", 2) == 0 ? q + 2 : end;
	}
	if (j == -1)
		return 0;
	const char *t = end + 6;
	if (j == -2) { /* its words, each number c gives within the range "lo-hi" said there */
		while (*t && *c) {
			if (*t >= '0' && *t <= '9' && *c >= '0' && *c <= '9') {
				char *q, *r;
				double lo = strtod(t, &q), hi = lo, v = strtod(c, &r);
				if (*q == '-' && q[1] >= '0' && q[1] <= '9')
					hi = strtod(q + 1, &q);
				if (v < lo || v > hi)
					return 0;
				t = q;
				c = r;
			} else if (*t++ != *c++) {
				return 0;
			}
		}
		return *t == *c;
	}
	char said[1024];
	size_t len = 0;
	while (*t && len + 64 < sizeof said) {
		if (*t >= '0' && *t <= '9') { /* a number, or n of them joined by '/' */
			const char *v[64];
			size_t vl[64];
			int k = 0;
			for (;;) {
				v[k] = t;
				t += strspn(t, "0123456789.");
				vl[k] = (size_t)(t - v[k]);
				k++;
				if (k < 64 && t[0] == '/' && t[1] >= '0' && t[1] <= '9')
					t++;
				else
					break;
			}
			int pick = k == n ? j : 0;
			if (k != 1 && k != n)
				return 0;
			memcpy(said + len, v[pick], vl[pick]);
			len += vl[pick];
		} else {
			said[len++] = *t++;
		}
	}
	said[len] = '\0';
	return strcmp(said, c) == 0;
}

/* Every "  warning: " of predict inference at clock `mhz` is said by the
 * sweep's warnings (`flex`, its text output) at that clock. */
static void
carries_inference_caveats(const char *const *args, int n_args, const char *flex, double mhz)
{
	const char *argv[40] = { "wattcast", "predict", "inference" };
	char clock[32];
	snprintf(clock, sizeof clock, "%.0f", mhz);
	for (int i = 0; i < n_args; i++)
		argv[3 + i] = args[i];
	argv[3 + n_args] = "--sm-clock";
	argv[4 + n_args] = clock;
	run_result r;
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	int checked = 0;
	for (const char *l = r.out ? strstr(r.out, "  warning: ") : NULL; l; l = strstr(l + 1, "  warning: ")) {
		char c[512];
		snprintf(c, sizeof c, "%.*s", (int)strcspn(l + 11, "\n"), l + 11);
		int said = 0;
		for (const char *w = strstr(flex, "  warning: "); w && !said; w = strstr(w + 1, "  warning: ")) {
			char t[512];
			snprintf(t, sizeof t, "%.*s", (int)strcspn(w + 11, "\n"), w + 11);
			said = says_at(t, c, mhz);
		}
		if (!said)
			fprintf(stderr, "at %s MHz, predict inference's caveat not in the sweep: %s\n", clock, c);
		CHECK(said);
		checked++;
	}
	CHECK(checked > 0);
	run_result_free(&r);
}

static void
knee_and_optimum_caveats(void)
{
	static const char *const h100[] = { "--platform", "H100", "--model", "Llama-3.1-8B-Instruct", "--concurrency", "64",
		                            "--input-tokens", "1000", "--output-tokens", "600" };
	static const char *const h200[] = { "--platform", "H200 NVL", "--model", "Qwen3-32B", "--rate", "2",
		                            "--concurrency", "128", "--input-tokens", "1000", "--output-tokens", "400" };
	/* the prefill caveat at four steps does not fit per step: a range
	 * covering the knee's clock and its number, the kind said once */
	static const char *const rate[] = { "--platform", "H100", "--model", "Qwen3-8B", "--rate", "20",
		                            "--input-tokens", "512", "--output-tokens", "256" };
	const struct {
		const char *const *args;
		int n;
		const char *steps;
		double knee, optimum;
	} cases[] = { { h100, 10, "6", 672, 345 }, { h200, 12, "5", 705, 705 }, { rate, 10, "6", 999, 999 } };
	for (int k = 0; k < 3; k++) {
		const char *argv[40] = { "wattcast", "predict", "flexibility" };
		for (int i = 0; i < cases[k].n; i++)
			argv[3 + i] = cases[k].args[i];
		argv[3 + cases[k].n] = "--steps";
		argv[4 + cases[k].n] = cases[k].steps;
		run_result r;
		CHECK_INT(run_wattcast(argv, NULL, &r), 0);
		CHECK_INT(r.status, 0);
		char knee[64];
		snprintf(knee, sizeof knee, "  knee %.0f MHz", cases[k].knee);
		CHECK_CONTAINS(r.out, knee);
		/* every line within the warning's length, none cut */
		for (const char *w = r.out ? strstr(r.out, "  warning: ") : NULL; w; w = strstr(w + 1, "  warning: "))
			CHECK(strcspn(w + 11, "\n") < WC_WARNING_LEN - 1 && strncmp(w + 11 + strcspn(w + 11, "\n") - 3, "...", 3));
		if (r.out) {
			carries_inference_caveats(cases[k].args, cases[k].n, r.out, cases[k].knee);
			carries_inference_caveats(cases[k].args, cases[k].n, r.out, cases[k].optimum);
		}
		run_result_free(&r);
	}
	/* the H100 knee's, in its own numbers, and the step below's */
	const char *argv[] = { "wattcast", "predict", "flexibility", "--platform", "H100", "--model",
		               "Llama-3.1-8B-Instruct", "--concurrency", "64", "--input-tokens", "1000",
		               "--output-tokens", "600", "--steps", "6", NULL };
	run_result r;
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	CHECK_CONTAINS(r.out, "  warning: at 345, 672 MHz: input_tokens: prefill takes 44/29 % of the engine's time here");
	CHECK_CONTAINS(r.out, "  warning: at 345, 672 MHz: sm_clock_mhz: the GPU runs at 345/672 MHz of H100's 1980 MHz");
	run_result_free(&r);
}

int
main(void)
{
	wc_params p = WC_PARAMS_INIT;
	synthetic();
	wc_predictor *pr = test_measured_predictor(&p);
	optimum_serves_the_rate(pr);
	wc_predictor_free(pr);
	wc_params_clear(&p);
	cli_marks();
	knee_and_optimum_caveats();
	return check_report("test_flexibility_serves");
}
