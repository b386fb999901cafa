/*
 * A replay is the requests it replays (docs/envelopes.md, "Engine"): those
 * arriving at or after the horizon's end are left out, and so are their
 * lengths from all the workload decides -- its mean lengths, the KV
 * cache's limit with its warning or refusal, the capacity span caveats,
 * the check, the missing lengths said drawn. A100 Qwen3-8B over 60 s: a
 * log of 600 requests of 600 + 300 tokens 0.1 s apart, and the same log
 * with 600 more of 30 000 input from 200 s on (left out), replayed the
 * same 600 requests but answered 398.13 W at 122.8 running and 373.54 W
 * at 25.5 running, the latter under a KV limit of 26 "of the workload's
 * mean 15300 input", overloaded, with span warnings and
 * workload.input_tokens.mean 15300; their 5000 W plans 4799.98 and
 * 4783.04 W. Over HTTP one request at 100 s of 5 000 000 input tokens
 * beyond a 10 s horizon made the whole replay 422 on
 * /workload/input_tokens. Now both answer alike, but for the warning of
 * the requests left out and workload.requests. With none replayed the
 * mean lengths are null (they were the defaults, 512 and 256).
 */
#include "data/params_file.h"
#include "predict/envelope.h"
#include "predict/envelope_budget.h"
#include "predict/predict.h"
#include "server/server.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/run_json.h"
#include "tests/support/support.h"

#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HEAD 600
#define LOG (2 * HEAD)

static CURL *h;
static wc_params measured;
static double t_s[LOG], in_tok[LOG], out_tok[LOG];

/* the head: 600 + 300 tokens every 0.1 s; the tail: 30 000 + 300 from 200 s */
static void
make_log(void)
{
	for (int i = 0; i < LOG; i++) {
		t_s[i] = i < HEAD ? 0.1 * i : 200.0 + 0.1 * (i - HEAD);
		in_tok[i] = i < HEAD ? 600 : 30000;
		out_tok[i] = 300;
	}
}

static void
replay(wc_envelope_workload *w, size_t n)
{
	wc_envelope_workload_init(w);
	w->kind = WC_ENVELOPE_REPLAY;
	w->n_arrivals = n;
	w->arrival_s = t_s;
	w->arrival_input = in_tok;
	w->arrival_output = out_tok;
}

/* how many of `n` warnings start with `head` */
static int
said(char warnings[][WC_WARNING_LEN], int n, const char *head)
{
	int k = 0;
	for (int i = 0; i < n; i++)
		k += strncmp(warnings[i], head, strlen(head)) == 0;
	return k;
}

static void
test_library(void)
{
	wc_config c = test_catalog_config("A100", 1, "Qwen3-8B", 0);
	wc_service_store *ss = calloc(1, sizeof *ss); /* its warnings are large */
	wc_service_times st;
	wc_power_map_law store;
	wc_power_map pm;
	wc_error err;
	CHECK_INT(wc_service_select(&measured, &c, WC_SERVICE_CAPACITY, ss, &st, &err), WC_OK);
	CHECK_INT(wc_power_map_from_law(&measured, &c, NULL, &store, &pm, &err), WC_OK);
	wc_envelope_options o;
	wc_envelope_options_init(&o);
	o.horizon_s = 60;
	o.replicas = 1;
	wc_envelope_workload head, all;
	replay(&head, HEAD);
	replay(&all, LOG);
	wc_envelope_result a, b;
	CHECK_INT(wc_envelope_run(&head, &st, &pm, &o, &a, &err), WC_OK);
	CHECK_INT(wc_envelope_run(&all, &st, &pm, &o, &b, &err), WC_OK);
	printf("head %.2f W %.1f running; head + tail %.2f W %.1f running\n", a.server.mean_w.value,
	       a.server.mean_running.value, b.server.mean_w.value, b.server.mean_running.value);
	CHECK(a.server.mean_w.value == b.server.mean_w.value);
	CHECK(a.server.mean_running.value == b.server.mean_running.value);
	/* the same warnings, and the one of the requests left out */
	CHECK_INT(b.n_warnings, a.n_warnings + 1);
	CHECK_INT(said(b.warnings, b.n_warnings, "arrival_s: the replayed log's last 600 of 1200 requests arrive "
	                                         "beyond the 60 s horizon"), 1);
	CHECK_INT(said(b.warnings, b.n_warnings, "max_running: "), 0);
	CHECK_INT(said(b.warnings, b.n_warnings, "overloaded: "), 0);
	wc_envelope_result_clear(&a);
	wc_envelope_result_clear(&b);
	/* a plan of 5000 W: the same servers and power */
	wc_budget_options bo = { 5000.0, WC_BUDGET_P95, 64, 1.0 };
	wc_budget_plan *pa = calloc(2, sizeof *pa); /* on the heap: the plans' warnings */
	CHECK_INT(wc_envelope_budget(&head, &st, &pm, &o, &bo, &pa[0], &err), WC_OK);
	CHECK_INT(wc_envelope_budget(&all, &st, &pm, &o, &bo, &pa[1], &err), WC_OK);
	printf("plans: %d servers %.2f W; %d servers %.2f W\n", pa[0].fleet_size, pa[0].stat_w, pa[1].fleet_size,
	       pa[1].stat_w);
	CHECK_INT(pa[1].fleet_size, pa[0].fleet_size);
	CHECK(pa[0].stat_w == pa[1].stat_w);
	CHECK_INT(said(pa[1].warnings, pa[1].n_warnings, "max_running: "), 0);
	free(pa);
	/* a length beyond any bound in the tail is never replayed: not refused */
	in_tok[LOG - 1] = 2e7;
	CHECK_INT(wc_envelope_run(&all, &st, &pm, &o, &b, &err), WC_OK);
	wc_envelope_result_clear(&b);
	in_tok[LOG - 1] = 30000;
	/* the workload's statistics and caveats over the requests replayed */
	wc_envelope_workload_window(&all, o.horizon_s);
	CHECK(all.n_arrivals == HEAD && wc_envelope_workload_logged(&all) == LOG);
	CHECK_NEAR(wc_envelope_mean_length(&all, 1), 600.0, 1e-12);
	wc_envelope_workload_window(&all, o.horizon_s); /* again: the same */
	CHECK(all.n_arrivals == HEAD && wc_envelope_workload_logged(&all) == LOG);
	wc_service_calibration_notes(&measured, &c, &all, ss, NULL);
	CHECK_INT(ss->n_warnings, 0);
	free(ss);
}

/* The log as a request log file: the tail's output tokens unknown when
 * `blank` (never drawn: they are not replayed). */
static char *
log_file(const char *dir, const char *name, int rows, int blank)
{
	size_t cap = 96 * 1024, len = 0;
	char *text = malloc(cap);
	len += (size_t)snprintf(text, cap, "arrival_s,completion_s,input_tokens,output_tokens\n");
	for (int i = 0; i < rows; i++) {
		const double a = 1784415000.0 + t_s[i];
		if (i >= HEAD && blank)
			len += (size_t)snprintf(text + len, cap - len, "%.3f,%.3f,%.0f,\n", a, a + 10, in_tok[i]);
		else
			len += (size_t)snprintf(text + len, cap - len, "%.3f,%.3f,%.0f,%.0f\n", a, a + 10, in_tok[i],
			                        out_tok[i]);
	}
	char *path = test_fixture(dir, name, text);
	free(text);
	return path;
}

/* `wattcast envelope --replay path --horizon 60 --json` [--budget 5000] */
static json_t *
cli_answer(const char *path, int budget, char **err_text)
{
	const char *argv[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--replay", path,
		               "--horizon", "60", "--json", budget ? "--budget" : NULL, "5000", NULL };
	return test_run_json(argv, err_text);
}

static double
at(const json_t *j, const char *a, const char *b, const char *c)
{
	const json_t *x = json_object_get(json_object_get(j, a), b);
	return json_number_value(c ? json_object_get(json_object_get(x, c), "value") : x);
}

static void
test_cli(void)
{
	char *dir = test_tmpdir("server_envelope_replay_tail");
	char *files[3] = { log_file(dir, "head.csv", HEAD, 0), log_file(dir, "headtail.csv", LOG, 0),
		           log_file(dir, "blanktail.csv", LOG, 1) };
	json_t *j[3];
	char *err[3];
	for (int k = 0; k < 3; k++)
		j[k] = cli_answer(files[k], 0, &err[k]);
	for (int k = 1; k < 3; k++) {
		CHECK(at(j[k], "server", "summary", "mean_w") == at(j[0], "server", "summary", "mean_w"));
		CHECK(at(j[k], "server", "summary", "mean_running") == at(j[0], "server", "summary", "mean_running"));
		CHECK_NEAR(at(json_object_get(j[k], "workload"), "input_tokens", "mean", NULL), 600.0, 1e-9);
		CHECK_INT((int)json_integer_value(json_object_get(json_object_get(j[k], "workload"), "requests")), LOG);
		CHECK_INT((int)json_array_size(json_object_get(j[k], "warnings")),
		          (int)json_array_size(json_object_get(j[0], "warnings")) + 1);
	}
	/* their 5000 W plans: the same */
	char *e0, *e1;
	json_t *p0 = cli_answer(files[0], 1, &e0), *p1 = cli_answer(files[1], 1, &e1);
	CHECK(at(p0, "plan", "stat_w", NULL) == at(p1, "plan", "stat_w", NULL));
	CHECK(at(p0, "plan", "fleet_size", NULL) == at(p1, "plan", "fleet_size", NULL));
	json_decref(p0);
	json_decref(p1);
	free(e0);
	free(e1);
	/* the tail's unknown outputs are not drawn: nothing said of them */
	CHECK(strstr(err[2], "no output_tokens") == NULL);
	if (strstr(err[2], "no output_tokens"))
		fprintf(stderr, "%s\n", err[2]);
	for (int k = 0; k < 3; k++) {
		json_decref(j[k]);
		free(err[k]);
		free(files[k]);
	}
	free(dir);
}

/* Over HTTP: 4 requests in 10 s, and a fifth at 100 s of 5 000 000 input
 * tokens (its KV cache refused the whole replay, 422). */
static void
test_http(void)
{
	static const char *const body[2] = {
		"{\"platform\":\"A100\",\"model\":\"Qwen3-8B\",\"horizon_s\":10,\"replicas\":1,\"include_bins\":false,"
		"\"workload\":{\"type\":\"replay\",\"arrivals\":{\"t_s\":[0,1,2,3],\"input_tokens\":[500,500,500,500],"
		"\"output_tokens\":[200,200,200,200]}}}",
		"{\"platform\":\"A100\",\"model\":\"Qwen3-8B\",\"horizon_s\":10,\"replicas\":1,\"include_bins\":false,"
		"\"workload\":{\"type\":\"replay\",\"arrivals\":{\"t_s\":[0,1,2,3,100],\"input_tokens\":[500,500,500,500,"
		"5000000],\"output_tokens\":[200,200,200,200,200]}}}",
	};
	http_reply r[2];
	for (int k = 0; k < 2; k++) {
		http_post_json(h, url("/v1/forecast/envelope"), body[k], &r[k]);
		CHECK_INT(r[k].status, 200);
		if (r[k].status != 200)
			fprintf(stderr, "%s\n", r[k].body ? r[k].body : "");
	}
	const json_t *w = json_object_get(r[1].json, "workload");
	CHECK(at(r[0].json, "server", "summary", "mean_w") == at(r[1].json, "server", "summary", "mean_w"));
	CHECK_NEAR(at(w, "input_tokens", "mean", NULL), 500.0, 1e-9);
	CHECK_INT((int)json_integer_value(json_object_get(w, "requests")), 5);
	CHECK_INT((int)json_integer_value(json_object_get(w, "requests_replayed")), 4);
	for (int k = 0; k < 2; k++)
		http_reply_free(&r[k]);
	/* none replayed (every request after a 5 s horizon): no mean, where
	 * the defaults' 512 and 256 stood for requests never simulated; the
	 * envelope and the plan alike */
	static const char *const none =
		"\"horizon_s\":5,\"workload\":{\"type\":\"replay\",\"arrivals\":{\"t_s\":"
		"[10,11,12],\"input_tokens\":[500,500,500],\"output_tokens\":[200,200,200]}}}";
	const char *route[2] = { "/v1/forecast/envelope", "/v1/plan/budget" };
	for (int k = 0; k < 2; k++) {
		char b[512];
		snprintf(b, sizeof b, "{\"platform\":\"A100\",\"model\":\"Qwen3-8B\",%s%s",
		         k ? "\"budget_w\":2000," : "\"include_bins\":false,", none);
		http_reply q;
		http_post_json(h, url(route[k]), b, &q);
		CHECK_INT(q.status, 200);
		const json_t *wl = json_object_get(q.json, "workload");
		CHECK_INT((int)json_integer_value(json_object_get(wl, "requests_replayed")), 0);
		for (int i = 0; i < 2; i++) {
			const json_t *len = json_object_get(wl, i ? "output_tokens" : "input_tokens");
			CHECK(json_is_null(json_object_get(len, "mean")));
			CHECK_INT((int)json_integer_value(json_object_get(len, "missing")), 0);
		}
		if (q.status != 200 || !json_is_null(json_object_get(json_object_get(wl, "input_tokens"), "mean")))
			fprintf(stderr, "%s: %s\n", route[k], q.body ? q.body : "");
		http_reply_free(&q);
	}
}

int
main(void)
{
	wc_error err;
	gsl_set_error_handler_off();
	make_log();
	CHECK_INT(wc_params_profile("measured", &measured, &err), WC_OK);
	test_library();
	test_cli();
	curl_global_init(CURL_GLOBAL_DEFAULT);
	h = curl_easy_init();
	wc_server *srv = http_server_start(&measured, "profile:measured", 2);
	if (srv) {
		test_http();
		wc_server_stop(srv);
	}
	curl_easy_cleanup(h);
	curl_global_cleanup();
	wc_params_clear(&measured);
	return check_report("test_server_envelope_replay_tail");
}
