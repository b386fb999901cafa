/*
 * The planner page (docs/planner.md, "Warnings and errors next to their
 * input" and "Shareable state") in headless Chromium against a real
 * `wattcast serve` (tests/browser/page_session.h): text a number box
 * cannot read, typed by keyboard ("1e", "-"), leaves the box in badInput,
 * its value "" and what was typed hidden from the page. The page sends
 * nothing and links nothing made up for it: the box is refused under
 * itself, saying what a number looks like, the status says the request was
 * not sent, and the link and the address bar keep the last configuration
 * sent. The same for a panel's own box (flexibility Steps, envelope
 * Replicas, budget Budget), for the form's box a panel uses, and "Add to
 * comparison" pins nothing.
 *
 * Skipped (exit 77) when Chromium is not installed (Debian: chromium).
 */
#include "tests/browser/cdp.h"
#include "tests/browser/page_session.h"
#include "tests/support/support.h"

#include <string.h>

static page_session S;
static cdp *B;

/* Every fetch the page makes, from now on: window.sent as [url, body]. */
static void
spy_requests(void)
{
	page_eval_ok(B, "(() => { if (!window.sent) { const f = window.fetch;"
	                " window.fetch = (u, i) => { window.sent.push([u, i && i.body]); return f(u, i); }; }"
	                " window.sent = []; return true; })()");
}

/* page_type_into; 1 when the browser cannot read the box (badInput), as a
 * planner's typo leaves it. */
static int
type_bad(const char *id, const char *text)
{
	char expr[256];
	page_type_into(B, id, text);
	snprintf(expr, sizeof expr, "document.getElementById('%s').validity.badInput === true", id);
	int bad = page_truth(B, expr);
	if (!bad)
		fprintf(stderr, "typing \"%s\" into #%s did not leave it in badInput\n", text, id);
	return bad;
}

static char *
error_under(const char *id)
{
	char expr[256];
	snprintf(expr, sizeof expr, "document.getElementById('%s').closest('.field').querySelector('.field-error').textContent", id);
	return cdp_eval_str(B, expr);
}

/* The running count back at 32, computed (the messages cleared). */
static void
compute_32(void)
{
	page_type_into(B, "f-concurrency", "32");
	int n = page_runs_done(B);
	cdp_key(B, "Enter");
	CHECK(page_wait_runs(B, n + 1));
	CHECK(page_truth(B, "document.querySelector('#fields .field-error:not(:empty)') === null"));
}

/* The form's running count typed as `text`, Enter: refused unsent. */
static void
check_form_box(int port, const char *text)
{
	compute_32();
	spy_requests();
	CHECK(type_bad("f-concurrency", text));
	int n = page_runs_done(B);
	cdp_key(B, "Enter");
	CHECK(page_wait_runs(B, n + 1));
	CHECK(page_truth(B, "window.sent.length === 0"));
	char *err = error_under("f-concurrency");
	CHECK_CONTAINS(err, "Requests running: not a number");
	CHECK_CONTAINS(err, "such as 32");
	free(err);
	CHECK(page_truth(B, "document.activeElement === document.getElementById('f-concurrency')"
	            " && document.getElementById('f-concurrency').getAttribute('aria-invalid') === 'true'"));
	char *status = cdp_eval_str(B, "document.getElementById('status').textContent");
	CHECK_CONTAINS(status, "not sent");
	CHECK_CONTAINS(status, "Requests running");
	free(status);
	char want[96];
	snprintf(want, sizeof want, "http://127.0.0.1:%d/?", port);
	char *link = cdp_eval_str(B, "document.getElementById('share-link').value + ' ' + location.href");
	CHECK_CONTAINS(link, want);
	CHECK_CONTAINS(link, "concurrency=32");
	CHECK(strstr(link, "number") == NULL);
	if (strstr(link, "number"))
		fprintf(stderr, "the link names a made-up value: %s\n", link);
	free(link);
}

/* A panel's box `id` typed "1e", Compute: refused under it, nothing sent. */
static void
check_panel_box(const char *path, const char *id, const char *label)
{
	char expr[512];
	snprintf(expr, sizeof expr, "document.querySelector('section[data-path=\"%s\"] button[type=submit]') !== null", path);
	CHECK(cdp_wait(B, expr, PAGE_WAIT_S));
	spy_requests();
	CHECK(type_bad(id, "1e"));
	snprintf(expr, sizeof expr, "document.querySelector('section[data-path=\"%s\"] button[type=submit]').click()", path);
	page_eval_ok(B, expr);
	CHECK(page_truth(B, "window.sent.length === 0"));
	char *err = error_under(id);
	char want[128];
	snprintf(want, sizeof want, "%s: not a number", label);
	CHECK_CONTAINS(err, want);
	CHECK_CONTAINS(err, "type digits such as 32");
	free(err);
	snprintf(expr, sizeof expr, "document.querySelector('section[data-path=\"%s\"] p.error').textContent", path);
	char *said = cdp_eval_str(B, expr);
	CHECK_CONTAINS(said, "Nothing was sent");
	free(said);
	snprintf(expr, sizeof expr, "(() => { const e = document.getElementById('%s'); e.value = ''; e.value = '4'; return 1; })()", id);
	page_eval_ok(B, expr);
}

/* "Add to comparison" with such a box pins nothing (it would be pinned
 * as not set) and sends nothing. */
static void
check_add_compare(void)
{
	compute_32();
	spy_requests();
	CHECK(type_bad("f-concurrency", "1e"));
	int n = page_runs_done(B);
	page_eval_ok(B, "document.getElementById('add-compare').click()");
	CHECK(page_wait_runs(B, n + 1));
	CHECK(page_truth(B, "window.sent.length === 0"));
	CHECK(page_truth(B, "S.compare.length === 0"));
	char *err = error_under("f-concurrency");
	CHECK_CONTAINS(err, "Requests running: not a number");
	free(err);
	/* the box put right, nothing pinned earlier comes back */
	compute_32();
	char *link = cdp_eval_str(B, "document.getElementById('share-link').value");
	CHECK(strstr(link, "cmp=") == NULL);
	free(link);
}

/* The form's box a panel uses: the panel sends nothing either. */
static void
check_panel_uses_form(void)
{
	compute_32();
	spy_requests();
	CHECK(type_bad("f-concurrency", "1e"));
	page_eval_ok(B, "document.querySelector('section[data-path=\"/v1/predict/flexibility\"] button[type=submit]').click()");
	CHECK(page_truth(B, "window.sent.length === 0"));
	char *err = error_under("f-concurrency");
	CHECK_CONTAINS(err, "Requests running: not a number");
	free(err);
}

int
main(void)
{
	if (page_session_open(&S, "browser_page_bad_number") == TEST_SKIP)
		return TEST_SKIP;
	B = S.b;
	if (B) {
		char page[160];
		snprintf(page, sizeof page, "http://127.0.0.1:%d/?platform=H200&model=Qwen3-8B&concurrency=32", S.port);
		CHECK_INT(cdp_navigate(B, page), 0);
		CHECK(page_wait_runs(B, 1));
		check_form_box(S.port, "1e");
		check_form_box(S.port, "-");
		check_panel_box("/v1/predict/flexibility", "p--v1-predict-flexibility-steps", "Steps");
		check_panel_box("/v1/forecast/envelope", "p--v1-forecast-envelope-replicas", "Replicas");
		check_panel_box("/v1/plan/budget", "p--v1-plan-budget-budget_w", "Budget");
		check_panel_uses_form();
		check_add_compare();
		CHECK_INT(cdp_page_errors(B), 0);
	}
	page_session_close(&S);
	return check_report("test_browser_page_bad_number");
}
