/*
 * What the planner page shows is of one configuration, said so
 * (docs/planner.md, "What the page asks and shows", "Shareable state"), in
 * headless Chromium against a real `wattcast serve` serving the fitted set
 * of tests/browser/page_session.h and the built-in profile `measured`:
 *   - a refused request's link is the configuration shown: a value a
 *     number box cannot hold (tp=8x) is kept in it, and a refused TP typed
 *     after a computed one replaces the earlier link and address;
 *   - a quantity the API gives no interval for shows "none" and the API's
 *     reason (`covers_by_quantity`), not empty cells;
 *   - an input changed after an answer marks the answer stale (a Load of a
 *     compared row, another platform, the other kind of load) until Enter
 *     or Predict computes, and going back to the inputs answered clears it;
 *   - a link's model=Other with active_params_b and architecture.* is the
 *     form's own "Other" (no model key sent, the values kept), answered
 *     as the page's own link is, not refused as an unknown model; "Other"
 *     with its box empty is refused and its link keeps model=Other, so
 *     reopened it is refused again, not answered as the default model;
 *   - a platform or model named in another letter case (h100, qwen3-8b)
 *     selects the catalog's option, with its facts, not a bare extra one;
 *   - a link keeps the token lengths and the running count the user
 *     emptied ("input_tokens=" and so on): reopened, the boxes are empty
 *     and the request is the one the link was made from, not the page's
 *     512 + 256 (docs/planner.md, "Shareable state");
 *   - the plots of n = 1e6 end at the API's limit on n (the grid went to
 *     2^20, refused: "1048576 | undefined" and "Computed"), their x
 *     labels do not overlap, and a curve point the batch refuses is said
 *     in the status and the plots and shown "refused" in the data table;
 *   - the calibration view names an array's element by its `name`
 *     (levels[H200].eta), as the API's warnings do, not by its index.
 *   - an open loop with no arrival rate is refused under Arrival rate,
 *     not under the engine limit ("empty = no limit");
 *   - an open loop with a limit and no arrival rate is refused on the
 *     page, unsent, not answered as a closed loop at the limit;
 *   - an edit made while a refused request is in flight leaves the
 *     refusal's status and no stale note;
 *   - an input changed after a refusal says to press Predict, keeps the
 *     refusal, and calls nothing "the earlier inputs" (none are shown);
 *   - a 390 px desktop window with a scrollbar that takes width does not
 *     scroll sideways (the "Shared by every platform" table did by 4 px).
 *
 * Skipped (exit 77) when Chromium is not installed (Debian: chromium).
 */
#include "tests/browser/cdp.h"
#include "tests/browser/page_session.h"
#include "tests/support/support.h"

#include <string.h>
#include <sys/stat.h>

static page_session S;
static cdp *B;

static void
open_link(const char *query, int runs)
{
	char link[512];
	snprintf(link, sizeof link, "http://127.0.0.1:%d/?profile=measured&%s", S.port, query);
	CHECK_INT(cdp_navigate(B, link), 0);
	CHECK(page_wait_runs(B, runs));
}

static void
check_refused_link(void)
{
	open_link("platform=H100&model=Qwen3-8B&tp=8x&concurrency=32", 1);
	CHECK(page_truth(B, "document.getElementById('f-tp-error').textContent.startsWith('tp')"));
	CHECK(page_truth(B, "/[?&]tp=8x(&|$)/.test(document.getElementById('share-link').value)"
	            " && /[?&]tp=8x(&|$)/.test(location.search)"));
	open_link("platform=H100&model=Qwen3-8B&tp=1&concurrency=32", 1);
	/* TP 1 is the API's default, which a link leaves out */
	CHECK(page_truth(B, "!/[?&]tp=/.test(document.getElementById('share-link').value) && !/[?&]tp=/.test(location.search)"));
	page_eval_ok(B, "(() => { const e = document.getElementById('f-tp'); e.focus(); e.select(); return 1; })()");
	cdp_type(B, "0");
	cdp_key(B, "Enter");
	CHECK(page_wait_runs(B, 2));
	CHECK(page_truth(B, "document.getElementById('f-tp-error').textContent.includes('got 0')"));
	CHECK(page_truth(B, "/[?&]tp=0(&|$)/.test(document.getElementById('share-link').value)"
	            " && /[?&]tp=0(&|$)/.test(location.search)"));
}

#define OTHER_ARCH "active_params_b=8&architecture.layers=36&architecture.kv_heads=8&architecture.head_dim=128" \
	"&architecture.d_model=4096"

static void
check_other_link(void)
{
	open_link("platform=H100&" OTHER_ARCH "&concurrency=32", 1);
	json_t *own = cdp_eval(B, "document.getElementById('node-power').textContent");
	open_link("platform=H100&model=Other&" OTHER_ARCH "&concurrency=32"
	          "&cmp=platform:A100;model:Other;active_params_b:8;architecture.layers:36;architecture.kv_heads:8;"
	          "architecture.head_dim:128;architecture.d_model:4096",
	          1);
	CHECK(page_truth(B, "document.getElementById('f-model').value === ''"
	            " && document.getElementById('f-active_params_b').value === '8'"));
	CHECK(page_truth(B, "(() => { const r = formRequest(), a = r.architecture || {};"
	            " return r.model === undefined && r.active_params_b === 8 && a.layers === 36 && a.kv_heads === 8"
	            "  && a.head_dim === 128; })()"));
	CHECK(page_truth(B, "document.getElementById('status').dataset.state === 'done'"));
	CHECK(page_truth(B, "S.compare.length === 1 && S.compare[0].model === undefined && S.compare[0].active_params_b === 8"));
	CHECK(page_truth(B, "!/[?&]model=/.test(location.search) && /[?&]active_params_b=8(&|$)/.test(location.search)"
	            " && /[?&]architecture\\.layers=36(&|$)/.test(location.search)"));
	json_t *other = cdp_eval(B, "document.getElementById('node-power').textContent");
	CHECK(json_is_string(own) && json_is_string(other) && strstr(json_string_value(own), " W") &&
	      strcmp(json_string_value(own), json_string_value(other)) == 0);
	if (json_is_string(own) && json_is_string(other))
		fprintf(stderr, "Other by the page's link %s, by model=Other %s\n", json_string_value(own),
		        json_string_value(other));
	json_decref(own);
	json_decref(other);
	/* "Other" without its active parameters: the form shows "Other",
	 * its empty box, not the catalog's default model */
	open_link("platform=H100&model=Other&concurrency=32", 1);
	CHECK(page_truth(B, "document.getElementById('f-model').value === '' && formRequest().model === undefined"));
	/* ... refused, and its link and address keep "Other": they had no
	 * model key, and reopened answered Qwen3-8B (468.9 W) */
	CHECK(page_truth(B, "/[?&]model=Other(&|$)/.test(document.getElementById('share-link').value)"
	            " && /[?&]model=Other(&|$)/.test(location.search)"));
	/* "Other" chosen in the form, with its box empty: the link reopens
	 * the same refusal, not the page's default model answered */
	open_link("platform=H100&model=Qwen3-8B&concurrency=32", 1);
	page_choose(B, "f-model", "");
	page_eval_ok(B, "document.getElementById('predict').click()");
	CHECK(page_wait_runs(B, 2));
	char *link = cdp_eval_str(B, "document.getElementById('share-link').value");
	fprintf(stderr, "Other with its box empty: link %s\n", link ? link : "(none)");
	CHECK(link && strstr(link, "model=Other") != NULL);
	CHECK_INT(cdp_navigate(B, link ? link : "about:blank"), 0);
	free(link);
	CHECK(page_wait_runs(B, 1));
	CHECK(page_truth(B, "document.getElementById('f-model').value === ''"
	            " && document.getElementById('status').dataset.state === 'error'"
	            " && document.getElementById('f-model-error').textContent.startsWith('active_params_b')"
	            " && document.getElementById('node-power').textContent === '\u2014'"));
}

/* Names in a link in another letter case, which the API matches: the
 * form selects the catalog's option, with its span and facts under it,
 * rather than add a bare "h100" option (docs/planner.md, "What the page
 * asks and shows"), and the compared rows and the link carry its name. */
static void
check_name_case(void)
{
	open_link("platform=h100&model=qwen3-8b&concurrency=32&cmp=platform:a100;model:QWEN3-8B", 1);
	CHECK(page_truth(B, "document.getElementById('f-platform').value === 'H100'"
	            " && ![...document.getElementById('f-platform').options].some((o) => o.value === 'h100')"
	            " && document.getElementById('f-platform-help').textContent.startsWith('calibrated on')"));
	CHECK(page_truth(B, "document.getElementById('f-model').value === 'Qwen3-8B'"
	            " && ![...document.getElementById('f-model').options].some((o) => o.value === 'qwen3-8b')"
	            " && /B active of/.test(document.getElementById('f-model-help').textContent)"));
	CHECK(page_truth(B, "S.compare.length === 1 && S.compare[0].platform === 'A100' && S.compare[0].model === 'Qwen3-8B'"));
	CHECK(page_truth(B, "document.getElementById('status').dataset.state === 'done'"
	            " && /[?&]platform=H100&model=Qwen3-8B(&|$)/.test(location.search)"));
}

/* Empty the boxes named, Predict, and reopen the link shown: the request
 * sent again is the first one. */
static void
check_emptied_round_trip(const char *concurrency, int runs)
{
	open_link("platform=H100&model=Qwen3-8B&concurrency=32&input_tokens=512&output_tokens=256", runs);
	char js[256];
	snprintf(js, sizeof js,
	         "(['f-input_tokens', 'f-output_tokens'].forEach((i) => { document.getElementById(i).value = ''; }),"
	         " document.getElementById('f-concurrency').value = '%s', 1)",
	         concurrency);
	page_eval_ok(B, js);
	page_eval_ok(B, "document.getElementById('predict').click()");
	CHECK(page_wait_runs(B, runs + 1));
	json_t *sent = cdp_eval(B, "JSON.stringify(formRequest())");
	json_t *link = cdp_eval(B, "document.getElementById('share-link').value");
	CHECK(page_truth(B, "/[?&]input_tokens=(&|$)/.test(document.getElementById('share-link').value)"
	            " && /[?&]output_tokens=(&|$)/.test(location.search)"));
	if (json_is_string(link))
		CHECK_INT(cdp_navigate(B, json_string_value(link)), 0);
	CHECK(page_wait_runs(B, 1));
	CHECK(page_truth(B, "document.getElementById('f-input_tokens').value === ''"
	            " && document.getElementById('f-output_tokens').value === ''"));
	json_t *again = cdp_eval(B, "JSON.stringify(formRequest())");
	CHECK(json_is_string(sent) && json_is_string(again) &&
	      strcmp(json_string_value(sent), json_string_value(again)) == 0);
	if (json_is_string(sent) && json_is_string(again))
		fprintf(stderr, "emptied: sent %s, reopened %s\n", json_string_value(sent), json_string_value(again));
	CHECK(page_truth(B, "document.getElementById('status').dataset.state === 'done'"));
	json_t *link2 = cdp_eval(B, "document.getElementById('share-link').value");
	CHECK(json_is_string(link) && json_is_string(link2) && strcmp(json_string_value(link), json_string_value(link2)) == 0);
	json_decref(sent);
	json_decref(again);
	json_decref(link);
	json_decref(link2);
}

#define TICKS_CLEAR "[...document.querySelectorAll('#plot-list svg.chart')].every((g) => {" \
	" const b = [...g.querySelectorAll('text.tick[text-anchor=middle]')].map((t) => t.getBBox())" \
	"  .sort((p, q) => p.x - q.x);" \
	" return b.length > 1 && b.every((p, i) => i === 0 || b[i - 1].x + b[i - 1].width <= p.x); })"

static void
check_plot_limit(void)
{
	open_link("platform=H100&model=Qwen3-8B&concurrency=1000000", 1);
	CHECK(page_truth(B, "document.querySelectorAll('#plot-list figure.plot').length > 0"
	            " && [...document.querySelectorAll('#plot-list table.values')].every((t) => {"
	            "  const r = t.querySelectorAll('tbody th'); return r[r.length - 1].textContent === '1000000'; })"));
	CHECK(page_truth(B, "!document.getElementById('plot-list').textContent.includes('undefined')"
	            " && !document.getElementById('plot-list').textContent.includes('refused')"));
	CHECK(page_truth(B, "document.getElementById('status').dataset.state === 'done'"
	            " && !document.getElementById('status').textContent.includes('refused')"));
	CHECK(page_truth(B, TICKS_CLEAR));
	/* a server whose limit the document over-states: the point past it
	 * is refused, and said */
	page_eval_ok(B, "(S.request.concurrency.maximum = 2e6, document.getElementById('predict').click(), 1)");
	CHECK(page_wait_runs(B, 2));
	CHECK(page_truth(B, "/1 of \\d+ plot points were refused and are left out \\(concurrency/"
	            ".test(document.getElementById('status').textContent)"
	            " && document.getElementById('plot-refused') !== null"));
	CHECK(page_truth(B, "[...document.querySelectorAll('#plot-list table.values tbody tr')]"
	            " .some((r) => r.querySelector('th').textContent === '1048576' && r.querySelector('td').textContent === 'refused')"
	            " && !document.getElementById('plot-list').textContent.includes('undefined')"));
	page_eval_ok(B, "(S.request.concurrency.maximum = 1e6, 1)");
}

/* Rows without an interval whose reason the answer gives. */
static void
check_interval_reasons(void)
{
	open_link("platform=H200&model=Qwen3-8B&concurrency=32", 1);
	json_t *n = cdp_eval(B, "(async () => { const r = await fetch('/v1/predict/inference', { method: 'POST',"
	                        " headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(formRequest()) });"
	                        " const a = await r.json();"
	                        " const iv = a.capacity.interval_95, by = iv.covers_by_quantity || {};"
	                        " const rows = [...document.querySelectorAll('#answer-table tbody tr')];"
	                        " const keys = Object.keys(by).filter((k) => !iv[k]);"
	                        " let bad = 0, seen = 0;"
	                        " for (const k of keys) for (const tr of rows.filter((t) => t.dataset.key.split('.').pop() === k)) {"
	                        "  seen++; const c = tr.querySelectorAll('td');"
	                        "  if (c[1].textContent !== 'none' || c[2].textContent !== by[k]) { bad++; console.log(k); } }"
	                        " return bad ? -bad : seen; })()");
	CHECK(json_is_integer(n) && json_integer_value(n) > 0);
	if (json_is_integer(n))
		fprintf(stderr, "rows without an interval checked: %lld\n", (long long)json_integer_value(n));
	json_decref(n);
	CHECK(page_truth(B, "document.querySelector('#answer-table tr[data-key=\"mean_running\"] td:nth-of-type(2)').textContent === 'none'"));
}

static int
stale(void)
{
	return page_truth(B, "document.body.dataset.stale === 'true' && !document.getElementById('stale-note').hidden"
	             " && document.getElementById('status').dataset.state === 'stale'");
}

static int
fresh(void)
{
	return page_truth(B, "document.body.dataset.stale === 'false' && document.getElementById('stale-note').hidden"
	             " && document.getElementById('status').dataset.state === 'done'");
}

static void
check_stale(void)
{
	open_link("platform=H100&model=Qwen3-8B&concurrency=32&cmp=platform:L40S;tp:2", 1);
	CHECK(fresh());
	page_eval_ok(B, "(document.querySelector('#compare-table tr[data-row=\"#1\"] button').click(), 1)");
	CHECK(stale());
	page_eval_ok(B, "document.getElementById('predict').click()");
	CHECK(page_wait_runs(B, 2));
	CHECK(fresh());
	page_choose(B, "f-platform", "A100");
	CHECK(stale());
	page_choose(B, "f-platform", "L40S");
	CHECK(fresh());
	page_eval_ok(B, "(document.querySelector('input[name=\"load-mode\"][value=\"rate\"]').click(), 1)");
	CHECK(stale());
	page_eval_ok(B, "document.getElementById('predict').click()");
	CHECK(page_wait_runs(B, 3));
	CHECK(page_truth(B, "document.body.dataset.stale === 'false' && document.getElementById('stale-note').hidden"));
}

/* A 390 px desktop window, whose scrollbar is not an overlay: it takes
 * 15 px of the 390, and the calibration view's "Shared by every platform"
 * table was then 4 px wider than the page (379 in 375): the page scrolled
 * sideways (docs/planner.md, "Layout"). A browser of its own, as the
 * scrollbars are chosen when it starts; the set shown is `measured`, whose
 * values made the table that wide. */
static void
check_desktop_narrow(int port)
{
	char *profile = path_join(S.dir, "profile-scrollbars");
	mkdir(profile, 0700);
	cdp *b = cdp_launch_scrollbars(cdp_chromium_path(), profile, 390, 844);
	free(profile);
	CHECK(b != NULL);
	if (!b)
		return;
	char page[256];
	snprintf(page, sizeof page, "http://127.0.0.1:%d/?profile=measured&platform=H100&model=Qwen3-8B&concurrency=32"
	         "&input_tokens=512&output_tokens=256", port);
	CHECK_INT(cdp_navigate(b, page), 0);
	CHECK(page_wait_runs(b, 1));
	CHECK(cdp_wait(b, "!!document.getElementById('cal-shared')", PAGE_WAIT_S));
	json_t *w = cdp_eval(b, "[document.documentElement.scrollWidth, document.documentElement.clientWidth,"
	                        " window.innerWidth]");
	double sw = json_number_value(json_array_get(w, 0)), cw = json_number_value(json_array_get(w, 1));
	double bar = json_number_value(json_array_get(w, 2)) - cw;
	fprintf(stderr, "desktop window at 390: page %.0f px wide, %.0f px shown (scrollbar %.0f px)\n", sw, cw, bar);
	CHECK(bar > 0); /* a scrollbar that takes width, or this checks nothing new */
	CHECK(json_array_size(w) == 3 && cw > 0 && sw <= cw);
	json_decref(w);
	CHECK_INT(cdp_page_errors(b), 0);
	cdp_close(b);
}

/* A box set as typed, with its input event (markStale listens to it). */
static void
type_into(const char *id, const char *value)
{
	char expr[256];
	snprintf(expr, sizeof expr, "(() => { const e = document.getElementById('%s'); e.value = '%s';"
	         " e.dispatchEvent(new Event('input', { bubbles: true })); return 1; })()", id, value);
	page_eval_ok(B, expr);
}

/* An open loop with the arrival rate left empty is refused at /concurrency
 * (the API's load field); the page said so under the engine limit, whose
 * box says "empty = no limit". The load missing is the rate: its box
 * gets the message, the mark and the focus (docs/planner.md, "Warnings
 * and errors next to their input"). A limit given and refused stays
 * under the limit. */
static void
check_open_loop_no_rate(void)
{
	open_link("platform=A100&model=Qwen3-8B&concurrency=32&input_tokens=512&output_tokens=256", 1);
	page_eval_ok(B, "(document.querySelector('input[name=\"load-mode\"][value=\"rate\"]').click(), 1)");
	CHECK(page_truth(B, "document.getElementById('f-rate').value === '' && document.getElementById('f-concurrency').value === ''"));
	page_eval_ok(B, "document.getElementById('predict').click()");
	CHECK(page_wait_runs(B, 2));
	CHECK(page_truth(B, "document.getElementById('f-rate-error').textContent.startsWith('rate: required')"));
	CHECK(page_truth(B, "document.getElementById('f-rate').getAttribute('aria-invalid') === 'true'"
	            " && document.activeElement === document.getElementById('f-rate')"));
	CHECK(page_truth(B, "document.getElementById('f-concurrency-error').textContent === ''"
	            " && !document.getElementById('f-concurrency').hasAttribute('aria-invalid')"));
	type_into("f-rate", "5");
	type_into("f-concurrency", "0");
	page_eval_ok(B, "document.getElementById('predict').click()");
	CHECK(page_wait_runs(B, 3));
	CHECK(page_truth(B, "document.getElementById('f-concurrency-error').textContent.startsWith('concurrency: with rate')"
	            " && document.getElementById('f-rate-error').textContent === ''"));
}

/* An open loop is the rate and the engine's limit: with the rate empty
 * and a limit of 64 the page sent {"concurrency":64} alone and showed the
 * closed-loop answer at 64 running (577.3 W on B200), and its link
 * reopened as a closed loop. It is refused on the page, unsent, under
 * Arrival rate, the answer cleared, and the link reopens the open loop
 * (docs/planner.md, "Warnings and errors next to their input"). */
static void
check_open_loop_limit_no_rate(void)
{
	open_link("platform=B200&model=Qwen3-8B&concurrency=32&input_tokens=512&output_tokens=256", 1);
	page_eval_ok(B, "(document.querySelector('input[name=\"load-mode\"][value=\"rate\"]').click(), 1)");
	type_into("f-concurrency", "64");
	page_eval_ok(B, "(() => { window.sentPredict = 0; const f = window.fetch; window.fetch = (u, ...a) =>"
	                " { if (String(u).includes('/v1/predict/inference')) window.sentPredict++; return f(u, ...a); }; return 1; })()");
	page_eval_ok(B, "document.getElementById('predict').click()");
	CHECK(page_wait_runs(B, 2));
	CHECK(page_truth(B, "window.sentPredict === 0"));
	CHECK(page_truth(B, "document.getElementById('f-rate-error').textContent.startsWith('rate: required')"
	            " && document.getElementById('f-rate').getAttribute('aria-invalid') === 'true'"
	            " && document.activeElement === document.getElementById('f-rate')"));
	CHECK(page_truth(B, "document.getElementById('node-power').textContent === '\u2014'"
	            " && document.getElementById('status').dataset.state === 'error'"
	            " && document.getElementById('stale-note').hidden"));
	CHECK(page_truth(B, "/[?&]rate=(&|$)/.test(document.getElementById('share-link').value)"
	            " && /[?&]concurrency=64(&|$)/.test(document.getElementById('share-link').value)"));
	char *link = cdp_eval_str(B, "document.getElementById('share-link').value");
	CHECK_INT(cdp_navigate(B, link), 0);
	free(link);
	CHECK(page_wait_runs(B, 1));
	CHECK(page_truth(B, "loadMode() === 'rate' && document.getElementById('f-concurrency').value === '64'"
	            " && document.getElementById('f-rate-error').textContent.startsWith('rate: required')"));
}

/* An edit made while a request is in flight (fetch delayed 1.5 s), the
 * request then refused: the status saved for the edit was "Computing…"
 * and the stale note stayed up after the refusal cleared the answer; the
 * next edit said "Earlier inputs: computing…" in the busy state. After
 * the refusal the status is the refusal's, with no stale note. */
static void
check_edit_in_flight_refused(void)
{
	open_link("platform=H100&model=Qwen3-8B&concurrency=32&input_tokens=512&output_tokens=256", 1);
	page_eval_ok(B, "(() => { const f = window.fetch; window.fetch = async (...a) =>"
	                " { await new Promise((r) => setTimeout(r, 1500)); return f(...a); }; return 1; })()");
	type_into("f-input_tokens", "-1");
	page_eval_ok(B, "document.getElementById('predict').click()");
	CHECK(page_truth(B, "document.getElementById('status').dataset.state === 'busy'"));
	type_into("f-output_tokens", "300");
	CHECK(page_wait_runs(B, 2));
	CHECK(page_truth(B, "document.getElementById('stale-note').hidden && document.body.dataset.stale === 'false'"));
	CHECK(page_truth(B, "(() => { const s = document.getElementById('status');"
	            " return s.dataset.state === 'error' && s.textContent.startsWith('Inputs changed: press Predict (or Enter) to compute them.')"
	            " && s.textContent.includes('nothing was computed: the server answered 422'); })()"));
	type_into("f-output_tokens", "301");
	CHECK(page_truth(B, "(() => { const s = document.getElementById('status');"
	            " return s.dataset.state === 'error' && !/computing/i.test(s.textContent)"
	            " && document.getElementById('stale-note').hidden; })()"));
	type_into("f-output_tokens", "256");
	CHECK(page_truth(B, "document.getElementById('status').textContent === 'Nothing was computed: the server answered 422.'"));
}

/* After a refusal nothing is on screen, so an input changed then is not
 * "the earlier inputs" of an answer shown: the status says to press
 * Predict and keeps the refusal, no stale note (docs/planner.md, "What
 * the page asks and shows"); going back to the refused inputs gives the
 * refusal's status back, and once an answer is shown a change marks it stale. */
static void
check_changed_after_refusal(void)
{
	open_link("platform=H100&model=phi-4&tp=4&concurrency=32&input_tokens=512&output_tokens=256", 1);
	CHECK(page_truth(B, "document.getElementById('status').dataset.state === 'error'"
	            " && document.getElementById('f-tp-error').textContent.startsWith('tp: 4')"));
	type_into("f-tp", "2");
	CHECK(page_truth(B, "document.getElementById('stale-note').hidden && document.body.dataset.stale === 'false'"));
	CHECK(page_truth(B, "(() => { const s = document.getElementById('status');"
	            " return s.dataset.state === 'error' && s.textContent.startsWith('Inputs changed: press Predict (or Enter) to compute them.')"
	            " && s.textContent.includes('nothing was computed: the server answered 422')"
	            " && !s.textContent.includes('shown are of the earlier inputs'); })()"));
	type_into("f-tp", "4");
	CHECK(page_truth(B, "document.getElementById('status').textContent === 'Nothing was computed: the server answered 422.'"));
	type_into("f-tp", "2");
	page_eval_ok(B, "document.getElementById('predict').click()");
	CHECK(page_wait_runs(B, 2));
	CHECK(fresh());
	type_into("f-tp", "1");
	CHECK(stale());
}

static void
check_calibration_names(void)
{
	CHECK(page_truth(B, "document.querySelectorAll('#calibration-body th[scope=row]').length > 0"
	            " && ![...document.querySelectorAll('#calibration-body table[data-section] th')]"
	            "      .some((t) => /(^|\\.)\\d+(\\.|$)/.test(t.textContent))"));
	json_t *named = cdp_eval(B, "(async () => { const p = (await (await fetch('/v1/params?profile=measured')).json()).params;"
	                            " const l = ((p.capacity || {}).levels || [])[0];"
	                            " if (!l || !l.eta) return 'none';"
	                            " return [...document.querySelectorAll('#calibration-body table[data-section=capacity] th')]"
	                            "  .some((t) => t.textContent === `levels[${l.name}].eta`) ? 'ok' : 'missing'; })()");
	CHECK(json_is_string(named) && strcmp(json_string_value(named), "none") != 0);
	CHECK(json_is_string(named) && strcmp(json_string_value(named), "ok") == 0);
	json_decref(named);
}

int
main(void)
{
	/* the built-in profile `measured` has a capacity section (the fitted
	 * set has none), so its answers have capacity rows and reasons */
	if (page_session_open_measured(&S, "browser_page_state") == TEST_SKIP)
		return TEST_SKIP;
	B = S.b;
	if (B) {
		check_refused_link();
		check_emptied_round_trip("0", 1);
		check_emptied_round_trip("32", 1);
		check_interval_reasons();
		check_plot_limit();
		check_other_link();
		check_name_case();
		check_stale();
		check_open_loop_no_rate();
		check_changed_after_refusal();
		check_open_loop_limit_no_rate();
		check_edit_in_flight_refused();
		check_calibration_names();
		check_desktop_narrow(S.port);
		CHECK_INT(cdp_page_errors(B), 0);
	}
	page_session_close(&S);
	return check_report("test_browser_page_state");
}
