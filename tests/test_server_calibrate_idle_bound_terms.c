/*
 * The idle given to calibrate (--idle-power, the body's idle_power_w) is
 * held to the board of the levels and terms that take it, and only those
 * (docs/cli.md "calibrate" --idle-power): a term any of whose runs has
 * its own idle_power_w, or a new level whose runs have one, does not use
 * it. A table of three A100 runs with their measured idle and one H100
 * run without, with --idle-power 450, was refused at A100's 400 W board,
 * though only the H100 term (700 W) takes the 450 W; a platform-scope
 * level whose runs carry their idle was refused likewise. CLI and HTTP.
 */
#include "models/models.h"
#include "server/server.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

#include <math.h>
#include <sys/stat.h>

#define TABLE "run_id,platform,tp,model,running,mean_power_w,idle_power_w\n" \
              "a1,A100,1,Qwen3-8B,4,250,60\na2,A100,1,Qwen3-8B,16,300,60\n"    \
              "a3,A100,1,Qwen3-8B,32,330,60\nh1,H100,1,Qwen3-8B,16,600,\n"
#define RUNS_JSON                                                                                            \
	"{\"run_id\":\"a1\",\"platform\":\"A100\",\"tp\":1,\"model\":\"Qwen3-8B\",\"running\":4,"                \
	"\"mean_power_w\":250,\"idle_power_w\":60},"                                                           \
	"{\"run_id\":\"a2\",\"platform\":\"A100\",\"tp\":1,\"model\":\"Qwen3-8B\",\"running\":16,"               \
	"\"mean_power_w\":300,\"idle_power_w\":60},"                                                           \
	"{\"run_id\":\"a3\",\"platform\":\"A100\",\"tp\":1,\"model\":\"Qwen3-8B\",\"running\":32,"               \
	"\"mean_power_w\":330,\"idle_power_w\":60},"                                                           \
	"{\"run_id\":\"h1\",\"platform\":\"H100\",\"tp\":1,\"model\":\"Qwen3-8B\",\"running\":16,"               \
	"\"mean_power_w\":600}"

/* The term of `level` in `params`: its p0_w value and source. */
static void
check_p0(const json_t *params, const char *level, double want, const char *src_want)
{
	const json_t *terms = json_object_get(params, "model_terms"), *p0 = NULL;
	for (size_t i = 0; i < json_array_size(terms); i++) {
		const char *l = json_string_value(json_object_get(json_array_get(terms, i), "level"));
		if (l && strcmp(l, level) == 0)
			p0 = json_object_get(json_array_get(terms, i), "p0_w");
	}
	const char *src = json_string_value(json_object_get(p0, "source"));
	CHECK(p0 != NULL && fabs(json_number_value(json_object_get(p0, "value")) - want) < 1e-9);
	CHECK(src && strcmp(src, src_want) == 0);
}

int
main(void)
{
	char *dir = test_tmpdir("calibrate_idle_bound_terms"), *tmp = path_join(dir, "tmp");
	char *runs = path_join(dir, "runs.csv"), *cli = path_join(dir, "cli.json"), *l40 = path_join(dir, "l40.csv");
	char body[2048];
	CHECK_INT(mkdir(tmp, 0700), 0);
	setenv("TMPDIR", tmp, 1);
	CHECK_INT(write_text(runs, TABLE), 0);
	CHECK_INT(write_text(l40, "run_id,platform,tp,model,running,mean_power_w,idle_power_w\n"
	                          "l1,L40S,1,Qwen3-8B,8,220,40\nl2,L40S,1,Qwen3-8B,64,300,40\n"), 0);

	/* model scope: 450 W is below H100's 700 W, the one term taking it */
	const char *ok[] = { "wattcast", "calibrate", "--profile", "paper", runs, "--idle-power", "450", "-o", cli,
		             "--bootstrap", "0", "--quiet", NULL };
	run_result r;
	CHECK_INT(run_wattcast(ok, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	if (r.status != 0)
		fprintf(stderr, "  stderr: %.300s\n", r.err ? r.err : "");
	run_result_free(&r);
	json_t *c = json_load_file(cli, 0, NULL);
	CHECK(c != NULL);
	if (c) {
		check_p0(c, "A100", 60.0, "measured");
		check_p0(c, "H100", 450.0, "assumed");
	}
	/* ... and still refused above the board of the term taking it */
	const char *big[] = { "wattcast", "calibrate", "--profile", "paper", runs, "--idle-power", "750", "-o", cli,
		              "--bootstrap", "0", "--quiet", NULL };
	CHECK_INT(run_wattcast(big, NULL, &r), 0);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "--idle-power: 750 W per GPU is not below H100's board limit of 700 W");
	run_result_free(&r);
	/* platform scope: the runs' own idle is the new level's P0 */
	const char *lv[] = { "wattcast", "calibrate", "--profile", "paper", "--scope", "platform", l40, "--idle-power",
		             "400", "-o", cli, "--quiet", "--bootstrap", "0", NULL };
	CHECK_INT(run_wattcast(lv, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	if (r.status != 0)
		fprintf(stderr, "  stderr: %.300s\n", r.err ? r.err : "");
	run_result_free(&r);

	/* POST /v1/calibrate: the same */
	wc_params base = WC_PARAMS_INIT;
	wc_params_default(&base);
	curl_global_init(CURL_GLOBAL_DEFAULT);
	CURL *h = curl_easy_init();
	wc_server *srv = http_server_start(&base, "paper", 2);
	if (srv) {
		http_reply hr;
		memset(&hr, 0, sizeof hr);
		snprintf(body, sizeof body, "{\"bootstrap\":0,\"idle_power_w\":450,\"runs\":[" RUNS_JSON "]}");
		http_post_json(h, url("/v1/calibrate"), body, &hr);
		CHECK_INT(hr.status, 200);
		if (hr.status != 200)
			fprintf(stderr, "  answer: %.300s\n", hr.body ? hr.body : "");
		const json_t *params = json_object_get(hr.json, "params");
		CHECK(params != NULL);
		if (params) {
			check_p0(params, "A100", 60.0, "measured");
			check_p0(params, "H100", 450.0, "assumed");
		}
		http_reply_free(&hr);
		memset(&hr, 0, sizeof hr);
		snprintf(body, sizeof body, "{\"bootstrap\":0,\"idle_power_w\":750,\"runs\":[" RUNS_JSON "]}");
		http_post_json(h, url("/v1/calibrate"), body, &hr);
		CHECK_INT(hr.status, 422);
		const char *field = http_error_str(&hr, "field"), *msg = http_error_str(&hr, "message");
		CHECK(field && strcmp(field, "/idle_power_w") == 0);
		CHECK_CONTAINS(msg ? msg : "", "750 W per GPU is not below H100's board limit of 700 W");
		http_reply_free(&hr);
		wc_server_stop(srv);
	}
	json_decref(c);
	curl_easy_cleanup(h);
	wc_params_clear(&base);
	free(tmp);
	free(runs);
	free(cli);
	free(l40);
	free(dir);
	return check_report("test_server_calibrate_idle_bound_terms");
}
