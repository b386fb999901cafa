/*
 * What `fit` and `calibrate` record about a set they write
 * (docs/formats/params-file.md, "Top level" and "Provenance";
 * docs/cli.md): created_utc pinned by SOURCE_DATE_EPOCH for calibrate as
 * for fit, a SOURCE_DATE_EPOCH that is no date ignored with a warning
 * instead of made into one, a --name the loader would refuse refused up
 * front, and a --bootstrap no file can hold a usage error (exit 2) in
 * calibrate as in fit. The top-level record is the inference law's fit
 * alone: calibrate and fit finetune keep it whole, time included, and
 * record their own inputs and times beside it (schema 10).
 */
#include "data/data.h"
#include "tests/support/support.h"

#include <stdlib.h>
#include <string.h>

#define CAL_HEAD "run_id,platform,tp,model,active_params_b,running,mean_power_w,idle_power_w\n"

static void
expect(const char *const *argv, int status, const char *needle)
{
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, status);
	if (needle)
		CHECK_CONTAINS(r.err, needle);
	if (r.status != status)
		fprintf(stderr, "%s", r.err);
	run_result_free(&r);
}

int
main(void)
{
	char *dir = test_tmpdir("cli_set_record");
	char *cal = test_fixture(dir, "cal.csv", CAL_HEAD "c1,H100,1,Qwen3-8B,8.19,16,420,120\n"
	                                                  "c2,H100,1,Qwen3-8B,8.19,64,560,120\n");
	char *calp = test_fixture(dir, "calp.csv", CAL_HEAD "a,B300,1,Qwen3-8B,8.19,8,600,150\n"
	                                                    "b,B300,1,Qwen3-8B,8.19,64,800,150\n");
	char *runs = path_join(dir, "runs.csv"), *out = path_join(dir, "out.json");

	/* calibrate pins created_utc as fit does (it wrote null). */
	setenv("SOURCE_DATE_EPOCH", "1780000000", 1);
	const char *sim[] = { "wattcast", "simulate", "inference", "--seed", "7", "-o", runs, NULL };
	expect(sim, 0, NULL);
	char *base = path_join(dir, "base.json");
	const char *fit[] = { "wattcast", "fit", "inference", runs, "-o", base, "--bootstrap", "20", "--seed", "7",
		              "--quiet", NULL };
	expect(fit, 0, NULL);
	const char *c1[] = { "wattcast", "calibrate", "--params", base, cal, "-o", out, "--bootstrap", "20",
		             "--seed", "5", "--quiet", NULL };
	setenv("SOURCE_DATE_EPOCH", "1790000000", 1);
	expect(c1, 0, NULL);
	char *txt = test_slurp(out);
	CHECK_CONTAINS(txt, "\"created_utc\": \"2026-05-28T20:26:40Z\"");
	CHECK_CONTAINS(txt, "\"created_utc\": \"2026-09-21T14:13:20Z\"");
	/* Its provenance is the base's fit, whole: its input, rows, seed 7
	 * and replicates (it mixed the base's input and rows with the
	 * calibration's seed 5: a fit that never happened). */
	{
		wc_params b = WC_PARAMS_INIT, c = WC_PARAMS_INIT;
		wc_error err;
		CHECK_INT(wc_params_load_file(base, &b, &err), WC_OK);
		CHECK_INT(wc_params_load_file(out, &c, &err), WC_OK);
		CHECK(strcmp(b.input_sha256, c.input_sha256) == 0 && b.input_sha256[0]);
		CHECK_INT(c.runs, b.runs);
		CHECK_INT((int)c.seed, 7);
		CHECK_INT(c.bootstrap, b.bootstrap);
		/* its time too (it was restamped: a time of one event beside the
		 * input of another) */
		CHECK(strcmp(c.created_utc, "2026-05-28T20:26:40Z") == 0);
		/* The calibration's own record: its input, runs, seed, draws and
		 * time (none of them was recorded). */
		CHECK(c.calibration.input_sha256[0] && strcmp(c.calibration.input_sha256, b.input_sha256) != 0);
		CHECK(strcmp(c.calibration.fitted_on, cal) == 0);
		CHECK_INT(c.calibration.runs, 2);
		CHECK_INT((int)c.calibration.seed, 5);
		CHECK_INT(c.calibration.bootstrap, c.n_draws);
		CHECK(strcmp(c.calibration.created_utc, "2026-09-21T14:13:20Z") == 0);
		CHECK(!b.calibration.created_utc[0]);
		wc_params_clear(&b);
		wc_params_clear(&c);
	}
	free(txt);
	/* fit finetune keeps the law's record whole and stamps its section. */
	{
		const char *src = test_env("WC_SOURCE_DIR", ".");
		char *ft = path_join(src, "data/default/finetune-design-seed42.csv");
		const char *f[] = { "wattcast", "fit", "finetune", ft, "--params", base, "-o", out, "--bootstrap", "0",
			            "--quiet", NULL };
		setenv("SOURCE_DATE_EPOCH", "1795000000", 1);
		expect(f, 0, NULL);
		wc_params c = WC_PARAMS_INIT;
		wc_error err;
		CHECK_INT(wc_params_load_file(out, &c, &err), WC_OK);
		CHECK(strcmp(c.created_utc, "2026-05-28T20:26:40Z") == 0);
		CHECK(strcmp(c.finetune.created_utc, "2026-11-18T11:06:40Z") == 0);
		wc_params_clear(&c);
		free(ft);
	}
	free(base);

	/* A --bootstrap no file can hold: exit 2 naming the flag, as fit. */
	const char *c2[] = { "wattcast", "calibrate", "--profile", "paper", calp, "-o", out, "--scope", "platform",
		             "--bootstrap", "1000000", "--quiet", NULL };
	expect(c2, 2, "--bootstrap: 1000000 draws of");

	/* --name the loader would refuse: too long, or a control character. */
	const char *c3[] = { "wattcast", "calibrate", "--profile", "paper", cal, "-o", out, "--name",
		             "yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy", NULL };
	expect(c3, 2, "--name: 48 bytes, more than the 47 a set's name may have");
	const char *f1[] = { "wattcast", "fit", "inference", runs, "-o", out, "--bootstrap", "0", "--name", "two\nlines",
		             NULL };
	expect(f1, 2, "--name: control character at byte 4");

	/* A SOURCE_DATE_EPOCH that is no whole number of seconds is ignored
	 * with a warning naming it ("abc" was 1970-01-01, 1e9 one second
	 * after it, 99999999999999999999 a malformed stamp). */
	const char *bad[] = { "abc", "-5", "1e9", "99999999999999999999", "253402300800" };
	for (int i = 0; i < 5; i++) {
		setenv("SOURCE_DATE_EPOCH", bad[i], 1);
		const char *f2[] = { "wattcast", "fit", "inference", runs, "-o", out, "--bootstrap", "0", NULL };
		expect(f2, 0, "warning: SOURCE_DATE_EPOCH");
		txt = test_slurp(out);
		CHECK(strstr(txt, "\"created_utc\": \"19") == NULL);
		CHECK(strstr(txt, "\"created_utc\": \"2026-05-28") == NULL);
		wc_params p = WC_PARAMS_INIT;
		wc_error err;
		CHECK_INT(wc_params_load_file(out, &p, &err), WC_OK);
		wc_params_clear(&p);
		free(txt);
	}
	free(cal);
	free(calp);
	free(runs);
	free(out);
	free(dir);
	return check_report("test_cli_set_record");
}
