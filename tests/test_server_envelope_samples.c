/*
 * POST /v1/forecast/envelope says, as `wattcast envelope --json` does and
 * in the same words, when its p5, p50, p95 and max are of fewer than 20
 * meter samples (docs/envelopes.md, "Outputs"; docs/http-api.md): the
 * mean is exact over the horizon, so with so few they may sit below it.
 * sample_s 9.95 over 10 s answered a max under the mean with no word.
 */
#include "server/server.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

static CURL *h;

#define BODY(sample)                                                                                          \
	"{\"platform\":\"A100\",\"tp\":1,\"model\":\"Qwen3-8B\",\"workload\":{\"type\":\"closed\","            \
	"\"concurrency\":8},\"horizon_s\":10,\"replicas\":1,\"sample_s\":" sample ",\"include_bins\":false}"

/* The warning of few samples in `ws`, or NULL; at most one. */
static const char *
few_of(const json_t *ws)
{
	const char *found = NULL;
	for (size_t i = 0; i < json_array_size(ws); i++) {
		const char *m = json_string_value(json_array_get(ws, i));
		if (m && strncmp(m, "sample_s: p5, p50, p95 and max are of ", 38) == 0) {
			CHECK(found == NULL);
			found = m;
		}
	}
	return found;
}

static void
test_same_as_cli(void)
{
	http_reply r;
	http_post_json(h, url("/v1/forecast/envelope"), BODY("9.95"), &r);
	CHECK_INT(r.status, 200);
	const char *said = few_of(json_object_get(r.json, "warnings"));
	CHECK(said != NULL);
	CHECK_CONTAINS(said, "of 2 meter samples every 9.95 s, fewer than the 20 a 5 % tail needs to hold one");
	const char *argv[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--closed", "8",
		               "--replicas", "1", "--horizon", "10", "--sample", "9.95", "--profile", "paper", "--json",
		               NULL };
	run_result rr;
	CHECK_INT(run_wattcast(argv, NULL, &rr), 0);
	CHECK_INT(rr.status, 0);
	json_t *cli = json_loads(rr.out ? rr.out : "", 0, NULL);
	const char *cli_said = few_of(json_object_get(cli, "warnings"));
	CHECK(said && cli_said && strcmp(said, cli_said) == 0);
	/* and the numbers it speaks of are the same */
	CHECK(cli && json_equal(json_object_get(json_object_get(cli, "server"), "summary"),
	                        json_object_get(json_object_get(r.json, "server"), "summary")));
	json_decref(cli);
	run_result_free(&rr);
	http_reply_free(&r);
	/* 20 samples: nothing said */
	http_post_json(h, url("/v1/forecast/envelope"), BODY("0.5"), &r);
	CHECK_INT(r.status, 200);
	CHECK(few_of(json_object_get(r.json, "warnings")) == NULL);
	http_reply_free(&r);
}

int
main(void)
{
	wc_params paper = WC_PARAMS_INIT;
	wc_server *srv = NULL;
	curl_global_init(CURL_GLOBAL_DEFAULT);
	h = curl_easy_init();
	wc_params_default(&paper);
	srv = http_server_start(&paper, "profile:paper", 2);
	if (!srv)
		return check_report("test_server_envelope_samples");
	test_same_as_cli();
	wc_server_stop(srv);
	curl_easy_cleanup(h);
	curl_global_cleanup();
	wc_params_clear(&paper);
	return check_report("test_server_envelope_samples");
}
