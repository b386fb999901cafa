/*
 * A fit on a run's `#seg<k>` pieces counts runs and draws runs
 * (docs/fitting.md, docs/statistics.md "Bootstrap"): the embedded design
 * table with each run cut into 4 identical pieces said "988 runs used" and
 * its bootstrap drew pieces, narrowing theta[H100]'s interval to about
 * half (1/sqrt(4)) of the uncut table's for the same information. It now
 * says "236 runs (944 pieces)" (11 rows marked exclude, 44 pieces) and the interval keeps the uncut width.
 */
#include "tests/support/support.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double
theta_width(const char *path, const char *level)
{
	char *text = test_slurp(path);
	json_t *j = text ? json_loads(text, 0, NULL) : NULL, *l;
	double w = NAN;
	size_t i;
	json_array_foreach(json_object_get(j, "levels"), i, l)
		if (!strcmp(json_string_value(json_object_get(l, "name")), level)) {
			json_t *ci = json_object_get(json_object_get(l, "theta"), "ci95");
			w = json_number_value(json_array_get(ci, 1)) - json_number_value(json_array_get(ci, 0));
		}
	json_decref(j);
	free(text);
	return w;
}

int
main(void)
{
	char *src = path_join(getenv("WC_SOURCE_DIR"), "data/default/paper-design-seed42.csv");
	char *dir = test_tmpdir("fit_pieces_bootstrap");
	char *cut = path_join(dir, "pieces.csv"), *a = path_join(dir, "whole.json"), *b = path_join(dir, "pieces.json");
	char *text = test_slurp(src);
	CHECK(text != NULL);
	FILE *f = fopen(cut, "w");
	CHECK(f != NULL);
	int rows = 0;
	for (const char *line = text, *next; f && line && *line; line = next) {
		next = strchr(line, '\n');
		int len = next ? (int)(next - line) : (int)strlen(line);
		next = next ? next + 1 : NULL;
		const char *comma = memchr(line, ',', (size_t)len);
		if (line[0] == '#' || !strncmp(line, "run_id,", 7) || !comma) {
			fprintf(f, "%.*s\n", len, line);
			continue;
		}
		for (int k = 1; k <= 4; k++, rows++)
			fprintf(f, "%.*s#seg%d%.*s\n", (int)(comma - line), line, k, len - (int)(comma - line), comma);
	}
	if (f)
		fclose(f);
	CHECK_INT(rows, 988);
	const char *fa[] = { "wattcast", "fit", "inference", src, "-o", a, "--bootstrap", "60", "--seed", "3", NULL };
	const char *fb[] = { "wattcast", "fit", "inference", cut, "-o", b, "--bootstrap", "60", "--seed", "3", NULL };
	free(test_run_said(fa));
	char *said = test_run_said(fb);
	CHECK_CONTAINS(said, "236 runs (944 pieces) used");
	free(said);
	double wa = theta_width(a, "H100"), wb = theta_width(b, "H100");
	fprintf(stderr, "theta[H100] 95 %% width: whole %g, pieces %g (ratio %.2f)\n", wa, wb, wb / wa);
	CHECK(wb > 0.75 * wa && wb < 1.33 * wa);
	free(text);
	free(src);
	free(cut);
	free(a);
	free(b);
	free(dir);
	return check_report("test_fit_pieces_bootstrap");
}
