/*
 * What POST /v1/forecast/envelope and POST /v1/plan/budget say of the
 * workload in the request's words (docs/envelopes.md, "Workloads" and
 * "Engine"): a replay's own lengths are /workload/arrivals/input_tokens
 * in the context warning, as in the refusal, not the library's
 * arrival_input; lengths the arrivals leave null are said, how many and
 * from what; and the envelope's own mean running count is judged against
 * the calibrated spans by predict's rule (the `measured` profile: A100's
 * power-law span 7.9-256, bounded by H100's; its capacity calibration's
 * 0.954-32).
 */
#include "data/params_file.h"
#include "server/server.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

#include <stdio.h>
#include <string.h>

static CURL *h;

/* How many of the answer's warnings begin with `start`. */
static int
warnings_starting(const json_t *answer, const char *start)
{
	const json_t *w = json_object_get(answer, "warnings");
	int seen = 0;
	for (size_t i = 0; i < json_array_size(w); i++)
		seen += strncmp(json_string_value(json_array_get(w, i)), start, strlen(start)) == 0;
	return seen;
}

static void
post_both(const char *body, const char *budget_body, http_reply r[2])
{
	http_post_json(h, url("/v1/forecast/envelope"), body, &r[0]);
	http_post_json(h, url("/v1/plan/budget"), budget_body, &r[1]);
	CHECK_INT(r[0].status, 200);
	CHECK_INT(r[1].status, 200);
}

/* Workload `wl` (its "workload" member) on A100 Qwen3-8B over 10 s, as an
 * envelope and as a 5 kW budget plan. */
static void
post_replay(const char *wl, http_reply r[2])
{
	char body[2][512];
	snprintf(body[0], sizeof body[0], "{\"platform\":\"A100\",\"model\":\"Qwen3-8B\",\"horizon_s\":10,"
	         "\"include_bins\":false,%s}", wl);
	snprintf(body[1], sizeof body[1], "{\"platform\":\"A100\",\"model\":\"Qwen3-8B\",\"horizon_s\":10,"
	         "\"budget_w\":5000,%s}", wl);
	post_both(body[0], body[1], r);
}

/* The context warning named the library's field: "arrival_input: the
 * workload's mean 100000 + 256 tokens exceed the model's context ...". */
static void
test_context_field(void)
{
	const char *wl = "\"workload\":{\"type\":\"replay\",\"arrivals\":{\"t_s\":[0,1,2],"
	                 "\"input_tokens\":[100000,100000,100000]}}";
	http_reply r[2];
	post_replay(wl, r);
	for (int i = 0; i < 2; i++) {
		CHECK_INT(warnings_starting(r[i].json, "arrivals/input_tokens: the workload's mean 100000 + 256 tokens "
		                                       "exceed the model's context of 40960 tokens"), 1);
		CHECK(r[i].body && strstr(r[i].body, "arrival_input") == NULL);
		if (r[i].body && strstr(r[i].body, "arrival_input"))
			fprintf(stderr, "%s\n", r[i].body);
		http_reply_free(&r[i]);
	}
}

/* Lengths the arrivals leave null were drawn unsaid over HTTP (the CLI
 * warned on stderr): the answer's `workload` alone counted them. */
static void
test_null_lengths(void)
{
	const char *wl = "\"workload\":{\"type\":\"replay\",\"arrivals\":{\"t_s\":[0,1,2,3.5],"
	                 "\"input_tokens\":[500,600,null,700],\"output_tokens\":[100,0,200,null]},"
	                 "\"output_tokens\":{\"mean\":300,\"sd\":30}}";
	http_reply r[2];
	post_replay(wl, r);
	for (int i = 0; i < 2; i++) {
		CHECK_INT(warnings_starting(r[i].json, "arrivals/input_tokens: 1 of 4 requests replayed has none (null); "
		                                       "drawn from the default input_tokens 512"), 1);
		CHECK_INT(warnings_starting(r[i].json, "arrivals/output_tokens: 1 of 4 requests replayed has none (null); "
		                                       "drawn from output_tokens lognormal, mean 300, sd 30"), 1);
		http_reply_free(&r[i]);
	}
	/* every length given: nothing to say */
	http_post_json(h, url("/v1/forecast/envelope"), "{\"platform\":\"A100\",\"model\":\"Qwen3-8B\",\"horizon_s\":10,"
	               "\"include_bins\":false,\"workload\":{\"type\":\"replay\",\"arrivals\":{\"t_s\":[0,1,2],"
	               "\"input_tokens\":[500,600,700],\"output_tokens\":[100,50,200]}}}", &r[0]);
	CHECK_INT(r[0].status, 200);
	CHECK_INT(warnings_starting(r[0].json, "arrivals/"), 0);
	http_reply_free(&r[0]);
}

/* The envelope and the plan said nothing of a load beyond the calibrated
 * running counts where predict warns for the same workload: 7 req/s runs
 * about 40 at once (capacity span 0.954-32), a closed loop of 1024 about
 * 1022 (both spans), an n(t) of 2000 (the power law's). A load below one
 * was then judged at one: an n(t) of 0.3 and 0.2 req/s said nothing
 * where predict warns; an n(t) is judged at its own values, as predict's
 * running_series, a drawn load at its mean. */
static void
test_mean_running_span(void)
{
	static const struct {
		const char *workload, *line;
	} cases[] = {
		{ "{\"type\":\"poisson\",\"rate\":7}", "mean_running: load 3" },
		{ "{\"type\":\"closed\",\"concurrency\":1024,\"input_tokens\":64,\"output_tokens\":64}",
		  "mean_running: load 10" },
		{ "{\"type\":\"n_series\",\"running_series\":[2000,2000,2000],\"dt_s\":1}",
		  "running_series: load 2000 is outside the calibrated span 7.9-256 on A100" },
		{ "{\"type\":\"n_series\",\"running_series\":[0.3,0.3,0.3],\"dt_s\":1}",
		  "running_series: load 0.3 is outside the calibrated span 7.9-256 on A100" },
		{ "{\"type\":\"poisson\",\"rate\":0.2}", "mean_running: load 0." },
	};
	static const char *const span[] = { "is outside the capacity calibration's span 0.954-32 on A100",
		                            "is outside the calibrated span 7.9-256 and the capacity calibration's "
		                            "span 0.954-32 on A100",
		                            "", "",
		                            "is outside the calibrated span 7.9-256 and the capacity calibration's "
		                            "span 0.954-32 on A100" };
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		char body[2][512];
		const int closed = c == 1, series = c == 2 || c == 3;
		snprintf(body[0], sizeof body[0], "{\"platform\":\"A100\",\"model\":\"Qwen3-8B\",\"horizon_s\":%d,"
		         "\"replicas\":1,\"include_bins\":false,%s\"workload\":%s}", series ? 3 : 30,
		         closed ? "\"max_running\":1024," : "", cases[c].workload);
		snprintf(body[1], sizeof body[1], "{\"platform\":\"A100\",\"model\":\"Qwen3-8B\",\"horizon_s\":%d,"
		         "\"budget_w\":1000,%s\"workload\":%s}", series ? 3 : 30, closed ? "\"max_running\":1024," : "",
		         cases[c].workload);
		http_reply r[2];
		post_both(body[0], body[1], r);
		for (int i = 0; i < 2; i++) {
			int seen = warnings_starting(r[i].json, cases[c].line);
			CHECK_INT(seen, 1);
			const json_t *w = json_object_get(r[i].json, "warnings");
			for (size_t k = 0; k < json_array_size(w); k++) {
				const char *s = json_string_value(json_array_get(w, k));
				if (strncmp(s, "mean_running:", 13) == 0)
					CHECK_CONTAINS(s, span[c]);
			}
			if (seen != 1)
				fprintf(stderr, "case %zu, %s: %s\n", c, i ? "plan" : "envelope", r[i].body);
			http_reply_free(&r[i]);
		}
	}
	/* a load inside both spans: no such line */
	http_reply r;
	http_post_json(h, url("/v1/forecast/envelope"), "{\"platform\":\"A100\",\"model\":\"Qwen3-8B\",\"horizon_s\":30,"
	               "\"replicas\":1,\"include_bins\":false,\"workload\":{\"type\":\"closed\",\"concurrency\":16}}", &r);
	CHECK_INT(r.status, 200);
	CHECK_INT(warnings_starting(r.json, "mean_running:"), 0);
	http_reply_free(&r);
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
		test_context_field();
		test_null_lengths();
		test_mean_running_span();
		wc_server_stop(srv);
	}
	curl_easy_cleanup(h);
	curl_global_cleanup();
	wc_params_clear(&measured);
	return check_report("test_server_envelope_replay_words");
}
