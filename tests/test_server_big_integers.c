/*
 * Every bound message of the routes quotes a JSON integer above 2^53 by
 * its digits (docs/http-api.md, "Errors"): tp, concurrency, an
 * architecture fact, sm_clock_mhz, a fine-tuning integer, a calibration
 * option or run field read "got 1e+17" (its rounded double), and a
 * calibration run's tp named no value at all. So did the fine-tuning's
 * steps, a negative seed (envelope, calibration) and price_per_kwh and
 * grams_co2_per_kwh, whose bounds the libraries check on the double
 * (wc_api_refused_value now quotes them as sent).
 */
#include "models/profile_measured.h"
#include "server/server.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

#include <string.h>

#define BIG "100000000000000001"
#define INF "{\"platform\":\"H100\",\"model\":\"Qwen3-8B\","
#define FT "{\"platform\":\"H100\",\"model\":\"Qwen3-8B\",\"method\":\"full\","
#define RUN "{\"platform\":\"H100\",\"tp\":1,\"model\":\"Qwen3-8B\",\"mean_power_w\":300,"

static CURL *h;

static const struct {
	const char *route, *body, *field, *got;
} cases[] = {
	{ "/v1/predict/inference", INF "\"concurrency\":8,\"tp\":" BIG "}", "/tp", "got " BIG },
	{ "/v1/predict/inference", INF "\"concurrency\":-" BIG "}", "/concurrency", "got -" BIG },
	{ "/v1/predict/inference", INF "\"concurrency\":8,\"sm_clock_mhz\":" BIG "}", "/sm_clock_mhz", BIG " MHz" },
	{ "/v1/predict/inference", INF "\"concurrency\":8,\"architecture\":{\"layers\":" BIG "}}",
	  "/architecture/layers", "got " BIG },
	{ "/v1/predict/inference", INF "\"concurrency\":8,\"input_tokens\":" BIG ",\"output_tokens\":100}",
	  "/input_tokens", "got " BIG },
	{ "/v1/predict/inference", "{\"platform\":\"H100\",\"active_params_b\":" BIG ",\"concurrency\":8}",
	  "/active_params_b", "got " BIG },
	{ "/v1/predict/inference", INF "\"architecture\":{\"total_params_b\":" BIG "},\"concurrency\":8}",
	  "/architecture/total_params_b", "got " BIG },
	{ "/v1/predict/inference", INF "\"concurrency\":8,\"rate\":" BIG ",\"input_tokens\":100,\"output_tokens\":100}",
	  "/rate", "got " BIG },
	{ "/v1/predict/inference", INF "\"running_series\":[1,-" BIG "],\"dt_s\":1}", "/running_series/1", "got -" BIG },
	{ "/v1/predict/inference", INF "\"running_series\":[1,2],\"dt_s\":-" BIG "}", "/dt_s", "got -" BIG },
	{ "/v1/predict/finetune", FT "\"micro_batch\":" BIG ",\"seq_len\":512}", "/micro_batch", "got " BIG },
	{ "/v1/predict/finetune", FT "\"micro_batch\":1,\"seq_len\":512,\"gpus\":" BIG "}", "/gpus", "got " BIG },
	{ "/v1/predict/finetune", FT "\"micro_batch\":1,\"seq_len\":-" BIG "}", "/seq_len", "got -" BIG },
	{ "/v1/calibrate", "{\"bootstrap\":" BIG ",\"runs\":[" RUN "\"running\":3}]}", "/bootstrap", "got " BIG },
	{ "/v1/calibrate", "{\"runs\":[" RUN "\"running\":" BIG "}]}", "/runs/0/running", "got " BIG },
	{ "/v1/calibrate", "{\"runs\":[" RUN "\"running\":-" BIG "}]}", "/runs/0/running", "got -" BIG },
	{ "/v1/calibrate", "{\"runs\":[{\"platform\":\"H100\",\"tp\":" BIG ",\"model\":\"Qwen3-8B\",\"running\":3,"
	  "\"mean_power_w\":300}]}", "/runs/0/tp", "got " BIG },
	{ "/v1/predict/finetune", FT "\"micro_batch\":1,\"seq_len\":1,\"steps\":" BIG "}", "/steps", "got " BIG },
	{ "/v1/forecast/envelope", "{\"platform\":\"A100\",\"model\":\"Qwen3-8B\",\"workload\":{\"type\":\"poisson\","
	  "\"rate\":1},\"horizon_s\":10,\"seed\":-" BIG "}", "/seed", "got -" BIG },
	{ "/v1/calibrate", "{\"seed\":-" BIG ",\"runs\":[" RUN "\"running\":3}]}", "/seed", "got -" BIG },
	{ "/v1/predict/inference", INF "\"concurrency\":1,\"price_per_kwh\":" BIG "}", "/price_per_kwh", "got " BIG },
	{ "/v1/predict/inference", INF "\"concurrency\":1,\"grams_co2_per_kwh\":" BIG "}", "/grams_co2_per_kwh",
	  "got " BIG },
	{ "/v1/predict/flexibility", INF "\"concurrency\":1,\"input_tokens\":1,\"output_tokens\":1,\"price_per_kwh\":" BIG "}",
	  "/price_per_kwh", "got " BIG },
};

static void
test_big_integers(void)
{
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		http_reply r;
		http_post_json(h, url(cases[i].route), cases[i].body, &r);
		const char *msg = http_error_str(&r, "message") ? http_error_str(&r, "message") : "";
		const char *field = http_error_str(&r, "field") ? http_error_str(&r, "field") : "";
		CHECK_INT(r.status, 422);
		CHECK(strcmp(field, cases[i].field) == 0);
		CHECK_CONTAINS(msg, cases[i].got);
		CHECK(strstr(msg, "e+17") == NULL);
		if (strstr(msg, cases[i].got) == NULL || strcmp(field, cases[i].field) != 0)
			fprintf(stderr, "case %zu (%s): %s\n", i, cases[i].field, msg);
		http_reply_free(&r);
	}
}

int
main(void)
{
	wc_params p = WC_PARAMS_INIT;
	wc_server *srv = NULL;
	wc_error err;
	curl_global_init(CURL_GLOBAL_DEFAULT);
	h = curl_easy_init();
	wc_params_measured(&p);
	wc_server_options so = WC_SERVER_OPTIONS_INIT;
	so.listen = "127.0.0.1:0";
	so.threads = 2;
	CHECK_INT(wc_server_start(&so, &p, NULL, &srv, &err), WC_OK);
	if (srv) {
		http_set_base(wc_server_port(srv));
		test_big_integers();
		wc_server_stop(srv);
	}
	curl_easy_cleanup(h);
	curl_global_cleanup();
	wc_params_clear(&p);
	return check_report("test_server_big_integers");
}
