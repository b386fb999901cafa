/*
 * `ingest`'s summary shows what tells its rows apart (docs/cli.md,
 * "ingest"): the run_id column was cut at 48 bytes, so the "#seg1" ...
 * "#seg4" of a segmented run with a long id never showed and every line
 * read the same. Now the column is as wide as the longest id (up to 64),
 * and a longer id loses its middle, never its end. The platform column
 * is as wide as the longest platform (it cut H100-NVL to H100-N). Two
 * folders with one run id are refused naming both folders (a run and its
 * copy in a tree of hundreds were left to be hunted for). A segment's id
 * whose run id leaves no room for "#segK" gives way between characters
 * (a CJK id was cut inside one, invalid UTF-8 in the table).
 */
#include "tests/support/support.h"
#include "tests/support/synth_folder.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void
ingest_segments(const char *dir, const char *run_id, const char *name)
{
	char *root = path_join(dir, name);
	mkdir(root, 0755);
	char *folder = synth_run_folder(root, "run", run_id, 1784415439.0, 80, 8);
	char *out = path_join(dir, "seg.csv");
	const char *argv[] = { "wattcast", "ingest", folder, "-o", out, "--segment", "20", NULL };
	run_result r;
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	char want[160];
	size_t n = strlen(run_id);
	for (int k = 1; k <= 4; k++) {
		if (n + 5 <= 64) /* fits: shown whole */
			snprintf(want, sizeof want, "\n%s#seg%d ", run_id, k);
		else /* the end kept */
			snprintf(want, sizeof want, "%s#seg%d ", run_id + n - 20, k);
		CHECK_CONTAINS(r.out, want);
	}
	if (n + 5 > 64) /* the middle gave way */
		CHECK_CONTAINS(r.out, "a100_validate_tp1_r4p0_b1...");
	/* every line of the table the same width up to the platform */
	const char *first = r.out ? strstr(r.out, "\n") : NULL, *plat = first ? strstr(first, " A100 ") : NULL;
	CHECK(plat != NULL && (size_t)(plat - first - 1) <= 64);
	run_result_free(&r);
	free(out);
	free(folder);
	free(root);
}

int
main(void)
{
	char *dir = test_tmpdir("cli_ingest_summary_ids");
	/* 48 bytes: the cut hid the segment suffix entirely */
	ingest_segments(dir, "a100_validate_tp1_r4p0_b1p0_s20260712_1784415439", "mid");
	/* 90 bytes: shortened in the middle */
	ingest_segments(dir,
	                "a100_validate_tp1_r4p0_b1p0_s20260712_with_a_very_long_description_of_the_run_1784415439",
	                "long");

	/* The platform shown whole: "H100-NVL" was cut to "H100-N". */
	char *root = path_join(dir, "nvl");
	mkdir(root, 0755);
	char *folder = synth_run_folder(root, "run", "nvl_run", 1784415439.0, 20, 8);
	char *man = path_join(folder, "wattcast-run.json"), *out = path_join(dir, "nvl.csv");
	char *text = test_replaced(test_slurp(man), "\"A100\"", "\"H100-NVL\"");
	CHECK(write_text(man, text) == 0);
	const char *argv[] = { "wattcast", "ingest", folder, "-o", out, NULL };
	run_result r;
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, "run_id  plat      tp");
	CHECK_CONTAINS(r.out, "\nnvl_run H100-NVL   1 ");
	run_result_free(&r);
	free(text);
	free(out);
	free(man);
	free(folder);
	free(root);

	/* one run id in two folders: both named */
	root = path_join(dir, "dup");
	mkdir(root, 0755);
	char *one = synth_run_folder(root, "one", "dup_run", 1784415439.0, 20, 8);
	char *copy = synth_run_folder(root, "copy", "dup_run", 1784415439.0, 20, 8);
	out = path_join(dir, "dup.csv");
	const char *dup_argv[] = { "wattcast", "ingest", root, "-o", out, "--quiet", NULL };
	CHECK_INT(run_wattcast(dup_argv, NULL, &r), 0);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "run_id 'dup_run' appears twice (two runs with the same id): in ");
	CHECK(r.err && strstr(r.err, "dup/copy and ") && strstr(r.err, "dup/one"));
	run_result_free(&r);
	/* one folder given twice: said so, naming the arguments (its runs
	 * were "two runs with the same id", one path printed twice) */
	const char *twice_argv[] = { "wattcast", "ingest", one, one, "-o", out, "--quiet", NULL };
	CHECK_INT(run_wattcast(twice_argv, NULL, &r), 0);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "/dup/one: given twice (RUN_DIRs 1 and 2): each run counts once");
	run_result_free(&r);
	/* ... and a folder inside another given: the one folder named */
	char *lone_root = path_join(dir, "lone");
	mkdir(lone_root, 0755);
	char *lone = synth_run_folder(lone_root, "run", "lone_run", 1784415439.0, 20, 8);
	const char *inside_argv[] = { "wattcast", "ingest", lone_root, lone, "-o", out, "--quiet", NULL };
	CHECK_INT(run_wattcast(inside_argv, NULL, &r), 0);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "run_id 'lone_run' appears twice: its folder ");
	CHECK_CONTAINS(r.err, "/lone/run was read twice (inside two folders given)");
	run_result_free(&r);
	free(lone);
	free(lone_root);
	free(one);
	free(copy);
	free(out);
	free(root);

	/* the usual copy: one long leaf under two parents. Cut to their last
	 * 64 bytes the two names printed alike; the part where they differ is
	 * kept, within the message's 255 bytes */
	root = path_join(dir, "dup2");
	mkdir(root, 0755);
	const char *leaf = "a100_validate_tp1_r4p0_b1p0_s20260712_1784415439";
	for (int k = 0; k < 2; k++) {
		char *node = path_join(root, k ? "node_b" : "node_a");
		char *camp = path_join(node, "campaign_2026_07_18");
		mkdir(node, 0755);
		mkdir(camp, 0755);
		free(synth_run_folder(camp, leaf, leaf, 1784415439.0, 20, 8));
		free(camp);
		free(node);
	}
	out = path_join(dir, "dup2.csv");
	const char *dup2_argv[] = { "wattcast", "ingest", root, "-o", out, "--quiet", NULL };
	CHECK_INT(run_wattcast(dup2_argv, NULL, &r), 0);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "appears twice (two runs with the same id): in ...node_a/campaign_2026_07_18/a100_");
	CHECK_CONTAINS(r.err, " and ...node_b/campaign_2026_07_18/a100_");
	const char *msg = r.err ? strstr(r.err, "run_id '") : NULL;
	CHECK(msg && strcspn(msg, "\n") <= 255);
	run_result_free(&r);
	free(out);
	free(root);
	/* "a" and 31 CJK characters (94 bytes) segmented: the id gives way
	 * before "#segK" at a character's boundary (90 bytes was inside one). */
	char cjk[128] = "a";
	for (int i = 0; i < 31; i++)
		strcat(cjk, "模");
	root = path_join(dir, "cjk");
	mkdir(root, 0755);
	char *cf = synth_run_folder(root, "run", cjk, 1784415439.0, 80, 8);
	out = path_join(dir, "cjk.csv");
	const char *cjk_argv[] = { "wattcast", "ingest", cf, "-o", out, "--segment", "20", "--quiet", NULL };
	CHECK_INT(run_wattcast(cjk_argv, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	run_result_free(&r);
	char *table = test_slurp(out);
	char want[160];
	snprintf(want, sizeof want, "\n%.88s#seg1,", cjk); /* "a", 29 whole characters, the suffix */
	CHECK_CONTAINS(table, want);
	free(table);
	free(out);
	free(cf);
	free(root);
	free(dir);
	return check_report("test_cli_ingest_summary_ids");
}
