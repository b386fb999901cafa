/*
 * A command refuses, before any work, an output whose folder does not
 * exist (exit 2, one line naming the flag and the folder; docs/cli.md,
 * "Conventions"): `predict flexibility --csv /nonexistent/dir/x.csv` did
 * the whole sweep, printed the table, then failed writing the file with
 * exit 1. So do a folder that is a file and an output that is a folder.
 * Every command that writes a file is here.
 */
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MISSING "/nonexistent/wattcast-dir"

/* Exit 2, no stdout, one line on stderr containing each of the needles. */
static void
refused(const char *const *argv, const char *n1, const char *n2)
{
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, 2);
	CHECK_CONTAINS(r.err, n1);
	CHECK_CONTAINS(r.err, n2);
	CHECK(r.out[0] == '\0');
	char *nl = strchr(r.err, '\n');
	CHECK(nl && nl[1] == '\0');
	if (r.status != 2 || r.out[0])
		fprintf(stderr, "  case: %s %s %s -> %d\n", argv[1], argv[2], n1, r.status);
	run_result_free(&r);
}

int
main(void)
{
	char *dir = test_tmpdir("cli_output_folder");
	char *runs = path_join(dir, "runs.csv"), *ft = path_join(dir, "ft.csv"), *params = path_join(dir, "p.json");
	const char *sim[] = { "wattcast", "simulate", "inference", "--seed", "7", "-o", runs, NULL };
	const char *simft[] = { "wattcast", "simulate", "finetune", "--seed", "7", "-o", ft, NULL };
	const char *prof[] = { "wattcast", "profile", "export", "paper", "-o", params, NULL };
	test_run_ok(sim);
	test_run_ok(simft);
	test_run_ok(prof);

	const char *out = MISSING "/x.csv", *folder = "folder '" MISSING "' does not exist";
#define FLEX "wattcast", "predict", "flexibility", "--platform", "H100", "--model", "Qwen3-8B", "--concurrency", \
	     "8", "--input-tokens", "512", "--output-tokens", "256"
#define ENV "wattcast", "envelope", "--platform", "H100", "--active-params", "8", "--closed", "8", "--horizon", "10"
	const struct { const char *const *argv; const char *flag; } cases[] = {
		{ (const char *const[]){ FLEX, "--csv", out, NULL }, "predict flexibility: --csv: " },
		{ (const char *const[]){ FLEX, "--svg", out, NULL }, "predict flexibility: --svg: " },
		{ (const char *const[]){ ENV, "--csv", out, NULL }, "envelope: --csv: " },
		{ (const char *const[]){ ENV, "--svg", out, NULL }, "envelope: --svg: " },
		{ (const char *const[]){ "wattcast", "fit", "inference", runs, "-o", out, NULL }, "fit inference: -o: " },
		{ (const char *const[]){ "wattcast", "fit", "capacity", runs, "-o", out, NULL }, "fit capacity: -o: " },
		{ (const char *const[]){ "wattcast", "fit", "intervals", runs, "--profile", "paper", "-o", out, NULL },
		  "fit intervals: -o: " },
		{ (const char *const[]){ "wattcast", "fit", "response", dir, "-o", out, NULL }, "fit response: -o: " },
		{ (const char *const[]){ "wattcast", "fit", "finetune", ft, "-o", out, NULL }, "fit finetune: -o: " },
		{ (const char *const[]){ "wattcast", "calibrate", "--params", params, runs, "-o", out, NULL },
		  "calibrate: -o: " },
		{ (const char *const[]){ "wattcast", "calibrate", "finetune", ft, "-o", out, NULL },
		  "calibrate finetune: -o: " },
		{ (const char *const[]){ "wattcast", "import", "csv", runs, "--map", "run_id=run_id", "-o", out, NULL },
		  "import csv: -o: " },
		{ (const char *const[]){ "wattcast", "ingest", dir, "-o", out, NULL }, "ingest: -o: " },
		{ (const char *const[]){ "wattcast", "ingest", "--prometheus-json", params, "-o", out, NULL },
		  "ingest: -o: " },
		{ (const char *const[]){ "wattcast", "simulate", "inference", "-o", out, NULL }, "simulate inference: -o: " },
		{ (const char *const[]){ "wattcast", "simulate", "finetune", "-o", out, NULL }, "simulate finetune: -o: " },
		{ (const char *const[]){ "wattcast", "validate", "heldout", "--profile", "paper", runs, "--per-run", out,
		                         NULL },
		  "validate heldout: --per-run: " },
		{ (const char *const[]){ "wattcast", "validate", "capacity", runs, "--per-run", out, NULL },
		  "validate capacity: --per-run: " },
		{ (const char *const[]){ "wattcast", "validate", "envelope", "--profile", "paper", dir, "--per-run", out,
		                         NULL },
		  "validate envelope: --per-run: " },
		{ (const char *const[]){ "wattcast", "validate", "fewshot", runs, "--profile", "paper", "--per-run", out,
		                         NULL },
		  "validate fewshot: --per-run: " },
		{ (const char *const[]){ "wattcast", "validate", "finetune", ft, "--per-run", out, NULL },
		  "validate finetune: --per-run: " },
		{ (const char *const[]){ "wattcast", "profile", "export", "paper", "-o", out, NULL }, "profile: -o: " },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		refused(cases[i].argv, cases[i].flag, folder);

	/* A "folder" that is a file, and an output that is a folder. */
	char *in_file = path_join(dir, "runs.csv/x.svg");
	char not_folder[1024];
	snprintf(not_folder, sizeof not_folder, "'%s' is not a folder", runs);
	refused((const char *const[]){ FLEX, "--svg", in_file, NULL }, "--svg: ", not_folder);
	refused((const char *const[]){ "wattcast", "fit", "inference", runs, "-o", dir, NULL }, "-o: ", "is a folder");
	/* A folder this user cannot write (/proc/self refuses even root) is
	 * refused before any work too: an envelope wrote its --csv, then
	 * failed on its --svg, exit 1 with half its outputs on disk. */
	if (access("/proc/self", W_OK) != 0) {
		char *half = path_join(dir, "half.csv");
		refused((const char *const[]){ ENV, "--csv", half, "--svg", "/proc/self/x.svg", NULL }, "envelope: --svg: ",
		        "folder '/proc/self' is not writable");
		CHECK(access(half, F_OK) != 0);
		refused((const char *const[]){ "wattcast", "profile", "export", "paper", "-o", "/proc/self/p.json", NULL },
		        "profile: -o: ", "is not writable");
		free(half);
	}
	/* A file in the working folder, or at a folder that exists, is fine. */
	char *csv = path_join(dir, "flex.csv");
	test_run_ok((const char *const[]){ FLEX, "--csv", csv, NULL });
	CHECK(access(csv, F_OK) == 0);
	free(csv);
	free(in_file);
	free(runs);
	free(ft);
	free(params);
	free(dir);
	return check_report("test_cli_output_folder");
}
