/*
 * Series file names of `wattcast ingest` (docs/formats/telemetry.md, "n(t)
 * on the 50 ms grid"): run ids are sanitised to [A-Za-z0-9._-], so two
 * different ids ("exp/run 1", "exp_run_1") could name one file, and the
 * second run's n(t) silently replaced the first's while both rows pointed
 * at it. Now the table is refused naming both ids, before anything is
 * written; ids that stay apart are written as before.
 */
#include "data/data.h"
#include "tests/support/support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define T0 1784415000.0

static char *root;

/* Run folder `dir` with run id `id`: 30 s at 0.25 s, 2 running. */
static char *
write_run(const char *name, const char *id)
{
	char *dir = path_join(root, name), *p = path_join(dir, "power.csv");
	char *e = path_join(dir, "engine.csv"), *m = path_join(dir, "wattcast-run.json"), man[512];
	mkdir(dir, 0755);
	FILE *fp = fopen(p, "w"), *fe = fopen(e, "w");
	CHECK(fp && fe);
	if (!fp || !fe)
		exit(1);
	fprintf(fp, "timestamp, index, power.draw [W]\n");
	fprintf(fe, "timestamp,num_requests_running\n");
	for (int k = 0; k < 120; k++) {
		double t = T0 + 0.25 * k;
		long ms = (long)llround(fmod(t, 86400.0) * 1000.0);
		fprintf(fp, "2026/07/18 %02ld:%02ld:%02ld.%03ld, 0, %.2f W\n", ms / 3600000, ms / 60000 % 60,
		        ms / 1000 % 60, ms % 1000, 250.0 + 10.0 * sin(0.3 * k));
		fprintf(fe, "%.3f,2\n", t);
	}
	fclose(fp);
	fclose(fe);
	snprintf(man, sizeof man, "{\"schema\": \"wattcast.run/2\", \"run_id\": \"%s\", \"platform\": \"A100\", "
	         "\"tp\": 1, \"model\": \"Qwen/Qwen3-8B\", \"utc_offset_s\": 0, \"workload\": \"closed\"}\n", id);
	CHECK(write_text(m, man) == 0);
	free(p);
	free(e);
	free(m);
	return dir;
}

static int
exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

int
main(void)
{
	root = test_tmpdir("ingest_series_names");
	char *a = write_run("a", "exp/run 1"), *b = write_run("b", "exp_run_1"), *c = write_run("c", "exp-run-2");
	char *table = path_join(root, "t.csv"), *series = path_join(root, "t.series");
	run_result r;

	/* The same file name: refused, both ids named, nothing written. */
	const char *clash[] = { "wattcast", "ingest", a, b, "-o", table, "--quiet", NULL };
	CHECK(run_wattcast(clash, NULL, &r) == 0);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "give the runs ids that differ in [A-Za-z0-9._-]: run_id 'exp/run 1' and "
	                      "'exp_run_1' would share the series file 'exp_run_1.csv'");
	CHECK(!exists(table));
	CHECK(!exists(series));
	run_result_free(&r);

	/* The control: ids whose names stay apart. */
	const char *apart[] = { "wattcast", "ingest", a, c, "-o", table, "--quiet", NULL };
	CHECK(run_wattcast(apart, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	char *s1 = path_join(series, "exp_run_1.csv"), *s2 = path_join(series, "exp-run-2.csv");
	CHECK(exists(table) && exists(s1) && exists(s2));
	run_result_free(&r);

	free(s1);
	free(s2);
	free(a);
	free(b);
	free(c);
	free(table);
	free(series);
	free(root);
	return check_report("test_ingest_series_names");
}
