#include "tests/support/ingest_run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
test_ingest_with(const char *dir, wc_ingest_options *o, wc_ingest_result *res, test_warnings *w, wc_error *err)
{
	o->warn = test_collect_warning;
	o->warn_payload = w;
	memset(w, 0, sizeof *w);
	return wc_ingest_run(dir, o, res, err);
}

int
test_ingest_run(const char *dir, double segment_s, wc_ingest_result *res, test_warnings *w, wc_error *err)
{
	wc_ingest_options o;
	wc_ingest_options_init(&o);
	o.segment_s = segment_s;
	return test_ingest_with(dir, &o, res, w, err);
}

int
test_ingest_a100(const char *dir, double segment_s, wc_ingest_result *res, test_warnings *w)
{
	wc_ingest_options o;
	wc_error err;
	wc_ingest_options_init(&o);
	snprintf(o.defaults.platform, sizeof o.defaults.platform, "A100");
	snprintf(o.defaults.model, sizeof o.defaults.model, "Qwen3-8B");
	o.defaults.tp = 1;
	o.defaults.utc_offset_s = 0;
	o.segment_s = segment_s;
	int rc = test_ingest_with(dir, &o, res, w, &err);
	if (rc != WC_OK)
		fprintf(stderr, "%s\n", err.msg);
	return rc;
}

void
test_ingest_ok(const char *dir, double segment_s, wc_ingest_result *res)
{
	wc_ingest_options o;
	wc_error err;
	wc_ingest_options_init(&o);
	o.segment_s = segment_s;
	CHECK_INT(wc_ingest_run(dir, &o, res, &err), WC_OK);
}

size_t
test_series_count(const wc_ingest_result *res)
{
	size_t n = 0;
	for (size_t i = 0; i < res->n_rows; i++)
		n += res->rows[i].series_len >= 2;
	return n;
}

double
test_runs_extra(const wc_runs_table *t, size_t i, const char *col)
{
	const char *v = wc_runs_get_extra(t, i, col);
	return v && *v ? atof(v) : NAN;
}
