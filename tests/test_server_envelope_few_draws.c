/*
 * An envelope's and a budget plan's interval from a calibrated set folds
 * in the calibration's draws (docs/intervals.md, "Calibrated sets"), so
 * from fewer than 40 of them it carries predict inference's caveat
 * (docs/intervals.md: every mean-power answer from such a set repeats it),
 * in the CLI's text and JSON and the routes' answers alike: a set
 * calibrated with --bootstrap 5 on one A100 Qwen3-8B run. predict said
 * "interval_95: 5 bootstrap draws, fewer than 40: ..."; the envelope and
 * the plan, whose intervals use the same 5 draws, said nothing of it. A
 * set whose envelope interval folds no draws (the `measured` profile)
 * does not say it.
 */
#include "data/params_file.h"
#include "server/server.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static CURL *h;

static const char caveat[] = "interval_95: 5 bootstrap draws, fewer than 40: the 2.5 % tails hold no draw of their "
                             "own, so the parameters' part is the draws' range, too narrow (docs/intervals.md)";

/* how many of the answer's warnings are the caveat */
static int
count(const json_t *j)
{
	const json_t *ws = json_object_get(j, "warnings");
	int k = 0;
	for (size_t i = 0; i < json_array_size(ws); i++) {
		const char *m = json_string_value(json_array_get(ws, i));
		k += m && strcmp(m, caveat) == 0;
	}
	return k;
}

/* the envelope (plan 0) or the budget plan (plan 1) of `params` (NULL:
 * the measured profile), as JSON (json 1) or text */
static void
cli(const char *params, int plan, int json, int want)
{
	const char *argv[16] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--closed", "8",
		                 "--horizon", "30", params ? "--params" : "--profile", params ? params : "measured" };
	int n = 12;
	if (plan) {
		argv[n++] = "--budget";
		argv[n++] = "2000";
	}
	if (json)
		argv[n++] = "--json";
	argv[n] = NULL;
	run_result r;
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	int said;
	if (json) {
		json_t *j = json_loads(r.out ? r.out : "", 0, NULL);
		const json_t *iv = plan ? json_object_get(json_object_get(j, "plan"), "stat_interval_95")
		                        : json_object_get(json_object_get(j, "server"), "interval_95");
		CHECK(json_is_object(iv)); /* there is an interval to caveat */
		said = count(j);
		json_decref(j);
	} else {
		char line[sizeof caveat + 16];
		snprintf(line, sizeof line, "warning: %s\n", caveat);
		said = r.out && strstr(r.out, line) ? 1 : 0;
	}
	if (said != want)
		fprintf(stderr, "%s %s %s: said %d, want %d:\n%s\n", params ? "calibrated" : "measured",
		        plan ? "plan" : "envelope", json ? "json" : "text", said, want, r.out ? r.out : "");
	CHECK_INT(said, want);
	run_result_free(&r);
}

static void
http(int want)
{
#define CFG "\"platform\":\"A100\",\"model\":\"Qwen3-8B\",\"horizon_s\":30,\"workload\":{\"type\":\"closed\"," \
	    "\"concurrency\":8}"
	http_reply r;
	http_post_json(h, url("/v1/forecast/envelope"), "{" CFG ",\"include_bins\":false}", &r);
	CHECK_INT(r.status, 200);
	CHECK_INT(count(r.json), want);
	if (count(r.json) != want)
		fprintf(stderr, "%s\n", r.body ? r.body : "");
	http_reply_free(&r);
	http_post_json(h, url("/v1/plan/budget"), "{" CFG ",\"budget_w\":2000}", &r);
	CHECK_INT(r.status, 200);
	CHECK_INT(count(r.json), want);
	if (count(r.json) != want)
		fprintf(stderr, "%s\n", r.body ? r.body : "");
	http_reply_free(&r);
#undef CFG
}

int
main(void)
{
	char *dir = test_tmpdir("envelope_few_draws"), *csv = path_join(dir, "cal1.csv"),
	     *set = path_join(dir, "c5.json");
	FILE *f = fopen(csv, "w");
	CHECK(f != NULL);
	if (f) {
		fputs("run_id,platform,tp,model,mean_power_w,running,idle_power_w\n"
		      "r1,A100,1,Qwen3-8B,251.4130426,8.07,82.0\n", f);
		fclose(f);
	}
	const char *cal[] = { "wattcast", "calibrate", "--profile", "measured", csv, "-o", set, "--bootstrap", "5",
		              NULL };
	test_run_ok(cal);
	for (int plan = 0; plan < 2; plan++)
		for (int json = 0; json < 2; json++) {
			cli(set, plan, json, 1);
			cli(NULL, plan, json, 0);
		}
	wc_params five = WC_PARAMS_INIT;
	wc_error err;
	CHECK_INT(wc_params_load_file(set, &five, &err), WC_OK);
	curl_global_init(CURL_GLOBAL_DEFAULT);
	h = curl_easy_init();
	wc_server *srv = http_server_start(&five, set, 2);
	if (srv) {
		http(1);
		wc_server_stop(srv);
	}
	curl_easy_cleanup(h);
	curl_global_cleanup();
	wc_params_clear(&five);
	free(csv);
	free(set);
	free(dir);
	return check_report("test_server_envelope_few_draws");
}
