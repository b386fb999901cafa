/*
 * Every energy figure comes from the headline's node power
 * (docs/capacity.md, "Closed loop, open loop, energy"): over every
 * built-in profile, closed and open loops, short and long prompts, the
 * capacity answers' power, energy per hour x 1000, energy per output token
 * x throughput and energy per request x n / latency all equal the node
 * power wc_predict_inference gives for the same configuration (at the
 * solved running count for an open loop, as the CLI and the server ask).
 * Under the prefill-aware profile these used to differ by 9-18 %.
 * An open loop's running count and its interval stay within the engine's
 * limit (the interval's upper end used to reach 466 of 256). More
 * requests than the KV cache holds wait before their first token: TTFT
 * includes the wait latency does. Such an answer's energy is rebuilt from
 * its own fields by the pages' formula (latency_run = latency_s x n / N,
 * or latency_s over the N requests in the system): the pages gave
 * P x latency_s / (n x L_out) with n the effective count, 5.59 J a token
 * for the 0.2458 J answered (H100 Qwen3-8B, 2000 asked, 88 run).
 */
#include "data/data.h"
#include "predict/capacity_predict.h"
#include "predict/predict.h"
#include "tests/support/run_json.h"
#include "tests/support/support.h"

#include <math.h>

/* The built-in profiles (wc_params_profile). */
static const char *const profiles[] = { "paper", "paper-prefill", "measured" };

typedef struct {
	const char *platform, *model;
	int tp;
	double running, in, out, rate;
} cfg;

static const cfg cases[] = {
	{ "A100", "Qwen3-8B", 1, 4, 600, 600, 0 },   /* the reported pair: 348.8 W against 286 W */
	{ "A100", "Qwen3-8B", 1, 8, 600, 600, 0 },
	{ "A100", "Qwen3-8B", 1, 32, 600, 600, 0 },
	{ "A100", "Qwen3-8B", 1, 1, 4600, 100, 0 },
	{ "H200", "Qwen3-14B", 1, 32, 500, 512, 0 },
	{ "H100", "Qwen3-32B", 2, 16, 2048, 128, 0 },
	{ "H100", "Qwen3-8B", 1, 0, 1000, 300, 2.0 }, /* open loop */
	{ "A100", "Qwen3-14B", 2, 64, 600, 600, 1.0 }, /* open loop under an engine cap */
	{ "A100", "Qwen3-32B", 1, 32, 1000, 512, 0 },  /* more than the KV cache holds: fewer run */
};

static void
one(const wc_predictor *pr, const char *profile, const cfg *k)
{
	wc_inference_query q = { .config = test_catalog_config(k->platform, k->tp, k->model, k->running) };
	wc_capacity_prediction cap;
	wc_inference_prediction head;
	wc_error err;
	q.config.input_tokens = k->in;
	q.config.output_tokens = k->out;
	q.config.request_rate = k->rate;
	CHECK_INT(wc_predict_capacity(pr, &q, NAN, NAN, &cap, &err), WC_OK);
	/* The headline is asked at the running count the capacity answer
	 * says runs (the solved n of an open loop, the effective count), an
	 * open loop's averaged over its Poisson count as the CLI and the
	 * server ask it. */
	wc_predict_take_running(&q, &cap);
	CHECK_INT(wc_predict_inference(pr, &q, &head, &err), WC_OK);
	double P = head.power.node_power_w, n = cap.value[WC_CAPQ_RUNNING], tol = 1e-9 * P;
	fprintf(stderr, "%s %s %s n=%g in=%g: headline %.3f W, energy per hour %.6f kWh\n", profile, k->platform,
	        k->model, n, k->in, P, cap.value[WC_CAPQ_E_HOUR]);
	CHECK_NEAR(cap.value[WC_CAPQ_POWER], P, tol);
	CHECK_NEAR(cap.value[WC_CAPQ_E_HOUR] * 1000.0, P, tol);
	CHECK_NEAR(cap.value[WC_CAPQ_E_TOKEN] * cap.value[WC_CAPQ_THROUGHPUT], P, tol);
	CHECK_NEAR(cap.value[WC_CAPQ_E_REQUEST] * cap.value[WC_CAPQ_THROUGHPUT] / k->out, P, tol);
	(void)n;
}

/* Qwen3-32B on one 80 GB GPU at n = 32 (measured and published) is
 * answered, with the count that runs and a warning when fewer run; a 405 B
 * model on one H100 is still refused (docs/capacity.md, "Memory as vLLM
 * does it"). */
static void
memory_as_vllm(const wc_predictor *pr)
{
	const char *platforms[] = { "A100", "H100" };
	for (int i = 0; i < 2; i++) {
		wc_inference_query q = { .config = test_catalog_config(platforms[i], 1, "Qwen3-32B", 32) };
		wc_capacity_prediction cap;
		wc_error err;
		/* 2000 + 512 tokens: about 0.59 GB of KV cache each, 11.7 GB
		 * (A100) and 11.4 GB (H100) left after the weights */
		q.config.input_tokens = 2000;
		q.config.output_tokens = 512;
		CHECK_INT(wc_predict_capacity(pr, &q, NAN, NAN, &cap, &err), WC_OK);
		double n = cap.value[WC_CAPQ_RUNNING];
		fprintf(stderr, "Qwen3-32B on one %s, 32 asked: %g run\n", platforms[i], n);
		CHECK(n >= 1 && n < 32);
		CHECK_NEAR(n, cap.max_concurrency_fit, 0);
		CHECK_CONTAINS(cap.warnings[0], "concurrency: 32 requests asked");
		/* waiting stretches latency: n running at the throughput of n */
		CHECK_NEAR(cap.value[WC_CAPQ_THROUGHPUT] * cap.value[WC_CAPQ_LATENCY], 32 * 512, 1e-6 * 32 * 512);
		/* the wait is in the queue, before the first token: TTFT grows by
		 * it and the time from the first token to the last is that of the
		 * n that run (TTFT was the n's, 0.6 s at 128 asked, 16 run) */
		wc_capacity_prediction eff;
		wc_inference_query qe = q;
		qe.config.running = n;
		CHECK_INT(wc_predict_capacity(pr, &qe, NAN, NAN, &eff, &err), WC_OK);
		CHECK_NEAR(cap.value[WC_CAPQ_LATENCY] - cap.value[WC_CAPQ_TTFT],
		           eff.value[WC_CAPQ_LATENCY] - eff.value[WC_CAPQ_TTFT], 1e-9 * eff.value[WC_CAPQ_LATENCY]);
		CHECK_NEAR(cap.value[WC_CAPQ_TTFT] - eff.value[WC_CAPQ_TTFT], eff.value[WC_CAPQ_LATENCY] * (32 / n - 1),
		           1e-9 * cap.value[WC_CAPQ_LATENCY]);
		CHECK_CONTAINS(cap.warnings[0], "latency and time to first token include the wait");
		q.config.input_tokens = 107;
		CHECK_INT(wc_predict_capacity(pr, &q, NAN, NAN, &cap, &err), WC_OK);
		CHECK_NEAR(cap.value[WC_CAPQ_RUNNING], 32, 0); /* the published design fits: all run */
	}
	wc_inference_query q = { .config = test_catalog_config("H100", 1, "Llama-3.1-405B", 32) };
	wc_capacity_prediction cap;
	wc_error err;
	q.config.input_tokens = 100;
	q.config.output_tokens = 100;
	CHECK_INT(wc_predict_capacity(pr, &q, NAN, NAN, &cap, &err), WC_EINVAL);
	CHECK_CONTAINS(err.msg, "tp: the weights need 810.0 GB");
	/* A level named after its board (H100-locked runs on H100) is held to
	 * that board's memory: the same weights are refused, and the KV cache
	 * binds at the same running count as on H100 (it skipped both). */
	q.config = test_catalog_config("H100-locked", 1, "Llama-3.1-405B", 32);
	q.config.input_tokens = 100;
	q.config.output_tokens = 100;
	CHECK_INT(wc_predict_capacity(pr, &q, NAN, NAN, &cap, &err), WC_EINVAL);
	CHECK_CONTAINS(err.msg, "tp: the weights need 810.0 GB but 1 x H100-locked");
	double fit[2];
	for (int k = 0; k < 2; k++) {
		q.config = test_catalog_config(k ? "H100-locked" : "H100", 1, "Qwen3-8B", 256);
		q.config.input_tokens = 8192;
		q.config.output_tokens = 512;
		CHECK_INT(wc_predict_memory_check(wc_predictor_params(pr), &q.config, &fit[k], &err), WC_OK);
		CHECK_INT(wc_predict_capacity(pr, &q, NAN, NAN, &cap, &err), WC_OK);
		CHECK(cap.value[WC_CAPQ_RUNNING] < 256);
	}
	CHECK(isfinite(fit[1]) && fit[1] == fit[0]);
}

/* Open loop at, near and over capacity (engine limit 256): the running
 * count's 95 % interval never exceeds the limit and still contains it;
 * over capacity at both ends of latency's interval it has none. */
static void
open_loop_running_bound(const wc_predictor *pr)
{
	const double rates[] = { 1, 10, 20, 100 };
	for (int i = 0; i < 4; i++) {
		wc_inference_query q = { .config = test_catalog_config("H100", 1, "Qwen3-8B", 256), .want_interval = 1 };
		wc_capacity_prediction cap;
		wc_error err;
		q.config.request_rate = rates[i];
		q.config.input_tokens = 512;
		q.config.output_tokens = 256;
		CHECK_INT(wc_predict_capacity(pr, &q, NAN, NAN, &cap, &err), WC_OK);
		double n = cap.value[WC_CAPQ_RUNNING], lo = cap.lo[WC_CAPQ_RUNNING], hi = cap.hi[WC_CAPQ_RUNNING];
		fprintf(stderr, "open loop %g/s: n %g [%g, %g]\n", rates[i], n, lo, hi);
		CHECK(n <= 256);
		/* over the capacity of the fast end of latency's interval every
		 * latency in it runs the limit: no interval, never [256, 256]
		 * (docs/intervals.md, "Where it applies") */
		const double fast = cap.capacity_rate * cap.value[WC_CAPQ_LATENCY] / cap.lo[WC_CAPQ_LATENCY];
		if (rates[i] > fast) {
			CHECK(n == 256 && isnan(lo) && isnan(hi));
			continue;
		}
		CHECK(isfinite(lo) && isfinite(hi));
		CHECK(lo <= n && n <= hi && lo < hi);
		CHECK(hi <= 256 * (1 + 1e-12));
	}
}

/* A level sharing S with H100 (fit --share LAB=H100) runs on an H100 for
 * its clocks and caps as for its memory: a clock outside H100's range is
 * refused naming it, and a cap settles in that range (5000 MHz answered
 * 1419 W per GPU; a cap was refused, "no clock range"). */
static void
shared_level(void)
{
	wc_params p = WC_PARAMS_INIT;
	wc_predictor *pr = NULL;
	wc_error err;
	wc_params_default(&p);
	wc_level *lab = &p.levels[p.n_levels++];
	*lab = *wc_params_level(&p, "H100");
	snprintf(lab->name, sizeof lab->name, "lab-h100-clk");
	snprintf(lab->s_shared_with, sizeof lab->s_shared_with, "H100");
	CHECK_INT(wc_predictor_new(&p, &pr, &err), WC_OK);
	wc_inference_query q = { .config = test_catalog_config("lab-h100-clk", 1, "Qwen3-8B", 8) };
	q.config.sm_clock_mhz = 5000;
	CHECK_INT(wc_predict_clock_check(&p, &q.config, &err), WC_EINVAL);
	CHECK_CONTAINS(err.msg, "sm_clock_mhz: 5000 MHz is outside the clock range of H100, 345-1980 MHz");
	q.config.sm_clock_mhz = 0;
	double mhz = 0;
	CHECK_INT(wc_predict_power_cap(pr, &q, 300, &mhz, &err), WC_OK);
	CHECK(mhz >= 345 && mhz < 1980);
	wc_predictor_free(pr);
	wc_params_clear(&p);
}

/* A closed loop beyond the KV cache, as the user reads it: the energy
 * figures from the answer's node power, mean_running, latency and
 * throughput by the formula docs/capacity.md and docs/http-api.md give. */
static void
kv_full_energy(void)
{
	const char *argv[] = { "wattcast", "predict", "inference", "--platform", "H100", "--model", "Qwen3-8B",
		               "--concurrency", "2000", "--input-tokens", "4000", "--output-tokens", "1000", "--json",
		               NULL };
	json_t *j = test_run_json(argv, NULL), *c = json_object_get(j, "capacity");
	CHECK(c != NULL);
	if (!c) {
		json_decref(j);
		return;
	}
	const double N = 2000, L = 1000, P = json_number_value(json_object_get(j, "node_power_w")),
	             n = json_number_value(json_object_get(j, "mean_running")),
	             lat = json_number_value(json_object_get(c, "latency_s")),
	             thr = json_number_value(json_object_get(c, "throughput_tok_s")),
	             e_tok = json_number_value(json_object_get(c, "energy_per_output_token_j")),
	             e_req = json_number_value(json_object_get(c, "energy_per_request_j"));
	CHECK(n >= 1 && n < N); /* the cache holds fewer: the others wait */
	const double lat_run = lat * n / N;
	CHECK_NEAR(e_tok, P * lat_run / (n * L), 1e-6 * e_tok);
	CHECK_NEAR(e_tok, P / thr, 1e-6 * e_tok);
	CHECK_NEAR(e_req, P * lat_run / n, 1e-6 * e_req);
	CHECK_NEAR(e_req, P * L / thr, 1e-6 * e_req);
	CHECK_NEAR(e_tok, P * lat / (N * L), 1e-6 * e_tok);
	CHECK(test_doc_says("docs/capacity.md", "energy per output token = P · latency_run / (n · L_out) = P / throughput"));
	CHECK(test_doc_says("docs/capacity.md", "energy per request = P · latency_run / n = P · L_out / throughput"));
	CHECK(test_doc_says("docs/capacity.md", "is latency_run · N / n"));
	CHECK(test_doc_says("docs/http-api.md", "`P / throughput_tok_s`, `P · output_tokens / throughput_tok_s`"));
	json_decref(j);
}

int
main(void)
{
	shared_level();
	kv_full_energy();
	for (size_t i = 0; i < sizeof profiles / sizeof profiles[0]; i++) {
		wc_params p = WC_PARAMS_INIT;
		wc_predictor *pr = NULL;
		wc_error err;
		CHECK_INT(wc_params_profile(profiles[i], &p, &err), WC_OK);
		CHECK_INT(wc_predictor_new(&p, &pr, &err), WC_OK);
		for (size_t j = 0; pr && j < sizeof cases / sizeof cases[0]; j++)
			one(pr, profiles[i], &cases[j]);
		if (pr && i == 0)
			memory_as_vllm(pr);
		if (pr)
			open_loop_running_bound(pr);
		wc_predictor_free(pr);
		wc_params_clear(&p);
	}
	return check_report("test_capacity_consistency");
}
