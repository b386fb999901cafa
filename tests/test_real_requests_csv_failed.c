/*
 * The real A100 trace replay (PowerTrace-Sim, ..083) with its request log
 * written as a requests.csv (label realdata): its 4 requests, then a failed
 * one as load generators write it, its completion and output count blank
 * (`1784415086.530259,,,3000,,False,Server disconnected`). A failed request
 * is left out whatever its blank cells (docs/formats/telemetry.md,
 * "Request logs": one rule for both forms, as requests.json's with an
 * `errors` entry), and the row is the requests.json one's; the blank
 * completion made the run refused as a bad line. A log refused for a
 * bad line of a served request says its remedy whole, in 255 bytes, with
 * the run folder's name: the 255-byte refusal ended "...move this log
 * aside to ingest the run withou..." and had lost the folder.
 * Skipped (77) when ../shared is absent.
 */
#include "tests/support/ingest_run.h"
#include "tests/support/support.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* requests.csv of the replay's requests.json at `src`, the third line's
 * completion written `third` when not NULL, and the failed request. */
static char *
csv_of(const char *src, const char *third)
{
	char *p = path_join(src, "requests.json");
	json_error_t je;
	json_t *j = json_load_file(p, 0, &je);
	char *buf = NULL;
	size_t len = 0, cap = 0;
	CHECK(j != NULL);
	test_appendf(&buf, &len, &cap, "arrival_s,first_token_s,completion_s,input_tokens,output_tokens,success,errors\n");
	json_t *a = json_object_get(j, "request_timestamps"), *t = json_object_get(j, "ttfts"),
	       *itl = json_object_get(j, "itls"), *in = json_object_get(j, "input_lens"),
	       *out = json_object_get(j, "output_lens");
	CHECK_INT(json_array_size(a), 4);
	for (size_t i = 0; i < json_array_size(a); i++) {
		double ar = json_number_value(json_array_get(a, i)), tt = json_number_value(json_array_get(t, i));
		double gap = json_number_value(json_array_get(itl, i));
		long o = (long)json_integer_value(json_array_get(out, i));
		char end[64];
		snprintf(end, sizeof end, "%.17g", ar + tt + gap * (double)(o - 1));
		test_appendf(&buf, &len, &cap, "%.17g,%.17g,%s,%ld,%ld,True,\n", ar, ar + tt,
		             i == 1 && third ? third : end, (long)json_integer_value(json_array_get(in, i)), o);
	}
	test_appendf(&buf, &len, &cap, "1784415086.530259,,,3000,,False,Server disconnected\n");
	json_decref(j);
	free(p);
	return buf;
}

/* A copy of `src` in `run` with a requests.csv `csv` for its requests.json. */
static void
make_run(const char *src, const char *run, const char *csv)
{
	const char *files[] = { "power.csv", "engine.csv", "manifest.json" };
	char *text[3] = { NULL, NULL, NULL };
	mkdir(run, 0755);
	if (test_read_texts(src, files, 3, text))
		for (int k = 0; k < 3; k++)
			free(test_fixture(run, files[k], text[k]));
	free(test_fixture(run, "requests.csv", csv));
	for (int k = 0; k < 3; k++)
		free(text[k]);
}

int
main(void)
{
	const char *shared = test_shared_dir();
	if (!shared)
		return TEST_SKIP;
	char *src = path_join(shared, "data/real/powertrace-sim/trace_replay_smoke_qwen3-8b_a100/"
	                              "a100_trace_replay_tp1_1784415083");
	char *root = test_tmpdir("real_requests_csv_failed"), *t5 = path_join(root, "t5"),
	     *t5x = path_join(root, "t5x");
	char *csv = csv_of(src, NULL), *bad = csv_of(src, "x");
	make_run(src, t5, csv);
	make_run(src, t5x, bad);

	wc_ingest_options o;
	wc_ingest_result whole = { NULL, 0, 0 }, res = { NULL, 0, 0 };
	test_warnings w;
	wc_error err;
	wc_ingest_options_init(&o);
	CHECK_INT(test_ingest_with(src, &o, &whole, &w, &err), WC_OK);
	wc_ingest_options_init(&o);
	int rc = test_ingest_with(t5, &o, &res, &w, &err);
	CHECK_INT(rc, WC_OK);
	if (rc != WC_OK)
		fprintf(stderr, "%s\n", err.msg);
	CHECK_CONTAINS(w.text, "1 of 5 requests failed");
	CHECK(strstr(w.text, "expected a number") == NULL);
	CHECK_INT(res.n_rows, 1);
	if (res.n_rows == 1 && whole.n_rows == 1) {
		/* the request log's row: 0.954 running, 5.45 J/token */
		CHECK_NEAR(res.rows[0].run.running, whole.rows[0].run.running, 1e-9);
		CHECK_NEAR(res.rows[0].run.energy_per_token_j, whole.rows[0].run.energy_per_token_j, 1e-6);
		CHECK_NEAR(res.rows[0].requests, whole.rows[0].requests, 1e-6);
	}
	wc_ingest_result_clear(&res);
	wc_ingest_result_clear(&whole);

	/* a served request's completion 'x': refused, the remedy whole, as
	 * the command line says it (its --max-bad hint makes it longest) */
	char *out = path_join(root, "t5x.csv");
	const char *argv[] = { "wattcast", "ingest", t5x, "-o", out, NULL };
	run_result r;
	run_wattcast(argv, NULL, &r);
	CHECK(r.status != 0);
	char *line = test_line_with(r.err, "fix the bad lines");
	const char *msg = strncmp(line, "wattcast ingest: ", 17) == 0 ? line + 17 : line;
	fprintf(stderr, "refusal (%zu bytes): %s\n", strlen(msg), msg);
	CHECK(strlen(msg) <= 255);
	CHECK(test_utf8_ok(msg));
	CHECK_CONTAINS(msg, "/t5x/requests.csv: fix the bad lines or allow more with --max-bad FRACTION: 1 of 5");
	/* the reader's reason keeps what the room allows (its end gives way,
	 * "...", in a deeper folder: a clean clone's build-asan), the remedy
	 * always whole */
	CHECK_CONTAINS(msg, ": completion_s: expected a number, g");
	CHECK_CONTAINS(msg, "; engine.csv has n(t): move this log aside to ingest without it");
	size_t n = strlen(msg);
	CHECK(n > 10 && strcmp(msg + n - 10, "without it") == 0);
	CHECK(!test_exists(out));
	free(line);
	free(out);
	run_result_free(&r);
	free(csv);
	free(bad);
	free(t5);
	free(t5x);
	free(root);
	free(src);
	return check_report("test_real_requests_csv_failed");
}
