/*
 * What depends on the clock follows the clock a series' steps run at
 * (docs/inference-law.md, "Averaging over a load series"; docs/http-api.md,
 * "The prediction object"): an A100 series held at 256 (59 run) under a
 * 150 W cap settles at 283 MHz (241 MHz since A100's idle is the real
 * runs' 84.2 W, 2026-12-07) as --concurrency 256 does, but said
 * "prefill takes 34 %" (the free clock's) where the concurrency says 66 %,
 * and left out "the GPU runs at 283 MHz of A100's 1410 MHz top clock";
 * paper-prefill's prefill_share under 300 W read 0.6582, not 0.6610. Now
 * steps at one clock answer as the single load there, and steps at
 * several give the share time-weighted over them each at its own clock
 * (at the series' mean count) and the low clock's caveat with its share.
 */
#include "tests/support/support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* `predict inference --json` on A100 Qwen3-32B, 512 + 256 tokens, with
 * `extra` flags (NULL-terminated): the answer, parsed (NULL on failure). */
static json_t *
answer(const char *const *extra)
{
	const char *argv[32] = { "wattcast",       "predict", "inference",       "--platform", "A100",
		                 "--model",        "Qwen3-32B", "--input-tokens", "512",      "--output-tokens",
		                 "256",            "--json" };
	int n = 12;
	for (int i = 0; extra[i] && n < 31; i++)
		argv[n++] = extra[i];
	argv[n] = NULL;
	run_result r;
	json_t *j = NULL;
	if (run_wattcast(argv, NULL, &r) == 0 && r.status == 0)
		j = json_loads(r.out, 0, NULL);
	CHECK(j != NULL);
	if (!j)
		fprintf(stderr, "  no answer (status %d): %s\n", r.status, r.err ? r.err : "");
	run_result_free(&r);
	return j;
}

/* Whether `j`'s warnings hold `text` (a part of one), said if not. */
static int
warns(const json_t *j, const char *text, const char *who)
{
	size_t i;
	const json_t *w;
	json_array_foreach(json_object_get(j, "warnings"), i, w)
		if (strstr(json_string_value(w), text))
			return 1;
	fprintf(stderr, "  %s does not warn '%s'\n", who, text);
	return 0;
}

/* The caveats of the single load `one` on the clock it runs at ("the GPU
 * settles at", "runs at") or the prefill share are the series' too, at
 * least `least` of them: where the board's limit settles the single load
 * its own warning says the clock, and the caveat the kappa assumed alone
 * (docs/inference-law.md, "Unseen configurations"). */
static void
same_clock_words(const json_t *series, const json_t *one, int least)
{
	size_t i;
	const json_t *w;
	int n = 0;
	json_array_foreach(json_object_get(one, "warnings"), i, w) {
		const char *t = json_string_value(w);
		if (strstr(t, ": the GPU ") || strstr(t, "prefill takes")) {
			n++;
			CHECK(warns(series, t, "the series"));
		}
	}
	CHECK(n >= least);
}

static double
num(const json_t *j, const char *key)
{
	return json_number_value(json_object_get(j, key));
}

int
main(void)
{
	char *dir = test_tmpdir("series_step_clocks");
	char *held = test_fixture(dir, "s256.csv", "t_s,running\n0,256\n1,256\n");
	char *two = test_fixture(dir, "two.csv", "t_s,running\n0,30\n1,59\n");
	char *idle = test_fixture(dir, "idle.csv", "t_s,running\n0,0\n1,59\n");

	/* one clock (a cap, the board's limit): the single load's words */
	const char *caps[] = { "150", "300", NULL };
	for (int k = 0; k < 3; k++) {
		const char *s_args[] = { "--running-series", held, caps[k] ? "--power-cap" : NULL, caps[k], NULL };
		const char *c_args[] = { "--concurrency", "256", caps[k] ? "--power-cap" : NULL, caps[k], NULL };
		json_t *s = answer(s_args), *c = answer(c_args);
		if (s && c)
			same_clock_words(s, c, caps[k] ? 2 : 1);
		if (s && k == 0) {
			CHECK(warns(s, "input_tokens: prefill takes 66 % of the engine's time", "the series"));
			CHECK(warns(s, "power_cap_w: the GPU runs at 241 MHz of A100's 1410 MHz top clock; the law does not "
			               "model the bandwidth", "the series"));
			CHECK(warns(s, "power_cap_w: the GPU settles at 241 MHz; no runs at a known locked clock", "the series"));
		}
		json_decref(s);
		json_decref(c);
	}

	/* paper-prefill's prefill_share at one clock: the single load's */
	const char *pp_s[] = { "--running-series", held, "--power-cap", "300", "--profile", "paper-prefill", NULL };
	const char *pp_c[] = { "--concurrency", "256", "--power-cap", "300", "--profile", "paper-prefill", NULL };
	json_t *s = answer(pp_s), *c = answer(pp_c);
	if (s && c) {
		CHECK(fabs(num(s, "prefill_share") - num(c, "prefill_share")) < 1e-9);
		if (!(fabs(num(s, "prefill_share") - num(c, "prefill_share")) < 1e-9))
			fprintf(stderr, "  prefill_share %.10g, a single load's %.10g\n", num(s, "prefill_share"),
			        num(c, "prefill_share"));
	}
	json_decref(s);
	json_decref(c);

	/* two clocks: the mean of the share at the series' mean count at each */
	const char *two_args[] = { "--running-series", two, "--power-cap", "150", "--profile", "paper-prefill", NULL };
	s = answer(two_args);
	const json_t *range = s ? json_object_get(json_object_get(s, "config"), "sm_clock_range_mhz") : NULL;
	CHECK(json_array_size(range) == 2);
	if (json_array_size(range) == 2) {
		double want = 0.0;
		for (size_t i = 0; i < 2; i++) {
			char mhz[40];
			snprintf(mhz, sizeof mhz, "%.17g", json_number_value(json_array_get(range, i)));
			const char *at[] = { "--concurrency", "44.5", "--sm-clock", mhz, "--profile", "paper-prefill", NULL };
			json_t *one = answer(at);
			want += one ? num(one, "prefill_share") / 2.0 : NAN;
			json_decref(one);
		}
		CHECK(fabs(num(s, "prefill_share") - want) < 1e-9);
		if (!(fabs(num(s, "prefill_share") - want) < 1e-9))
			fprintf(stderr, "  prefill_share %.10g, the steps' mean %.10g\n", num(s, "prefill_share"), want);
		CHECK(warns(s, "power_cap_w: the GPU runs at 336-338 MHz, below half of A100's 1410 MHz top clock; the "
		               "law does not model", "the ramp"));
	}
	json_decref(s);

	/* an idle step: no busy time in the share; the low clock said for its share */
	const char *idle_args[] = { "--running-series", idle, "--power-cap", "150", "--profile", "paper-prefill", NULL };
	s = answer(idle_args);
	range = s ? json_object_get(json_object_get(s, "config"), "sm_clock_range_mhz") : NULL;
	CHECK(json_array_size(range) == 2);
	if (json_array_size(range) == 2) {
		char mhz[40];
		snprintf(mhz, sizeof mhz, "%.17g", json_number_value(json_array_get(range, 0)));
		const char *at[] = { "--concurrency", "29.5", "--sm-clock", mhz, "--profile", "paper-prefill", NULL };
		json_t *one = answer(at);
		CHECK(one && fabs(num(s, "prefill_share") - num(one, "prefill_share")) < 1e-9);
		json_decref(one);
		CHECK(warns(s, "below half of A100's 1410 MHz top clock for 50.0 % of the series' time", "the idle"));
	}
	json_decref(s);

	free(held);
	free(two);
	free(idle);
	free(dir);
	return check_report("test_cli_series_step_clocks");
}
