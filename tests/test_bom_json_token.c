/*
 * Byte-order marks and the place of a JSON error (docs/formats/telemetry.md,
 * "Bad lines"; docs/http-api.md, "Errors"):
 * - a CSV log read line by line (power.csv, engine.csv, requests.csv)
 *   refuses a second mark where it is, in the words of every file read
 *   whole, not as a header lacking the columns it has (or silently);
 * - a mark inside a JSON text is named, not quoted as an invisible token;
 * - a JSON error points at the first character of its token, where
 *   jansson points at its last.
 */
#include "data/data.h"
#include "data/request_log.h"
#include "server/server.h"
#include "tests/support/support.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#define BOM "\xEF\xBB\xBF"

static int
keep(double t, const double *w, int n_gpus, void *payload)
{
	(void)t;
	(void)w;
	(void)n_gpus;
	(void)payload;
	return 0;
}

/* The refusal of reading `text` as `name` with every line reader. */
static void
csv_refused(const char *dir, const char *name, const char *text, const char *want)
{
	char *p = test_fixture(dir, name, text);
	wc_telemetry_options opt = WC_TELEMETRY_OPTIONS_INIT;
	wc_error err;
	memset(&err, 0, sizeof err);
	int rc;
	if (strstr(name, "requests")) {
		wc_request_log *log = NULL;
		rc = wc_request_log_read(p, &opt, &log, &err);
		wc_request_log_free(log);
	} else if (strstr(name, "engine")) {
		wc_engine_log *e = NULL;
		rc = wc_engine_read(p, &opt, 0, &e, &err);
		wc_engine_free(e);
	} else {
		wc_nvsmi_info info;
		rc = wc_nvsmi_read(p, &opt, keep, NULL, &info, &err);
	}
	CHECK(rc != WC_OK);
	CHECK_CONTAINS(err.msg, want);
	CHECK(strstr(err.msg, BOM) == NULL);
	free(p);
}

static void
csv_second_mark(void)
{
	char *dir = test_tmpdir("bom_json_token");
	static const char req[] = "arrival_s,completion_s\n1700000000.0,1700000001.5\n1700000001.0,1700000002.5\n";
	static const char eng[] = "timestamp,num_requests_running\n1700000000.0,4\n1700000001.0,5\n";
	static const char pow[] = "timestamp, index, power.draw [W]\n"
	                          "2024/01/01 00:00:00.000, 0, 250.00 W\n"
	                          "2024/01/01 00:00:00.100, 0, 251.00 W\n";
	const char *names[] = {"r2_requests.csv", "r2_engine.csv", "r2_power.csv"};
	const char *bodies[] = {req, eng, pow};
	char text[512], want[128];
	for (int i = 0; i < 3; i++) {
		/* back to back: line 1, column 1 (it was "header needs
		 * 'arrival_s' and 'completion_s'", "no 'timestamp' column", or
		 * nothing for power.csv) */
		snprintf(text, sizeof text, BOM BOM "%s", bodies[i]);
		snprintf(want, sizeof want, "%s:1:1: a second byte-order mark (U+FEFF) after the first: save at most one",
		         names[i]);
		csv_refused(dir, names[i], text, want);
		/* past a CRLF: line 2, column 1, as a file read whole says */
		snprintf(text, sizeof text, BOM "\r\n" BOM "%s", bodies[i]);
		snprintf(want, sizeof want, "%s:2:1: a second byte-order mark (U+FEFF)", names[i]);
		csv_refused(dir, names[i], text, want);
	}
	free(dir);
}

static void
json_token_start(void)
{
	wc_error err;
	wc_params p = WC_PARAMS_INIT;
	/* the token starts at column 11; jansson says 15, its last 'e' */
	static const char badp[] = "{\n  \"schema\": \"x\",\n  \"name\": truee\n}\n";
	CHECK(wc_params_load_buffer(badp, strlen(badp), "badp.json", &p, &err) != WC_OK);
	CHECK_CONTAINS(err.msg, "badp.json:3:11: malformed JSON: invalid token near 'truee'");
	wc_params_clear(&p);
	/* SIGHUP's reload of "{broken": column 2, not 7 */
	CHECK(wc_params_load_buffer("{broken", 7, "mine.json", &p, &err) != WC_OK);
	CHECK_CONTAINS(err.msg, "mine.json:1:2: ");
	wc_params_clear(&p);
	/* counted in characters, as jansson's column is: the tab, a control
	 * character in the string, at itself, 10, after two "é" of two bytes
	 * each (jansson says 9, the character before; the quote, 7, was
	 * given until the fault inside a string was placed) */
	static const char utf[] = "{\"b\": \"\xc3\xa9\xc3\xa9\t\"}";
	CHECK(wc_params_load_buffer(utf, strlen(utf), "u.json", &p, &err) != WC_OK);
	CHECK_CONTAINS(err.msg, "u.json:1:10: ");
	wc_params_clear(&p);
	wc_params base = WC_PARAMS_INIT;
	wc_calibrate_request cr;
	wc_params_default(&base);
	CHECK(wc_calibrate_request_read("{\"a\": truee}", 12, &base, &cr, &err) != WC_OK);
	CHECK_CONTAINS(err.msg, "calibration request: 1:7: ");
	wc_params_clear(&base);
	/* near end of file: jansson's place, as before */
	json_error_t e;
	int line, column;
	CHECK(json_loads("{\"a\": 1", 0, &e) == NULL);
	wc_json_error_at(&e, NULL, 0, &line, &column);
	CHECK_INT(column, e.column > 0 ? e.column : 1);
}

static void
json_mark_inside(void)
{
	wc_error err;
	wc_params p = WC_PARAMS_INIT;
	static const char mid[] = "{\"platform\":\"H100\"," BOM "\"model\":\"Qwen3-8B\",\"concurrency\":8}";
	CHECK(wc_params_load_buffer(mid, strlen(mid), "bommid.json", &p, &err) != WC_OK);
	CHECK_CONTAINS(err.msg, "bommid.json:1:20: malformed JSON: string or '}' expected near a byte-order mark "
	                        "(U+FEFF): remove it");
	CHECK(strstr(err.msg, BOM) == NULL);
	wc_params_clear(&p);
	wc_telemetry_options opt = WC_TELEMETRY_OPTIONS_INIT;
	wc_request_log *log = NULL;
	static const char req[] = "[\n  " BOM "{\"arrival_s\": 1, \"completion_s\": 2}]";
	CHECK(wc_request_log_read_json_buffer(req, strlen(req), "requests.json", &opt, &log, &err) != WC_OK);
	CHECK_CONTAINS(err.msg, "requests.json:2:3: ");
	CHECK_CONTAINS(err.msg, "near a byte-order mark (U+FEFF)");
	CHECK(strstr(err.msg, BOM) == NULL);
	wc_request_log_free(log);
}

int
main(void)
{
	csv_second_mark();
	json_token_start();
	json_mark_inside();
	return check_report("test_bom_json_token");
}
