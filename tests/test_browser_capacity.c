/*
 * The planner page's answers from the newer parts of the API
 * (docs/planner.md) in headless Chromium, against a real `wattcast serve`
 * on port 0 serving a fitted parameter set with bootstrap draws
 * (tests/browser/page_session.h): the envelope panel computes and draws
 * its band, the capacity answers (latency, energy per output token,
 * throughput, cost) appear in every plot and comparison column with the
 * API's numbers, the envelope panel's controls change its answer, and on
 * a phone the answer is on the first screen. The form, its answer, a
 * shared URL and the calibration view are in test_browser_page.c.
 *
 * Skipped (exit 77) when Chromium is not installed (Debian: chromium).
 */
#include "tests/browser/cdp.h"
#include "tests/browser/page_session.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

#include <math.h>

static page_session S;
static cdp *B;
static CURL *H;

/* The page with the configuration test_browser_page.c types (H200 /
 * Qwen3-8B / TP 1 / n = 32), computed once, for the envelope panel. */
static void
open_page(int port)
{
	char link[256];
	snprintf(link, sizeof link, "http://127.0.0.1:%d/?platform=H200&model=Qwen3-8B&tp=1&concurrency=32",
	         port);
	CHECK_INT(cdp_navigate(B, link), 0);
	CHECK(page_wait_runs(B, 1));
}

/* The real envelope endpoint: its panel computes from the configuration
 * above and draws the band of the answer's per-bin columns (server.bins). */
static void
check_real_envelope(void)
{
	const char *section = "section[data-path=\"/v1/forecast/envelope\"]";
	char expr[256];
	snprintf(expr, sizeof expr, "document.querySelector('%s button[type=submit]') !== null", section);
	CHECK(cdp_wait(B, expr, PAGE_WAIT_S));
	snprintf(expr, sizeof expr, "document.querySelector('%s button[type=submit]').click()", section);
	page_eval_ok(B, expr);
	snprintf(expr, sizeof expr,
	         "document.querySelectorAll('%s polygon.band').length === 1", section);
	CHECK(cdp_wait(B, expr, PAGE_WAIT_S));
}

/* The capacity answers of the real server (latency, energy per output
 * token, throughput) nest under "capacity": each plot and comparison
 * column the page offers must show them with numbers, and the numbers must
 * be the API's. */
static const struct {
	const char *what, *expr;
} capacity_checks[] = {
	{ "input tokens control, restored from the URL",
	  "document.querySelector('label[for=f-input_tokens]') && document.getElementById('f-input_tokens').value === '600'" },
	{ "output tokens control", "document.querySelector('label[for=f-output_tokens]') !== null" },
	{ "open-loop choice", "document.querySelectorAll('input[name=load-mode]').length === 2" },
	{ "node power plot, one line per configuration",
	  "document.querySelectorAll('#plot-node_power_w path.line').length === 2" },
	{ "energy per token plot, one line per configuration",
	  "document.querySelectorAll('#plot-energy_per_output_token_j path.line').length === 2" },
	{ "energy per token in the comparison, with numbers",
	  "[...document.querySelectorAll('#compare-table td[data-key=energy_per_output_token_j]')].filter((td) => /^[0-9.]+/.test(td.textContent)).length === 2" },
	{ "latency in the comparison, with numbers",
	  "[...document.querySelectorAll('#compare-table td[data-key=latency_s]')].filter((td) => /^[0-9.]+/.test(td.textContent)).length === 2" },
	{ "throughput in the comparison, with numbers",
	  "[...document.querySelectorAll('#compare-table td[data-key=throughput_tok_s]')].filter((td) => /^[0-9.]+/.test(td.textContent)).length === 2" },
	{ "every interval in the answer table says what it covers",
	  "(() => { const w = [...document.querySelectorAll('#answer-table tbody tr')]"
	  ".filter((r) => /^\\[.+, .+\\]$/.test(r.cells[2].textContent));"
	  " return w.length > 1 && w.every((r) => /^parameters/.test(r.cells[3].textContent)); })()" },
	{ "cost rows labelled with their unit",
	  "document.querySelector('#answer-table tr[data-key=\"capacity.cost.per_request\"] th').textContent === 'Cost per request'" },
};

/* The number the page shows for `key` in the answer table, or NaN. */
static double
answer_number(const char *key)
{
	char expr[256];
	snprintf(expr, sizeof expr,
	         "(() => { const r = document.querySelector('#answer-table tr[data-key=\"%s\"] td');"
	         " return r ? parseFloat(r.textContent) : NaN; })()", key);
	json_t *v = cdp_eval(B, expr);
	double x = json_is_number(v) ? json_number_value(v) : NAN;
	json_decref(v);
	return x;
}

static void
check_capacity_fields(int port)
{
	char link[256];
	snprintf(link, sizeof link, "http://127.0.0.1:%d/?platform=H200&model=Qwen3-8B&tp=1&concurrency=32"
	         "&input_tokens=600&output_tokens=200&price_per_kwh=0.15&cmp=platform:H100;model:Qwen3-8B;tp:1", port);
	CHECK_INT(cdp_navigate(B, link), 0);
	CHECK(page_wait_runs(B, 1));
	for (size_t i = 0; i < sizeof capacity_checks / sizeof capacity_checks[0]; i++) {
		int ok = cdp_wait(B, capacity_checks[i].expr, PAGE_WAIT_S);
		if (!ok)
			fprintf(stderr, "capacity fields: %s is missing\n", capacity_checks[i].what);
		CHECK(ok);
	}
	/* The page's latency and energy per token are the API's. */
	json_t *a = page_api_post(H, url("/v1/predict/inference"),
	                          "{\"platform\":\"H200\",\"model\":\"Qwen3-8B\",\"tp\":1,\"concurrency\":32,"
	                          "\"input_tokens\":600,\"output_tokens\":200,\"price_per_kwh\":0.15}");
	json_t *cap = json_object_get(a, "capacity");
	double lat = json_number_value(json_object_get(cap, "latency_s"));
	double ept = json_number_value(json_object_get(cap, "energy_per_output_token_j"));
	CHECK(lat > 0 && ept > 0);
	CHECK_NEAR(answer_number("capacity.latency_s"), lat, 0.0051 * lat);
	CHECK_NEAR(answer_number("capacity.energy_per_output_token_j"), ept, 0.0051 * ept);
	json_decref(a);
}

/* A compared row carries the warnings of its answer's blocks as the form's
 * answer does: an A100 row over capacity at the form's 5 requests/s says so
 * (capacity.warnings), not only its power warnings. */
static void
check_compare_capacity_warnings(int port)
{
	char link[256];
	snprintf(link, sizeof link, "http://127.0.0.1:%d/?platform=H200&model=Qwen3-8B&rate=5&input_tokens=512"
	         "&output_tokens=256&cmp=platform:A100;model:Qwen3-32B;tp:1", port);
	CHECK_INT(cdp_navigate(B, link), 0);
	CHECK(page_wait_runs(B, 1));
	int ok = cdp_wait(B, "(() => { const t = document.querySelector('#compare-table tbody');"
	                     " return !!t && /exceeds the capacity/.test(t.textContent); })()", PAGE_WAIT_S);
	if (!ok)
		fprintf(stderr, "compare row: the over-capacity warning is missing\n");
	CHECK(ok);
}

/* The envelope panel's controls: a planner changes the arrival rate and
 * the answer changes with it. */
static double
envelope_mean_at_rate(const char *rate)
{
	const char *section = "section[data-path=\"/v1/forecast/envelope\"]";
	char expr[512];
	snprintf(expr, sizeof expr,
	         "(() => { const s = document.querySelector('%s'); const r = s.querySelector('input[id$=-workload-rate]');"
	         " r.value = '%s'; s.querySelector('tr[data-key]') && s.querySelectorAll('tr[data-key]').forEach((t) => t.remove());"
	         " s.querySelector('button[type=submit]').click(); return true; })()", section, rate);
	page_eval_ok(B, expr);
	snprintf(expr, sizeof expr, "document.querySelector('%s tr[data-key=\"server.summary.mean_w\"]') !== null", section);
	CHECK(cdp_wait(B, expr, PAGE_WAIT_S));
	snprintf(expr, sizeof expr,
	         "parseFloat(document.querySelector('%s tr[data-key=\"server.summary.mean_w\"] td').textContent)", section);
	json_t *v = cdp_eval(B, expr);
	double x = json_is_number(v) ? json_number_value(v) : NAN;
	json_decref(v);
	return x;
}

static void
check_envelope_controls(void)
{
	const char *section = "section[data-path=\"/v1/forecast/envelope\"]";
	char expr[512];
	snprintf(expr, sizeof expr,
	         "['type', 'rate', 'input_tokens', 'output_tokens'].every((k) => document.querySelector('%s [id$=-workload-' + k + ']'))"
	         " && document.querySelector('%s [id$=-fleet-size]') !== null"
	         " && document.querySelector('%s input[type=checkbox][id$=-include_bins]') !== null", section, section, section);
	CHECK(cdp_wait(B, expr, PAGE_WAIT_S));
	double low = envelope_mean_at_rate("0.5"), high = envelope_mean_at_rate("6");
	if (!(high > low))
		fprintf(stderr, "envelope mean at 0.5 req/s %g W, at 6 req/s %g W\n", low, high);
	CHECK(isfinite(low) && isfinite(high) && high > low);
}

/* On a phone the answer is on the first screen. */
static void
check_phone_answer_first(void)
{
	CHECK_INT(cdp_viewport(B, 390, 844, 1), 0);
	CHECK(cdp_wait(B, "document.getElementById('node-power').getBoundingClientRect().top < 844", PAGE_WAIT_S));
	CHECK_INT(cdp_viewport(B, 1280, 800, 0), 0);
}

int
main(void)
{
	if (page_session_open(&S, "browser_capacity") == TEST_SKIP)
		return TEST_SKIP;
	B = S.b;
	H = S.h;
	if (B) {
		http_set_base(S.port);
		open_page(S.port);
		check_real_envelope();
		check_capacity_fields(S.port);
		check_compare_capacity_warnings(S.port);
		check_envelope_controls();
		check_phone_answer_first();
		CHECK_INT(cdp_page_errors(B), 0);
	}
	page_session_close(&S);
	return check_report("test_browser_capacity");
}
