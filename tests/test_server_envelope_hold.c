/*
 * An envelope on the assumed response keeps the busy power over every
 * idle gap shorter than its 0.1 s hold (docs/envelopes.md, "Assumed
 * response"), where `fit response` on the PowerTrace runs finds holds
 * under 1 ms (0.12 ms re-measured; the warning said "near 8 ms", an older
 * fit's, until 2026-12-06). An n(t) of 32 running and idle by turns every 0.25 s spends
 * 20 % of its horizon held: its mean_w was 26 % above the same run at
 * hold 0 (and above `predict` for the same n(t)) with no word. Every
 * answer (POST /v1/forecast/envelope, `wattcast envelope` text and
 * --json) now says so, in the same words, with the mean at hold 0 it
 * counted in the run itself; a hold given or fitted says nothing.
 */
#include "server/server.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"
#include "tests/support/synth_hold.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static CURL *h;

/* the body's members after its workload */
#define TAIL "\"horizon_s\":600,\"include_bins\":false"

static const char *const said_head = "hold_s: the assumed hold of 0.1 s (not fitted) keeps the busy power over "
                                     "idle gaps for 20 % of the horizon: at hold 0 mean_w would be about ";

static double
mean_w(const json_t *answer)
{
	return json_real_value(json_object_get(json_object_get(json_object_get(json_object_get(answer, "server"),
	                                                                       "summary"), "mean_w"), "value"));
}

static void
test_said(void)
{
	http_reply r, r0, rg;
	char *b = synth_hold_body(TAIL, ""), *b0 = synth_hold_body(TAIL, "\"response\":{\"hold_s\":0}"),
	     *bg = synth_hold_body(TAIL, "\"response\":{\"hold_s\":0.1}");
	http_post_json(h, url("/v1/forecast/envelope"), b, &r);
	http_post_json(h, url("/v1/forecast/envelope"), b0, &r0);
	http_post_json(h, url("/v1/forecast/envelope"), bg, &rg);
	CHECK_INT(r.status, 200);
	CHECK_INT(r0.status, 200);
	CHECK_INT(rg.status, 200);
	const char *said = synth_hold_warning(json_object_get(r.json, "warnings"));
	CHECK(said != NULL);
	if (said) {
		CHECK(strncmp(said, said_head, strlen(said_head)) == 0);
		CHECK_CONTAINS(said, " % lower; fitted holds are under 1 ms (docs/envelopes.md, \"Assumed response\")");
		CHECK(strlen(said) < WC_WARNING_LEN);
		/* the mean at hold 0 it names is the run at hold 0's, to its 0.1 W */
		double at0 = NAN;
		CHECK_INT(sscanf(said + strlen(said_head), "%lf", &at0), 1);
		CHECK_NEAR(at0, mean_w(r0.json), 0.051);
		CHECK(mean_w(r.json) > 1.2 * mean_w(r0.json)); /* the 26 % the brief measured on the CLI */
	}
	/* a hold given (0, or the same 0.1 s) is the user's: nothing said */
	CHECK(synth_hold_warning(json_object_get(r0.json, "warnings")) == NULL);
	CHECK(synth_hold_warning(json_object_get(rg.json, "warnings")) == NULL);
	/* the CLI says it in the same words, text and --json */
	char *dir = test_tmpdir("envelope_hold"), *csv = path_join(dir, "alt.csv");
	CHECK(synth_hold_series_file(csv) == 0);
	const char *argv[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--n-series", csv,
		               "--horizon", "600", "--profile", "paper", "--quiet", "--json", NULL };
	run_result rr;
	CHECK_INT(run_wattcast(argv, NULL, &rr), 0);
	CHECK_INT(rr.status, 0);
	json_t *cli = json_loads(rr.out ? rr.out : "", 0, NULL);
	const char *cli_said = synth_hold_warning(json_object_get(cli, "warnings"));
	CHECK(said && cli_said && strcmp(said, cli_said) == 0);
	json_decref(cli);
	run_result_free(&rr);
	argv[13] = NULL; /* text */
	CHECK_INT(run_wattcast(argv, NULL, &rr), 0);
	CHECK_CONTAINS(rr.out, "warning: hold_s: the assumed hold of 0.1 s (not fitted)");
	run_result_free(&rr);
	/* docs/envelopes.md quotes the warning whole for the measured profile
	 * (the default): the page holds the words the program says, so a
	 * figure the fit no longer gives cannot stay quoted there */
	const char *measured[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--n-series",
		                   csv, "--horizon", "600", "--quiet", "--json", NULL };
	CHECK_INT(run_wattcast(measured, NULL, &rr), 0);
	cli = json_loads(rr.out ? rr.out : "", 0, NULL);
	const char *measured_said = synth_hold_warning(json_object_get(cli, "warnings"));
	char *doc_path = path_join(test_env("WC_SOURCE_DIR", "."), "docs/envelopes.md");
	char *page = test_slurp(doc_path);
	CHECK(measured_said && page && strstr(page, measured_said) != NULL);
	if (measured_said && page && !strstr(page, measured_said))
		fprintf(stderr, "  docs/envelopes.md does not quote: %s\n", measured_said);
	free(page);
	free(doc_path);
	json_decref(cli);
	run_result_free(&rr);
	const char *given[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--n-series", csv,
		                "--horizon", "600", "--profile", "paper", "--quiet", "--hold", "0.1", NULL };
	CHECK_INT(run_wattcast(given, NULL, &rr), 0);
	CHECK(rr.out && strstr(rr.out, "hold_s:") == NULL);
	run_result_free(&rr);
	free(csv);
	free(dir);
	free(b);
	free(b0);
	free(bg);
	http_reply_free(&r);
	http_reply_free(&r0);
	http_reply_free(&rg);
}

int
main(void)
{
	wc_params paper = WC_PARAMS_INIT;
	wc_server *srv = NULL;
	curl_global_init(CURL_GLOBAL_DEFAULT);
	h = curl_easy_init();
	wc_params_default(&paper);
	srv = http_server_start(&paper, "profile:paper", 2);
	if (!srv)
		return check_report("test_server_envelope_hold");
	test_said();
	wc_server_stop(srv);
	curl_easy_cleanup(h);
	curl_global_cleanup();
	wc_params_clear(&paper);
	return check_report("test_server_envelope_hold");
}
