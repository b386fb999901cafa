/*
 * A text table's cell without a number, "–", lines up with the numbers
 * above and below it (cli_field_width, docs/validation.md "Forms on real
 * runs"). `validate forms --real` on one model scores nothing leaving the
 * model out, so those tables are all "–": padded as "%13s" counts bytes,
 * the 3-byte dash ended 2 columns left of its header's right edge, every
 * "–" row 6 columns short of the header's 70. Every row of each table is
 * now as wide as its header, in characters.
 */
#include "tests/support/forms_one_model.h"
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Characters (UTF-8 sequences) in the n bytes at s. */
static int
columns(const char *s, size_t n)
{
	int c = 0;
	for (size_t i = 0; i < n; i++)
		c += ((unsigned char)s[i] & 0xC0) != 0x80;
	return c;
}

int
main(void)
{
	char *dir = test_tmpdir("cli_dash_columns");
	char *table = test_forms_one_model(dir);
	const char *argv[] = { "wattcast", "validate", "forms", "--real", table, NULL };
	run_result r;
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	/* Each table: a header "form ... all H100 B200", then a row per form
	 * up to a blank line or a note; every row as wide as the header. */
	int tables = 0, dashes = 0, header = -1;
	for (const char *line = r.out ? r.out : ""; *line;) {
		const char *end = strchr(line, '\n');
		size_t n = end ? (size_t)(end - line) : strlen(line);
		if (n == 0 || memchr(line, ':', n)) { /* the notes after the last table */
			header = -1;
		} else if (strncmp(line, "form ", 5) == 0) {
			header = columns(line, n);
			tables++;
		} else if (header >= 0) {
			int w = columns(line, n);
			if (w != header)
				fprintf(stderr, "row %d columns, header %d: %.*s\n", w, header, (int)n, line);
			CHECK_INT(w, header);
			dashes += memchr(line, 0xE2, n) != NULL;
		}
		line += n + (end != NULL);
	}
	CHECK_INT(tables, 4);
	CHECK(dashes >= 18); /* the three tables of "–" at least */
	run_result_free(&r);
	free(table);
	free(dir);
	return check_report("test_cli_dash_columns");
}
