/*
 * An attention_heads override that the model's KV heads do not divide is
 * refused on the field sent (docs/capacity.md, "Bytes and FLOPs"):
 * `--model Qwen3-8B --attention-heads 33` said "--kv-heads: must divide
 * Qwen3-8B's 33 attention heads ..., got 8" (HTTP 422 on
 * /architecture/kv_heads), a field not sent, calling the user's 33 the
 * model's 32. Now: "--attention-heads: must be a multiple of Qwen3-8B's 8 KV
 * heads ..., got 33" on /architecture/attention_heads; both sent, kv_heads
 * is named, over "the 33 attention heads given"; kv_heads alone as before.
 */
#include "models/profile_measured.h"
#include "server/server.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

#include <string.h>

#define HEADS33 ": must be a multiple of Qwen3-8B's 8 KV heads (each KV head serves an equal group " \
                "of them), got 33"
#define BOTH "kv_heads: must divide the 33 attention heads given (each KV head serves an equal group of them), got 8"
#define KV5 ": must divide Qwen3-8B's 32 attention heads (each KV head serves an equal group of them), got 5"

static void
cli_refused(const char *const *flags, const char *want)
{
	const char *argv[32] = { "wattcast", "predict", "inference", "--platform", "H100", "--model", "Qwen3-8B",
		                 "--concurrency", "8", "--input-tokens", "8000", "--output-tokens", "100" };
	size_t n = 13;
	for (size_t i = 0; flags[i]; i++)
		argv[n++] = flags[i];
	argv[n] = NULL;
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, 2);
	CHECK_CONTAINS(r.err, want);
	run_result_free(&r);
}

static void
http_refused_at(CURL *h, const char *arch, const char *field, const char *want)
{
	char body[256];
	snprintf(body, sizeof body, "{\"platform\":\"H100\",\"model\":\"Qwen3-8B\",\"architecture\":%s,"
	         "\"concurrency\":8,\"input_tokens\":8000,\"output_tokens\":100}", arch);
	http_reply r;
	http_post_json(h, url("/v1/predict/inference"), body, &r);
	CHECK_INT(r.status, 422);
	const char *f = http_error_str(&r, "field");
	CHECK(f && strcmp(f, field) == 0);
	CHECK_CONTAINS(http_error_str(&r, "message"), want);
	http_reply_free(&r);
}

int
main(void)
{
	cli_refused((const char *const[]){ "--attention-heads", "33", NULL }, "--attention-heads" HEADS33);
	cli_refused((const char *const[]){ "--attention-heads", "33", "--kv-heads", "8", NULL }, "--kv-heads: must divide the 33");
	cli_refused((const char *const[]){ "--kv-heads", "8", "--attention-heads", "33", NULL }, "--kv-heads: must divide the 33");
	cli_refused((const char *const[]){ "--kv-heads", "5", NULL }, "--kv-heads" KV5);
	wc_params p = WC_PARAMS_INIT;
	wc_params_measured(&p);
	wc_server *srv = http_server_start(&p, "heads-field", 2);
	if (!srv)
		return check_report("test_server_heads_field");
	CURL *h = curl_easy_init();
	http_refused_at(h, "{\"attention_heads\":33}", "/architecture/attention_heads", "architecture/attention_heads" HEADS33);
	http_refused_at(h, "{\"attention_heads\":33,\"kv_heads\":8}", "/architecture/kv_heads", "architecture/" BOTH);
	http_refused_at(h, "{\"kv_heads\":5}", "/architecture/kv_heads", "architecture/kv_heads" KV5);
	curl_easy_cleanup(h);
	wc_server_stop(srv);
	wc_params_clear(&p);
	return check_report("test_server_heads_field");
}
