/*
 * What the planner page's browser tests (tests/test_browser_*.c) share
 * (docs/planner.md, "Tests"): a parameter set fitted from the embedded
 * default table with 100 bootstrap draws, a real `wattcast serve` on it
 * (and on further sets as profiles, when asked) at 127.0.0.1:0 (a child
 * process, as a planner runs it), headless Chromium at 1280 x 800 with a
 * fresh profile, and the few steps every check uses: the API's own answer
 * to compare with, a shown number checked against it, choosing a value,
 * waiting for the page to finish a computation, evaluating a statement.
 *
 * Ownership: page_session_close frees what page_session_open made;
 * page_api_post returns a new reference.
 */
#ifndef WC_TEST_PAGE_SESSION_H
#define WC_TEST_PAGE_SESSION_H

#include <curl/curl.h>
#include <jansson.h>
#include <sys/types.h>

#include "tests/browser/cdp.h"

/* Long enough for a loaded machine; only a broken page waits this long. */
#define PAGE_WAIT_S 30.0

typedef struct {
	cdp *b;      /* the browser; NULL when it or the server did not start */
	CURL *h;     /* for the API's own answers */
	int port;    /* the server's; 0 when it did not start */
	pid_t server;
	char *dir;   /* the test's folder under WC_TEST_TMP */
} page_session;

/** Fit, serve and launch, in the test's own folder `name` under
 *  WC_TEST_TMP. TEST_SKIP (after a message) when Chromium is not
 *  installed; else 0, with failed CHECKs and `b` NULL when something did
 *  not start. page_session_close in either case but the skip. */
int page_session_open(page_session *s, const char *name);

/** As page_session_open, the server also serving the parameter files
 *  `more` (NULL-terminated; made by the caller outside the session's
 *  folder, which is cleared) as further profiles, the fitted set staying
 *  the default (docs/http-api.md, "Profiles"). */
int page_session_open_more(page_session *s, const char *name, const char *const *more);

/** The built-in profile `measured` as a parameter file, `dir`/measured.json
 *  (`wattcast profile export`; a failed CHECK when it fails): malloc'd path. */
char *page_measured_export(const char *dir);

/** As page_session_open_more with one further profile, the built-in
 *  `measured` exported into the folder `name`_sets under WC_TEST_TMP: the
 *  fitted set has no capacity section, `measured` has (capacity rows,
 *  reasons, panels). TEST_SKIP as page_session_open. */
int page_session_open_measured(page_session *s, const char *name);

/** Close the browser, stop the server, free everything. */
void page_session_close(page_session *s);

/** The API's answer to a POST of `body` to `url`, straight through
 *  libcurl (new reference; NULL when not JSON). */
json_t *page_api_post(CURL *h, const char *url, const char *body);

/** Wait for the page to finish computation number `n` (its status's
 *  data-runs, and not busy). 1 = done, 0 = not within PAGE_WAIT_S. */
int page_wait_runs(cdp *b, int n);

/** 1 when `expr` evaluates to true in the page; when not, `expr` on
 *  stderr, so that a CHECK of it that fails says what did not hold. */
int page_truth(cdp *b, const char *expr);

/** The text of the first element CSS `selector` matches, "" when none
 *  (malloc'd, as cdp_eval_str). The selector goes into the page in single
 *  quotes: it holds none. */
char *page_text_of(cdp *b, const char *selector);

/** The computations the page has finished (its status's data-runs). */
int page_runs_done(cdp *b);

/** Focus the box `id` and replace its text by typing `text`. */
void page_type_into(cdp *b, const char *id, const char *text);

/** Evaluate `expr` in the page; a failed CHECK when it throws. */
void page_eval_ok(cdp *b, const char *expr);

/** The k-th number in `text` equals `want` to the digits shown (within
 *  half a unit of its last digit) and shows at least three significant
 *  digits, so neither a wrong number nor a coarse one passes; a failed
 *  CHECK naming `what` otherwise. */
void page_check_shown(const char *text, int k, double want, const char *what);

/** Choose `value` in the control `id` as a user does (focus, change
 *  event); a failed CHECK when the control does not take it. */
void page_choose(cdp *b, const char *id, const char *value);

#endif
