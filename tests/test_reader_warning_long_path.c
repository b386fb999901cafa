/*
 * A reader's message quotes the file's path before its text. Under a deep
 * folder (a clean clone's temporary path is longer than a developer's) the
 * streamed warnings passed the 255 bytes every message keeps to, and a
 * refusal's reason was what its cut left out. Now the path gives way in
 * its middle -- its head and its file name kept, joined by "..." -- and
 * the text stays whole (docs/architecture.md, "Errors"). The file's folder
 * is kept before its name when there is room: several runs each hold an
 * engine.csv, and the name alone did not say which run's was bad.
 */
#include "data/data.h"
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Each line of `text` within 255 bytes, naming `file` and holding `want`
 * somewhere in `text`. */
static void
bounded(const char *text, const char *file, const char *want)
{
	int lines = 0;
	for (const char *l = text; *l; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] != '\0')) {
		size_t n = strcspn(l, "\n");
		CHECK(n <= 255);
		char one[1200];
		snprintf(one, sizeof one, "%.*s", (int)n, l);
		CHECK_CONTAINS(one, file);
		if (n > 255)
			fprintf(stderr, "%zu bytes: %s\n", n, one);
		lines++;
	}
	CHECK(lines > 0);
	CHECK_CONTAINS(text, want);
}

int
main(void)
{
	char *dir = test_tmpdir("reader_warning_long_path"), deep[1024];
	/* nested folders to a path of about 230 bytes, one of them CJK, so a
	 * cut would fall inside a character were it a byte count */
	snprintf(deep, sizeof deep, "%s", dir);
	for (int k = 0; strlen(deep) < 200; k++) {
		size_t len = strlen(deep);
		snprintf(deep + len, sizeof deep - len, k == 3 ? "/模型目录_%d" : "/campaign_2026_07_18_node_%02d", k);
		CHECK(mkdir(deep, 0755) == 0);
	}
	char *p = path_join(deep, "engine.csv");
	CHECK(strlen(p) >= 210);

	/* 26 rows a second apart: line 14 malformed, the last unfinished */
	char body[4096] = "timestamp,num_requests_running,prompt_tokens_total,generation_tokens_total\n";
	for (int k = 0; k < 25; k++) {
		size_t len = strlen(body);
		snprintf(body + len, sizeof body - len, k == 12 ? "1012,4,6\n" : "%d,4,%d,%d\n", 1000 + k, 50 * k,
		         100 * k);
	}
	strcat(body, "1025,4,12");
	CHECK(write_text(p, body) == 0);

	wc_telemetry_options opt = WC_TELEMETRY_OPTIONS_INIT;
	test_warnings w = { "", 0 };
	opt.warn = test_collect_warning;
	opt.warn_payload = &w;
	opt.max_bad_option = "--max-bad";
	opt.max_bad_fraction = 0.5;
	wc_engine_log *e = NULL;
	wc_error err;
	CHECK_INT(wc_engine_read(p, &opt, 0, &e, &err), WC_OK);
	CHECK_INT(w.count, 2);
	bounded(w.text, "engine.csv", "engine.csv:27: unfinished last line (no newline: the log was still "
	        "being written); dropped\n");
	CHECK_CONTAINS(w.text, "engine.csv:14:9: expected 4 fields, found 3");
	/* the file's folder is kept with it: several runs each hold an
	 * engine.csv, and the folder says which */
	char named[1200];
	snprintf(named, sizeof named, "%s/engine.csv:14:9: expected 4 fields, found 3", strrchr(deep, '/'));
	CHECK_CONTAINS(w.text, named);
	/* the path's head is kept too, and no character is cut in two */
	CHECK(strncmp(w.text, dir, 20) == 0);
	CHECK(strstr(w.text, "...") != NULL);
	wc_engine_free(e);

	/* Refused: the reason whole, to its end */
	e = NULL;
	memset(&w, 0, sizeof w);
	opt.max_bad_fraction = 0.01;
	CHECK_INT(wc_engine_read(p, &opt, 0, &e, &err), WC_EPARSE);
	CHECK(strlen(err.msg) <= 255);
	/* err.msg may fill its 256 bytes: the line bounded() reads is a copy */
	char line[300];
	snprintf(line, sizeof line, "%s\n", err.msg);
	bounded(line, "engine.csv", "/engine.csv: fix the bad lines or allow more with --max-bad FRACTION: 1 "
	        "of 26 data lines are malformed (more than 1 %); the first: line 14:9: expected 4 fields, "
	        "found 3\n");
	snprintf(named, sizeof named, "...%s/engine.csv: fix the bad lines", strrchr(deep, '/'));
	CHECK_CONTAINS(err.msg, named);
	wc_engine_free(e);

	/* ingest's own warnings quote the run's folder the same way: every
	 * stderr line within 255 bytes after the CLI's prefix */
	char *run = path_join(deep, "run_folder_named_at_length_for_the_campaign"), csv[16384] = "timestamp, "
	                                                                                        "index, power.draw [W]\n";
	CHECK(mkdir(run, 0755) == 0);
	for (int i = 0; i < 300; i++) {
		size_t len = strlen(csv);
		snprintf(csv + len, sizeof csv - len, "2026/07/18 15:%02d:%02d.%03d, 0, 80.12\n", 57 + (25 + i / 4) / 60,
		         (25 + i / 4) % 60, 250 * (i % 4));
	}
	free(test_fixture(run, "power.csv", csv));
	free(test_fixture(run, "wattcast-run.json", "{\"schema\": \"wattcast.run/2\", \"run_id\": \"deep\", "
	                  "\"platform\": \"H100\", \"model\": \"Qwen/Qwen3-8B\", \"utc_offset_s\": 0}\n"));
	char *out = path_join(dir, "runs.csv");
	const char *argv[] = { "wattcast", "ingest", run, "-o", out, "--power-only", "--utc-offset", "3600", NULL };
	run_result r;
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	/* the folder's name and the whole reason, at the line's end */
	const char *tail = "run_folder_named_at_length_for_the_campaign: --utc-offset 3600 (the run says 0): not "
	                   "applied; what a run states (its manifest) wins over a flag";
	int seen = 0;
	for (const char *l = r.err; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : "") {
		const char *m = l;
		if (strncmp(m, "wattcast ingest: ", 17) == 0)
			m += 17;
		if (strncmp(m, "warning: ", 9) == 0)
			m += 9;
		size_t n = strcspn(m, "\n");
		CHECK(n <= 255);
		seen += n >= strlen(tail) && strncmp(m + n - strlen(tail), tail, strlen(tail)) == 0;
	}
	CHECK_INT(seen, 1);
	run_result_free(&r);
	free(out);
	free(run);

	/* A path that fits is quoted whole, as before */
	char *near = path_join(dir, "engine.csv");
	CHECK(write_text(near, body) == 0);
	memset(&w, 0, sizeof w);
	opt.max_bad_fraction = 0.5;
	CHECK_INT(wc_engine_read(near, &opt, 0, &e, &err), WC_OK);
	char want[1200];
	snprintf(want, sizeof want, "%s:14:9: expected 4 fields, found 3", near);
	CHECK_CONTAINS(w.text, want);
	wc_engine_free(e);

	/* The rule itself: a text too long even for "...<file name>" ends in "..." */
	char msg[WC_ERROR_MSG_MAX], big[400];
	memset(big, 'x', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	CHECK_INT(wc_error_format_path(msg, sizeof msg, p, ": %s", big), 1);
	CHECK(strlen(msg) == 255);
	CHECK(strncmp(msg, ".../engine.csv: xxx", 19) == 0);
	CHECK(strcmp(msg + 252, "...") == 0);
	/* room for the folder beside the text: head, "...", folder/file */
	big[150] = '\0';
	CHECK_INT(wc_error_format_path(msg, sizeof msg, p, ": %s", big), 1);
	snprintf(named, sizeof named, "...%s/engine.csv: xxx", strrchr(deep, '/'));
	CHECK_CONTAINS(msg, named);
	CHECK(strncmp(msg, dir, 20) == 0);
	/* none for it: the file name alone, as before */
	big[150] = 'x';
	big[220] = '\0';
	CHECK_INT(wc_error_format_path(msg, sizeof msg, p, ": %s", big), 1);
	CHECK_CONTAINS(msg, ".../engine.csv: xxx");
	CHECK(strstr(msg, "node_") == NULL);
	CHECK(strlen(msg) <= 255);
	/* a quoted part (GPUs' uuids) gives way before the folder when that
	 * keeps it, the reason after it whole: "runs4.../power.csv:170: ..."
	 * named no run, and every run holds a power.csv */
	char quoted[200];
	snprintf(quoted, sizeof quoted, "%.150s", big);
	const char *uuids = "GPU-00000008-aaaa-bbbb-cccc-000000000006 GPU-00000009-aaaa-bbbb-cccc-000000000006";
	CHECK_INT(wc_error_format_path(msg, sizeof msg, "runs4/nogpus/power.csv", ":170: %s (" WC_QUOTE_OPEN "%s"
	                               WC_QUOTE_CLOSE "); give the count", quoted, uuids), 1);
	CHECK(strncmp(msg, ".../nogpus/power.csv:170: xxx", 29) == 0);
	CHECK_CONTAINS(msg, " (GPU-00000008-aaaa-bbbb-cccc-000000000006 GPU-0000");
	CHECK_CONTAINS(msg, "...); give the count");
	CHECK(strlen(msg) == 255);
	/* where shortening it cannot keep the folder, it stays whole and the
	 * folder goes, as above */
	char many[240];
	memset(many, 'x', 225);
	many[225] = '\0';
	CHECK_INT(wc_error_format_path(msg, sizeof msg, "runs4/nogpus/power.csv", ":170: %s (" WC_QUOTE_OPEN "%s"
	                               WC_QUOTE_CLOSE ")", many, "GPU-1"), 1);
	CHECK(strncmp(msg, "run.../power.csv:170: xxx", 25) == 0);
	CHECK_CONTAINS(msg, "x (GPU-1)");
	/* the marks are never shown, whether or not anything gives way */
	wc_error e2;
	wc_error_set_path(&e2, WC_EINVAL, "runs/a/power.csv", ": (" WC_QUOTE_OPEN "%s" WC_QUOTE_CLOSE ")", "GPU-1");
	CHECK(strcmp(e2.msg, "runs/a/power.csv: (GPU-1)") == 0);
	wc_error_set(&e2, WC_EINVAL, "(" WC_QUOTE_OPEN "%s" WC_QUOTE_CLOSE ")", "GPU-1");
	CHECK(strcmp(e2.msg, "(GPU-1)") == 0);
	/* a folder's path ending in '/' keeps its last name, not the slash
	 * alone (".../: xxx" named no run), though the text is then cut */
	char folder[1200];
	snprintf(folder, sizeof folder, "%s/run_0042/", dir);
	big[220] = 'x';
	big[245] = '\0';
	CHECK_INT(wc_error_format_path(msg, sizeof msg, folder, ": %s", big), 1);
	CHECK_CONTAINS(msg, ".../run_0042/: xxx");
	CHECK(strlen(msg) <= 255);
	CHECK_INT(wc_error_format_path(msg, sizeof msg, "runs/a/engine.csv", ":%d: short", 3), 0);
	CHECK(strcmp(msg, "runs/a/engine.csv:3: short") == 0);
	free(near);
	free(p);
	free(dir);
	return check_report("test_reader_warning_long_path");
}
