/*
 * Multi-head latent attention (DeepSeek-V3/V3.1/R1, Kimi-K2) and the
 * architecture facts (docs/capacity.md, "Step time"). Restating the
 * catalog's own head_dim or attention_heads dropped the latent's prefill
 * width (heads x 160) for heads x head_dim while the 576-value latent
 * cache stayed: DeepSeek-V3 on 8 H200s, one request of 32000 + 16 tokens,
 * went from a TTFT of 0.7605 s to 0.6821 s and 2220.7 to 2013.9 J a
 * request, the same model sent back as `GET /v1/models` lists it. Now the
 * catalog's own facts move nothing, other heads keep the latent's width a
 * head (64 heads: Kimi-K2's 10240), and another head_dim, which no latent
 * model has, is refused naming it: --head-dim on the CLI, 422 on
 * /architecture/head_dim.
 */
#include "models/catalog.h"
#include "server/server.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

#include <string.h>

#define DEEPSEEK_FLAGS                                                                                            \
	"wattcast", "predict", "inference", "--platform", "H200", "--model", "DeepSeek-V3", "--tp", "8",          \
	        "--concurrency", "1", "--input-tokens", "32000", "--output-tokens", "16", "--json"

/* Every catalog model, its own head_dim and attention_heads restated
 * (each alone and both), keeps its width and cache and passes the shape
 * rule. */
static void
restated_facts(void)
{
	int latent = 0;
	for (size_t i = 0; i < wc_model_count(); i++) {
		const wc_model_info *m = wc_model_at(i);
		latent += m->attention_width > 0;
		for (int which = 1; which < 4; which++) {
			wc_arch_facts f;
			wc_arch_facts_init(&f);
			if ((which & 1) && m->head_dim > 0)
				f.ints[WC_ARCH_FACT_HEAD_DIM] = m->head_dim;
			if ((which & 2) && m->attention_heads > 0)
				f.ints[WC_ARCH_FACT_ATTENTION_HEADS] = m->attention_heads;
			wc_model_info out;
			wc_error err;
			wc_model_info_with_facts(m, m->name, m->active_params_b, &f, &out);
			const int same = wc_model_attention_width(&out) == wc_model_attention_width(m) &&
			                 out.kv_dim == m->kv_dim && wc_arch_facts_shape_check(&out, &f, &err) == WC_OK;
			CHECK(same);
			if (!same)
				fprintf(stderr, "%s, facts %d: width %d, not %d\n", m->name, which,
				        wc_model_attention_width(&out), wc_model_attention_width(m));
		}
	}
	CHECK_INT(latent, 4);
}

/* Other facts: heads keep the latent's width a head; a head_dim other
 * than its own is refused, on the fact. */
static void
other_facts(void)
{
	const wc_model_info *ds = wc_model_lookup("DeepSeek-V3");
	wc_arch_facts f;
	wc_model_info out;
	wc_error err;
	wc_arch_facts_init(&f);
	f.ints[WC_ARCH_FACT_ATTENTION_HEADS] = 64;
	wc_model_info_with_facts(ds, ds->name, ds->active_params_b, &f, &out);
	CHECK_INT(wc_model_attention_width(&out), 64 * 160);
	CHECK_INT(out.kv_dim, 576);
	CHECK_INT(wc_arch_facts_shape_check(&out, &f, &err), WC_OK);
	f.ints[WC_ARCH_FACT_HEAD_DIM] = 64;
	wc_model_info_with_facts(ds, ds->name, ds->active_params_b, &f, &out);
	CHECK_INT(wc_arch_facts_shape_check(&out, &f, &err), WC_EINVAL);
	CHECK_CONTAINS(err.msg, "architecture/head_dim: DeepSeek-V3's multi-head latent attention");
	CHECK_CONTAINS(err.msg, "leave it out or send its 128, got 64");
	CHECK(strlen(err.msg) <= 255);
	/* a model the catalog lacks, of the same name's facts, is its own */
	wc_arch_facts_init(&f);
	f.ints[WC_ARCH_FACT_LAYERS] = 61;
	f.ints[WC_ARCH_FACT_KV_HEADS] = 8;
	f.ints[WC_ARCH_FACT_HEAD_DIM] = 64;
	f.ints[WC_ARCH_FACT_ATTENTION_HEADS] = 64;
	wc_model_info_with_facts(NULL, "my-model", 37, &f, &out);
	CHECK_INT(wc_arch_facts_shape_check(&out, &f, &err), WC_OK);
	CHECK_INT(wc_model_attention_width(&out), 64 * 64);
}

/* The CLI: the same answer restated, to the byte; another head_dim
 * refused naming the flag. */
static void
cli_cases(void)
{
	char *bare = test_run_said((const char *const[]){ DEEPSEEK_FLAGS, NULL });
	char *dim = test_run_said((const char *const[]){ DEEPSEEK_FLAGS, "--head-dim", "128", NULL });
	char *heads = test_run_said((const char *const[]){ DEEPSEEK_FLAGS, "--attention-heads", "128", NULL });
	CHECK(bare && dim && heads && strcmp(bare, dim) == 0 && strcmp(bare, heads) == 0);
	free(bare);
	free(dim);
	free(heads);
	test_usage_error((const char *const[]){ DEEPSEEK_FLAGS, "--head-dim", "64", NULL },
	                 "--head-dim: DeepSeek-V3's multi-head latent attention has heads of its own widths over a "
	                 "576-value latent cache");
}

/* The routes: the answer of the facts restated is the bare one's; another
 * head_dim is 422 on /architecture/head_dim. */
static void
http_cases(CURL *h)
{
	static const char *const archs[] = { "", ",\"architecture\":{\"head_dim\":128}",
		                             ",\"architecture\":{\"attention_heads\":128}",
		                             ",\"architecture\":{\"attention_heads\":64,\"head_dim\":128}" };
	double ttft[4] = { 0 };
	for (int i = 0; i < 4; i++) {
		char body[300];
		snprintf(body, sizeof body,
		         "{\"platform\":\"H200\",\"model\":\"Kimi-K2\",\"tp\":8,\"concurrency\":1,\"input_tokens\":32000,"
		         "\"output_tokens\":16%s}", archs[i]);
		http_reply r;
		http_post_json(h, url("/v1/predict/inference"), body, &r);
		CHECK_INT(r.status, 200);
		ttft[i] = http_json_num(json_object_get(r.json, "capacity"), "ttft_s");
		http_reply_free(&r);
	}
	CHECK(ttft[0] > 0 && ttft[1] == ttft[0] && ttft[2] > ttft[0] && ttft[3] == ttft[0]);
	http_expect_says(h, "POST", "/v1/predict/inference",
	                 "{\"platform\":\"H200\",\"model\":\"DeepSeek-V3\",\"tp\":8,\"concurrency\":1,"
	                 "\"architecture\":{\"head_dim\":192}}",
	                 422, "invalid_value", "/architecture/head_dim", "send its 128, got 192", NULL);
}

int
main(void)
{
	restated_facts();
	other_facts();
	cli_cases();
	http_with_default_server(http_cases);
	return check_report("test_server_arch_latent");
}
