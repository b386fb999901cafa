/*
 * A command refuses to write its output over a file it reads (exit 2,
 * naming the output flag; docs/cli.md, "Conventions"): `fit inference
 * RUNS.csv -o RUNS.csv` replaced the runs table with the parameter file.
 * Files are compared by device and inode, so a symbolic link or a "./"
 * path to the input is caught too; the input is left as it was. Two
 * outputs of one command naming one file are refused the same way.
 */
#include "tests/support/support.h"
#include "data/fileio.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Exit 2 naming `flag` and the input, and `input` unchanged. */
static void
refused(const char *const *argv, const char *input, const char *flag)
{
	char *before = test_slurp(input), *after;
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, 2);
	CHECK_CONTAINS(r.err, flag);
	CHECK_CONTAINS(r.err, "is the input");
	after = test_slurp(input);
	CHECK(before && after && strcmp(before, after) == 0);
	free(before);
	free(after);
	run_result_free(&r);
}

int
main(void)
{
	char *dir = test_tmpdir("cli_output_is_input");
	char *runs = path_join(dir, "runs.csv"), *link = path_join(dir, "link.csv");
	char *params = path_join(dir, "p.json"), *fresh = path_join(dir, "fresh.json");
	const char *sim[] = { "wattcast", "simulate", "inference", "--seed", "7", "-o", runs, NULL };
	test_run_ok(sim);
	CHECK(symlink("runs.csv", link) == 0);
	const char *prof[] = { "wattcast", "profile", "export", "paper", "-o", params, NULL };
	test_run_ok(prof);

	const char *fit_same[] = { "wattcast", "fit", "inference", runs, "-o", runs, NULL };
	refused(fit_same, runs, "wattcast fit inference: -o: ");
	const char *fit_link[] = { "wattcast", "fit", "inference", runs, "-o", link, NULL };
	refused(fit_link, runs, "-o: ");
	const char *fit_prior[] = { "wattcast", "fit", "inference", runs, "--prior", params, "-o", params, NULL };
	refused(fit_prior, params, "-o: ");
	const char *cap[] = { "wattcast", "fit", "capacity", runs, "-o", runs, NULL };
	refused(cap, runs, "wattcast fit capacity: -o: ");
	const char *cal[] = { "wattcast", "calibrate", "--params", params, runs, "-o", params, NULL };
	refused(cal, params, "wattcast calibrate: -o: ");
	const char *imp[] = { "wattcast", "import", "csv", runs, "--map", "run_id=run_id", "-o", link, NULL };
	refused(imp, runs, "wattcast import csv: -o: ");
	const char *simp[] = { "wattcast", "simulate", "inference", "--params", params, "-o", params, NULL };
	refused(simp, params, "wattcast simulate inference: -o: ");
	const char *val[] = { "wattcast", "validate", "heldout", "--profile", "paper", runs, "--per-run", runs, NULL };
	refused(val, runs, "wattcast validate heldout: --per-run: ");
	const char *ing[] = { "wattcast", "ingest", "--prometheus-json", params, "-o", params, NULL };
	refused(ing, params, "wattcast ingest: -o: ");
	const char *env[] = { "wattcast", "envelope", "--platform", "H100", "--active-params", "8", "--closed", "8",
	                      "--params", params, "--csv", params, NULL };
	refused(env, params, "wattcast envelope: --csv: ");

	const char *flex[] = { "wattcast", "predict", "flexibility", "--platform", "H100", "--model", "Qwen3-8B",
	                       "--concurrency", "8", "--input-tokens", "100", "--output-tokens", "100", "--params",
	                       params, "--svg", params, NULL };
	refused(flex, params, "wattcast predict flexibility: --svg: ");

	/* Two outputs naming one file, before either exists ("./" or not):
	 * the second would overwrite the first; nothing is written. */
	char *plot = path_join(dir, "plot.out"), *dot = path_join(dir, "./plot.out");
	const char *two[] = { "wattcast", "predict", "flexibility", "--platform", "H100", "--model", "Qwen3-8B",
	                      "--concurrency", "8", "--input-tokens", "100", "--output-tokens", "100", "--csv", plot,
	                      "--svg", dot, NULL };
	const char *two_env[] = { "wattcast", "envelope", "--platform", "H100", "--active-params", "8", "--closed",
	                          "8", "--horizon", "10", "--csv", plot, "--svg", plot, NULL };
	const char *const *both[] = { two, two_env };
	for (int k = 0; k < 2; k++) {
		run_result r;
		CHECK(run_wattcast(both[k], NULL, &r) == 0);
		CHECK_INT(r.status, 2);
		CHECK_CONTAINS(r.err, "--csv and --svg name one file");
		CHECK(access(plot, F_OK) != 0);
		run_result_free(&r);
	}
	free(plot);
	free(dot);

	/* An output that does not exist yet, or another file, is fine. */
	const char *fit_fresh[] = { "wattcast", "fit", "inference", runs, "-o", fresh, NULL };
	test_run_ok(fit_fresh);

	/* A command that adds a section to its --params BASE may write it
	 * back over BASE (read whole first, replaced atomically): the main
	 * job's `fit finetune ... --params P -o P` was refused, exit 2. */
	char *ft_runs = path_join(dir, "ft.csv");
	const char *ft_sim[] = { "wattcast", "simulate", "finetune", "--seed", "3", "-o", ft_runs, NULL };
	test_run_ok(ft_sim);
	const char *ft_in_place[] = { "wattcast", "fit", "finetune", ft_runs, "--params", fresh, "-o", fresh,
	                              "--bootstrap", "0", NULL };
	test_run_ok(ft_in_place);
	const char *iv_in_place[] = { "wattcast", "fit", "intervals", runs, "--params", fresh, "-o", fresh, NULL };
	test_run_ok(iv_in_place);
	char *text = test_slurp(fresh);
	CHECK(text && strstr(text, "\"finetune\"") && strstr(text, "\"prediction_error\""));
	free(text);
	/* but the runs it reads stay refused as outputs */
	const char *ft_runs_out[] = { "wattcast", "fit", "finetune", ft_runs, "--params", fresh, "-o", ft_runs, NULL };
	refused(ft_runs_out, ft_runs, "wattcast fit finetune: -o: ");
	free(ft_runs);

	free(runs);
	free(link);
	free(params);
	free(fresh);
	free(dir);
	return check_report("test_cli_output_is_input");
}
