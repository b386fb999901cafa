/*
 * POST /v1/calibrate keeps a model name whole, up to the 95 bytes a run's
 * `model` may have (docs/calibration.md, "Model scope"; models/limits.h,
 * WC_MODEL_NAME_MAX and WC_LABEL_MAX), as `wattcast calibrate` does
 * (tests/test_calibrate_long_names.c):
 *  - a 95-byte ASCII name and a 95-byte CJK one each give one estimate
 *    labelled shift[NAME@A100] and `params` that load again, whose term
 *    `predict --model NAME` finds;
 *  - two names that differ only after byte 47 give two estimates;
 *  - 96 bytes are 422 invalid_value naming the field and the limit: in a
 *    run, as the option `model`, and as a model of one's own in
 *    POST /v1/predict/inference.
 */
#include "data/data.h"
#include "models/models.h"
#include "models/profile_measured.h"
#include "server/server.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static CURL *h;
static char *dir;

/* A body of four A100 runs, the first two of model `a`, the others of `b`
 * at `scale` times the power; `extra` is spliced in before "runs". */
static char *
body_of(const char *a, const char *b, double scale, const char *extra)
{
	static const double running[4] = { 5.98333333333, 12.63, 11.1, 10.677852349 };
	static const double power[4] = { 238.941533885, 308.249473288, 324.377363622, 303.73032469 };
	json_t *runs = json_array();
	for (int i = 0; i < 4; i++)
		json_array_append_new(runs, json_pack("{s:s,s:i,s:s,s:f,s:f,s:f,s:f}", "platform", "A100", "tp", 1, "model",
		                                      i < 2 ? a : b, "active_params_b", 8.19, "running", running[i],
		                                      "mean_power_w", i < 2 ? power[i] : power[i] * scale,
		                                      "idle_power_w", 82.04));
	json_t *body = json_pack("{s:o,s:i,s:i}", "runs", runs, "bootstrap", 50, "seed", 3);
	if (extra) {
		json_t *more = json_loads(extra, 0, NULL);
		CHECK(more != NULL);
		json_object_update(body, more);
		json_decref(more);
	}
	char *text = json_dumps(body, JSON_COMPACT);
	json_decref(body);
	return text;
}

static int
estimate_named(const http_reply *r, const char *label)
{
	const json_t *est = json_object_get(r->json, "estimates");
	for (size_t i = 0; i < json_array_size(est); i++) {
		const char *s = json_string_value(json_object_get(json_array_get(est, i), "parameter"));
		if (s && strcmp(s, label) == 0)
			return 1;
	}
	return 0;
}

static void
round_trip(const char *tag, const char *name)
{
	char *body = body_of(name, name, 1.0, NULL), label[WC_LABEL_MAX], file[64];
	http_reply r;
	http_post_json(h, url("/v1/calibrate"), body, &r);
	CHECK_INT(r.status, 200);
	snprintf(label, sizeof label, "shift[%s@A100]", name);
	CHECK_INT((int)json_array_size(json_object_get(r.json, "estimates")), 1);
	CHECK(estimate_named(&r, label));
	const json_t *params = json_object_get(r.json, "params");
	char *text = params ? json_dumps(params, JSON_REAL_PRECISION(17)) : NULL;
	wc_params p = WC_PARAMS_INIT;
	wc_error err;
	CHECK(text && wc_params_load_buffer(text, strlen(text), "answer", &p, &err) == WC_OK);
	CHECK(p.n_model_terms == 1 && strcmp(p.model_terms[0].model, name) == 0);
	CHECK_INT(p.n_draws, 50);
	if (r.status != 200 || p.n_model_terms != 1)
		fprintf(stderr, "  %s: %ld %.400s\n", tag, r.status, r.body ? r.body : "");

	/* the answer's params predict with the term */
	snprintf(file, sizeof file, "%s.json", tag);
	char *path = test_fixture(dir, file, text ? text : "");
	const char *pred[] = { "wattcast", "predict", "inference", "--params", path, "--platform", "A100", "--model",
		               name, "--active-params", "8.19", "--concurrency", "8", NULL };
	run_result pr;
	CHECK_INT(run_wattcast(pred, NULL, &pr), 0);
	CHECK_INT(pr.status, 0);
	CHECK(pr.out && !strstr(pr.out, "no model term"));
	run_result_free(&pr);
	free(path);
	wc_params_clear(&p);
	free(text);
	http_reply_free(&r);
	free(body);
}

static void
test_whole_names(void)
{
	char ascii[96], cjk[96] = "";
	memset(ascii, 'm', 95);
	ascii[95] = '\0';
	for (int i = 0; i < 31; i++)
		strcat(cjk, "模");
	strcat(cjk, "xy");
	round_trip("ascii95", ascii);
	round_trip("cjk95", cjk);
}

static void
test_late_difference(void)
{
	char a[64], b[64], la[WC_LABEL_MAX], lb[WC_LABEL_MAX];
	memset(a, 'x', 47);
	memcpy(b, a, 47);
	snprintf(a + 47, sizeof a - 47, "-alpha");
	snprintf(b + 47, sizeof b - 47, "-beta");
	char *body = body_of(a, b, 0.7, NULL);
	http_reply r;
	http_post_json(h, url("/v1/calibrate"), body, &r);
	CHECK_INT(r.status, 200);
	snprintf(la, sizeof la, "shift[%s@A100]", a);
	snprintf(lb, sizeof lb, "shift[%s@A100]", b);
	CHECK_INT((int)json_array_size(json_object_get(r.json, "estimates")), 2);
	CHECK(estimate_named(&r, la) && estimate_named(&r, lb));
	http_reply_free(&r);
	free(body);
}

static void
test_too_long(void)
{
	char name[97], extra[160];
	memset(name, 'm', 96);
	name[96] = '\0';
	char *body = body_of(name, name, 1.0, NULL);
	http_expect_error(h, "POST", "/v1/calibrate", "application/json", body, 422, "invalid_value", "/runs/0/model");
	http_reply r;
	http_post_json(h, url("/v1/calibrate"), body, &r);
	CHECK_CONTAINS(http_error_str(&r, "message") ? http_error_str(&r, "message") : "",
	               "runs/0/model: expected at most 95 bytes, got 96");
	http_reply_free(&r);
	free(body);

	snprintf(extra, sizeof extra, "{\"model\":\"%s\"}", name);
	body = body_of("m", "m", 1.0, extra);
	http_expect_error(h, "POST", "/v1/calibrate", "application/json", body, 422, "invalid_value", "/model");
	free(body);

	char pred[256];
	snprintf(pred, sizeof pred,
	         "{\"platform\":\"A100\",\"model\":\"%s\",\"active_params_b\":8.19,\"concurrency\":8}", name);
	http_expect_error(h, "POST", "/v1/predict/inference", "application/json", pred, 422, "invalid_value", "/model");
	http_post_json(h, url("/v1/predict/inference"), pred, &r);
	CHECK_CONTAINS(http_error_str(&r, "message") ? http_error_str(&r, "message") : "",
	               "model: 96 bytes, more than the 95 a model name may have");
	http_reply_free(&r);
}

int
main(void)
{
	wc_params base = WC_PARAMS_INIT;
	dir = test_tmpdir("server_calibrate_long_names");
	char *tmp = path_join(dir, "tmp");
	CHECK_INT(mkdir(tmp, 0700), 0);
	setenv("TMPDIR", tmp, 1); /* where the route makes its private folders */
	curl_global_init(CURL_GLOBAL_DEFAULT);
	h = curl_easy_init();
	wc_params_measured(&base);
	wc_server *srv = http_server_start(&base, "measured", 4);
	if (srv) {
		test_whole_names();
		test_late_difference();
		test_too_long();
		wc_server_stop(srv);
	}
	wc_params_clear(&base);
	curl_easy_cleanup(h);
	curl_global_cleanup();
	free(tmp);
	free(dir);
	return check_report("test_server_calibrate_long_names");
}
