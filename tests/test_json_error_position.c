/*
 * Where a JSON file is not JSON, every reader names it 1-based, as the
 * API's "line"/"column" do (wc_json_error_at; docs/http-api.md, "Errors"):
 * a text ending after a newline is refused at column 1 of the line after
 * it, where jansson says column 0 -- a parameter file (predict --params,
 * SIGHUP's reload), a run manifest, a request log (--replay), a
 * Prometheus answer (--prometheus-json), a trainer state and the
 * calibration worker's request alike.
 */
#include "data/data.h"
#include "data/prom.h"
#include "data/request_log.h"
#include "server/server.h"
#include "tests/support/support.h"

#include <jansson.h>
#include <stdlib.h>

static const char broken[] = "{\"broken\":\n";

static void
file_readers(void)
{
	wc_error err;
	wc_params p = WC_PARAMS_INIT;
	CHECK(wc_params_load_buffer(broken, strlen(broken), "p.json", &p, &err) != WC_OK);
	CHECK_CONTAINS(err.msg, "p.json:2:1: malformed JSON: ");
	wc_params_clear(&p);

	wc_run_manifest m;
	wc_run_manifest_init(&m);
	CHECK(wc_run_manifest_load_buffer(broken, strlen(broken), "wattcast-run.json", &m, &err) != WC_OK);
	CHECK_CONTAINS(err.msg, "wattcast-run.json:2:1: ");

	wc_telemetry_options opt = WC_TELEMETRY_OPTIONS_INIT;
	wc_request_log *log = NULL;
	CHECK(wc_request_log_read_json_buffer(broken, strlen(broken), "req.json", &opt, &log, &err) != WC_OK);
	CHECK_CONTAINS(err.msg, "req.json:2:1: ");
	wc_request_log_free(log);

	wc_prom_set set;
	memset(&set, 0, sizeof set);
	CHECK(wc_prom_json_parse(broken, strlen(broken), "prom.json", NULL, &set, NULL, NULL, &err) != WC_OK);
	CHECK_CONTAINS(err.msg, "prom.json:2:1: ");
	wc_prom_set_clear(&set);

	char *dir = test_tmpdir("json_error_position"), *path = path_join(dir, "trainer_state.json");
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (f) {
		fputs(broken, f);
		fclose(f);
		wc_trainer_state st;
		CHECK(wc_trainer_state_read(path, &st, &err) != WC_OK);
		CHECK_CONTAINS(err.msg, "trainer_state.json:2:1: ");
		wc_trainer_state_free(&st);
	}
	free(path);
	free(dir);

	wc_params base = WC_PARAMS_INIT;
	wc_calibrate_request cr;
	wc_params_default(&base);
	CHECK(wc_calibrate_request_read(broken, strlen(broken), &base, &cr, &err) != WC_OK);
	CHECK_CONTAINS(err.msg, "calibration request: 2:1: ");
	wc_params_clear(&base);
}

/* The rule itself: a position within a line is kept, jansson's 0s are 1. */
static void
the_rule(void)
{
	json_error_t e;
	int line, column;
	CHECK(json_loads("{\"a\": x}", 0, &e) == NULL);
	wc_json_error_at(&e, NULL, 0, &line, &column);
	CHECK_INT(line, 1);
	CHECK_INT(column, e.column);
	CHECK(e.column > 1);
	CHECK(json_loads(broken, 0, &e) == NULL);
	CHECK_INT(e.column, 0); /* what jansson says, which no message repeats */
	wc_json_error_at(&e, NULL, 0, &line, &column);
	CHECK_INT(line, 2);
	CHECK_INT(column, 1);
}

int
main(void)
{
	file_readers();
	the_rule();
	return check_report("test_json_error_position");
}
