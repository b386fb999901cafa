/*
 * `--selector` with a regular expression's escape, and `--start` with a
 * half millisecond (docs/fleet.md, "Queries"). `model_name=~"Qwen3-\d+B"`
 * (a PromQL string holding `\d`, no escape of its strings) went to the
 * server, which answered `HTTP 400 ... 1:61: parse error: unknown escape
 * sequence U+0064 'd'` at a column of a query the user never wrote; it is
 * refused before any request, at its column, with the spelling that works
 * (`\\d`, or backquotes). Written so, files matched it as POSIX, where
 * `\d` is a plain `d`: no series matched where the server matched them, and
 * `!~` kept every one; RE2's \d, \w, \s (and \D, \W, \S) are now read as
 * the server reads them. `--start 1767225600.0005` kept its half
 * millisecond: the URL's %.3f asked a server for .000 and its answer was
 * refused as off the grid ("the server aligns start to the step?"); from
 * scrapes the rows began at a half millisecond. It is the nearest whole
 * millisecond, a half up as written: .001.
 */
#include "data/data.h"
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define T0 1767225600L

static char *dir, *in, *out;

static run_result
ingest(const char *selector, const char *start)
{
	const char *argv[] = { "wattcast", "ingest", "--scrapes", in, "-o", out, "--min-window", "1", "--step", "15",
	                       NULL, NULL, NULL, NULL, NULL };
	size_t k = 10;
	if (selector) {
		argv[k++] = "--selector";
		argv[k++] = selector;
	}
	if (start) {
		argv[k++] = "--start";
		argv[k++] = start;
	}
	run_result r;
	unlink(out);
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	fprintf(stderr, "--selector %s --start %s: exit %d\n%s", selector ? selector : "-", start ? start : "-",
	        r.status, r.err ? r.err : "");
	return r;
}

/* Rows of the run: one window of 8 running at 300 W (exit 0), or none. */
static int
rows(void)
{
	wc_runs_table *t = NULL;
	if (wc_runs_read(out, &t, NULL) != WC_OK)
		return -1;
	int n = (int)t->n_runs;
	wc_runs_free(t);
	return n;
}

int
main(void)
{
	dir = test_tmpdir("prom_selector_escape");
	size_t cap = 1 << 20, len = 0;
	char *buf = malloc(cap);
	for (int s = 0; s < 240; s++)
		len += (size_t)snprintf(buf + len, cap - len, "# wattcast-scrape %ld a:8000\n"
		                        "vllm:num_requests_running{model_name=\"Qwen/Qwen3-8B\"} 8\n"
		                        "# wattcast-scrape %ld dcgm:9400\n"
		                        "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\",Hostname=\"a\",modelName=\"NVIDIA H100 "
		                        "80GB HBM3\"} 300\n", T0 + s, T0 + s);
	in = path_join(dir, "a.prom");
	out = path_join(dir, "out.csv");
	CHECK(write_text(in, buf) == 0);
	free(buf);

	/* `\d` in "...": no escape of PromQL's strings, refused at its column
	 * before any request (from a server too: nothing listens there). */
	const char *argv[] = { "wattcast", "ingest", "--prometheus", "http://127.0.0.1:9", "--start", "1767225600",
	                       "--end", "1767225900", "--selector", "model_name=~\"Qwen/Qwen3-\\d+B\"", "-o", out, NULL };
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, 2);
	CHECK_CONTAINS(r.err, "--selector: column 25: '\\d' is no escape of PromQL's strings: write '\\\\d' for a "
	               "regular expression's \\d in \"...\", or quote the value in backquotes");
	run_result_free(&r);

	/* Files: RE2's \d read as the server reads it, written \\d in "..."
	 * or \d in backquotes (the GPU's series has no model_name: "" matched
	 * by the empty alternative). */
	const char *match[] = { "model_name=~\"Qwen/Qwen3-\\\\d+B|\"", "model_name=~`Qwen/Qwen3-\\d+B|`",
	                        "model_name=~\"Qwen/Qwen3-[\\\\d]+B|\"", "model_name=~\"Qwen/Qwen\\\\d-\\\\w+|\"",
	                        "model_name=~\"Qwen/Qwen3-\\\\D+B|\"" };
	for (int k = 0; k < 5; k++) {
		r = ingest(match[k], NULL);
		CHECK_INT(r.status, k < 4 ? 0 : 1);
		CHECK_INT(rows(), k < 4 ? 1 : -1);
		if (k == 4)
			CHECK_CONTAINS(r.err, "no engine load series");
		run_result_free(&r);
	}
	r = ingest("model_name!~\"Qwen/Qwen3-\\\\d+B\"", NULL);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "no engine load series");
	run_result_free(&r);
	r = ingest("model_name=~\"Qwen/Qwen3-\\\\pN+B|\"", NULL);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "'\\p' has no POSIX form, which files are matched by: write it as a bracket expression");
	run_result_free(&r);

	/* --start to the nearest whole millisecond, a half up as written. */
	const char *starts[][2] = { { "1767225600.0005", "1767225615.001,1767225840.001," }, { "1767225600.0004", "1767225615.000,1767225840.000," },
	                            { "2026-01-01T00:00:00.0005Z", "1767225615.001,1767225840.001," },
	                            { "1767225600.0015", "1767225615.002,1767225840.002," } };
	for (int k = 0; k < 4; k++) {
		r = ingest(NULL, starts[k][0]);
		CHECK_INT(r.status, 0);
		char *csv = test_slurp(out);
		CHECK(csv && strstr(csv, starts[k][1]));
		if (csv && !strstr(csv, starts[k][1]))
			fprintf(stderr, "--start %s: no %s in\n%s", starts[k][0], starts[k][1], csv);
		free(csv);
		run_result_free(&r);
	}
	free(in);
	free(out);
	free(dir);
	return check_report("test_prom_selector_escape");
}
