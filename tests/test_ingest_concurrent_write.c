/*
 * Ingest's series writing with more than one writer to one -o
 * (docs/architecture.md, "Files"). Every writer named its pending series
 * `<name>.csv.pending`: two ingests to one table wrote, renamed and
 * removed each other's, and the table left pointed at missing series or
 * at the other ingest's (a three-hour run at --segment 1 and 2: 5,400 of
 * the table's 10,800 series missing); and a writer killed with kill -9
 * left its pending files for good, not being named as a temporary the
 * sweep of dead writers' files knows. Now a pending series is a temporary
 * of its series with the writer's pid, and writers commit one at a time:
 * the table left is whole, with its own series only, and a dead writer's
 * pending series go at the next write.
 *
 * No clock: the writers are held at points of their work through the
 * linker's --wrap (tests/CMakeLists.txt) -- each once all its series are
 * pending, where the old names collided; then the first once its table is
 * in place, its earlier table's series not yet cleared, while the second
 * goes to commit. The second says when it takes the lock (flock) and when
 * it writes its table
 * (wc_runs_write): taking the lock, it waits for the first to finish; not
 * taking one, it wrote its table and series while the first was halfway,
 * and the first's renames then put its series under the second's table.
 * The killed writer kills itself after its Nth series.
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
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define SECS 300
#define T0 1784415439.0

/* In a child: after its `meet_at`-th series it says so on `ready` and
 * waits for a byte on `go`; after its `die_at`-th it is killed. The
 * first writer (`first`) says when its table is written and waits again;
 * the second says when it takes the lock and when it writes its table. */
static int in_child, calls, meet_at, die_at, ready = -1, go = -1, first;

/* Say `what` on `ready`; with `wait`, wait for a byte on `go`. */
static void
tell(char what, int wait)
{
	char c = what;
	if (write(ready, &c, 1) != 1 || (wait && read(go, &c, 1) != 1))
		_exit(3);
}

int __real_flock(int fd, int op);
int __wrap_flock(int fd, int op);
int __real_wc_runs_write(const char *path, const wc_runs_table *t, const char *comment, wc_error *err);
int __wrap_wc_runs_write(const char *path, const wc_runs_table *t, const char *comment, wc_error *err);

int
__wrap_flock(int fd, int op)
{
	if (in_child && !first && meet_at)
		tell('l', 0);
	return __real_flock(fd, op);
}

int
__wrap_wc_runs_write(const char *path, const wc_runs_table *t, const char *comment, wc_error *err)
{
	if (in_child && !first && meet_at)
		tell('t', 0);
	int rc = __real_wc_runs_write(path, t, comment, err);
	if (in_child && first)
		tell('t', 1);
	return rc;
}

int __real_wc_series_write(const struct wc_write_batch *batch, const char *path, const double *t_s,
                           const double *running, size_t n, wc_error *err);
int __wrap_wc_series_write(const struct wc_write_batch *batch, const char *path, const double *t_s,
                           const double *running, size_t n, wc_error *err);

int
__wrap_wc_series_write(const struct wc_write_batch *batch, const char *path, const double *t_s,
                       const double *running, size_t n, wc_error *err)
{
	int rc = __real_wc_series_write(batch, path, t_s, running, n, err);
	if (!in_child)
		return rc;
	calls++;
	if (calls == die_at)
		raise(SIGKILL); /* as kill -9 between two series */
	if (calls == meet_at)
		tell('r', 1);
	return rc;
}

/* A child that writes `res` to `out`; exit 0 when written. */
static pid_t
writer(const char *out, const wc_ingest_result *res, int meet, int die, int ready_fd, int go_fd, int is_first)
{
	pid_t pid = fork();
	if (pid != 0)
		return pid;
	wc_error err;
	in_child = 1;
	meet_at = meet;
	die_at = die;
	ready = ready_fd;
	go = go_fd;
	first = is_first;
	int rc = wc_ingest_write(out, res, NULL, &err);
	if (rc != WC_OK)
		fprintf(stderr, "writer %ld: %s\n", (long)getpid(), err.msg);
	_exit(rc == WC_OK ? 0 : 1);
}

/* The table at `out` is `res`'s: its rows in order, and each series it
 * names exists and holds the bytes `res` gives that row. */
static void
check_whole(const char *root, const char *out, const wc_ingest_result *res)
{
	wc_runs_table *t = NULL;
	wc_error err;
	int rc = wc_runs_read(out, &t, &err); /* reads every series it names */
	if (rc != WC_OK)
		fprintf(stderr, "final table: %s\n", err.msg);
	CHECK_INT(rc, WC_OK);
	if (rc != WC_OK)
		return;
	CHECK_INT((int)t->n_runs, (int)res->n_rows);
	char *scratch = path_join(root, "expected.csv");
	size_t wrong = 0;
	for (size_t i = 0; i < t->n_runs && i < res->n_rows; i++) {
		const wc_ingest_row *r = &res->rows[i];
		if (strcmp(t->runs[i].run_id, r->run.run_id) != 0 || r->series_len < 2) {
			wrong++;
			continue;
		}
		char *got_path = path_join(root, t->runs[i].n_series);
		CHECK_INT(wc_series_write(NULL, scratch, r->series_t, r->series_running, r->series_len, &err), WC_OK);
		char *want = test_slurp(scratch), *got = test_slurp(got_path);
		wrong += !want || !got || strcmp(want, got) != 0;
		free(want);
		free(got);
		free(got_path);
	}
	unlink(scratch);
	free(scratch);
	fprintf(stderr, "final table: %zu rows, %zu not the writer's own\n", t->n_runs, wrong);
	CHECK_INT((int)wrong, 0);
	wc_runs_free(t);
}

/* Two writers to one table, both with all their series pending before
 * either commits, the second going to commit while the first is halfway:
 * the table left is the second's, whole, and both succeed. */
static void
two_writers(const char *root, const char *folder)
{
	wc_ingest_result a = { NULL, 0, 0 }, b = { NULL, 0, 0 };
	test_ingest_ok(folder, 1.0, &a); /* run_seg1 .. run_seg300 */
	test_ingest_ok(folder, 2.0, &b); /* run_seg1 .. run_seg150: the same names, other series */
	char *out = path_join(root, "two.csv"), *series = path_join(root, "two.series");
	int ready_a[2], ready_b[2], go_a[2], go_b[2];
	CHECK(pipe(ready_a) == 0 && pipe(ready_b) == 0 && pipe(go_a) == 0 && pipe(go_b) == 0);
	pid_t pa = writer(out, &a, (int)test_series_count(&a), 0, ready_a[1], go_a[0], 1);
	pid_t pb = writer(out, &b, (int)test_series_count(&b), 0, ready_b[1], go_b[0], 0);
	close(ready_a[1]);
	close(ready_b[1]);
	close(go_a[0]);
	close(go_b[0]);
	char c = 0, said = 0;
	CHECK(read(ready_a[0], &c, 1) == 1 && c == 'r'); /* a's series all pending */
	CHECK(read(ready_b[0], &c, 1) == 1 && c == 'r'); /* and b's */
	CHECK(write(go_a[1], "g", 1) == 1);
	CHECK(read(ready_a[0], &c, 1) == 1 && c == 't'); /* a's table in place, not yet cleared */
	CHECK(write(go_b[1], "g", 1) == 1);
	CHECK(read(ready_b[0], &said, 1) == 1);
	int sa = -1, sb = -1;
	if (said == 'l') { /* b waits for the lock: a finishes first */
		CHECK(write(go_a[1], "g", 1) == 1);
		waitpid(pa, &sa, 0);
		waitpid(pb, &sb, 0);
	} else { /* b commits unlocked: all of it before a goes on */
		waitpid(pb, &sb, 0);
		CHECK(write(go_a[1], "g", 1) == 1);
		waitpid(pa, &sa, 0);
	}
	fprintf(stderr, "second writer %s\n", said == 'l' ? "took the lock" : "committed unlocked");
	CHECK(WIFEXITED(sa) && WEXITSTATUS(sa) == 0);
	CHECK(WIFEXITED(sb) && WEXITSTATUS(sb) == 0);
	check_whole(root, out, &b);
	int pending, n = test_dir_entries(series, ".tmp.", &pending);
	CHECK_INT(pending, 0);
	CHECK_INT(n, (int)test_series_count(&b)); /* a's other series cleared */
	for (int k = 0; k < 2; k++) {
		close(k ? ready_b[0] : ready_a[0]);
		close(k ? go_b[1] : go_a[1]);
	}
	wc_ingest_result_clear(&a);
	wc_ingest_result_clear(&b);
	free(series);
	free(out);
}

/* A writer killed among its pending series: they are named as its
 * temporaries, and the next write of the table removes them. */
static void
killed_writer(const char *root, const char *folder)
{
	wc_ingest_result a = { NULL, 0, 0 }, whole = { NULL, 0, 0 };
	test_ingest_ok(folder, 1.0, &a);
	test_ingest_ok(folder, 0.0, &whole); /* one row, series run.csv */
	char *out = path_join(root, "killed.csv"), *series = path_join(root, "killed.series"), mark[32];
	int die = (int)test_series_count(&a) - 10, st = 0;
	pid_t p = writer(out, &a, 0, die, -1, -1, 0);
	waitpid(p, &st, 0);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	snprintf(mark, sizeof mark, ".tmp.%ld.", (long)p);
	int left, n = test_dir_entries(series, mark, &left);
	fprintf(stderr, "killed writer %ld left %d files, %d named as its temporaries\n", (long)p, n, left);
	CHECK_INT(left, die);
	CHECK_INT(n, die);
	CHECK(!test_exists(out));

	wc_error err;
	CHECK_INT(wc_ingest_write(out, &whole, NULL, &err), WC_OK);
	n = test_dir_entries(series, ".tmp.", &left);
	fprintf(stderr, "after the next write: %d files, %d temporaries\n", n, left);
	CHECK_INT(left, 0);
	CHECK_INT(n, 1);
	check_whole(root, out, &whole);
	wc_ingest_result_clear(&a);
	wc_ingest_result_clear(&whole);
	free(series);
	free(out);
}

int
main(void)
{
	char *root = test_tmpdir("ingest_concurrent_write");
	char *folder = synth_run_folder(root, "run", "run", T0, SECS, 2);
	two_writers(root, folder);
	killed_writer(root, folder);
	free(folder);
	free(root);
	return check_report("test_ingest_concurrent_write");
}
