/*
 * Power flexibility (docs/capacity.md, "Power flexibility"):
 * - on a simulated clock sweep with a known truth (throughput flat above a
 *   knee clock and proportional to the clock below it, power affine in
 *   the clock) the index of every step and the knee are recovered exactly;
 * - through the built-in profile, power decreases and latency does not
 *   decrease as the clock falls, in clock and power-cap sweeps alike;
 * - a cap at or below idle power is refused naming power_cap_w; a clock
 *   outside the platform's range naming sm_clock_mhz;
 * - a cap above idle power but below what the lowest clock draws settles
 *   there and the answer, above the cap, says so (it used to say nothing);
 * - a platform answered from its datasheet (A10G) is capped as it is
 *   answered (it used to fail: "unknown level");
 * - the board's power limit binds as a cap nobody set: where the law gives
 *   more than the limit (the measured profile's A100 and H200 levels
 *   saturate above it), the answer is at the clock a GPU settles at under
 *   it, says so, and the flexibility sweep starts there; below the limit
 *   nothing changes (answers went up to 471.8 W on a 400 W A100);
 * - (where power rises again as the clock falls: test_flexibility_rising);
 * - throughput that differs from the unconstrained point's by rounding
 *   alone is nothing lost: no index, never a negative loss.
 */
#include "data/data.h"
#include "predict/flexibility.h"
#include "predict/predict.h"
#include "models/capacity_model.h"
#include "tests/support/support.h"

#include <math.h>
#include <string.h>

static void
synthetic(void)
{
	/* truth: P(f) = 100 + 400 f / 2000 W; T(f) = 1000 min(1, f / 1200) tok/s */
	const double p0 = 100, d = 400, fmax = 2000, fk = 1200, t0 = 1000;
	wc_flexibility f = { 0 };
	f.ref_node_power_w = p0 + d;
	f.ref_throughput_tok_s = t0;
	f.n_steps = 9;
	for (int i = 0; i < f.n_steps; i++) {
		double mhz = fmax - 200.0 * i; /* 2000, 1800, ..., 400 */
		wc_flex_step *s = &f.steps[i];
		s->sm_clock_mhz = mhz;
		s->node_power_w = p0 + d * mhz / fmax;
		s->power_cap_w = s->node_power_w;
		s->throughput_tok_s = t0 * fmin(1.0, mhz / fk);
		s->energy_per_output_token_j = s->node_power_w / s->throughput_tok_s;
	}
	wc_flexibility_analyse(&f);
	CHECK_NEAR(f.knee_clock_mhz, fk, 0);
	CHECK_NEAR(f.knee_power_cap_w, p0 + d * fk / fmax, 1e-9);
	/* energy per token P/T is least at the knee: below it P/T = (p0 + d f/fmax) fk / (t0 f) grows */
	CHECK_NEAR(f.energy_optimal_clock_mhz, fk, 0);
	for (int i = 0; i < f.n_steps; i++) {
		const wc_flex_step *s = &f.steps[i];
		double shed = d * (fmax - s->sm_clock_mhz) / fmax, lost = 1.0 - fmin(1.0, s->sm_clock_mhz / fk);
		CHECK_NEAR(s->power_shed_w, shed, 1e-9);
		CHECK_NEAR(s->throughput_lost_pct, 100 * lost, 1e-9);
		if (lost > 0)
			CHECK_NEAR(s->pfi, (shed / (p0 + d)) / lost, 1e-9);
		else
			CHECK(isnan(s->pfi)); /* power shed for nothing: no finite index */
	}
}

static void
sweeps(const wc_predictor *pr, const char *platform, const char *model, double n, int by_cap)
{
	wc_inference_query q = { .config = test_catalog_config(platform, 1, model, n) };
	wc_flexibility f;
	wc_error err;
	q.config.input_tokens = 512;
	q.config.output_tokens = 256;
	q.want_interval = 1;
	CHECK_INT(wc_predict_flexibility(pr, &q, by_cap, 10, &f, &err), WC_OK);
	CHECK_INT(f.n_steps, 10);
	for (int i = 0; i + 1 < f.n_steps; i++) {
		CHECK(f.steps[i + 1].sm_clock_mhz <= f.steps[i].sm_clock_mhz);
		CHECK(f.steps[i + 1].node_power_w <= f.steps[i].node_power_w * (1 + 1e-12));
		CHECK(f.steps[i + 1].latency_s >= f.steps[i].latency_s * (1 - 1e-12));
	}
	/* a lock at the board's highest clock is where an unlocked GPU runs:
	 * no power shed there, on any board (the clock term is relative to the
	 * board's own top clock, docs/inference-law.md) */
	if (!by_cap) {
		CHECK_NEAR(f.steps[0].node_power_w, f.ref_node_power_w, 1e-9 * f.ref_node_power_w);
		CHECK_NEAR(f.steps[0].power_shed_w, 0.0, 1e-9 * f.ref_node_power_w);
	}
	/* a clock sweep: strictly less power at the lowest clock than at the top */
	CHECK(f.steps[f.n_steps - 1].node_power_w < f.steps[0].node_power_w);
	CHECK(f.knee_clock_mhz >= f.steps[f.n_steps - 1].sm_clock_mhz && f.knee_clock_mhz <= f.steps[0].sm_clock_mhz);
	CHECK(isfinite(f.energy_optimal_clock_mhz));
	/* Intervals: each step's (and the unconstrained point's) contain
	 * their values and have width; the set's held-out errors give them. */
	for (int i = 0; i < f.n_steps; i++) {
		const wc_flex_step *s = &f.steps[i];
		const double v[WC_FLEX_IQ] = { s->node_power_w, s->throughput_tok_s, s->energy_per_output_token_j, s->latency_s };
		for (int k = 0; k < WC_FLEX_IQ; k++)
			CHECK(s->lo[k] <= v[k] && v[k] <= s->hi[k] && s->lo[k] < s->hi[k]);
	}
	CHECK(f.ref_lo[WC_FLEX_POWER] <= f.ref_node_power_w && f.ref_node_power_w <= f.ref_hi[WC_FLEX_POWER]);
	CHECK(f.covers[WC_FLEX_E_TOKEN] && strstr(f.covers[WC_FLEX_E_TOKEN], "held-out error"));
	/* An optimum at the lowest clock is said to be the sweep's edge. */
	int edge = f.energy_optimal_clock_mhz == f.steps[f.n_steps - 1].sm_clock_mhz ||
	           f.knee_clock_mhz == f.steps[f.n_steps - 1].sm_clock_mhz, said = 0;
	for (int i = 0; i < f.n_warnings; i++)
		said |= strstr(f.warnings[i], "is the lowest clock swept, the edge of the board's range") != NULL;
	CHECK_INT(said, edge);
	/* no warning is cut: a step's "at N MHz: " prefix fits beside the
	 * longest warning an answer gives (a cut one fills WC_WARNING_LEN) */
	for (int i = 0; i < f.n_warnings; i++)
		CHECK(strlen(f.warnings[i]) < WC_WARNING_LEN - 1);
}

/* Qwen3-8B on one `platform` GPU at `running` requests, power only. */
static wc_inference_query
qwen8b(const char *platform, double running)
{
	wc_inference_query q = { .config = test_catalog_config(platform, 1, "Qwen3-8B", running) };
	return q;
}

static void
refusals(const wc_predictor *pr)
{
	wc_inference_query q = qwen8b("H100", 8);
	double mhz;
	wc_error err;
	CHECK_INT(wc_predict_power_cap(pr, &q, 100, &mhz, &err), WC_EINVAL);
	CHECK_CONTAINS(err.msg, "power_cap_w: 100 W is at or below the idle power");
	/* a binding cap settles inside the range; one above the free power does not bind */
	CHECK_INT(wc_predict_power_cap(pr, &q, 400, &mhz, &err), WC_OK);
	CHECK(mhz >= 345 && mhz <= 1980);
	CHECK_INT(wc_predict_power_cap(pr, &q, 2000, &mhz, &err), WC_OK);
	CHECK_NEAR(mhz, 0, 0);
	q.config.sm_clock_mhz = 2500;
	CHECK_INT(wc_predict_clock_check(NULL, &q.config, &err), WC_EINVAL);
	CHECK_CONTAINS(err.msg, "sm_clock_mhz: 2500 MHz is outside the clock range of H100, 345-1980 MHz");
	wc_flexibility f;
	q.config.input_tokens = 100;
	q.config.output_tokens = 100;
	CHECK_INT(wc_predict_flexibility(pr, &q, 0, 10, &f, &err), WC_EINVAL);
	CHECK_CONTAINS(err.msg, "sm_clock_mhz: ");
	q.config.sm_clock_mhz = 0;
	CHECK_INT(wc_predict_flexibility(pr, &q, 0, 1, &f, &err), WC_EINVAL);
	CHECK_CONTAINS(err.msg, "steps: ");
}

/* P(f_min) > cap > P0: the answer is at f_min, above the cap, with a
 * warning; a cap the answer meets warns nothing about the cap. */
static void
cap_below_lowest_clock(const wc_predictor *pr)
{
	wc_inference_query q = qwen8b("H100", 64);
	wc_inference_prediction out;
	wc_error err;
	const double caps[] = { 150, 400 };
	for (int i = 0; i < 2; i++) {
		q.config.sm_clock_mhz = 0;
		q.power_cap_w = caps[i];
		CHECK_INT(wc_predict_power_cap(pr, &q, caps[i], &q.config.sm_clock_mhz, &err), WC_OK);
		CHECK_INT(wc_predict_inference(pr, &q, &out, &err), WC_OK);
		int warned = 0;
		for (int k = 0; k < out.n_warnings; k++)
			warned |= strncmp(out.warnings[k], "power_cap_w: ", 13) == 0 && strstr(out.warnings[k], "not reached");
		if (i == 0) {
			CHECK_NEAR(q.config.sm_clock_mhz, 345, 0);
			CHECK(out.power.per_gpu_power_w > caps[i]);
			CHECK(warned);
		} else {
			CHECK(out.power.per_gpu_power_w <= caps[i] * (1 + 1e-9));
			CHECK(!warned);
		}
	}
}

/* A datasheet platform: the cap settles inside the board's range and the
 * answer meets it; at or below its (estimated) idle power it is refused. */
static void
datasheet_cap(const wc_predictor *pr)
{
	wc_inference_query q = qwen8b("A10G", 64);
	wc_inference_prediction out;
	wc_error err;
	q.power_cap_w = 200;
	CHECK_INT(wc_predict_power_cap(pr, &q, 200, &q.config.sm_clock_mhz, &err), WC_OK);
	CHECK(q.config.sm_clock_mhz >= 210 && q.config.sm_clock_mhz <= 1710);
	CHECK_INT(wc_predict_inference(pr, &q, &out, &err), WC_OK);
	CHECK_NEAR(out.power.per_gpu_power_w, 200, 0.5);
	CHECK(strcmp(out.level_source, "datasheet") == 0);
	q.config.sm_clock_mhz = 0;
	CHECK_INT(wc_predict_power_cap(pr, &q, 20, &q.config.sm_clock_mhz, &err), WC_EINVAL);
	CHECK_CONTAINS(err.msg, "power_cap_w: 20 W is at or below the idle power of A10G");
}

/* A level named after its board (the paper profile's H100-locked runs on
 * an H100): the clock check, the power cap and the capacity model's clock
 * ratio take the H100's clock range, as the server's clock check does
 * (wc_platform_board). The cap was refused ("no clock range") and the
 * ratio was 0 (a locked clock left step times unchanged). */
static void
level_on_a_board(const wc_predictor *pr)
{
	wc_inference_query q = qwen8b("H100-locked", 32);
	wc_inference_prediction out;
	wc_error err;
	CHECK_NEAR(wc_capacity_clock_ratio("H100-locked", 990), 0.5, 1e-12);
	q.config.sm_clock_mhz = 990;
	CHECK_INT(wc_predict_clock_check(NULL, &q.config, &err), WC_OK);
	q.config.sm_clock_mhz = 2500;
	CHECK_INT(wc_predict_clock_check(NULL, &q.config, &err), WC_EINVAL);
	CHECK_CONTAINS(err.msg, "sm_clock_mhz: 2500 MHz is outside the clock range of H100, 345-1980 MHz");
	q.config.sm_clock_mhz = 0;
	CHECK_INT(wc_predict_inference(pr, &q, &out, &err), WC_OK);
	CHECK(out.power.per_gpu_power_w > 300); /* so a 300 W cap binds */
	q.power_cap_w = 300;
	CHECK_INT(wc_predict_power_cap(pr, &q, 300, &q.config.sm_clock_mhz, &err), WC_OK);
	CHECK(q.config.sm_clock_mhz >= 345 && q.config.sm_clock_mhz < 1980);
	CHECK_INT(wc_predict_inference(pr, &q, &out, &err), WC_OK);
	CHECK_NEAR(out.power.per_gpu_power_w, 300, 0.5);
}

/* The board's limit (docs/capacity.md, "The board's power limit"). */
static void
board_limit(void)
{
	wc_params p = WC_PARAMS_INIT;
	wc_inference_prediction out;
	wc_capacity_prediction cap;
	wc_error err;
	wc_predictor *pr = test_measured_predictor(&p);
	wc_inference_query q = { .config = test_catalog_config("A100", 1, "Qwen3-32B", 256) };
	q.config.input_tokens = 512;
	q.config.output_tokens = 256;
	/* the law itself is above the limit here, so the check can fail */
	CHECK_INT(wc_predict_capacity(pr, &q, NAN, NAN, &cap, &err), WC_OK);
	const double free_latency = cap.value[WC_CAPQ_LATENCY];
	CHECK(cap.value[WC_CAPQ_POWER] > 420);
	wc_inference_query lim = q;
	CHECK_INT(wc_predict_board_limit(pr, &lim, &err), WC_OK);
	CHECK_NEAR(lim.board_limit_w, 400, 0);
	CHECK_NEAR(lim.board_free_w, cap.value[WC_CAPQ_POWER], 1e-9);
	CHECK(lim.config.sm_clock_mhz >= 210 && lim.config.sm_clock_mhz < 1410);
	CHECK_INT(wc_predict_capacity(pr, &lim, NAN, NAN, &cap, &err), WC_OK);
	CHECK(cap.value[WC_CAPQ_POWER] <= 400 * (1 + 1e-6) && cap.value[WC_CAPQ_POWER] > 399);
	CHECK(cap.value[WC_CAPQ_LATENCY] > free_latency); /* a lower clock is slower */
	wc_predict_take_running(&lim, &cap);
	lim.want_interval = 1;
	CHECK_INT(wc_predict_inference(pr, &lim, &out, &err), WC_OK);
	CHECK(out.power.per_gpu_power_w <= 400 * (1 + 1e-6));
	/* the interval still holds the settled answer, with width */
	CHECK(out.has_interval);
	CHECK(out.node_lo_w <= out.power.node_power_w && out.power.node_power_w <= out.node_hi_w);
	CHECK(out.node_hi_w > out.node_lo_w);
	int warned = 0;
	for (int k = 0; k < out.n_warnings; k++)
		warned |= strstr(out.warnings[k], "above the board's power limit of 400 W") != NULL;
	CHECK(warned);
	/* a lock at the top clock, or a cap above the limit, is held to it too */
	const double locks[] = { 1410, 1260, 1230 }; /* each above the settled clock: the same answer */
	for (int i = 0; i < 3; i++) {
		wc_inference_query locked = q;
		locked.config.sm_clock_mhz = locks[i];
		CHECK_INT(wc_predict_board_limit(pr, &locked, &err), WC_OK);
		CHECK_NEAR(locked.config.sm_clock_mhz, lim.config.sm_clock_mhz, 0);
	}
	wc_inference_query below = q; /* a lock under the settled clock is left alone */
	below.config.sm_clock_mhz = 900;
	CHECK_INT(wc_predict_board_limit(pr, &below, &err), WC_OK);
	CHECK_NEAR(below.board_limit_w, 0, 0);
	CHECK_NEAR(below.config.sm_clock_mhz, 900, 0);
	wc_inference_query capped = q;
	capped.power_cap_w = 450;
	CHECK_INT(wc_predict_power_cap(pr, &capped, 450, &capped.config.sm_clock_mhz, &err), WC_OK);
	CHECK_INT(wc_predict_board_limit(pr, &capped, &err), WC_OK);
	CHECK_NEAR(capped.board_limit_w, 400, 0);
	/* a tighter cap is left alone */
	capped = q;
	capped.power_cap_w = 300;
	CHECK_INT(wc_predict_power_cap(pr, &capped, 300, &capped.config.sm_clock_mhz, &err), WC_OK);
	const double at300 = capped.config.sm_clock_mhz;
	CHECK_INT(wc_predict_board_limit(pr, &capped, &err), WC_OK);
	CHECK_NEAR(capped.board_limit_w, 0, 0);
	CHECK_NEAR(capped.config.sm_clock_mhz, at300, 0);
	/* below the limit nothing changes */
	wc_inference_query small = { .config = test_catalog_config("A100", 1, "Qwen3-8B", 1) };
	CHECK_INT(wc_predict_board_limit(pr, &small, &err), WC_OK);
	CHECK_NEAR(small.board_limit_w, 0, 0);
	CHECK_NEAR(small.config.sm_clock_mhz, 0, 0);
	/* the sweep starts where the limit settles the clock */
	wc_flexibility f;
	CHECK_INT(wc_predict_flexibility(pr, &q, 0, 6, &f, &err), WC_OK);
	CHECK_NEAR(f.steps[0].sm_clock_mhz, lim.config.sm_clock_mhz, 1e-9);
	CHECK_NEAR(f.board_limit_w, 400, 0);
	CHECK(f.ref_node_power_w <= 400 * (1 + 1e-6));
	for (int i = 0; i < f.n_steps; i++)
		CHECK(f.steps[i].node_power_w <= 400 * (1 + 1e-6));
	int said = 0;
	for (int k = 0; k < f.n_warnings; k++)
		said |= strstr(f.warnings[k], "above the board's power limit of 400 W") != NULL &&
		        strstr(f.warnings[k], "still above") == NULL;
	CHECK(said);
	small.config.input_tokens = 512;
	small.config.output_tokens = 256;
	CHECK_INT(wc_predict_flexibility(pr, &small, 0, 6, &f, &err), WC_OK);
	CHECK_NEAR(f.board_limit_w, 0, 0); /* it does not bind: the sweep starts at the top clock */
	CHECK_NEAR(f.steps[0].sm_clock_mhz, 1410, 0);
	wc_predictor_free(pr);
	wc_params_clear(&p);
}

/* The capacity answer's per-GPU draw while serving, and throughput, of `q` locked at `mhz`. */
static void
rounding_is_not_loss(void)
{
	wc_flexibility f = { 0 };
	const double noise[] = { 0, 1e-10, -1e-10, 6e-10, -3e-12, 1e-3 };
	f.ref_node_power_w = 500;
	f.ref_throughput_tok_s = 1000;
	f.n_steps = 6;
	for (int i = 0; i < f.n_steps; i++) {
		wc_flex_step *s = &f.steps[i];
		s->sm_clock_mhz = 2000 - 300 * i;
		s->node_power_w = s->power_cap_w = 500 - 50 * i;
		s->throughput_tok_s = 1000 * (1 - noise[i]);
		s->energy_per_output_token_j = s->node_power_w / s->throughput_tok_s;
	}
	wc_flexibility_analyse(&f);
	for (int i = 0; i + 1 < f.n_steps; i++) {
		CHECK_NEAR(f.steps[i].throughput_lost_pct, 0, 0);
		CHECK(isnan(f.steps[i].pfi));
	}
	CHECK_NEAR(f.steps[5].throughput_lost_pct, 0.1, 1e-9); /* a real loss keeps its index */
	CHECK_NEAR(f.steps[5].pfi, (250.0 / 500) / 1e-3, 1e-6);
	CHECK_NEAR(f.knee_clock_mhz, 2000 - 300 * 5, 0); /* power shed faster than throughput lost throughout */

	/* an open loop below capacity at every clock: exactly nothing lost */
	wc_params p = WC_PARAMS_INIT;
	wc_error err;
	wc_predictor *pr = test_measured_predictor(&p);
	wc_inference_query q = { .config = test_catalog_config("H100", 1, "Qwen3-8B", 0) };
	q.config.request_rate = 2;
	q.config.input_tokens = 512;
	q.config.output_tokens = 256;
	for (int by_cap = 0; by_cap < 2; by_cap++) {
		CHECK_INT(wc_predict_flexibility(pr, &q, by_cap, 6, &f, &err), WC_OK);
		for (int i = 0; i < f.n_steps; i++) {
			CHECK_NEAR(f.steps[i].throughput_tok_s, 512, 0);
			CHECK_NEAR(f.steps[i].throughput_lost_pct, 0, 0);
			CHECK(isnan(f.steps[i].pfi));
		}
	}
	wc_predictor_free(pr);
	wc_params_clear(&p);
}

/* A load series is limited step by step (docs/capacity.md, "The board's
 * power limit"): half the time idle, half at a load the law puts above
 * the A100's 400 W, averages idle and 400 W; a tighter cap binds the same
 * way; a series below the limit is the law's. */
static void
series_limit(void)
{
	wc_params p = WC_PARAMS_INIT;
	wc_inference_prediction out, one;
	wc_error err;
	wc_predictor *pr = test_measured_predictor(&p);
	double series[2] = { 0, 512 };
	wc_inference_query q = { .config = test_catalog_config("A100", 1, "Qwen3-32B", 512) };
	q.want_interval = 1;
	/* the law at 512 alone, above the limit: the check can fail */
	CHECK_INT(wc_predict_inference(pr, &q, &one, &err), WC_OK);
	CHECK(one.power.per_gpu_power_w > 420);
	q.running_series = series;
	q.series_len = 2;
	q.dt_s = 1.0;
	CHECK_INT(wc_predict_board_limit(pr, &q, &err), WC_OK);
	CHECK(q.config.sm_clock_mhz == 0.0); /* no clock for a series */
	CHECK_INT(wc_predict_inference(pr, &q, &out, &err), WC_OK);
	const double p0 = out.power.idle_power_w;
	CHECK_NEAR(out.power.per_gpu_power_w, 0.5 * (p0 + 400.0), 1e-6);
	CHECK(out.has_interval && out.node_lo_w <= out.power.node_power_w && out.power.node_power_w <= out.node_hi_w &&
	      out.node_hi_w > out.node_lo_w);
	int warned = 0;
	for (int i = 0; i < out.n_warnings; i++)
		warned |= strstr(out.warnings[i], "more than 400 W per GPU for 50.0 %") != NULL;
	CHECK(warned);
	/* half idle (P0 exactly) and half at most 1.1 x the limit: the mean's
	 * interval ends there, not at 346 W (docs/intervals.md, "Physical
	 * ceiling") */
	fprintf(stderr, "series 0, 512: %.2f W [%.2f, %.2f]\n", out.power.node_power_w, out.node_lo_w, out.node_hi_w);
	CHECK(out.node_hi_w <= 0.5 * (p0 + 440.0) * (1 + 1e-12));
	q.power_cap_w = 300;
	CHECK_INT(wc_predict_inference(pr, &q, &out, &err), WC_OK);
	CHECK_NEAR(out.power.per_gpu_power_w, 0.5 * (p0 + 300.0), 1e-6);
	CHECK(out.node_hi_w <= 0.5 * (p0 + 330.0) * (1 + 1e-12) && out.node_hi_w >= out.power.node_power_w);
	/* below the limit: the law as it is, no warning */
	double low[2] = { 0, 1 };
	q.power_cap_w = 0;
	q.running_series = low;
	wc_inference_query lone = { .config = test_catalog_config("A100", 1, "Qwen3-32B", 0.5) };
	CHECK_INT(wc_predict_inference(pr, &lone, &one, &err), WC_OK);
	CHECK_INT(wc_predict_inference(pr, &q, &out, &err), WC_OK);
	CHECK_NEAR(out.power.per_gpu_power_w, one.power.per_gpu_power_w, 1e-9);
	/* no limit's share; the load 1 below A100's span (7.9-256, its shape
	 * H100's; docs/calibration.md, "Relative to a level") is said for
	 * its share of the time, as it is */
	for (int i = 0; i < out.n_warnings; i++)
		CHECK(strstr(out.warnings[i], "per GPU for") == NULL);
	int below = 0;
	for (int i = 0; i < out.n_warnings; i++)
		below |= strstr(out.warnings[i], "load 1 is outside the calibrated span 7.9-256 on A100 for 50.0 % of the "
		                                 "series' time") != NULL;
	CHECK(below);
	wc_predictor_free(pr);
	wc_params_clear(&p);
}

/* A caveat that holds only at the lower clocks of the sweep (the rate
 * over capacity, whose numbers change from step to step) is said once,
 * naming every clock it holds at with its numbers. */
static void
step_warnings_once(void)
{
	wc_params p = WC_PARAMS_INIT;
	wc_flexibility f;
	wc_error err;
	wc_predictor *pr = test_measured_predictor(&p);
	wc_inference_query q = { .config = test_catalog_config("H100", 1, "Qwen3-8B", 0) };
	q.config.request_rate = 20;
	q.config.input_tokens = 512;
	q.config.output_tokens = 256;
	CHECK_INT(wc_predict_flexibility(pr, &q, 0, 6, &f, &err), WC_OK);
	int rate = 0;
	for (int i = 0; i < f.n_warnings; i++)
		if (strstr(f.warnings[i], "rate: ")) {
			rate++;
			CHECK(strncmp(f.warnings[i], "at ", 3) == 0 && strstr(f.warnings[i], " MHz: rate: ") != NULL);
		}
	CHECK_INT(rate, 1);
	wc_predictor_free(pr);
	wc_params_clear(&p);
}

int
main(void)
{
	wc_params p = WC_PARAMS_INIT;
	wc_predictor *pr = NULL;
	wc_error err;
	synthetic();
	board_limit();
	series_limit();
	step_warnings_once();
	rounding_is_not_loss();
	const char *profiles[] = { "paper", "paper-prefill" };
	for (int i = 0; i < 2; i++) {
		CHECK_INT(wc_params_profile(profiles[i], &p, &err), WC_OK);
		CHECK_INT(wc_predictor_new(&p, &pr, &err), WC_OK);
		sweeps(pr, "H100", "Qwen3-14B", 32, 0);
		sweeps(pr, "A100", "Qwen3-8B", 4, 0);
		sweeps(pr, "H200", "Qwen3-32B", 64, 1);
		if (i == 0) {
			refusals(pr);
			cap_below_lowest_clock(pr);
			datasheet_cap(pr);
			level_on_a_board(pr);
		}
		wc_predictor_free(pr);
		pr = NULL;
		wc_params_clear(&p);
	}
	return check_report("test_flexibility");
}
