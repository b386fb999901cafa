/*
 * An analysis that scores nothing fails (docs/cli.md, "validate"), and a
 * failed one leaves its --per-run file as it was (docs/validation.md,
 * "Per-run output"). On a table of one run `validate forms --real` printed
 * every cell "–" and `validate forms` "nothing chosen", both with exit 0,
 * where lomo, heldout, fewshot and capacity exit 1; and `forms --real` and
 * `lomo` wrote a --per-run file of 11 columns (no input columns), not the
 * 21 of every scored file; `fewshot` did so until 2026-12-07.
 */
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char one_run[] = "run_id,platform,tp,model,active_params_b,running,mean_power_w\n"
                              "a1,H100,1,Qwen3-8B,8,4,380\n";

static void
check_fails(const char *const *argv, const char *want, const char *per_run)
{
	run_result r;
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, want);
	const char *colon = r.err ? strstr(r.err, "validate ") : NULL;
	CHECK(colon && strcspn(strstr(colon, ": ") + 2, "\n") <= 255);
	run_result_free(&r);
	if (per_run) { /* as it was */
		char *text = test_slurp(per_run);
		CHECK(text && strcmp(text, "kept\n") == 0);
		free(text);
	}
}

/* Both streams in one file (`> f 2>&1`): the closing line points to the
 * report ("each form's reason above", "see the table"), so it is the last
 * line; it came first, stdout not flushed before it (forms --real, forms,
 * fewshot). */
static void
check_closing_line_last(const char *dir, const char *args, const char *report_starts, const char *closing_ends)
{
	char *both = path_join(dir, "both.txt"), cmd[4096];
	snprintf(cmd, sizeof cmd, "'%s' validate %s >'%s' 2>&1", test_env("WATTCAST_BIN", "wattcast"), args, both);
	CHECK(system(cmd) != -1);
	char *text = test_slurp(both);
	size_t n = text ? strlen(text) : 0;
	CHECK(n > 1 && text[n - 1] == '\n');
	if (n > 1) {
		text[n - 1] = '\0';
		const char *last = strrchr(text, '\n');
		last = last ? last + 1 : text;
		CHECK(strstr(text, report_starts) && strstr(text, report_starts) < last);
		CHECK(strncmp(last, "wattcast validate ", 18) == 0);
		CHECK(strlen(last) >= strlen(closing_ends) &&
		      strcmp(last + strlen(last) - strlen(closing_ends), closing_ends) == 0);
	}
	free(text);
	free(both);
}

int
main(void)
{
	char *dir = test_tmpdir("cli_validate_nothing_scored");
	char *one = test_fixture(dir, "one.csv", one_run);
	char *pr = test_fixture(dir, "pr.csv", "kept\n");

	const char *real[] = { "wattcast", "validate", "forms", "--real", one, "--per-run", pr, NULL };
	check_fails(real, "one.csv: no run could be scored by any form (1 run(s); each form's reason above): nothing "
	                  "to validate", pr);
	const char *real_json[] = { "wattcast", "validate", "forms", "--real", one, "--json", NULL };
	check_fails(real_json, "no run could be scored by any form", NULL);
	char args[4096];
	snprintf(args, sizeof args, "forms --real '%s'", one);
	check_closing_line_last(dir, args, "forms on real runs of", "nothing to validate");
	snprintf(args, sizeof args, "forms '%s'", one);
	check_closing_line_last(dir, args, "candidate forms on", "nothing chosen");
	snprintf(args, sizeof args, "fewshot '%s' --lomo", one);
	check_closing_line_last(dir, args, "few-shot calibration on", "(see the table)");
	const char *forms[] = { "wattcast", "validate", "forms", one, NULL };
	check_fails(forms, "one.csv: no form could be scored on any test (each fold's fit failed, or left "
	                   "unidentified a parameter its held-out runs use): nothing chosen", NULL);
	const char *lomo[] = { "wattcast", "validate", "lomo", one, "--per-run", pr, NULL };
	check_fails(lomo, "no run could be scored (1 of 1 skipped; the reason above)", pr);
	/* fewshot wrote its header alone over the file, as lomo and forms
	 * --real did until the one rule (cli_validate_per_run_write) */
	const char *fewshot[] = { "wattcast", "validate", "fewshot", one, "--lomo", "--per-run", pr, NULL };
	check_fails(fewshot, "no run calibrated at any k >= 1", pr);
	const char *fewshot_k[] = { "wattcast", "validate", "fewshot", one, "--profile", "paper", "--per-run", pr, NULL };
	check_fails(fewshot_k, "no run calibrated at any k >= 1", pr);

	free(one);
	free(pr);
	free(dir);
	return check_report("test_cli_validate_nothing_scored");
}
