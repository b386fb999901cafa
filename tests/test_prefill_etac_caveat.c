/*
 * An answer from a capacity section whose eta_c no row of a known prompt
 * length fitted says so (docs/capacity.md, "The built-in profile"): the
 * `paper-prefill` profile, which every long-prompt answer of `measured`
 * names, answered a 4129-token prompt on an A100 in 1.40 s where the
 * PowerTrace-Sim smoke replays measured 0.28-0.37 s, with no caveat. The
 * `measured` section (eta_c fitted on TTFTs) does not say it, nor does an
 * answer without a prompt. An envelope's prefills run on the same eta_c,
 * and its answer carries the same line (the one span function,
 * wc__capacity_span_warnings, through wc_service_calibration_notes), in
 * its text and its JSON, under paper and paper-prefill, not measured.
 */
#include "predict/predict.h"
#include "predict/capacity_predict.h"
#include "models/models.h"
#include "data/params_file.h"
#include "tests/support/support.h"

#include <math.h>
#include <string.h>

static const char *
etac_note(const char *profile, double in)
{
	static char keep[256];
	wc_params p = WC_PARAMS_INIT;
	wc_predictor *pr = NULL;
	wc_capacity_prediction o;
	wc_error err;
	keep[0] = '\0';
	CHECK_INT(wc_params_profile(profile, &p, &err), WC_OK);
	CHECK_INT(wc_predictor_new(&p, &pr, &err), WC_OK);
	wc_inference_query q = { .config = test_catalog_config("A100", 1, "Qwen3-8B", 1) };
	q.config.input_tokens = in;
	q.config.output_tokens = 41;
	CHECK_INT(wc_predict_capacity(pr, &q, NAN, NAN, &o, &err), WC_OK);
	for (int i = 0; i < o.n_warnings; i++)
		if (strstr(o.warnings[i], "capacity: eta_c = "))
			snprintf(keep, sizeof keep, "%s", o.warnings[i]);
	wc_predictor_free(pr);
	wc_params_clear(&p);
	return keep[0] ? keep : NULL;
}

/* Whether `wattcast envelope` under `profile` says the caveat. */
static int
envelope_says(const char *profile, int json)
{
	const char *argv[] = { "wattcast", "envelope", "--profile", profile, "--platform", "A100", "--model", "Qwen3-8B",
		               "--poisson", "1", "--input-tokens", "4129", "--output-tokens", "41", "--horizon", "20",
		               "--replicas", "1", json ? "--json" : NULL, NULL };
	run_result r;
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	const char *out = r.out ? r.out : "";
	int said = strstr(out, "capacity: eta_c = ") != NULL;
	if (said)
		CHECK_CONTAINS(out, "was fitted with no prompt length known, so its rows do not identify it");
	run_result_free(&r);
	return said;
}

int
main(void)
{
	for (int json = 0; json < 2; json++) {
		CHECK(envelope_says("paper", json));
		CHECK(envelope_says("paper-prefill", json));
		CHECK(!envelope_says("measured", json));
	}
	const char *w = etac_note("paper-prefill", 4129);
	CHECK(w != NULL);
	CHECK_CONTAINS(w ? w : "", "capacity: eta_c = 0.164 was fitted with no prompt length known, so its rows do not "
	                           "identify it: on real TTFTs it makes prefill 3-5x too slow");
	CHECK(w && strlen(w) <= 255 && strstr(w, "(docs/capacity.md)"));
	CHECK(etac_note("paper", 4129) != NULL); /* the same section */
	CHECK(etac_note("measured", 4129) == NULL);
	CHECK(etac_note("paper-prefill", 0) == NULL);
	return check_report("test_prefill_etac_caveat");
}
