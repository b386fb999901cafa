/*
 * Series file names of `wattcast ingest` (docs/formats/telemetry.md, "n(t)
 * on the 50 ms grid"): run ids are sanitised to [A-Za-z0-9._-], so two
 * different ids ("exp/run 1", "exp_run_1") could name one file, and the
 * second run's n(t) silently replaced the first's while both rows pointed
 * at it. Now the table is refused naming both ids, before anything is
 * written; ids that stay apart are written as before.
 *
 * A series path longer than the 255 bytes of an n_series cell (a long -o
 * name and a long run id) was cut silently: the table was written, and
 * its n_series named no file, so the table could not be read back. Now
 * it is refused, nothing written, naming the run id whole (95 bytes at
 * most) and giving the -o path the room that is left.
 *
 * A path that fits plain but not with the '@' and 8 hex digits of a
 * changed series (another --segment to the same -o) had its own message,
 * which cut the run id at 24 bytes and gave no byte count; it is the one
 * message now, the old table left whole.
 */
#include "data/data.h"
#include "tests/support/support.h"
#include "tests/support/synth_folder.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define T0 1784415000.0

static char *root;


int
main(void)
{
	root = test_tmpdir("ingest_series_names");
	char *a = synth_run_folder(root, "a", "exp/run 1", T0, 30, 2);
	char *b = synth_run_folder(root, "b", "exp_run_1", T0, 30, 2);
	char *c = synth_run_folder(root, "c", "exp-run-2", T0, 30, 2);
	char *table = path_join(root, "t.csv"), *series = path_join(root, "t.series");
	run_result r;

	/* The same file name: refused, both ids named, nothing written. */
	const char *clash[] = { "wattcast", "ingest", a, b, "-o", table, "--quiet", NULL };
	CHECK(run_wattcast(clash, NULL, &r) == 0);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "give the run ids that differ in [A-Za-z0-9._-]: run_id 'exp/run 1' and "
	                      "'exp_run_1' would share the series file 'exp_run_1.csv'");
	CHECK(!test_exists(table));
	CHECK(!test_exists(series));
	run_result_free(&r);

	/* The control: ids whose names stay apart. */
	const char *apart[] = { "wattcast", "ingest", a, c, "-o", table, "--quiet", NULL };
	CHECK(run_wattcast(apart, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	char *s1 = path_join(series, "exp_run_1.csv"), *s2 = path_join(series, "exp-run-2.csv");
	CHECK(test_exists(table) && test_exists(s1) && test_exists(s2));
	run_result_free(&r);

	/* 200 bytes of -o name, 8 of ".series/", 99 of series file: 307.
	 * The id at its limit of 95 bytes, named whole: a cut at 24 named
	 * every powertrace-sim run alike ('a100_validate_tp1_r4p0_b'). */
	char stem[201], id[96];
	memset(stem, 's', 200);
	stem[200] = '\0';
	memset(id, 'r', 95);
	memcpy(id, "a100_validate_tp1_r4p0_b", 24);
	memcpy(id + 95 - 11, "_1784415439", 11);
	id[95] = '\0';
	char *d = synth_run_folder(root, "d", id, T0, 30, 2), long_name[220];
	snprintf(long_name, sizeof long_name, "%s.csv", stem);
	char *long_table = path_join(root, long_name);
	snprintf(long_name, sizeof long_name, "%s.series", stem);
	char *long_series = path_join(root, long_name);
	const char *too_long[] = { "wattcast", "ingest", d, "-o", long_table, "--quiet", NULL };
	CHECK(run_wattcast(too_long, NULL, &r) == 0);
	CHECK_INT(r.status, 1);
	char want[256];
	snprintf(want, sizeof want, ".csv: run_id '%s': its series path of 307 bytes passes the 255 of n_series "
	         "(shorten -o)\n", id);
	CHECK_CONTAINS(r.err, want);
	/* the message within 255 bytes, after the command's prefix */
	static const char prefix[] = "wattcast ingest: ";
	CHECK(strncmp(r.err, prefix, sizeof prefix - 1) == 0 && strlen(r.err) - (sizeof prefix - 1) - 1 <= 255);
	CHECK(!test_exists(long_table));
	CHECK(!test_exists(long_series));
	fprintf(stderr, "%s", r.err);
	run_result_free(&r);

	/* 193 bytes of -o name, 8 of ".series/", 49 of series file: 250,
	 * 259 tagged. --segment 3 writes; --segment 2 changes seg1's n(t),
	 * whose tagged name does not fit. */
	char id40[41], name193[200];
	memset(id40, 'q', 40);
	memcpy(id40, "a100_validate_tp1_r2p5_b", 24);
	id40[40] = '\0';
	memset(name193, 'g', 193);
	snprintf(name193 + 193, sizeof name193 - 193, ".csv");
	char *e = synth_run_folder(root, "e", id40, T0, 30, 2), *seg_table = path_join(root, name193);
	const char *seg3[] = { "wattcast", "ingest", e, "-o", seg_table, "--segment", "3", "--quiet", NULL };
	CHECK(run_wattcast(seg3, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	run_result_free(&r);
	char *before = test_slurp(seg_table);
	const char *seg2[] = { "wattcast", "ingest", e, "-o", seg_table, "--segment", "2", "--quiet", NULL };
	CHECK(run_wattcast(seg2, NULL, &r) == 0);
	CHECK_INT(r.status, 1);
	snprintf(want, sizeof want, ".csv: run_id '%s#seg1': its series path with its '@' and 8 hex digits of 259 "
	         "bytes passes the 255 of n_series (shorten -o)\n", id40);
	CHECK_CONTAINS(r.err, want);
	CHECK(strncmp(r.err, prefix, sizeof prefix - 1) == 0 && strlen(r.err) - (sizeof prefix - 1) - 1 <= 255);
	char *after = test_slurp(seg_table);
	CHECK(before && after && strcmp(before, after) == 0);
	fprintf(stderr, "%s", r.err);
	run_result_free(&r);
	free(before);
	free(after);
	free(e);
	free(seg_table);

	free(d);
	free(long_table);
	free(long_series);
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
