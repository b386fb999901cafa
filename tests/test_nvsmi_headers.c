/*
 * Header lines of nvidia-smi power logs (data/nvsmi_columns.c,
 * docs/formats/telemetry.md "A second header"): a header repeated where a
 * second nvidia-smi appended to the log, with the columns read in the
 * same places, is no line at all (not malformed, so a short log with one
 * is not refused); with another column order the lines after it are read
 * by its columns (before, 148 temperatures were read as watts); lacking
 * the power column read, or telling GPUs apart otherwise, the file is
 * refused naming the line. A file that is no comma-separated text log --
 * quoted, ';'-separated, nvidia-smi dmon output, gzip-compressed -- is
 * refused naming that, not a missing 'power.draw' column, at
 * file:line:column.
 */
#include "data/data.h"
#include "tests/support/support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	double sum;
	int n;
} seen;

static int
keep(double t, const double *w, int n_gpus, void *payload)
{
	seen *s = payload;
	(void)t;
	for (int g = 0; g < n_gpus; g++)
		s->sum += w[g];
	s->n++;
	return 0;
}

/* 1 GPU, `n` rows 0.25 s apart of 300 W at 40 C; after row `at` (0 = none)
 * the header `second` and rows with power and temperature swapped when
 * `swapped`. */
static char *
log_text(int n, int at, const char *second, int swapped)
{
	size_t cap = (size_t)n * 80 + 512, used = 0;
	char *s = malloc(cap);
	used += (size_t)snprintf(s, cap, "timestamp,index,power.draw [W],temperature.gpu\n");
	for (int i = 0; i < n; i++) {
		if (at && i == at)
			used += (size_t)snprintf(s + used, cap - used, "%s\n", second);
		int sw = at && i >= at && swapped;
		used += (size_t)snprintf(s + used, cap - used, "2026/07/18 15:57:%02d.%02d,0,%s,%s\n", 10 + i / 4,
		                         (i % 4) * 25, sw ? "40" : "300.00", sw ? "300.00" : "40");
	}
	return s;
}

static int
read_log(const char *dir, const char *name, const char *text, seen *s, wc_nvsmi_info *info,
         test_warnings *w, wc_error *err)
{
	char *p = test_fixture(dir, name, text);
	wc_telemetry_options opt = WC_TELEMETRY_OPTIONS_INIT;
	opt.warn = test_collect_warning;
	opt.warn_payload = w;
	memset(s, 0, sizeof *s);
	w->text[0] = '\0';
	w->count = 0;
	int rc = wc_nvsmi_read(p, &opt, keep, s, info, err);
	free(p);
	return rc;
}

int
main(void)
{
	char *dir = test_tmpdir("nvsmi_headers");
	seen s;
	wc_nvsmi_info info;
	wc_error err;
	test_warnings w;

	/* another column order: re-mapped, every sample 300 W */
	char *t = log_text(40, 20, "timestamp,index,temperature.gpu,power.draw [W]", 1);
	CHECK_INT(read_log(dir, "swap.csv", t, &s, &info, &w, &err), WC_OK);
	CHECK_INT(s.n, 40);
	CHECK_NEAR(s.sum / s.n, 300.0, 1e-9);
	CHECK_INT(info.bad_lines, 0);
	CHECK_INT(info.data_lines, 40);
	CHECK_CONTAINS(w.text, "swap.csv:22: a second header with other columns than line 1's");
	free(t);

	/* the same header again, in a log of 27 rows: no bad line, no warning */
	t = log_text(27, 14, "timestamp,index,power.draw [W],temperature.gpu", 0);
	CHECK_INT(read_log(dir, "same.csv", t, &s, &info, &w, &err), WC_OK);
	CHECK_INT(s.n, 27);
	CHECK_INT(info.bad_lines, 0);
	CHECK_INT(info.data_lines, 27);
	CHECK_INT(w.count, 0);
	free(t);

	/* Without the power column read, or without the index: refused, with
	 * a remedy a run folder's one power.csv allows (it said "split the
	 * log at line 22"), whole within 255 bytes. Only another power column
	 * after it: an instant and an averaged reading are not one trace, so
	 * one part is kept. */
	t = log_text(40, 20, "timestamp,index,power.draw.average [W],temperature.gpu", 0);
	CHECK_INT(read_log(dir, "nopower.csv", t, &s, &info, &w, &err), WC_EPARSE);
	CHECK_CONTAINS(err.msg, "nopower.csv:22: a second header has 'power.draw.average' but not 'power.draw', which "
	                        "lines 1-21 were read from, and one trace cannot mix them: keep one part (delete lines "
	                        "1-21, or line 22 on), then read it again");
	CHECK(strstr(err.msg, "split the log") == NULL);
	CHECK(strlen(err.msg) <= 255);
	free(t);
	/* no power column of any kind (nvidia-smi restarted with a query
	 * without power): refused as a second header, not as a log without
	 * the column (the message blamed "the header" and gave no remedy) */
	t = log_text(40, 20, "timestamp,index,temperature.gpu,clocks.sm [MHz]", 0);
	CHECK_INT(read_log(dir, "nopower2.csv", t, &s, &info, &w, &err), WC_EPARSE);
	CHECK_CONTAINS(err.msg, "nopower2.csv:22: a second header has no power column (nvidia-smi restarted without "
	                        "'power.draw'?), so the lines after it hold no reading: delete line 22 on, then read it "
	                        "again");
	CHECK(strstr(err.msg, "split the log") == NULL);
	free(t);
	/* a power column both headers have: the remedy reads it throughout,
	 * and so edited the log reads (300 W; the first part's power.draw
	 * column said 100 W) */
	char both[4096], edited[4096];
	size_t ub = (size_t)snprintf(both, sizeof both, "timestamp,index,power.draw [W],power.draw.average [W]\n");
	size_t ue = (size_t)snprintf(edited, sizeof edited, "timestamp,index,power.draw.average [W]\n");
	for (int i = 0; i < 40; i++) {
		const char *second = i == 20 ? "timestamp,index,power.draw.average [W]\n" : "";
		int ss = 10 + i / 4, cs = (i % 4) * 25;
		ub += (size_t)snprintf(both + ub, sizeof both - ub, "%s2026/07/18 15:57:%02d.%02d,0,%s300.00\n", second, ss,
		                       cs, i < 20 ? "100.00," : "");
		ue += (size_t)snprintf(edited + ue, sizeof edited - ue, "%s2026/07/18 15:57:%02d.%02d,0,300.00\n", second,
		                       ss, cs);
	}
	CHECK_INT(read_log(dir, "shared.csv", both, &s, &info, &w, &err), WC_EPARSE);
	CHECK_CONTAINS(err.msg, "shared.csv:22: a second header has no 'power.draw' column, which lines 1-21 were read "
	                        "from; both have 'power.draw.average': remove 'power.draw' from lines 1-21, then read it "
	                        "again");
	CHECK(strlen(err.msg) <= 255);
	CHECK_INT(read_log(dir, "shared_edited.csv", edited, &s, &info, &w, &err), WC_OK);
	CHECK_INT(s.n, 40);
	CHECK_NEAR(s.sum / s.n, 300.0, 1e-9);
	/* a deep path: the message still ends in its remedy */
	char *dd = test_tmpdir("nvsmi_headers/a_long_folder_name_of_a_run_on_a_shared_disk/another_long_folder_name/"
	                       "yet_another_folder_level_for_the_node");
	CHECK_INT(read_log(dd, "shared.csv", both, &s, &info, &w, &err), WC_EPARSE);
	CHECK(strlen(err.msg) <= 255);
	CHECK_CONTAINS(err.msg, "remove 'power.draw' from lines 1-21, then read it again");
	free(dd);
	t = log_text(40, 20, "timestamp,power.draw [W],temperature.gpu,name", 0);
	CHECK_INT(read_log(dir, "noindex.csv", t, &s, &info, &w, &err), WC_EPARSE);
	/* the column that differs named, and a remedy a run folder's one
	 * power.csv allows: edit it to one set of GPU columns (it said "split
	 * the log at line 22" and named no column) */
	CHECK_CONTAINS(err.msg, "noindex.csv:22: a second header lacks line 1's 'index' column (nvidia-smi restarted?), "
	                        "so GPUs cannot be matched across it: remove 'index' from lines 1-21, then read it again");
	CHECK(strstr(err.msg, "split the log") == NULL);
	free(t);
	/* restarted without the uuid: the lines after it keep the index */
	t = malloc(4096);
	size_t used = (size_t)snprintf(t, 4096, "timestamp,index,uuid,power.draw [W]\n");
	for (int i = 0; i < 40; i++)
		used += (size_t)snprintf(t + used, 4096 - used, "%s2026/07/18 15:57:%02d.%02d,0,%s300.00\n",
		                         i == 20 ? "timestamp,index,power.draw [W]\n" : "", 10 + i / 4, (i % 4) * 25,
		                         i < 20 ? "GPU-03a84180,": "");
	CHECK_INT(read_log(dir, "nouuid.csv", t, &s, &info, &w, &err), WC_EPARSE);
	CHECK_CONTAINS(err.msg, "nouuid.csv:22: a second header lacks line 1's 'uuid' column");
	CHECK_CONTAINS(err.msg, "remove 'uuid' from lines 1-21, then read it again");
	CHECK(strlen(err.msg) <= 255);
	free(t);
	/* the other way round: a uuid only the second has goes from there on */
	t = log_text(40, 20, "timestamp,index,uuid,power.draw.average [W]", 0);
	CHECK_INT(read_log(dir, "adduuid.csv", t, &s, &info, &w, &err), WC_EPARSE);
	CHECK_CONTAINS(err.msg, "adduuid.csv:22: a second header has a 'uuid' column line 1 lacks");
	CHECK_CONTAINS(err.msg, "remove 'uuid' from line 22 on, then read it again");
	free(t);

	/* not a comma-separated text log: the reason named */
	static const struct {
		const char *name, *text, *want;
	} wrong[] = {
		{ "quoted.csv", "\"timestamp\",\"power.draw [W]\"\n\"2026/07/18 15:57:25.621\",\"82.37\"\n",
		  "quoted.csv:1:1: quoted field at column 1: power logs are read unquoted" },
		{ "cells.csv", "timestamp,power.draw [W]\n\"2026/07/18 15:57:25.621\",\"82.37\"\n",
		  "cells.csv:2:1: quoted field '\"2026/07/18 15:57:25.621\"'" },
		{ "semi.csv", "timestamp;power.draw [W]\n2026/07/18 15:57:25.621;82.37\n",
		  "semi.csv:1:10: fields separated by ';', not by commas" },
		{ "dmon.csv", "# gpu    pwr  gtemp\n# Idx      W      C\n    0     82     33\n",
		  "dmon.csv:3:1: no header line and no commas (nvidia-smi dmon output?)" },
		{ "gz.csv", "\x1f\x8b\x08\x08zz\n", "gz.csv:1:1: a gzip-compressed file, not a text log" },
		/* a log written with noheader: file:line:column, as every other
		 * message of the reader (it said "noheader.csv:1: no header") */
		{ "noheader.csv", "2026/07/18 15:57:25.621,0,82.37\n2026/07/18 15:57:25.871,0,82.40\n",
		  "noheader.csv:1:1: no header line (log with --format=csv, without noheader)" },
		{ "nopower.csv", "timestamp,index,clocks.sm [MHz]\n", "nopower.csv:1:1: no 'power.draw' column in the header" },
	};
	for (size_t i = 0; i < sizeof wrong / sizeof wrong[0]; i++) {
		CHECK_INT(read_log(dir, wrong[i].name, wrong[i].text, &s, &info, &w, &err), WC_EPARSE);
		CHECK_CONTAINS(err.msg, wrong[i].want);
	}
	free(dir);
	return check_report("test_nvsmi_headers");
}
