/*
 * `ingest --segment` marks a segment in which the engine ran nothing as
 * fleet ingest marks an idle window: `exclude` = "idle: 0.00 running
 * requests on average (< 0.5), no load to fit" (trace/idle.h, one rule;
 * docs/formats/telemetry.md, "What ingest derives"), so that `calibrate`
 * takes the table ingest wrote. Unmarked, the 15 s before the first
 * request of a real A100 run were a row at 0 running and `calibrate`
 * refused the whole table. A run's own row (no --segment) is the load its
 * manifest states and stays unmarked. And `calibrate`'s refusal of an
 * idle run with an n(t) series points at its `running` cell, which says
 * so (docs/calibration.md, "Refusals"), not at the series' file name;
 * at `n_series` only when the series alone is idle.
 */
#include "tests/support/support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T0 1784415000.0
#define IDLE_REASON "idle: 0.00 running requests on average (< 0.5), no load to fit"

/* 60 s at 0.25 s on an A100: 20 s idle (85 W, nothing running), then 4
 * requests at about 300 W. */
static char *
write_run(const char *dir)
{
	char *run = path_join(dir, "run"), cmd[1200];
	snprintf(cmd, sizeof cmd, "mkdir -p '%s'", run);
	CHECK_INT(system(cmd), 0);
	char *p = path_join(run, "power.csv"), *e = path_join(run, "engine.csv");
	char *m = path_join(run, "wattcast-run.json");
	FILE *fp = fopen(p, "w"), *fe = fopen(e, "w");
	CHECK(fp != NULL && fe != NULL);
	if (fp && fe) {
		fprintf(fp, "timestamp, index, power.draw [W]\n");
		fprintf(fe, "timestamp,num_requests_running\n");
		for (int k = 0; k < 240; k++) {
			double t = T0 + 0.25 * k, s = 0.25 * k;
			int busy = s >= 20.0;
			long ms = (long)llround(fmod(t, 86400.0) * 1000.0);
			fprintf(fp, "2026/07/18 %02ld:%02ld:%02ld.%03ld, 0, %.2f W\n", ms / 3600000, ms / 60000 % 60,
			        ms / 1000 % 60, ms % 1000, busy ? 300.0 + 40.0 * sin(0.3 * k) : 85.0);
			fprintf(fe, "%.3f,%d\n", t, busy ? 4 : 0);
		}
	}
	if (fp)
		fclose(fp);
	if (fe)
		fclose(fe);
	CHECK_INT(write_text(m, "{\"schema\": \"wattcast.run/2\", \"run_id\": \"seg\", \"platform\": \"A100\", "
	                        "\"tp\": 1, \"model\": \"Qwen/Qwen3-8B\", \"utc_offset_s\": 0}\n"),
	          0);
	free(p);
	free(e);
	free(m);
	return run;
}

/* Lines of `text` that hold `needle`. */
static int
count_lines(const char *text, const char *needle)
{
	int n = 0;
	for (const char *l = text; l && *l;) {
		const char *end = strchr(l, '\n');
		size_t len = end ? (size_t)(end - l) : strlen(l);
		char line[8192];
		snprintf(line, sizeof line, "%.*s", (int)len, l);
		n += strstr(line, needle) != NULL;
		l = end ? end + 1 : NULL;
	}
	return n;
}

static void
calibrate(const char *runs, const char *out, run_result *r)
{
	const char *argv[] = { "wattcast", "calibrate", "--profile", "measured", runs, "-o", out, NULL };
	CHECK_INT(run_wattcast(argv, NULL, r), 0);
}

/* The refusal of an idle run with a series points at the cell that
 * shows it. */
static void
refusal_column(const char *dir)
{
	char *s0 = path_join(dir, "s0.csv"), *s4 = path_join(dir, "s4.csv"), *runs = path_join(dir, "hand.csv");
	char *out = path_join(dir, "hand.json");
	run_result r;
	CHECK_INT(write_text(s0, "t_s,running\n0,0\n0.05,0\n0.1,0\n"), 0);
	CHECK_INT(write_text(s4, "t_s,running\n0,4\n0.05,4\n0.1,4\n"), 0);
	/* ingest's own form: `running` is the series' mean */
	CHECK_INT(write_text(runs, "run_id,platform,tp,model,active_params_b,running,n_series,mean_power_w\n"
	                           "a,A100,1,Qwen/Qwen3-8B,8.19,4,s4.csv,300\n"
	                           "b,A100,1,Qwen/Qwen3-8B,8.19,0,s0.csv,85\n"),
	          0);
	calibrate(runs, out, &r);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "hand.csv:3:29: column 'running': run 'b' is at 0 running requests: an idle run");
	run_result_free(&r);
	/* a `running` that says otherwise: the series is what is idle */
	CHECK_INT(write_text(runs, "run_id,platform,tp,model,active_params_b,running,n_series,mean_power_w\n"
	                           "a,A100,1,Qwen/Qwen3-8B,8.19,4,s4.csv,300\n"
	                           "b,A100,1,Qwen/Qwen3-8B,8.19,4,s0.csv,85\n"),
	          0);
	calibrate(runs, out, &r);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "hand.csv:3:31: column 'n_series': run 'b' is at 0 running requests");
	run_result_free(&r);
	free(s0);
	free(s4);
	free(runs);
	free(out);
}

int
main(void)
{
	char *dir = test_tmpdir("ingest_segment_idle");
	char *run = write_run(dir), *seg = path_join(dir, "seg.csv"), *whole = path_join(dir, "whole.csv");
	char *cal = path_join(dir, "seg.json");
	run_result r;

	const char *segment[] = { "wattcast", "ingest", run, "-o", seg, "--segment", "10", NULL };
	CHECK_INT(run_wattcast(segment, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	/* seg1 and seg2 ran nothing: marked, said once, shown as excluded */
	CHECK_CONTAINS(r.err, "2 of 6 segments idle (mean running below 0.5): excluded as 'idle'");
	CHECK_INT(count_lines(r.out, "(excluded)"), 2);
	run_result_free(&r);
	char *text = test_slurp(seg);
	CHECK_INT(count_lines(text, IDLE_REASON), 2);
	CHECK_CONTAINS(text, "seg#seg1,");
	CHECK(strstr(text, "seg#seg1,") && strstr(strstr(text, "seg#seg1,"), IDLE_REASON));
	free(text);

	/* ... and calibrate takes the table ingest wrote (it refused it:
	 * "column 'n_series': run 'seg#seg1' is at 0 running requests") */
	calibrate(seg, cal, &r);
	CHECK_INT(r.status, 0);
	if (r.status != 0)
		fprintf(stderr, "calibrate: %s\n", r.err);
	run_result_free(&r);

	/* the run's own row is its stated load: no exclude column at all */
	const char *one[] = { "wattcast", "ingest", run, "-o", whole, NULL };
	CHECK_INT(run_wattcast(one, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	CHECK(strstr(r.err, "idle (mean running") == NULL);
	run_result_free(&r);
	text = test_slurp(whole);
	CHECK(strstr(text, "exclude") == NULL);
	free(text);

	refusal_column(dir);
	free(run);
	free(seg);
	free(whole);
	free(cal);
	free(dir);
	return check_report("test_ingest_segment_idle");
}
