/*
 * A replayed log's token counts over HTTP (POST /v1/forecast/envelope and
 * POST /v1/plan/budget, workload.arrivals) are taken by the rule every
 * reader of a log applies, and refused in the CLI's words: 12.5 input
 * tokens is no count of a request (docs/http-api.md, "Envelopes";
 * docs/formats/telemetry.md, "Request logs"). The routes answered 200 with
 * an input mean of 337.5 for the log `wattcast envelope --replay`
 * refused as "/input_lens/1: 12.5 is no token count (a whole number, 1 to
 * 1e+07)". A null stays a missing count, drawn from the lengths; a whole
 * count written 500.0 is 500. The distributions' numbers (a fixed length,
 * a lognormal's mean, the values an empirical draws from, rounded when
 * drawn) and an n(t) series' samples are no counts and keep fractions.
 */
#include "data/data.h"
#include "server/server.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

#include <stdlib.h>

static CURL *h;

#define CFG "{\"platform\":\"A100\",\"model\":\"Qwen3-8B\",\"horizon_s\":5,"
#define ENV "/v1/forecast/envelope"
#define PLAN "/v1/plan/budget"

/* `body`'s workload with arrivals at 0, 1, 2 s of these counts. */
static char *
replay_body(const char *head, const char *in, const char *out)
{
	char *b = malloc(1024);
	snprintf(b, 1024, "%s\"workload\":{\"type\":\"replay\",\"arrivals\":{\"t_s\":[0,1,2],\"input_tokens\":[%s],"
	         "\"output_tokens\":[%s]}}}", head, in, out);
	return b;
}

/* 422 invalid_value on `field` saying `msg` in full, on both routes. */
static void
expect_refused(const char *in, const char *out, const char *field, const char *msg)
{
	const char *paths[2] = { ENV, PLAN };
	const char *heads[2] = { CFG "\"include_bins\":false,", CFG "\"budget_w\":2000," };
	for (int k = 0; k < 2; k++) {
		char *body = replay_body(heads[k], in, out);
		http_reply r;
		int before = check_failures;
		http_post_json(h, url(paths[k]), body, &r);
		CHECK_INT(r.status, 422);
		const char *c = http_error_str(&r, "code"), *f = http_error_str(&r, "field"),
			   *m = http_error_str(&r, "message");
		CHECK(c && strcmp(c, "invalid_value") == 0);
		CHECK(f && strcmp(f, field) == 0);
		CHECK(m && strcmp(m, msg) == 0);
		if (check_failures != before)
			fprintf(stderr, "  case: %s %s -> %ld %s\n", paths[k], body, r.status, r.body ? r.body : "");
		http_reply_free(&r);
		free(body);
	}
}

/* 200 on both routes, the input mean `in_mean`, `missing` inputs drawn. */
static void
expect_taken(const char *in, const char *out, double in_mean, int missing)
{
	const char *paths[2] = { ENV, PLAN };
	const char *heads[2] = { CFG "\"include_bins\":false,", CFG "\"budget_w\":2000," };
	for (int k = 0; k < 2; k++) {
		char *body = replay_body(heads[k], in, out);
		http_reply r;
		http_post_json(h, url(paths[k]), body, &r);
		CHECK_INT(r.status, 200);
		const json_t *li = json_object_get(json_object_get(r.json, "workload"), "input_tokens");
		CHECK_NEAR(json_number_value(json_object_get(li, "mean")), in_mean, 1e-6);
		CHECK_INT((int)json_integer_value(json_object_get(li, "missing")), missing);
		if (r.status != 200)
			fprintf(stderr, "  case: %s %s -> %ld %s\n", paths[k], body, r.status, r.body ? r.body : "");
		http_reply_free(&r);
		free(body);
	}
}

/* The CLI's refusal of the same log as requests.json, its stderr. */
static char *
cli_refusal(const char *dir, const char *in, const char *out)
{
	char text[512];
	snprintf(text, sizeof text, "{\"arrival_s\":[0,1,2],\"ttfts\":[0.1,0.1,0.1],\"e2els\":[1,1,1],"
	         "\"input_lens\":[%s],\"output_lens\":[%s]}\n", in, out);
	char *log = test_fixture(dir, "requests.json", text);
	const char *argv[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--replay", log,
		               "--horizon", "5", NULL };
	run_result r;
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	CHECK_INT(r.status, 1);
	char *said = strdup(r.err ? r.err : "");
	run_result_free(&r);
	free(log);
	return said;
}

static void
test_fractions_refused(void)
{
	const char *why_in = "12.5 is no token count (a whole number, 1 to 1e+07)";
	const char *why_out = "100.5 is no token count (a whole number, 0 to 1e+07)";
	expect_refused("500,12.5,500", "100,100.5,100", "/workload/arrivals/input_tokens/1",
	               "workload/arrivals/input_tokens/1: 12.5 is no token count (a whole number, 1 to 1e+07)");
	expect_refused("500,500,500", "100,100.5,100", "/workload/arrivals/output_tokens/1",
	               "workload/arrivals/output_tokens/1: 100.5 is no token count (a whole number, 0 to 1e+07)");
	/* the value in full: %g would print a whole 44 */
	expect_refused("500,500,44.0000001", "100,100,100", "/workload/arrivals/input_tokens/2",
	               "workload/arrivals/input_tokens/2: 44.0000001 is no token count (a whole number, 1 to 1e+07)");
	/* a null beside them is a missing count, not the refused one */
	expect_refused("500,null,500", "100,100.5,null", "/workload/arrivals/output_tokens/1",
	               "workload/arrivals/output_tokens/1: 100.5 is no token count (a whole number, 0 to 1e+07)");

	/* the CLI says the same reason of the same log */
	char *dir = test_tmpdir("server_replay_token_counts");
	char *said = cli_refusal(dir, "500,12.5,500", "100,100,100");
	char want[160];
	snprintf(want, sizeof want, "/input_lens/1: %s", why_in);
	CHECK_CONTAINS(said, want);
	free(said);
	said = cli_refusal(dir, "500,500,500", "100,100.5,100");
	snprintf(want, sizeof want, "/output_lens/1: %s", why_out);
	CHECK_CONTAINS(said, want);
	free(said);
	free(dir);
}

static void
test_counts_taken(void)
{
	/* a null is drawn from the default 512; 500.0 is the count 500 */
	expect_taken("500,null,500.0", "100,null,0", (500.0 + 512.0 + 500.0) / 3, 1);
	expect_taken("500,12,500", "100,100,100", (500.0 + 12.0 + 500.0) / 3, 0);
	/* a distribution's numbers and an n(t) are no counts */
	const char *bodies[] = {
		CFG "\"include_bins\":false,\"workload\":{\"type\":\"replay\",\"arrivals\":{\"t_s\":[0,1]},"
		    "\"input_tokens\":12.5,\"output_tokens\":{\"mean\":100.5,\"sd\":3}}}",
		CFG "\"include_bins\":false,\"workload\":{\"type\":\"closed\",\"concurrency\":2,"
		    "\"input_tokens\":[500,12.5],\"output_tokens\":[100.5]}}",
		CFG "\"include_bins\":false,\"workload\":{\"type\":\"n_series\",\"running_series\":[1.5,2.25],"
		    "\"dt_s\":1}}",
	};
	for (size_t i = 0; i < sizeof bodies / sizeof bodies[0]; i++) {
		http_reply r;
		http_post_json(h, url(ENV), bodies[i], &r);
		CHECK_INT(r.status, 200);
		if (r.status != 200)
			fprintf(stderr, "  case: %s -> %ld %s\n", bodies[i], r.status, r.body ? r.body : "");
		http_reply_free(&r);
	}
}

int
main(void)
{
	wc_params params = WC_PARAMS_INIT;
	wc_server *srv = NULL;
	wc_error err;
	curl_global_init(CURL_GLOBAL_DEFAULT);
	h = curl_easy_init();
	CHECK_INT(wc_params_profile("measured", &params, &err), WC_OK);
	if (!(srv = http_server_start(&params, "profile:measured", 2)))
		return check_report("test_server_replay_token_counts");
	test_fractions_refused();
	test_counts_taken();
	/* lengths no memory holds: the KV refusal names the arrivals that gave
	 * them (it named /workload/input_tokens, a field the request lacks), and
	 * the sizes, as predict's memory refusal does */
	expect_refused("500,10000000,500", "10,10,10", "/workload/arrivals/input_tokens",
	               "arrivals/input_tokens: a request of the workload's mean 3333667 input + 10 output tokens needs "
	               "491.57 GB of KV cache but 1 x A100 (85.9 GB each) leave 59.29 GB after the weights and the "
	               "engine's workspace (gpu_memory_utilization 0.9)");
	/* one known length of 1 token, the rest filled from the workload's
	 * 1e6: the fill is what to fix, named (it named the arrivals) */
	http_reply fr;
	http_post_json(h, url(ENV), CFG "\"include_bins\":false,\"workload\":{\"type\":\"replay\",\"arrivals\":"
	               "{\"t_s\":[0,1,2],\"input_tokens\":[1,null,null]},\"input_tokens\":1000000}}", &fr);
	CHECK_INT(fr.status, 422);
	const char *ff = http_error_str(&fr, "field");
	CHECK(ff && strcmp(ff, "/workload/input_tokens") == 0);
	http_reply_free(&fr);
	wc_server_stop(srv);
	wc_params_clear(&params);
	curl_easy_cleanup(h);
	curl_global_cleanup();
	return check_report("test_server_replay_token_counts");
}
