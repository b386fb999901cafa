/*
 * A running series under power_cap_w pays for its clocks' settles
 * (docs/http-api.md, "POST /v1/predict/batch"): up to
 * WC_SERIES_CLOCK_SETTLES of its counts each settle a cap's clock.
 * Uncharged, 10 000 capped 10-sample series (16 law evaluations each)
 * took 15 s of a core within a budget documented as about 2 s; now 70
 * fit, and the same series without a cap are charged as before.
 */
#include "server/server.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/batch_body.h"
#include "tests/support/support.h"

#include <stdlib.h>

#define SERIES "{\"platform\":\"H100\",\"model\":\"Qwen3-8B\",\"running_series\":[5,40,80,120,160,200,240,280,300,20]," \
	       "\"dt_s\":0.1,\"input_tokens\":1000,\"output_tokens\":300"

int
main(void)
{
	wc_params p = WC_PARAMS_INIT;
	wc_params_default(&p);
	wc_server *srv = http_server_start(&p, "series-cap-charge", 2);
	if (!srv)
		return check_report("test_server_series_cap_charge");
	CURL *h = curl_easy_init();
	/* (10 + 6) x 1 draw + 10 settles x 138 answers x 360 */
	char *b = test_batch_body(SERIES ",\"power_cap_w\":300}", 71);
	http_expect_413(h, "/v1/predict/batch", b, "/70", "at item 70 (running_series with power_cap_w, charged 496816)",
	                NULL);
	free(b);
	/* uncapped, the same series cost their samples alone */
	b = test_batch_body(SERIES "}", 71);
	http_reply r;
	http_post_json(h, url("/v1/predict/batch"), b, &r);
	CHECK_INT(r.status, 200);
	http_reply_free(&r);
	free(b);
	curl_easy_cleanup(h);
	wc_server_stop(srv);
	wc_params_clear(&p);
	return check_report("test_server_series_cap_charge");
}
