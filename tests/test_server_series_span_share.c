/*
 * A load series mostly inside the calibrated span was said to be
 * "outside" it as a whole: [4, 500 x 9] on H100 (span 7.9-1915) warned
 * "running_series: load 4-500 is outside the calibrated span", and the CLI
 * said "load 4-8" of the samples 4, 8, 8. The warning names the loads
 * outside and the share of the series' time spent there, in the words of
 * the other series caveats ("for 10.0 % of the series' time"); one load,
 * or a series wholly outside, is worded as before.
 */
#include "data/data.h"
#include "models/profile_measured.h"
#include "server/server.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

static char *
series_warning(CURL *h, const char *series)
{
	char body[512];
	snprintf(body, sizeof body, "{\"platform\":\"H100\",\"model\":\"Qwen3-8B\",\"running_series\":%s,\"dt_s\":1}",
	         series);
	http_reply r;
	http_post_json(h, url("/v1/predict/inference"), body, &r);
	CHECK_INT(r.status, 200);
	char *found = NULL;
	const json_t *w = json_object_get(r.json, "warnings");
	for (size_t i = 0; i < json_array_size(w); i++) {
		const char *t = json_string_value(json_array_get(w, i));
		if (t && strncmp(t, "running_series: load", 20) == 0)
			found = strdup(t);
	}
	if (!found)
		fprintf(stderr, "  %s -> %s\n", series, r.body ? r.body : "");
	http_reply_free(&r);
	return found ? found : strdup("");
}

int
main(void)
{
	/* the CLI: 4 is outside for a third of the time, 8 is inside */
	{
		char *dir = test_tmpdir("series_span_share");
		char *csv = test_fixture(dir, "s.csv", "t_s,running\n0,4\n1,8\n2,8\n");
		const char *argv[] = { "wattcast", "predict", "inference", "--platform", "H100", "--model", "Qwen3-8B",
			               "--running-series", csv, NULL };
		run_result r;
		CHECK_INT(run_wattcast(argv, NULL, &r), 0);
		CHECK_INT(r.status, 0);
		CHECK_CONTAINS(r.out, "running_series: load 4 is outside the calibrated span 7.9-1915 on H100 for 33.3 % of "
		                      "the series' time");
		run_result_free(&r);
		free(csv);
		free(dir);
	}
	/* the default profile's span on H100, 7.9-1915, as the CLI's */
	wc_params p = WC_PARAMS_INIT;
	wc_error err;
	CHECK_INT(wc_params_profile(WC_DEFAULT_PROFILE, &p, &err), WC_OK);
	curl_global_init(CURL_GLOBAL_DEFAULT);
	CURL *h = curl_easy_init();
	wc_server *srv = http_server_start(&p, "profile:" WC_DEFAULT_PROFILE, 2);
	if (srv) {
		char *w = series_warning(h, "[4,500,500,500,500,500,500,500,500,500]");
		CHECK_CONTAINS(w, "running_series: load 4 is outside the calibrated span 7.9-1915 on H100 for 10.0 % of "
		                  "the series' time");
		CHECK_CONTAINS(w, " for 10.0 % of the series' time");
		CHECK(!strstr(w, "4-500"));
		free(w);
		/* below and above: both named, their time together */
		w = series_warning(h, "[4,500,500,4000]");
		CHECK_CONTAINS(w, "running_series: loads 4 and 4000 are outside the calibrated span ");
		CHECK_CONTAINS(w, " for 50.0 % of the series' time");
		free(w);
		/* idle steps count in the series' time, and are never outside */
		w = series_warning(h, "[0,0,4,4]");
		CHECK_CONTAINS(w, "running_series: load 4 is outside");
		CHECK_CONTAINS(w, " for 50.0 % of the series' time");
		free(w);
		/* wholly outside: no share to say */
		w = series_warning(h, "[2,4,4]");
		CHECK_CONTAINS(w, "running_series: load 2-4 is outside the calibrated span ");
		CHECK(!strstr(w, "series' time"));
		free(w);
		wc_server_stop(srv);
	}
	curl_easy_cleanup(h);
	curl_global_cleanup();
	wc_params_clear(&p);
	return check_report("test_server_series_span_share");
}
