/*
 * The planner page's table of a fine-tuning answer (docs/planner.md, "What
 * the page asks and shows"; docs/finetune.md, "Which figure is the
 * prediction") in headless Chromium against a real `wattcast serve`: the
 * page's own quantities() run on the server's answer to a LoRA job, and on
 * a law fitted with bootstrap draws (`wattcast fit finetune`, served as
 * the profile `ftlaw`) and on a law calibrated from one run (`wattcast calibrate finetune`, served as
 * the profile `calibrated`), compared with the same answer fetched here:
 *   - the prediction's energies carry the answer's interval_95, and what it
 *     covers;
 *   - the relations' check values (relations.*) carry no interval and no
 *     "covers": the API gives them none, and the prediction's interval
 *     does not contain them (1.017 J per token beside [0.1867, 0.1895]);
 *   - a calibrated law's factor carries its factor_ci95.
 *
 * Skipped (exit 77) when Chromium is not installed (Debian: chromium).
 */
#include "tests/browser/cdp.h"
#include "tests/browser/page_session.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

#include <math.h>
#include <string.h>

static page_session S;
static cdp *B;
static CURL *H;

#define JOB                                                                                                           \
	"{\"method\":\"lora\",\"model\":\"Qwen3-8B\",\"micro_batch\":4,\"seq_len\":2048,\"grad_accum\":8,"       \
	"\"gpus\":8,\"lora_rank\":16,\"steps\":5000%s}"

/* One ingested 8-GPU run (docs/formats/finetune-runs.md), for calibrate. */
static const char RUNS[] =
	"run_id,platform,gpus,model,params_b,layers,d_model,method,lora_rank,micro_batch,seq_len,grad_accum,"
	"checkpointing,energy_per_step_j,step_s,step_source,energy_per_token_j,flops_per_step_tflop,steps\n"
	"runA,H100,8,meta-llama/Llama-3.1-8B,8.03,32,4096,full,,4,2048,2,false,8285.65,2.0,step_log,0.0632145,"
	"6526.16,230\n";

/* The page's rows for the answer to `body`, as JSON [[key, leaf, value,
 * interval, covers], ...] (new reference). */
static json_t *
page_rows(const char *body)
{
	char expr[1024];
	snprintf(expr, sizeof expr,
	         "(async () => { const r = await fetch('/v1/predict/finetune', { method: 'POST',"
	         " headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(%s) });"
	         " return JSON.stringify(quantities(await r.json())); })()",
	         body);
	char *s = cdp_eval_str(B, expr);
	json_t *rows = json_loads(s, 0, NULL);
	free(s);
	CHECK(json_is_array(rows));
	return rows;
}

static json_t *
row_of(json_t *rows, const char *key)
{
	size_t i;
	json_t *r;
	json_array_foreach(rows, i, r) if (strcmp(json_string_value(json_array_get(r, 0)), key) == 0) return r;
	fprintf(stderr, "no row %s\n", key);
	return NULL;
}

static void
check_same_pair(json_t *got, json_t *want, const char *what)
{
	int ok = json_is_array(got) && json_is_array(want) && json_array_size(got) == 2 && json_array_size(want) == 2;
	for (size_t i = 0; ok && i < 2; i++)
		ok = fabs(json_number_value(json_array_get(got, i)) - json_number_value(json_array_get(want, i))) < 1e-12;
	if (!ok)
		fprintf(stderr, "%s: the page's interval is not the API's\n", what);
	CHECK(ok);
}

static void
check_relations(void)
{
	char body[512];
	snprintf(body, sizeof body, JOB, ",\"profile\":\"ftlaw\"");
	json_t *a = page_api_post(H, url("/v1/predict/finetune"), body);
	CHECK(a != NULL);
	json_t *rows = page_rows(body);
	json_t *iv = json_object_get(a, "interval_95");
	json_t *top = row_of(rows, "energy_per_token_j");
	CHECK(top != NULL);
	if (top) {
		check_same_pair(json_array_get(top, 3), json_object_get(iv, "energy_per_token_j"), "energy_per_token_j");
		const char *cov = json_string_value(json_array_get(top, 4)), *want = json_string_value(json_object_get(iv, "covers"));
		CHECK(cov && want && strcmp(cov, want) == 0);
	}
	const char *rel[] = { "batch_size", "sequence_length", "model_size" };
	for (int i = 0; i < 3; i++) {
		char key[128];
		snprintf(key, sizeof key, "relations.%s.energy_per_token_j", rel[i]);
		json_t *r = row_of(rows, key);
		CHECK(r != NULL);
		if (!r)
			continue;
		json_t *riv = json_array_get(r, 3);
		if (!(json_is_null(riv) || !riv))
			fprintf(stderr, "%s: an interval the API does not give it\n", key);
		CHECK(json_is_null(riv) || !riv);
		const char *cov = json_string_value(json_array_get(r, 4));
		if (!(cov && !cov[0]))
			fprintf(stderr, "%s: covers \"%s\" with no interval\n", key, cov ? cov : "(null)");
		CHECK(cov && !cov[0]);
		CHECK_NEAR(json_number_value(json_array_get(r, 2)),
		           json_number_value(json_object_get(json_object_get(json_object_get(a, "relations"), rel[i]),
		                                             "energy_per_token_j")),
		           1e-12);
	}
	json_decref(rows);
	json_decref(a);
}

static void
check_calibrated_factor(void)
{
	char body[512];
	snprintf(body, sizeof body, JOB, ",\"profile\":\"calibrated\"");
	json_t *a = page_api_post(H, url("/v1/predict/finetune"), body);
	CHECK(a != NULL);
	json_t *cal = json_object_get(json_object_get(a, "law"), "calibrated");
	CHECK(json_is_object(cal));
	json_t *rows = page_rows(body);
	json_t *r = row_of(rows, "law.calibrated.factor");
	CHECK(r != NULL);
	if (r) {
		check_same_pair(json_array_get(r, 3), json_object_get(cal, "factor_ci95"), "law.calibrated.factor");
		CHECK(strlen(json_string_value(json_array_get(r, 4))) > 0);
	}
	json_decref(rows);
	json_decref(a);
}

/* A fitted fine-tuning law with bootstrap draws (so its answers carry
 * interval_95), written as the profile `ftlaw`. */
static char *
fitted_law(const char *dir)
{
	char *runs = path_join(dir, "ft.csv"), *law = path_join(dir, "ftlaw.json");
	const char *sim[] = { "wattcast", "simulate", "finetune", "--seed", "3", "-o", runs, NULL };
	test_run_ok(sim);
	const char *fit[] = { "wattcast", "fit", "finetune", runs, "-o", law, "--bootstrap", "100", "--seed", "5",
	                      "--threads", "2", NULL };
	test_run_ok(fit);
	json_t *j = json_load_file(law, 0, NULL);
	CHECK(j != NULL);
	json_object_set_new(j, "name", json_string("ftlaw"));
	CHECK_INT(json_dump_file(j, law, 0), 0);
	json_decref(j);
	free(runs);
	return law;
}

int
main(void)
{
	char *dir = test_tmpdir("browser_finetune_answer_sets");
	char *runs = test_fixture(dir, "runs.csv", RUNS);
	char *cal = path_join(dir, "calibrated.json");
	const char *argv[] = { "wattcast", "calibrate", "finetune", runs, "-o", cal, NULL };
	test_run_ok(argv);
	char *law = fitted_law(dir);
	const char *more[] = { cal, law, NULL };
	int rc = page_session_open_more(&S, "browser_finetune_answer", more);
	free(runs);
	free(cal);
	free(law);
	free(dir);
	if (rc == TEST_SKIP)
		return TEST_SKIP;
	B = S.b;
	H = S.h;
	if (B) {
		http_set_base(S.port);
		char link[128];
		snprintf(link, sizeof link, "http://127.0.0.1:%d/", S.port);
		CHECK_INT(cdp_navigate(B, link), 0);
		CHECK(page_wait_runs(B, 1));
		check_relations();
		check_calibrated_factor();
		CHECK_INT(cdp_page_errors(B), 0);
	}
	page_session_close(&S);
	return check_report("test_browser_finetune_answer");
}
