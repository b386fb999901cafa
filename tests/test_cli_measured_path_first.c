/*
 * `envelope --measured PATH` says what is wrong with PATH before it asks
 * for flags the run would have filled (docs/cli.md, `--measured`: the
 * platform and the model default to the run's). A path that does not
 * exist, a file, or a folder without a run folder said "--platform is
 * required (see --help)", exit 2, while with --platform and --model the
 * same command said "PATH: not a folder" or "no run folder (one holding
 * power.csv) in or under it", exit 1. Both now say the path's problem,
 * exit 1, whatever flags are given; a path that does not exist says so
 * (the system's reason), not "not a folder".
 */
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* `envelope --measured path` (with --platform and --model when `flags`)
 * exits 1 saying `path` then `why` */
static void
refused(const char *path, int flags, const char *why)
{
	const char *argv[] = { "wattcast", "envelope", "--measured", path, flags ? "--platform" : NULL, "A100",
		               "--model", "Qwen3-8B", NULL };
	run_result r;
	char want[512];
	snprintf(want, sizeof want, "wattcast envelope: %s%s", path, why);
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, want);
	if (r.err && strstr(r.err, "--platform is required"))
		fprintf(stderr, "  --measured %s asked for --platform\n", path);
	run_result_free(&r);
}

int
main(void)
{
	char *dir = test_tmpdir("measured_path_first");
	char *none = path_join(dir, "nonexistent"), *empty = path_join(dir, "empty");
	char *file = test_fixture(dir, "afile", "x\n");
	CHECK_INT(mkdir(empty, 0755), 0);
	for (int flags = 0; flags <= 1; flags++) {
		refused(none, flags, ": cannot open (No such file or directory)");
		refused(file, flags, ": not a folder");
		refused(empty, flags, ": no run folder (one holding power.csv) in or under it");
	}
	/* a run folder without a manifest still asks for the flags it lacks */
	char *run = path_join(dir, "run");
	CHECK_INT(mkdir(run, 0755), 0);
	char *power = test_fixture(run, "power.csv", "timestamp,index,power.draw [W]\n2026/07/18 10:00:00.000,0,100\n");
	const char *argv[] = { "wattcast", "envelope", "--measured", run, NULL };
	run_result r;
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	CHECK_INT(r.status, 2);
	CHECK_CONTAINS(r.err, "--platform is required");
	run_result_free(&r);
	free(power);
	free(run);
	free(none);
	free(empty);
	free(file);
	free(dir);
	return check_report("test_cli_measured_path_first");
}
