/*
 * The scatter of one run a calibration takes (--run-scatter, the body's
 * run_scatter; docs/calibration.md "Intervals: ...", models/limits.h): below
 * what the optimiser resolves it was taken and went wrong silently:
 * 1e-320 gave a shift of exactly 0 with no interval while the file said
 * "1000 draws", 1e-300 "did not converge" (exit 1; over HTTP a 422 naming
 * no field). Now a scatter outside WC_RUN_SCATTER_MIN..MAX is refused
 * with that range, naming --run-scatter (calibrate, validate fewshot) or
 * /run_scatter, and the least one taken gives a shift with an interval.
 * A base file's provenance.residual_rms, the scatter taken without the
 * flag, is at most the range's top at load (/provenance/residual_rms);
 * below its floor (a perfect fit's) calibrate takes the floor.
 */
#include "data/data.h"
#include "models/limits.h"
#include "models/models.h"
#include "server/server.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define SHIFT 0.3
static const double loads[2] = { 4.0, 16.0 };

static void
cli_refused(const char *const *argv, const char *value)
{
	char want[128];
	snprintf(want, sizeof want, "--run-scatter: must be between %g and %g, got '%s'", WC_RUN_SCATTER_MIN,
	         WC_RUN_SCATTER_MAX, value);
	run_result r;
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	CHECK_INT(r.status, 2);
	CHECK_CONTAINS(r.err, want);
	run_result_free(&r);
}

static void
http_refused(CURL *h, const char *runs, const char *value)
{
	char body[1024];
	snprintf(body, sizeof body, "{\"bootstrap\":50,\"seed\":7,\"run_scatter\":%s,\"runs\":%s}", value, runs);
	http_reply r;
	memset(&r, 0, sizeof r);
	http_post_json(h, url("/v1/calibrate"), body, &r);
	CHECK_INT(r.status, 422);
	const char *field = http_error_str(&r, "field"), *msg = http_error_str(&r, "message");
	CHECK(field && strcmp(field, "/run_scatter") == 0);
	CHECK_CONTAINS(msg ? msg : "", "run_scatter: must be >= 1e-07 and at most 10");
	if (r.status != 422 || !field || strcmp(field, "/run_scatter") != 0)
		fprintf(stderr, "  %s: %.300s\n", value, r.body ? r.body : "");
	http_reply_free(&r);
}

int
main(void)
{
	char *dir = test_tmpdir("calibrate_run_scatter"), *tmp = path_join(dir, "tmp");
	char *runs = path_join(dir, "runs.csv"), *cli = path_join(dir, "cli.json");
	double w[2];
	char csv[512], json_runs[512];
	CHECK_INT(mkdir(tmp, 0700), 0);
	setenv("TMPDIR", tmp, 1);
	for (int i = 0; i < 2; i++)
		w[i] = test_term_power("H100", "Qwen3-8B", SHIFT, loads[i], 0);
	snprintf(csv, sizeof csv,
	         "run_id,platform,tp,model,running,mean_power_w\n"
	         "a,H100,1,Qwen/Qwen3-8B,%g,%.9g\nb,H100,1,Qwen/Qwen3-8B,%g,%.9g\n", loads[0], w[0], loads[1], w[1]);
	CHECK_INT(write_text(runs, csv), 0);
	snprintf(json_runs, sizeof json_runs,
	         "[{\"run_id\":\"a\",\"platform\":\"H100\",\"tp\":1,\"model\":\"Qwen/Qwen3-8B\",\"running\":%g,"
	         "\"mean_power_w\":%.9g},{\"run_id\":\"b\",\"platform\":\"H100\",\"tp\":1,\"model\":\"Qwen/Qwen3-8B\","
	         "\"running\":%g,\"mean_power_w\":%.9g}]",
	         loads[0], w[0], loads[1], w[1]);

	/* too small for the optimiser, or past any scatter: refused with the range */
	static const char *const bad[] = { "1e-320", "1e-300", "1e-8", "0", "11", "1e999" };
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		const char *cal[] = { "wattcast", "calibrate", "--profile", "paper", runs, "-o", cli, "--quiet",
			              "--bootstrap", "50", "--run-scatter", bad[i], NULL };
		cli_refused(cal, bad[i]);
		const char *few[] = { "wattcast", "validate", "fewshot", runs, "--run-scatter", bad[i], NULL };
		cli_refused(few, bad[i]);
	}

	/* a base file's provenance.residual_rms is the scatter taken without
	 * --run-scatter: over the range's top it is refused at load, naming
	 * its path, before any solve (50 was taken silently); below its floor
	 * (1e-300 "did not converge") the floor is taken and the shift comes
	 * with an interval */
	static const char *const bad_rms[] = { "1e-300", "50" };
	char *base_file = path_join(dir, "base.json");
	for (size_t i = 0; i < sizeof bad_rms / sizeof *bad_rms; i++) {
		wc_params pb = WC_PARAMS_INIT;
		wc_params_default(&pb);
		char *txt = wc_params_dump(&pb, 1, NULL);
		wc_params_clear(&pb);
		json_t *root = txt ? json_loads(txt, 0, NULL) : NULL;
		free(txt);
		json_object_set_new(json_object_get(root, "provenance"), "residual_rms",
		                    json_real(strtod(bad_rms[i], NULL)));
		CHECK_INT(json_dump_file(root, base_file, 0), 0);
		json_decref(root);
		const char *cal[] = { "wattcast", "calibrate", "--params", base_file, runs, "-o", cli, "--quiet",
			              "--bootstrap", "50", NULL };
		char want[160];
		snprintf(want, sizeof want, "/provenance/residual_rms: %s is outside the documented range [0, %g]",
		         bad_rms[i], WC_RUN_SCATTER_MAX);
		run_result r;
		CHECK_INT(run_wattcast(cal, NULL, &r), 0);
		CHECK_INT(r.status, i == 0 ? 0 : 1);
		if (i > 0)
			CHECK_CONTAINS(r.err, want);
		CHECK(strstr(r.err, "converge") == NULL);
		run_result_free(&r);
	}
	free(base_file);

	/* the least taken: the shift with an interval around it, not 0 */
	char least[32];
	snprintf(least, sizeof least, "%g", WC_RUN_SCATTER_MIN);
	const char *ok[] = { "wattcast", "calibrate", "--profile", "paper", runs, "-o", cli, "--quiet",
		             "--bootstrap", "50", "--seed", "7", "--run-scatter", least, NULL };
	test_run_ok(ok);
	json_t *c = json_load_file(cli, 0, NULL);
	const json_t *shift = json_object_get(test_model_term(c, 0), "shift");
	const json_t *ci = json_object_get(shift, "ci95");
	double v = json_number_value(json_object_get(shift, "value"));
	CHECK(fabs(v - SHIFT) < 0.01);
	CHECK(json_array_size(ci) == 2);
	CHECK(json_number_value(json_array_get(ci, 0)) <= v && v <= json_number_value(json_array_get(ci, 1)));
	if (!(fabs(v - SHIFT) < 0.01))
		fprintf(stderr, "  shift at run scatter %s: %g, not %g\n", least, v, SHIFT);
	json_decref(c);

	/* POST /v1/calibrate: the same range, at /run_scatter */
	wc_params base = WC_PARAMS_INIT;
	wc_params_default(&base);
	curl_global_init(CURL_GLOBAL_DEFAULT);
	CURL *h = curl_easy_init();
	/* its calibrate worker is the wattcast the harness built */
	wc_server *srv = http_server_start(&base, "paper", 2);
	if (srv) {
		http_refused(h, json_runs, "1e-300");
		http_refused(h, json_runs, "1e-8");
		http_refused(h, json_runs, "11");
		wc_server_stop(srv);
	}
	curl_easy_cleanup(h);
	wc_params_clear(&base);
	free(tmp);
	free(runs);
	free(cli);
	free(dir);
	return check_report("test_server_calibrate_run_scatter");
}
