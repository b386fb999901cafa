/*
 * `fit intervals --quantity capacity` pools every runs table it is given,
 * and its report names them all, as the section's `data` does
 * (docs/cli.md, "fit intervals"): with ml.csv and pts.csv it said
 * "held-out error of latency_s on ml.csv (folds: model)" beside n = 332,
 * 325 of ml.csv's runs and 7 of pts.csv's. Here the ML.ENERGY runs split
 * by platform into two tables. Its datasheet strata, from leaving each
 * of the 2 platforms out, are warned as resting on few groups.
 */
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* `csv`'s comment lines, header and rows holding `keep`, into `path`. */
static void
split(const char *csv, const char *keep, const char *path)
{
	char *text = test_slurp(csv), *out = calloc(strlen(text) + 1, 1);
	CHECK(out != NULL);
	int header = 0;
	for (char *line = strtok(text, "\n"); line && out; line = strtok(NULL, "\n")) {
		int comment = line[0] == '#';
		if (comment || !header || strstr(line, keep)) {
			strcat(out, line);
			strcat(out, "\n");
		}
		header |= !comment;
	}
	CHECK(out && write_text(path, out) == 0);
	free(out);
	free(text);
}

int
main(void)
{
	const char *shared = test_shared_dir();
	if (!shared)
		return TEST_SKIP;
	char *raw = path_join(shared, "data/real/mlenergy/configurations_text.csv");
	char *dir = test_tmpdir("real_intervals_inputs_named");
	char *ml = path_join(dir, "ml.csv"), *h = path_join(dir, "h100.csv"), *b = path_join(dir, "b200.csv");
	char *out = path_join(dir, "out.json");
	const char *imp[] = { "wattcast", "import", "mlenergy", raw, "-o", ml, NULL };
	test_run_ok(imp);
	split(ml, ",H100,", h);
	split(ml, ",B200,", b);
	const char *fit[] = { "wattcast", "fit", "intervals", h, b, "--profile", "measured", "--quantity", "capacity",
		              "-o", out, NULL };
	char *said = test_run_said(fit);
	char want[1024];
	snprintf(want, sizeof want, "held-out error of latency_s on %s + %s (folds: model)", h, b);
	CHECK_CONTAINS(said, want);
	snprintf(want, sizeof want, "held-out error of energy_per_output_token_j on %s + %s (folds: model)", h, b);
	CHECK_CONTAINS(said, want);
	/* each datasheet stratum leaves each of the 2 platforms out, and is
	 * warned as the pooled one's 12 models are (docs/intervals.md,
	 * "Strata"); until 2026-12-07 it was written without a word */
	for (int q = 0; q < 2; q++) {
		snprintf(want, sizeof want, "wattcast fit intervals: warning: %s datasheet: hold out more groups, or "
		         "read its 95 %% as rough: the quantile rests on 2 held-out group(s) (folds platform), fewer "
		         "than the 20 a stratum needs (docs/intervals.md, \"Strata\")",
		         q ? "energy_per_output_token_j" : "latency_s");
		CHECK_CONTAINS(said, want);
		const char *w = said ? strstr(said, want) : NULL;
		CHECK(w && strcspn(w + strlen("wattcast fit intervals: warning: "), "\n") <= 255);
	}
	free(said);
	char *params = test_slurp(out);
	CHECK_CONTAINS(params, " + b200.csv");
	free(params);
	free(raw);
	free(dir);
	free(ml);
	free(h);
	free(b);
	free(out);
	return check_report("test_real_intervals_inputs_named");
}
