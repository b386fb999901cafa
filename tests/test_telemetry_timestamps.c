/*
 * Timestamps that carry their zone (docs/formats/telemetry.md,
 * "Timestamps"). A power log stamped in RFC 3339 with an offset or `Z`,
 * or in epoch seconds, was read line by line as "unreadable timestamp",
 * then refused with a hint to allow more bad lines; an engine.csv in
 * RFC 3339 the same. Such times are now read through the Prometheus
 * path's parser and need no UTC offset, and a first timestamp in no
 * accepted form is one error naming the forms. Engine times in
 * milliseconds are said to be so by ingest.
 */
#include "data/data.h"
#include "tests/support/support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define T0 1784412000.0 /* 2026-07-18T22:00:00Z, 15:00 at UTC-7 */

enum { LOCAL, OFFSET, ZULU, EPOCH };

/* A time in the power log's form `form`. */
static void
stamp(char *buf, size_t cap, double t, int form)
{
	double local = form == OFFSET || form == LOCAL ? t - 25200.0 : t;
	long ms = (long)llround(fmod(local, 86400.0) * 1000.0);
	int h = (int)(ms / 3600000), m = (int)(ms / 60000 % 60), s = (int)(ms / 1000 % 60), f = (int)(ms % 1000);
	if (form == LOCAL)
		snprintf(buf, cap, "2026/07/18 %02d:%02d:%02d.%03d", h, m, s, f);
	else if (form == OFFSET)
		snprintf(buf, cap, "2026-07-18T%02d:%02d:%02d.%03d-07:00", h, m, s, f);
	else if (form == ZULU)
		snprintf(buf, cap, "2026-07-18T%02d:%02d:%02d.%03dZ", h, m, s, f);
	else
		snprintf(buf, cap, "%.3f", t);
}

/* A power log of 40 samples 0.25 s apart from T0, stamped in `form`. */
static char *
power_log(const char *dir, const char *name, int form)
{
	char *p = path_join(dir, name), ts[64];
	FILE *f = fopen(p, "w");
	CHECK(f != NULL);
	if (!f)
		exit(1);
	fprintf(f, "timestamp, index, power.draw [W]\n");
	for (int k = 0; k < 40; k++) {
		stamp(ts, sizeof ts, T0 + 0.25 * k, form);
		fprintf(f, "%s, 0, %.2f W\n", ts, 100.0 + k);
	}
	fclose(f);
	return p;
}

static wc_power_trace *
read_power(const char *path, double offset, wc_error *err)
{
	wc_telemetry_options opt = WC_TELEMETRY_OPTIONS_INIT;
	wc_power_trace *pt = NULL;
	opt.utc_offset_s = offset;
	CHECK_INT(wc_power_trace_read(path, &opt, 0, &pt, err), WC_OK);
	return pt;
}

int
main(void)
{
	char *dir = test_tmpdir("telemetry_timestamps");
	wc_error err;

	/* The same samples, stamped four ways, read to the same times. */
	char *p = power_log(dir, "local.csv", LOCAL);
	wc_power_trace *base = read_power(p, -25200.0, &err);
	free(p);
	CHECK(base && base->n == 40 && !base->info.utc_stamps);
	const char *names[] = { "offset.csv", "zulu.csv", "epoch.csv" };
	for (int form = OFFSET; form <= EPOCH && base; form++) {
		p = power_log(dir, names[form - 1], form);
		/* an offset given does not move times that carry their zone */
		wc_power_trace *pt = read_power(p, 3600.0, &err);
		if (pt) {
			CHECK_INT(pt->n, 40);
			CHECK(pt->info.utc_stamps);
			CHECK_NEAR(pt->t[0], T0, 1e-6);
			CHECK_NEAR(pt->t[39], base->t[39], 1e-6);
			CHECK_NEAR(pt->group[7], base->group[7], 1e-9);
		}
		wc_power_trace_free(pt);
		free(p);
	}
	wc_power_trace_free(base);

	/* A first timestamp in no accepted form: one error naming the forms. */
	wc_telemetry_options opt = WC_TELEMETRY_OPTIONS_INIT;
	test_warnings w;
	memset(&w, 0, sizeof w);
	opt.warn = test_collect_warning;
	opt.warn_payload = &w;
	wc_power_trace *pt = NULL;
	p = test_fixture(dir, "ctime.csv", "timestamp, index, power.draw [W]\n"
	                 "Sat Jul 18 15:57:25 2026, 0, 82.37 W\nSat Jul 18 15:57:26 2026, 0, 82.37 W\n");
	CHECK_INT(wc_power_trace_read(p, &opt, 0, &pt, &err), WC_EPARSE);
	CHECK_CONTAINS(err.msg, "ctime.csv:2:1: timestamp 'Sat Jul 18 15:57:25 2026': expected "
	               "YYYY/MM/DD HH:MM:SS[.fff] (local, as nvidia-smi writes), RFC 3339 with Z or an "
	               "offset, or epoch seconds");
	CHECK(strstr(err.msg, "--max-bad") == NULL);
	CHECK(strlen(err.msg) <= 255);
	CHECK_INT(w.count, 0);
	free(p);
	/* Milliseconds since the epoch are named as such. */
	p = test_fixture(dir, "ms.csv", "timestamp, index, power.draw [W]\n1784415445621, 0, 82 W\n"
	                 "1784415445871, 0, 82 W\n");
	CHECK_INT(wc_power_trace_read(p, &opt, 0, &pt, &err), WC_EPARSE);
	CHECK_CONTAINS(err.msg, "ms.csv:2:1: timestamp: time 1784415445621 (seconds since the epoch) is after "
	               "2100-01-01; it looks like milliseconds");
	CHECK(strlen(err.msg) <= 255);
	free(p);
	/* Once the form is set, a line of another form is a bad line. */
	memset(&w, 0, sizeof w);
	p = test_fixture(dir, "mixed.csv", "timestamp, index, power.draw [W]\n"
	                 "2026/07/18 15:00:00.000, 0, 82 W\n2026-07-18T22:00:00.250Z, 0, 82 W\n"
	                 "2026/07/18 15:00:00.500, 0, 82 W\n2026/07/18 15:00:00.750, 0, 82 W\n"
	                 "2026/07/18 15:00:01.000, 0, 82 W\n2026/07/18 15:00:01.250, 0, 82 W\n");
	opt.max_bad_fraction = 0.5;
	CHECK_INT(wc_power_trace_read(p, &opt, 0, &pt, &err), WC_OK);
	CHECK_CONTAINS(w.text, "mixed.csv:3:1: unreadable timestamp '2026-07-18T22:00:00.250Z': not in the "
	               "form of the log's first");
	wc_power_trace_free(pt);
	free(p);

	/* engine.csv in RFC 3339 with a zone reads as its epoch seconds. */
	wc_engine_log *e = NULL;
	opt = (wc_telemetry_options)WC_TELEMETRY_OPTIONS_INIT;
	p = test_fixture(dir, "engine_iso.csv", "timestamp,num_requests_running\n"
	                 "2026-07-18T22:00:00.000+00:00,1\n2026-07-18T15:00:00.250-07:00,2\n");
	CHECK_INT(wc_engine_read(p, &opt, 0, &e, &err), WC_OK);
	if (e) {
		CHECK_INT(e->n, 2);
		CHECK_NEAR(e->t[0], T0, 1e-6);
		CHECK_NEAR(e->t[1], T0 + 0.25, 1e-6);
	}
	wc_engine_free(e);
	free(p);
	p = test_fixture(dir, "engine_local.csv", "timestamp,num_requests_running\n"
	                 "2026/07/18 15:00:00.000,1\n2026/07/18 15:00:00.250,2\n");
	CHECK_INT(wc_engine_read(p, &opt, 0, &e, &err), WC_EPARSE);
	CHECK_CONTAINS(err.msg, "engine_local.csv:2:1: timestamp '2026/07/18 15:00:00.000': expected epoch "
	               "seconds or RFC 3339 with Z or an offset");
	free(p);

	/* ingest: a run stamped with its zone needs no --utc-offset. */
	char *run = path_join(dir, "run"), *out = path_join(dir, "runs.csv");
	mkdir(run, 0755);
	p = power_log(run, "power.csv", OFFSET);
	free(p);
	char eng[4096] = "timestamp,num_requests_running\n";
	for (int k = 0; k < 40; k++)
		snprintf(eng + strlen(eng), sizeof eng - strlen(eng), "%.3f,%d\n", T0 + 0.25 * k, k / 10);
	free(test_fixture(run, "engine.csv", eng));
	free(test_fixture(run, "wattcast-run.json", "{\"schema\": \"wattcast.run/2\", \"run_id\": \"z\", "
	                  "\"platform\": \"L40S\", \"tp\": 1, \"model\": \"mistralai/Mistral-7B-Instruct-v0.3\"}\n"));
	run_result r;
	const char *argv[] = { "wattcast", "ingest", run, "-o", out, NULL };
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	CHECK(strstr(r.err, "UTC offset") == NULL);
	run_result_free(&r);
	const char *argv2[] = { "wattcast", "ingest", run, "-o", out, "--utc-offset", "3600", NULL };
	CHECK_INT(run_wattcast(argv2, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.err, "power.csv: timestamps carry their zone; the UTC offset 3600 s is not applied");
	run_result_free(&r);
	/* a flag against the manifest's offset: neither applies, said once
	 * (it was also said that the manifest's won over the flag) */
	free(test_fixture(run, "wattcast-run.json", "{\"schema\": \"wattcast.run/2\", \"run_id\": \"z\", "
	                  "\"platform\": \"L40S\", \"tp\": 1, \"model\": \"mistralai/Mistral-7B-Instruct-v0.3\", "
	                  "\"utc_offset_s\": -25200}\n"));
	const char *argv3[] = { "wattcast", "ingest", run, "-o", out, "--utc-offset", "0", NULL };
	CHECK_INT(run_wattcast(argv3, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.err, "power.csv: timestamps carry their zone; neither the run's UTC offset -25200 s nor "
	               "--utc-offset 0 is applied");
	CHECK(strstr(r.err, "wins over a flag") == NULL);
	run_result_free(&r);
	free(test_fixture(run, "wattcast-run.json", "{\"schema\": \"wattcast.run/2\", \"run_id\": \"z\", "
	                  "\"platform\": \"L40S\", \"tp\": 1, \"model\": \"mistralai/Mistral-7B-Instruct-v0.3\"}\n"));

	/* Engine times in milliseconds are named as such, not blamed on the
	 * UTC offset ("clocks cannot be aligned ... check the offset"). */
	eng[0] = '\0';
	snprintf(eng, sizeof eng, "timestamp,num_requests_running\n");
	for (int k = 0; k < 40; k++)
		snprintf(eng + strlen(eng), sizeof eng - strlen(eng), "%.0f,%d\n", 1000.0 * (T0 + 0.25 * k), k / 10);
	free(test_fixture(run, "engine.csv", eng));
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	CHECK_INT(r.status, 1);
	/* at its cell, line:column, as an unreadable first timestamp is */
	CHECK_CONTAINS(r.err, "engine.csv:2:1: the first timestamp is not epoch seconds: time 1784412000000 "
	               "(seconds since the epoch) is after 2100-01-01; it looks like milliseconds");
	CHECK(strstr(r.err, "check the offset") == NULL);
	run_result_free(&r);
	free(run);
	free(out);
	free(dir);
	return check_report("test_telemetry_timestamps");
}
