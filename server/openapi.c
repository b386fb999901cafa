/*
 * GET /openapi.json: the OpenAPI 3.1 document of this API. The document
 * is the file server/openapi.json, embedded byte for byte at build time
 * with the assembler's .incbin (found through the include path: the
 * server target has its own folder as a private include directory, and
 * gcc hands -I to the assembler). The server tests
 * validate its examples against its schemas and send them to a live
 * server, and compare the served bytes with the file in the source tree,
 * so the document cannot drift from the code or from the build.
 */
#include "routes_internal.h"

#include <string.h>

extern const char wc__openapi_json[];
extern const char wc__openapi_json_end[];

__asm__(".section .rodata\n"
        ".balign 16\n"
        ".global wc__openapi_json\n"
        ".hidden wc__openapi_json\n"
        "wc__openapi_json:\n"
        ".incbin \"openapi.json\"\n"
        ".global wc__openapi_json_end\n"
        ".hidden wc__openapi_json_end\n"
        "wc__openapi_json_end:\n"
        ".byte 0\n"
        ".previous\n");

const char *
wc_openapi_document(size_t *len)
{
	*len = (size_t)(wc__openapi_json_end - wc__openapi_json);
	return wc__openapi_json;
}

void
wc_route_openapi(wc_request *req, wc_response *res)
{
	size_t len;
	const char *doc = wc_openapi_document(&len);
	(void)req;
	wc_response_static(res, 200, NULL, doc, len);
}
