/*
 * The place of a JSON error (docs/formats/params-file.md, "Loading is
 * strict"; docs/http-api.md, "Errors"): a bad escape in a string at its
 * backslash (it was at the string's opening quote), a control character
 * in a string at itself, and a bad token at its first character whatever
 * its length (jansson quotes 20 bytes at most: a longer token kept its
 * last character's column). Parameter files and run manifests here; the
 * HTTP body in test_server_utf8_bom_body.
 */
#include "data/data.h"
#include "tests/support/support.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

/* The refusal of `text` as a parameter file and as a run manifest. */
static void
json_place(const char *text, const char *want)
{
	wc_error err;
	wc_params p = WC_PARAMS_INIT;
	char w[128];
	CHECK(wc_params_load_buffer(text, strlen(text), "q1.json", &p, &err) != WC_OK);
	snprintf(w, sizeof w, "q1.json:%s", want);
	CHECK_CONTAINS(err.msg, w);
	wc_params_clear(&p);
	wc_run_manifest m;
	wc_run_manifest_init(&m);
	CHECK(wc_run_manifest_load_buffer(text, strlen(text), "wattcast-run.json", &m, &err) != WC_OK);
	snprintf(w, sizeof w, "wattcast-run.json:%s", want);
	CHECK_CONTAINS(err.msg, w);
}

static void
json_fault(void)
{
	/* a bad escape at its backslash (jansson: the character after, 11;
	 * until the last fix 11, then the string's quote, 7) */
	json_place("{\"a\": \"C:\\data\"}", "1:10: ");
	json_place("{\"a\": \"C:\\u12G4\"}", "1:10: ");
	json_place("{\"a\": \"\xc3\xa9\\q\"}", "1:9: ");
	/* a string over 20 bytes: jansson quotes none of it, says 51 */
	json_place("{\"note\": \"measured by alice on the A100 box at D:\\data\"}", "1:50: ");
	/* a token over 20 bytes at its first character (jansson: its last, 310) */
	char big[400];
	strcpy(big, "{\"a\": true");
	for (int i = 0; i < 300; i++)
		strcat(big, "e");
	strcat(big, "}");
	json_place(big, "1:7: ");
	json_place("{\"a\": 12345678901234567890123.x}", "1:7: ");
	json_place("{\"b\": 1, \"aaaaaaaaaaaaaaaaaaaaaaaaaaaa\" \"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb\"}", "1:41: ");
	/* short tokens as before */
	json_place("{\"a\": truee}", "1:7: ");
	/* a control character in a string at itself (jansson: the one before) */
	json_place("{\"b\": \"\xc3\xa9\xc3\xa9\t\"}", "1:10: ");
	/* the quote alone, without the text: the backslash still */
	json_error_t e;
	int line, column;
	CHECK(json_loads("{\"a\": \"C:\\data\"}", 0, &e) == NULL);
	wc_json_error_at(&e, NULL, 0, &line, &column);
	CHECK_INT(column, 10);
}

int
main(void)
{
	json_fault();
	return check_report("test_json_error_fault");
}
