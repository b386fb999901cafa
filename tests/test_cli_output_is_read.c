/*
 * An output never replaces a file the command reads, whichever path names
 * it (docs/cli.md, "Conventions"): not only the files on the command line
 * but those it reads through them -- a table's n(t) series files
 * (`n_series`), a run folder's engine.csv and power.csv. Such an output
 * replaced the measured series, counters or power log with exit 0. Now the
 * write is refused (exit non-zero, naming the output and the file read)
 * and the file is left byte for byte; the same command with another output
 * succeeds.
 */
#include "data/data.h"
#include "tests/support/support.h"
#include "tests/support/synth_folder.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define T0 1784415000.0

/* `argv` (its output at `argv[out_at]`) fails naming `kept`, which stays
 * as it was; with the output at `fresh` instead it succeeds. */
static void
refused_then_fine(const char **argv, int out_at, const char *kept, const char *fresh)
{
	char *before = test_slurp(kept), *after;
	run_result r;
	argv[out_at] = kept;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK(r.status != 0);
	CHECK_CONTAINS(r.err, "this command read; writing it would destroy that input");
	CHECK_CONTAINS(r.err, kept);
	run_result_free(&r);
	after = test_slurp(kept);
	CHECK(before && after && strcmp(before, after) == 0);
	free(before);
	free(after);
	argv[out_at] = fresh;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	if (r.status)
		fprintf(stderr, "exit %d: %s", r.status, r.err);
	run_result_free(&r);
}

/* The first series file in `dir` (malloc'd), or NULL. */
static char *
first_series(const char *dir)
{
	DIR *d = opendir(dir);
	char *p = NULL;
	for (struct dirent *e; d && !p && (e = readdir(d));)
		if (strstr(e->d_name, ".csv"))
			p = path_join(dir, e->d_name);
	if (d)
		closedir(d);
	return p;
}

int
main(void)
{
	char *dir = test_tmpdir("cli_output_is_read");
	char *runs = path_join(dir, "runs");
	CHECK(mkdir(runs, 0755) == 0);
	char *a = synth_run_folder(runs, "run-a", "run-a", T0, 30, 2);
	/* more runs, at other loads: enough for a fit */
	const int load[] = { 1, 4, 6, 8, 12, 16 };
	for (int i = 0; i < 6; i++) {
		char name[16];
		snprintf(name, sizeof name, "run-%d", load[i]);
		free(synth_run_folder(runs, name, name, T0 + 100.0 * (i + 1), 30, load[i]));
	}
	char *engine = path_join(a, "engine.csv"), *power = path_join(a, "power.csv");
	char *table = path_join(dir, "t.csv"), *series_dir = path_join(dir, "t.series");
	char *fresh = path_join(dir, "fresh.csv"), *fresh_json = path_join(dir, "fresh.json");

	/* ingest -o at a run folder's engine counters */
	const char *ing[] = { "wattcast", "ingest", runs, "-o", NULL, "--quiet", NULL };
	refused_then_fine(ing, 4, engine, table);

	/* an output at one of the table's n(t) series files */
	char *series = first_series(series_dir);
	CHECK(series != NULL);
	if (series) {
		const char *val[] = { "wattcast", "validate", "heldout", "--profile", "paper", table, "--per-run",
			              NULL, "--quiet", NULL };
		refused_then_fine(val, 7, series, fresh);
		const char *fit[] = { "wattcast", "fit", "inference", table, "-o", NULL, "--bootstrap", "0",
			              "--quiet", NULL };
		refused_then_fine(fit, 5, series, fresh_json);
	}

	/* validate envelope --per-run at a run folder's power log */
	char *req = path_join(a, "requests.json");
	char text[512];
	snprintf(text, sizeof text,
	         "{\"request_timestamps\":[%.1f,%.1f],\"input_lens\":[3000,3000],\"output_lens\":[250,250],"
	         "\"ttfts\":[0.4,0.4],\"itls\":[0.0144,0.0144]}",
	         T0 + 2, T0 + 11);
	FILE *f = fopen(req, "w");
	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
	const char *env[] = { "wattcast", "validate", "envelope", "--profile", "measured", a, "--platform", "A100",
		              "--model", "Qwen3-8B", "--tp", "1", "--utc-offset", "0", "--replicas", "2", "--quiet",
		              "--per-run", NULL, NULL };
	refused_then_fine(env, 18, power, fresh);

	free(req);
	free(series);
	free(a);
	free(engine);
	free(power);
	free(table);
	free(series_dir);
	free(fresh);
	free(fresh_json);
	free(runs);
	free(dir);
	return check_report("test_cli_output_is_read");
}
