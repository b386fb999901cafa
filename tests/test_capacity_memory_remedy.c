/*
 * The remedies a memory refusal ends with can be followed and answer
 * (docs/capacity.md, "Memory as vLLM does it"). DeepSeek-V3 (671 GB of
 * fp8 weights) on 8 x H100 at 64 running requests, no token lengths, was
 * told "; or --gpu-memory-utilization 1.00 or more": 1 is the flag's
 * bound (WC_GMU_MAX), so "or more" names refused values. At 1.00 the
 * weights leave 0.05 GB, which holds 5 of the 64 requests' one 16-token
 * block each: the utilization said lets one request run (with token
 * lengths its context, without them its one block), and the others wait
 * (test_memory_least_block); at the bound it says no "or more". The KV
 * refusal named no group: Llama-3.1-70B on 2 x
 * H100 with one request of 120 000 + 1000 tokens got no remedy at all,
 * though tp 4 holds it; it now names the smallest group that does.
 */
#include "predict/capacity_predict.h"
#include "tests/support/support.h"

#include <string.h>

/* A catalog model as the CLI gives it: its published weights too. */
static void
config(wc_config *c, const char *model, int tp, double running)
{
	*c = test_catalog_config("H100", tp, model, running);
	c->weights = c->arch ? (wc_precision)c->arch->weights : WC_PREC_BF16;
}

static void
utilization_bound(const wc_params *p)
{
	wc_config c;
	wc_error err;
	config(&c, "DeepSeek-V3", 8, 64);
	CHECK_INT(wc_predict_memory_check(p, &c, NULL, &err), WC_EINVAL);
	CHECK_CONTAINS(err.msg, "tp: the weights need 671.0 GB but 8 x H100");
	/* one running request's block fits at 1.00: said, without "or more",
	 * whatever the running count (the rest wait) */
	CHECK_CONTAINS(err.msg, "; or gpu_memory_utilization 1.00");
	CHECK(strstr(err.msg, "or more") == NULL);
	c.running = 1;
	CHECK_INT(wc_predict_memory_check(p, &c, NULL, &err), WC_EINVAL);
	CHECK_CONTAINS(err.msg, "; or gpu_memory_utilization 1.00");
	CHECK(strstr(err.msg, "or more") == NULL);
	/* following it answers */
	c.gpu_memory_utilization = 1.0;
	CHECK_INT(wc_predict_memory_check(p, &c, NULL, &err), WC_OK);
	c.running = 64;
	CHECK_INT(wc_predict_memory_check(p, &c, NULL, &err), WC_OK);
	/* below the bound the smallest value is still "or more" (Qwen3-32B on
	 * one A100 at 0.78, docs/capacity.md) */
	config(&c, "Qwen3-32B", 1, 4);
	c.platform = "A100";
	c.gpu_memory_utilization = 0.78;
	CHECK_INT(wc_predict_memory_check(p, &c, NULL, &err), WC_EINVAL);
	CHECK_CONTAINS(err.msg, "; or gpu_memory_utilization 0.79 or more");
}

static void
kv_group(const wc_params *p)
{
	wc_config c;
	wc_error err;
	config(&c, "Llama-3.1-70B", 2, 1);
	c.input_tokens = 120000;
	c.output_tokens = 1000;
	CHECK_INT(wc_predict_memory_check(p, &c, NULL, &err), WC_EINVAL);
	CHECK_CONTAINS(err.msg, "input_tokens: one request of 120000 + 1000 tokens needs 39.65 GB of KV cache but 2 x H100");
	CHECK_CONTAINS(err.msg, "; tp 4 holds it");
	CHECK(strstr(err.msg, "gpu_memory_utilization 1") == NULL);
	CHECK(strlen(err.msg) < WC_ERROR_MSG_MAX - 4);
	/* and tp 4 answers */
	c.tp = 4;
	CHECK_INT(wc_predict_memory_check(p, &c, NULL, &err), WC_OK);
	/* both remedies, the group first (Qwen3-32B on one A100, 40 000 + 200, within its
	 * context of 40 960) */
	config(&c, "Qwen3-32B", 1, 1);
	c.platform = "A100";
	c.input_tokens = 40000;
	c.output_tokens = 200;
	CHECK_INT(wc_predict_memory_check(p, &c, NULL, &err), WC_EINVAL);
	CHECK_CONTAINS(err.msg, "(gpu_memory_utilization 0.9); tp 2 holds it; or gpu_memory_utilization 0.91 or more");
	/* the CLI names the utilization's flag in the remedy */
	const char *argv[] = { "wattcast", "predict", "inference", "--platform", "H100", "--model", "Llama-3.1-70B",
		               "--tp", "2", "--concurrency", "1", "--input-tokens", "120000", "--output-tokens", "1000",
		               NULL };
	test_usage_error(argv, "leave 9.46 GB after the weights and the engine's workspace (gpu_memory_utilization "
	                       "0.9); tp 4 holds it");
}

int
main(void)
{
	wc_params p = WC_PARAMS_INIT;
	wc_params_default(&p);
	utilization_bound(&p);
	kv_group(&p);
	wc_params_clear(&p);
	return check_report("test_capacity_memory_remedy");
}
