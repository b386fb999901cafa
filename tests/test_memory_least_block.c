/*
 * Without token lengths a running request still holds one KV block
 * (docs/capacity.md, "Memory as vLLM does it"). DeepSeek-V3 (671 GB of
 * fp8 weights) on 8 x H100 at 64 running requests with
 * --gpu-memory-utilization 1.0 and no lengths was answered at 64 running,
 * though the 0.05 GB the weights leave holds 5 of the 64 requests'
 * 16-token blocks (0.58 GB): it now runs 5, the others waiting, with the
 * preemption warning, as a concurrency with lengths is held; a cache
 * without room for one block is refused naming the utilization; a series
 * is held sample by sample alike; and the weights refusal's utilization
 * remedy is the one that makes one request run, by the same rule.
 */
#include "predict/capacity_predict.h"
#include "data/params_file.h"
#include "predict/predict.h"
#include "tests/support/support.h"

#include <math.h>
#include <string.h>

/* A catalog model as the CLI gives it: its published weights too. */
static wc_inference_query
query(const char *model, const char *platform, int tp, double running, double gmu)
{
	wc_inference_query q = { .config = test_catalog_config(platform, tp, model, running) };
	q.config.weights = q.config.arch ? (wc_precision)q.config.arch->weights : WC_PREC_BF16;
	q.config.gpu_memory_utilization = gmu;
	return q;
}

static void
held_concurrency(const wc_predictor *pr)
{
	wc_inference_query q = query("DeepSeek-V3", "H100", 8, 64, 1.0);
	wc_inference_prediction out, at5;
	wc_error err;
	CHECK_INT(wc_predict_inference(pr, &q, &out, &err), WC_OK);
	CHECK_NEAR(out.mean_running, 5.0, 0.0);
	CHECK_INT(test_warnings_with(out.warnings, out.n_warnings,
	                             "concurrency: 64 requests asked; the KV cache (0.046 GB after the weights, bf16) "
	                             "holds about 5 of one 16-token block each"), 1);
	/* its power is that of the 5 that run */
	q.config.running = 5;
	CHECK_INT(wc_predict_inference(pr, &q, &at5, &err), WC_OK);
	CHECK_NEAR(out.power.node_power_w, at5.power.node_power_w, 1e-9 * at5.power.node_power_w);
	CHECK_INT(test_warnings_with(at5.warnings, at5.n_warnings, "preempts the rest"), 0);
	/* the default's 0.9 cannot load the weights: refused as before, and
	 * the utilization said is the one that lets a request run */
	q = query("DeepSeek-V3", "H100", 8, 64, 0.0);
	CHECK_INT(wc_predict_inference(pr, &q, &out, &err), WC_EINVAL);
	CHECK_CONTAINS(err.msg, "tp: the weights need 671.0 GB but 8 x H100");
	CHECK_CONTAINS(err.msg, "; or gpu_memory_utilization 1.00");
	CHECK(strstr(err.msg, "or more") == NULL);
	/* the same configuration with token lengths is held by its whole
	 * context, the same rule: 16 + 1 tokens hold two blocks each */
	wc_capacity_prediction cap;
	q = query("DeepSeek-V3", "H100", 8, 64, 1.0);
	q.config.input_tokens = 16;
	q.config.output_tokens = 1;
	CHECK_INT(wc_predict_capacity(pr, &q, NAN, NAN, &cap, &err), WC_OK);
	CHECK_NEAR(cap.max_concurrency_fit, 2.0, 0.0);
	CHECK_NEAR(cap.value[WC_CAPQ_RUNNING], 2.0, 0.0);
}

static void
no_block(const wc_predictor *pr)
{
	/* Qwen3-32B on one H100: at 0.78625 the weights fit with 0.74 MB to
	 * spare, under one 16-token block's 4.2 MB; at 0.7863 one runs */
	wc_inference_query q = query("Qwen3-32B", "H100", 1, 64, 0.78625);
	wc_inference_prediction out;
	wc_error err;
	CHECK_INT(wc_predict_inference(pr, &q, &out, &err), WC_EINVAL);
	CHECK_CONTAINS(err.msg, "gpu_memory_utilization: one request's least 16-token block needs 0.0042 GB of KV "
	                        "cache but 1 x H100 (85.5 GB each) leave 0.00074 GB after the weights");
	CHECK_CONTAINS(err.msg, "; tp 2 holds it; or gpu_memory_utilization 0.79 or more");
	CHECK(strlen(err.msg) < WC_ERROR_MSG_MAX - 4);
	q.config.gpu_memory_utilization = 0.7863;
	CHECK_INT(wc_predict_inference(pr, &q, &out, &err), WC_OK);
	CHECK_NEAR(out.mean_running, 1.0, 0.0);
	/* the CLI names its flag, and its header the count that runs */
	const char *argv[] = { "wattcast", "predict", "inference", "--platform", "H100", "--model", "Qwen3-32B",
		               "--concurrency", "64", "--gpu-memory-utilization", "0.78625", NULL };
	test_usage_error(argv, "--gpu-memory-utilization: one request's least 16-token block needs 0.0042 GB");
	const char *ok[] = { "wattcast", "predict", "inference", "--platform", "H100", "--model", "DeepSeek-V3",
		             "--tp", "8", "--concurrency", "64", "--gpu-memory-utilization", "1.0", NULL };
	char *said = test_run_said(ok);
	CHECK_CONTAINS(said, "platform H100, tp 8, active params 37 B, running 5, weights fp8");
	CHECK_CONTAINS(said, "so vLLM runs 5 and preempts the rest (its power is that of those that run)");
	free(said);
}

static void
held_series(const wc_predictor *pr)
{
	/* half the time at 64, half at 2: the 64 run as 5 */
	static const double running[] = { 64, 2, 64, 2 };
	wc_inference_query q = query("DeepSeek-V3", "H100", 8, 0, 1.0), two = q;
	wc_inference_prediction out, ref;
	wc_error err;
	q.running_series = running;
	q.series_len = 4;
	q.dt_s = 1.0;
	CHECK_INT(wc_predict_inference(pr, &q, &out, &err), WC_OK);
	CHECK_NEAR(out.mean_running, 3.5, 1e-12);
	CHECK_INT(test_warnings_with(out.warnings, out.n_warnings,
	                             "running_series: up to 64 requests asked; the KV cache"), 1);
	static const double held[] = { 5, 2, 5, 2 };
	two.running_series = held;
	two.series_len = 4;
	two.dt_s = 1.0;
	CHECK_INT(wc_predict_inference(pr, &two, &ref, &err), WC_OK);
	CHECK_NEAR(out.power.node_power_w, ref.power.node_power_w, 1e-9 * ref.power.node_power_w);
}

int
main(void)
{
	wc_params p = WC_PARAMS_INIT;
	wc_predictor *pr = test_measured_predictor(&p);
	held_concurrency(pr);
	no_block(pr);
	held_series(pr);
	wc_predictor_free(pr);
	wc_params_clear(&p);
	return check_report("test_memory_least_block");
}
