/*
 * A manifest's idle window is [start, end), as every window of ingest is
 * (wc_trace_in_window; docs/formats/telemetry.md, "Load levels and idle
 * windows"). A request arriving exactly at its end belongs to the load
 * after it: the run was refused as "idle_window ... overlaps load: 1
 * request(s) running or waiting at epoch <end>", its end itself probed.
 * A request arriving inside it, between two probes of its 50 ms grid,
 * still overlaps.
 */
#include "data/data.h"
#include "tests/support/support.h"
#include "trace/trace.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define T0 1784415000.0

/* Power at 0.25 s over 20 s (85 W, 300 W from 4 s), an idle window over
 * the first 4 s, one level from 4 s to 20 s, and one request arriving at
 * `arrive` s, 2 s long. */
static char *
write_run(const char *root, const char *name, double arrive)
{
	char *d = path_join(root, name);
	mkdir(d, 0755);
	char *p = path_join(d, "power.csv"), *q = path_join(d, "requests.csv");
	char *m = path_join(d, "wattcast-run.json");
	FILE *fp = fopen(p, "w"), *fq = fopen(q, "w");
	CHECK(fp && fq);
	if (!fp || !fq)
		exit(1);
	fprintf(fp, "timestamp, index, power.draw [W]\n");
	for (int k = 0; k <= 80; k++) {
		double s = 0.25 * k;
		long ms = (long)llround(fmod(T0 + s, 86400.0) * 1000.0);
		fprintf(fp, "2026/07/18 %02ld:%02ld:%02ld.%03ld, 0, %.2f W\n", ms / 3600000, ms / 60000 % 60,
		        ms / 1000 % 60, ms % 1000, s >= 4.0 ? 300.0 : 85.0);
	}
	fprintf(fq, "arrival_s,first_token_s,completion_s,input_tokens,output_tokens\n");
	fprintf(fq, "%.3f,%.3f,%.3f,100,200\n", T0 + arrive, T0 + arrive + 0.01, T0 + arrive + 2.0);
	fclose(fp);
	fclose(fq);
	char json[600];
	snprintf(json, sizeof json,
	         "{\"schema\": \"wattcast.run/3\", \"run_id\": \"%s\", \"platform\": \"A100\", \"tp\": 1, "
	         "\"model\": \"Qwen/Qwen3-8B\", \"utc_offset_s\": 0, "
	         "\"idle_window\": {\"start_epoch\": %.3f, \"end_epoch\": %.3f}, "
	         "\"levels\": [{\"label\": \"c1\", \"start_epoch\": %.3f, \"end_epoch\": %.3f, "
	         "\"concurrency\": 1}]}\n",
	         name, T0, T0 + 4.0, T0 + 4.0, T0 + 20.0);
	CHECK(write_text(m, json) == 0);
	free(p);
	free(q);
	free(m);
	return d;
}

static int
ingest(const char *dir, wc_ingest_result *res, wc_error *err)
{
	wc_ingest_options o;
	wc_ingest_options_init(&o);
	return wc_ingest_run(dir, &o, res, err);
}

int
main(void)
{
	char *root = test_tmpdir("ingest_idle_edge");
	wc_ingest_result res = { NULL, 0, 0 };
	wc_error err;

	/* Arriving at the idle window's end: the level's, one row. */
	char *d = write_run(root, "at_end", 4.0);
	int rc = ingest(d, &res, &err);
	CHECK_INT(rc, WC_OK);
	if (rc != WC_OK)
		fprintf(stderr, "  %s\n", err.msg);
	CHECK_INT(res.n_rows, 1);
	wc_ingest_result_clear(&res);
	free(d);

	/* Arriving 20 ms before it, between the grid's last probe (3.95 s)
	 * and the end: overlapping, named at its arrival. */
	d = write_run(root, "inside", 3.98);
	CHECK_INT(ingest(d, &res, &err), WC_EINVAL);
	CHECK_CONTAINS(err.msg, "inside: idle_window 1784415000.000-1784415004.000 overlaps load: 1 request(s) "
	                        "running or waiting at epoch 1784415003.980");
	CHECK_INT(res.n_rows, 0);
	wc_ingest_result_clear(&res);
	free(d);

	free(root);
	return check_report("test_ingest_idle_edge");
}
