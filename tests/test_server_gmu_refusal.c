/*
 * A refusal for weights that do not fit names the utilization that holds
 * them on the same GPUs (docs/capacity.md, "Memory as vLLM does it"):
 * Qwen3-32B on one A100 at gpu_memory_utilization 0.78 was refused as
 * "--tp: ... at least 2 GPUs needed", blaming tp and suggesting only more
 * GPUs, though 0.79 holds it. Now the utilization given is the cause and
 * named (--gpu-memory-utilization, /gpu_memory_utilization), with the
 * smallest value that fits; at the default the field stays tp, with the
 * value beside; weights no utilization up to the flag's bound (1) holds
 * on those GPUs say nothing of it. Within 255 bytes, longest names too.
 * The value suggested serves the request, weights and one request's KV
 * cache: with 3000 + 200 tokens 0.79 held the weights only and was then
 * refused as "--input-tokens: one request of 3000 + 200 tokens needs 0.84 GB";
 * now 0.80 is said, and that refusal at 0.79 names the utilization given
 * (at the default it stays --input-tokens). At the default the KV refusal
 * said no utilization (Qwen3-32B on one A100, 50 000 + 200 tokens), though
 * the same request with 0.9 spelled out was told 0.94: now both are. The
 * CLI names the flag in the remedy too (--gpu-memory-utilization 0.94),
 * HTTP the field. The envelope and the budget plan take no utilization:
 * their refusals ended "or gpu_memory_utilization 0.91 or more", which
 * could not be followed (unknown flag, unknown field); they now say no
 * remedy but the GPUs.
 */
#include "predict/capacity_predict.h"
#include "predict/predict.h"
#include "server/server.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

#include <string.h>

static void
cli(const char *model, const char *params, const char *tp, const char *gmu, const char *platform, const char *needle)
{
	const char *argv[16] = { "wattcast", "predict", "inference", "--platform", platform, "--concurrency", "4",
		                 "--tp", tp };
	int n = 9;
	if (model) {
		argv[n++] = "--model";
		argv[n++] = model;
	} else {
		argv[n++] = "--active-params";
		argv[n++] = params;
	}
	if (gmu) {
		argv[n++] = "--gpu-memory-utilization";
		argv[n++] = gmu;
	}
	argv[n] = NULL;
	test_usage_error(argv, needle);
}

static void
http_refused(CURL *h, const char *body, const char *field, const char *needle, const char *not_said)
{
	http_reply r;
	http_post_json(h, url("/v1/predict/inference"), body, &r);
	CHECK_INT(r.status, 422);
	const char *f = http_error_str(&r, "field"), *m = http_error_str(&r, "message");
	const int ok = f && strcmp(f, field) == 0 && m && strstr(m, needle) && strlen(m) <= 255 &&
	               !(not_said && strstr(m, not_said));
	CHECK(ok);
	if (!ok)
		fprintf(stderr, "  %s -> %s\n", body, r.body ? r.body : "");
	http_reply_free(&r);
}

/* An envelope or plan route's refusal of weights that do not fit: the
 * GPUs needed, no utilization (neither takes one). */
static void
http_envelope_refused(CURL *h, const char *path, const char *body)
{
	http_reply r;
	http_post_json(h, url(path), body, &r);
	CHECK_INT(r.status, 422);
	const char *m = http_error_str(&r, "message");
	const int ok = m && strstr(m, "at least 2 GPUs needed") && !strstr(m, "gpu_memory_utilization");
	CHECK(ok);
	if (!ok)
		fprintf(stderr, "  %s %s -> %s\n", path, body, r.body ? r.body : "");
	http_reply_free(&r);
}

int
main(void)
{
	/* the one rule, in the predictor: the smallest hundredth that fits */
	wc_params p = WC_PARAMS_INIT;
	wc_error err;
	double fit;
	wc_params_default(&p);
	wc_config c = test_catalog_config("A100", 1, "Qwen3-32B", 4);
	c.gpu_memory_utilization = 0.78;
	CHECK_INT(wc_predict_memory_check(&p, &c, &fit, &err), WC_EINVAL);
	CHECK_CONTAINS(err.msg, "gpu_memory_utilization: the weights need 65.6 GB but 1 x A100 (85.9 GB each) hold "
	                        "65.4 GB (22 % kept free");
	CHECK_CONTAINS(err.msg, "at least 2 GPUs needed; or gpu_memory_utilization 0.79 or more");
	c.gpu_memory_utilization = 0.79;
	CHECK_INT(wc_predict_memory_check(&p, &c, &fit, &err), WC_OK);

	/* the CLI names the flag given, or --tp at the default */
	cli("Qwen3-32B", NULL, "1", "0.78", "A100",
	    "--gpu-memory-utilization: the weights need 65.6 GB but 1 x A100 (85.9 GB each) hold 65.4 GB (22 % kept "
	    "free, 1.64 GB/GPU workspace); at least 2 GPUs needed; or --gpu-memory-utilization 0.79 or more");
	cli(NULL, "40", "1", NULL, "A100", "--tp: the weights need 80.0 GB but 1 x A100 (85.9 GB each) hold 75.7 GB");
	cli(NULL, "40", "1", NULL, "A100", "at least 2 GPUs needed; or --gpu-memory-utilization 0.96 or more");
	/* no utilization up to 1 holds 100 GB on one A100: tp is the cause */
	cli(NULL, "50", "1", "0.5", "A100", "--tp: the weights need 100.0 GB but 1 x A100 (85.9 GB each) hold 41.3 GB "
	                                   "(50 % kept free, 1.64 GB/GPU workspace); at least 3 GPUs needed\n");
	/* a long board and a name not read: the value stays whole, the group's
	 * heads yield */
	cli("meta-llama/Llama-3.1-70B-Instruct-Banana", NULL, "4", "0.7", "A100-PCIe-40GB",
	    "at least 5 GPUs needed; or --gpu-memory-utilization 0.87 or more\n");

	/* the suggestion serves one request's KV cache too, and following it
	 * answers; the KV refusal at a smaller value given names that value */
	const char *kv[] = { "wattcast", "predict", "inference", "--platform", "A100", "--model", "Qwen3-32B",
		             "--concurrency", "8", "--input-tokens", "3000", "--output-tokens", "200",
		             "--gpu-memory-utilization", "0.78", NULL };
	test_usage_error(kv, "at least 2 GPUs needed; or --gpu-memory-utilization 0.80 or more\n");
	kv[14] = "0.79";
	test_usage_error(kv, "--gpu-memory-utilization: one request of 3000 + 200 tokens needs 0.84 GB of KV cache but 1 x "
	                     "A100 (85.9 GB each) leave 0.62 GB after the weights and the engine's workspace; tp 2 "
	                     "holds it; or --gpu-memory-utilization 0.80 or more\n");
	c = test_catalog_config("A100", 1, "Qwen3-32B", 8);
	c.input_tokens = 3000;
	c.output_tokens = 200;
	c.gpu_memory_utilization = 0.80;
	CHECK_INT(wc_predict_memory_check(&p, &c, &fit, &err), WC_OK);
	/* at the default the context is the cause, and said so */
	kv[10] = "300000";
	kv[13] = NULL;
	test_usage_error(kv, "--input-tokens: 300000 + 200 tokens exceed Qwen3-32B's context of 40960 tokens "
	                     "(config.json), which vLLM refuses; nor would 1 x A100");
	/* a long board and a name not read: the value stays whole, and the
	 * echo of the utilization the head names yields before the note on
	 * the weights taken (it kept "(gpu_memory_utilization 0.87)" and
	 * dropped the note) */
	const char *lng[] = { "wattcast", "predict", "inference", "--platform", "A100-PCIe-40GB", "--tp", "4",
		              "--model", "meta-llama/Llama-3.1-70B-Instruct-Banana", "--concurrency", "8",
		              "--input-tokens", "50000", "--output-tokens", "10000", "--gpu-memory-utilization",
		              "0.87", NULL };
	test_usage_error(lng, "after the weights (weights taken as bf16: give weights if not); or "
	                      "--gpu-memory-utilization 0.98 or more\n");
	/* at the default the same request gets the same advice as with 0.9
	 * given: it ended "(gpu_memory_utilization 0.9)" with no remedy, while
	 * 0.9 spelled out ended "; or gpu_memory_utilization 0.94 or more" */
	const char *dflt[] = { "wattcast", "predict", "inference", "--platform", "A100", "--model", "Qwen3-32B",
		               "--concurrency", "1", "--input-tokens", "40000", "--output-tokens", "200", NULL, NULL,
		               NULL };
	test_usage_error(dflt, "--input-tokens: one request of 40000 + 200 tokens needs 10.54 GB of KV cache but 1 x A100 "
	                       "(85.9 GB each) leave 10.07 GB after the weights and the engine's workspace "
	                       "(gpu_memory_utilization 0.9); tp 2 holds it; or --gpu-memory-utilization 0.91 or more\n");
	dflt[13] = "--gpu-memory-utilization";
	dflt[14] = "0.9";
	test_usage_error(dflt, "--gpu-memory-utilization: one request of 40000 + 200 tokens needs 10.54 GB of KV cache but "
	                       "1 x A100 (85.9 GB each) leave 10.07 GB after the weights and the engine's workspace; "
	                       "tp 2 holds it; or --gpu-memory-utilization 0.91 or more\n");
	dflt[14] = "0.91"; /* following it answers */
	{
		run_result rr;
		CHECK(run_wattcast(dflt, NULL, &rr) == 0);
		CHECK_INT(rr.status, 0);
		run_result_free(&rr);
	}
	/* the KV refusal with the remedy stays within 255 bytes with the CLI's
	 * flags, a long board and a name not read */
	c = test_catalog_config("A100-PCIe-40GB", 4, "Llama-3.1-70B", 8);
	c.model = "meta-llama/Llama-3.1-70B-Instruct-Banana";
	c.input_tokens = 50000;
	c.output_tokens = 10000;
	CHECK_INT(wc_predict_memory_check(&p, &c, &fit, &err), WC_EINVAL);
	CHECK_CONTAINS(err.msg, "; or gpu_memory_utilization 0.98 or more");
	CHECK(strlen(err.msg) + 4 <= 255);

	curl_global_init(CURL_GLOBAL_DEFAULT);
	CURL *h = curl_easy_init();
	wc_server *srv = http_server_start(&p, "default", 2);
	if (srv) {
		http_refused(h, "{\"platform\":\"A100\",\"model\":\"Qwen3-32B\",\"concurrency\":4,\"input_tokens\":512,"
		                "\"output_tokens\":256,\"gpu_memory_utilization\":0.78}",
		             "/gpu_memory_utilization", "; or gpu_memory_utilization 0.79 or more", NULL);
		http_refused(h, "{\"platform\":\"A100\",\"active_params_b\":40,\"concurrency\":4}", "/tp",
		             "; or gpu_memory_utilization 0.96 or more", NULL);
		http_refused(h, "{\"platform\":\"A100\",\"active_params_b\":50,\"concurrency\":4,"
		                "\"gpu_memory_utilization\":0.5}",
		             "/tp", "at least 3 GPUs needed", "gpu_memory_utilization 0.");
		http_refused(h, "{\"platform\":\"A100-PCIe-40GB\",\"tp\":4,\"model\":\"meta-llama/Llama-3.1-70B-Instruct-"
		                "Banana\",\"concurrency\":4,\"gpu_memory_utilization\":0.7}",
		             "/gpu_memory_utilization", "; or gpu_memory_utilization 0.87 or more", NULL);
		http_refused(h, "{\"platform\":\"A100\",\"model\":\"Qwen3-32B\",\"concurrency\":8,\"input_tokens\":3000,"
		                "\"output_tokens\":200,\"gpu_memory_utilization\":0.78}",
		             "/gpu_memory_utilization", "; or gpu_memory_utilization 0.80 or more", NULL);
		http_refused(h, "{\"platform\":\"A100\",\"model\":\"Qwen3-32B\",\"concurrency\":8,\"input_tokens\":3000,"
		                "\"output_tokens\":200,\"gpu_memory_utilization\":0.79}",
		             "/gpu_memory_utilization", "workspace; tp 2 holds it; or gpu_memory_utilization 0.80 or more",
		             NULL);
		http_refused(h, "{\"platform\":\"A100\",\"model\":\"Qwen3-32B\",\"concurrency\":8,"
		                "\"input_tokens\":300000,\"output_tokens\":200}",
		             "/input_tokens", "300000 + 200 tokens exceed Qwen3-32B's context", "or gpu_memory_utilization");
		/* at the default: on /input_tokens, with the utilization that serves */
		http_refused(h, "{\"platform\":\"A100\",\"model\":\"Qwen3-32B\",\"concurrency\":1,"
		                "\"input_tokens\":40000,\"output_tokens\":200}",
		             "/input_tokens", "(gpu_memory_utilization 0.9); tp 2 holds it; or gpu_memory_utilization 0.91 or more", NULL);
		http_envelope_refused(h, "/v1/forecast/envelope", "{\"platform\":\"L40S\",\"active_params_b\":21,"
		                      "\"horizon_s\":10,\"workload\":{\"type\":\"closed\",\"concurrency\":1}}");
		http_envelope_refused(h, "/v1/plan/budget", "{\"platform\":\"L40S\",\"active_params_b\":21,"
		                      "\"budget_w\":20000,\"horizon_s\":10,\"workload\":{\"type\":\"closed\","
		                      "\"concurrency\":1}}");
		wc_server_stop(srv);
	}
	/* the CLI's envelope alike: no --gpu-memory-utilization to suggest */
	const char *env[] = { "wattcast", "envelope", "--platform", "L40S", "--active-params", "21", "--closed", "1",
		              "--horizon", "10", NULL };
	test_usage_error(env, "at least 2 GPUs needed");
	run_result rr;
	if (run_wattcast(env, NULL, &rr) == 0)
		CHECK(rr.err && !strstr(rr.err, "utilization"));
	else
		CHECK(0);
	run_result_free(&rr);
	curl_easy_cleanup(h);
	curl_global_cleanup();
	wc_params_clear(&p);
	return check_report("test_server_gmu_refusal");
}
