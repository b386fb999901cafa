/*
 * The planner page (docs/planner.md) in headless Chromium, against a real
 * `wattcast serve` on port 0 serving a fitted parameter set with bootstrap
 * draws. Every number the page shows is compared with the API's own
 * answer to the digits the page prints, so a page that shows a wrong
 * number fails. Checked: the form filled by keyboard (H200 / Qwen3-8B /
 * TP 1 / n = 32, Enter submits), the node power and its interval, an
 * invalid TP refused next to its field, extrapolation warnings next to
 * the inputs they concern, a shared URL restoring the comparison, the
 * calibration view, a phone viewport without horizontal scrolling and
 * with the answer on its first screen, the capacity answers (latency,
 * energy per output token, throughput) in every plot and comparison
 * column, and the envelope panel's controls: changing its arrival rate
 * changes its answer. Everything runs against the real server.
 *
 * Skipped (exit 77) when Chromium is not installed (Debian: chromium).
 */
#include "tests/browser/cdp.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

#include <ctype.h>
#include <math.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#define WAIT_S 30.0

static cdp *B;
static CURL *H;

/* ------------------------------------------------------------ server */

static pid_t server_pid = -1;

/* `wattcast serve --params PATH --listen 127.0.0.1:0`; the port from the
 * first line of its stdout, or 0. */
static int
start_server(const char *params_path, const char *log_path)
{
	int po[2];
	char line[512];
	int port = 0;
	if (pipe(po) != 0)
		return 0;
	server_pid = fork();
	if (server_pid == 0) {
		FILE *log = fopen(log_path, "w");
		dup2(po[1], 1);
		if (log)
			dup2(fileno(log), 2);
		close(po[0]);
		close(po[1]);
		const char *bin = test_env("WATTCAST_BIN", "wattcast");
		execl(bin, bin, "serve", "--params", params_path, "--listen", "127.0.0.1:0", "--threads",
		      "8", (char *)NULL);
		_exit(127);
	}
	close(po[1]);
	FILE *out = fdopen(po[0], "r");
	const char *at;
	if (out && fgets(line, sizeof line, out) && (at = strstr(line, "127.0.0.1:")))
		sscanf(at, "127.0.0.1:%d", &port);
	/* The rest of stdout is not read; the pipe stays open until exit. */
	return port;
}

static void
stop_server(void)
{
	int status;
	if (server_pid <= 0)
		return;
	kill(server_pid, SIGTERM);
	waitpid(server_pid, &status, 0);
	server_pid = -1;
}

/* The API's answer to a POST (new reference), straight through libcurl. */
static json_t *
api_post(const char *path, const char *body)
{
	http_reply r;
	http_post_json(H, url(path), body, &r);
	json_t *j = r.json ? json_incref(r.json) : NULL;
	http_reply_free(&r);
	return j;
}

/* ---------------------------------------------------- shown numbers */

/* Up to `max` numbers in `text` with the count of digits after their
 * point and of significant digits. */
static int
numbers_in(const char *text, double *v, int *decimals, int *sig, int max)
{
	int n = 0;
	for (const char *p = text; *p && n < max;) {
		if (!(isdigit((unsigned char)*p) || (*p == '-' && isdigit((unsigned char)p[1])))) {
			p++;
			continue;
		}
		char *end;
		v[n] = strtod(p, &end);
		const char *dot = memchr(p, '.', (size_t)(end - p));
		decimals[n] = dot ? (int)(end - dot - 1) : 0;
		sig[n] = 0;
		int leading = 1;
		for (const char *q = p; q < end; q++) {
			if (!isdigit((unsigned char)*q))
				continue;
			if (*q != '0')
				leading = 0;
			sig[n] += !leading;
		}
		n++;
		p = end;
	}
	return n;
}

/* The k-th number in `text` equals `want` to the digits shown (within
 * half a unit of its last digit) and shows at least three significant
 * digits, so neither a wrong number nor a coarse one passes. */
static void
check_shown(const char *text, int k, double want, const char *what)
{
	double v[8];
	int dec[8], sig[8];
	int n = numbers_in(text, v, dec, sig, 8);
	int ok = k < n && fabs(v[k] - want) <= 0.5 * pow(10, -dec[k]) * (1 + 1e-9) && sig[k] >= 3;
	if (!ok)
		fprintf(stderr, "%s: the page shows \"%s\", the API says %.10g\n", what, text, want);
	CHECK(ok);
}

static char *
text_of(const char *selector)
{
	char expr[512];
	snprintf(expr, sizeof expr, "(document.querySelector(%s) || {}).textContent || ''", selector);
	return cdp_eval_str(B, expr);
}

static int
runs_done(void)
{
	json_t *v = cdp_eval(B, "Number(document.getElementById('status').dataset.runs)");
	int n = (int)json_number_value(v);
	json_decref(v);
	return n;
}

/* Wait for the page to finish computation number `n`. */
static int
wait_runs(int n)
{
	char expr[256];
	snprintf(expr, sizeof expr,
	         "Number(document.getElementById('status').dataset.runs) >= %d && "
	         "document.getElementById('status').dataset.state !== 'busy'", n);
	return cdp_wait(B, expr, WAIT_S);
}

static void
eval_ok(const char *expr)
{
	json_t *v = cdp_eval(B, expr);
	CHECK(v != NULL);
	json_decref(v);
}

/* Focus a field, replace its text by keyboard. */
static void
type_into(const char *id, const char *text)
{
	char expr[256];
	snprintf(expr, sizeof expr, "(() => { const e = document.getElementById('%s'); e.focus(); e.select(); return 1; })()", id);
	eval_ok(expr);
	cdp_type(B, text);
}

static void
choose(const char *id, const char *value)
{
	char expr[512];
	snprintf(expr, sizeof expr,
	         "(() => { const e = document.getElementById('%s'); e.focus(); e.value = '%s';"
	         " e.dispatchEvent(new Event('change', { bubbles: true })); return e.value; })()",
	         id, value);
	char *got = cdp_eval_str(B, expr);
	CHECK(strcmp(got, value) == 0);
	free(got);
}

/* ----------------------------------------------------------- checks */

static void
check_page_loads(int port)
{
	char page[64];
	snprintf(page, sizeof page, "http://127.0.0.1:%d/", port);
	CHECK_INT(cdp_navigate(B, page), 0);
	CHECK(wait_runs(1));
	/* Every control has a label the accessibility tree can read. */
	json_t *v = cdp_eval(B, "[...document.querySelectorAll('#fields input:not([type=radio]), #fields select')]"
	                        ".filter(e => !(e.labels.length || e.getAttribute('aria-label'))).map(e => e.id)");
	CHECK(json_is_array(v) && json_array_size(v) == 0);
	json_decref(v);
	/* Tab goes platform -> model -> TP (the hidden active-parameters
	 * input is skipped while a catalog model is chosen). */
	eval_ok("document.getElementById('f-platform').focus()");
	cdp_key(B, "Tab");
	char *a = cdp_eval_str(B, "document.activeElement.id");
	cdp_key(B, "Tab");
	char *b = cdp_eval_str(B, "document.activeElement.id");
	CHECK(strcmp(a, "f-model") == 0);
	CHECK(strcmp(b, "f-tp") == 0);
	free(a);
	free(b);
}

/* H200 / Qwen3-8B / TP 1 / n = 32, typed and submitted with Enter. */
static void
check_prediction(void)
{
	int before = runs_done();
	choose("f-platform", "H200");
	choose("f-model", "Qwen3-8B");
	type_into("f-tp", "1");
	type_into("f-concurrency", "32");
	cdp_key(B, "Enter");
	CHECK(wait_runs(before + 1));

	json_t *api = api_post("/v1/predict/inference",
	                       "{\"platform\":\"H200\",\"tp\":1,\"model\":\"Qwen3-8B\",\"concurrency\":32}");
	const json_t *iv = json_object_get(json_object_get(api, "interval_95"), "node_power_w");
	CHECK(json_is_array(iv));
	char *power = text_of("'#node-power'");
	char *interval = text_of("'#node-power-interval'");
	char *per_gpu = text_of("'#answer-table tr[data-key=per_gpu_power_w] td'");
	check_shown(power, 0, json_number_value(json_object_get(api, "node_power_w")), "node power");
	CHECK_CONTAINS(power, " W");
	check_shown(interval, 1, json_number_value(json_array_get(iv, 0)), "interval low");
	check_shown(interval, 2, json_number_value(json_array_get(iv, 1)), "interval high");
	/* what the interval covers, as the API says it */
	const char *covers = json_string_value(json_object_get(json_object_get(api, "interval_95"), "covers"));
	CHECK(covers != NULL);
	char want[96];
	snprintf(want, sizeof want, "(covers %s;", covers ? covers : "?");
	CHECK_CONTAINS(interval, want);
	check_shown(per_gpu, 0, json_number_value(json_object_get(api, "per_gpu_power_w")), "per GPU");
	/* The URL now holds the configuration. */
	char *search = cdp_eval_str(B, "location.search");
	CHECK_CONTAINS(search, "platform=H200");
	CHECK_CONTAINS(search, "model=Qwen3-8B");
	CHECK_CONTAINS(search, "concurrency=32");
	free(search);
	free(power);
	free(interval);
	free(per_gpu);
	json_decref(api);
}

/* TP 0: the API's 422 message appears in the error slot of the TP field
 * (the one its aria-describedby names, in its own field box). */
static void
check_invalid_tp(void)
{
	int before = runs_done();
	type_into("f-tp", "0");
	cdp_key(B, "Enter");
	CHECK(wait_runs(before + 1));
	json_t *api = api_post("/v1/predict/inference",
	                       "{\"platform\":\"H200\",\"tp\":0,\"model\":\"Qwen3-8B\",\"concurrency\":32}");
	const char *want = json_string_value(json_object_get(json_object_get(api, "error"), "message"));
	CHECK_CONTAINS(want, "tp: ");
	char *shown = cdp_eval_str(B,
		"(() => { const i = document.getElementById('f-tp');"
		" const ids = i.getAttribute('aria-describedby').split(' ');"
		" const e = ids.map(id => document.getElementById(id)).find(x => x.classList.contains('field-error'));"
		" return e && e.closest('.field') === i.closest('.field') && e.getAttribute('aria-live') ? e.textContent : 'not next to the field'; })()");
	CHECK(want && strcmp(shown, want) == 0);
	if (!want || strcmp(shown, want) != 0)
		fprintf(stderr, "TP error shown: \"%s\", API: \"%s\"\n", shown, want ? want : "(none)");
	char *invalid = cdp_eval_str(B, "document.getElementById('f-tp').getAttribute('aria-invalid')");
	CHECK(strcmp(invalid, "true") == 0);
	char *focus = cdp_eval_str(B, "document.activeElement.id");
	CHECK(strcmp(focus, "f-tp") == 0);
	/* No number of the previous configuration stays on screen. */
	char *power = text_of("'#node-power'");
	CHECK(strcmp(power, "—") == 0);
	free(power);
	free(focus);
	free(invalid);
	free(shown);
	json_decref(api);
}

/* Outside the calibrated span: each warning sits under the control of the
 * field it starts with. */
static void
check_warnings(void)
{
	static const struct {
		const char *prefix, *field;
	} where[] = { { "tp:", "tp" }, { "active_params_b:", "model" }, { "running:", "concurrency" } };
	int before = runs_done();
	choose("f-model", "Llama-3.1-70B");
	type_into("f-tp", "8");
	type_into("f-concurrency", "512");
	cdp_key(B, "Enter");
	CHECK(wait_runs(before + 1));
	json_t *api = api_post("/v1/predict/inference", "{\"platform\":\"H200\",\"tp\":8,"
	                       "\"model\":\"Llama-3.1-70B\",\"concurrency\":512}");
	const json_t *list = json_object_get(api, "warnings"), *w;
	size_t i;
	int matched = 0;
	CHECK(json_array_size(list) >= 3);
	json_array_foreach(list, i, w) {
		const char *text = json_string_value(w);
		for (size_t k = 0; k < sizeof where / sizeof where[0]; k++) {
			if (strncmp(text, where[k].prefix, strlen(where[k].prefix)) != 0)
				continue;
			char expr[1024];
			json_t *quoted = json_string(text);
			char *q = json_dumps(quoted, JSON_ENCODE_ANY);
			snprintf(expr, sizeof expr,
			         "[...document.querySelectorAll('.field[data-field=%s] .warnings li')].some(li => li.textContent === %s)",
			         where[k].field, q);
			json_t *v = cdp_eval(B, expr);
			if (!json_is_true(v))
				fprintf(stderr, "warning \"%s\" is not under the %s control\n", text, where[k].field);
			CHECK(json_is_true(v));
			matched++;
			json_decref(v);
			free(q);
			json_decref(quoted);
		}
	}
	CHECK_INT(matched, 3);
	json_decref(api);
}

/* A shared link: the form, the comparison rows (each equal to the batch
 * API's number) and the curves come back; "Add to comparison" extends the
 * link, and the extended link restores four rows. */
static void
check_shared_url(int port)
{
	char link[512];
	snprintf(link, sizeof link,
	         "http://127.0.0.1:%d/?platform=H200&model=Qwen3-8B&tp=1&concurrency=32"
	         "&cmp=platform:H100;model:Qwen3-8B;tp:1&cmp=platform:A100;model:Qwen3-14B;tp:2",
	         port);
	CHECK_INT(cdp_navigate(B, link), 0);
	CHECK(wait_runs(1));
	char *form = cdp_eval_str(B, "['f-platform','f-model','f-tp','f-concurrency'].map(id => document.getElementById(id).value).join('|')");
	CHECK(strcmp(form, "H200|Qwen3-8B|1|32") == 0);
	json_t *batch = api_post("/v1/predict/batch",
		"[{\"platform\":\"H200\",\"model\":\"Qwen3-8B\",\"tp\":1,\"concurrency\":32},"
		"{\"platform\":\"H100\",\"model\":\"Qwen3-8B\",\"tp\":1,\"concurrency\":32},"
		"{\"platform\":\"A100\",\"model\":\"Qwen3-14B\",\"tp\":2,\"concurrency\":32}]");
	const json_t *results = json_object_get(batch, "results");
	static const char *const rows[] = { "chosen", "#1", "#2" };
	for (size_t i = 0; i < 3; i++) {
		char sel[128], what[64];
		snprintf(sel, sizeof sel, "'#compare-table tr[data-row=\"%s\"] td[data-key=node_power_w]'", rows[i]);
		char *cell = text_of(sel);
		snprintf(what, sizeof what, "comparison row %s", rows[i]);
		check_shown(cell, 0, json_number_value(json_object_get(json_array_get(results, i), "node_power_w")), what);
		free(cell);
	}
	char *configs = cdp_eval_str(B, "[...document.querySelectorAll('#compare-table td.config')].map(e => e.textContent).join('|')");
	CHECK(strcmp(configs, "H200 · Qwen3-8B · TP 1|H100 · Qwen3-8B · TP 1|A100 · Qwen3-14B · TP 2") == 0);
	if (strcmp(configs, "H200 · Qwen3-8B · TP 1|H100 · Qwen3-8B · TP 1|A100 · Qwen3-14B · TP 2") != 0)
		fprintf(stderr, "comparison shown: %s\n", configs);
	/* One curve and one interval band per configuration. */
	json_t *n = cdp_eval(B, "[document.querySelectorAll('#plot-node_power_w path.line').length,"
	                        " document.querySelectorAll('#plot-node_power_w polygon.band').length]");
	CHECK_INT(json_integer_value(json_array_get(n, 0)), 3);
	CHECK_INT(json_integer_value(json_array_get(n, 1)), 3);
	json_decref(n);

	/* Pin a fourth configuration, then open the page's own link. */
	choose("f-platform", "H100");
	type_into("f-tp", "2");
	int before = runs_done();
	eval_ok("document.getElementById('add-compare').click()");
	CHECK(wait_runs(before + 1));
	char *shared = cdp_eval_str(B, "document.getElementById('share-link').value");
	CHECK_CONTAINS(shared, "cmp=platform:H100;model:Qwen3-8B;tp:2");
	CHECK_INT(cdp_navigate(B, shared), 0);
	CHECK(wait_runs(1));
	json_t *count = cdp_eval(B, "document.querySelectorAll('#compare-table tbody tr').length");
	CHECK_INT(json_integer_value(count), 4);
	json_decref(count);
	free(shared);
	free(configs);
	free(form);
	json_decref(batch);
}

/* The calibration view lists every level of GET /v1/params with its
 * parameters' sources. */
static void
check_calibration(void)
{
	http_reply r;
	http_get(H, url("/v1/params"), &r);
	const json_t *levels = json_object_get(json_object_get(r.json, "params"), "levels"), *l;
	size_t i;
	json_array_foreach(levels, i, l) {
		char sel[160];
		snprintf(sel, sizeof sel, "'#cal-levels tr[data-level=\"%s\"] td'",
		         json_string_value(json_object_get(l, "name")));
		char *p0 = text_of(sel);
		check_shown(p0, 0, json_number_value(json_object_get(json_object_get(l, "p0_w"), "value")), "P0");
		CHECK_CONTAINS(p0, json_string_value(json_object_get(json_object_get(l, "p0_w"), "source")));
		free(p0);
	}
	CHECK(json_array_size(levels) >= 3);
	char *facts = text_of("'#calibration dl.facts'");
	CHECK_CONTAINS(facts, json_string_value(json_object_get(r.json, "params_version")));
	free(facts);
	http_reply_free(&r);
}

/* A 390 x 844 phone: nothing wider than the screen. */
static void
check_phone(void)
{
	CHECK_INT(cdp_viewport(B, 390, 844, 1), 0);
	CHECK(cdp_wait(B, "document.documentElement.scrollWidth <= 391", WAIT_S));
	CHECK_INT(cdp_viewport(B, 1280, 800, 0), 0);
}

/* The real envelope endpoint: its panel computes from the configuration
 * above and draws the band of the answer's per-bin columns (server.bins). */
static void
check_real_envelope(void)
{
	const char *section = "section[data-path=\"/v1/forecast/envelope\"]";
	char expr[256];
	snprintf(expr, sizeof expr, "document.querySelector('%s button[type=submit]') !== null", section);
	CHECK(cdp_wait(B, expr, WAIT_S));
	snprintf(expr, sizeof expr, "document.querySelector('%s button[type=submit]').click()", section);
	eval_ok(expr);
	snprintf(expr, sizeof expr,
	         "document.querySelectorAll('%s polygon.band').length === 1", section);
	CHECK(cdp_wait(B, expr, WAIT_S));
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
	CHECK(wait_runs(1));
	for (size_t i = 0; i < sizeof capacity_checks / sizeof capacity_checks[0]; i++) {
		int ok = cdp_wait(B, capacity_checks[i].expr, WAIT_S);
		if (!ok)
			fprintf(stderr, "capacity fields: %s is missing\n", capacity_checks[i].what);
		CHECK(ok);
	}
	/* The page's latency and energy per token are the API's. */
	json_t *a = api_post("/v1/predict/inference",
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
	eval_ok(expr);
	snprintf(expr, sizeof expr, "document.querySelector('%s tr[data-key=\"server.summary.mean_w.value\"]') !== null", section);
	CHECK(cdp_wait(B, expr, WAIT_S));
	snprintf(expr, sizeof expr,
	         "parseFloat(document.querySelector('%s tr[data-key=\"server.summary.mean_w.value\"] td').textContent)", section);
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
	CHECK(cdp_wait(B, expr, WAIT_S));
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
	CHECK(cdp_wait(B, "document.getElementById('node-power').getBoundingClientRect().top < 844", WAIT_S));
	CHECK_INT(cdp_viewport(B, 1280, 800, 0), 0);
}

int
main(void)
{
	const char *chromium = cdp_chromium_path();
	if (!chromium) {
		printf("SKIP: no Chromium (install Debian's chromium, or set WC_CHROMIUM to its binary)\n");
		return TEST_SKIP;
	}
	char *dir = test_tmpdir("browser_page");
	char *params = path_join(dir, "params.json");
	char *profile = path_join(dir, "profile");
	char *log = path_join(dir, "serve.log");
	const char *fit[] = { "wattcast", "fit", "inference", NULL, "-o", params, "--bootstrap", "100",
		              "--seed", "42", NULL };
	char *table = path_join(test_env("WC_SOURCE_DIR", "."), "data/default/paper-design-seed42.csv");
	run_result rr;
	fit[3] = table;
	CHECK(run_wattcast(fit, NULL, &rr) == 0 && rr.status == 0);
	run_result_free(&rr);
	mkdir(profile, 0700);

	curl_global_init(CURL_GLOBAL_DEFAULT);
	H = curl_easy_init();
	int port = start_server(params, log);
	CHECK(port > 0);
	if (port > 0 && (B = cdp_launch(chromium, profile, 1280, 800)) != NULL) {
		http_set_base(port);
		check_page_loads(port);
		check_prediction();
		check_invalid_tp();
		check_warnings();
		check_shared_url(port);
		check_calibration();
		check_phone();
		check_real_envelope();
		check_capacity_fields(port);
		check_envelope_controls();
		check_phone_answer_first();
		CHECK_INT(cdp_page_errors(B), 0);
		cdp_close(B);
	} else {
		CHECK(!"Chromium did not start");
	}
	stop_server();
	curl_easy_cleanup(H);
	curl_global_cleanup();
	free(table);
	free(log);
	free(profile);
	free(params);
	free(dir);
	return check_report("test_browser_page");
}
