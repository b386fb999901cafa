/*
 * POST /v1/forecast/envelope and POST /v1/plan/budget say, as `wattcast
 * envelope` does and in the same words, where the workload's input and
 * the simulated window part (docs/envelopes.md, "Engine"): a replay's
 * requests arriving beyond the horizon are left out and counted
 * (workload.requests_replayed beside workload.requests), and a plan of an
 * n(t) or a log shorter than the window warns of its idle rest. A log of
 * 500 requests over 100 s replayed 50 of them and said "requests": 500
 * with no word; a plan of 3 s of n(t) sized its fleet at idle with none.
 */
#include "server/server.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

#include <stdlib.h>

static CURL *h;

/* The one warning of `j` that starts with `head`, or "" (none). */
static const char *
warning_of(const json_t *j, const char *head)
{
	const json_t *ws = json_object_get(j, "warnings");
	const char *found = "";
	for (size_t i = 0; i < json_array_size(ws); i++) {
		const char *m = json_string_value(json_array_get(ws, i));
		if (m && strncmp(m, head, strlen(head)) == 0) {
			CHECK(found[0] == '\0');
			found = m;
		}
	}
	return found;
}

/* The CLI's --json answer's warning of `head` for `argv`, malloc'd. */
static char *
cli_warning(const char *const *argv, const char *head)
{
	run_result r;
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	json_t *j = json_loads(r.out ? r.out : "", 0, NULL);
	char *w = strdup(warning_of(j, head));
	json_decref(j);
	run_result_free(&r);
	return w;
}

static void
test_long_replay(void)
{
	/* 500 arrivals 2 s apart; 100 s horizon: 50 replayed */
	size_t cap = 16 * 1024, len = 0;
	char *body = malloc(cap);
	len += (size_t)snprintf(body, cap, "{\"platform\":\"A100\",\"tp\":1,\"model\":\"Qwen3-8B\",\"workload\":{\"type\":"
	                                   "\"replay\",\"arrivals\":{\"t_s\":[");
	for (int i = 0; i < 500; i++)
		len += (size_t)snprintf(body + len, cap - len, "%s%d", i ? "," : "", 2 * i);
	len += (size_t)snprintf(body + len, cap - len, "],\"input_tokens\":[");
	for (int i = 0; i < 500; i++)
		len += (size_t)snprintf(body + len, cap - len, "%s500", i ? "," : "");
	len += (size_t)snprintf(body + len, cap - len, "],\"output_tokens\":[");
	for (int i = 0; i < 500; i++)
		len += (size_t)snprintf(body + len, cap - len, "%s200", i ? "," : "");
	snprintf(body + len, cap - len, "]}},\"horizon_s\":100,\"replicas\":1,\"include_bins\":false}");
	const char *said = "arrival_s: the replayed log's last 450 of 500 requests arrive beyond the 100 s horizon (its "
	                   "last at 998 s) and are left out";
	http_reply r;
	http_post_json(h, url("/v1/forecast/envelope"), body, &r);
	CHECK_INT(r.status, 200);
	const json_t *w = json_object_get(r.json, "workload");
	CHECK_INT((int)json_integer_value(json_object_get(w, "requests")), 500);
	CHECK_INT((int)json_integer_value(json_object_get(w, "requests_replayed")), 50);
	CHECK_CONTAINS(warning_of(r.json, "arrival_s: "), said);
	http_reply_free(&r);
	/* a plan of it: the same */
	char *plan = test_replaced(strdup(body), "\"replicas\":1,\"include_bins\":false", "\"budget_w\":3000");
	http_post_json(h, url("/v1/plan/budget"), plan, &r);
	CHECK_INT(r.status, 200);
	CHECK_INT((int)json_integer_value(json_object_get(json_object_get(r.json, "workload"), "requests_replayed")), 50);
	CHECK_CONTAINS(warning_of(r.json, "arrival_s: "), said);
	http_reply_free(&r);
	free(plan);
	free(body);
}

/* A plan of 3 s of n(t), and of a log ending at 5.65 s, over 600 s: the
 * envelope's warning, the CLI's words. */
static void
test_plan_short_inputs(void)
{
	char *dir = test_tmpdir("server_envelope_window");
	char *nt = test_fixture(dir, "nt3.csv", "t_s,running\n0,8\n1,8\n2,8\n");
	char *log = test_fixture(dir, "short.csv", "arrival_s,completion_s,input_tokens,output_tokens\n"
	                                           "1700000000.00,1700000001.0,4129,31\n"
	                                           "1700000000.87,1700000002.0,4218,44\n"
	                                           "1700000001.77,1700000004.0,4959,281\n"
	                                           "1700000005.65,1700000007.0,5115,41\n");
	const char *bodies[2] = {
		"{\"platform\":\"A100\",\"tp\":1,\"model\":\"Qwen3-8B\",\"workload\":{\"type\":\"n_series\","
		"\"running_series\":[8,8,8],\"dt_s\":1},\"budget_w\":1000}",
		"{\"platform\":\"A100\",\"tp\":1,\"model\":\"Qwen3-8B\",\"workload\":{\"type\":\"replay\",\"arrivals\":"
		"{\"t_s\":[0,0.87,1.77,5.65],\"input_tokens\":[4129,4218,4959,5115],\"output_tokens\":[31,44,281,41]}},"
		"\"budget_w\":1000}"
	};
	const char *flags[2] = { "--n-series", "--replay" };
	const char *files[2] = { nt, log };
	const char *heads[2] = { "running_series: ", "arrival_s: " };
	const char *said[2] = { "running_series: covers 3 s of the 600 s simulated (warm-up and horizon)",
		                "arrival_s: the replayed log's last arrival is at 5.65 s of the 600 s horizon; the rest is "
		                "idle" };
	for (int i = 0; i < 2; i++) {
		http_reply r;
		http_post_json(h, url("/v1/plan/budget"), bodies[i], &r);
		CHECK_INT(r.status, 200);
		const char *got = warning_of(r.json, heads[i]);
		CHECK_CONTAINS(got, said[i]);
		const char *argv[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--profile",
			               "paper", flags[i], files[i], "--budget", "1000", "--json", NULL };
		char *cli = cli_warning(argv, heads[i]);
		CHECK(strcmp(cli, got) == 0);
		free(cli);
		http_reply_free(&r);
	}
	free(nt);
	free(log);
	free(dir);
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
		return check_report("test_server_envelope_window");
	test_long_replay();
	test_plan_short_inputs();
	wc_server_stop(srv);
	curl_easy_cleanup(h);
	curl_global_cleanup();
	wc_params_clear(&paper);
	return check_report("test_server_envelope_window");
}
