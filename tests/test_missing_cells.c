/*
 * One rule for a cell that holds no value in the telemetry CSVs
 * (docs/formats/telemetry.md, "Missing cells"): blank, `N/A`, `[N/A]` and
 * a NaN (`nan`, `NaN`, `-nan`: what Python's csv writer and pandas write
 * for a missing value) alike. engine.csv read NaN as blank, but
 * requests.csv refused `nan` in output_tokens or first_token_s as a bad
 * line ("expected a number, got 'nan'"), so `ingest` and `envelope
 * --replay` refused a log a blank would have passed; power.csv called a
 * NaN reading "unreadable" and did not move to power.draw.average past a
 * NaN power.draw.instant as it does past `[N/A]`. What a missing cell
 * means stays each file's rule: requests.csv's an unknown value, a
 * power.csv reading's a bad line (no sample to hold).
 */
#include "data/data.h"
#include "tests/support/support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *dir;

static int
same(double a, double b)
{
	return a == b || (isnan(a) && isnan(b));
}

static const char *const rq_head = "arrival_s,first_token_s,completion_s,input_tokens,output_tokens\n";

/* requests.csv: a NaN cell is read exactly as a blank one. */
static void
requests_nan(void)
{
	char blank[512], nan[512];
	snprintf(blank, sizeof blank, "%s10,10.2,11,400,31\n11,,12,410,\n12,12.3,14,,44\n13,,15,500,\n"
	         "14,14.1,16,510,41\n", rq_head);
	snprintf(nan, sizeof nan, "%s10,10.2,11,400,31\n11,nan,12,410,NaN\n12,12.3,14,-nan,44\n13, NAN ,15,500,+nan\n"
	         "14,14.1,16,510,41\n", rq_head);
	char *pa = test_fixture(dir, "blank.csv", blank), *pb = test_fixture(dir, "nan.csv", nan);
	wc_telemetry_options opt = WC_TELEMETRY_OPTIONS_INIT; /* 1 %: no bad line passes */
	test_warnings w = { "", 0 };
	opt.warn = test_collect_warning;
	opt.warn_payload = &w;
	wc_request_log *la = NULL, *lb = NULL;
	wc_error err;
	CHECK_INT(wc_request_log_read(pa, &opt, &la, &err), WC_OK);
	CHECK_INT(wc_request_log_read(pb, &opt, &lb, &err), WC_OK);
	CHECK(w.text[0] == '\0');
	if (la && lb) {
		CHECK_INT(lb->n, la->n);
		CHECK_INT(lb->missing_input, 1);
		CHECK_INT(lb->missing_output, 2);
		CHECK_INT(lb->missing_output, la->missing_output);
		for (size_t i = 0; i < la->n && i < lb->n; i++) {
			CHECK(same(la->arrival[i], lb->arrival[i]));
			CHECK(same(la->first_token[i], lb->first_token[i]));
			CHECK(same(la->completion[i], lb->completion[i]));
			CHECK(same(la->input_tokens[i], lb->input_tokens[i]));
			CHECK(same(la->output_tokens[i], lb->output_tokens[i]));
		}
	}
	wc_request_log_free(la);
	wc_request_log_free(lb);
	/* envelope --replay takes it as it takes the blank one */
	const char *replay[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--replay", pb,
		                 "--horizon", "10", NULL };
	run_result rr;
	CHECK_INT(run_wattcast(replay, NULL, &rr), 0);
	CHECK_INT(rr.status, 0);
	CHECK(!rr.err || strstr(rr.err, "expected a number") == NULL);
	run_result_free(&rr);
	free(pa);
	free(pb);
	/* arrival and completion are required: a NaN there is a bad line, as
	 * a blank one is */
	char bad[256];
	snprintf(bad, sizeof bad, "%s10,10.2,11,400,31\nnan,11.2,12,410,40\n", rq_head);
	char *pc = test_fixture(dir, "nan_arrival.csv", bad);
	wc_request_log *lc = NULL;
	test_warnings wc = { "", 0 };
	opt.warn_payload = &wc;
	CHECK(wc_request_log_read(pc, &opt, &lc, &err) != WC_OK);
	CHECK_CONTAINS(wc.text, "nan_arrival.csv:3:1: arrival_s: expected a number, got 'nan'");
	CHECK_CONTAINS(err.msg, "fix the bad lines");
	wc_request_log_free(lc);
	free(pc);
}

/* power.csv of 2 GPUs over 40 samples at 0.25 s; line `nan_line`'s
 * power.draw (or power.draw.instant, with .average beside it) is `cell`. */
static char *
power_log(const char *name, int with_average, int nan_line, const char *cell)
{
	char body[8192];
	snprintf(body, sizeof body, "timestamp, index, %s [W]%s\n", with_average ? "power.draw.instant" : "power.draw",
	         with_average ? ", power.draw.average [W]" : "");
	for (int k = 0; k < 40; k++)
		for (int g = 0; g < 2; g++) {
			int line = 2 + 2 * k + g;
			char v[32];
			snprintf(v, sizeof v, "%.2f W", 200.0 + k + g);
			snprintf(body + strlen(body), sizeof body - strlen(body), "2026/07/18 15:00:%02d.%03d, %d, %s%s%s\n",
			         k / 4, 250 * (k % 4), g, line == nan_line ? cell : v, with_average ? ", " : "",
			         with_average ? v : "");
		}
	return test_fixture(dir, name, body);
}

/* Read `path` allowing bad lines; the warnings into `w`. */
static wc_power_trace *
read_power(const char *path, test_warnings *w)
{
	wc_telemetry_options opt = WC_TELEMETRY_OPTIONS_INIT;
	opt.max_bad_fraction = 0.5;
	opt.warn = test_collect_warning;
	opt.warn_payload = w;
	wc_power_trace *pt = NULL;
	wc_error err;
	CHECK_INT(wc_power_trace_read(path, &opt, 0, &pt, &err), WC_OK);
	return pt;
}

/* power.csv: a NaN reading is no reading, as a blank or [N/A] one: a bad
 * line (docs/formats/telemetry.md, "Missing cells"). */
static void
power_nan(void)
{
	test_warnings wa = { "", 0 }, wb = { "", 0 };
	char *pa = power_log("p_blank.csv", 0, 7, "[N/A]"), *pb = power_log("p_nan.csv", 0, 7, "nan");
	wc_power_trace *ta = read_power(pa, &wa), *tb = read_power(pb, &wb);
	CHECK_CONTAINS(wb.text, "p_nan.csv:7:29: no power reading (power.draw is 'nan')");
	if (ta && tb) {
		CHECK_INT(tb->info.bad_lines, 1);
		CHECK_INT(tb->info.bad_lines, ta->info.bad_lines);
		CHECK_INT(tb->n, ta->n);
		for (size_t i = 0; i < ta->n && i < tb->n; i++)
			CHECK(same(ta->group[i], tb->group[i]) && same(ta->t[i], tb->t[i]));
	}
	wc_power_trace_free(ta);
	wc_power_trace_free(tb);
	free(pa);
	free(pb);
	/* a NaN power.draw.instant beside a valid average on the first line:
	 * the log is read from power.draw.average, as past [N/A] */
	test_warnings wc = { "", 0 };
	char *pc = power_log("p_instant.csv", 1, 2, "NaN");
	wc_power_trace *tc = read_power(pc, &wc);
	if (tc) {
		CHECK(strcmp(tc->info.power_column, "power.draw.average") == 0);
		CHECK_INT(tc->info.bad_lines, 0);
	}
	CHECK_CONTAINS(wc.text, "power.draw.instant has no value, power.draw.average has");
	wc_power_trace_free(tc);
	free(pc);
}

int
main(void)
{
	dir = test_tmpdir("missing_cells");
	requests_nan();
	power_nan();
	free(dir);
	return check_report("test_missing_cells");
}
