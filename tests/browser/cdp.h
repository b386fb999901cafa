/*
 * A minimal Chrome DevTools Protocol client for the browser tests
 * (tests/test_browser_*.c): it starts Debian's headless Chromium with a
 * fresh profile and speaks the protocol over --remote-debugging-pipe
 * (JSON messages separated by NUL bytes on file descriptors 3 and 4).
 * The pipe needs no port, no HTTP discovery and no WebSocket framing, and
 * Chromium exits when the pipe closes, so a crashed test leaves no
 * browser behind. Messages are jansson values; only what the tests use is
 * here: commands on one page session, evaluation, polling, key presses.
 *
 * Ownership: cdp_launch returns a client freed by cdp_close; json_t
 * results are new references.
 */
#ifndef WC_TEST_CDP_H
#define WC_TEST_CDP_H

#include <jansson.h>
#include <stddef.h>

typedef struct cdp cdp;

/** The Chromium binary: $WC_CHROMIUM, else /usr/bin/chromium, else NULL. */
const char *cdp_chromium_path(void);

/** Start headless Chromium with a fresh profile in `profile_dir` (created
 *  empty by the caller), open one page of `width` x `height` CSS pixels
 *  and attach to it. NULL (and a message on stderr) on failure. */
cdp *cdp_launch(const char *chromium, const char *profile_dir, int width, int height);

/** As cdp_launch, with the scrollbars a desktop window shows (not overlays:
 *  they take their width from the page's). */
cdp *cdp_launch_scrollbars(const char *chromium, const char *profile_dir, int width, int height);

/** Close the browser, wait for it to exit, free everything. NULL is a no-op. */
void cdp_close(cdp *c);

/** Send `method` with `params` (stolen; NULL = {}) to the page session
 *  and wait for the answer: its "result" (new reference), or NULL after
 *  printing the protocol error. */
json_t *cdp_call(cdp *c, const char *method, json_t *params);

/** Evaluate a JavaScript expression in the page (promises awaited) and
 *  return its value (new reference; JSON null for undefined), or NULL
 *  after printing the exception. */
json_t *cdp_eval(cdp *c, const char *expr);

/** cdp_eval as a malloc'd string (the value if a string, else its JSON
 *  text); never NULL ("" on failure). */
char *cdp_eval_str(cdp *c, const char *expr);

/** Evaluate `expr` every 50 ms until it is truthy or `seconds` passed.
 *  1 = it became true; 0 = it did not (the expression is printed). */
int cdp_wait(cdp *c, const char *expr, double seconds);

/** Navigate the page to `url` and wait for its load event. 0 on success. */
int cdp_navigate(cdp *c, const char *url);

/** Type `text` into the focused element, as keyboard input. */
void cdp_type(cdp *c, const char *text);

/** Press and release a key: "Enter" or "Tab". */
void cdp_key(cdp *c, const char *key);

/** Set the viewport (CSS pixels; `mobile` = phone emulation). */
int cdp_viewport(cdp *c, int width, int height, int mobile);

/** Uncaught page exceptions and console errors (other than failed
 *  network loads, which the page answers itself) seen so far. */
int cdp_page_errors(const cdp *c);

#endif
