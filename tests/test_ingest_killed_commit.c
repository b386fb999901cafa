/*
 * An ingest killed (kill -9, power loss) in the middle of its commit
 * leaves the old table with its series or the new one with its own
 * (docs/architecture.md, "Files"). The commit renamed the table first,
 * then its series: killed right after the table's rename, the table named
 * 160 series of which none existed (the folder held the earlier table's
 * and 160 pending files), and `fit` refused it; a reader polling the table
 * during an ingest saw it with some series still missing.
 *
 * Now the series are put in place first, then the table, then the earlier
 * table's series are cleared. A series whose name holds other bytes -- a
 * run id of both tables, here run_seg1 .. run_seg60 cut at 2 s and at
 * 1 s -- goes under a name of its own, not over the bytes the old table
 * names. The writer kills itself at three points of its commit, through
 * the linker's --wrap of rename (tests/CMakeLists.txt): half-way through
 * its series, at its table's rename, and right after it. Each time the
 * table on disk loads with every series it names (wc_runs_read reads
 * them), and each series holds that table's own bytes.
 */
#include "data/data.h"
#include "tests/support/ingest_run.h"
#include "tests/support/support.h"
#include "tests/support/synth_folder.h"
#include "trace/trace.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define SECS 120
#define T0 1784415439.0

enum { KILL_NONE, KILL_HALF_SERIES, KILL_AT_TABLE, KILL_AFTER_TABLE };
static int kill_at = KILL_NONE, series_renamed, series_total;
static const char *table_path;

int __real_rename(const char *from, const char *to);
int __wrap_rename(const char *from, const char *to);

int
__wrap_rename(const char *from, const char *to)
{
	/* a series put in place: from its pending name to its own */
	int series = strstr(to, ".series/") && !strstr(to, ".tmp.");
	int table = table_path && strcmp(to, table_path) == 0;
	if (kill_at == KILL_HALF_SERIES && series && ++series_renamed > series_total / 2)
		raise(SIGKILL);
	if (kill_at == KILL_AT_TABLE && table)
		raise(SIGKILL);
	int rc = __real_rename(from, to);
	if (kill_at == KILL_AFTER_TABLE && table)
		raise(SIGKILL);
	return rc;
}

static void
write_ok(const char *out, const wc_ingest_result *res)
{
	wc_error err;
	int rc = wc_ingest_write(out, res, NULL, &err);
	if (rc != WC_OK)
		fprintf(stderr, "write: %s\n", err.msg);
	CHECK_INT(rc, WC_OK);
}

/* The table at `out` loads, every series it names with it, and is
 * `want`'s: its rows in order, each series holding the bytes `want` gives
 * that row. 1 when so. */
static int
table_whole(const char *root, const char *out, const wc_ingest_result *want, const char *when)
{
	wc_runs_table *t = NULL;
	wc_error err;
	int rc = wc_runs_read(out, &t, &err); /* reads every series it names */
	if (rc != WC_OK) {
		fprintf(stderr, "%s: the table does not load: %s\n", when, err.msg);
		return 0;
	}
	char *scratch = path_join(root, "expected.csv");
	size_t wrong = t->n_runs == want->n_rows ? 0 : 1;
	for (size_t i = 0; !wrong && i < t->n_runs; i++) {
		const wc_ingest_row *r = &want->rows[i];
		if (strcmp(t->runs[i].run_id, r->run.run_id) != 0 || r->series_len < 2) {
			wrong++;
			continue;
		}
		char *got_path = path_join(root, t->runs[i].n_series);
		CHECK_INT(wc_series_write(NULL, scratch, r->series_t, r->series_running, r->series_len, &err), WC_OK);
		char *expect = test_slurp(scratch), *got = test_slurp(got_path);
		wrong += !expect || !got || strcmp(expect, got) != 0;
		free(expect);
		free(got);
		free(got_path);
	}
	unlink(scratch);
	free(scratch);
	fprintf(stderr, "%s: the table has %zu rows, %zu of them not as written\n", when, t->n_runs, wrong);
	wc_runs_free(t);
	return wrong == 0;
}

/* The earlier table `old` at `<name>.csv`, then `next` written over it by
 * a writer killed at `point`: the table left is `old` whole (killed
 * before the table's rename) or `next` whole (after it). Then `old` is
 * written again: it is whole, and the folder holds its series only. */
static void
killed_at(const char *root, const char *name, int point, const wc_ingest_result *old,
          const wc_ingest_result *next, int expect_next)
{
	char file[64], folder[64], when[96];
	snprintf(file, sizeof file, "%s.csv", name);
	snprintf(folder, sizeof folder, "%s.series", name);
	char *out = path_join(root, file), *series = path_join(root, folder);
	write_ok(out, old);

	pid_t p = fork();
	if (p == 0) {
		wc_error err;
		kill_at = point;
		table_path = out;
		series_total = (int)test_series_count(next);
		int rc = wc_ingest_write(out, next, NULL, &err);
		_exit(rc == WC_OK ? 0 : 1);
	}
	int st = 0;
	waitpid(p, &st, 0);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	snprintf(when, sizeof when, "killed %s", name);
	CHECK(table_whole(root, out, expect_next ? next : old, when));

	write_ok(out, old);
	snprintf(when, sizeof when, "%s, written again", name);
	CHECK(table_whole(root, out, old, when));
	int tmp, n = test_dir_entries(series, ".tmp.", &tmp);
	CHECK_INT(tmp, 0);
	CHECK_INT(n, (int)test_series_count(old));
	free(series);
	free(out);
}

/* Written twice with the same bytes, a table keeps its series' names;
 * with other bytes under one name, the new series is named apart. */
static void
names_kept(const char *root, const wc_ingest_result *old, const wc_ingest_result *next)
{
	char *out = path_join(root, "names.csv");
	wc_runs_table *t = NULL;
	wc_error err;
	write_ok(out, old);
	write_ok(out, old);
	CHECK_INT(wc_runs_read(out, &t, &err), WC_OK);
	if (t) {
		CHECK(strcmp(t->runs[0].n_series, "names.series/run_seg1.csv") == 0);
		wc_runs_free(t);
	}
	t = NULL;
	write_ok(out, next);
	CHECK_INT(wc_runs_read(out, &t, &err), WC_OK);
	if (t) {
		CHECK(strncmp(t->runs[0].n_series, "names.series/run_seg1@", 22) == 0);
		CHECK(strcmp(t->runs[SECS - 1].n_series, "names.series/run_seg120.csv") == 0); /* a name of no old series */
		wc_runs_free(t);
	}
	CHECK(table_whole(root, out, next, "names, other bytes"));
	free(out);
}

int
main(void)
{
	char *root = test_tmpdir("ingest_killed_commit");
	char *folder = synth_run_folder(root, "run", "run", T0, SECS, 2);
	wc_ingest_result old = { NULL, 0, 0 }, next = { NULL, 0, 0 };
	test_ingest_ok(folder, 2.0, &old);  /* run_seg1 .. run_seg60 */
	test_ingest_ok(folder, 1.0, &next); /* run_seg1 .. run_seg120: the same names, other series */
	CHECK_INT((int)test_series_count(&old), SECS / 2);
	CHECK_INT((int)test_series_count(&next), SECS);
	killed_at(root, "half", KILL_HALF_SERIES, &old, &next, 0);
	killed_at(root, "at", KILL_AT_TABLE, &old, &next, 0);
	killed_at(root, "after", KILL_AFTER_TABLE, &old, &next, 1);
	names_kept(root, &old, &next);
	wc_ingest_result_clear(&old);
	wc_ingest_result_clear(&next);
	free(folder);
	free(root);
	return check_report("test_ingest_killed_commit");
}
