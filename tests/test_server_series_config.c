/*
 * A load series the board's limit binds on says so in its config, as one
 * load does (docs/http-api.md, "The prediction object"; docs/capacity.md,
 * "The board's power limit"). Measured A100, Qwen3-32B: 256 running draws
 * 477.9 W at the free clock and settles at 1131 MHz under the 400 W limit
 * (466.6 W and 1171 MHz until A100's idle was the real runs', 2026-12-07).
 * The series 256, 256 answered 400 W with board_power_limit_w and
 * power_limit_met null and no clock; locked at 1400 MHz it said
 * sm_clock_mhz 1400, a clock that never ran ("the limit lowers the 1400
 * MHz locked there"), and the CLI's header "sm clock 1400 MHz"; under a
 * 300 W cap power_limit_met was null where `concurrency` 256 says true.
 * Now the series' config is the single load's where every step answers at
 * one clock, and names the lowest and highest clock where they differ.
 */
#include "data/data.h"
#include "models/profile_measured.h"
#include "server/server.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* config of POST /v1/predict/inference on A100, Qwen3-32B, tp 1 with `load` (owned by `r`) */
static const json_t *
config_of(CURL *h, const char *load, http_reply *r)
{
	char body[256];
	snprintf(body, sizeof body, "{\"platform\":\"A100\",\"model\":\"Qwen3-32B\",\"tp\":1,%s}", load);
	http_post_json(h, url("/v1/predict/inference"), body, r);
	CHECK_INT(r->status, 200);
	return json_object_get(r->json, "config");
}

static void
check_same(const json_t *a, const json_t *b, const char *key)
{
	const json_t *x = json_object_get(a, key), *y = json_object_get(b, key);
	int same = json_is_real(x) && json_is_real(y) ? fabs(json_real_value(x) - json_real_value(y)) < 1e-6
	                                              : json_equal(x, y);
	CHECK(same);
	if (!same) {
		char *xs = json_dumps(x, JSON_ENCODE_ANY), *ys = json_dumps(y, JSON_ENCODE_ANY);
		fprintf(stderr, "  %s differs: %s vs %s\n", key, xs ? xs : "(absent)", ys ? ys : "(absent)");
		free(xs);
		free(ys);
	}
}

static void
http_config(CURL *h)
{
	http_reply one, ser, lock, capone, capser, mix;
	const json_t *c1 = config_of(h, "\"concurrency\":256", &one);
	const json_t *cs = config_of(h, "\"running_series\":[256,256],\"dt_s\":1", &ser);
	const json_t *cl = config_of(h, "\"running_series\":[256,256],\"dt_s\":1,\"sm_clock_mhz\":1400", &lock);
	CHECK_NEAR(json_real_value(json_object_get(c1, "sm_clock_mhz")), 1131.0, 0.05);
	CHECK(json_is_true(json_object_get(c1, "power_limit_met")));
	const char *keys[] = { "sm_clock_mhz", "board_power_limit_w", "power_limit_met", NULL };
	for (int i = 0; keys[i]; i++) {
		check_same(c1, cs, keys[i]);
		check_same(c1, cl, keys[i]); /* the limit lowers the lock on every step */
	}
	CHECK(json_object_get(cs, "sm_clock_range_mhz") == NULL);
	/* a cap every step exceeds and a clock meets: met, as the single load */
	const json_t *k1 = config_of(h, "\"concurrency\":256,\"power_cap_w\":300", &capone);
	const json_t *ks = config_of(h, "\"running_series\":[256,256],\"dt_s\":1,\"power_cap_w\":300", &capser);
	for (int i = 0; keys[i]; i++)
		check_same(k1, ks, keys[i]);
	CHECK(json_is_true(json_object_get(ks, "power_limit_met")));
	/* steps at different clocks: none named, the range instead, the lock not in it */
	const json_t *cm = config_of(h, "\"running_series\":[32,256],\"dt_s\":1,\"sm_clock_mhz\":1400", &mix);
	CHECK(json_is_null(json_object_get(cm, "sm_clock_mhz")));
	CHECK_NEAR(json_number_value(json_object_get(cm, "board_power_limit_w")), 400, 1e-9);
	const json_t *range = json_object_get(cm, "sm_clock_range_mhz");
	CHECK_INT((int)json_array_size(range), 2);
	CHECK_NEAR(json_number_value(json_array_get(range, 0)), 1131.0, 0.05);
	double top = json_number_value(json_array_get(range, 1));
	CHECK(top > 1131.0 && top < 1400);
	http_reply *all[] = { &one, &ser, &lock, &capone, &capser, &mix };
	for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
		http_reply_free(all[i]);
}

/* The CLI's header names the clock the steps run at, not the lock. */
static void
cli_header(const char *series)
{
	const char *argv[] = { "wattcast", "predict", "inference", "--platform", "A100", "--model", "Qwen3-32B",
		               "--running-series", series, "--sm-clock", "1400", NULL };
	run_result r;
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	const char *out = r.out ? r.out : "";
	CHECK_CONTAINS(out, ", sm clock 1131 MHz, board limit 400 W per GPU (binds on 100.0 % of the series' time)");
	CHECK(strstr(out, "sm clock 1400 MHz") == NULL);
	run_result_free(&r);
}

int
main(void)
{
	char *dir = test_tmpdir("series_config");
	char *ser = test_fixture(dir, "ser.csv", "t_s,running\n0,256\n1,256\n");
	cli_header(ser);
	wc_params p = WC_PARAMS_INIT;
	wc_server *srv = NULL;
	wc_error err;
	CHECK_INT(wc_params_profile(WC_DEFAULT_PROFILE, &p, &err), WC_OK);
	curl_global_init(CURL_GLOBAL_DEFAULT);
	srv = http_server_start(&p, "profile:" WC_DEFAULT_PROFILE, 2);
	CHECK(srv != NULL);
	if (srv) {
		CURL *h = curl_easy_init();
		http_set_base(wc_server_port(srv));
		http_config(h);
		curl_easy_cleanup(h);
		wc_server_stop(srv);
	}
	curl_global_cleanup();
	wc_params_clear(&p);
	free(ser);
	free(dir);
	return check_report("test_server_series_config");
}
