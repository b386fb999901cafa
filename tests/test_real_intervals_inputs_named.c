/*
 * `fit intervals --quantity capacity` pools every runs table it is given,
 * and its report names them all, as the section's `data` does
 * (docs/cli.md, "fit intervals"): with ml.csv and pts.csv it said
 * "held-out error of latency_s on ml.csv (folds: model)" beside n = 332,
 * 325 of ml.csv's runs and 7 of pts.csv's. Here the ML.ENERGY runs split
 * by platform into two tables.
 */
#include "tests/support/support.h"

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
