/*
 * A header line over WC_TELEMETRY_LINE_MAX (4096 bytes) refuses the file
 * with the limit and what to do, in one wording for every line reader
 * (wc__lr_header_too_long, data/line_reader.c; docs/formats/telemetry.md,
 * "Bad lines"): an nvidia-smi power log's names the --query-gpu fields
 * that are enough, an engine log's its exporter's *_bucket series. Before,
 * power.csv's said only "power.csv:1: header line longer than 4096 bytes".
 * The column named is the first byte past the limit (4097), as every
 * other refusal of a line names one; it named the line alone.
 */
#include "data/data.h"
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

/* `first` then 400 columns "extra_column_NNN" (about 6.8 kB), then two rows of
 * `row` with as many empty cells */
static char *
wide_text(const char *first, const char *row)
{
	size_t cap = 64 * 1024, used = 0;
	char *s = malloc(cap);
	used += (size_t)snprintf(s + used, cap - used, "%s", first);
	for (int i = 0; i < 400; i++)
		used += (size_t)snprintf(s + used, cap - used, ",extra_column_%03d", i);
	used += (size_t)snprintf(s + used, cap - used, "\n");
	for (int r = 0; r < 2; r++) {
		used += (size_t)snprintf(s + used, cap - used, "%s", row);
		for (int i = 0; i < 400; i++)
			used += (size_t)snprintf(s + used, cap - used, ",");
		used += (size_t)snprintf(s + used, cap - used, "\n");
	}
	return s;
}

int
main(void)
{
	char *dir = test_tmpdir("long_header_way_out");
	wc_error err;
	wc_nvsmi_info info;
	static const char way_out[] = ":1:4097: header line longer than 4096 bytes: drop the columns wattcast does not read";

	char *t = wide_text("timestamp,index,power.draw [W]", "2026/07/18 15:57:10.00,0,300.00");
	char *p = test_fixture(dir, "power.csv", t);
	CHECK_INT(wc_nvsmi_read(p, NULL, ignore, NULL, &info, &err), WC_EPARSE);
	CHECK_CONTAINS(err.msg, way_out);
	CHECK_CONTAINS(err.msg, "--query-gpu");
	CHECK(strlen(err.msg) <= 255);
	fprintf(stderr, "  power.csv: %s\n", err.msg);
	free(p);
	free(t);

	t = wide_text("timestamp,num_requests_running", "0,1");
	p = test_fixture(dir, "engine.csv", t);
	wc_engine_log *e = NULL;
	CHECK_INT(wc_engine_read(p, NULL, 0, &e, &err), WC_EPARSE);
	CHECK_CONTAINS(err.msg, way_out);
	CHECK_CONTAINS(err.msg, "_bucket series");
	CHECK(strlen(err.msg) <= 255);
	fprintf(stderr, "  engine.csv: %s\n", err.msg);
	if (e)
		wc_engine_free(e);
	free(p);
	free(t);
	free(dir);
	return check_report("test_long_header_way_out");
}
