/*
 * A message holds 255 bytes (docs/architecture.md, "Errors"): text that
 * does not fit ends with "..." (wc_error_format, the one place the bound
 * is met), never cut silently mid-word nor inside a UTF-8 character; and
 * messages that name runs say them whole. Cut silently, the fit's
 * outlier warning ended "#seg1 (a factor" and calibrate's idle refusal
 * "idle_power_w of the loa".
 */
#include "fit/fit.h"
#include "models/warnings.h"
#include "tests/support/support.h"
#include "tests/support/synth_runs.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int
ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), k = strlen(tail);
	return n >= k && strcmp(s + n - k, tail) == 0;
}

static void
helpers(void)
{
	char text[600];
	memset(text, 'x', sizeof text - 1);
	text[sizeof text - 1] = '\0';
	wc_error err;
	/* too long: 255 bytes, the last three "..." */
	CHECK_INT(wc_error_set(&err, WC_EINVAL, "head: %s", text), WC_EINVAL);
	CHECK_INT((int)strlen(err.msg), WC_ERROR_MSG_MAX - 1);
	CHECK(ends_with(err.msg, "x..."));
	/* exactly 255 bytes: whole, no "..." */
	CHECK_INT(wc_error_set(&err, WC_EINVAL, "%.255s", text), WC_EINVAL);
	CHECK_INT((int)strlen(err.msg), 255);
	CHECK(ends_with(err.msg, "xxxx"));
	/* the cut never falls inside a character: "ü" is 2 bytes, "€" 3 */
	for (int shift = 0; shift < 3; shift++) {
		char u[700] = "";
		memset(u, 'a', (size_t)shift);
		for (int i = 0; i < 200; i++)
			strcat(u, i % 2 ? "ü" : "€");
		CHECK_INT(wc_error_set(&err, WC_EINVAL, "%s", u), WC_EINVAL);
		CHECK(ends_with(err.msg, "..."));
		CHECK(strlen(err.msg) <= 255 && strlen(err.msg) >= 252);
		CHECK(test_utf8_ok(err.msg));
	}
	char buf[16];
	CHECK_INT(wc_error_format(buf, sizeof buf, "%s", "short"), 0);
	CHECK(strcmp(buf, "short") == 0);
	CHECK_INT(wc_error_format(buf, sizeof buf, "%s", "sixteen letters!"), 1);
	CHECK(strcmp(buf, "sixteen let...") == 0 || strcmp(buf, "sixteen lett...") == 0);
	CHECK_INT((int)strlen(buf), 15);

	/* the warnings list, and the list kept from a reader's callback */
	struct {
		char warnings[WC_WARNINGS_MAX][WC_WARNING_LEN];
		int n_warnings;
	} w = { .n_warnings = 0 };
	CHECK_INT(WC_WARN(&w, "warn: %s", text), 1);
	CHECK_INT((int)strlen(w.warnings[0]), WC_WARNING_LEN - 1);
	CHECK(ends_with(w.warnings[0], "x..."));
	char (*kept)[WC_WARNING_LEN] = NULL;
	size_t n = 0, cap = 0;
	CHECK_INT(wc_warnings_keep(&kept, &n, &cap, text), 1);
	CHECK(n == 1 && ends_with(kept[0], "x...") && strlen(kept[0]) == WC_WARNING_LEN - 1);
	free(kept);
}

/* The fit's outlier warning (docs/fitting.md, "Runs far off the law"):
 * runs with long ids (a campaign's folder names, "#segN" of --segment),
 * three of them off by a unit slip. Each named run is whole, with its
 * factor; those that do not fit are counted. */
static void
outliers(void)
{
	wc_runs_table *t = synth_a100_runs(1);
	for (size_t k = 0; k < t->n_runs; k++)
		snprintf(t->runs[k].run_id, sizeof t->runs[k].run_id,
		         "a100_validate_tp1_r4p0_b1p0_s20260712_17844154%zu%zu#seg%zu", k / 5, k % 5, k % 5 + 1);
	wc_fit_options fo = WC_FIT_OPTIONS_INIT;
	wc_fit_result r;
	wc_error err;
	for (int slips = 1; slips <= 3; slips++) {
		t->runs[5 * slips + 2].running = 0.01;
		CHECK_INT(wc_fit_inference_law(t, &fo, &r, &err), WC_OK);
		const char *w = NULL;
		for (int i = 0; i < r.n_warnings; i++)
			if (strstr(r.warnings[i], "far off the fitted law"))
				w = r.warnings[i];
		CHECK(w != NULL);
		if (w) {
			fprintf(stderr, "%s\n", w);
			CHECK(!ends_with(w, "..."));
			/* every run named is whole, its factor closed */
			int named = 0, more = 0, seg = 0;
			for (const char *p = w; (p = strstr(p, "#seg")) != NULL; p++)
				seg++;
			for (const char *p = w; (p = strstr(p, " (a factor ")) != NULL; p++) {
				named++;
				CHECK(strchr(p, ')') != NULL);
			}
			const char *m = strstr(w, ", and ");
			if (m && ends_with(w, " more"))
				more = atoi(m + 6);
			CHECK(named >= 1 && seg == named);
			CHECK_INT(named + more, atoi(w)); /* "N runs far off" */
			CHECK(atoi(w) >= slips);
			CHECK(ends_with(w, ")") || more > 0);
		}
		wc_fit_result_clear(&r);
	}
	wc_runs_free(t);
}

/* A run off by a factor whose fixed-point digits outgrow the list's room:
 * its mean power one rounding step above its idle, 5.7e-14 W of dynamic
 * power against about 200 W fitted (a factor near 1e15, 19 digits in
 * %.2f). It is named with its factor as "5.62e+15"; printed whole, the
 * factor left no run named ("... docs/fitting.md): and 1 more"; a row at
 * 1e-300 running was off by exp(690), 300 digits). */
#define LONG_ID "a100_validate_tp1_r4p0_b1p0_s20260712_1784415422_campaign_seven_longer_name_x_tp8dp16"
static void
outlier_huge_factor(void)
{
	wc_runs_table *t = synth_a100_runs(1);
	/* run 2, 2 under a long id */
	snprintf(t->runs[12].run_id, sizeof t->runs[12].run_id, "%s_22", LONG_ID);
	for (size_t k = 0; k < t->n_runs; k++)
		if (k != 12)
			snprintf(t->runs[k].run_id, sizeof t->runs[k].run_id, "r_%zu%zu", k / 5, k % 5);
	t->runs[12].mean_power_w = nextafter(t->runs[12].idle_power_w, INFINITY);
	wc_fit_options fo = WC_FIT_OPTIONS_INIT;
	wc_fit_result r;
	wc_error err;
	int rc = wc_fit_inference_law(t, &fo, &r, &err);
	CHECK_INT(rc, WC_OK);
	const char *w = NULL;
	for (int i = 0; rc == WC_OK && i < r.n_warnings; i++)
		if (strstr(r.warnings[i], "far off the fitted law"))
			w = r.warnings[i];
	CHECK(w != NULL);
	if (w) {
		fprintf(stderr, "%s\n", w);
		CHECK(strstr(w, LONG_ID "_22 (a factor ") != NULL);
		CHECK(ends_with(w, ")"));
	}
	if (rc == WC_OK)
		wc_fit_result_clear(&r);
	wc_runs_free(t);
}

/* calibrate's idle refusal, with a run id of --segment's length: the
 * remedy (idle_power_w) arrives whole. */
static void
calibrate_idle(void)
{
	char *dir = test_tmpdir("message_cut");
	CHECK_INT(chdir(dir), 0);
	CHECK_INT(write_text("segA.csv", "run_id,platform,tp,model,active_params_b,running,mean_power_w,idle_power_w\n"
	                                 "a100_validate_tp1_r4p0_b1p0_s20260712_1784415439#seg1,A100,1,Qwen3-8B,"
	                                 "8.19,0,82.3,82.0\n"
	                                 "a100_validate_tp1_r4p0_b1p0_s20260712_1784415439#seg2,A100,1,Qwen3-8B,"
	                                 "8.19,5.98,238.9,82.0\n"),
	          0);
	const char *argv[] = { "wattcast", "calibrate", "--profile", "measured", "segA.csv", "-o", "segA.json", NULL };
	run_result rr;
	CHECK(run_wattcast(argv, NULL, &rr) == 0);
	CHECK_INT(rr.status, 1);
	const char *e = rr.err ? rr.err : "";
	fprintf(stderr, "%s", e);
	CHECK_CONTAINS(e, "is at 0 running requests: an idle run has no dynamic power to calibrate on");
	CHECK(ends_with(e, "idle_power_w)\n"));
	/* room left for a folder such as /tmp/x/ before the file's name */
	CHECK(strlen(e) - strlen("wattcast calibrate: \n") + strlen("/tmp/x/") <= 255);
	run_result_free(&rr);
	free(dir);
}

/* The command a message names for the platform catalog lists it. */
static void
platforms(void)
{
	const char *argv[] = { "wattcast", "models", "--platforms", NULL };
	run_result rr;
	CHECK(run_wattcast(argv, NULL, &rr) == 0);
	CHECK_INT(rr.status, 0);
	CHECK_CONTAINS(rr.out, "\nMI325X ");
	CHECK_CONTAINS(rr.out, "\nA100-PCIe-40GB ");
	CHECK_CONTAINS(rr.out, "H100-SXM5");
	run_result_free(&rr);
	test_usage_error((const char *[]){ "wattcast", "models", "--platforms", "--json", NULL },
	                 "--json and --platforms: give one");
}

/* A "%.Ns" that cuts a UTF-8 name inside a character: the half character
 * becomes "...", in library messages and in the CLI's own. */
static void
mid_character(void)
{
	wc_error err;
	/* 模 is 3 bytes: "%.4s" of two keeps one and a third */
	wc_error_set(&err, WC_EINVAL, "model: unknown model '%.4s' (x)", "\xe6\xa8\xa1\xe6\xa8\xa1");
	CHECK(strcmp(err.msg, "model: unknown model '\xe6\xa8\xa1...' (x)") == 0);
	CHECK(test_utf8_ok(err.msg));
	char buf[16] = "ab\xe6\xa8 cd";
	wc_text_mend_cut(buf, sizeof buf);
	CHECK(strcmp(buf, "ab... cd") == 0);
	char tight[8] = "ab\xe6 cd"; /* no room for "...": the partial byte goes */
	wc_text_mend_cut(tight, 7);
	CHECK(strcmp(tight, "ab cd") == 0);
	char latin[8] = "a\xff b"; /* no UTF-8 at all: kept for the reader to see */
	wc_text_mend_cut(latin, sizeof latin);
	CHECK(strcmp(latin, "a\xff b") == 0);
	char name[100]; /* 30 characters, 90 bytes: "%.64s" ends inside the 22nd */
	memset(name, 0, sizeof name);
	for (int i = 0; i < 30; i++)
		memcpy(name + 3 * i, "\xe6\xa8\xa1", 3);
	const char *argv[] = { "wattcast", "predict", "inference", "--platform", "A100", "--model", name, "--concurrency", "8", NULL };
	run_result r;
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	CHECK(r.status != 0);
	CHECK(r.err && test_utf8_ok(r.err));
	CHECK_CONTAINS(r.err, "...' (");
	run_result_free(&r);
}

int
main(void)
{
	helpers();
	mid_character();
	outliers();
	outlier_huge_factor();
	calibrate_idle();
	platforms();
	return check_report("test_message_cut");
}
