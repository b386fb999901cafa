/*
 * Bytes that are not UTF-8 beside names (docs/architecture.md, "Errors"):
 * - a parameter file under a folder 'caf\xe9' was refused by `serve`
 *   ("params: cannot render GET /v1/params", naming neither file nor
 *   reason) while predict read it: a path is bytes, not a name, and is
 *   shown in GET /v1/params and /v1/profiles with U+FFFD for each byte that
 *   is not UTF-8 (wc_utf8_mend; docs/http-api.md, "Read-only routes");
 * - a scrape's label value 'caf\xe9' (model_name, Hostname) was written
 *   into the runs table, which calibrate and fit then refused: refused at
 *   ingest, at the value's position (docs/formats/prometheus.md);
 * - run ids that differ only in letters outside ASCII ('模型', '测试')
 *   shared one series file name and were refused: they now get a hash of
 *   their bytes (docs/formats/telemetry.md, "n(t) on the 50 ms grid").
 */
#include "data/data.h"
#include "server/server_internal.h"
#include "tests/support/support.h"
#include "tests/support/synth_folder.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T0 1784415000.0

static void
expect_refused(const char *const *argv, const char *needle, const char *out)
{
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, needle);
	CHECK(strlen(r.err) <= 255 + 64);
	CHECK(!test_exists(out));
	run_result_free(&r);
}

static void
served_source(const char *source, const char *expect)
{
	wc_params p = WC_PARAMS_INIT;
	wc_profiles *pf = NULL;
	wc_error err = { 0, "" };
	wc_params_default(&p);
	const wc_params *sets[1] = { &p };
	const char *sources[1] = { source };
	CHECK_INT(wc_profiles_new(1, sets, sources, &pf, &err), WC_OK);
	if (pf) {
		char want[600];
		snprintf(want, sizeof want, "\"source\":\"%s\"", expect);
		CHECK(strstr(pf->st[0]->params_body, want) != NULL);
		CHECK(strstr(pf->profiles_body, want) != NULL);
		CHECK(test_utf8_ok(pf->st[0]->params_body));
		wc_profiles_release(pf);
	} else {
		fprintf(stderr, "served_source: %s\n", err.msg);
	}
	wc_params_clear(&p);
}

int
main(void)
{
	char *dir = test_tmpdir("utf8_paths");

	/* 1. The one rule, and the served source. */
	char out[64];
	CHECK_INT((int)wc_utf8_mend("/runs/caf\xe9/p.json", out, sizeof out), 1);
	CHECK(strcmp(out, "/runs/caf\xEF\xBF\xBD/p.json") == 0);
	CHECK_INT((int)wc_utf8_mend("模型/p.json", out, sizeof out), 0);
	CHECK(strcmp(out, "模型/p.json") == 0);
	CHECK_INT((int)wc_utf8_mend("\xff\xfe", out, 5), 1); /* the second does not fit whole */
	CHECK(strcmp(out, "\xEF\xBF\xBD") == 0);
	served_source("/runs/caf\xe9/p.json", "/runs/caf\xEF\xBF\xBD/p.json");
	/* a CJK path past the 255 bytes kept: cut between characters */
	char longp[400] = "/";
	for (int k = 0; k < 100; k++)
		strcat(longp, "模");
	char kept[400] = "/";
	for (int k = 0; k < 84; k++)
		strcat(kept, "模");
	served_source(longp, kept);

	/* 2. Scrapes and query_range answers with a Latin-1 label value. */
	char *table = path_join(dir, "t.csv");
	char *prom = test_fixture(dir, "s.prom",
	                          "# wattcast-scrape 1767225600 h1:8000\n"
	                          "vllm:num_requests_running{model_name=\"Qwen3-8B\"} 1\n"
	                          "vllm:num_requests_running{model_name=\"caf\xe9\"} 4\n");
	const char *scr[] = { "wattcast", "ingest", "--scrapes", prom, "-o", table, "--quiet", NULL };
	expect_refused(scr, "s.prom:3:39: label 'model_name': not valid UTF-8 at byte 4", table);
	char *host = test_fixture(dir, "h.prom",
	                          "# wattcast-scrape 1767225600 h1:9400\n"
	                          "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\",Hostname=\"n\xf6" "de1\"} 120\n");
	const char *hst[] = { "wattcast", "ingest", "--scrapes", host, "-o", table, "--quiet", NULL };
	expect_refused(hst, "h.prom:2:43: label 'Hostname': not valid UTF-8 at byte 2", table);
	char *inst = test_fixture(dir, "i.prom", "# wattcast-scrape 1767225600 h\xe9:8000\n");
	const char *ins[] = { "wattcast", "ingest", "--scrapes", inst, "-o", table, "--quiet", NULL };
	expect_refused(ins, "i.prom:1:30: instance: not valid UTF-8 at byte 2", table);
	char *json = test_fixture(dir, "q.json",
	                          "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[\n"
	                          " {\"metric\":{\"__name__\":\"vllm:num_requests_running\",\"model_name\":\"caf\xe9\"},"
	                          "\"values\":[[1767225600,\"1\"]]}]}}\n");
	const char *qj[] = { "wattcast", "ingest", "--prometheus-json", json, "-o", table, "--quiet", NULL };
	expect_refused(qj, "q.json:2:66: not valid UTF-8 at byte 4", table);

	/* 3. Run ids that differ only outside ASCII: two series files. */
	char *a = synth_run_folder(dir, "ra", "模型", T0, 30, 2);
	char *b = synth_run_folder(dir, "rb", "测试", T0, 30, 2);
	char *c = synth_run_folder(dir, "rc", "café", T0, 30, 2);
	char *d = synth_run_folder(dir, "rd", "cafè", T0, 30, 2);
	const char *cjk[] = { "wattcast", "ingest", a, b, c, d, "-o", table, "--quiet", NULL };
	run_result r;
	CHECK(run_wattcast(cjk, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	if (r.status != 0)
		fprintf(stderr, "%s", r.err);
	run_result_free(&r);
	const char *names[] = { "______-c98e118e.csv", "______-6aa8f49c.csv", "caf__-08dcdafd.csv",
	                        "caf__-850f7dc4.csv" };
	char *text = test_exists(table) ? test_slurp(table) : NULL;
	for (int k = 0; k < 4; k++) {
		char rel[64], *full;
		snprintf(rel, sizeof rel, "t.series/%s", names[k]);
		full = path_join(dir, rel);
		CHECK(test_exists(full));
		CHECK(text && strstr(text, rel));
		free(full);
	}
	free(text);
	/* the table reads back, each row with its own series */
	char *pj = path_join(dir, "p.json");
	const char *fit[] = { "wattcast", "calibrate", "--profile", "measured", table, "-o", pj, NULL };
	run_result f;
	CHECK(run_wattcast(fit, NULL, &f) == 0);
	CHECK(!strstr(f.err ? f.err : "", "series"));
	run_result_free(&f);

	free(pj);
	free(a);
	free(b);
	free(c);
	free(d);
	free(json);
	free(inst);
	free(host);
	free(prom);
	free(table);
	free(dir);
	return check_report("test_utf8_paths");
}
