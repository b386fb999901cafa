/*
 * An uncapped item whose board limit can bind pays for the clock it
 * settles, as a power_cap_w does (docs/http-api.md, "POST
 * /v1/predict/batch"): under the measured set the A100's 400 W limit binds
 * on Qwen3-32B at 256 running, and 10 000 such open-loop items, charged
 * 182 each, took 14-17 s of a core within a budget documented as about
 * 2 s; now 116 fit. The test is the law at the most requests an item can
 * run, so an H100 that stays under its limit there is charged as before:
 * a batch of 10 000 is still answered (charging every board whose P0 + S
 * is above its limit let 116 through).
 */
#include "models/profile_measured.h"
#include "server/server.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/batch_body.h"
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* `n` open-loop items on `platform`, each at its own rate (no answer is
 * the memo's), as a JSON array (caller frees). */
static char *
open_batch(const char *platform, int n)
{
	char item[192];
	snprintf(item, sizeof item,
	         "{\"platform\":\"%s\",\"model\":\"Qwen3-32B\",\"rate\":20.%%04d,"
	         "\"concurrency\":256,\"input_tokens\":500,\"output_tokens\":300}", platform);
	return test_batch_body(item, n); /* rate 20 + k x 1e-4 to 4 digits, k < 10 000 */
}

int
main(void)
{
	wc_params p = WC_PARAMS_INIT;
	wc_params_measured(&p);
	wc_server *srv = http_server_start(&p, "limit-charge", 2);
	if (!srv)
		return check_report("test_server_limit_charge");
	CURL *h = curl_easy_init();
	/* (1 + 6) + 175 + 3 x (2 x 138 + 2) x 360: a cap's open-loop settles */
	char *b = open_batch("A100", 117);
	http_expect_413(h, "/v1/predict/batch", b, "/116",
	                "at item 116 (open-loop capacity at the board's limit, charged 300422)", NULL);
	free(b);
	/* ... and 116 are answered, each at the clock the limit settles */
	b = open_batch("A100", 116);
	http_reply r;
	http_post_json(h, url("/v1/predict/batch"), b, &r);
	CHECK_INT(r.status, 200);
	CHECK(r.body && strstr(r.body, "\"board_power_limit_w\":400") != NULL);
	http_reply_free(&r);
	free(b);
	/* the H100's 700 W limit does not bind at 256 running: charged 182 */
	b = open_batch("H100", 10000);
	http_post_json(h, url("/v1/predict/batch"), b, &r);
	CHECK_INT(r.status, 200);
	CHECK(r.body && strstr(r.body, "\"failed\":0") != NULL);
	http_reply_free(&r);
	free(b);
	curl_easy_cleanup(h);
	wc_server_stop(srv);
	wc_params_clear(&p);
	return check_report("test_server_limit_charge");
}
