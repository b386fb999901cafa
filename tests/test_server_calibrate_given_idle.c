/*
 * The idle given to calibrate (--idle-power, the body's idle_power_w;
 * docs/calibration.md "The estimate", docs/cli.md "calibrate"):
 *
 *  - model scope: runs without their own idle_power_w are fitted above
 *    it, and the term records it as its p0_w (source "assumed"). It was
 *    ignored: the shift was fitted above the base's 126.3 W and no p0_w
 *    was written, so two runs drawn at 150 W were answered over 126.3 W;
 *  - it is held to the bound a run's idle_power_w is held to
 *    (wc_params_check_idle): 400 W on an L40S (350 W board) made a new
 *    level with p0_w 400 (predict answered 401.6 W over a 400 W idle),
 *    750 W on an H100 (700 W) was taken in model scope. Refused naming
 *    the flag on the CLI and the field /idle_power_w over HTTP.
 */
#include "data/data.h"
#include "models/models.h"
#include "server/server.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

#include <math.h>
#include <sys/stat.h>

#define IDLE_W 150.0
#define SHIFT 0.3
static const double loads[2] = { 4.0, 16.0 };

/* The term's p0_w is IDLE_W "assumed", its shift SHIFT, and the set
 * answers each run, named by model and without its idle, within 0.5 %
 * over IDLE_W. */
static void
check_term(const json_t *params, const double *measured, const char *what)
{
	const json_t *p0 = json_object_get(test_model_term(params, 0), "p0_w");
	const char *src = json_string_value(json_object_get(p0, "source"));
	CHECK(p0 != NULL && fabs(json_number_value(json_object_get(p0, "value")) - IDLE_W) < 1e-9);
	CHECK(src && strcmp(src, "assumed") == 0);
	const json_t *shift = json_object_get(json_object_get(test_model_term(params, 0), "shift"), "value");
	CHECK(fabs(json_number_value(shift) - SHIFT) < 0.01);
	char *text = json_dumps(params, JSON_COMPACT);
	wc_params p = WC_PARAMS_INIT;
	wc_error err;
	CHECK_INT(wc_params_load_buffer(text ? text : "", text ? strlen(text) : 0, what, &p, &err), WC_OK);
	for (int i = 0; i < 2 && p.n_levels; i++) {
		wc_power pw;
		wc_config c = test_catalog_config("H100", 1, "Qwen3-8B", loads[i]);
		CHECK_INT(wc_law_power(&p, &c, &pw, &err), WC_OK);
		double e = 100.0 * (pw.node_power_w / measured[i] - 1.0);
		CHECK(fabs(e) < 0.5 && fabs(pw.idle_power_w - IDLE_W) < 1e-6);
		if (!(fabs(e) < 0.5) || !(fabs(pw.idle_power_w - IDLE_W) < 1e-6))
			fprintf(stderr, "  %s at %g running: %.2f W (idle %.2f W) for %.2f W\n", what, loads[i],
			        pw.node_power_w, pw.idle_power_w, measured[i]);
	}
	wc_params_clear(&p);
	free(text);
}

/* The CLI's refusal, naming the flag. */
static void
cli_refused(const char *const *argv, const char *want)
{
	run_result r;
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, want);
	run_result_free(&r);
}

/* POST /v1/calibrate `body`: 422 at /idle_power_w, saying `want`. */
static void
http_refused(CURL *h, const char *body, const char *want)
{
	http_reply r;
	memset(&r, 0, sizeof r);
	http_post_json(h, url("/v1/calibrate"), body, &r);
	CHECK_INT(r.status, 422);
	const char *field = http_error_str(&r, "field"), *msg = http_error_str(&r, "message");
	CHECK(field && strcmp(field, "/idle_power_w") == 0);
	CHECK_CONTAINS(msg ? msg : "", want);
	if (r.status != 422 || !field || strcmp(field, "/idle_power_w") != 0)
		fprintf(stderr, "  answer: %.300s\n", r.body ? r.body : "");
	http_reply_free(&r);
}

int
main(void)
{
	char *dir = test_tmpdir("calibrate_given_idle"), *tmp = path_join(dir, "tmp");
	char *runs = path_join(dir, "runs.csv"), *cli = path_join(dir, "cli.json");
	char *l40 = path_join(dir, "rl2.csv");
	double w[2];
	char csv[512], body[1024];
	CHECK_INT(mkdir(tmp, 0700), 0);
	setenv("TMPDIR", tmp, 1);
	for (int i = 0; i < 2; i++)
		w[i] = test_term_power("H100", "Qwen3-8B", SHIFT, loads[i], IDLE_W);
	snprintf(csv, sizeof csv,
	         "run_id,platform,tp,model,running,mean_power_w\n"
	         "a,H100,1,Qwen/Qwen3-8B,%g,%.9g\nb,H100,1,Qwen/Qwen3-8B,%g,%.9g\n", loads[0], w[0], loads[1], w[1]);
	CHECK_INT(write_text(runs, csv), 0);
	CHECK_INT(write_text(l40, "run_id,platform,tp,model,running,mean_power_w\n"
	                          "l1,L40S,1,Qwen3-8B,8,420\nl2,L40S,1,Qwen3-8B,64,440\n"), 0);

	/* model scope: the runs fitted above the idle given, recorded */
	const char *cm[] = { "wattcast", "calibrate", "--profile", "paper", runs, "--idle-power", "150", "-o", cli,
		             "--bootstrap", "0", "--seed", "7", NULL };
	test_run_ok(cm);
	json_t *c = json_load_file(cli, 0, NULL);
	CHECK(c != NULL);
	if (c)
		check_term(c, w, "cli.json");

	/* the bound, on the flag */
	const char *big[] = { "wattcast", "calibrate", "--profile", "paper", runs, "--idle-power", "750", "-o", cli,
		              NULL };
	cli_refused(big, "--idle-power: 750 W per GPU is not below H100's board limit of 700 W");
	const char *lv[] = { "wattcast", "calibrate", "--profile", "paper", "--scope", "platform", l40, "--idle-power",
		             "400", "-o", cli, "--quiet", NULL };
	cli_refused(lv, "--idle-power: 400 W per GPU is not below L40S's board limit of 350 W");

	/* POST /v1/calibrate: the same term, the same bound at /idle_power_w */
	wc_params base = WC_PARAMS_INIT;
	wc_params_default(&base);
	curl_global_init(CURL_GLOBAL_DEFAULT);
	CURL *h = curl_easy_init();
	wc_server *srv = http_server_start(&base, "paper", 2);
	if (srv) {
		static const char *const fmt =
			"{\"bootstrap\":0,\"seed\":7,\"idle_power_w\":%g,\"runs\":["
			"{\"run_id\":\"a\",\"platform\":\"H100\",\"tp\":1,\"model\":\"Qwen/Qwen3-8B\",\"running\":%g,"
			"\"mean_power_w\":%.9g},"
			"{\"run_id\":\"b\",\"platform\":\"H100\",\"tp\":1,\"model\":\"Qwen/Qwen3-8B\",\"running\":%g,"
			"\"mean_power_w\":%.9g}]}";
		http_reply r;
		memset(&r, 0, sizeof r);
		snprintf(body, sizeof body, fmt, IDLE_W, loads[0], w[0], loads[1], w[1]);
		http_post_json(h, url("/v1/calibrate"), body, &r);
		CHECK_INT(r.status, 200);
		if (r.status != 200)
			fprintf(stderr, "  answer: %.300s\n", r.body ? r.body : "");
		const json_t *params = json_object_get(r.json, "params");
		CHECK(params != NULL);
		if (params && c) {
			CHECK(json_equal(test_model_term(params, 0), test_model_term(c, 0)));
			check_term(params, w, "POST /v1/calibrate");
		}
		http_reply_free(&r);
		snprintf(body, sizeof body, fmt, 750.0, loads[0], w[0], loads[1], w[1]);
		http_refused(h, body, "idle_power_w: 750 W per GPU is not below H100's board limit of 700 W");
		http_refused(h,
		             "{\"scope\":\"platform\",\"idle_power_w\":400,\"runs\":["
		             "{\"run_id\":\"l1\",\"platform\":\"L40S\",\"tp\":1,\"model\":\"Qwen3-8B\",\"running\":8,"
		             "\"mean_power_w\":420},"
		             "{\"run_id\":\"l2\",\"platform\":\"L40S\",\"tp\":1,\"model\":\"Qwen3-8B\",\"running\":64,"
		             "\"mean_power_w\":440}]}",
		             "idle_power_w: 400 W per GPU is not below L40S's board limit of 350 W");
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
	return check_report("test_server_calibrate_given_idle");
}
