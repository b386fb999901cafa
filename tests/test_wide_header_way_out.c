/*
 * A header of more columns than its reader holds (data/telemetry.h:
 * power.csv 128, engine.csv 256, requests.csv and steps.csv 64) refuses
 * the file with the limit stated and the advice of an over-long header,
 * the same wording (wc__header_too_wide beside wc__lr_header_too_long,
 * data/line_reader.c; docs/formats/telemetry.md, "Bad lines"). Before,
 * they said "engine.csv:1: header: too many fields", "steps.csv:1:1: too
 * many fields" and "power.csv:1: more than 128 columns", neither the
 * limit (two of them) nor what to do. A header at its limit reads. The
 * column named is where the first column past the limit starts, as a
 * line of too many fields names it (docs/formats/telemetry.md, "Bad
 * lines"); they named the line alone.
 */
#include "data/data.h"
#include "data/request_log.h"
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int
ignore(double t, const double *w, int n_gpus, void *payload)
{
	(void)t, (void)w, (void)n_gpus, (void)payload;
	return 0;
}

/* `first` (of `named` columns) then short columns "cN" to `cols` in all
 * (well under the 4096 bytes of a line), then `row` with as many empty
 * cells, `rows` times */
static char *
wide_text(const char *first, int named, int cols, const char *row, int rows)
{
	size_t cap = 64 * 1024, used = 0;
	char *s = malloc(cap);
	used += (size_t)snprintf(s + used, cap - used, "%s", first);
	for (int i = named; i < cols; i++)
		used += (size_t)snprintf(s + used, cap - used, ",c%d", i);
	used += (size_t)snprintf(s + used, cap - used, "\n");
	for (int r = 0; r < rows; r++) {
		used += (size_t)snprintf(s + used, cap - used, row, r);
		for (int i = named; i < cols; i++)
			used += (size_t)snprintf(s + used, cap - used, ",");
		used += (size_t)snprintf(s + used, cap - used, "\n");
	}
	return s;
}

/* The 1-based column where field k (from 0) of `header`'s first line starts. */
static int
field_start(const char *header, int k)
{
	int col = 1;
	for (const char *c = header; *c && *c != '\n' && k > 0; c++, col++)
		k -= *c == ',';
	return col;
}

static void
check_way_out(const char *msg, const char *text, const char *file, int limit, const char *hint)
{
	char want[128];
	snprintf(want, sizeof want, "%s:1:%d: header of more than %d columns: drop the columns wattcast does not read",
	         file, field_start(text, limit), limit);
	CHECK_CONTAINS(msg, want);
	CHECK_CONTAINS(msg, hint);
	CHECK(strlen(msg) <= 255);
	fprintf(stderr, "  %s\n", msg);
}

int
main(void)
{
	char *dir = test_tmpdir("wide_header_way_out");
	wc_error err;
	wc_nvsmi_info info;

	/* power.csv: 150 columns refused; 128 read */
	static const char power_row[] = "2026/07/18 15:57:%02d.00,0,300.00";
	char *t = wide_text("timestamp,index,power.draw [W]", 3, 150, power_row, 4);
	char *p = test_fixture(dir, "power.csv", t);
	err = (wc_error){ 0, "" };
	CHECK_INT(wc_nvsmi_read(p, NULL, ignore, NULL, &info, &err), WC_EPARSE);
	check_way_out(err.msg, t, "power.csv", WC_POWER_COLUMNS_MAX, "(timestamp,index,uuid,power.draw are enough)");
	free(p);
	free(t);
	t = wide_text("timestamp,index,power.draw [W]", 3, WC_POWER_COLUMNS_MAX, power_row, 4);
	p = test_fixture(dir, "power_at.csv", t);
	err = (wc_error){ 0, "" };
	CHECK_INT(wc_nvsmi_read(p, NULL, ignore, NULL, &info, &err), WC_OK);
	free(p);
	free(t);

	/* engine.csv: 313 columns (1.7 kB) refused */
	t = wide_text("timestamp,num_requests_running", 2, 313, "%d,1", 3);
	p = test_fixture(dir, "engine.csv", t);
	wc_engine_log *e = NULL;
	err = (wc_error){ 0, "" };
	CHECK_INT(wc_engine_read(p, NULL, 0, &e, &err), WC_EPARSE);
	check_way_out(err.msg, t, "engine.csv", WC_ENGINE_COLUMNS_MAX, "_bucket series");
	if (e)
		wc_engine_free(e);
	free(p);
	free(t);

	/* requests.csv: 70 columns refused */
	t = wide_text("arrival_s,completion_s", 2, 70, "%d,1780000099", 3);
	p = test_fixture(dir, "requests.csv", t);
	wc_request_log *rl = NULL;
	wc_telemetry_options opt = WC_TELEMETRY_OPTIONS_INIT;
	err = (wc_error){ 0, "" };
	CHECK_INT(wc_request_log_read(p, &opt, &rl, &err), WC_EPARSE);
	check_way_out(err.msg, t, "requests.csv", WC_REQUESTS_COLUMNS_MAX, "drop the columns");
	if (rl)
		wc_request_log_free(rl);
	free(p);
	free(t);

	/* steps.csv: 67 columns refused; 64 read */
	t = wide_text("step,epoch_s,event", 3, 67, "%d,1780000020.000,step", 3);
	p = test_fixture(dir, "steps.csv", t);
	wc_step_log sl;
	err = (wc_error){ 0, "" };
	CHECK_INT(wc_step_log_read(p, &sl, &err), WC_EPARSE);
	check_way_out(err.msg, t, "steps.csv", WC_STEPS_COLUMNS_MAX, "(step,epoch_s,event are enough)");
	free(p);
	free(t);
	t = wide_text("step,epoch_s,event", 3, WC_STEPS_COLUMNS_MAX, "%d,1780000020.000,step", 1);
	p = test_fixture(dir, "steps_at.csv", t);
	err = (wc_error){ 0, "" };
	CHECK_INT(wc_step_log_read(p, &sl, &err), WC_OK);
	wc_step_log_free(&sl);
	free(p);
	free(t);

	free(dir);
	return check_report("test_wide_header_way_out");
}
