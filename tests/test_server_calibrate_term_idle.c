/*
 * A model-scope calibration fits its shift above each run's measured idle
 * (docs/calibration.md, "The estimate"), and the term records that idle
 * (model_terms/p0_w), which answers naming the model on the level take as
 * P0. Before, the term kept only the shift and answers took the base's
 * P0: two H100 runs with a measured idle of 132.06 W were predicted at
 * 367.3 and 369.4 W for the 372.0 and 376.0 W they drew (126.3 W, the
 * paper profile's P0, in place of the idle the shift stood on).
 *
 * Runs drawn from the paper law with a shift of 0.3 at an idle of 150 W
 * (not the base's 126.3 W): the CLI and POST /v1/calibrate record the
 * same shift and idle, and the calibrated set predicts the runs, without
 * being told their idle, within 0.5 %. The same runs drawn at the base's
 * P0 and calibrated without an idle column keep the base's P0: no p0_w.
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

static double
term_value(const json_t *params, const char *key)
{
	const json_t *v = json_object_get(json_object_get(test_model_term(params, 0), key), "value");
	return v ? json_number_value(v) : NAN;
}

/* The calibrated set answers each run, named by model and without its
 * idle, within 0.5 % of what it drew, with `idle_w` as its idle. */
static void
check_answers(const json_t *params, const double *measured, double idle_w, const char *what)
{
	char *text = json_dumps(params, JSON_COMPACT);
	wc_params p = WC_PARAMS_INIT;
	wc_error err;
	CHECK(text != NULL);
	CHECK_INT(wc_params_load_buffer(text ? text : "", text ? strlen(text) : 0, what, &p, &err), WC_OK);
	for (int i = 0; i < 2 && p.n_levels; i++) {
		wc_power pw;
		wc_config c = test_catalog_config("H100", 1, "Qwen3-8B", loads[i]);
		CHECK_INT(wc_law_power(&p, &c, &pw, &err), WC_OK);
		double e = 100.0 * (pw.node_power_w / measured[i] - 1.0);
		CHECK(fabs(e) < 0.5);
		CHECK(fabs(pw.idle_power_w - idle_w) < 1e-6);
		if (!(fabs(e) < 0.5) || !(fabs(pw.idle_power_w - idle_w) < 1e-6))
			fprintf(stderr, "  %s at %g running: %.2f W (idle %.2f W) for %.2f W measured (idle %.2f W)\n",
			        what, loads[i], pw.node_power_w, pw.idle_power_w, measured[i], idle_w);
	}
	wc_params_clear(&p);
	free(text);
}

int
main(void)
{
	char *dir = test_tmpdir("calibrate_term_idle"), *tmp = path_join(dir, "tmp");
	char *runs = path_join(dir, "runs.csv"), *cli = path_join(dir, "cli.json");
	char *runs0 = path_join(dir, "noidle.csv"), *cli0 = path_join(dir, "noidle.json");
	double w[2], w0[2];
	char csv[512], csv0[512], body[1024];
	CHECK_INT(mkdir(tmp, 0700), 0);
	setenv("TMPDIR", tmp, 1);
	for (int i = 0; i < 2; i++) {
		w[i] = test_term_power("H100", "Qwen3-8B", SHIFT, loads[i], IDLE_W);
		w0[i] = test_term_power("H100", "Qwen3-8B", SHIFT, loads[i], 0.0);
	}
	snprintf(csv, sizeof csv,
	         "run_id,platform,tp,model,running,mean_power_w,idle_power_w\n"
	         "a,H100,1,Qwen/Qwen3-8B,%g,%.9g,%g\nb,H100,1,Qwen/Qwen3-8B,%g,%.9g,%g\n",
	         loads[0], w[0], IDLE_W, loads[1], w[1], IDLE_W);
	snprintf(csv0, sizeof csv0,
	         "run_id,platform,tp,model,running,mean_power_w\n"
	         "a,H100,1,Qwen/Qwen3-8B,%g,%.9g\nb,H100,1,Qwen/Qwen3-8B,%g,%.9g\n",
	         loads[0], w0[0], loads[1], w0[1]);
	snprintf(body, sizeof body,
	         "{\"bootstrap\":0,\"seed\":7,\"runs\":["
	         "{\"run_id\":\"a\",\"platform\":\"H100\",\"tp\":1,\"model\":\"Qwen/Qwen3-8B\",\"running\":%g,"
	         "\"mean_power_w\":%.9g,\"idle_power_w\":%g},"
	         "{\"run_id\":\"b\",\"platform\":\"H100\",\"tp\":1,\"model\":\"Qwen/Qwen3-8B\",\"running\":%g,"
	         "\"mean_power_w\":%.9g,\"idle_power_w\":%g}]}",
	         loads[0], w[0], IDLE_W, loads[1], w[1], IDLE_W);
	CHECK_INT(write_text(runs, csv), 0);
	CHECK_INT(write_text(runs0, csv0), 0);
	const char *cm[] = { "wattcast", "calibrate", "--profile", "paper", runs, "-o", cli, "--bootstrap", "0",
		             "--seed", "7", NULL };
	test_run_ok(cm);
	const char *cm0[] = { "wattcast", "calibrate", "--profile", "paper", runs0, "-o", cli0, "--bootstrap", "0",
		              "--seed", "7", NULL };
	test_run_ok(cm0);

	/* the CLI: the term records the runs' idle, measured */
	json_t *c = json_load_file(cli, 0, NULL), *c0 = json_load_file(cli0, 0, NULL);
	CHECK(c != NULL && c0 != NULL);
	CHECK(fabs(term_value(c, "p0_w") - IDLE_W) < 1e-9);
	const json_t *p0 = json_object_get(test_model_term(c, 0), "p0_w");
	const char *src = json_string_value(json_object_get(p0, "source"));
	CHECK(src && strcmp(src, "measured") == 0);
	CHECK(fabs(term_value(c, "shift") - SHIFT) < 0.01);
	check_answers(c, w, IDLE_W, "cli.json");
	/* p0_w is schema 13's: a /12 file carrying it is refused, naming it */
	{
		char *text = test_replaced(test_slurp(cli), "\"wattcast.params/19\"", "\"wattcast.params/12\"");
		wc_params old = WC_PARAMS_INIT;
		wc_error e;
		CHECK(wc_params_load_buffer(text, strlen(text), "v12.json", &old, &e) != WC_OK);
		CHECK(strstr(e.msg, "/model_terms/0/p0_w: needs \"wattcast.params/13\"") != NULL);
		if (!strstr(e.msg, "/model_terms/0/p0_w"))
			fprintf(stderr, "  /12 file: %s\n", e.msg);
		wc_params_clear(&old);
		free(text);
	}
	/* without an idle column: the base's P0 (126.3 W), no p0_w, as before */
	CHECK(json_object_get(test_model_term(c0, 0), "p0_w") == NULL);
	CHECK(fabs(term_value(c0, "shift") - SHIFT) < 0.01);
	check_answers(c0, w0, 126.3, "noidle.json");

	/* POST /v1/calibrate: the same term */
	wc_params base = WC_PARAMS_INIT;
	wc_params_default(&base);
	curl_global_init(CURL_GLOBAL_DEFAULT);
	CURL *h = curl_easy_init();
	wc_server *srv = http_server_start(&base, "paper", 2);
	http_reply r;
	memset(&r, 0, sizeof r);
	if (srv) {
		http_post_json(h, url("/v1/calibrate"), body, &r);
	}
	CHECK_INT(r.status, 200);
	if (r.status != 200)
		fprintf(stderr, "  answer: %.300s\n", r.body ? r.body : "");
	const json_t *params = json_object_get(r.json, "params");
	CHECK(params != NULL);
	if (params && c) {
		CHECK(json_equal(test_model_term(params, 0), test_model_term(c, 0)));
		check_answers(params, w, IDLE_W, "POST /v1/calibrate");
	}

	json_decref(c);
	json_decref(c0);
	http_reply_free(&r);
	if (srv)
		wc_server_stop(srv);
	curl_easy_cleanup(h);
	wc_params_clear(&base);
	free(tmp);
	free(runs);
	free(cli);
	free(runs0);
	free(cli0);
	free(dir);
	return check_report("test_server_calibrate_term_idle");
}
