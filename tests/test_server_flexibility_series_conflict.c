/*
 * POST /v1/predict/flexibility with running_series beside a concurrency
 * or a rate (docs/http-api.md, "POST /v1/predict/flexibility"): the
 * refusal said "give exactly one of concurrency and running_series", and
 * following it with the series alone was refused too ("the sweep needs
 * throughput at one concurrency or rate; a series has neither"). Now the
 * two-loads refusal (422 conflicting_fields on /running_series) says to
 * leave the series out and keep the other load, and keeping it answers.
 * It said "keep concurrency" also where that load is refused in turn (a
 * concurrency of 0 or null, a rate of 0, a concurrency of 0 beside a
 * rate): there it now gives that load's refusal instead.
 */
#include "data/data.h"
#include "server/server.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

#define BASE "\"platform\":\"H100\",\"model\":\"Qwen3-14B\",\"input_tokens\":512,\"output_tokens\":256"

static void
expect_message(CURL *h, const char *body, long status, const char *code, const char *field, const char *says,
               const char *not_says)
{
	http_expect_says(h, "POST", "/v1/predict/flexibility", body, status, code, field, says, not_says);
}

static void
expect_answer(CURL *h, const char *body)
{
	http_reply r;
	http_post_json(h, url("/v1/predict/flexibility"), body, &r);
	if (r.status != 200)
		fprintf(stderr, "%s\n  -> %ld %s\n", body, r.status, r.body ? r.body : "");
	CHECK_INT(r.status, 200);
	http_reply_free(&r);
}

int
main(void)
{
	wc_params p = WC_PARAMS_INIT;
	wc_params_default(&p);
	wc_server *srv = http_server_start(&p, "flexibility-series", 4);
	if (!srv)
		return check_report("test_server_flexibility_series_conflict");
	CURL *h = curl_easy_init();

	expect_message(h, "{" BASE ",\"concurrency\":32,\"running_series\":[1,2]}", 422, "conflicting_fields",
	               "/running_series", "leave it out and keep concurrency", "exactly one of");
	expect_message(h, "{" BASE ",\"rate\":2,\"running_series\":[1,2],\"dt_s\":1}", 422, "conflicting_fields",
	               "/running_series", "leave it out and keep rate", "at most one of");
	/* what the old advice led to: the series alone, still refused */
	expect_message(h, "{" BASE ",\"running_series\":[1,2],\"dt_s\":1}", 422, "invalid_value", "/running_series",
	               "a series has neither", "give exactly one");
	/* a load the sweep would refuse in turn is not advised kept */
	expect_message(h, "{" BASE ",\"concurrency\":null,\"running_series\":[1,2],\"dt_s\":1}", 422,
	               "conflicting_fields", "/running_series", "leave it out, and concurrency: expected a number, got null",
	               "keep concurrency");
	expect_message(h, "{" BASE ",\"concurrency\":0,\"running_series\":[1,2],\"dt_s\":1}", 422, "conflicting_fields",
	               "/running_series", "leave it out, and concurrency: must be > 0", "keep concurrency");
	expect_message(h, "{" BASE ",\"rate\":0,\"running_series\":[1,2],\"dt_s\":1}", 422, "conflicting_fields",
	               "/running_series", "leave it out, and rate: must be > 0, got 0", "keep rate");
	expect_message(h, "{" BASE ",\"rate\":2,\"concurrency\":0,\"running_series\":[1,2],\"dt_s\":1}", 422,
	               "conflicting_fields", "/running_series", "leave it out, and concurrency: with rate it is the engine's",
	               "keep rate");
	/* the lengths the sweep needs are judged as given: without them too */
	expect_message(h, "{\"platform\":\"H100\",\"model\":\"Qwen3-14B\",\"concurrency\":0,\"running_series\":[1,2],"
	               "\"dt_s\":1}", 422, "conflicting_fields", "/running_series", "concurrency: must be > 0",
	               "keep concurrency");
	/* what each refusal leads to once followed: that load's own refusal */
	expect_message(h, "{" BASE ",\"concurrency\":0}", 422, "invalid_value", "/concurrency", "must be > 0", NULL);

	/* what the new advice leads to */
	expect_answer(h, "{" BASE ",\"concurrency\":32}");
	expect_answer(h, "{" BASE ",\"rate\":2}");

	curl_easy_cleanup(h);
	wc_server_stop(srv);
	wc_params_clear(&p);
	return check_report("test_server_flexibility_series_conflict");
}
