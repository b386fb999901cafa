/*
 * A power-cap sweep's step is the answer to its cap (docs/intervals.md,
 * "Physical ceiling"): H100 Qwen3-14B at 32 running, 512 + 256 tokens,
 * swept in 4 caps, had a node-power interval reaching 641.5 W at the
 * 438.45 W cap, where predict inference --power-cap 438.45 holds it at
 * 1.1 x the cap, 482.3 W. Each step's intervals are now the capacity
 * answer's under its cap at its clock, and end at 1.1 x the cap; but the
 * top step's, whose cap does not bind, are the unconstrained point's
 * (tests/test_flexibility_top.c).
 *
 * The sweep's unconstrained warnings are `predict inference`'s for the
 * same point (docs/capacity.md, "Power flexibility"): A100 Qwen3-32B at
 * 128 running said "prefill takes 49 %" where predict said 38 % (the
 * power answer was taken at the free clock and the running asked, not at
 * the clock the board settles and the count the KV cache holds).
 */
#include "data/data.h"
#include "data/params_file.h"
#include "predict/capacity_predict.h"
#include "predict/flexibility.h"
#include "predict/predict.h"
#include "tests/support/support.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The "  warning: " lines of `wattcast predict KIND ... --concurrency N`,
 * without a sweep step's ("at F MHz: ...") or the sweep's own edge note,
 * each followed by a newline, into buf. */
static const char *
warning_lines(const char *kind, const char *n, char *buf, size_t cap)
{
	const char *argv[] = { "wattcast", "predict", kind, "--platform", "A100", "--model", "Qwen3-32B", "--concurrency",
		               n, "--input-tokens", "512", "--output-tokens", "256", NULL, NULL, NULL };
	if (strcmp(kind, "flexibility") == 0) {
		argv[13] = "--steps";
		argv[14] = "3";
	}
	run_result r;
	buf[0] = '\0';
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	for (const char *l = r.out ? strstr(r.out, "  warning: ") : NULL; l; l = strstr(l + 1, "  warning: ")) {
		size_t len = strcspn(l, "\n");
		const char *edge = strstr(l, "is the lowest clock swept");
		if (strncmp(l + 11, "at ", 3) == 0 || (edge && edge < l + len))
			continue;
		snprintf(buf + strlen(buf), cap - strlen(buf), "%.*s\n", (int)len, l);
	}
	run_result_free(&r);
	return buf;
}

static void
same_warnings_as_inference(void)
{
	static char a[8192], b[8192];
	const char *counts[] = { "32", "128", "256" };
	for (int i = 0; i < 3; i++) {
		warning_lines("inference", counts[i], a, sizeof a);
		warning_lines("flexibility", counts[i], b, sizeof b);
		for (const char *l = a; *l; l += strcspn(l, "\n") + 1) {
			char one[1024];
			snprintf(one, sizeof one, "%.*s\n", (int)strcspn(l, "\n"), l);
			if (!strstr(b, one))
				fprintf(stderr, "concurrency %s: predict inference's %s  is not the sweep's:\n%s", counts[i], one, b);
			CHECK(strstr(b, one) != NULL);
		}
		CHECK_INT(strlen(a), strlen(b));
	}
	/* 39 % until the measured profile's refit with tau_ep, 38 % until A100's idle was the real runs', 2026-12-07 */
	CHECK(strstr(a, "prefill takes 41 %") != NULL);
}

/* The text's intervals say what they cover, and an open loop's throughput,
 * which has none, says "none" and why, not "nan-nan" (JSON: null). */
static void
text_intervals(void)
{
	const char *argv[] = { "wattcast", "predict", "flexibility", "--platform", "H100", "--model", "Qwen3-8B", "--rate",
		               "2", "--concurrency", "256", "--input-tokens", "512", "--output-tokens", "256", "--steps", "4",
		               NULL };
	run_result r;
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	CHECK(r.out && !strstr(r.out, "nan"));
	CHECK_CONTAINS(r.out, "    throughput none: set by the arrival rate");
	/* an open loop's count is predicted: its power's error is at that load */
	CHECK_CONTAINS(r.out, " W (covers held-out error of mean power at the load answered (not of an open loop's count))\n");
	run_result_free(&r);
}

/* The sweep's intervals come from the same draws as predict inference's,
 * and too few of them got no word (predict inference says its tails hold
 * no draw of their own): a set cut to 4 draws says so in the sweep too.
 * Its price and intensity flags, which it takes and does not use, were
 * accepted past the limit every other command refuses. */
static void
few_draws_and_money(void)
{
	wc_params p = WC_PARAMS_INIT;
	wc_predictor *pr = NULL;
	wc_error err;
	char *path = path_join(test_env("WC_SOURCE_DIR", "."), "tests/fuzz/seeds/params/fit-default.json");
	CHECK_INT(wc_params_load_file(path, &p, &err), WC_OK); /* 4 bootstrap draws */
	free(path);
	CHECK_INT(wc_predictor_new(&p, &pr, &err), WC_OK);
	wc_inference_query q = { .config = test_catalog_config("H100", 1, "Llama-3.1-8B", 16), .want_interval = 1 };
	q.config.input_tokens = 512;
	q.config.output_tokens = 256;
	wc_flexibility *f = malloc(sizeof *f);
	CHECK(f != NULL);
	if (pr && f) {
		CHECK_INT(wc_predict_flexibility(pr, &q, 0, 3, f, &err), WC_OK);
		CHECK_INT(f->n_draws, 4);
		int said = 0, only = 0;
		for (int i = 0; i < f->n_warnings; i++) {
			said |= strstr(f->warnings[i], "interval_95: 4 bootstrap draws, fewer than 40") != NULL;
			only |= strstr(f->warnings[i], "interval_95: covers the parameters' uncertainty only") != NULL;
		}
		CHECK(said);
		/* the set has no prediction_error: as predict inference says, its
		 * intervals cover the parameters alone */
		CHECK(!p.pred_error.present && only);
	}
	free(f);
	wc_predictor_free(pr);
	wc_params_clear(&p);
	const char *argv[] = { "wattcast", "predict", "flexibility", "--platform", "H100", "--model", "Qwen3-8B",
		               "--concurrency", "32", "--input-tokens", "512", "--output-tokens", "256", "--steps", "3",
		               "--grams-co2-per-kwh", "1e300", NULL };
	run_result r;
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	CHECK_INT(r.status, 2);
	/* the value quoted as given, as every flag's limit (docs/cli.md) */
	CHECK_CONTAINS(r.err, "--grams-co2-per-kwh: must be from 0 to 1e+06 g/kWh, got '1e300'");
	run_result_free(&r);
	argv[15] = "--price-per-kwh";
	argv[16] = "1000001";
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	CHECK_INT(r.status, 2);
	CHECK_CONTAINS(r.err, "--price-per-kwh: must be from 0 to 1e+06 per kWh, got '1000001'");
	run_result_free(&r);
	/* both ends in one message (the lower said "must be >= 0") */
	argv[16] = "-1e-9";
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	CHECK_INT(r.status, 2);
	CHECK_CONTAINS(r.err, "--price-per-kwh: must be from 0 to 1e+06 per kWh, got '-1e-9'");
	run_result_free(&r);
	/* a price of 0 (or -0): costs print 0, their intervals say why none */
	const char *zero[] = { "wattcast", "predict", "inference", "--platform", "H100", "--model", "Qwen3-8B",
		               "--concurrency", "32", "--input-tokens", "512", "--output-tokens", "256",
		               "--price-per-kwh", "-0", NULL };
	CHECK_INT(run_wattcast(zero, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, "interval of cost_per_request: none: the price per kWh is 0, so the cost is 0 exactly");
	CHECK(r.out && strstr(r.out, "cost per request             0 \n") != NULL);
	run_result_free(&r);
}

/* Every step is, to the bit, the answer `predict inference` gives to its
 * lock or its cap (docs/capacity.md, "Power flexibility": "exactly as the
 * capacity answer at that clock"): the same clock, values and intervals,
 * through the one sequence every answer uses (wc_predict_settle_clock,
 * wc_predict_capacity_settled). They differed in the tenth digit. */
static int
exact_as_inference(const wc_predictor *pr, const wc_inference_query *q, int by_cap)
{
	wc_flexibility *f = malloc(sizeof *f);
	wc_capacity_prediction *cap = malloc(sizeof *cap);
	wc_error err;
	int bad = 0;
	CHECK(f && cap);
	if (f && cap && wc_predict_flexibility(pr, q, by_cap, 8, f, &err) == WC_OK) {
		for (int i = 0; i < f->n_steps; i++) {
			const wc_flex_step *s = &f->steps[i];
			wc_inference_query at = *q;
			/* every cap step, the top one's too, is the answer to the
			 * cap it prints: the top step's node power ended at 762.5 W
			 * where the answer to its 551.4 W cap ends at 606.6 W */
			if (by_cap)
				at.power_cap_w = s->power_cap_w;
			else
				at.config.sm_clock_mhz = s->sm_clock_mhz;
			at.want_interval = 1;
			CHECK_INT(wc_predict_settle_clock(pr, &at, &err), WC_OK);
			CHECK_INT(wc_predict_capacity_settled(pr, &at, NAN, NAN, cap, &err), WC_OK);
			int same = (at.config.sm_clock_mhz > 0 ? at.config.sm_clock_mhz : 0) ==
			                   (by_cap && at.config.sm_clock_mhz == 0 ? 0 : s->sm_clock_mhz) &&
			           s->node_power_w == cap->value[WC_CAPQ_POWER] &&
			           s->throughput_tok_s == cap->value[WC_CAPQ_THROUGHPUT] &&
			           s->energy_per_output_token_j == cap->value[WC_CAPQ_E_TOKEN];
			static const int k2q[WC_FLEX_IQ] = { WC_CAPQ_POWER, WC_CAPQ_THROUGHPUT, WC_CAPQ_E_TOKEN, WC_CAPQ_LATENCY };
			for (int k = 0; k < WC_FLEX_IQ; k++)
				same = same && (s->lo[k] == cap->lo[k2q[k]] || (isnan(s->lo[k]) && isnan(cap->lo[k2q[k]]))) &&
				       (s->hi[k] == cap->hi[k2q[k]] || (isnan(s->hi[k]) && isnan(cap->hi[k2q[k]])));
			if (!same) {
				bad++;
				fprintf(stderr, "%s %s step %d: %.17g MHz (answer %.17g), power %.17g vs %.17g, [%.17g, %.17g] vs "
				        "[%.17g, %.17g]\n", q->config.platform, by_cap ? "cap" : "clock", i, s->sm_clock_mhz,
				        at.config.sm_clock_mhz, s->node_power_w, cap->value[WC_CAPQ_POWER], s->lo[0], s->hi[0],
				        cap->lo[WC_CAPQ_POWER], cap->hi[WC_CAPQ_POWER]);
			}
		}
	}
	free(f);
	free(cap);
	return bad;
}

/* The clock term's caveat over a sweep names what set the clocks and
 * every clock it holds at: a cap sweep said "at 210 MHz: sm_clock_mhz:
 * ..." though caps set each step's clock (predict inference --power-cap
 * says power_cap_w), and named the lowest clock alone while kappa is
 * assumed at every step below the top (docs/capacity.md, "Power
 * flexibility"). Where the board's limit settles the unconstrained point
 * (Qwen3-32B at 32 clients, 1181 MHz; 1223 MHz until A100's idle was
 * the real runs' 84.2 W, 2026-12-07), the platform's kappa assumed is
 * one fact, said once: it was said for that point and again for the
 * steps below it, and that point's settled clock twice. */
static void
kappa_names_what_set_the_clock(void)
{
	for (int by_cap = 0; by_cap < 2; by_cap++) {
		const char *argv[] = { "wattcast", "predict", "flexibility", "--platform", "A100", "--model", "Qwen3-8B",
			               "--concurrency", "4", "--input-tokens", "500", "--output-tokens", "200", "--steps", "6",
			               "--sweep", by_cap ? "power_cap" : "clock", NULL };
		run_result r;
		CHECK_INT(run_wattcast(argv, NULL, &r), 0);
		CHECK_INT(r.status, 0);
		CHECK_CONTAINS(r.out, by_cap ? "warning: at 210-1170 MHz: power_cap_w: no runs at a known locked clock were calibrated "
		                               "on A100 and kappa is unpublished; kappa = 1 is assumed\n"
		                             : "warning: at 210-1170 MHz: sm_clock_mhz: no runs at a known locked clock were calibrated "
		                               "on A100 and kappa is unpublished; kappa = 1 is assumed\n");
		if (by_cap)
			CHECK(r.out && !strstr(r.out, "MHz: sm_clock_mhz:"));
		run_result_free(&r);
		argv[6] = "Qwen3-32B";
		argv[8] = "32";
		CHECK_INT(run_wattcast(argv, NULL, &r), 0);
		CHECK_INT(r.status, 0);
		CHECK_CONTAINS(r.out, "warning: platform: no runs at a known locked clock were calibrated on A100 and kappa is "
		                      "unpublished; kappa = 1 is assumed\n");
		CHECK_CONTAINS(r.out, "so this answers at the clock it settles at, 1181 MHz");
		int kappas = 0, settled = 0;
		for (const char *at = r.out; at && (at = strstr(at, "kappa = 1 is assumed")); at++)
			kappas++;
		for (const char *at = r.out; at && (at = strstr(at, "1181 MHz")); at++)
			settled++;
		CHECK_INT(kappas, 1);
		CHECK_INT(settled, 1);
		run_result_free(&r);
	}
}

int
main(void)
{
	wc_params p = WC_PARAMS_INIT;
	wc_predictor *pr = test_measured_predictor(&p);
	wc_error err;
	wc_inference_query q = { .config = test_catalog_config("H100", 1, "Qwen3-14B", 32), .want_interval = 1 };
	q.config.input_tokens = 512;
	q.config.output_tokens = 256;
	wc_flexibility *f = malloc(sizeof *f);
	wc_capacity_prediction *cap = malloc(sizeof *cap);
	CHECK(f && cap);
	if (pr && f && cap) {
		CHECK_INT(wc_predict_flexibility(pr, &q, 1, 4, f, &err), WC_OK);
		CHECK_INT(f->n_steps, 4);
		for (int i = 0; i < f->n_steps; i++) {
			const wc_flex_step *s = &f->steps[i];
			wc_inference_query at = q;
			at.power_cap_w = s->power_cap_w; /* the top step's too: its interval ends under it */
			at.config.sm_clock_mhz = s->sm_clock_mhz;
			CHECK_INT(wc_predict_capacity(pr, &at, NAN, NAN, cap, &err), WC_OK);
			fprintf(stderr, "cap %.2f W at %.0f MHz: [%.1f, %.1f] W, answer's [%.1f, %.1f]\n", s->power_cap_w,
			        s->sm_clock_mhz, s->lo[WC_FLEX_POWER], s->hi[WC_FLEX_POWER], cap->lo[WC_CAPQ_POWER],
			        cap->hi[WC_CAPQ_POWER]);
			CHECK_NEAR(s->hi[WC_FLEX_POWER], cap->hi[WC_CAPQ_POWER], 1e-9 * cap->hi[WC_CAPQ_POWER]);
			CHECK_NEAR(s->lo[WC_FLEX_POWER], cap->lo[WC_CAPQ_POWER], 1e-9 * cap->lo[WC_CAPQ_POWER]);
			CHECK(s->hi[WC_FLEX_POWER] <= 1.1 * s->power_cap_w * (1 + 1e-9));
		}
	}
	/* An open loop's cap step is predict inference --power-cap's answer
	 * to that cap: the clock the cap settles at, then the rate it sustains
	 * at full load (docs/capacity.md, "The board's power limit"). H200
	 * Qwen3-8B at 1.4 requests/s of 8192 + 64 tokens: the sweep said a
	 * 198.2 W cap served all 89.6 tokens/s at 1229 MHz while the answer
	 * to that cap was 59.8 tokens/s, over capacity, at 345 MHz. Since
	 * 2026-12-07 a request meets 1 + m others' steps and prefills, not m
	 * (docs/capacity.md, "Closed loop, open loop, energy"), so the loop
	 * at 1.4/s draws more and its sweep reaches no cap it cannot meet:
	 * 1.0/s is the loop of the same shape. */
	wc_inference_query o = { .config = test_catalog_config("H200", 1, "Qwen3-8B", 256) };
	o.config.input_tokens = 8192;
	o.config.output_tokens = 64;
	o.config.request_rate = 1.0;
	if (pr && f && cap) {
		CHECK_INT(wc_predict_flexibility(pr, &o, 1, 12, f, &err), WC_OK);
		for (int i = 0; i < f->n_steps; i++) {
			const wc_flex_step *s = &f->steps[i];
			wc_inference_query at = o;
			at.power_cap_w = s->power_cap_w;
			CHECK_INT(wc_predict_settle_clock(pr, &at, &err), WC_OK);
			CHECK_INT(wc_predict_capacity_settled(pr, &at, NAN, NAN, cap, &err), WC_OK);
			/* a cap that does not bind leaves the clock free: the top one */
			CHECK_NEAR(s->sm_clock_mhz, at.config.sm_clock_mhz > 0 ? at.config.sm_clock_mhz : 1980, 1e-9);
			CHECK_NEAR(s->throughput_tok_s, cap->value[WC_CAPQ_THROUGHPUT], 1e-9 * s->throughput_tok_s);
			CHECK_NEAR(s->node_power_w, cap->value[WC_CAPQ_POWER], 1e-9 * s->node_power_w);
		}
		/* Steps whose cap no clock meets draw more than it: said as
		 * predict inference --power-cap says it, at the first of them. */
		int first = -1, said = 0;
		for (int i = f->n_steps - 1; i >= 0; i--)
			if (f->steps[i].node_power_w > f->steps[i].power_cap_w * (1 + 1e-9))
				first = i;
		CHECK(first > 0);
		char want[64];
		snprintf(want, sizeof want, "power_cap_w: %g W per GPU is not reached", first >= 0 ? f->steps[first].power_cap_w : 0.0);
		for (int i = 0; i < f->n_warnings; i++)
			said += strstr(f->warnings[i], "is not reached") != NULL && strstr(f->warnings[i], want) != NULL;
		CHECK_INT(said, 1);
	}
	/* A clock sweep's knee is offered with its cap column only where the
	 * answer to that cap is the knee (docs/capacity.md, "Power
	 * flexibility"): the H200 loop's knee at 791 MHz said "cap 185.9 W per
	 * GPU", whose answer is 345 MHz, over capacity, 33 % lost. A closed
	 * loop's knee keeps its cap, and the answer to it is the knee. */
	if (pr && f && cap) {
		CHECK_INT(wc_predict_flexibility(pr, &o, 0, 12, f, &err), WC_OK);
		CHECK_NEAR(f->knee_clock_mhz, 791, 0.5);
		CHECK(isnan(f->knee_power_cap_w));
		/* the draw there is the knee step's own (185.9 W with the old
		 * measured profile, 186.5 W with the 2026-12-06 one) */
		double knee_draw = NAN;
		for (int i = 0; i < f->n_steps; i++)
			if (f->steps[i].sm_clock_mhz == f->knee_clock_mhz)
				knee_draw = f->steps[i].power_cap_w;
		CHECK(isfinite(knee_draw));
		char knee_said[128];
		snprintf(knee_said, sizeof knee_said,
		         "knee_power_cap_w: none: a %.1f W cap per GPU, the draw there, is answered at 345 MHz", knee_draw);
		int said = 0;
		for (int i = 0; i < f->n_warnings; i++)
			said += strncmp(f->warnings[i], knee_said, strlen(knee_said)) == 0 &&
			        strstr(f->warnings[i], "over capacity at full load's clock");
		CHECK_INT(said, 1);
		CHECK_INT(wc_predict_flexibility(pr, &q, 0, 12, f, &err), WC_OK);
		CHECK(isfinite(f->knee_power_cap_w));
		for (int i = 0; i < f->n_warnings; i++)
			CHECK(strncmp(f->warnings[i], "knee_power_cap_w", 16) != 0);
		wc_inference_query at = q;
		at.power_cap_w = f->knee_power_cap_w;
		CHECK_INT(wc_predict_settle_clock(pr, &at, &err), WC_OK);
		CHECK_INT(wc_predict_capacity_settled(pr, &at, NAN, NAN, cap, &err), WC_OK);
		CHECK_NEAR(at.config.sm_clock_mhz, f->knee_clock_mhz, 1e-6);
	}
	/* A cap beside a locked clock is refused even when the clock it
	 * writes is the query's own (it was zeroed before the check). */
	if (pr) {
		wc_inference_query both = q;
		both.config.sm_clock_mhz = 1200;
		CHECK_INT(wc_predict_power_cap(pr, &both, 300, &both.config.sm_clock_mhz, &err), WC_EINVAL);
		CHECK_CONTAINS(err.msg, "power_cap_w: give either a power cap or sm_clock_mhz, not both");
	}
	free(f);
	free(cap);
	if (pr) {
		wc_inference_query h = { .config = test_catalog_config("H100", 1, "Qwen3-8B", 32), .want_interval = 1 };
		h.config.input_tokens = 1000;
		h.config.output_tokens = 300;
		wc_inference_query l4 = { .config = test_catalog_config("L4", 4, "Qwen3-32B", 32), .want_interval = 1 };
		l4.config.input_tokens = 4000;
		l4.config.output_tokens = 64;
		wc_inference_query a = { .config = test_catalog_config("A100", 4, "Llama-3.1-70B-Instruct", 64),
			                 .want_interval = 1 };
		a.config.input_tokens = 2000;
		a.config.output_tokens = 500;
		wc_inference_query ol = o;
		ol.config.request_rate = 2;
		ol.want_interval = 1;
		const wc_inference_query *qs[] = { &h, &l4, &a, &ol };
		for (int i = 0; i < 4; i++)
			for (int by_cap = 0; by_cap < 2; by_cap++)
				CHECK_INT(exact_as_inference(pr, qs[i], by_cap), 0);
	}
	same_warnings_as_inference();
	kappa_names_what_set_the_clock();
	text_intervals();
	few_draws_and_money();
	wc_predictor_free(pr);
	wc_params_clear(&p);
	return check_report("test_flexibility_cap");
}
