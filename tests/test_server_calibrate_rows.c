/*
 * A calibration over HTTP records its rows as the CLI does. The row hash
 * (wc_run_content_hash) covered columns a POST /v1/calibrate item cannot
 * carry (tokens, throughput, energy per token, architecture, workload,
 * total size, the n(t) series), so a set calibrated over HTTP on the 12
 * ML.ENERGY Qwen3-32B chat runs on H100 never matched them in the table
 * they came from, and `validate heldout` reported its in-sample 6.21 %
 * median error as held out, while the CLI's set of the same runs said
 * "holds 12 of the 12 rows". The hash now covers what the calibration
 * reads and both carry (docs/formats/params-file.md, "Provenance";
 * docs/validation.md, "Frozen-law accuracy"): the same runs, by either
 * route, record the same hashes, and either set is known in-sample.
 */
#include "data/data.h"
#include "models/models.h"
#include "server/server.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

#include <sys/stat.h>

/* Three Qwen3-8B runs on H100 with every column a runs table has, the
 * third loaded by an n(t) series whose mean its `running` states; then
 * two other runs of the same model and level, which stay held out. */
#define CSV_HEAD                                                                                           \
	"run_id,platform,tp,model,active_params_b,total_params_b,architecture,running,n_series,"           \
	"mean_power_w,idle_power_w,weights,kv_cache,sm_clock_mhz,workload,input_tokens,output_tokens,"     \
	"throughput_tok_s,energy_per_token_j,set\n"
#define CSV_USED                                                                                           \
	"a,H100,1,Qwen3-8B,8.19,8.19,dense,8,,410,70,bf16,bf16,,closed,812.5,640.25,1500.5,0.273242,chat\n" \
	"b,H100,1,Qwen3-8B,8.19,8.19,dense,32,,520.5,70,bf16,bf16,,closed,790,655,4100.75,0.12693,chat\n" \
	"c,H100,1,Qwen3-8B,8.19,8.19,dense,48,c.series,583.12345678901234,70,bf16,bf16,,poisson,805,"      \
	"648.5,5200,0.112139,chat\n"
#define CSV_OTHERS                                                                                         \
	"d,H100,1,Qwen3-8B,8.19,8.19,dense,16,,470.25,70,bf16,bf16,,closed,700,500,2600,0.18,gpqa\n"        \
	"e,H100,1,Qwen3-8B,8.19,8.19,dense,64,,601.5,70,bf16,bf16,,closed,700,500,6100,0.0986,gpqa\n"
/* The same three runs as POST /v1/calibrate items: what an item carries. */
#define ITEM(id, n, w)                                                                                     \
	"{\"run_id\":\"" id "\",\"platform\":\"H100\",\"tp\":1,\"model\":\"Qwen3-8B\","                   \
	"\"active_params_b\":8.19," n ",\"mean_power_w\":" w ",\"idle_power_w\":70,"                        \
	"\"weights\":\"bf16\",\"kv_cache\":\"bf16\"}"
/* c's series as the item's running_series, each sample held dt_s = 1 s
 * as the file holds them: the calibration reads the series */
#define BODY                                                                                               \
	"{\"bootstrap\":0,\"seed\":7,\"runs\":[" ITEM("a", "\"running\":8", "410") ","                     \
	ITEM("b", "\"running\":32", "520.5") ","                                                             \
	ITEM("c", "\"running\":48,\"running_series\":[32,64,32,64],\"dt_s\":1", "583.12345678901234") "]}"

static wc_params base;

/* `validate heldout` of set `params` on `table`: says it holds the 3. */
static void
expect_in_sample(const char *params, const char *table, const char *who)
{
	run_result r;
	const char *argv[] = { "wattcast", "validate", "heldout", "--params", params, table, NULL };
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	int before = check_failures;
	CHECK_CONTAINS(r.err, "all.csv holds 3 of the 3 rows the set was calibrated on (its provenance calibration "
	                      "row_hashes): in-sample for the 3 row(s) it used on the levels and models it "
	                      "calibrated; its 2 others are held out");
	if (check_failures != before)
		fprintf(stderr, "  (the %s's set)\n", who);
	run_result_free(&r);
}

int
main(void)
{
	char *dir = test_tmpdir("calibrate_rows"), *tmp = path_join(dir, "tmp");
	char *bpath = path_join(dir, "base.json"), *used = path_join(dir, "used.csv"), *all = path_join(dir, "all.csv"),
	     *series = path_join(dir, "c.series"), *cli = path_join(dir, "cli.json"), *http = path_join(dir, "http.json");
	wc_error err;
	CHECK_INT(mkdir(tmp, 0700), 0);
	setenv("TMPDIR", tmp, 1); /* where the route makes its private folders */
	test_drawn_params(&base);
	CHECK_INT(wc_params_save_file(bpath, &base, &err), WC_OK);
	/* mean 48: its `running` states what the item gives */
	CHECK_INT(write_text(series, "t_s,running\n0,32\n1,64\n2,32\n3,64\n"), 0);
	CHECK_INT(write_text(used, CSV_HEAD CSV_USED), 0);
	CHECK_INT(write_text(all, "# the calibration runs and two others\n" CSV_HEAD CSV_OTHERS CSV_USED), 0);

	const char *cm[] = { "wattcast", "calibrate", "--params", bpath, used, "-o", cli, "--bootstrap", "0", "--seed",
		             "7", NULL };
	test_run_ok(cm);

	curl_global_init(CURL_GLOBAL_DEFAULT);
	CURL *h = curl_easy_init();
	wc_server *srv = http_server_start(&base, "drawn", 2);
	http_reply r;
	memset(&r, 0, sizeof r);
	if (srv) {
		http_post_json(h, url("/v1/calibrate"), BODY, &r);
	}
	CHECK_INT(r.status, 200);
	if (r.status != 200)
		fprintf(stderr, "  answer: %.300s\n", r.body ? r.body : "");
	const json_t *params = json_object_get(r.json, "params");
	CHECK(params && json_dump_file(params, http, JSON_INDENT(2) | JSON_REAL_PRECISION(17)) == 0);

	/* the same rows, by content, whichever route calibrated them */
	json_t *c = json_load_file(cli, 0, NULL);
	const json_t *hc = json_object_get(json_object_get(json_object_get(c, "provenance"), "calibration"), "row_hashes");
	const json_t *hh =
	        json_object_get(json_object_get(json_object_get(params, "provenance"), "calibration"), "row_hashes");
	CHECK(json_array_size(hc) == 3);
	CHECK(hc && hh && json_equal(hc, hh));
	if (!hc || !hh || !json_equal(hc, hh)) {
		char *a = hc ? json_dumps(hc, JSON_COMPACT) : NULL, *b = hh ? json_dumps(hh, JSON_COMPACT) : NULL;
		fprintf(stderr, "  cli %s\n  http %s\n", a ? a : "-", b ? b : "-");
		free(a);
		free(b);
	}
	/* and either set is in-sample for them in the table they came from */
	expect_in_sample(cli, all, "CLI");
	expect_in_sample(http, all, "route");

	json_decref(c);
	http_reply_free(&r);
	if (srv)
		wc_server_stop(srv);
	curl_easy_cleanup(h);
	wc_params_clear(&base);
	free(tmp);
	free(bpath);
	free(used);
	free(all);
	free(series);
	free(cli);
	free(http);
	free(dir);
	return check_report("test_server_calibrate_rows");
}
