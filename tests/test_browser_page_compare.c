/*
 * "Add to comparison" pins the whole configuration (docs/planner.md,
 * "Comparison"), in headless Chromium against a real `wattcast serve`
 * serving the fitted set of tests/browser/page_session.h (the default) and
 * the built-in profile `measured`:
 *   - a row pinned at the API's defaults (default profile, TP 1, bf16 KV
 *     cache, no clock lock) keeps them when the form then changes to
 *     `measured`, TP 2, fp8 KV cache and 1200 MHz: its text and its node
 *     power stay those of the configuration pinned (the API's answer to
 *     it), its link names every field (`tp:1`, `kv_cache:bf16`, a clock
 *     not set as `sm_clock_mhz:`, the profile by name) and reopens to the
 *     same row;
 *   - the power cap and the GPU memory share are a row's own: a row pinned
 *     with a clock lock is not sent the form's later cap (which the API
 *     refuses beside a lock) nor its memory share, and answers as the API
 *     does for the lock;
 *   - an older link's entry naming only what differs still takes the rest
 *     from the form (cmp=platform:A100), and one naming a lock does not
 *     take the form's cap;
 *   - a configuration the server refuses (phi-4 at TP 4) is not pinned:
 *     the status says "Nothing was pinned", the link gains no entry, and
 *     no refused row appears at the next Predict; put right, it pins;
 *   - a link naming six compared configurations compares four and says
 *     which two wait (they were dropped without a word, and from the
 *     link); the two stay in the link, and removing a row compares the
 *     next.
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

static void
open_link(const char *query)
{
	char link[640];
	snprintf(link, sizeof link, "http://127.0.0.1:%d/?%s", S.port, query);
	CHECK_INT(cdp_navigate(B, link), 0);
	CHECK(page_wait_runs(B, 1));
}

/* Click `id` (Predict, Add to comparison) and wait for its computation. */
static void
click_and_wait(const char *id)
{
	char expr[128];
	int before = page_runs_done(B);
	snprintf(expr, sizeof expr, "(document.getElementById('%s').click(), 1)", id);
	page_eval_ok(B, expr);
	CHECK(page_wait_runs(B, before + 1));
}

/* Compared row `row` reads `config` and shows the API's node power for
 * `body`, with no refusal in its place. */
static void
check_row(const char *row, const char *config, const char *body)
{
	char sel[160];
	snprintf(sel, sizeof sel, "(document.querySelector('#compare-table tr[data-row=\"%s\"] td.config') || {}).textContent || ''", row);
	char *shown = cdp_eval_str(B, sel);
	CHECK(strcmp(shown, config) == 0);
	if (strcmp(shown, config) != 0)
		fprintf(stderr, "row %s reads \"%s\", pinned \"%s\"\n", row, shown, config);
	free(shown);
	snprintf(sel, sizeof sel, "(document.querySelector('#compare-table tr[data-row=\"%s\"] td[data-key=node_power_w]') || {}).textContent || ''", row);
	char *cell = cdp_eval_str(B, sel);
	json_t *a = page_api_post(S.h, url("/v1/predict/inference"), body);
	page_check_shown(cell, 0, json_number_value(json_object_get(a, "node_power_w")), "pinned row's node power");
	json_decref(a);
	free(cell);
}

static void
check_pinned_defaults(void)
{
	open_link("platform=H100&model=Qwen3-8B&concurrency=32");
	click_and_wait("add-compare");
	const char *pinned = "{\"platform\":\"H100\",\"model\":\"Qwen3-8B\",\"concurrency\":32}";
	check_row("#1", "H100 · Qwen3-8B · TP 1", pinned);
	/* the form moves on; the pinned row does not */
	page_choose(B, "f-profile", "measured");
	page_choose(B, "f-tp", "2");
	page_choose(B, "f-kv_cache", "fp8");
	page_choose(B, "f-sm_clock_mhz", "1200");
	click_and_wait("predict");
	CHECK(page_truth(B, "document.getElementById('status').dataset.state === 'done'"));
	check_row("#1", "H100 · Qwen3-8B · TP 1", pinned);
	/* the link names every field, a default one too, and reopens alike */
	char *link = cdp_eval_str(B, "document.getElementById('share-link').value");
	CHECK_CONTAINS(link, "cmp=platform:H100;model:Qwen3-8B;tp:1;");
	CHECK_CONTAINS(link, ";kv_cache:bf16;");
	CHECK_CONTAINS(link, ";sm_clock_mhz:;");
	CHECK(page_truth(B, "new URLSearchParams(location.search).get('cmp').endsWith(`;profile:${S.defaultProfile}`)"));
	CHECK_INT(cdp_navigate(B, link), 0);
	CHECK(page_wait_runs(B, 1));
	check_row("#1", "H100 · Qwen3-8B · TP 1", pinned);
	free(link);
	/* an older link's entry names what differs; the rest is the form's */
	open_link("platform=H100&model=Qwen3-8B&tp=2&concurrency=32&cmp=platform:A100");
	check_row("#1", "A100 · Qwen3-8B · TP 2", "{\"platform\":\"A100\",\"model\":\"Qwen3-8B\",\"tp\":2,\"concurrency\":32}");
}

static void
check_pinned_cap(void)
{
	const char *locked = "{\"profile\":\"measured\",\"platform\":\"H100\",\"model\":\"Qwen3-8B\","
	                     "\"sm_clock_mhz\":1200,\"concurrency\":32}";
	open_link("profile=measured&platform=H100&model=Qwen3-8B&concurrency=32&sm_clock_mhz=1200");
	click_and_wait("add-compare");
	page_eval_ok(B, "(() => { window.sent = []; const f = window.fetch;"
	                " window.fetch = (u, i) => { window.sent.push([u, i && i.body]); return f(u, i); }; return true; })()");
	page_choose(B, "f-sm_clock_mhz", "");
	page_choose(B, "f-power_cap_w", "250");
	page_choose(B, "f-gpu_memory_utilization", "0.5");
	click_and_wait("predict");
	CHECK(page_truth(B, "!document.querySelector('#compare-table tr[data-row=\"#1\"] td.field-error')"));
	check_row("#1", "H100 · Qwen3-8B · TP 1 · profile measured · sm_clock_mhz 1200", locked);
	/* the row's own item in the batch (the last): its lock, and neither
	 * the form's cap nor its memory share */
	CHECK(page_truth(B, "(() => { const b = JSON.parse(window.sent.filter(([u]) => u === '/v1/predict/batch').pop()[1]);"
	            " const r = b[b.length - 1]; return r.sm_clock_mhz === 1200 && r.power_cap_w === undefined"
	            "  && r.gpu_memory_utilization === undefined && r.concurrency === 32; })()"));
	/* an older link naming a lock: the form's cap is not the row's */
	open_link("profile=measured&platform=H100&model=Qwen3-8B&concurrency=32&power_cap_w=250&cmp=sm_clock_mhz:1200");
	CHECK(page_truth(B, "!document.querySelector('#compare-table tr[data-row=\"#1\"] td.field-error')"));
	check_row("#1", "H100 · Qwen3-8B · TP 1 · profile measured · sm_clock_mhz 1200", locked);
}

/* A configuration the server refuses (phi-4 at TP 4: 10 KV heads) is not
 * pinned by "Add to comparison": the status says so, the link gains no
 * entry, and no refused row turns up at the next Predict. Put right, it is
 * pinned. */
static void
check_refused_pins_nothing(void)
{
	open_link("platform=H100&model=phi-4&tp=4&concurrency=32&cmp=platform:A100");
	CHECK(page_truth(B, "document.getElementById('status').textContent === 'Nothing was computed: the server answered 422.'"));
	click_and_wait("add-compare");
	CHECK(page_truth(B, "S.compare.length === 1"));
	CHECK(page_truth(B, "document.getElementById('status').textContent.startsWith('Nothing was pinned: the server answered 422.')"));
	CHECK(page_truth(B, "!document.getElementById('share-link').value.includes('model:phi-4')"));
	CHECK(page_truth(B, "!location.href.includes('model%3Aphi-4') && !location.href.includes('model:phi-4')"));
	page_choose(B, "f-tp", "2");
	click_and_wait("predict");
	CHECK(page_truth(B, "document.getElementById('status').dataset.state === 'done'"));
	/* the form's row and the one the link pinned */
	CHECK(page_truth(B, "document.querySelectorAll('#compare-table tbody tr').length === 2"));
	CHECK(page_truth(B, "!document.querySelector('#compare-table tr[data-row=\"#2\"]')"));
	check_row("#1", "A100 · phi-4 · TP 2", "{\"platform\":\"A100\",\"model\":\"phi-4\",\"tp\":2,\"concurrency\":32}");
	/* put right, the same button pins it */
	click_and_wait("add-compare");
	check_row("#2", "H100 · phi-4 · TP 2", "{\"platform\":\"H100\",\"model\":\"phi-4\",\"tp\":2,\"concurrency\":32}");
	CHECK(page_truth(B, "document.getElementById('share-link').value.includes('cmp=platform:H100;model:phi-4;tp:2;')"));
}

static void
check_waiting(void)
{
	open_link("platform=H100&model=Qwen3-8B&concurrency=32&cmp=platform:A100&cmp=platform:H200"
	          "&cmp=platform:B200&cmp=platform:L4&cmp=platform:L40S&cmp=platform:MI300X");
	CHECK(page_truth(B, "document.querySelectorAll('#compare-table tbody tr').length === 5"));
	CHECK(page_truth(B, "(() => { const w = document.getElementById('compare-waiting'); return !w.hidden"
	            " && w.textContent.includes('6 configurations') && w.textContent.includes('L40S')"
	            " && w.textContent.includes('MI300X') && w.textContent.includes('kept in the link'); })()"));
	CHECK(page_truth(B, "(() => { const l = document.getElementById('share-link').value;"
	            " return l.includes('cmp=platform:L40S&cmp=platform:MI300X') && location.href.endsWith('cmp=platform:MI300X'); })()"));
	int before = page_runs_done(B);
	page_eval_ok(B, "(document.querySelector('#compare-table tr[data-row=\"#1\"] button[aria-label^=Remove]').click(), 1)");
	CHECK(page_wait_runs(B, before + 1));
	CHECK(page_truth(B, "document.querySelector('#compare-table tr[data-row=\"#4\"] td.config').textContent.startsWith('L40S ')"));
	CHECK(page_truth(B, "(() => { const w = document.getElementById('compare-waiting'); return !w.hidden"
	            " && w.textContent.includes('MI300X') && !w.textContent.includes('L40S'); })()"));
	CHECK(page_truth(B, "!document.getElementById('share-link').value.includes('platform:A100')"
	            " && document.getElementById('share-link').value.includes('cmp=platform:MI300X')"));
	/* four or fewer: nothing waits, nothing said */
	open_link("platform=H100&model=Qwen3-8B&concurrency=32&cmp=platform:A100");
	CHECK(page_truth(B, "document.getElementById('compare-waiting').hidden"));
}

int
main(void)
{
	if (page_session_open_measured(&S, "browser_page_compare") == TEST_SKIP)
		return TEST_SKIP;
	B = S.b;
	if (B) {
		http_set_base(S.port);
		check_pinned_defaults();
		check_pinned_cap();
		check_refused_pins_nothing();
		check_waiting();
		CHECK_INT(cdp_page_errors(B), 0);
	}
	page_session_close(&S);
	return check_report("test_browser_page_compare");
}
