/*
 * A model name is kept whole through `wattcast calibrate` and `predict`
 * (docs/calibration.md, "Model scope"; models/limits.h, WC_MODEL_NAME_MAX
 * and WC_LABEL_MAX), up to the 95 bytes a runs table's `model` takes
 * (docs/formats/runs-table.md):
 *  - a 95-byte ASCII name, a 95-byte name of CJK characters and one of 14
 *    CJK characters (42 bytes) each calibrate to a file that loads again,
 *    whose model term and draw column carry the whole name, and `predict
 *    --model NAME` finds the term;
 *  - two names that differ only after byte 47 are two terms with their
 *    own shifts, not one term missing half its runs;
 *  - a longer name is refused naming the limit: at its cell in a runs
 *    table, and as `predict --model`.
 */
#include "data/data.h"
#include "models/models.h"
#include "tests/support/support.h"

#include <stdlib.h>
#include <string.h>

static char *dir;

/* Four runs of one model on A100 (a model the catalog lacks, 8.19 B);
 * the second pair's power is `second_scale` times the first's. */
static char *
runs_csv(const char *file, const char *model_a, const char *model_b, double second_scale)
{
	static const double running[4] = { 5.98333333333, 12.63, 11.1, 10.677852349 };
	static const double power[4] = { 238.941533885, 308.249473288, 324.377363622, 303.73032469 };
	char text[2048];
	int n = snprintf(text, sizeof text, "run_id,platform,tp,model,active_params_b,running,mean_power_w,idle_power_w\n");
	for (int i = 0; i < 4; i++)
		n += snprintf(text + n, sizeof text - (size_t)n, "r%d,A100,1,%s,8.19,%.12g,%.12g,82.04\n", i,
		              i < 2 ? model_a : model_b, running[i], i < 2 ? power[i] : power[i] * second_scale);
	return test_fixture(dir, file, text);
}

static int
has_draw(const wc_params *p, const char *label)
{
	for (int j = 0; j < p->n_draw_params; j++)
		if (strcmp(p->draw_names[j], label) == 0)
			return 1;
	return 0;
}

/* Calibrate `name` and predict with it: the term, its draw column and the
 * answer all use the whole name. */
static void
round_trip(const char *tag, const char *name)
{
	char file[64], out_name[64];
	snprintf(file, sizeof file, "%s.csv", tag);
	snprintf(out_name, sizeof out_name, "%s.json", tag);
	char *csv = runs_csv(file, name, name, 1.0), *out = path_join(dir, out_name);
	const char *cal[] = { "wattcast", "calibrate", "--profile", "measured", csv, "-o", out,
		              "--bootstrap", "50", "--seed", "3", NULL };
	test_run_ok(cal);
	wc_params p = WC_PARAMS_INIT;
	wc_error err;
	CHECK_INT(wc_params_load_file(out, &p, &err), WC_OK);
	if (p.n_model_terms != 1)
		fprintf(stderr, "  %s: %d model terms, %d draw columns\n", tag, p.n_model_terms, p.n_draw_params);
	CHECK_INT(p.n_model_terms, 1);
	CHECK(p.n_model_terms == 1 && strcmp(p.model_terms[0].model, name) == 0);
	char label[WC_LABEL_MAX];
	snprintf(label, sizeof label, "shift[%s@A100]", name);
	CHECK(has_draw(&p, label));
	CHECK_INT(p.n_draws, 50);

	const char *pred[] = { "wattcast", "predict", "inference", "--params", out, "--platform", "A100", "--model",
		               name, "--active-params", "8.19", "--concurrency", "8", NULL };
	run_result r;
	CHECK_INT(run_wattcast(pred, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	CHECK(r.out && !strstr(r.out, "no model term"));
	if (r.status != 0 || (r.out && strstr(r.out, "no model term")))
		fprintf(stderr, "  %s: predict: %s%s\n", tag, r.out ? r.out : "", r.err ? r.err : "");
	run_result_free(&r);
	wc_params_clear(&p);
	free(csv);
	free(out);
}

static void
test_whole_names(void)
{
	char ascii[96], cjk[96], cjk14[64] = "";
	memset(ascii, 'm', 95);
	ascii[95] = '\0';
	cjk[0] = '\0';
	for (int i = 0; i < 31; i++)
		strcat(cjk, "模"); /* 3 bytes each: 93 */
	strcat(cjk, "xy");
	for (int i = 0; i < 14; i++)
		strcat(cjk14, "模");
	CHECK_INT((int)strlen(ascii), 95);
	CHECK_INT((int)strlen(cjk), 95);
	round_trip("ascii95", ascii);
	round_trip("cjk95", cjk);
	round_trip("cjk14", cjk14);
}

/* 47 bytes in common, then "-alpha" and "-beta", 30 % apart in power. */
static void
test_late_difference(void)
{
	char a[64], b[64];
	memset(a, 'x', 47);
	memcpy(b, a, 47);
	snprintf(a + 47, sizeof a - 47, "-alpha");
	snprintf(b + 47, sizeof b - 47, "-beta");
	char *csv = runs_csv("late.csv", a, b, 0.7), *out = path_join(dir, "late.json");
	const char *cal[] = { "wattcast", "calibrate", "--profile", "measured", csv, "-o", out,
		              "--bootstrap", "50", "--seed", "3", NULL };
	run_result r;
	CHECK_INT(run_wattcast(cal, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	CHECK(r.out && !strstr(r.out, "misses"));
	run_result_free(&r);
	wc_params p = WC_PARAMS_INIT;
	wc_error err;
	CHECK_INT(wc_params_load_file(out, &p, &err), WC_OK);
	CHECK_INT(p.n_model_terms, 2);
	if (p.n_model_terms == 2) {
		CHECK(strcmp(p.model_terms[0].model, a) == 0 && strcmp(p.model_terms[1].model, b) == 0);
		CHECK_INT(p.model_terms[0].runs, 2);
		CHECK_INT(p.model_terms[1].runs, 2);
		/* 30 % less dynamic-and-idle power is well over 0.2 in z */
		CHECK(p.model_terms[0].shift.value - p.model_terms[1].shift.value > 0.2);
	}
	wc_params_clear(&p);
	free(csv);
	free(out);
}

/* 96 bytes: refused at the cell and as --model, naming the limit. */
static void
test_too_long(void)
{
	char cjk[128] = "", ascii[97];
	for (int i = 0; i < 32; i++)
		strcat(cjk, "模");
	memset(ascii, 'm', 96);
	ascii[96] = '\0';
	char *csv = runs_csv("long.csv", cjk, cjk, 1.0), *out = path_join(dir, "long.json");
	const char *cal[] = { "wattcast", "calibrate", "--profile", "measured", csv, "-o", out, NULL };
	run_result r;
	CHECK_INT(run_wattcast(cal, NULL, &r), 0);
	CHECK(r.status != 0);
	CHECK_CONTAINS(r.err ? r.err : "", "long.csv:2:11: column 'model': value too long: 96 bytes, at most 95");
	CHECK(!test_exists(out));
	run_result_free(&r);
	const char *pred[] = { "wattcast", "predict", "inference", "--platform", "A100", "--model", ascii,
		               "--active-params", "8.19", "--concurrency", "8", NULL };
	test_usage_error(pred, "--model: 96 bytes, more than the 95 a model name may have");
	free(csv);
	free(out);
}

int
main(void)
{
	dir = test_tmpdir("calibrate_long_names");
	test_whole_names();
	test_late_difference();
	test_too_long();
	free(dir);
	return check_report("test_calibrate_long_names");
}
