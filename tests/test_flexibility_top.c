/*
 * A power-cap sweep's top step is the unconstrained point (docs/capacity.md,
 * "Power flexibility"). The cap range started at the light load's draw at
 * the top clock, but an open loop's cap is held at full load too ("The
 * board's power limit"), where that cap binds: H100 Llama-3.1-70B on 4 GPUs
 * at 2.2 requests/s of 8 192 + 64 tokens, 6 caps, began at a 496.5 W cap
 * settling at 1749 MHz, over capacity (shed -7.4 W), every step over
 * capacity and "knee none", while `predict inference --power-cap 550`
 * served the rate at the unconstrained 1978.6 W (1993.1 W with the
 * measured profile of 2026-12-06). B200 Qwen3-8B at 4.8/s, 4
 * caps: a 363.5 W top at 840 MHz, over capacity, where 400-1000 W caps
 * serve. The range now starts at the least cap that does not bind by the
 * cap's own rule (wc_predict_cap_unbound): closed and open loop, prefill-
 * heavy and board-limited, the top step sheds nothing and serves the rate,
 * and where the clock sweep finds a knee and an optimum the cap sweep does.
 * Its intervals are the answer to its cap, as every step's: they ended at
 * the point's (H100 Qwen3-8B at 20/s of 512 + 256 tokens: node power to
 * 762.5 W beside a printed 551.4 W cap, whose answer ends at 606.6 W,
 * 1.1 x the cap), so a scheduler setting the cap printed got another
 * interval.
 */
#include "data/data.h"
#include "data/params_file.h"
#include "predict/capacity_predict.h"
#include "predict/flexibility.h"
#include "predict/predict.h"
#include "tests/support/support.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	const char *platform, *model;
	int tp;
	double running, rate, in, out; /* rate 0: a closed loop of `running` */
	int steps;
} top_case;

static top_case cases[] = {
	{ "H100", "Llama-3.1-70B", 4, 256, 2.2, 8192, 64, 6 },  /* the report's repros */
	{ "B200", "Qwen3-8B", 1, 256, 4.8, 8192, 64, 4 },
	{ "H200", "Qwen3-8B", 1, 256, 1.4, 8192, 64, 5 },        /* light, prefill-heavy */
	{ "A100-PCIe", "Qwen3-8B", 1, 8, 0.5, 8192, 16, 5 },     /* prefill-heavy, engine limit 8 */
	{ "H200-NVL", "Qwen3-32B", 1, 128, 2, 1000, 400, 5 },    /* full load over the board's 600 W */
	{ "A100", "Qwen3-32B", 1, 256, 0, 512, 256, 4 },         /* the limit binds at the top;
	                                                          * rate set by limit_bound_rate() */
	{ "H100", "Qwen3-8B", 1, 8, 0, 8192, 16, 5 },            /* closed loops */
	{ "A100", "Qwen3-32B", 1, 256, 0, 512, 256, 4 },
	{ "A100", "Qwen3-8B", 1, 64, 0, 512, 256, 4 },
	{ "H100", "Qwen3-8B", 1, 256, 20, 512, 256, 4 },         /* its power interval ended at 762.5 W */
	{ "A100", "Qwen3-8B", 1, 128, 0, 512, 256, 3 },          /* 440 W, the cap's answer 438.45 W */
};

static wc_inference_query
query(const top_case *c)
{
	wc_inference_query q = { .config = test_catalog_config(c->platform, c->tp, c->model, c->running) };
	q.config.request_rate = c->rate;
	q.config.input_tokens = c->in;
	q.config.output_tokens = c->out;
	return q;
}

/* The top cap answered as `predict inference --power-cap` answers it
 * (the settled clock, then an open loop's capacity at full load), against
 * the sweep's unconstrained point; its intervals are the top step's. */
static void
top_as_inference(const wc_predictor *pr, const wc_inference_query *q, const wc_flexibility *f,
                 wc_capacity_prediction *cap)
{
	wc_inference_query at = *q;
	wc_error err;
	at.power_cap_w = f->steps[0].power_cap_w;
	CHECK_INT(wc_predict_settle_clock(pr, &at, &err), WC_OK);
	CHECK_INT(wc_predict_capacity_settled(pr, &at, NAN, NAN, cap, &err), WC_OK);
	CHECK(!cap->over_capacity);
	CHECK_NEAR(cap->value[WC_CAPQ_POWER], f->ref_node_power_w, 0.5);
	CHECK_NEAR(cap->value[WC_CAPQ_THROUGHPUT], f->ref_throughput_tok_s, 1e-6 * f->ref_throughput_tok_s);
	static const int k2q[WC_FLEX_IQ] = { WC_CAPQ_POWER, WC_CAPQ_THROUGHPUT, WC_CAPQ_E_TOKEN, WC_CAPQ_LATENCY };
	const wc_flex_step *s = &f->steps[0];
	for (int iq = 0; iq < WC_FLEX_IQ; iq++) {
		const double lo = cap->lo[k2q[iq]], hi = cap->hi[k2q[iq]];
		const int same = ((isnan(s->lo[iq]) && isnan(lo)) || s->lo[iq] == lo) &&
		                 ((isnan(s->hi[iq]) && isnan(hi)) || s->hi[iq] == hi);
		CHECK(same);
		if (!same)
			fprintf(stderr, "  quantity %d: top step %.6g-%.6g, the answer to its %.6g W cap %.6g-%.6g\n", iq,
			        s->lo[iq], s->hi[iq], s->power_cap_w, lo, hi);
	}
	/* under the cap node power ends at the boards' ceiling, G x 1.1 x it */
	CHECK(s->hi[0] <= q->config.tp * 1.1 * s->power_cap_w * (1 + 1e-12) || s->hi[0] == s->node_power_w);
}

/* The A100 case's rate: just within the capacity full load has at the
 * clock the board's limit settles (docs/capacity.md, "The board's power
 * limit"), taken from the model rather than pasted, so the case stays
 * "served, limit binding" when the measured profile is regenerated (it
 * was 2.55/s; the 2026-12-06 profile's A100 eta puts capacity below it). */
static void
limit_bound_rate(const wc_predictor *pr, wc_capacity_prediction *cap)
{
	top_case *c = &cases[5];
	c->rate = 2.55;
	wc_inference_query q = query(c);
	wc_error err;
	CHECK_INT(wc_predict_settle_clock(pr, &q, &err), WC_OK);
	CHECK_INT(wc_predict_capacity_settled(pr, &q, NAN, NAN, cap, &err), WC_OK);
	/* the limit binds: full load settles below the A100's top clock */
	CHECK(q.config.sm_clock_mhz < 1410);
	c->rate = 0.995 * cap->capacity_rate;
	fprintf(stderr, "A100 Qwen3-32B: capacity %.4f/s at %.0f MHz, rate %.4f/s\n", cap->capacity_rate,
	        q.config.sm_clock_mhz, c->rate);
}

static void
top_is_unconstrained(const wc_predictor *pr, wc_flexibility *f, wc_capacity_prediction *cap)
{
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		const top_case *c = &cases[k];
		wc_inference_query q = query(c);
		wc_error err;
		q.want_interval = 1;
		CHECK_INT(wc_predict_flexibility(pr, &q, 0, c->steps, f, &err), WC_OK);
		const int clock_knee = !isnan(f->knee_clock_mhz), clock_best = !isnan(f->energy_optimal_clock_mhz);
		CHECK_INT(wc_predict_flexibility(pr, &q, 1, c->steps, f, &err), WC_OK);
		const wc_flex_step *s = &f->steps[0];
		fprintf(stderr, "%s %s tp %d %s %g: top cap %.1f W at %.0f MHz, %.1f W (shed %.2f W), %.5g tokens/s%s; "
		        "knee %.0f MHz, optimum %.0f MHz\n", c->platform, c->model, c->tp, c->rate > 0 ? "rate" : "running",
		        c->rate > 0 ? c->rate : c->running, s->power_cap_w, s->sm_clock_mhz, s->node_power_w,
		        s->power_shed_w, s->throughput_tok_s, s->over_capacity ? ", over capacity" : "", f->knee_clock_mhz,
		        f->energy_optimal_clock_mhz);
		/* sheds nothing, never a negative share, and serves what the
		 * unconstrained point serves */
		CHECK(s->power_shed_w >= -0.5 && s->power_shed_w <= 0.5);
		CHECK(!s->over_capacity);
		CHECK_NEAR(s->throughput_lost_pct, 0, 0);
		CHECK(isnan(s->pfi));
		if (c->rate > 0)
			CHECK_NEAR(s->throughput_tok_s, c->rate * c->out, 1e-9 * c->rate * c->out);
		/* no cap above the board's limit, which is answered as none */
		CHECK(s->power_cap_w <= wc_predict_board(wc_predictor_params(pr), c->platform)->max_power_w);
		CHECK(!clock_knee || !isnan(f->knee_clock_mhz));
		CHECK(!clock_best || !isnan(f->energy_optimal_clock_mhz));
		top_as_inference(pr, &q, f, cap);
	}
}

/* The repros' numbers: the top cap serves the rate at the top clock; a
 * cap below full load's draw there settles full load lower (the top cap
 * is the least that does not bind), and the steps that serve the rate
 * carry a knee and an optimum. */
static void
repros(const wc_predictor *pr, wc_flexibility *f, wc_capacity_prediction *cap)
{
	wc_inference_query q = query(&cases[0]);
	wc_error err;
	CHECK_INT(wc_predict_flexibility(pr, &q, 1, 6, f, &err), WC_OK);
	CHECK_NEAR(f->steps[0].sm_clock_mhz, 1980, 0);
	CHECK_NEAR(f->steps[0].node_power_w, f->ref_node_power_w, 0.05);
	{ /* the unconstrained point is what `predict inference` answers with no cap */
		wc_inference_query none = q;
		CHECK_INT(wc_predict_settle_clock(pr, &none, &err), WC_OK);
		CHECK_INT(wc_predict_capacity_settled(pr, &none, NAN, NAN, cap, &err), WC_OK);
		CHECK(!cap->over_capacity);
		CHECK_NEAR(f->ref_node_power_w, cap->value[WC_CAPQ_POWER], 0.05);
	}
	CHECK(f->steps[0].power_cap_w > 496.5);
	CHECK(!isnan(f->knee_clock_mhz) && !isnan(f->energy_optimal_clock_mhz));
	wc_inference_query at = q;
	at.power_cap_w = f->steps[0].power_cap_w * 0.99;
	CHECK_INT(wc_predict_settle_clock(pr, &at, &err), WC_OK);
	CHECK_INT(wc_predict_capacity_settled(pr, &at, NAN, NAN, cap, &err), WC_OK);
	const double below = cap->capacity_rate;
	at = q;
	at.power_cap_w = f->steps[0].power_cap_w;
	CHECK_INT(wc_predict_settle_clock(pr, &at, &err), WC_OK);
	CHECK_INT(wc_predict_capacity_settled(pr, &at, NAN, NAN, cap, &err), WC_OK);
	CHECK(below < cap->capacity_rate * (1 - 1e-6));
	q = query(&cases[1]);
	CHECK_INT(wc_predict_flexibility(pr, &q, 1, 4, f, &err), WC_OK);
	CHECK_NEAR(f->steps[0].sm_clock_mhz, 1965, 0);
	CHECK(!f->steps[0].over_capacity && f->steps[0].power_cap_w > 400);
	CHECK(!isnan(f->knee_clock_mhz) && !isnan(f->energy_optimal_clock_mhz));
}

/* The CLI's sweep says the same: the first row sheds 0, serves the rate,
 * and the knee and optimum are named. */
static void
cli(void)
{
	const char *argv[] = { "wattcast", "predict", "flexibility", "--platform", "H100", "--model", "Llama-3.1-70B",
		               "--tp", "4", "--rate", "2.2", "--input-tokens", "8192", "--output-tokens", "64", "--sweep",
		               "power_cap", "--steps", "6", "--json", NULL };
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	json_t *o = json_loads(r.out ? r.out : "", 0, NULL), *s0 = json_array_get(json_object_get(o, "steps"), 0);
	CHECK(s0 != NULL);
	CHECK(json_number_value(json_object_get(s0, "power_shed_w")) >= -0.5);
	CHECK(json_number_value(json_object_get(s0, "power_shed_w")) <= 0.5);
	CHECK(json_is_false(json_object_get(s0, "over_capacity")));
	CHECK(json_is_number(json_object_get(o, "knee_clock_mhz")));
	CHECK(json_is_number(json_object_get(o, "energy_optimal_clock_mhz")));
	json_decref(o);
	run_result_free(&r);
}

int
main(void)
{
	wc_params p = WC_PARAMS_INIT;
	wc_predictor *pr = test_measured_predictor(&p);
	wc_flexibility *f = malloc(sizeof *f);
	wc_capacity_prediction *cap = malloc(sizeof *cap);
	CHECK(f && cap);
	if (pr && f && cap) {
		limit_bound_rate(pr, cap);
		top_is_unconstrained(pr, f, cap);
		repros(pr, f, cap);
	}
	cli();
	free(f);
	free(cap);
	wc_predictor_free(pr);
	wc_params_clear(&p);
	return check_report("test_flexibility_top");
}
