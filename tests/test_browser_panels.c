/*
 * The planner page's panels of the envelope, budget and flexibility routes
 * (docs/planner.md, "What the page asks and shows") in headless Chromium against a real
 * `wattcast serve` serving the fitted set of tests/browser/page_session.h
 * and the built-in profile `measured` (`wattcast profile export`), whose
 * held-out error gives envelopes a predictive interval. Each panel computes
 * from the configuration above (profile measured, A100 / Qwen3-8B / TP 1);
 * the test records the body the page sent and posts it to the API itself,
 * so every number checked is the real answer to the page's own request.
 * Checked: the envelope's metrics are named rows with units, its 95 %
 * predictive interval and what it covers stand apart from the Monte-Carlo
 * spread, its band is drawn from server.bins, and no stray "null" text is
 * shown (nor under the budget's plan); the flexibility plot has one point
 * per step, the knee and the least-energy step marked at the API's clocks,
 * and its table has the steps with units. The envelope's workload has the
 * form's token lengths; the budget's plan rows have names of their own and
 * units; a refused panel request clears the panel's answer and names the
 * box its field pointer names (marked, focused; an empty box is not sent
 * as 0); a refused form clears the panels' answers; the configuration's
 * fields a route does not take are named under its panel, and the sweep
 * is not sent a price or carbon intensity. A fleet of 0 is refused under
 * its box; the echoed inputs have units; the sources' legend explains
 * `bound`. A null predictive interval (an n(t) of zeros sent in the
 * page's body) shows the API's own reason, once; a seed past 2^53 is sent
 * as its digits, an exponent past 2^53 refused under Seed. The
 * flexibility panel's unconstrained running count has predict inference's
 * interval and what it covers (H100 Qwen3-8B at 20 requests/s).
 *
 * Skipped (exit 77) when Chromium is not installed (Debian: chromium).
 */
#include "tests/browser/cdp.h"
#include "tests/browser/page_session.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

#include <math.h>
#include <string.h>

static page_session S;
static cdp *B;
static CURL *H;

#define ENVELOPE "section[data-path=\"/v1/forecast/envelope\"]"
#define BUDGET "section[data-path=\"/v1/plan/budget\"]"
#define FLEX "section[data-path=\"/v1/predict/flexibility\"]"
/* The configuration every panel computes from. */
#define MEASURED_LINK                                                                                                 \
	"http://127.0.0.1:%d/?profile=measured&platform=A100&model=Qwen3-8B&tp=1&concurrency=32"                      \
	"&input_tokens=1024&output_tokens=128"

static int
count(const char *expr)
{
	json_t *v = cdp_eval(B, expr);
	int n = json_is_number(v) ? (int)json_number_value(v) : -1;
	json_decref(v);
	return n;
}

/* Sets the panel's input `id` (empty: the API's default), clicks its
 * Compute and waits for `done`; then the API's answer to the very body
 * the page sent (new reference; NULL when none was sent). */
static json_t *
compute(const char *section, const char *path, const char *const *inputs, const char *done)
{
	char expr[1024];
	page_eval_ok(B, "(() => { if (!window.sent) { window.sent = []; const f = window.fetch;"
	                " window.fetch = (u, i) => { window.sent.push([u, i && i.body]); return f(u, i); }; }"
	                " return true; })()");
	for (int i = 0; inputs && inputs[i]; i += 2) {
		snprintf(expr, sizeof expr, "(() => { const e = document.getElementById('%s'); e.value = '%s'; return e.value; })()",
		         inputs[i], inputs[i + 1]);
		char *got = cdp_eval_str(B, expr);
		CHECK(strcmp(got, inputs[i + 1]) == 0);
		free(got);
	}
	snprintf(expr, sizeof expr, "document.querySelector('%s button[type=submit]') !== null", section);
	CHECK(cdp_wait(B, expr, PAGE_WAIT_S));
	snprintf(expr, sizeof expr, "document.querySelector('%s button[type=submit]').click()", section);
	page_eval_ok(B, expr);
	snprintf(expr, sizeof expr, "document.querySelector('%s %s') !== null", section, done);
	int ok = cdp_wait(B, expr, 3 * PAGE_WAIT_S);
	if (!ok) {
		snprintf(expr, sizeof expr, "document.querySelector('%s').textContent", section);
		char *t = cdp_eval_str(B, expr);
		fprintf(stderr, "%s: no answer shown; the panel says: %s\n", path, t);
		free(t);
	}
	CHECK(ok);
	snprintf(expr, sizeof expr, "(window.sent.filter(([u]) => u === '%s').pop() || [])[1] || ''", path);
	char *body = cdp_eval_str(B, expr);
	json_t *a = body[0] ? page_api_post(H, url(path), body) : NULL;
	CHECK(a != NULL);
	free(body);
	return a;
}

/* The panel's text never says "null" (a missing part printed). */
static void
check_no_null(const char *section)
{
	char expr[256];
	snprintf(expr, sizeof expr, "!/\\bnull\\b/.test(document.querySelector('%s').textContent)", section);
	int ok = page_truth(B, expr);
	if (!ok)
		fprintf(stderr, "%s shows the text \"null\"\n", section);
	CHECK(ok);
}

/* A row's label and its value cell, `unit` ending it, with the API's number. */
static void
check_row(const char *section, const char *key, const char *label, const char *unit, double want)
{
	char sel[256], want_unit[32];
	snprintf(sel, sizeof sel, "%s tr[data-key=\"%s\"] th", section, key);
	char *th = page_text_of(B, sel);
	if (strcmp(th, label) != 0)
		fprintf(stderr, "%s: labelled \"%s\", not \"%s\"\n", key, th, label);
	CHECK(strcmp(th, label) == 0);
	snprintf(sel, sizeof sel, "%s tr[data-key=\"%s\"] td", section, key);
	char *td = page_text_of(B, sel);
	snprintf(want_unit, sizeof want_unit, " %s", unit);
	size_t n = strlen(td), u = strlen(want_unit);
	if (!(n > u && strcmp(td + n - u, want_unit) == 0))
		fprintf(stderr, "%s: \"%s\" does not end with \"%s\"\n", key, td, want_unit);
	CHECK(n > u && strcmp(td + n - u, want_unit) == 0);
	page_check_shown(td, 0, want, key);
	free(th);
	free(td);
}

static void
check_envelope(void)
{
	const char *inputs[] = { "p--v1-forecast-envelope-horizon_s", "120", "p--v1-forecast-envelope-replicas", "8", NULL };
	json_t *a = compute(ENVELOPE, "/v1/forecast/envelope", inputs, "tr[data-key=\"server.summary.mean_w\"]");
	/* The token lengths are the configuration's (the link's 1024 and 128),
	 * not the panel's example. */
	CHECK(page_truth(B, "(() => { const b = JSON.parse(window.sent.filter(([u]) => u === '/v1/forecast/envelope').pop()[1]);"
	            " return b.workload.input_tokens.mean === 1024 && b.workload.output_tokens.mean === 128; })()"));
	json_t *server = json_object_get(a, "server"), *sum = json_object_get(server, "summary");
	json_t *iv = json_object_get(server, "interval_95"), *bins = json_object_get(server, "bins");
	CHECK(json_is_object(iv) && json_is_array(json_object_get(bins, "t_s")));
	/* Named rows with units, the mean over replicas the API's. */
	static const struct {
		const char *metric, *label, *unit;
	} rows[] = { { "mean_w", "Mean power", "W" },
		     { "p95_w", "P95 power (95th percentile of the samples)", "W" },
		     { "max_w", "Max power", "W" },
		     { "ramp_w_per_s", "Ramp (mean |ΔP| between 1-s means)", "W/s" } };
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		char key[64];
		snprintf(key, sizeof key, "server.summary.%s", rows[i].metric);
		json_t *m = json_object_get(sum, rows[i].metric);
		check_row(ENVELOPE, key, rows[i].label, rows[i].unit,
		          json_number_value(json_object_get(m, "value")));
	}
	/* The Monte-Carlo spread of the mean: the replicas' P5 and P95. */
	char *spread = page_text_of(B, ENVELOPE " tr[data-key=\"server.summary.mean_w\"] td.spread");
	json_t *mean = json_object_get(sum, "mean_w");
	page_check_shown(spread, 0, json_number_value(json_object_get(mean, "p5")), "spread p5");
	page_check_shown(spread, 1, json_number_value(json_object_get(mean, "p95")), "spread p95");
	free(spread);
	/* The predictive interval, apart from the spread, with what it covers. */
	char *shown = page_text_of(B, ENVELOPE " .predictive tr[data-key=\"server.interval_95.mean_w\"] td");
	json_t *lohi = json_object_get(iv, "mean_w");
	page_check_shown(shown, 0, json_number_value(json_array_get(lohi, 0)), "interval lo");
	double hi = json_number_value(json_array_get(lohi, 1));
	const char *bracket = strchr(shown, ',');
	CHECK(bracket && fabs(strtod(bracket + 1, NULL) - hi) <= 1e-3 * hi);
	CHECK(strstr(shown, " W") != NULL);
	free(shown);
	char *covers = page_text_of(B, ENVELOPE " .predictive p.covers");
	CHECK_CONTAINS(covers, json_string_value(json_object_get(iv, "covers")));
	free(covers);
	CHECK(page_truth(B, "document.querySelector('" ENVELOPE " .predictive td.spread') === null"));
	/* The band from server.bins: a line through every bin and its band. */
	char expr[512];
	snprintf(expr, sizeof expr,
	         "(() => { const p = document.querySelector('" ENVELOPE " figure svg path.line');"
	         " return !!p && (p.getAttribute('d').match(/L/g) || []).length === %zu"
	         " && document.querySelectorAll('" ENVELOPE " figure svg polygon.band').length === 1; })()",
	         json_array_size(json_object_get(bins, "t_s")) - 1);
	int drawn = cdp_wait(B, expr, PAGE_WAIT_S);
	if (!drawn)
		fprintf(stderr, "the envelope's band chart is not drawn from its %zu bins\n",
		        json_array_size(json_object_get(bins, "t_s")));
	CHECK(drawn);
	check_no_null(ENVELOPE);
	json_decref(a);
}

static void
check_budget(void)
{
	const char *inputs[] = { "p--v1-plan-budget-horizon_s", "60", "p--v1-plan-budget-budget_w", "5000",
		                 "p--v1-plan-budget-max_fleet", "50", NULL };
	json_t *a = compute(BUDGET, "/v1/plan/budget", inputs, "tr[data-key=\"plan.fleet_size\"]");
	json_t *plan = json_object_get(a, "plan");
	char *n = page_text_of(B, BUDGET " tr[data-key=\"plan.fleet_size\"] td");
	CHECK_INT(atoi(n), (int)json_integer_value(json_object_get(plan, "fleet_size")));
	free(n);
	/* The statistic's name and its value in W are two rows of two names,
	 * the value's interval in W too. */
	check_row(BUDGET, "plan.stat_w", "Plan: the statistic at the fleet size", "W",
	          json_number_value(json_object_get(plan, "stat_w")));
	check_row(BUDGET, "plan.stat_interval_95.lo", "Plan: the statistic’s 95 % predictive interval, low end", "W",
	          json_number_value(json_object_get(json_object_get(plan, "stat_interval_95"), "lo")));
	check_no_null(BUDGET);
	json_decref(a);
}

/* Sets the panel's input `id` to `value`, clicks its Compute and waits for
 * a message under the field `field`; then that field's message. */
static char *
refused(const char *section, const char *id, const char *value, const char *field)
{
	char expr[512];
	snprintf(expr, sizeof expr, "(() => { document.getElementById('%s').value = '%s';"
	         " document.querySelector('%s button[type=submit]').click(); return true; })()", id, value, section);
	page_eval_ok(B, expr);
	snprintf(expr, sizeof expr, "(document.querySelector('%s .field[data-field=\"%s\"] .field-error') || {}).textContent",
	         section, field);
	int shown = cdp_wait(B, expr, PAGE_WAIT_S);
	if (!shown) {
		char *t = page_text_of(B, section);
		fprintf(stderr, "%s: no message under %s; the panel says: %s\n", section, field, t);
		free(t);
	}
	CHECK(shown);
	/* marked and focused, as the form's controls are */
	snprintf(expr, sizeof expr, "document.getElementById('%s').getAttribute('aria-invalid') === 'true'"
	         " && document.activeElement === document.getElementById('%s')", id, id);
	CHECK(page_truth(B, expr));
	char sel[256];
	snprintf(sel, sizeof sel, "%s .field[data-field=\"%s\"] .field-error", section, field);
	return page_text_of(B, sel);
}

/* A refused panel request leaves no answer of the one before on screen,
 * and its message sits under the control it names, with what was typed. */
static void
check_panel_refusals(void)
{
	char *m = refused(BUDGET, "p--v1-plan-budget-budget_w", "-5", "budget_w");
	CHECK_CONTAINS(m, "budget_w:");
	free(m);
	CHECK(page_truth(B, "document.querySelector('" BUDGET " tr[data-key]') === null"));
	/* an empty arrival rate is not "got 0" */
	m = refused(ENVELOPE, "p--v1-forecast-envelope-workload-rate", "", "workload/rate");
	CHECK_CONTAINS(m, "workload/rate");
	CHECK(strstr(m, "got 0") == NULL);
	free(m);
	CHECK(page_truth(B, "document.querySelector('" ENVELOPE " tr[data-key]') === null"));
	/* a fleet of 0 is the API's to refuse, not one server answered */
	page_eval_ok(B, "document.getElementById('p--v1-forecast-envelope-workload-rate').value = '4'");
	m = refused(ENVELOPE, "p--v1-forecast-envelope-fleet-size", "0", "fleet/size");
	CHECK_CONTAINS(m, "fleet/size: must be between 1");
	free(m);
	page_eval_ok(B, "document.getElementById('p--v1-forecast-envelope-fleet-size').value = '1'");
}

/* The echoed inputs carry their units (watts per GPU, requests/s), and
 * the calibration view's legend explains a `bound` source (the measured
 * profile's S of H100) in docs/formats/params-file.md's words. */
static void
check_units_and_legend(void)
{
	char *idle = page_text_of(B, ENVELOPE " details.echo tr[data-key=\"idle_w_per_gpu\"]");
	CHECK_CONTAINS(idle, "W per GPU");
	CHECK(strstr(idle, "Idle w") == NULL);
	free(idle);
	char *rate = page_text_of(B, ENVELOPE " details.echo tr[data-key=\"rate\"] td");
	CHECK_CONTAINS(rate, "requests/s");
	free(rate);
	char *legend = page_text_of(B, "#calibration dl.sources");
	CHECK_CONTAINS(legend, "bound");
	CHECK_CONTAINS(legend, "holds the parameter there");
	free(legend);
	CHECK(page_truth(B, "[...document.querySelectorAll('#calibration dl.sources dd')].every((d) => d.textContent !== '')"));
}

/* A configuration the server refuses clears the panels that answered the
 * one before (docs/planner.md). */
static void
check_form_refusal(void)
{
	CHECK(page_truth(B, "document.querySelector('" FLEX " svg circle.step') !== null"));
	page_eval_ok(B, "(() => { document.getElementById('f-tp').value = '0'; document.getElementById('predict').click(); return true; })()");
	CHECK(page_wait_runs(B, 2));
	CHECK(page_truth(B, "document.querySelector('" FLEX " svg circle.step') === null"
	            " && document.querySelector('" FLEX " table.flex-steps') === null"));
}

static void
check_flexibility(void)
{
	const char *inputs[] = { "p--v1-predict-flexibility-steps", "6", NULL };
	json_t *a = compute(FLEX, "/v1/predict/flexibility", inputs, "figure svg circle.step");
	json_t *steps = json_object_get(a, "steps");
	size_t n = json_array_size(steps);
	CHECK_INT((int)n, 6);
	char expr[512];
	/* One point per step, at the API's clocks in its order. */
	json_t *clocks = cdp_eval(B, "[...document.querySelectorAll('" FLEX " svg circle.step')].map((c) => Number(c.dataset.clock))");
	CHECK_INT((int)json_array_size(clocks), (int)n);
	for (size_t i = 0; i < n && i < json_array_size(clocks); i++)
		CHECK_NEAR(json_number_value(json_array_get(clocks, i)),
		           json_number_value(json_object_get(json_array_get(steps, i), "sm_clock_mhz")), 1e-6);
	json_decref(clocks);
	CHECK(page_truth(B, "document.querySelector('" FLEX " svg polyline.line') !== null"));
	/* The knee: one marked point, at the API's knee clock, and labelled. */
	CHECK_INT(count("document.querySelectorAll('" FLEX " svg circle.knee').length"), 1);
	snprintf(expr, sizeof expr,
	         "Math.abs(Number(document.querySelector('" FLEX " svg circle.knee').dataset.clock) - %.10g) < 1e-6",
	         json_number_value(json_object_get(a, "knee_clock_mhz")));
	CHECK(page_truth(B, expr));
	char *kl = page_text_of(B, FLEX " svg .knee-label");
	CHECK_CONTAINS(kl, "knee");
	free(kl);
	snprintf(expr, sizeof expr,
	         "Math.abs(Number(document.querySelector('" FLEX " svg circle.optimum').dataset.clock) - %.10g) < 1e-6",
	         json_number_value(json_object_get(a, "energy_optimal_clock_mhz")));
	CHECK(page_truth(B, expr));
	/* The table: a row per step, with the API's numbers and units. */
	CHECK_INT(count("document.querySelectorAll('" FLEX " table.flex-steps tbody tr').length"), (int)n);
	for (size_t i = 0; i < n; i++) {
		json_t *s = json_array_get(steps, i);
		char sel[256];
		snprintf(sel, sizeof sel, FLEX " table.flex-steps tbody tr:nth-child(%zu) td[data-key=node_power_w]", i + 1);
		char *td = page_text_of(B, sel);
		CHECK(strstr(td, " W") != NULL);
		page_check_shown(td, 0, json_number_value(json_object_get(s, "node_power_w")), "step node power");
		free(td);
		snprintf(sel, sizeof sel, FLEX " table.flex-steps tbody tr:nth-child(%zu) td[data-key=throughput_tok_s]", i + 1);
		td = page_text_of(B, sel);
		CHECK(strstr(td, " tokens/s") != NULL);
		page_check_shown(td, 0, json_number_value(json_object_get(s, "throughput_tok_s")), "step throughput");
		free(td);
		/* latency's interval in brackets, as the others' (it had none) */
		snprintf(sel, sizeof sel, FLEX " table.flex-steps tbody tr:nth-child(%zu) td[data-key=latency_s]", i + 1);
		td = page_text_of(B, sel);
		CHECK(strstr(td, " s [") != NULL);
		free(td);
	}
	snprintf(expr, sizeof expr, "document.querySelectorAll('" FLEX " ul.warnings li').length === %zu",
	         json_array_size(json_object_get(a, "warnings")));
	CHECK(page_truth(B, expr));
	check_no_null(FLEX);
	json_decref(a);
}

/* The configuration's fields a route does not take are named under its
 * panel, and the sweep is not sent the price or CO₂ it answers nothing
 * for (so no "ignored" warning about a box the panel does not show). */
static void
check_config_fields(void)
{
	char link[320];
	snprintf(link, sizeof link,
	         "http://127.0.0.1:%d/?profile=measured&platform=A100&model=Qwen3-8B&tp=1&concurrency=32"
	         "&input_tokens=1024&output_tokens=128&power_cap_w=300&gpu_memory_utilization=0.8"
	         "&price_per_kwh=0.3&grams_co2_per_kwh=400", S.port);
	CHECK_INT(cdp_navigate(B, link), 0);
	CHECK(page_wait_runs(B, 1));
	page_eval_ok(B, "(() => { window.sent = []; const f = window.fetch;"
	                " window.fetch = (u, i) => { window.sent.push([u, i && i.body]); return f(u, i); }; return true; })()");
	const char *inputs[] = { "p--v1-predict-flexibility-steps", "4", NULL };
	json_t *a = compute(FLEX, "/v1/predict/flexibility", inputs, "figure svg circle.step");
	CHECK(page_truth(B, "(() => { const b = JSON.parse(window.sent.filter(([u]) => u === '/v1/predict/flexibility').pop()[1]);"
	            " return b.price_per_kwh === undefined && b.grams_co2_per_kwh === undefined"
	            " && b.gpu_memory_utilization === 0.8; })()"));
	CHECK(page_truth(B, "!/ignored/.test(document.querySelector('" FLEX " ul.warnings') ? "
	            "document.querySelector('" FLEX " ul.warnings').textContent : '')"));
	json_decref(a);
	char *note = page_text_of(B, ENVELOPE " p.unused");
	CHECK_CONTAINS(note, "Power cap");
	CHECK_CONTAINS(note, "memory");
	CHECK(strstr(note, "price") == NULL && strstr(note, "tokens") == NULL);
	free(note);
	note = page_text_of(B, BUDGET " p.unused");
	CHECK_CONTAINS(note, "Power cap");
	free(note);
	note = page_text_of(B, FLEX " p.unused");
	CHECK_CONTAINS(note, "Power cap");
	CHECK(strstr(note, "memory") == NULL);
	free(note);
	/* an "Other" model: its architecture is named as not used by the
	 * envelope (the routes take none), not dropped without a word */
	snprintf(link, sizeof link,
	         "http://127.0.0.1:%d/?profile=measured&platform=H100&active_params_b=9&architecture.layers=32"
	         "&architecture.kv_heads=8&architecture.head_dim=128&concurrency=16", S.port);
	CHECK_INT(cdp_navigate(B, link), 0);
	CHECK(page_wait_runs(B, 1));
	note = page_text_of(B, ENVELOPE " p.unused");
	CHECK_CONTAINS(note, "Architecture");
	free(note);
}

/* A null interval shows the API's own reason, once: an n(t) of zeros
 * (nothing runs, whatever the arrivals' rules) keeps it null, so the
 * page's body is sent with that workload (docs/http-api.md, "Envelopes"). */
static void
check_null_interval(void)
{
	page_eval_ok(B, "(() => { if (!window.sent) { window.sent = []; const f = window.fetch;"
	                " window.fetch = (u, i) => { window.sent.push([u, i && i.body]); return f(u, i); }; }"
	                " const g = window.fetch; window.fetch = (u, i) => { if (u === '/v1/forecast/envelope') {"
	                " const b = JSON.parse(i.body); b.workload = { type: 'n_series', running_series: [0, 0, 0, 0] };"
	                " delete b.max_running; delete b.fleet; i = Object.assign({}, i, { body: JSON.stringify(b) }); }"
	                " return g(u, i); }; return true; })()");
	const char *inputs[] = { "p--v1-forecast-envelope-horizon_s", "30", NULL };
	json_t *a = compute(ENVELOPE, "/v1/forecast/envelope", inputs, "p.predictive");
	CHECK(json_is_null(json_object_get(json_object_get(a, "server"), "interval_95")));
	const char *reason = NULL;
	json_t *w;
	size_t i;
	json_array_foreach (json_object_get(a, "warnings"), i, w)
		if (strncmp(json_string_value(w), "interval_95: none: ", 19) == 0)
			reason = json_string_value(w) + 13;
	CHECK(reason != NULL);
	char *shown = page_text_of(B, ENVELOPE " p.predictive");
	if (reason)
		CHECK_CONTAINS(shown, reason);
	CHECK(strstr(shown, "no held-out error of mean power for this platform") == NULL);
	free(shown);
	/* once: not again among the warnings */
	char *all = page_text_of(B, ENVELOPE);
	const char *at = reason ? strstr(all, reason) : NULL;
	CHECK(at != NULL && strstr(at + 1, reason) == NULL);
	free(all);
	json_decref(a);
	/* a fresh page, without the rewriting fetch */
	char link[256];
	snprintf(link, sizeof link,
	         MEASURED_LINK, S.port);
	CHECK_INT(cdp_navigate(B, link), 0);
	CHECK(page_wait_runs(B, 1));
}

/* The unconstrained point's running count has predict inference's
 * interval and what it covers, shown in the panel (it had neither: an
 * empty "what it covers" cell beside "none"). */
static void
check_flexibility_running(void)
{
	char link[320];
	snprintf(link, sizeof link, "http://127.0.0.1:%d/?profile=measured&platform=H100&model=Qwen3-8B&rate=20"
	         "&input_tokens=512&output_tokens=256", S.port);
	CHECK_INT(cdp_navigate(B, link), 0);
	CHECK(page_wait_runs(B, 1));
	const char *inputs[] = { "p--v1-predict-flexibility-sweep", "power_cap", "p--v1-predict-flexibility-steps", "4",
		                 NULL };
	json_t *a = compute(FLEX, "/v1/predict/flexibility", inputs, "table.flex-free");
	json_t *p = page_api_post(H, url("/v1/predict/inference"), "{\"profile\":\"measured\",\"platform\":\"H100\","
	                          "\"model\":\"Qwen3-8B\",\"rate\":20,\"input_tokens\":512,\"output_tokens\":256}");
	const json_t *piv = json_object_get(json_object_get(p, "capacity"), "interval_95");
	const json_t *fiv = json_object_get(a, "interval_95");
	const char *want = json_string_value(json_object_get(json_object_get(piv, "covers_by_quantity"), "mean_running"));
	const char *got = json_string_value(json_object_get(json_object_get(fiv, "covers_by_quantity"), "mean_running"));
	CHECK(want && got && strcmp(want, got) == 0);
	const json_t *pr = json_object_get(piv, "mean_running"), *fr = json_object_get(fiv, "mean_running");
	CHECK(json_array_size(pr) == 2 && json_array_size(fr) == 2);
	for (size_t k = 0; k < 2 && json_array_size(pr) == 2 && json_array_size(fr) == 2; k++)
		CHECK_NEAR(json_number_value(json_array_get(fr, k)), json_number_value(json_array_get(pr, k)),
		           1e-9 * json_number_value(json_array_get(pr, k)));
	char *cell = page_text_of(B, FLEX " table.flex-free tr[data-key=\"unconstrained.mean_running\"] td.covers");
	CHECK(want && strcmp(cell, want) == 0);
	fprintf(stderr, "flexibility mean_running covers: \"%s\" (predict: \"%s\")\n", cell, want ? want : "(none)");
	free(cell);
	json_decref(p);
	json_decref(a);
	snprintf(link, sizeof link, MEASURED_LINK, S.port);
	CHECK_INT(cdp_navigate(B, link), 0);
	CHECK(page_wait_runs(B, 1));
}

/* A seed past 2^53 is sent as the digits typed (a double would round it);
 * an exponent past 2^53 is refused under the Seed box, not rounded. */
static void
check_seed(void)
{
	static const char *const seeds[] = { "9223372036854775807", "9007199254740993" };
	for (size_t k = 0; k < 2; k++) {
		const char *inputs[] = { "p--v1-forecast-envelope-horizon_s", "20", "p--v1-forecast-envelope-seed", seeds[k], NULL };
		json_t *a = compute(ENVELOPE, "/v1/forecast/envelope", inputs, "tr[data-key=\"server.summary.mean_w\"]");
		char expr[256], want[64];
		snprintf(expr, sizeof expr, "(window.sent.filter(([u]) => u === '/v1/forecast/envelope').pop() || [])[1] || ''");
		char *body = cdp_eval_str(B, expr);
		snprintf(want, sizeof want, "\"seed\":%s", seeds[k]);
		CHECK_CONTAINS(body, want);
		free(body);
		CHECK(json_object_get(a, "error") == NULL);
		json_decref(a);
	}
	char *m = refused(ENVELOPE, "p--v1-forecast-envelope-seed", "9.007199254740993e15", "seed");
	CHECK_CONTAINS(m, "seed: 9.007199254740993e15");
	free(m);
	page_eval_ok(B, "document.getElementById('p--v1-forecast-envelope-seed').value = '1'");
}

int
main(void)
{
	if (page_session_open_measured(&S, "browser_panels") == TEST_SKIP)
		return TEST_SKIP;
	B = S.b;
	H = S.h;
	if (B) {
		char link[256];
		http_set_base(S.port);
		snprintf(link, sizeof link,
		         MEASURED_LINK, S.port);
		CHECK_INT(cdp_navigate(B, link), 0);
		CHECK(page_wait_runs(B, 1));
		/* The form has one "Load" heading (the radio pair's is for screen readers). */
		CHECK(page_truth(B, "[...document.querySelectorAll('#fields legend')].filter((l) => l.textContent === 'Load'"
		            " && l.getBoundingClientRect().height > 2).length === 1"));
		check_envelope();
		check_units_and_legend();
		check_null_interval();
		check_seed();
		check_budget();
		check_flexibility();
		check_panel_refusals();
		check_form_refusal();
		check_config_fields();
		check_flexibility_running();
		CHECK_INT(cdp_page_errors(B), 0);
	}
	page_session_close(&S);
	return check_report("test_browser_panels");
}
