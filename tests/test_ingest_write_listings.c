/*
 * Writing N series files into `<stem>.series/` lists that folder a
 * constant number of times, not once per file (docs/architecture.md,
 * "Files"): every atomic write listed its target's folder for dead
 * writers' temporaries, so `ingest --segment 1` of a three-hour run (10,800
 * series) spent 25.7 s of 39.7 s reading that folder's entries. The
 * listings are counted, not timed: opendir through the linker's --wrap
 * (tests/CMakeLists.txt). The one sweep still does what the sweep of each
 * file did: a dead writer's temporary goes, whatever its target, and a
 * live writer's stays; a file of a batch outside its folder is swept as a
 * single write is.
 */
#include "data/data.h"
#include "tests/support/support.h"
#include "tests/support/synth_folder.h"
#include "trace/trace.h"

#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define SECS 1000 /* one series file per second at --segment 1 */

static const char *watched; /* the folder whose listings are counted */
static int listings;

DIR *__real_opendir(const char *name);
DIR *__wrap_opendir(const char *name);

DIR *
__wrap_opendir(const char *name)
{
	listings += watched && strcmp(name, watched) == 0;
	return __real_opendir(name);
}

/* A pid that was alive a moment ago and is not any more. */
static long
dead_pid(void)
{
	pid_t pid = fork();
	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
	return (long)pid;
}

/* A temporary `name` in `dir`, as a writer killed before its rename
 * leaves it; its path (malloc'd). */
static char *
leave_temporary(const char *dir, const char *name)
{
	char *p = path_join(dir, name);
	CHECK_INT(write_text(p, "t_s,running\n0.000,"), 0);
	return p;
}

/* Files in `dir` whose name holds ".tmp.". */
static int
count_temporaries(const char *dir)
{
	DIR *d = __real_opendir(dir);
	int n = 0;
	for (struct dirent *e; d && (e = readdir(d));)
		n += strstr(e->d_name, ".tmp.") != NULL;
	if (d)
		closedir(d);
	return n;
}

static void
ingest_listings(const char *root)
{
	char *folder = synth_run_folder(root, "run", "run", 1784415439.0, SECS, 2);
	char *out = path_join(root, "out.csv"), *series = path_join(root, "out.series"), name[128];
	wc_ingest_options o;
	wc_ingest_result res = { NULL, 0, 0 };
	wc_error err;
	wc_ingest_options_init(&o);
	o.segment_s = 1.0;
	CHECK_INT(wc_ingest_run(folder, &o, &res, &err), WC_OK);
	CHECK(res.n_rows >= SECS - 2);
	/* Dead writers' temporaries of a series of this table and of another
	 * target, and a live writer's (a child that waits to be killed). */
	mkdir(series, 0755);
	long dead = dead_pid();
	pid_t live = fork();
	if (live == 0) {
		pause();
		_exit(0);
	}
	snprintf(name, sizeof name, "run_seg5.csv.pending.tmp.%ld.AbC123", dead);
	char *dead_own = leave_temporary(series, name);
	snprintf(name, sizeof name, "other.csv.tmp.%ld.QwE456", dead);
	char *dead_other = leave_temporary(series, name);
	snprintf(name, sizeof name, "run_seg7.csv.pending.tmp.%ld.XyZ789", (long)live);
	char *live_own = leave_temporary(series, name);

	watched = series;
	for (int pass = 0; pass < 2; pass++) { /* into an empty folder, then over the first table's */
		listings = 0;
		CHECK_INT(wc_ingest_write(out, &res, NULL, &err), WC_OK);
		fprintf(stderr, "pass %d: %zu series written, %d listings of %s\n", pass, res.n_rows, listings, series);
		/* one sweep before the series, one prune after the table */
		CHECK(listings <= 2);
	}
	watched = NULL;
	CHECK(access(dead_own, F_OK) != 0);
	CHECK(access(dead_other, F_OK) != 0);
	CHECK(access(live_own, F_OK) == 0);
	CHECK_INT(count_temporaries(series), 1);
	/* the series are all there and read back */
	snprintf(name, sizeof name, "%s/run_seg%d.csv", series, SECS / 2);
	wc_load_histogram h;
	CHECK_INT(wc_series_read(name, &h, &err), WC_OK);
	wc_load_histogram_free(&h);
	kill(live, SIGKILL);
	waitpid(live, NULL, 0);
	wc_ingest_result_clear(&res);
	free(dead_own);
	free(dead_other);
	free(live_own);
	free(series);
	free(out);
	free(folder);
}

/* A file of a batch outside the batch's folder (a link's target
 * elsewhere) is swept as a single write sweeps: its own target's dead
 * temporaries, and those of its target only. */
static void
outside_the_batch(const char *root)
{
	char *a = path_join(root, "a"), *b = path_join(root, "b"), name[128];
	mkdir(a, 0755);
	mkdir(b, 0755);
	long dead = dead_pid();
	snprintf(name, sizeof name, "f.json.tmp.%ld.AbC123", dead);
	char *mine = leave_temporary(b, name);
	snprintf(name, sizeof name, "g.json.tmp.%ld.AbC123", dead);
	char *other = leave_temporary(b, name);
	wc_write_batch batch;
	wc_write_batch_begin(&batch, a);
	char *target = path_join(b, "f.json");
	wc_error err;
	CHECK_INT(wc_write_batch_file(&batch, target, "{}", 2, &err), WC_OK);
	CHECK(access(mine, F_OK) != 0);
	CHECK(access(other, F_OK) == 0);
	char *text = test_slurp(target);
	CHECK(strcmp(text, "{}") == 0);
	free(text);
	free(target);
	free(mine);
	free(other);
	free(a);
	free(b);
}

int
main(void)
{
	char *root = test_tmpdir("ingest_write_listings");
	ingest_listings(root);
	outside_the_batch(root);
	free(root);
	return check_report("test_ingest_write_listings");
}
