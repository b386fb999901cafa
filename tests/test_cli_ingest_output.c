/*
 * Where `wattcast ingest` writes (docs/cli.md, "ingest"; docs/formats/
 * telemetry.md, "n(t) on the 50 ms grid"): an -o that names a folder, or whose
 * series folder `<stem>.series` is a file, is refused before any run is
 * read -- it used to fail only at the end ("rename failed (Is a
 * directory)") and leave `<stem>.series/` behind. Once a table is written
 * its series folder holds that table's series only: re-running to the
 * same -o with other runs left the earlier runs' series there. Files not
 * named as series, links and folders are not the tool's and stay.
 */
#include "data/data.h"
#include "tests/support/support.h"
#include "tests/support/synth_folder.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define T0 1784415000.0

static char *root;


static int
exists(const char *dir, const char *name)
{
	char *p = path_join(dir, name);
	struct stat st;
	int r = lstat(p, &st) == 0;
	free(p);
	return r;
}

/* `status` -1: refused, as a usage error (2) or a failure (1). */
static void
run_ingest(const char *const *argv, int status, const char *err_has)
{
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	int ok = status < 0 ? r.status == 1 || r.status == 2 : r.status == status;
	CHECK(ok);
	if (!ok)
		fprintf(stderr, "exit %d: %s", r.status, r.err);
	if (err_has) {
		CHECK_CONTAINS(r.err, err_has);
		CHECK(r.out && r.out[0] == '\0'); /* no summary: nothing was ingested */
	}
	run_result_free(&r);
}

int
main(void)
{
	root = test_tmpdir("cli_ingest_output");
	char *a = synth_run_folder(root, "run-a", "run-a", T0, 30, 2);
	char *b = synth_run_folder(root, "run-b", "run-b", T0, 30, 2);
	char *folder = path_join(root, "outdir"), *folder_series = path_join(root, "outdir.series");
	char *table = path_join(root, "runs.csv"), *series = path_join(root, "runs.series");
	char *plain = path_join(root, "plain.csv"), *plain_series = path_join(root, "plain.series");

	/* -o names a folder: refused before the runs are read, nothing left. */
	mkdir(folder, 0755);
	run_ingest((const char *const[]){ "wattcast", "ingest", a, "-o", folder, NULL }, -1, "is a folder");
	CHECK(!exists(root, "outdir.series"));
	CHECK_INT(test_dir_entries(folder, NULL, NULL), 0);
	/* ... and so is a series folder that is a file. */
	write_text(plain_series, "not a folder\n");
	run_ingest((const char *const[]){ "wattcast", "ingest", a, "-o", plain, NULL }, -1,
	           "plain.series: is not a folder, and the series of table");
	CHECK(!exists(root, "plain.csv"));

	/* Two runs, then one: the other's series goes, what is not a series
	 * file of the tool stays. */
	run_ingest((const char *const[]){ "wattcast", "ingest", a, b, "-o", table, "--quiet", NULL }, 0, NULL);
	CHECK(exists(series, "run-a.csv") && exists(series, "run-b.csv"));
	char *notes = path_join(series, "notes.txt"), *sub = path_join(series, "old.csv");
	char *link = path_join(series, "link.csv"), *target = path_join(root, "target.csv");
	write_text(notes, "mine\n");
	mkdir(sub, 0755);
	write_text(target, "t_s,running\n0,1\n");
	CHECK(symlink(target, link) == 0);
	run_ingest((const char *const[]){ "wattcast", "ingest", a, "-o", table, "--quiet", NULL }, 0, NULL);
	CHECK(exists(series, "run-a.csv"));
	CHECK(!exists(series, "run-b.csv"));
	CHECK(exists(series, "notes.txt") && exists(series, "old.csv") && exists(series, "link.csv"));
	CHECK(exists(root, "target.csv"));
	CHECK_INT(test_dir_entries(series, NULL, NULL), 4);
	wc_runs_table *t = NULL;
	CHECK_INT(wc_runs_read(table, &t, NULL), WC_OK);
	if (t) {
		CHECK_INT(t->n_runs, 1);
		CHECK(strcmp(t->runs[0].n_series, "runs.series/run-a.csv") == 0);
		wc_runs_free(t);
	}

	/* A table without series (--power-only) leaves none of the earlier
	 * ones; the folder goes once nothing else is in it. */
	unlink(notes);
	rmdir(sub);
	unlink(link);
	run_ingest((const char *const[]){ "wattcast", "ingest", a, b, "-o", table, "--power-only", "--quiet", NULL },
	           0, NULL);
	CHECK(!exists(root, "runs.series"));

	free(notes);
	free(sub);
	free(link);
	free(target);
	free(folder);
	free(folder_series);
	free(table);
	free(series);
	free(plain);
	free(plain_series);
	free(a);
	free(b);
	free(root);
	return check_report("test_cli_ingest_output");
}
