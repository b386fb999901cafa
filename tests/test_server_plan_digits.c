/*
 * A budget plan's JSON (POST /v1/plan/budget, `wattcast envelope --budget
 * --json`) beside its own size: the budget echoed as sent and each
 * statistic with the digits that put it on its side of the budget, the
 * text plan's rule (docs/http-api.md, "POST /v1/plan/budget"; docs/cli.md).
 * At the answers' ten digits a budget of 19906.903989 W was echoed
 * 19906.90399, rounded up, and the 59th server's 19906.9039895 W written
 * 19906.90399 too: a plan of 58 whose next size read as fitting.
 */
#include "data/params_file.h"
#include "predict/envelope_budget.h"
#include "server/http_internal.h"
#include "server/render_internal.h"
#include "server/server.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

static CURL *h;

/* The JSON text of `key`'s number in `doc` (the digits as written). */
static int
number_text(const char *doc, const char *key, char *out, size_t cap)
{
	char pat[64];
	snprintf(pat, sizeof pat, "\"%s\":", key);
	const char *p = doc ? strstr(doc, pat) : NULL;
	if (!p)
		return 0;
	p += strlen(pat);
	while (*p == ' ')
		p++;
	size_t n = strspn(p, "0123456789+-.eE");
	if (n == 0 || n >= cap)
		return 0;
	memcpy(out, p, n);
	out[n] = '\0';
	return 1;
}

/* stat_w and next_stat_w of a plan's JSON on their sides of budget_w,
 * budget_w reading back as `sent`, no marked string left. */
static void
check_sides(const char *doc, double sent)
{
	json_t *j = json_loads(doc ? doc : "", 0, NULL);
	const json_t *p = json_object_get(j, "plan");
	CHECK(p != NULL);
	const double b = json_number_value(json_object_get(p, "budget_w"));
	CHECK(b == sent);
	const int k = (int)json_integer_value(json_object_get(p, "fleet_size"));
	if (k > 0)
		CHECK(json_number_value(json_object_get(p, "stat_w")) <= b);
	CHECK(json_number_value(json_object_get(p, "next_stat_w")) > b);
	CHECK(doc && !strstr(doc, "\\u0001"));
	if (b != sent || !(json_number_value(json_object_get(p, "next_stat_w")) > b))
		fprintf(stderr, "plan: %s\n", doc ? doc : "(none)");
	json_decref(j);
}

/* The rule on the brief's numbers, through both ways an answer is
 * printed: the CLI's (wc_render_budget) and the server's (wc_response_json). */
static void
test_render(const wc_params *paper)
{
	wc_error err;
	wc_config c = WC_CONFIG_INIT;
	c.platform = "A100";
	c.tp = 1;
	c.arch = wc_model_lookup("Qwen3-8B");
	c.active_params_b = c.arch->active_params_b;
	wc_capacity_service_store rs;
	wc_service_times st;
	wc_power_map_law store;
	wc_power_map pm;
	CHECK_INT(wc_roofline_standin_init(&rs, &c, &err), WC_OK);
	wc_roofline_standin_service(&rs, &st);
	CHECK_INT(wc_power_map_from_law(paper, &c, NULL, &store, &pm, &err), WC_OK);
	wc_envelope_workload w;
	wc_envelope_workload_init(&w);
	w.kind = WC_ENVELOPE_POISSON;
	w.rate = 3;
	wc_envelope_options o;
	wc_envelope_options_init(&o);
	wc_response_params resp;
	wc_response_effective(NULL, &resp);
	wc_envelope_render ctx = { &c, &w, &o, &resp, "assumed", &pm, &st, "v", 0, NULL };
	wc_budget_options bo = { 19906.903989, WC_BUDGET_P95, 1000, 1.0 };
	wc_budget_plan plan;
	memset(&plan, 0, sizeof plan);
	plan.fleet_size = 58;
	plan.stat_w = 19568.45444;
	plan.next_stat_w = 19906.9039895;
	plan.stat_lo_w = 13374.58084;
	plan.stat_hi_w = 19906.9039896; /* over it too, by less than ten digits tell */
	plan.mean_running = 3;
	plan.search_bound = 1000;
	char *t = wc_render_budget(&ctx, &bo, &plan, 0, &err);
	char num[40];
	CHECK(number_text(t, "budget_w", num, sizeof num) && strcmp(num, "19906.903989") == 0);
	CHECK(number_text(t, "next_stat_w", num, sizeof num) && strcmp(num, "19906.90399") == 0);
	CHECK(number_text(t, "stat_w", num, sizeof num) && strcmp(num, "19568.45444") == 0);
	CHECK(number_text(t, "hi", num, sizeof num) && strtod(num, NULL) > bo.budget_w);
	/* no wall-clock time: a plan repeated is the same bytes */
	CHECK(t && !strstr(t, "\"seconds\""));
	check_sides(t, 19906.903989);
	free(t);
	/* a whole budget is an integer, as every whole number of an answer */
	bo.budget_w = 20000;
	plan.stat_w = 19906.9039895;
	plan.next_stat_w = 20236.57494;
	t = wc_render_budget(&ctx, &bo, &plan, 0, &err);
	CHECK(number_text(t, "budget_w", num, sizeof num) && strcmp(num, "20000") == 0);
	CHECK(number_text(t, "stat_w", num, sizeof num) && strcmp(num, "19906.90399") == 0);
	free(t);
	/* statistics that round to the budget at ten digits, each on its side */
	bo.budget_w = 19906.90399;
	plan.stat_w = 19906.9039899;
	plan.next_stat_w = 19906.903991;
	t = wc_render_budget(&ctx, &bo, &plan, 0, &err);
	CHECK(number_text(t, "budget_w", num, sizeof num) && strcmp(num, "19906.90399") == 0);
	CHECK(number_text(t, "stat_w", num, sizeof num) && strcmp(num, "19906.9039899") == 0);
	CHECK(number_text(t, "next_stat_w", num, sizeof num) && strcmp(num, "19906.903991") == 0);
	check_sides(t, 19906.90399);
	free(t);
	/* the server's printing */
	bo.budget_w = 19906.903989;
	plan.stat_w = 19568.45444;
	plan.next_stat_w = 19906.9039895;
	wc_response res;
	memset(&res, 0, sizeof res);
	wc_response_json(&res, 200, wc_budget_json(&ctx, &bo, &plan));
	CHECK(res.body && strlen(res.body) == res.len);
	CHECK(number_text(res.body, "budget_w", num, sizeof num) && strcmp(num, "19906.903989") == 0);
	CHECK(number_text(res.body, "next_stat_w", num, sizeof num) && strcmp(num, "19906.90399") == 0);
	check_sides(res.body, 19906.903989);
	wc_response_free(&res);
	/* a marked string that is not a number alone is left as it is */
	char s[] = "[\"\\u0001abc\",\"\\u00011.5\",\"\\u00012 W\",\"x\\u00013\"]";
	size_t n = wc__render_digits_fix(s, strlen(s));
	CHECK(strcmp(s, "[\"\\u0001abc\",1.5,\"\\u00012 W\",\"x\\u00013\"]") == 0 && n == strlen(s));
}

/* The brief's plan: 58 servers, the 59th over the budget by 5e-7 W. */
static void
test_cli(void)
{
	const char *argv[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--poisson", "3",
		               "--budget", "19906.903989", "--quiet", NULL, NULL };
	run_result r;
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	/* the text's statistics, to compare with the JSON's */
	char want[96] = "";
	const char *at = r.out ? strstr(r.out, " would draw ") : NULL;
	CHECK(at != NULL);
	if (at)
		snprintf(want, sizeof want, "%.*s", (int)strcspn(at + 12, " "), at + 12);
	run_result_free(&r);
	argv[11] = "--json";
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	check_sides(r.out, 19906.903989);
	char num[40];
	CHECK(number_text(r.out, "next_stat_w", num, sizeof num) && strcmp(num, want) == 0);
	run_result_free(&r);
}

static void
test_http(void)
{
	http_reply r;
	http_post_json(h, url("/v1/plan/budget"),
	               "{\"platform\":\"A100\",\"tp\":1,\"model\":\"Qwen3-8B\",\"workload\":{\"type\":\"poisson\","
	               "\"rate\":3},\"budget_w\":19906.903989}", &r);
	CHECK_INT(r.status, 200);
	check_sides(r.body, 19906.903989);
	char num[40];
	CHECK(number_text(r.body, "budget_w", num, sizeof num) && strcmp(num, "19906.903989") == 0);
	http_reply_free(&r);
}

int
main(void)
{
	wc_params paper = WC_PARAMS_INIT, meas = WC_PARAMS_INIT;
	wc_server *srv = NULL;
	wc_error err;
	wc_params_default(&paper);
	test_render(&paper);
	test_cli();
	curl_global_init(CURL_GLOBAL_DEFAULT);
	h = curl_easy_init();
	CHECK_INT(wc_params_profile("measured", &meas, &err), WC_OK);
	srv = http_server_start(&meas, "profile:measured", 2);
	if (srv) {
		test_http();
		wc_server_stop(srv);
	}
	curl_easy_cleanup(h);
	curl_global_cleanup();
	wc_params_clear(&paper);
	wc_params_clear(&meas);
	return check_report("test_server_plan_digits");
}
