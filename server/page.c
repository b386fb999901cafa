/*
 * The planner page (docs/planner.md): GET / answers server/page/index.html,
 * GET /page.js, /form.js, /answers.js, /panels.js and /calibration.js its
 * script (five classic scripts, one job each, which index.html loads in
 * that order)
 * and GET /page.css its style sheet. The files are embedded byte for byte
 * at build time with the assembler's .incbin, as openapi.c embeds the
 * OpenAPI document (the server target has its own folder as a private
 * include directory, so "page/index.html" is found through it). The page
 * is static: it talks to the JSON API with fetch, so serving it needs
 * nothing but these bytes and adds no library.
 */
#include "routes_internal.h"

#include <civetweb.h>
#include <string.h>

/* One embedded file: the symbols `wc__page_<name>` and `..._end`. */
#define WC_EMBED(name, file)                                                    \
	extern const char wc__page_##name[];                                        \
	extern const char wc__page_##name##_end[];                                  \
	__asm__(".section .rodata\n"                                                \
	        ".balign 16\n"                                                      \
	        ".global wc__page_" #name "\n"                                      \
	        ".hidden wc__page_" #name "\n"                                      \
	        "wc__page_" #name ":\n"                                             \
	        ".incbin \"" file "\"\n"                                            \
	        ".global wc__page_" #name "_end\n"                                  \
	        ".hidden wc__page_" #name "_end\n"                                  \
	        "wc__page_" #name "_end:\n"                                         \
	        ".byte 0\n"                                                         \
	        ".previous\n")

WC_EMBED(html, "page/index.html");
WC_EMBED(js, "page/page.js");
WC_EMBED(form_js, "page/form.js");
WC_EMBED(answers_js, "page/answers.js");
WC_EMBED(panels_js, "page/panels.js");
WC_EMBED(calibration_js, "page/calibration.js");
WC_EMBED(css, "page/page.css");

/* The page loads nothing but its own script, style sheet and API answers
 * (no CDN, no inline script): the browser enforces it. */
static const char page_csp[] =
	"Content-Security-Policy: default-src 'none'; script-src 'self'; style-src 'self'; "
	"connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'self'; "
	"frame-ancestors 'none'\r\n"
	"X-Content-Type-Options: nosniff\r\n";

static void
answer(wc_response *res, const char *type, const char *begin, const char *end)
{
	wc_response_static(res, 200, type, begin, (size_t)(end - begin));
	res->extra_headers = "X-Content-Type-Options: nosniff\r\n";
}

void
wc_route_page(wc_request *req, wc_response *res)
{
	(void)req;
	answer(res, "text/html; charset=utf-8", wc__page_html, wc__page_html_end);
	res->extra_headers = page_csp;
}

/* The page's scripts (docs/planner.md), each at its own path: one route
 * function for all of them, the file chosen by the path asked. */
void
wc_route_page_script(wc_request *req, wc_response *res)
{
	static const struct {
		const char *path, *begin, *end;
	} scripts[] = {
		{ "/page.js", wc__page_js, wc__page_js_end },
		{ "/form.js", wc__page_form_js, wc__page_form_js_end },
		{ "/answers.js", wc__page_answers_js, wc__page_answers_js_end },
		{ "/panels.js", wc__page_panels_js, wc__page_panels_js_end },
		{ "/calibration.js", wc__page_calibration_js, wc__page_calibration_js_end },
	};
	const struct mg_request_info *ri = mg_get_request_info(req->conn);
	const char *uri = ri && ri->local_uri ? ri->local_uri : "";
	for (size_t i = 0; i < sizeof scripts / sizeof scripts[0]; i++)
		if (strcmp(uri, scripts[i].path) == 0) {
			answer(res, "text/javascript; charset=utf-8", scripts[i].begin, scripts[i].end);
			return;
		}
	wc_response_static(res, 404, "text/plain; charset=utf-8", "not found\n", 10);
}

void
wc_route_page_css(wc_request *req, wc_response *res)
{
	(void)req;
	answer(res, "text/css; charset=utf-8", wc__page_css, wc__page_css_end);
}
