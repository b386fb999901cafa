/*
 * What the command line got wrong is exit 2 naming the flag (docs/cli.md,
 * "Conventions"), not exit 1 as if the work had failed:
 *
 *  - an unknown --profile name, on the fitting and the answering commands
 *    alike, with the list of the built-in names;
 *  - calibrate --relative-to without the --platform it needs (or naming
 *    the reference level itself), said before the runs are read;
 *  - `wattcast help NAME` with a NAME that is no command (it printed the
 *    general help, exit 0); and `help COMMAND SUBCOMMAND` prints that
 *    subcommand's own help, as `COMMAND SUBCOMMAND --help` does (it
 *    printed the command's: `help fit capacity` gave fit inference's).
 */
#include "tests/support/support.h"

#include <stdlib.h>
#include <string.h>

/* `help WORDS...` prints on stdout, with the exit status, exactly what
 * `WORDS... --help` prints. */
static void
help_same(const char *cmd, const char *sub, const char *needle)
{
	const char *help[] = { "wattcast", "help", cmd, sub, NULL };
	const char *flag[] = { "wattcast", cmd, sub ? sub : "--help", sub ? "--help" : NULL, NULL };
	run_result a, b;
	CHECK(run_wattcast(help, NULL, &a) == 0);
	CHECK(run_wattcast(flag, NULL, &b) == 0);
	CHECK_INT(a.status, 0);
	CHECK_INT(a.status, b.status);
	CHECK(a.out && b.out && strcmp(a.out, b.out) == 0);
	CHECK_CONTAINS(a.out, needle);
	run_result_free(&a);
	run_result_free(&b);
}

static void
help_words(void)
{
	const char *nope[] = { "wattcast", "help", "nope", NULL };
	test_usage_error(nope, "wattcast: unknown command 'nope' (see wattcast --help)");
	const char *sub_nope[] = { "wattcast", "help", "fit", "nope", NULL };
	test_usage_error(sub_nope, "wattcast fit: unknown target 'nope'");
	help_same("fit", "capacity", "usage: wattcast fit capacity");
	help_same("fit", "intervals", "usage: wattcast fit intervals");
	help_same("validate", "envelope", "usage: wattcast validate envelope");
	help_same("calibrate", "finetune", "usage: wattcast calibrate finetune");
	help_same("predict", "finetune", "usage: wattcast predict finetune");
	help_same("ingest", "--prometheus", "usage: wattcast ingest --prometheus");
	help_same("fit", NULL, "usage: wattcast fit inference");
	/* `help help` is the general help (it said "unknown command 'help'");
	 * a word past COMMAND SUBCOMMAND, or a subcommand a command without a
	 * table does not have, is a usage error (they printed the command's
	 * help, exit 0) */
	const char *hhelp[] = { "wattcast", "help", "help", NULL };
	run_result h;
	CHECK(run_wattcast(hhelp, NULL, &h) == 0);
	CHECK_INT(h.status, 0);
	CHECK_CONTAINS(h.out, "wattcast help [COMMAND [SUBCOMMAND]]");
	run_result_free(&h);
	const char *extra[] = { "wattcast", "help", "predict", "inference", "extra", NULL };
	test_usage_error(extra, "wattcast help: 'extra' is one word too many");
	const char *env_sub[] = { "wattcast", "help", "envelope", "budget", NULL };
	test_usage_error(env_sub, "wattcast help: envelope has no subcommands, got 'budget'");
	const char *cal_sub[] = { "wattcast", "help", "calibrate", "bogus", NULL };
	test_usage_error(cal_sub, "wattcast help: unknown subcommand 'bogus' of calibrate (available: finetune)");
	help_same("profile", "export", "usage: wattcast profile export");
	const char *bare[] = { "wattcast", "help", NULL }, *hh[] = { "wattcast", "help", "--help", NULL };
	run_result r;
	for (int i = 0; i < 2; i++) {
		CHECK(run_wattcast(i ? hh : bare, NULL, &r) == 0);
		CHECK_INT(r.status, 0);
		CHECK_CONTAINS(r.out, "wattcast help [COMMAND [SUBCOMMAND]]");
		run_result_free(&r);
	}
}

int
main(void)
{
	char *dir = test_tmpdir("cli_usage_exits");
	char *runs = path_join(dir, "runs.csv"), *out = path_join(dir, "out.json");
	const char *sim[] = { "wattcast", "simulate", "inference", "--seed", "7", "-o", runs, NULL };
	test_run_ok(sim);

	const char *list = "--profile: unknown profile 'nope' (available: measured, paper, paper-prefill)";
	const char *fit[] = { "wattcast", "fit", "inference", runs, "--profile", "nope", "-o", out, NULL };
	test_usage_error(fit, list);
	const char *predict[] = { "wattcast", "predict", "inference", "--platform", "H100", "--active-params", "8",
	                          "--concurrency", "8", "--profile", "nope", NULL };
	test_usage_error(predict, list);
	const char *env[] = { "wattcast", "envelope", "--platform", "H100", "--active-params", "8", "--closed", "8",
	                      "--profile", "nope", NULL };
	test_usage_error(env, list);
	/* the command named once: the operand's message starts with the
	 * command's name ("wattcast profile: profile: unknown ...") */
	const char *pe[] = { "wattcast", "profile", "export", "nope", "-o", out, NULL };
	test_usage_error(pe, "wattcast profile: unknown set 'nope' (available: default, measured, paper, paper-prefill)");
	/* an entry of a list option is named as an entry of the flag, not
	 * as the API's path ("--rate-profile/1/until_s") */
	const char *rp[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--poisson", "profile",
		             "--rate-profile", "100:2,50:3", "--horizon", "200", NULL };
	test_usage_error(rp, "wattcast envelope: --rate-profile (entry 1/until_s): must be > 0 and increasing");

	const char *cal[] = { "wattcast", "calibrate", "--profile", "paper", runs, "--scope", "platform",
	                      "--relative-to", "H100", "-o", out, NULL };
	test_usage_error(cal, "wattcast calibrate: --relative-to needs the new platform named (--platform), other than 'H100'");
	const char *cal_same[] = { "wattcast", "calibrate", "--profile", "paper", runs, "--scope", "platform",
	                           "--relative-to", "H100", "--platform", "H100", "-o", out, NULL };
	test_usage_error(cal_same, "--relative-to needs the new platform named (--platform)");

	/* fit intervals: a flag its quantity does not use is named with what
	 * it applies to (accepted, --folds frozen with the fine-tuning law
	 * gave level folds and recorded "level"); --folds level is the
	 * fine-tuning law's own */
	const char *iv_plain[] = { "wattcast", "fit", "intervals", runs, "--profile", "paper", "--plain", "-o", out, NULL };
	test_usage_error(iv_plain, "wattcast fit intervals: --plain applies to --quantity capacity only");
	const char *iv_w[] = { "wattcast", "fit", "intervals", runs, "--profile", "paper", "--weights", "model", "-o",
		               out, NULL };
	test_usage_error(iv_w, "--weights applies to --quantity capacity only");
	const char *iv_ft[] = { "wattcast", "fit", "intervals", runs, "--quantity", "finetune", "--profile", "paper",
		                "--folds", "frozen", "-o", out, NULL };
	test_usage_error(iv_ft, "--folds: --quantity finetune holds out each level of each sweep (folds level); "
	                        "--folds frozen applies to --quantity power only");
	const char *iv_cap[] = { "wattcast", "fit", "intervals", runs, "--quantity", "capacity", "--profile", "paper",
		                 "--folds", "frozen", "-o", out, NULL };
	test_usage_error(iv_cap, "--quantity capacity holds out each model (folds model)");
	const char *iv_lv[] = { "wattcast", "fit", "intervals", runs, "--profile", "paper", "--folds", "level", "-o",
		                out, NULL };
	test_usage_error(iv_lv, "got 'level' (level is --quantity finetune's)");
	const char *iv_ftp[] = { "wattcast", "fit", "intervals", runs, "--quantity", "finetune", "--profile", "paper",
		                 "--terms", "none", "-o", out, NULL };
	test_usage_error(iv_ftp, "--terms applies to --quantity power or capacity only");

	help_words();

	free(runs);
	free(out);
	free(dir);
	return check_report("test_cli_usage_exits");
}
