/*
 * A model term records the span of the runs it was calibrated on, as a
 * new level does (docs/calibration.md, "Model scope"), in the parameter
 * file's model_terms/K/range (schema 19, docs/formats/params-file.md),
 * and an answer naming the model on the level outside that span says so.
 * Until 2026-12-07 the term kept no span: the README's PowerTrace-Sim
 * table calibrated on `paper` answered Qwen3-8B on A100 at 256 running
 * (its six runs loaded 1-20) with warnings about kappa and the power cap
 * only. A /18 file's term (no range) still loads, its span unknown (no
 * warning); a /18 file may not carry one.
 */
#include "data/data.h"
#include "fit/fit.h"
#include "predict/predict.h"
#include "tests/support/support.h"

#include <gsl/gsl_errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char want_far[] = "concurrency: load 64 is outside the calibrated span 4-16 of the runs of model term "
                               "Qwen3-8B on H100";

static void
add(wc_runs_table *t, const char *id, double n, double power)
{
	wc_run r;
	wc_run_init(&r);
	snprintf(r.run_id, sizeof r.run_id, "%s", id);
	snprintf(r.platform, sizeof r.platform, "H100");
	snprintf(r.model, sizeof r.model, "Qwen/Qwen3-8B");
	r.active_params_b = 8.19;
	r.running = n;
	r.mean_power_w = power;
	r.idle_power_w = 70.0;
	wc_runs_append(t, &r, NULL);
}

/* The warnings of an answer for Qwen3-8B on H100 at `n` running that
 * name the term's span; each whole. */
static int
term_warnings(const wc_params *p, double n, const char *want)
{
	wc_predictor *pr = NULL;
	wc_error err;
	wc_inference_prediction a;
	int found = 0, any = 0;
	CHECK_INT(wc_predictor_new(p, &pr, &err), WC_OK);
	wc_inference_query q = { .config = test_catalog_config("H100", 1, "Qwen3-8B", n) };
	CHECK_INT(wc_predict_inference(pr, &q, &a, &err), WC_OK);
	for (int i = 0; i < a.n_warnings; i++) {
		any += strstr(a.warnings[i], "of the runs of model term") != NULL;
		found |= want && strcmp(a.warnings[i], want) == 0;
		CHECK(strlen(a.warnings[i]) < WC_WARNING_LEN - 1);
	}
	wc_predictor_free(pr);
	return want ? found : any;
}

int
main(void)
{
	wc_params base = WC_PARAMS_INIT, loaded = WC_PARAMS_INIT;
	wc_calibrate_options o = WC_CALIBRATE_OPTIONS_INIT;
	wc_calibrate_result r;
	wc_error err;
	gsl_set_error_handler_off();
	wc_params_default(&base);
	wc_runs_table *t = wc_runs_new();
	add(t, "a", 4, 300.0);
	add(t, "b", 16, 450.0);
	o.replicates = -1;
	CHECK_INT(wc_calibrate(&base, t, &o, &r, &err), WC_OK);
	const wc_model_term *term = wc_params_find_model_term(&r.params, "Qwen3-8B", "H100");
	CHECK(term != NULL);
	if (term) {
		printf("  term span: %g-%g running, %g-%g B, tp %d-%d, %d runs\n", term->range.running_min,
		       term->range.running_max, term->range.active_b_min, term->range.active_b_max, term->range.tp_min,
		       term->range.tp_max, term->range.runs);
		CHECK_NEAR(term->range.running_min, 4, 0);
		CHECK_NEAR(term->range.running_max, 16, 0);
		CHECK_NEAR(term->range.active_b_min, 8.19, 0);
		CHECK_INT(term->range.tp_max, 1);
		CHECK_INT(term->range.runs, 2);
	}
	/* Outside the runs' span: said; inside: not. */
	CHECK(term_warnings(&r.params, 64, want_far));
	CHECK_INT(term_warnings(&r.params, 8, NULL), 0);

	/* Written and read back (schema 19). */
	char *dump = wc_params_dump(&r.params, 0, &err);
	CHECK(dump && strstr(dump, "\"wattcast.params/19\""));
	CHECK_INT(wc_params_load_buffer(dump, strlen(dump), "cal.json", &loaded, &err), WC_OK);
	term = wc_params_find_model_term(&loaded, "Qwen3-8B", "H100");
	CHECK(term && term->range.running_max == 16 && term->range.runs == 2);
	CHECK(term_warnings(&loaded, 64, want_far));

	/* A /18 file: its term without a range loads, span unknown, no
	 * warning; with one it is refused at the key. */
	json_error_t jerr;
	json_t *root = json_loads(dump, 0, &jerr);
	CHECK(root != NULL);
	json_object_set_new(root, "schema", json_string("wattcast.params/18"));
	char *v18_range = json_dumps(root, JSON_COMPACT);
	json_object_del(json_array_get(json_object_get(root, "model_terms"), 0), "range");
	char *v18 = json_dumps(root, JSON_COMPACT);
	CHECK_INT(wc_params_load_buffer(v18, strlen(v18), "old.json", &loaded, &err), WC_OK);
	term = wc_params_find_model_term(&loaded, "Qwen3-8B", "H100");
	CHECK(term && !(term->range.running_max > 0));
	CHECK_INT(term_warnings(&loaded, 64, NULL), 0);
	CHECK(wc_params_load_buffer(v18_range, strlen(v18_range), "old.json", &loaded, &err) != WC_OK);
	CHECK_CONTAINS(err.msg, "/model_terms/0/range: needs \"wattcast.params/19\" or later");

	CHECK(test_doc_says("docs/calibration.md", "the model scope records its runs' span"));
	CHECK(test_doc_says("docs/formats/params-file.md", "`wattcast.params/19`"));
	free(v18);
	free(v18_range);
	json_decref(root);
	free(dump);
	wc_calibrate_result_clear(&r);
	wc_params_clear(&loaded);
	wc_params_clear(&base);
	wc_runs_free(t);
	return check_report("test_calibrate_term_span");
}
