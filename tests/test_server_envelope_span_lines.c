/*
 * The caveats a point answer gives for a configuration come with POST
 * /v1/forecast/envelope and POST /v1/plan/budget in predict's words
 * (docs/envelopes.md, "Outputs"): the power law's calibrated span of tp
 * and model size and a level saturating above its board limit. A tp or
 * model size outside the capacity calibration's span as well is one line
 * naming both spans in all three answers (docs/capacity.md, "Warnings";
 * the `measured` profile: H200's tp spans 1-4 and 1-2, H100's sizes 3-70 B
 * and 3.3-70.6 B).
 */
#include "data/params_file.h"
#include "server/server.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

#include <stdio.h>
#include <string.h>

static CURL *h;

/* The law's caveats a point answer gives for the configuration (tp past
 * the calibrated 1-4 on H200, and the saturation above its board limit)
 * come with the envelope and the plan (docs/envelopes.md): both were
 * dropped. A tp or model size outside the capacity calibration's span too
 * is one line naming both spans, in every answer alike (docs/capacity.md,
 * "Warnings"): the envelope and the plan said it twice, the power law's
 * line and the capacity one's ("tp: 8 is outside the capacity
 * calibration's span 1-2 on H200"; "active_params_b: 0.6 B ... 3.3-70.6
 * on H100", no unit). */
static void
test_point_caveats(void)
{
	static const struct {
		const char *cfg, *field, *line;
	} cases[] = {
		{ "\"platform\":\"H200\",\"model\":\"Qwen3-8B\",\"tp\":8", "tp: ",
		  "tp: 8 is outside the calibrated span 1-4 and the capacity calibration's span 1-2 on H200" },
		{ "\"platform\":\"H100\",\"model\":\"Qwen3-0.6B\"", "active_params_b: ",
		  "active_params_b: 0.6 B is outside the calibrated span 3-70 B and the capacity calibration's span "
		  "3.3-70.6 B on H100" },
	};
	const char *paths[3] = { "/v1/predict/inference", "/v1/forecast/envelope", "/v1/plan/budget" };
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		char req[3][400];
		snprintf(req[0], sizeof req[0], "{%s,\"concurrency\":32,\"input_tokens\":512,"
		         "\"output_tokens\":256}", cases[c].cfg);
		snprintf(req[1], sizeof req[1], "{%s,\"workload\":{\"type\":\"poisson\",\"rate\":4},"
		         "\"horizon_s\":30,\"replicas\":1}", cases[c].cfg);
		snprintf(req[2], sizeof req[2], "{%s,\"workload\":{\"type\":\"poisson\",\"rate\":4},"
		         "\"horizon_s\":30,\"budget_w\":20000}", cases[c].cfg);
		const char *want[2] = { cases[c].line, c == 0 ? "platform: level 'H200' saturates at P0 + S" : NULL };
		for (int i = 0; i < 3; i++) {
			http_reply r;
			http_post_json(h, url(paths[i]), req[i], &r);
			CHECK_INT(r.status, 200);
			/* the answer's warnings and, for a point, its capacity answer's */
			const json_t *lists[2] = { json_object_get(r.json, "warnings"),
				                   json_object_get(json_object_get(r.json, "capacity"), "warnings") };
			for (int k = 0; k < 2 && want[k]; k++) {
				int seen = 0;
				for (size_t j = 0; j < json_array_size(lists[0]); j++)
					seen += strncmp(json_string_value(json_array_get(lists[0], j)), want[k], strlen(want[k])) == 0;
				CHECK_INT(seen, 1);
				if (seen != 1)
					fprintf(stderr, "%s: '%s' %d times in %s\n", paths[i], want[k], seen, r.body);
			}
			/* the quantity's span lines: that one alone */
			int lines = 0;
			for (int l = 0; l < 2; l++)
				for (size_t j = 0; j < json_array_size(lists[l]); j++) {
					const char *w = json_string_value(json_array_get(lists[l], j));
					lines += strncmp(w, cases[c].field, strlen(cases[c].field)) == 0 && strstr(w, " span ") != NULL;
				}
			CHECK_INT(lines, 1);
			if (lines != 1)
				fprintf(stderr, "%s: %d lines of %s in %s\n", paths[i], lines, cases[c].field, r.body);
			http_reply_free(&r);
		}
	}
}

int
main(void)
{
	wc_params measured = WC_PARAMS_INIT;
	wc_error err;
	CHECK_INT(wc_params_profile("measured", &measured, &err), WC_OK);
	curl_global_init(CURL_GLOBAL_DEFAULT);
	h = curl_easy_init();
	wc_server *srv = http_server_start(&measured, "profile:measured", 2);
	if (srv) {
		test_point_caveats();
		wc_server_stop(srv);
	}
	curl_easy_cleanup(h);
	curl_global_cleanup();
	wc_params_clear(&measured);
	return check_report("test_server_envelope_span_lines");
}
