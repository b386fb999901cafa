/*
 * The planner page answers the configuration the planner gave, all of it,
 * and shows every number the API gives for it (docs/planner.md), in
 * headless Chromium against a real `wattcast serve` serving the fitted set
 * of tests/browser/page_session.h and the built-in profile `measured`
 * (`wattcast profile export`, whose held-out error gives the open loop's
 * running count an interval). Each check opens a link choosing `measured`
 * and compares the page with the API's answer to the same request:
 *   - an open loop keeps the engine's limit (`concurrency` with `rate`):
 *     the request, the answer shown and the page's own link have it, and
 *     the closed loop's n is not taken as a limit when the planner
 *     switches to the open loop;
 *   - cost and CO₂ rows and the mean running count carry the API's 95 %
 *     intervals (kept in `capacity.interval_95` under other names), rates
 *     their unit, the over-capacity state a yes, small numbers four
 *     significant digits;
 *   - the clock a power cap settles at is shown, a cap no clock meets
 *     gives the clock of least power and says so, a cap that does not bind
 *     says so, and the clock's warning sits under the cap the planner set;
 *   - "Other" with active parameters and an architecture computes the
 *     capacity answers, and its link restores the architecture;
 *   - a refused configuration leaves no plot and no comparison row of the
 *     previous one on screen.
 *
 * Skipped (exit 77) when Chromium is not installed (Debian: chromium).
 */
#include "tests/browser/cdp.h"
#include "tests/browser/page_session.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

#include <string.h>

static page_session S;
static cdp *B;
static CURL *H;

/* Opens the page on `query` (profile measured) and waits for its answer. */
static void
open_link(const char *query)
{
	char link[512];
	snprintf(link, sizeof link, "http://127.0.0.1:%d/?profile=measured&%s", S.port, query);
	CHECK_INT(cdp_navigate(B, link), 0);
	CHECK(page_wait_runs(B, 1));
}

/* The API's answer to the last inference request the page sent. */
static json_t *
answer_to_sent(void)
{
	char *body = cdp_eval_str(B, "(window.sent.filter(([u]) => u === '/v1/predict/inference').pop() || [])[1] || ''");
	json_t *a = body[0] ? page_api_post(H, url("/v1/predict/inference"), body) : NULL;
	CHECK(a != NULL);
	free(body);
	return a;
}

/* Records every body the page posts from now on (window.sent). */
static void
record(void)
{
	page_eval_ok(B, "(() => { window.sent = []; const f = window.fetch;"
	                " window.fetch = (u, i) => { window.sent.push([u, i && i.body]); return f(u, i); }; return true; })()");
}

/* The answer row `key`: its value (cell 1) or interval (cell 2) shows `want`. */
static void
check_cell(const char *key, int cell, int k, double want)
{
	char sel[256];
	snprintf(sel, sizeof sel, "#answer-table tr[data-key=\"%s\"] td:nth-of-type(%d)", key, cell);
	char *t = page_text_of(B, sel);
	page_check_shown(t, k, want, key);
	free(t);
}

static void
check_interval(const char *key, json_t *lohi)
{
	CHECK(json_is_array(lohi));
	check_cell(key, 2, 0, json_number_value(json_array_get(lohi, 0)));
	check_cell(key, 2, 1, json_number_value(json_array_get(lohi, 1)));
}

static void
check_open_loop(void)
{
	open_link("platform=H100&model=Llama-3.1-70B&tp=4&concurrency=256&rate=50&input_tokens=512&output_tokens=256"
	          "&price_per_kwh=0.12&grams_co2_per_kwh=400");
	/* The engine's limit stays in the form, the request and the link. */
	CHECK(page_truth(B, "document.getElementById('f-concurrency').value === '256'"
	            " && !document.getElementById('f-concurrency').disabled"
	            " && !document.querySelector('.field[data-field=concurrency]').hidden"));
	CHECK(page_truth(B, "/[?&]concurrency=256(&|$)/.test(document.getElementById('share-link').value)"));
	record();
	page_eval_ok(B, "document.getElementById('predict').click()");
	CHECK(page_wait_runs(B, 2));
	json_t *a = answer_to_sent();
	json_t *cap = json_object_get(a, "capacity"), *iv = json_object_get(cap, "interval_95");
	CHECK_NEAR(json_number_value(json_object_get(a, "mean_running")), 256, 1e-9);
	check_cell("mean_running", 1, 0, 256);
	/* Intervals the API keeps under other names. */
	/* Over capacity at every latency of latency's interval the count is the
	 * memory limit's whatever the latency: no interval, and the page says
	 * why as the API does (docs/intervals.md). */
	CHECK(json_is_null(json_object_get(iv, "mean_running")) || !json_object_get(iv, "mean_running"));
	char *crun = page_text_of(B, "#answer-table tr[data-key=\"mean_running\"] td.covers");
	const char *wrun = json_string_value(json_object_get(json_object_get(iv, "covers_by_quantity"), "mean_running"));
	if (!(wrun && crun && strcmp(crun, wrun) == 0))
		fprintf(stderr, "mean_running covers: page \"%s\", API \"%s\"\n", crun ? crun : "(null)", wrun ? wrun : "(null)");
	CHECK(wrun && crun && strcmp(crun, wrun) == 0);
	free(crun);
	check_interval("capacity.cost.per_hour", json_object_get(iv, "cost_per_hour"));
	check_interval("capacity.cost.per_request", json_object_get(iv, "cost_per_request"));
	check_interval("capacity.co2_g.per_hour", json_object_get(iv, "co2_g_per_hour"));
	check_interval("capacity.co2_g.per_million_output_tokens", json_object_get(iv, "co2_g_per_million_tokens"));
	char *cov = page_text_of(B, "#answer-table tr[data-key=\"capacity.cost.per_hour\"] td.covers");
	const char *want = json_string_value(json_object_get(json_object_get(iv, "covers_by_quantity"), "cost_per_hour"));
	CHECK(want && strcmp(cov, want) == 0);
	free(cov);
	/* Rates with their unit, the over-capacity state in words. */
	CHECK(json_is_true(json_object_get(cap, "over_capacity")));
	check_cell("capacity.capacity_rate", 1, 0, json_number_value(json_object_get(cap, "capacity_rate")));
	CHECK(page_truth(B, "/ requests\\/s$/.test(document.querySelector('#answer-table tr[data-key=\"capacity.capacity_rate\"] td').textContent)"
	            " && / requests\\/s$/.test(document.querySelector('#answer-table tr[data-key=\"capacity.rate\"] td').textContent)"));
	CHECK(page_truth(B, "document.querySelector('#answer-table tr[data-key=\"capacity.over_capacity\"] td').textContent === 'yes'"));
	/* Below 10⁻³ with an exponent and four significant digits (trailing
	 * zeros dropped: 4.7502e-6 reads 4.75e-6), its interval too, the API's
	 * value to the digits shown. */
	CHECK(page_truth(B, "/^-?[1-9](\\.\\d{1,3})?e-\\d+ /.test(document.querySelector('#answer-table tr[data-key=\"capacity.cost.per_request\"] td').textContent)"
	            " && /^\\[\\S+e-\\d+, \\S+e-\\d+\\]$/.test(document.querySelector('#answer-table tr[data-key=\"capacity.cost.per_request\"] td:nth-of-type(2)').textContent)"));
	check_cell("capacity.cost.per_request", 1, 0,
	           json_number_value(json_object_get(json_object_get(cap, "cost"), "per_request")));
	json_decref(a);
	/* Choosing the open loop on a closed loop's n = 32 sets no limit of 32;
	 * going back gives the n back. */
	open_link("platform=H100&model=Llama-3.1-70B&tp=4&concurrency=32");
	page_eval_ok(B, "(() => { const r = document.querySelector('input[name=load-mode][value=rate]'); r.click(); return true; })()");
	CHECK(page_truth(B, "document.getElementById('f-concurrency').value === ''"
	            " && /limit/i.test(document.querySelector('label[for=f-concurrency]').textContent)"));
	page_eval_ok(B, "(() => { const r = document.querySelector('input[name=load-mode][value=concurrency]'); r.click(); return true; })()");
	CHECK(page_truth(B, "document.getElementById('f-concurrency').value === '32'"));
}

static void
check_power_cap(void)
{
	open_link("platform=A100&model=Qwen3-8B&concurrency=16&power_cap_w=250");
	record();
	page_eval_ok(B, "document.getElementById('predict').click()");
	CHECK(page_wait_runs(B, 2));
	json_t *a = answer_to_sent();
	json_t *clock = json_object_get(json_object_get(a, "config"), "sm_clock_mhz");
	CHECK(json_is_number(clock));
	check_cell("config.sm_clock_mhz", 1, 0, json_number_value(clock));
	char *why = page_text_of(B, "#answer-table tr[data-key=\"config.sm_clock_mhz\"] td.covers");
	CHECK_CONTAINS(why, "settled under the 250 W power cap");
	CHECK(json_is_true(json_object_get(json_object_get(a, "config"), "power_limit_met")));
	free(why);
	/* The clock's warning names the cap set, not the empty lock. */
	CHECK(page_truth(B, "/^power_cap_w:/.test(document.querySelector('.field[data-field=power_cap_w] .warnings').textContent)"
	            " && document.querySelector('.field[data-field=sm_clock_mhz] .warnings').textContent === ''"));
	json_decref(a);
	/* A cap no clock meets: the clock of least power, not "settled under"
	 * it, as the CLI and the API's config.power_limit_met say. */
	open_link("platform=H100&model=Llama-3.1-8B&concurrency=32&power_cap_w=150");
	record();
	page_eval_ok(B, "document.getElementById('predict').click()");
	CHECK(page_wait_runs(B, 2));
	a = answer_to_sent();
	CHECK(json_is_false(json_object_get(json_object_get(a, "config"), "power_limit_met")));
	json_decref(a);
	why = page_text_of(B, "#answer-table tr[data-key=\"config.sm_clock_mhz\"] td.covers");
	CHECK_CONTAINS(why, "clock of least power, still above the 150 W power cap per GPU");
	CHECK(strstr(why, "settled") == NULL);
	free(why);
	/* A lock the board's limit lowers is settled under it, not "locked"
	 * (docs/planner.md); a lock it leaves is locked. */
	open_link("platform=A100&model=Qwen3-32B&concurrency=256&sm_clock_mhz=1400");
	record();
	page_eval_ok(B, "document.getElementById('predict').click()");
	CHECK(page_wait_runs(B, 2));
	a = answer_to_sent();
	CHECK(json_number_value(json_object_get(json_object_get(a, "config"), "sm_clock_mhz")) < 1399);
	json_decref(a);
	why = page_text_of(B, "#answer-table tr[data-key=\"config.sm_clock_mhz\"] td.covers");
	CHECK_CONTAINS(why, "settled under the board’s 400 W power limit");
	CHECK(strstr(why, "locked") == NULL);
	free(why);
	open_link("platform=A100&model=Qwen3-8B&concurrency=4&sm_clock_mhz=900");
	record();
	page_eval_ok(B, "document.getElementById('predict').click()");
	CHECK(page_wait_runs(B, 2));
	why = page_text_of(B, "#answer-table tr[data-key=\"config.sm_clock_mhz\"] td.covers");
	CHECK(why && strcmp(why, "locked") == 0);
	free(why);
	open_link("platform=A100&model=Qwen3-8B&concurrency=16&power_cap_w=400");
	why = page_text_of(B, "#answer-table tr[data-key=\"config.power_cap_w\"] td.covers");
	CHECK_CONTAINS(why, "does not bind");
	free(why);
}

static void
check_other_model(void)
{
	open_link("platform=H100&model=Qwen3-8B&concurrency=16");
	page_choose(B, "f-model", "");
	/* Without its architecture: the message is under the architecture's
	 * first box, which is marked and focused, not the active parameters. */
	page_eval_ok(B, "(() => { document.getElementById('f-active_params_b').value = '8';"
	                " document.getElementById('predict').click(); return true; })()");
	CHECK(page_wait_runs(B, 2));
	CHECK(page_truth(B, "/architecture/.test(document.getElementById('f-architecture-layers-error').textContent)"
	            " && document.activeElement.id === 'f-architecture-layers'"
	            " && document.getElementById('f-active_params_b').getAttribute('aria-invalid') === null"));
	page_eval_ok(B, "(() => { for (const [k, v] of [['f-active_params_b', '8'], ['f-architecture-layers', '36'],"
	                " ['f-architecture-kv_heads', '8'], ['f-architecture-head_dim', '128'],"
	                " ['f-architecture-d_model', '4096']])"
	                " document.getElementById(k).value = v; return true; })()");
	record();
	page_eval_ok(B, "document.getElementById('predict').click()");
	CHECK(page_wait_runs(B, 3));
	CHECK(page_truth(B, "document.getElementById('f-model-error').textContent === ''"));
	json_t *a = answer_to_sent();
	json_t *lat = json_object_get(json_object_get(a, "capacity"), "latency_s");
	CHECK(json_is_number(lat));
	check_cell("capacity.latency_s", 1, 0, json_number_value(lat));
	json_decref(a);
	/* The link carries the architecture, and restores it. */
	char *link = cdp_eval_str(B, "document.getElementById('share-link').value");
	CHECK_CONTAINS(link, "architecture.kv_heads=8");
	CHECK_INT(cdp_navigate(B, link), 0);
	CHECK(page_wait_runs(B, 1));
	CHECK(page_truth(B, "document.getElementById('f-model').value === '' && document.getElementById('f-architecture-layers').value === '36'"
	            " && document.querySelector('#answer-table tr[data-key=\"capacity.latency_s\"]') !== null"));
	free(link);
}

static void
check_refusal_clears(void)
{
	open_link("platform=H100&model=Llama-3.1-70B&tp=4&concurrency=16&cmp=platform:A100");
	CHECK(page_truth(B, "document.querySelectorAll('#plot-list figure').length > 0"
	            " && document.querySelectorAll('#compare-table tbody tr').length === 2"));
	page_eval_ok(B, "(() => { document.getElementById('f-tp').value = '0'; document.getElementById('predict').click(); return true; })()");
	CHECK(page_wait_runs(B, 2));
	char *err = page_text_of(B, "#f-tp-error");
	CHECK_CONTAINS(err, "tp:");
	free(err);
	CHECK(page_truth(B, "document.querySelectorAll('#plot-list figure').length === 0"
	            " && document.querySelectorAll('#compare-table tbody tr').length === 0"));
}

int
main(void)
{
	if (page_session_open_measured(&S, "browser_page_answers") == TEST_SKIP)
		return TEST_SKIP;
	B = S.b;
	H = S.h;
	if (B) {
		http_set_base(S.port);
		check_open_loop();
		check_power_cap();
		check_other_model();
		check_refusal_clears();
		CHECK_INT(cdp_page_errors(B), 0);
	}
	page_session_close(&S);
	return check_report("test_browser_page_answers");
}
