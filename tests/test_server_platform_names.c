/*
 * Platform names over HTTP (docs/http-api.md, "POST /v1/predict/inference"):
 * a name with punctuation the catalog's names lack ("H100#$%", "B200!!",
 * "H 1 0 0") is 422 unknown_platform on /platform, where it was answered
 * 200 as the board it resembled; a real spelling (an alias, nvidia-smi's
 * product name) is answered, and config.platform echoes the name the
 * answer was computed for, the catalog's, not the spelling sent.
 */
#include "data/data.h"
#include "server/server.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

static CURL *h;

static void
expect_unknown(const char *platform)
{
	char body[256];
	snprintf(body, sizeof body, "{\"platform\":\"%s\",\"model\":\"Qwen3-8B\",\"concurrency\":8}", platform);
	http_expect_error(h, "POST", "/v1/predict/inference", "application/json", body, 422, "unknown_platform",
	                  "/platform");
}

static void
expect_echo(const char *path, const char *platform, const char *extra, const char *echoed)
{
	char body[256];
	http_reply r;
	snprintf(body, sizeof body, "{\"platform\":\"%s\",\"model\":\"Qwen3-8B\"%s}", platform, extra);
	http_post_json(h, url(path), body, &r);
	CHECK_INT(r.status, 200);
	const char *got = json_string_value(json_object_get(json_object_get(r.json, "config"), "platform"));
	CHECK(got && strcmp(got, echoed) == 0);
	if (!got || strcmp(got, echoed) != 0)
		fprintf(stderr, "%s %s: config.platform \"%s\", expected \"%s\"\n", path, platform, got ? got : "(none)",
		        echoed);
	http_reply_free(&r);
}

int
main(void)
{
	wc_params p = WC_PARAMS_INIT;
	wc_server *srv = NULL;

	curl_global_init(CURL_GLOBAL_DEFAULT);
	h = curl_easy_init();
	wc_params_default(&p);
	if (!(srv = http_server_start(&p, "profile:paper", 2)))
		return check_report("test_server_platform_names");

	static const char *const garbage[] = { "H100#$%", "B200!!", "H 1 0 0", "L4?", "A100;", NULL };
	for (const char *const *g = garbage; *g; g++)
		expect_unknown(*g);
	/* a level of the set, an alias, nvidia-smi's name, a datasheet board */
	expect_echo("/v1/predict/inference", "H100", ",\"concurrency\":8", "H100");
	expect_echo("/v1/predict/inference", "h100-sxm5", ",\"concurrency\":8", "H100");
	expect_echo("/v1/predict/inference", "NVIDIA H100 80GB HBM3", ",\"concurrency\":8", "H100");
	expect_echo("/v1/predict/inference", "nvidia l4", ",\"concurrency\":8", "L4");
	expect_echo("/v1/predict/inference", "h100 sxm", ",\"concurrency\":8,\"input_tokens\":500,\"output_tokens\":200",
	            "H100");
	/* a level of the set's own, spelled in another case, is that level
	 * (level names are case-insensitive, docs/formats/params-file.md) */
	expect_echo("/v1/predict/inference", "h100-locked", ",\"concurrency\":8", "H100-locked");
	expect_echo("/v1/forecast/envelope", "H100-LOCKED", ",\"workload\":{\"type\":\"poisson\",\"rate\":1},"
	            "\"horizon_s\":30,\"replicas\":1", "H100-locked");

	wc_server_stop(srv);
	curl_easy_cleanup(h);
	curl_global_cleanup();
	wc_params_clear(&p);
	return check_report("test_server_platform_names");
}
