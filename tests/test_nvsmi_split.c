/*
 * Field splitting of nvidia-smi lines (data/nvsmi_row.c), which finds the
 * commas and NUL bytes eight bytes at a time: a NUL byte is reported at
 * its column, also after too many fields (it takes precedence, as when
 * the whole line was searched first); too many fields are counted; a '-'
 * right after a comma (where the byte test's borrow can flag a byte that
 * is no comma) does not split; fields across word boundaries keep their
 * values.
 */
#include "data/data.h"
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	double w1[64];   /* GPU 1's power per sample */
	int n;
} seen;

static int
keep(double t, const double *w, int n_gpus, void *payload)
{
	seen *s = payload;
	(void)t;
	if (s->n < 64 && n_gpus == 2)
		s->w1[s->n] = w[1];
	s->n++;
	return 0;
}

/* 2 GPUs x 40 samples; line k (1-based, header = 1) replaced by `with[k]`
 * where given; '@' stands for a NUL byte. Its length into *len. */
static char *
log_text(const char *const *with, size_t *len)
{
	size_t cap = 80 * 220 + 4096, used = 0;
	char *s = malloc(cap);
	used += (size_t)snprintf(s, cap, "timestamp,index,uuid,power.draw [W],clocks.sm [MHz],utilization.gpu [%%]\n");
	for (int k = 2; k < 82; k++) {
		int i = (k - 2) / 2, g = (k - 2) % 2;
		if (with[k])
			used += (size_t)snprintf(s + used, cap - used, "%s\n", with[k]);
		else
			used += (size_t)snprintf(s + used, cap - used, "2026/07/18 15:57:%02d.%d00,%d,GPU-%d,%d.25,1410,87\n",
			                         25 + i / 10, i % 10, g, g, 100 * (g + 1) + i);
	}
	for (size_t i = 0; i < used; i++)
		if (s[i] == '@')
			s[i] = '\0';
	*len = used;
	return s;
}

int
main(void)
{
	char *dir = test_tmpdir("nvsmi_split"), many[400] = "2026/07/18 15:57:27.400", bad_nul[420];
	const char *with[82] = { NULL };
	for (int k = 0; k < 140; k++)
		strcat(many, ",");
	snprintf(bad_nul, sizeof bad_nul, "%sx@", many);
	with[11] = "2026/07/18 15:57:25.400,1,GPU-1,2@1.00,1410,87";
	with[51] = many;
	with[61] = bad_nul;
	with[13] = "2026/07/18 15:57:25.500,1,GPU-1,205.50,-1410,-87";
	size_t len;
	char *text = log_text(with, &len), *p = path_join(dir, "split.csv");
	FILE *f = fopen(p, "wb");
	CHECK(f && fwrite(text, 1, len, f) == len && fclose(f) == 0);

	wc_telemetry_options opt = WC_TELEMETRY_OPTIONS_INIT;
	wc_nvsmi_info info;
	wc_error err;
	seen s = { .n = 0 };
	test_warnings w = { "", 0 };
	opt.warn = test_collect_warning;
	opt.warn_payload = &w;
	opt.max_bad_fraction = 0.1;
	CHECK_INT(wc_nvsmi_read(p, &opt, keep, &s, &info, &err), WC_OK);
	CHECK_INT(info.bad_lines, 3);
	CHECK_INT(info.samples, 37);
	CHECK_INT(w.count, 3);
	char want[1200];
	snprintf(want, sizeof want, "%s:11: NUL byte at column 34\n", p);
	CHECK_CONTAINS(w.text, want);
	snprintf(want, sizeof want, "%s:51:30: expected 6 fields, found 141\n", p);
	CHECK_CONTAINS(w.text, want);
	snprintf(want, sizeof want, "%s:61: NUL byte at column %zu\n", p, strlen(many) + 2);
	CHECK_CONTAINS(w.text, want);
	/* line 13 is sample 5 of 40; line 11 dropped sample 4 */
	CHECK(s.n > 4 && s.w1[4] == 205.5);
	CHECK(s.w1[0] == 200.25 && s.w1[3] == 203.25 && s.w1[5] == 206.25);
	free(text);
	free(p);
	free(dir);
	return check_report("test_nvsmi_split");
}
