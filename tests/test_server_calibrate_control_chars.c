/*
 * POST /v1/calibrate with a control character in a name the calibrated
 * set would hold (docs/http-api.md, "POST /v1/calibrate"): the set's
 * `name`, a run's `platform` (a new level, and the default label built
 * from it) or a run's `model` (a model's term). `name` "a\nb", or a
 * platform "GB\u0001X" in platform scope, was 422 calibration_refused
 * with no `field` ("the calibrated set cannot be written: params: /name:
 * control character at byte 2", blaming /name for the platform), and
 * only after the worker had run; a model "My\u0001Model" was calibrated
 * and written into model_terms. Each is now refused up front, 422
 * invalid_value naming its field, as the set's label is refused
 * (wc_params_check_name).
 */
#include "data/data.h"
#include "server/server.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

#define RUN(platform, model, running, power)                                                                 \
	"{\"platform\":\"" platform "\",\"tp\":1,\"model\":\"" model "\",\"running\":" running                   \
	",\"mean_power_w\":" power ",\"idle_power_w\":100}"
/* three runs at different loads: a new level's S and theta */
#define LEVEL(platform)                                                                                      \
	RUN(platform, "Qwen3-8B", "4", "300") ","                                                                \
	RUN(platform, "Qwen3-8B", "32", "500") "," RUN(platform, "Qwen3-8B", "128", "600")

static void
expect_control(CURL *h, const char *body, const char *field, const char *says)
{
	http_expect_says(h, "POST", "/v1/calibrate", body, 422, "invalid_value", field, says, "cannot be written");
}

int
main(void)
{
	wc_params p = WC_PARAMS_INIT;
	wc_params_default(&p);
	wc_server *srv = http_server_start(&p, "calibrate-control-chars", 4);
	if (!srv)
		return check_report("test_server_calibrate_control_chars");
	CURL *h = curl_easy_init();

	expect_control(h, "{\"runs\":[" RUN("H100", "Qwen3-8B", "3", "500") "],\"name\":\"a\\nb\",\"bootstrap\":0}",
	               "/name", "name: control character at byte 2");
	expect_control(h, "{\"runs\":[" RUN("H100", "Qwen3-8B", "3", "500") "],\"name\":\"ab\\u007f\",\"bootstrap\":0}",
	               "/name", "name: control character at byte 3");
	/* no name: the default label would be built from the platform */
	expect_control(h, "{\"scope\":\"platform\",\"bootstrap\":0,\"runs\":[" LEVEL("GB\\u0001X") "]}",
	               "/runs/0/platform", "runs/0/platform: control character at byte 3");
	/* a name of its own: the level itself would hold it */
	expect_control(h, "{\"scope\":\"platform\",\"bootstrap\":0,\"name\":\"ok\",\"runs\":[" LEVEL("GB\\tX") "]}",
	               "/runs/0/platform", "runs/0/platform: control character at byte 3");
	/* a model of one's own (with its size): its term would hold it */
	expect_control(h, "{\"bootstrap\":0,\"runs\":[" RUN("H100", "Qwen3-8B", "3", "500") ",{\"platform\":\"H100\","
	               "\"tp\":1,\"model\":\"My\\u0001Model\",\"active_params_b\":8,\"running\":3,\"mean_power_w\":500}]}",
	               "/runs/1/model", "runs/1/model: control character at byte 3");

	/* the same names without the control character are calibrated */
	http_reply r;
	http_post_json(h, url("/v1/calibrate"), "{\"scope\":\"platform\",\"bootstrap\":0,\"runs\":[" LEVEL("GBX") "]}", &r);
	CHECK_INT(r.status, 200);
	if (r.status != 200)
		fprintf(stderr, "plain level -> %s\n", r.body ? r.body : "");
	http_reply_free(&r);

	curl_easy_cleanup(h);
	wc_server_stop(srv);
	wc_params_clear(&p);
	return check_report("test_server_calibrate_control_chars");
}
