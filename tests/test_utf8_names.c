/*
 * A name that is not valid UTF-8 (Latin-1 "caf\xe9") was calibrated into a
 * parameter file with "model_terms": [] -- jansson writes no such string
 * and the writer left it out without a word -- which predict then
 * refused. It is now refused where it enters, naming file:line:column (or
 * the flag) and the byte, by one check (wc_utf8_refuse): a runs table, an
 * import, the name flags; and the parameter-file writer refuses, writing
 * nothing, any string it could not write (docs/formats/runs-table.md,
 * "Error messages"; docs/formats/params-file.md; docs/cli.md,
 * "Conventions").
 */
#include "data/data.h"
#include "tests/support/support.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void
expect_refused(const char *const *argv, int status, const char *needle)
{
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, status);
	CHECK_CONTAINS(r.err, needle);
	CHECK(strlen(r.err) <= 255 + 64);
	run_result_free(&r);
}

int
main(void)
{
	char *dir = test_tmpdir("utf8_names");
	/* the model cell starts at byte 11 of line 3; \xe9 is its 4th byte */
	char *runs = test_fixture(dir, "latin.csv",
	                          "run_id,platform,tp,model,active_params_b,running,mean_power_w,idle_power_w\n"
	                          "r1,A100,1,Llama-3.1-8B,8,4,300,70\n"
	                          "r2,A100,1,caf\xe9,8,4,300,70\n"
	                          "r3,A100,1,caf\xe9,8,16,320,70\n");
	char *out = path_join(dir, "out.json");
	const char *fit[] = { "wattcast", "fit", "inference", runs, "-o", out, "--bootstrap", "0", NULL };
	expect_refused(fit, 1, "latin.csv:3:11: column 'model': not valid UTF-8 at byte 4");
	const char *cal[] = { "wattcast", "calibrate", "--profile", "paper", runs, "-o", out, "--bootstrap", "0", NULL };
	expect_refused(cal, 1, "latin.csv:3:11: column 'model': not valid UTF-8 at byte 4");
	CHECK(!test_exists(out));

	/* import csv reads as fit does: the source's position */
	char *src = test_fixture(dir, "src.csv", "id,gpu,tp,model,active_params_b,running,mean_power_w\n"
	                                         "r1,H\xe9" "100,1,m,8,4,300\n");
	const char *imp[] = { "wattcast", "import", "csv", src, "--map", "id=run_id,gpu=platform", "-o", out, NULL };
	expect_refused(imp, 1, "src.csv:2:4: column 'platform': not valid UTF-8 at byte 2");
	CHECK(!test_exists(out));

	/* a manifest: named where the string starts, as a cell (jansson said
	 * 1:42, a character count one short of the byte) */
	char *run = path_join(dir, "run");
	CHECK(mkdir(run, 0755) == 0);
	free(test_fixture(run, "wattcast-run.json", "{\"schema\": \"wattcast.run/1\", \"model\": \"caf\xe9\"}\n"));
	free(test_fixture(run, "power.csv", "timestamp, name, pci.bus_id, uuid, power.draw [W]\n"));
	const char *man[] = { "wattcast", "ingest", run, "-o", out, "--utc-offset", "0", NULL };
	expect_refused(man, 1, "wattcast-run.json:1:40: not valid UTF-8 at byte 4");
	CHECK(!test_exists(out));
	free(run);

	/* the name flags, refused before any work */
	const char *calm[] = { "wattcast", "calibrate", "--profile", "paper", runs, "-o", out, "--model", "caf\xe9", NULL };
	expect_refused(calm, 2, "calibrate: --model: not valid UTF-8 at byte 4");
	const char *calm2[] = { "wattcast", "calibrate", "--profile", "paper", runs, "-o", out, "--model=caf\xe9", NULL };
	expect_refused(calm2, 2, "calibrate: --model: not valid UTF-8 at byte 4");
	const char *fitn[] = { "wattcast", "fit", "inference", runs, "-o", out, "--name", "\xe9t\xe9", NULL };
	expect_refused(fitn, 2, "--name: not valid UTF-8 at byte 1");
	const char *ing[] = { "wattcast", "ingest", dir, "-o", out, "--platform", "H100\xff", NULL };
	expect_refused(ing, 2, "ingest: --platform: not valid UTF-8 at byte 5");
	CHECK(!test_exists(out));

	/* The writer: a string jansson refuses is an error, no file written
	 * (it was left out: "model_terms": []). */
	wc_params p = WC_PARAMS_INIT;
	wc_params_default(&p);
	wc_model_term *t = &p.model_terms[p.n_model_terms++];
	memset(t, 0, sizeof *t);
	snprintf(t->model, sizeof t->model, "caf\xe9");
	snprintf(t->level, sizeof t->level, "%s", p.levels[0].name);
	t->shift = (wc_param){ 0.1, NAN, NAN, WC_SRC_FITTED };
	t->runs = 2;
	wc_error err = { 0, "" };
	CHECK(wc_params_save_file(out, &p, &err) != WC_OK);
	CHECK_CONTAINS(err.msg, "model_terms/0/model: not valid UTF-8 at byte 4");
	CHECK(!test_exists(out));
	/* the same set with a valid name is written, its term with it */
	snprintf(t->model, sizeof t->model, "café");
	CHECK(wc_params_save_file(out, &p, &err) == WC_OK);
	char *text = test_exists(out) ? test_slurp(out) : NULL;
	CHECK(text && strstr(text, "\"model\": \"café\""));
	free(text);
	wc_params_clear(&p);

	free(out);
	free(src);
	free(runs);
	free(dir);
	return check_report("test_utf8_names");
}
