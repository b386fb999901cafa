/*
 * A failed `wattcast ingest` leaves an earlier table to the same -o as it
 * was (docs/formats/telemetry.md, "n(t) on the 50 ms grid"). The series
 * were written to their final names one by one before the table, so a
 * write failing half-way (a full disk) had already replaced the earlier
 * table's series: its rows then pointed at another run's n(t). Now the
 * series go to pending names, and a series whose name holds other bytes
 * is put in place under a name of its own, never over the earlier
 * table's, before the table is written. The full disk is a file-size limit here: the
 * short run's series fits under it, the long run's does not.
 */
#include "data/data.h"
#include "tests/support/support.h"
#include "tests/support/synth_folder.h"

#include <dirent.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

#define T0 1784415000.0

static char *root;


/* Files in `dir` whose name ends in `suffix` and holds `part` (a
 * pending series is a temporary, `<name>.csv.tmp.<pid>.XXXXXX`). */
static int
count_named(const char *dir, const char *suffix, const char *part)
{
	DIR *d = opendir(dir);
	int n = 0;
	for (struct dirent *e; d && (e = readdir(d));) {
		size_t l = strlen(e->d_name), s = strlen(suffix);
		n += l > s && strcmp(e->d_name + l - s, suffix) == 0 && strstr(e->d_name, part) != NULL;
	}
	if (d)
		closedir(d);
	return n;
}

int
main(void)
{
	root = test_tmpdir("ingest_failed_write");
	char *a = synth_run_folder(root, "a", "a", T0, 30, 2);
	char *b = synth_run_folder(root, "b", "b", T0, 400, 2);
	char *table = path_join(root, "t.csv"), *series = path_join(root, "t.series");
	char *sa = path_join(series, "a.csv");
	run_result r;

	/* The earlier table. */
	const char *first[] = { "wattcast", "ingest", a, b, "-o", table, "--quiet", NULL };
	test_run_ok(first);
	char *table0 = test_slurp(table), *sa0 = test_slurp(sa);
	CHECK(strstr(sa0, ",2\n") != NULL);

	/* Run a changes (3 running); the disk fills while b's series, 8000
	 * grid points, is written. */
	free(synth_run_folder(root, "a", "a", T0, 30, 3));
	struct rlimit old, small;
	CHECK(getrlimit(RLIMIT_FSIZE, &old) == 0);
	small = old;
	small.rlim_cur = 16384;
	signal(SIGXFSZ, SIG_IGN); /* inherited: the write fails with EFBIG */
	CHECK(setrlimit(RLIMIT_FSIZE, &small) == 0);
	const char *second[] = { "wattcast", "ingest", a, b, "-o", table, "--quiet", NULL };
	CHECK(run_wattcast(second, NULL, &r) == 0);
	CHECK(setrlimit(RLIMIT_FSIZE, &old) == 0);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "b.csv");
	run_result_free(&r);

	/* The earlier table and a's series as they were, nothing pending. */
	char *table1 = test_slurp(table), *sa1 = test_slurp(sa);
	CHECK(strcmp(table0, table1) == 0);
	CHECK(strcmp(sa0, sa1) == 0);
	CHECK_INT(count_named(series, "", ".tmp."), 0);
	CHECK_INT(count_named(series, ".csv", ""), 2);

	/* Without the limit the new run is written. Its series is not a's
	 * old bytes, which a reader of the old table may still be reading
	 * by that name: it goes under a.csv's name with its '@' and 8 hex
	 * digits (docs/architecture.md, "Files"), the table naming it, and
	 * the old a.csv is cleared. */
	test_run_ok(second);
	wc_runs_table *t2 = NULL;
	wc_error err;
	CHECK_INT(wc_runs_read(table, &t2, &err), WC_OK);
	char *sa2 = NULL;
	if (t2 && t2->n_runs == 2) {
		char *sa2_path = path_join(root, t2->runs[0].n_series);
		CHECK(strstr(t2->runs[0].n_series, "t.series/a@") != NULL);
		sa2 = test_slurp(sa2_path);
		free(sa2_path);
	}
	CHECK(sa2 && strstr(sa2, ",3\n") != NULL);
	CHECK(!test_exists(sa));
	CHECK_INT(count_named(series, "", ".tmp."), 0);
	CHECK_INT(count_named(series, ".csv", ""), 2);
	wc_runs_free(t2);

	free(table0);
	free(table1);
	free(sa0);
	free(sa1);
	free(sa2);
	free(sa);
	free(a);
	free(b);
	free(table);
	free(series);
	free(root);
	return check_report("test_ingest_failed_write");
}
