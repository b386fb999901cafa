/*
 * Run folders as other serving stacks and tools write them
 * (docs/formats/telemetry.md): TGI's engine gauges give n(t); an
 * engine.csv without any running gauge is named as read, with the
 * spellings that are one; a request log of appended runs (one JSON
 * document a line, SGLang's bench_serving --output-file) or without
 * arrival times is refused saying so and that engine.csv's n(t) is there
 * without it; a UTF-16 log (PowerShell's `>`) is refused as UTF-16, not
 * as a control byte.
 */
#include "tests/support/support.h"
#include "tests/support/synth_folder.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The folder's engine.csv with its header's gauge renamed. */
static void
rename_gauge(const char *dir, const char *to)
{
	char *e = path_join(dir, "engine.csv"), *text = test_slurp(e);
	CHECK(text != NULL);
	if (text) {
		text = test_replaced(text, "num_requests_running", to);
		CHECK_INT(write_text(e, text), 0);
	}
	free(text);
	free(e);
}

/* `text` (ASCII) as UTF-16, little or big endian, with a byte order mark
 * or (bom = 0, as iconv -t UTF-16LE writes) without one. */
static void
write_utf16(const char *path, const char *text, int big, int bom)
{
	FILE *f = fopen(path, "wb");
	CHECK(f != NULL);
	if (!f)
		return;
	if (bom)
		fputs(big ? "\xFE\xFF" : "\xFF\xFE", f);
	for (const char *c = text; *c; c++) {
		char u[2] = { big ? 0 : *c, big ? *c : 0 };
		fwrite(u, 1, 2, f);
	}
	fclose(f);
}

static run_result
ingest(const char *run, const char *out)
{
	run_result r;
	const char *argv[] = { "wattcast", "ingest", run, "-o", out, NULL };
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	return r;
}

int
main(void)
{
	char *dir = test_tmpdir("ingest_other_stacks"), *out = path_join(dir, "runs.csv"), v[64];
	const double t0 = 1784415000.0;

	/* TGI: tgi_batch_current_size is the requests in the running batch
	 * (its queue, tgi_queue_size, the waiting ones). */
	char *tgi = synth_run_folder(dir, "tgi", "tgi", t0, 20, 3);
	rename_gauge(tgi, "tgi_batch_current_size");
	run_result r = ingest(tgi, out);
	CHECK_INT(r.status, 0);
	run_result_free(&r);
	char *csv = test_slurp(out);
	CHECK(csv != NULL);
	if (csv) {
		test_csv_field(csv, "running", v, sizeof v);
		CHECK_NEAR(atof(v), 3.0, 1e-9);
		test_csv_field(csv, "n_source", v, sizeof v);
		CHECK(strcmp(v, "engine") == 0);
	}
	free(csv);

	/* engine.csv read, no running gauge in it: named, with the spellings. */
	char *none = synth_run_folder(dir, "none", "none", t0, 20, 3);
	rename_gauge(none, "tgi_request_generated_tokens_sum");
	r = ingest(none, out);
	CHECK(r.status != 0);
	CHECK_CONTAINS(r.err, "engine.csv: no n(t): read, but no column is a running count");
	CHECK_CONTAINS(r.err, "num_running_reqs");
	CHECK_CONTAINS(r.err, "tgi_batch_current_size");
	run_result_free(&r);

	/* Appended runs, one JSON document a line, beside a usable engine.csv. */
	char *sgl = synth_run_folder(dir, "sgl", "sgl", t0, 20, 3), *req = path_join(sgl, "requests.json");
	const char *doc = "{\"backend\":\"sglang\",\"ttfts\":[0.3,0.2],\"output_lens\":[31,44],\"itls\":[[0.01],[0.01]]}\n";
	char two[512];
	snprintf(two, sizeof two, "%s%s", doc, doc);
	CHECK_INT(write_text(req, two), 0);
	r = ingest(sgl, out);
	CHECK(r.status != 0);
	CHECK_CONTAINS(r.err, "requests.json:2:1: a second JSON document begins here");
	CHECK_CONTAINS(r.err, "keep one per file");
	CHECK_CONTAINS(r.err, "engine.csv has n(t): move this log aside");
	run_result_free(&r);

	/* One document without arrival times: the same way out is named. */
	CHECK_INT(write_text(req, doc), 0);
	r = ingest(sgl, out);
	CHECK(r.status != 0);
	CHECK_CONTAINS(r.err, "nor 'start_times'");
	CHECK_CONTAINS(r.err, "engine.csv has n(t): move this log aside");
	run_result_free(&r);

	/* UTF-16 logs, either byte order, through the line reader and the
	 * whole-file reader alike. */
	char *p16 = path_join(dir, "power16.csv");
	const char *log = "timestamp, index, power.draw [W]\n2026/07/18 10:00:00.000, 0, 250.00 W\n"
	                  "2026/07/18 10:00:00.250, 0, 251.00 W\n2026/07/18 10:00:00.500, 0, 252.00 W\n";
	for (int big = 0; big <= 1; big++) {
		write_utf16(p16, log, big, 1);
		const char *me[] = { "wattcast", "metrics", p16, NULL };
		CHECK_INT(run_wattcast(me, NULL, &r), 0);
		CHECK_INT(r.status, 1);
		CHECK_CONTAINS(r.err, big ? "power16.csv:1: UTF-16 text (byte order mark FE FF): re-save as UTF-8"
		                          : "power16.csv:1: UTF-16 text (byte order mark FF FE): re-save as UTF-8");
		CHECK(strstr(r.err ? r.err : "", "control byte") == NULL);
		run_result_free(&r);
		/* Without a byte order mark: the same refusal, not a control byte. */
		write_utf16(p16, log, big, 0);
		CHECK_INT(run_wattcast(me, NULL, &r), 0);
		CHECK_INT(r.status, 1);
		CHECK_CONTAINS(r.err, big ? "power16.csv:1: UTF-16BE text (no byte order mark): re-save as UTF-8"
		                          : "power16.csv:1: UTF-16LE text (no byte order mark): re-save as UTF-8");
		CHECK(strstr(r.err ? r.err : "", "control byte") == NULL);
		run_result_free(&r);
		/* A non-ASCII header ('indéx', E9 00 in UTF-16LE) in the first
		 * bytes: told by its 0x00 positions, not refused as a control
		 * byte (docs/formats/telemetry.md, "Bad lines"). */
		write_utf16(p16, "timestamp, ind\xE9x, power.draw [W]\n2026/07/18 10:00:00.000, 0, 250.00 W\n", big, 0);
		CHECK_INT(run_wattcast(me, NULL, &r), 0);
		CHECK_INT(r.status, 1);
		CHECK_CONTAINS(r.err, big ? "power16.csv:1: UTF-16BE text (no byte order mark)"
		                          : "power16.csv:1: UTF-16LE text (no byte order mark)");
		CHECK(strstr(r.err ? r.err : "", "control byte") == NULL);
		run_result_free(&r);
	}
	/* A 'µs' header on a running series (B5 00) and one character beyond
	 * Latin-1 (U+6570, 70 65) among 32 units: UTF-16LE all the same. */
	write_utf16(p16, "\xB5s,running\n0,8\n1,0\n", 0, 0);
	{
		const char *pr[] = { "wattcast", "predict", "inference", "--platform", "H100", "--model", "Qwen3-8B",
			             "--running-series", p16, NULL };
		CHECK_INT(run_wattcast(pr, NULL, &r), 0);
		CHECK(r.status != 0);
		CHECK_CONTAINS(r.err, "power16.csv:1: UTF-16LE text (no byte order mark)");
		CHECK(strstr(r.err ? r.err : "", "expected two fields") == NULL);
		run_result_free(&r);
		write_utf16(p16, "timestamp, index, power.draw [W]\n2026/07/18 10:00:00.000, 0, 250 W\n", 0, 0);
		FILE *f = fopen(p16, "r+b"); /* the unit of "p" (70 00) made U+6570: 70 65 */
		CHECK(f != NULL);
		if (f) {
			CHECK(fseek(f, 2 * 18 + 1, SEEK_SET) == 0);
			fputc(0x65, f);
			fclose(f);
		}
		const char *me[] = { "wattcast", "metrics", p16, NULL };
		CHECK_INT(run_wattcast(me, NULL, &r), 0);
		CHECK_INT(r.status, 1);
		CHECK_CONTAINS(r.err, "power16.csv:1: UTF-16LE text (no byte order mark)");
		run_result_free(&r);
	}
	write_utf16(req, doc, 0, 1);
	r = ingest(sgl, out);
	CHECK(r.status != 0);
	CHECK_CONTAINS(r.err, "requests.json:1: UTF-16 text (byte order mark FF FE)");
	run_result_free(&r);
	/* A JSON document without one: refused as UTF-16, not as a syntax error. */
	write_utf16(req, doc, 0, 0);
	r = ingest(sgl, out);
	CHECK(r.status != 0);
	CHECK_CONTAINS(r.err, "requests.json:1: UTF-16LE text (no byte order mark)");
	CHECK(strstr(r.err ? r.err : "", "expected") == NULL);
	run_result_free(&r);

	free(p16);
	free(req);
	free(sgl);
	free(none);
	free(tgi);
	free(out);
	free(dir);
	return check_report("test_ingest_other_stacks");
}
