/*
 * Idle power is taken only where no request runs or waits, and only when
 * it is consistent with the trace (docs/trace-metrics.md, "Idle power").
 * The agentic shape: the power log starts with the load, and the engine
 * shows no running request for brief moments while requests wait or
 * prefill, at high power. Such a run gets idle_source "none" and a
 * warning naming it -- never a busy-power idle that a fit would take as P0.
 * A busy run with one short dip gets no idle from the dip; a stated idle
 * window is left out of the load row, with and without load levels.
 */
#include "data/data.h"
#include "tests/support/support.h"
#include "trace/trace.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define T0 1784415000.0

/* 100 s at 0.25 s. Every 10 s a 1-s gap in which nothing runs: requests
 * wait (`waiting_in_gaps`) or not, and the GPU draws `gap_power_w`. */
static void
write_run(const char *dir, int waiting_in_gaps, double gap_power_w)
{
	char *p = path_join(dir, "power.csv"), *e = path_join(dir, "engine.csv");
	char *m = path_join(dir, "wattcast-run.json");
	FILE *fp = fopen(p, "w"), *fe = fopen(e, "w");
	fprintf(fp, "timestamp, index, power.draw [W]\n");
	fprintf(fe, "timestamp,num_requests_running,num_requests_waiting\n");
	for (int k = 0; k < 400; k++) {
		double t = T0 + 0.25 * k, in_gap = fmod(0.25 * k, 10.0) >= 9.0;
		double w = in_gap ? gap_power_w : 340.0 + 60.0 * sin(0.3 * k);
		long ms = (long)llround(fmod(t, 86400.0) * 1000.0);
		fprintf(fp, "2026/07/18 %02ld:%02ld:%02ld.%03ld, 0, %.2f W\n", ms / 3600000, ms / 60000 % 60,
		        ms / 1000 % 60, ms % 1000, w);
		fprintf(fe, "%.3f,%d,%d\n", t, in_gap ? 0 : 1, in_gap && waiting_in_gaps ? 1 : 0);
	}
	fclose(fp);
	fclose(fe);
	write_text(m, "{\"schema\": \"wattcast.run/2\", \"run_id\": \"agentic\", \"platform\": \"A100\", "
	              "\"tp\": 1, \"model\": \"Qwen/Qwen3-8B\", \"utc_offset_s\": 0, \"workload\": \"replay\"}\n");
	free(p);
	free(e);
	free(m);
}

/* 100 s at 0.25 s, busy but for one dip of `dip_samples` samples at 85 W
 * with nothing running; or, with `idle_s` > 0, the first idle_s seconds
 * at 85 W stated as the manifest's idle window (and, with `levels`, a
 * load level over the rest). */
static void
write_dip_run(const char *dir, int dip_samples, double idle_s, int levels)
{
	char *p = path_join(dir, "power.csv"), *e = path_join(dir, "engine.csv");
	char *m = path_join(dir, "wattcast-run.json"), man[1024];
	FILE *fp = fopen(p, "w"), *fe = fopen(e, "w");
	fprintf(fp, "timestamp, index, power.draw [W]\n");
	fprintf(fe, "timestamp,num_requests_running,num_requests_waiting\n");
	for (int k = 0; k < 400; k++) {
		double t = T0 + 0.25 * k;
		int quiet = (k >= 200 && k < 200 + dip_samples) || 0.25 * k < idle_s;
		double w = quiet ? 85.0 : 340.0 + 60.0 * sin(0.3 * k);
		long ms = (long)llround(fmod(t, 86400.0) * 1000.0);
		fprintf(fp, "2026/07/18 %02ld:%02ld:%02ld.%03ld, 0, %.2f W\n", ms / 3600000, ms / 60000 % 60,
		        ms / 1000 % 60, ms % 1000, w);
		fprintf(fe, "%.3f,%d,0\n", t, quiet ? 0 : 1);
	}
	fclose(fp);
	fclose(fe);
	int len = snprintf(man, sizeof man, "{\"schema\": \"wattcast.run/2\", \"run_id\": \"dip\", \"platform\": "
	                   "\"A100\", \"tp\": 1, \"model\": \"Qwen/Qwen3-8B\", \"utc_offset_s\": 0");
	if (idle_s > 0)
		len += snprintf(man + len, sizeof man - (size_t)len,
		                ", \"idle_window\": {\"start_epoch\": %.3f, \"end_epoch\": %.3f}", T0, T0 + idle_s - 0.25);
	if (levels)
		len += snprintf(man + len, sizeof man - (size_t)len,
		                ", \"levels\": [{\"label\": \"c1\", \"start_epoch\": %.3f, \"end_epoch\": %.3f}]",
		                T0 + idle_s, T0 + 99.75);
	snprintf(man + len, sizeof man - (size_t)len, "}\n");
	write_text(m, man);
	free(p);
	free(e);
	free(m);
}

static void
collect(const char *msg, void *payload)
{
	char *buf = payload;
	size_t used = strlen(buf);
	snprintf(buf + used, 2048 - used, "%s\n", msg);
}

static void
ingest(const char *dir, wc_ingest_result *res, char *warnings)
{
	wc_ingest_options o;
	wc_error err;
	wc_ingest_options_init(&o);
	o.warn = collect;
	o.warn_payload = warnings;
	warnings[0] = '\0';
	CHECK_INT(wc_ingest_run(dir, &o, res, &err), WC_OK);
	CHECK_INT(res->n_rows, 1);
}

int
main(void)
{
	char *dir = test_tmpdir("ingest_idle");
	char warnings[2048];
	wc_ingest_result res = { NULL, 0, 0 };

	/* Requests wait during the gaps: no moment is idle. */
	write_run(dir, 1, 480.0);
	ingest(dir, &res, warnings);
	if (res.n_rows == 1) {
		CHECK(strcmp(res.rows[0].idle_source, "none") == 0);
		CHECK(isnan(res.rows[0].run.idle_power_w));
		CHECK_CONTAINS(warnings, "agentic: no idle power");
	}
	wc_ingest_result_clear(&res);

	/* Nothing waits either, but the GPU stays busy-hot: the estimate is
	 * above the load's mean and the platform's band, and is rejected. */
	write_run(dir, 0, 480.0);
	ingest(dir, &res, warnings);
	if (res.n_rows == 1) {
		CHECK(strcmp(res.rows[0].idle_source, "none") == 0);
		CHECK(isnan(res.rows[0].run.idle_power_w));
		CHECK_CONTAINS(warnings, "agentic: idle power 480.0 W of GPU 0");
		CHECK_CONTAINS(warnings, "rejected");
	}
	wc_ingest_result_clear(&res);

	/* A real idle in those gaps (85 W on an A100) is kept. */
	write_run(dir, 0, 85.0);
	ingest(dir, &res, warnings);
	if (res.n_rows == 1) {
		CHECK(strcmp(res.rows[0].idle_source, "none") != 0);
		CHECK_NEAR(res.rows[0].run.idle_power_w, 85.0, 1e-9);
		CHECK(strstr(warnings, "rejected") == NULL);
	}
	wc_ingest_result_clear(&res);

	/* One 0.5-s dip in a busy run: no idle from it, and the reason. */
	char *dir2 = test_tmpdir("ingest_idle_dip");
	write_dip_run(dir2, 2, 0, 0);
	ingest(dir2, &res, warnings);
	if (res.n_rows == 1) {
		CHECK(strcmp(res.rows[0].idle_source, "none") == 0);
		CHECK(isnan(res.rows[0].run.idle_power_w));
		CHECK_CONTAINS(warnings, "dip: idle power unknown: the engine is quiet for only 0.50 s in all (at least 3 s "
		                         "needed; GPU 0 draws 85.0 W there)");
	}
	wc_ingest_result_clear(&res);
	/* A dip of 4 s is an idle level. */
	write_dip_run(dir2, 16, 0, 0);
	ingest(dir2, &res, warnings);
	if (res.n_rows == 1)
		CHECK_NEAR(res.rows[0].run.idle_power_w, 85.0, 1e-9);
	wc_ingest_result_clear(&res);

	/* A stated idle window (the first 10 s) is left out of the load row,
	 * without and with a load level. */
	for (int levels = 0; levels <= 1; levels++) {
		write_dip_run(dir2, 0, 10.0, levels);
		ingest(dir2, &res, warnings);
		if (res.n_rows == 1) {
			CHECK(res.rows[0].start_epoch >= T0 + 9.75 - 1e-6);
			CHECK_NEAR(res.rows[0].end_epoch, T0 + 99.75, 1e-6);
			CHECK(strcmp(res.rows[0].idle_source, "window") == 0);
			CHECK_NEAR(res.rows[0].run.idle_power_w, 85.0, 1e-9);
			/* the load's mean, not pulled down by the idle 85 W */
			CHECK(res.rows[0].metrics.mean_w > 300.0);
		}
		wc_ingest_result_clear(&res);
	}
	free(dir2);
	free(dir);
	return check_report("test_ingest_idle");
}
