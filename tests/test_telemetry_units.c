/*
 * Readings that used to give wrong numbers with no error
 * (docs/formats/telemetry.md, "`power.csv`: nvidia-smi" and "Bad lines"):
 * power in mW and kW, by value or by a `[mW]` header, is converted and an
 * unknown unit refused with file:line:column; a reading beyond the
 * plausibility bound (an absolute one, or twice the board limit) is a
 * counted bad line and is not averaged; a NUL byte inside a value makes
 * the line bad instead of cutting the value short; a UTF-8 byte order mark
 * is skipped on every text input (power and engine logs, manifests).
 */
#include "data/data.h"
#include "tests/support/support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	double sum, max;
	size_t n;
} acc;

static int
keep(double t, const double *w, int n_gpus, void *payload)
{
	acc *a = payload;
	(void)t;
	(void)n_gpus;
	a->sum += w[0];
	a->max = fmax(a->max, w[0]);
	a->n++;
	return 0;
}

/* A one-GPU log of 200 rows at 250 W written as `fmt` (one %g for the
 * value in the unit), row `odd` (1-based, 0 = none) holding `odd_text`. */
static char *
write_log(const char *dir, const char *name, const char *header, double value, const char *fmt,
          int odd, const char *odd_text, size_t odd_len)
{
	char *p = path_join(dir, name);
	FILE *f = fopen(p, "wb");
	fprintf(f, "%s\n", header);
	for (int i = 1; i <= 200; i++) {
		fprintf(f, "2026/07/18 10:00:%02d.%03d, 0, ", (i / 10) % 60, (i % 10) * 100);
		if (i == odd)
			fwrite(odd_text, 1, odd_len, f);
		else
			fprintf(f, fmt, value);
		fputc('\n', f);
	}
	fclose(f);
	return p;
}

static double
mean_of(const char *path, const wc_telemetry_options *opt, wc_nvsmi_info *info, int *rc, wc_error *err)
{
	acc a = { 0, 0, 0 };
	*rc = wc_nvsmi_read(path, opt, keep, &a, info, err);
	return a.n ? a.sum / (double)a.n : NAN;
}

int
main(void)
{
	char *dir = test_tmpdir("telemetry_units");
	wc_telemetry_options opt = WC_TELEMETRY_OPTIONS_INIT;
	wc_nvsmi_info info;
	wc_error err = { 0, "" };
	int rc;
	const char *hdr = "timestamp, index, power.draw [W]";

	/* Unit words on the values, and a [mW] header over bare numbers. */
	char *p = write_log(dir, "mw.csv", hdr, 250000, "%g mW", 0, NULL, 0);
	CHECK_NEAR(mean_of(p, &opt, &info, &rc, &err), 250.0, 1e-9);
	CHECK_INT(rc, WC_OK);
	free(p);
	p = write_log(dir, "kw.csv", hdr, 0.25, "%g kW", 0, NULL, 0);
	CHECK_NEAR(mean_of(p, &opt, &info, &rc, &err), 250.0, 1e-9);
	free(p);
	p = write_log(dir, "mwhdr.csv", "timestamp, index, power.draw [mW]", 250000, "%g", 0, NULL, 0);
	CHECK_NEAR(mean_of(p, &opt, &info, &rc, &err), 250.0, 1e-9);
	CHECK_INT(rc, WC_OK);
	free(p);
	/* Unknown units are refused, with where. */
	p = write_log(dir, "joule.csv", hdr, 250, "%g J", 0, NULL, 0);
	mean_of(p, &opt, &info, &rc, &err);
	CHECK_INT(rc, WC_EPARSE);
	CHECK_CONTAINS(err.msg, "joule.csv:2:33: unknown power unit 'J'");
	free(p);
	p = write_log(dir, "jhdr.csv", "timestamp, index, power.draw [J]", 250, "%g", 0, NULL, 0);
	mean_of(p, &opt, &info, &rc, &err);
	CHECK_INT(rc, WC_EPARSE);
	CHECK_CONTAINS(err.msg, "jhdr.csv:1:18: unknown power unit '[J]'");
	free(p);

	/* 1e30 W: a bad line, counted, not averaged. */
	p = write_log(dir, "huge.csv", hdr, 250, "%g W", 50, "1e30 W", 6);
	double m = mean_of(p, &opt, &info, &rc, &err);
	CHECK_INT(rc, WC_OK);
	CHECK_NEAR(m, 250.0, 1e-9);
	CHECK_INT((int)info.bad_lines, 1);
	CHECK_INT((int)info.implausible_lines, 1);
	free(p);
	/* With an H100's 700 W board limit, 2000 W is beyond 2x it. */
	p = write_log(dir, "over.csv", hdr, 250, "%g W", 50, "2000 W", 6);
	opt.max_power_w = 2.0 * 700.0;
	m = mean_of(p, &opt, &info, &rc, &err);
	CHECK_NEAR(m, 250.0, 1e-9);
	CHECK_INT((int)info.implausible_lines, 1);
	opt.max_power_w = 0.0;
	m = mean_of(p, &opt, &info, &rc, &err); /* 2000 W is below the absolute bound */
	CHECK_INT((int)info.implausible_lines, 0);
	CHECK(m > 250.0);
	free(p);

	/* "25\0.00 W": a bad line, not 25 W. */
	p = write_log(dir, "nul.csv", hdr, 250, "%g W", 50, "25\0.00 W", 8);
	acc a = { 0, 0, 0 };
	CHECK_INT(wc_nvsmi_read(p, &opt, keep, &a, &info, &err), WC_OK);
	CHECK_INT((int)info.bad_lines, 1);
	CHECK_NEAR(a.sum / (double)a.n, 250.0, 1e-9);
	free(p);

	/* A byte order mark on the power log, the engine log and a manifest. */
	p = path_join(dir, "bom_power.csv");
	write_text(p, "\xEF\xBB\xBFtimestamp, index, power.draw [W]\n2026/07/18 10:00:00.000, 0, 250 W\n"
	              "2026/07/18 10:00:00.100, 0, 250 W\n");
	CHECK_NEAR(mean_of(p, &opt, &info, &rc, &err), 250.0, 1e-9);
	free(p);
	p = path_join(dir, "engine.csv");
	write_text(p, "\xEF\xBB\xBFtimestamp,num_requests_running\n1784415000.0,3\n1784415001.0,4\n");
	wc_engine_log *eng = NULL;
	CHECK_INT(wc_engine_read(p, &opt, 0, &eng, &err), WC_OK);
	if (eng)
		CHECK_INT((int)eng->n, 2);
	wc_engine_free(eng);
	free(p);
	p = path_join(dir, "wattcast-run.json");
	write_text(p, "\xEF\xBB\xBF{\"schema\": \"wattcast.run/2\", \"run_id\": \"bom\", \"platform\": \"H100\"}\n");
	wc_run_manifest man;
	wc_run_manifest_init(&man);
	CHECK_INT(wc_run_manifest_load(p, &man, &err), WC_OK);
	CHECK(strcmp(man.run_id, "bom") == 0);
	free(p);
	/* Two marks: the second is named at 1:1, not quoted as the invisible
	 * token a JSON parser stops at (wc_text_second_bom). */
	p = path_join(dir, "bom2.json");
	write_text(p, "\xEF\xBB\xBF\xEF\xBB\xBF{\"schema\": \"wattcast.run/2\", \"run_id\": \"b\"}\n");
	wc_run_manifest man2;
	wc_run_manifest_init(&man2);
	CHECK(wc_run_manifest_load(p, &man2, &err) != WC_OK);
	CHECK(strstr(err.msg, "bom2.json:1:1: a second byte-order mark (U+FEFF)") != NULL);
	CHECK(strstr(err.msg, "at most one") != NULL);
	CHECK(strstr(err.msg, "\xEF\xBB\xBF") == NULL);
	free(p);
	/* past a line end between them: named where it is */
	p = path_join(dir, "bom3.json");
	write_text(p, "\xEF\xBB\xBF\n  \xEF\xBB\xBF{\"schema\": \"wattcast.run/2\", \"run_id\": \"b\"}\n");
	wc_run_manifest_init(&man2);
	CHECK(wc_run_manifest_load(p, &man2, &err) != WC_OK);
	CHECK(strstr(err.msg, "bom3.json:2:3: a second byte-order mark (U+FEFF)") != NULL);
	free(p);
	free(dir);
	return check_report("test_telemetry_units");
}
