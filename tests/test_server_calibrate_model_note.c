/*
 * A calibration run whose model name has a word the catalog does not read
 * (docs/capacity.md, "Model names"): "Qwen3-8B-Banana" was calibrated as
 * the catalog's Qwen3-8B (shift[Qwen3-8B@H100]) with no word, by
 * `wattcast calibrate` and POST /v1/calibrate ("warnings": []), where
 * predict, envelope and plan say "model: 'Qwen3-8B-Banana' answered as the
 * catalog's Qwen3-8B". Both now give that note, once a name (the route's
 * naming the run's field, runs/I/model). And the CLI's refusal of a model
 * the catalog lacks, without active_params_b, now names the entry it is
 * likely a typo of ("did you mean Qwen3-8B?"), as the route's 404 does.
 */
#include "data/data.h"
#include "models/profile_measured.h"
#include "server/server.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

#include <string.h>

#define NOTE "model: 'Qwen3-8B-Banana' answered as the catalog's Qwen3-8B"
#define RUN(model, running, power)                                                                           \
	"{\"platform\":\"H100\",\"tp\":1,\"model\":\"" model "\",\"running\":" running ",\"mean_power_w\":" power "}"

/* How many of the answer's warnings say `what`. */
static int
warnings_saying(const http_reply *r, const char *what)
{
	const json_t *w = json_object_get(r->json, "warnings");
	int n = 0;
	for (size_t i = 0; i < json_array_size(w); i++)
		n += strstr(json_string_value(json_array_get(w, i)), what) != NULL;
	return n;
}

static void
test_route(CURL *h)
{
	http_reply r;
	http_post_json(h, url("/v1/calibrate"), "{\"bootstrap\":0,\"runs\":[" RUN("Qwen3-8B-Banana", "16", "450") ","
	               RUN("Qwen3-8B-Banana", "32", "520") "," RUN("Qwen3-8B", "8", "400") "]}", &r);
	CHECK_INT(r.status, 200);
	CHECK_INT(warnings_saying(&r, "runs/0/" NOTE), 1);
	CHECK_INT(warnings_saying(&r, "answered as the catalog's"), 1);
	if (warnings_saying(&r, "runs/0/" NOTE) != 1)
		fprintf(stderr, "Banana -> %s\n", r.body ? r.body : "");
	http_reply_free(&r);
	/* a name the catalog reads whole says nothing */
	http_post_json(h, url("/v1/calibrate"), "{\"bootstrap\":0,\"runs\":[" RUN("Qwen/Qwen3-8B", "16", "450") "]}", &r);
	CHECK_INT(r.status, 200);
	CHECK_INT(warnings_saying(&r, "answered as the catalog's"), 0);
	http_reply_free(&r);
}

static void
test_cli(void)
{
	char *dir = test_tmpdir("server_calibrate_model_note");
	char *ban = test_fixture(dir, "ban.csv", "run_id,platform,tp,model,active_params_b,running,mean_power_w\n"
	                                         "r1,H100,1,Qwen3-8B-Banana,,16,450\nr2,H100,1,Qwen3-8B-Banana,,32,520\n");
	char *unk = test_fixture(dir, "unk.csv", "run_id,platform,tp,model,active_params_b,running,mean_power_w\n"
	                                         "r1,H100,1,Qwen3-8C,,16,450\n");
	char *out = path_join(dir, "c.json");
	run_result r;
	const char *ok[] = { "wattcast", "calibrate", "--profile", "measured", ban, "-o", out, "--bootstrap", "0", NULL };
	CHECK(run_wattcast(ok, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, "shift[Qwen3-8B@H100]");
	CHECK_CONTAINS(r.out, "  warning: " NOTE "\n");
	/* once a name */
	const char *first = r.out ? strstr(r.out, NOTE) : NULL;
	CHECK(first && !strstr(first + 1, NOTE));
	run_result_free(&r);
	const char *typo[] = { "wattcast", "calibrate", "--profile", "measured", unk, "-o", out, "--bootstrap", "0", NULL };
	CHECK(run_wattcast(typo, NULL, &r) == 0);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "unk.csv:2:20: column 'active_params_b': value is required (model 'Qwen3-8C' is not in the "
	                      "catalog: did you mean Qwen3-8B?)");
	run_result_free(&r);
	free(ban);
	free(unk);
	free(out);
	free(dir);
}

int
main(void)
{
	wc_params p = WC_PARAMS_INIT;
	wc_params_measured(&p);
	wc_server *srv = http_server_start(&p, "calibrate-model-note", 4);
	if (!srv)
		return check_report("test_server_calibrate_model_note");
	CURL *h = curl_easy_init();
	test_route(h);
	test_cli();
	curl_easy_cleanup(h);
	wc_server_stop(srv);
	wc_params_clear(&p);
	return check_report("test_server_calibrate_model_note");
}
