/*
 * An envelope's and a budget plan's interval claim a calibration's draws
 * only where they vary the answer (docs/intervals.md, "Calibrated sets"),
 * by predict's rule. A set calibrated on one run (Nemotron Nano 12B v2 on
 * H100) has draws on that term alone; its A100 level is calibrated too
 * (from the measured profile it is built on), but no draw moves an A100
 * Qwen3-8B answer: predict says `draws` 0 and `held-out error`, while the
 * envelope's and the plan's `covers` said "the calibration's draws and the
 * law's held-out error", over numbers byte for byte those without draws.
 * Now the CLI and HTTP say the law's held-out error alone there, and
 * still name the draws for the calibrated H100 Nemotron answer.
 */
#include "data/params_file.h"
#include "server/server.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

static const char runs_csv[] =
	"run_id,platform,tp,model,active_params_b,running,mean_power_w\n"
	"cal-nemotron-32,H100,1,nvidia/NVIDIA-Nemotron-Nano-12B-v2,12,31.7689243028,559.59182404\n";

static const char *
covers_at(const json_t *o, const char *a, const char *b)
{
	const json_t *v = json_object_get(json_object_get(json_object_get(o, a), b), "covers");
	CHECK(json_is_string(v));
	return json_is_string(v) ? json_string_value(v) : "";
}

/* `covers` names the calibration's draws exactly when `drawn`. */
static void
expect_covers(const char *what, const char *covers, int drawn)
{
	const int says = strstr(covers, "the calibration's draws") != NULL;
	if (says != drawn)
		fprintf(stderr, "%s: covers \"%s\", expected %s the draws\n", what, covers, drawn ? "with" : "without");
	CHECK_INT(says, drawn);
	CHECK_CONTAINS(covers, "the law's held-out error of mean power");
}

static json_t *
cli_json(const char *const *argv)
{
	run_result r;
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	json_t *j = json_loads(r.out ? r.out : "", 0, NULL);
	if (!j)
		fprintf(stderr, "%s\n", r.err ? r.err : "");
	CHECK(j != NULL);
	run_result_free(&r);
	return j ? j : json_object();
}

static json_t *
http_json(CURL *h, const char *path, const char *body)
{
	http_reply r;
	http_post_json(h, url(path), body, &r);
	CHECK_INT(r.status, 200);
	if (r.status != 200)
		fprintf(stderr, "%s %s -> %s\n", path, body, r.body ? r.body : "");
	json_t *j = r.json ? json_incref(r.json) : json_object();
	http_reply_free(&r);
	return j;
}

int
main(void)
{
	char *dir = test_tmpdir("envelope_covers_draws");
	char *csv = test_fixture(dir, "runs.csv", runs_csv), *params = path_join(dir, "cal.json");
	const char *cal[] = { "wattcast", "calibrate", "--profile", "measured", csv, "-o", params, "--quiet", NULL };
	test_run_ok(cal);

	static const struct {
		const char *platform, *model;
		int drawn;
	} cases[] = {
		{ "A100", "Qwen3-8B", 0 },                     /* calibrated level, no draw on it */
		{ "H100", "NVIDIA-Nemotron-Nano-12B-v2", 1 }, /* the calibrated term */
	};

	/* the CLI */
	for (size_t i = 0; i < 2; i++) {
		const char *pl = cases[i].platform, *m = cases[i].model;
		const char *pred[] = { "wattcast", "predict", "inference", "--platform", pl, "--model", m, "--concurrency",
			               "12", "--params", params, "--json", NULL };
		json_t *p = cli_json(pred);
		/* predict's own count: the rule the others follow */
		const json_t *d = json_object_get(json_object_get(p, "interval_95"), "draws");
		CHECK_INT(json_integer_value(d) > 0, cases[i].drawn);
		json_decref(p);
		const char *env[] = { "wattcast", "envelope", "--platform", pl, "--model", m, "--poisson", "3",
			              "--horizon", "60", "--replicas", "2", "--params", params, "--json", NULL };
		json_t *e = cli_json(env);
		expect_covers("CLI envelope", covers_at(e, "server", "interval_95"), cases[i].drawn);
		json_decref(e);
		const char *plan[] = { "wattcast", "envelope", "--platform", pl, "--model", m, "--poisson", "3",
			               "--horizon", "60", "--budget", "5000", "--max-fleet", "8", "--params", params,
			               "--json", NULL };
		json_t *b = cli_json(plan);
		expect_covers("CLI plan", covers_at(b, "plan", "stat_interval_95"), cases[i].drawn);
		json_decref(b);
		const char *text[] = { "wattcast", "envelope", "--platform", pl, "--model", m, "--poisson", "3",
			               "--horizon", "60", "--replicas", "2", "--params", params, NULL };
		char *said = test_run_said(text);
		char *line = test_line_with(said ? said : "", "95 % predictive interval (");
		CHECK(line != NULL);
		if (line)
			expect_covers("CLI envelope text", line, cases[i].drawn);
		free(line);
		free(said);
	}

	/* the server */
	wc_params set = WC_PARAMS_INIT;
	wc_error err;
	CHECK_INT(wc_params_load_file(params, &set, &err), WC_OK);
	wc_server *srv = http_server_start(&set, params, 4);
	CURL *h = curl_easy_init();
	for (size_t i = 0; srv && i < 2; i++) {
		char body[512];
		snprintf(body, sizeof body,
		         "{\"platform\":\"%s\",\"model\":\"%s\",\"workload\":{\"type\":\"poisson\",\"rate\":3},"
		         "\"horizon_s\":60,\"replicas\":2,\"include_bins\":false}", cases[i].platform, cases[i].model);
		json_t *e = http_json(h, "/v1/forecast/envelope", body);
		expect_covers("POST /v1/forecast/envelope", covers_at(e, "server", "interval_95"), cases[i].drawn);
		json_decref(e);
		snprintf(body, sizeof body,
		         "{\"platform\":\"%s\",\"model\":\"%s\",\"workload\":{\"type\":\"poisson\",\"rate\":3},"
		         "\"horizon_s\":60,\"budget_w\":5000,\"max_fleet\":8}", cases[i].platform, cases[i].model);
		json_t *b = http_json(h, "/v1/plan/budget", body);
		expect_covers("POST /v1/plan/budget", covers_at(b, "plan", "stat_interval_95"), cases[i].drawn);
		json_decref(b);
	}
	curl_easy_cleanup(h);
	wc_server_stop(srv);
	wc_params_clear(&set);
	free(csv);
	free(params);
	free(dir);
	return check_report("test_server_envelope_covers_draws");
}
