/*
 * A UTC offset that disagrees with the engine's activity
 * (docs/formats/telemetry.md, "Clocks and UTC offsets"). An offset 30 s
 * off still lets the power and engine logs overlap, so ingest wrote a row
 * cut at the wrong place (mean power -16 %) with only indirect warnings.
 * Now the engine's running count is matched against the power trace and
 * a warning names the offset it matches at and the one used; the right
 * offset, or one within a few sampling intervals, is not warned about.
 */
#include "tests/support/support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define T0 1784412000.0  /* 2026-07-18T22:00:00Z */
#define OFFSET (-25200)  /* the logging host's: UTC-7 */

/* Running count at t (s from T0): segments of 2-11 s at 0, 2, 5 or 9. */
static int
load_at(double s)
{
	unsigned x = 12345u;
	double end = 0;
	int level = 0;
	while (end <= s) {
		x = x * 1103515245u + 12345u;
		end += 2.0 + (double)((x >> 16) % 10);
		static const int levels[] = { 0, 2, 5, 9 };
		level = levels[(x >> 8) % 4];
	}
	return s < 5.0 || s > 115.0 ? 0 : level;
}

static void
write_run(const char *run, int samples)
{
	mkdir(run, 0755);
	char *p = path_join(run, "power.csv"), *e = path_join(run, "engine.csv");
	FILE *fp = fopen(p, "w"), *fe = fopen(e, "w");
	CHECK(fp && fe);
	if (!fp || !fe)
		exit(1);
	fprintf(fp, "timestamp, index, power.draw [W]\n");
	fprintf(fe, "timestamp,num_requests_running\n");
	for (int k = 0; k < 480; k++) {
		double s = 0.25 * k, local = T0 + s + OFFSET;
		long ms = (long)llround(fmod(local, 86400.0) * 1000.0);
		if (k < samples) /* the engine's log covers all 120 s */
			fprintf(fp, "2026/07/18 %02ld:%02ld:%02ld.%03ld, 0, %.2f W\n", ms / 3600000, ms / 60000 % 60,
		        ms / 1000 % 60, ms % 1000, 60.0 + 30.0 * load_at(s - 0.3) + 4.0 * sin(1.7 * k));
		fprintf(fe, "%.3f,%d\n", T0 + s + 0.1, load_at(s + 0.1));
	}
	fclose(fp);
	fclose(fe);
	free(p);
	free(e);
	free(test_fixture(run, "wattcast-run.json", "{\"schema\": \"wattcast.run/2\", \"run_id\": \"c\", "
	                  "\"platform\": \"L40S\", \"tp\": 1, \"model\": \"mistralai/Mistral-7B-Instruct-v0.3\"}\n"));
}

static void
ingest(const char *run, const char *out, const char *offset, run_result *r)
{
	const char *argv[] = { "wattcast", "ingest", run, "-o", out, "--utc-offset", offset, NULL };
	CHECK_INT(run_wattcast(argv, NULL, r), 0);
	CHECK_INT(r->status, 0);
}

int
main(void)
{
	char *dir = test_tmpdir("ingest_offset_check"), *run = path_join(dir, "run");
	char *out = path_join(dir, "runs.csv");
	run_result r;
	write_run(run, 480);

	ingest(run, out, "-25200", &r);
	CHECK(strstr(r.err, "matches the power trace") == NULL);
	run_result_free(&r);
	ingest(run, out, "-25201", &r); /* within a few intervals and a second */
	CHECK(strstr(r.err, "matches the power trace") == NULL);
	run_result_free(&r);

	ingest(run, out, "-25230", &r);
	CHECK_CONTAINS(r.err, "run: the engine's activity matches the power trace at UTC offset -25200 s, not "
	               "at the -25230 s used (+30.");
	run_result_free(&r);
	ingest(run, out, "-25180", &r);
	CHECK_CONTAINS(r.err, "at UTC offset -25200 s, not at the -25180 s used (-19.");
	run_result_free(&r);

	/* A 75 s power log: the search reaches a third of it, 25 s, and a 30 s
	 * slip was named as that edge (+24.8 s, offset -25205); the match is
	 * followed past the edge and placed between grid points. */
	char *short_run = path_join(dir, "short");
	write_run(short_run, 300);
	ingest(short_run, out, "-25230", &r);
	fprintf(stderr, "%s", r.err);
	CHECK_CONTAINS(r.err, "at UTC offset -25200 s, not at the -25230 s used (+30.");
	run_result_free(&r);
	free(short_run);

	free(out);
	free(run);
	free(dir);
	return check_report("test_ingest_offset_check");
}
