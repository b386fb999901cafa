/*
 * A periods table's default run_id, "platform|model|tpG|lineL", was cut
 * at 95 bytes: with a long model name every row lost its "|lineL" and
 * read as the same id, and a CJK name was cut inside a character. It now
 * keeps its end and gives way in the middle between characters
 * (docs/formats/periods-table.md). A name past its limit is refused with
 * its length in bytes, as a runs table's.
 */
#include "data/periods.h"
#include "tests/support/support.h"

#include <stdlib.h>
#include <string.h>

static int
valid_utf8(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		int k = *p < 0x80 ? 0 : (*p & 0xE0) == 0xC0 ? 1 : (*p & 0xF0) == 0xE0 ? 2 : (*p & 0xF8) == 0xF0 ? 3 : -1;
		if (k < 0)
			return 0;
		p++;
		for (; k > 0; k--, p++)
			if ((*p & 0xC0) != 0x80)
				return 0;
	}
	return 1;
}

int
main(void)
{
	char *dir = test_tmpdir("periods_long_names");
	char model[128] = "", text[1024];
	for (int i = 0; i < 31; i++) /* 93 bytes */
		strcat(model, "模");
	snprintf(text, sizeof text, "platform,model,tp,running,output_tokens,period_s\n"
	         "A100,%s,1,32,512,7.4\nA100,%s,1,32,512,7.5\n", model, model);
	char *path = test_fixture(dir, "pp.csv", text);
	wc_periods_table *t = NULL;
	wc_error err;
	CHECK_INT(wc_periods_read(path, &t, &err), WC_OK);
	if (t && t->n_rows == 2) {
		CHECK(strcmp(t->rows[0].run_id, t->rows[1].run_id) != 0);
		for (int i = 0; i < 2; i++) {
			CHECK(valid_utf8(t->rows[i].run_id));
			CHECK(strlen(t->rows[i].run_id) <= 95);
			CHECK(strstr(t->rows[i].run_id, "...") != NULL);
		}
		CHECK_CONTAINS(t->rows[0].run_id, "|tp1|line2");
		CHECK_CONTAINS(t->rows[1].run_id, "|tp1|line3");
		CHECK(strncmp(t->rows[0].run_id, "A100|模", strlen("A100|模")) == 0);
	}
	wc_periods_free(t);
	free(path);

	strcat(model, "模"); /* 96 bytes */
	snprintf(text, sizeof text, "platform,model,tp,running,output_tokens,period_s\nA100,%s,1,32,512,7.4\n", model);
	path = test_fixture(dir, "pp_long.csv", text);
	t = NULL;
	CHECK(wc_periods_read(path, &t, &err) != WC_OK);
	CHECK_CONTAINS(err.msg, "pp_long.csv:2:6: column 'model': value too long: 96 bytes, at most 95");
	wc_periods_free(t);
	free(path);
	free(dir);
	return check_report("test_periods_long_names");
}
