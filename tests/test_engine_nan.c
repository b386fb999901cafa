/*
 * A NaN cell in engine.csv is an unknown sample, read exactly as a blank
 * one (docs/formats/telemetry.md, "engine.csv"): `nan` / `NaN` is what
 * Python and Prometheus write for a gauge they did not have. A real A100
 * run with 20 of its 293 lines carrying a NaN KV-cache gauge (a gauge
 * wattcast does not use) was refused as 20 malformed lines, and --max-bad
 * then read it 5 % off (263.8 W instead of 251.4 W): the lines' n(t) and
 * tokens were dropped with them. Gauges and counters alike; a NaN where
 * the time stands is no timestamp, as a blank is.
 */
#include "data/data.h"
#include "tests/support/support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *dir;

static char *
write_log(const char *name, const char *const *rows, int n)
{
	char body[1024] = "timestamp,num_requests_running,gpu_cache_usage_perc,generation_tokens_total\n";
	for (int i = 0; i < n; i++)
		snprintf(body + strlen(body), sizeof body - strlen(body), "%s\n", rows[i]);
	return test_fixture(dir, name, body);
}

static int
same(double a, double b)
{
	return a == b || (isnan(a) && isnan(b));
}

static void
test_nan_is_blank(void)
{
	static const char *const blank[] = { "1000,1,,10", "1001,2,,20", "1002,,0.5,", "1003,3,,40",
	                                     "1004,4,0.25,50" };
	static const char *const nan[] = { "1000,1,nan,10", "1001,2,NaN,20", "1002, nan ,0.5,-nan",
	                                   "1003,3,+NaN,40", "1004,4,0.25,50" };
	char *pa = write_log("blank.csv", blank, 5), *pb = write_log("nan.csv", nan, 5);
	wc_telemetry_options opt = WC_TELEMETRY_OPTIONS_INIT; /* 1 %: no bad line passes */
	test_warnings w = { "", 0 };
	opt.warn = test_collect_warning;
	opt.warn_payload = &w;
	wc_engine_log *ea = NULL, *eb = NULL;
	wc_error err;
	CHECK_INT(wc_engine_read(pa, &opt, 0, &ea, &err), WC_OK);
	CHECK_INT(wc_engine_read(pb, &opt, 0, &eb, &err), WC_OK);
	CHECK(w.text[0] == '\0'); /* not a bad line, not a warning: as a blank */
	if (ea && eb) {
		CHECK_INT(eb->bad_lines, 0);
		CHECK_INT(eb->n, ea->n);
		for (int c = 0; c < WC_ENG_COLUMNS; c++) {
			CHECK((ea->col[c] == NULL) == (eb->col[c] == NULL));
			for (size_t i = 0; ea->col[c] && eb->col[c] && i < ea->n && i < eb->n; i++)
				CHECK(same(ea->col[c][i], eb->col[c][i]));
		}
		/* the sample before holds: a gauge's and a counter's */
		CHECK_NEAR(wc_engine_value_at(eb, WC_ENG_RUNNING, 1002.5), 2.0, 0);
		CHECK_NEAR(wc_engine_value_at(eb, WC_ENG_CACHE_USAGE, 1003.5), 0.5, 0);
		CHECK_NEAR(wc_engine_value_at(eb, WC_ENG_GENERATION_TOKENS, 1002.0), 20.0, 0);
	}
	wc_engine_free(ea);
	wc_engine_free(eb);
	free(pa);
	free(pb);
}

static void
test_nan_time(void)
{
	static const char *const rows[] = { "1000,1,0.1,10", "nan,2,0.1,20", "1002,3,0.1,30" };
	char *p = write_log("nan_time.csv", rows, 3);
	wc_telemetry_options opt = WC_TELEMETRY_OPTIONS_INIT;
	test_warnings w = { "", 0 };
	opt.warn = test_collect_warning;
	opt.warn_payload = &w;
	opt.max_bad_fraction = 0.5;
	wc_engine_log *e = NULL;
	wc_error err;
	CHECK_INT(wc_engine_read(p, &opt, 0, &e, &err), WC_OK);
	CHECK_CONTAINS(w.text, "nan_time.csv:3:1: no timestamp");
	CHECK(e && e->n == 2 && e->bad_lines == 1);
	wc_engine_free(e);
	free(p);
}

int
main(void)
{
	dir = test_tmpdir("engine_nan");
	test_nan_is_blank();
	test_nan_time();
	free(dir);
	return check_report("test_engine_nan");
}
