/*
 * A POST /v1/calibrate run can carry the n(t) series a runs table's
 * n_series names (running_series + dt_s, read as /v1/predict/inference
 * reads them), and then the route calibrates it as the CLI does: the same
 * shifts and the same row hashes (docs/http-api.md, "POST /v1/calibrate";
 * docs/validation.md, "Frozen-law accuracy"). An item could carry only
 * the series' mean `running`, so the route calibrated at the mean where
 * the CLI averaged the law over the series: on four powertrace-sim Qwen3-8B
 * runs the shifts were A100 -0.405, H100 -0.041 against the CLI's
 * -0.035, +0.311. The runs state no active_params_b: both routes take the
 * catalog's size of the model name, and the hashes cover that size.
 * Refusals of a bad series name the run's field.
 */
#include "data/data.h"
#include "models/models.h"
#include "server/server.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

#include <math.h>
#include <sys/stat.h>

/* Two Qwen3-8B runs on H100 loaded by series far from their means'
 * law (2 and 60 running), and one at a stated mean; no active size. */
#define CSV                                                                                                \
	"run_id,platform,tp,model,running,n_series,mean_power_w,idle_power_w\n"                            \
	"a,H100,1,Qwen3-8B,21,a.series,430,70\n"                                                           \
	"b,H100,1,Qwen3-8B,,b.series,505.5,70\n"                                                           \
	"c,H100,1,Qwen3-8B,16,,470.25,70\n"
#define A_SERIES "t_s,running\n0,2\n0.1,2\n0.2,60\n0.3,2\n0.4,60\n0.5,2\n"
#define B_SERIES "t_s,running\n0,4\n0.1,64\n0.2,64\n0.3,4\n"
#define ITEM(id, load, w)                                                                                  \
	"{\"run_id\":\"" id "\",\"platform\":\"H100\",\"tp\":1,\"model\":\"Qwen3-8B\"," load                \
	",\"mean_power_w\":" w ",\"idle_power_w\":70}"
#define BODY                                                                                               \
	"{\"bootstrap\":0,\"seed\":7,\"runs\":["                                                             \
	ITEM("a", "\"running\":21,\"running_series\":[2,2,60,2,60,2],\"dt_s\":0.1", "430") ","              \
	ITEM("b", "\"running_series\":[4,64,64,4],\"dt_s\":0.1", "505.5") ","                               \
	ITEM("c", "\"running\":16", "470.25") "]}"

static const json_t *
calibration(const json_t *params, const char *key)
{
	return json_object_get(json_object_get(json_object_get(params, "provenance"), "calibration"), key);
}

static double
shift(const json_t *params)
{
	const json_t *t = json_array_get(json_object_get(params, "model_terms"), 0);
	return json_number_value(json_object_get(json_object_get(t, "shift"), "value"));
}

/* A refused body: 422 naming `field`. */
static void
expect_refused(CURL *h, const char *body, const char *field)
{
	http_reply r;
	memset(&r, 0, sizeof r);
	http_post_json(h, url("/v1/calibrate"), body, &r);
	CHECK_INT(r.status, 422);
	const char *got = json_string_value(json_object_get(json_object_get(r.json, "error"), "field"));
	CHECK(got && strcmp(got, field) == 0);
	if (!got || strcmp(got, field) != 0)
		fprintf(stderr, "  field %s, want %s: %.200s\n", got ? got : "-", field, r.body ? r.body : "");
	http_reply_free(&r);
}

int
main(void)
{
	char *dir = test_tmpdir("calibrate_series"), *tmp = path_join(dir, "tmp");
	char *bpath = path_join(dir, "base.json"), *runs = path_join(dir, "runs.csv"), *as = path_join(dir, "a.series"),
	     *bs = path_join(dir, "b.series"), *cli = path_join(dir, "cli.json");
	wc_params base;
	wc_error err;
	CHECK_INT(mkdir(tmp, 0700), 0);
	setenv("TMPDIR", tmp, 1);
	test_drawn_params(&base);
	CHECK_INT(wc_params_save_file(bpath, &base, &err), WC_OK);
	CHECK_INT(write_text(as, A_SERIES), 0);
	CHECK_INT(write_text(bs, B_SERIES), 0);
	CHECK_INT(write_text(runs, CSV), 0);
	const char *cm[] = { "wattcast", "calibrate", "--params", bpath, runs, "-o", cli, "--bootstrap", "0", "--seed",
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
	json_t *c = json_load_file(cli, 0, NULL);

	/* the same shift: the series' steps differ in their last bits only */
	double sc = shift(c), sh = shift(params);
	CHECK(isfinite(sc) && isfinite(sh) && fabs(sc - sh) <= 1e-9 * (1 + fabs(sc)));
	if (!(fabs(sc - sh) <= 1e-9 * (1 + fabs(sc))))
		fprintf(stderr, "  shift: cli %.17g, http %.17g\n", sc, sh);
	/* the same rows, by content */
	const json_t *hc = calibration(c, "row_hashes"), *hh = calibration(params, "row_hashes");
	CHECK(json_array_size(hc) == 3);
	CHECK(hc && hh && json_equal(hc, hh));
	if (!hc || !hh || !json_equal(hc, hh)) {
		char *x = hc ? json_dumps(hc, JSON_COMPACT) : NULL, *y = hh ? json_dumps(hh, JSON_COMPACT) : NULL;
		fprintf(stderr, "  cli %s\n  http %s\n", x ? x : "-", y ? y : "-");
		free(x);
		free(y);
	}

	/* the hash covers the series the calibration reads, not only the
	 * mean `running` it then ignores: two runs of one stated mean, loaded
	 * differently, are two rows */
	wc_run x, y;
	double n1[] = { 20, 20 }, n2[] = { 2, 38 };
	wc_run_init(&x);
	snprintf(x.platform, sizeof x.platform, "H100");
	snprintf(x.model, sizeof x.model, "Qwen3-8B");
	x.active_params_b = 8.19;
	x.running = 20;
	x.mean_power_w = 450;
	y = x;
	CHECK_INT(wc_load_histogram_build(n1, NULL, 1.0, 2, &x.series, NULL), WC_OK);
	CHECK_INT(wc_load_histogram_build(n2, NULL, 1.0, 2, &y.series, NULL), WC_OK);
	CHECK(wc_run_content_hash(&x) != wc_run_content_hash(&y));
	wc_load_histogram_free(&x.series);
	wc_load_histogram_free(&y.series);

	/* a bad series is refused at the run's field */
	if (srv) {
		expect_refused(h, "{\"runs\":[" ITEM("a", "\"running_series\":[2,-1],\"dt_s\":0.1", "430") "]}",
		               "/runs/0/running_series/1");
		expect_refused(h, "{\"runs\":[" ITEM("a", "\"running_series\":[2,3]", "430") "]}", "/runs/0/dt_s");
		expect_refused(h, "{\"runs\":[" ITEM("a", "\"running\":2,\"dt_s\":0.1", "430") "]}", "/runs/0/dt_s");
		expect_refused(h, "{\"runs\":[" ITEM("a", "\"running_series\":[],\"dt_s\":0.1", "430") "]}",
		               "/runs/0/running_series");
		expect_refused(h, "{\"runs\":[" ITEM("a", "\"weights\":\"bf16\"", "430") "]}", "/runs/0/running");
		{ /* the message names the series too, the other way to give the load */
			http_reply no_load;
			memset(&no_load, 0, sizeof no_load);
			http_post_json(h, url("/v1/calibrate"), "{\"runs\":[" ITEM("a", "\"weights\":\"bf16\"", "430") "]}",
			               &no_load);
			const char *m = json_string_value(json_object_get(json_object_get(no_load.json, "error"), "message"));
			CHECK(m && strstr(m, "runs/0/running: required (or running_series with dt_s") != NULL);
			http_reply_free(&no_load);
		}
	}

	json_decref(c);
	http_reply_free(&r);
	if (srv)
		wc_server_stop(srv);
	curl_easy_cleanup(h);
	wc_params_clear(&base);
	free(tmp);
	free(bpath);
	free(runs);
	free(as);
	free(bs);
	free(cli);
	free(dir);
	return check_report("test_server_calibrate_series");
}
