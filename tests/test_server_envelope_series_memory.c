/*
 * An envelope or a budget plan of an n(t) workload refuses weights that
 * cannot load on the group and a tp vLLM cannot start, as `predict` and
 * the other workloads refuse them (docs/envelopes.md, "Which one"), on the
 * command line (exit 2 naming --tp) and over HTTP (422, field /tp): they
 * were answered (Llama-3.1-405B on one A100: mean 399.73 W, a plan of 25
 * servers; Qwen3-8B on 3 x H100: 658.48 W). What loads is still answered.
 */
#include "server/server.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

#include <string.h>

static CURL *h;

static void
cli_case(const char *nt, const char *platform, const char *model, const char *tp, const char *budget, int status,
         const char *said)
{
	const char *argv[] = { "wattcast", "envelope", "--platform", platform, "--model", model, "--tp", tp,
		               "--n-series", nt, "--horizon", "60", "--json", budget ? "--budget" : NULL, budget, NULL };
	run_result r;
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	CHECK_INT(r.status, status);
	if (said)
		CHECK_CONTAINS(r.err, said);
	if (r.status != status)
		fprintf(stderr, "  %s %s tp %s: %s%s\n", platform, model, tp, r.out ? r.out : "", r.err ? r.err : "");
	run_result_free(&r);
}

static void
http_case(const char *path, const char *cfg, const char *extra, long status, const char *said)
{
	char body[512];
	snprintf(body, sizeof body, "{%s,\"workload\":{\"type\":\"n_series\",\"running_series\":[32,32],\"dt_s\":30},"
	         "\"horizon_s\":60%s}", cfg, extra);
	http_reply r;
	http_post_json(h, url(path), body, &r);
	CHECK_INT(r.status, status);
	if (said) {
		const char *f = http_error_str(&r, "field"), *m = http_error_str(&r, "message");
		CHECK(f && strcmp(f, "/tp") == 0);
		CHECK_CONTAINS(m, said);
	}
	if (r.status != status)
		fprintf(stderr, "  %s %s -> %ld %s\n", path, body, r.status, r.body ? r.body : "");
	http_reply_free(&r);
}

int
main(void)
{
	char *dir = test_tmpdir("envelope_series_memory");
	char *nt = path_join(dir, "n8.csv");
	CHECK_INT(write_text(nt, "t_s,running\n0,8\n600,8\n"), 0);
	const char *big = "--tp: the weights need 810.0 GB but 1 x A100";
	const char *heads = "--tp: 3 does not divide Qwen3-8B's 32 attention heads";
	cli_case(nt, "A100", "Llama-3.1-405B", "1", NULL, 2, big);
	cli_case(nt, "A100", "Llama-3.1-405B", "1", "10000", 2, big);
	cli_case(nt, "H100", "Qwen3-8B", "3", NULL, 2, heads);
	cli_case(nt, "H100", "Qwen3-8B", "3", "10000", 2, heads);
	cli_case(nt, "A100", "Qwen3-8B", "1", NULL, 0, NULL);
	cli_case(nt, "A100", "Llama-3.1-405B", "16", NULL, 0, NULL);

	wc_params paper = WC_PARAMS_INIT;
	curl_global_init(CURL_GLOBAL_DEFAULT);
	h = curl_easy_init();
	wc_params_default(&paper);
	wc_server *srv = http_server_start(&paper, "profile:paper", 2);
	if (srv) {
		const char *env = "/v1/forecast/envelope", *plan = "/v1/plan/budget";
		const char *huge = "\"platform\":\"A100\",\"model\":\"Llama-3.1-405B\"";
		const char *odd = "\"platform\":\"H100\",\"tp\":3,\"model\":\"Qwen3-8B\"";
		http_case(env, huge, ",\"include_bins\":false", 422, big + 2);
		http_case(plan, huge, ",\"budget_w\":10000", 422, big + 2);
		http_case(env, odd, ",\"include_bins\":false", 422, heads + 2);
		http_case(plan, odd, ",\"budget_w\":10000", 422, heads + 2);
		http_case(env, "\"platform\":\"A100\",\"model\":\"Qwen3-8B\"", ",\"include_bins\":false", 200, NULL);
		http_case(plan, "\"platform\":\"H100\",\"tp\":4,\"model\":\"Qwen3-8B\"", ",\"budget_w\":10000", 200, NULL);
		wc_server_stop(srv);
	}
	curl_easy_cleanup(h);
	curl_global_cleanup();
	wc_params_clear(&paper);
	free(nt);
	free(dir);
	return check_report("test_server_envelope_series_memory");
}
