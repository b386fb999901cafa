/*
 * Level names are case-insensitive, as --platform is
 * (docs/formats/params-file.md, "Levels"): the paper profile with every
 * level, sharing target and precision term spelled in lower case answers
 * "H100" from its own h100 level, exactly as the profile does, not by a
 * datasheet transfer (it gave 580.8 W against 550.1 W); "H100-LOCKED"
 * is the paper profile's own H100-locked level; and an answer echoes the
 * set's spelling.
 */
#include "data/data.h"
#include "models/params.h"
#include "predict/predict.h"
#include "tests/support/support.h"

#include <ctype.h>
#include <math.h>
#include <string.h>

static void
lower(char *s)
{
	for (; *s; s++)
		*s = (char)tolower((unsigned char)*s);
}

static double
answer(const wc_params *p, const char *platform, char *echo, size_t cap, const char **source)
{
	wc_predictor *pr = NULL;
	wc_error err;
	wc_inference_prediction out;
	double w = -1.0;
	CHECK_INT(wc_predictor_new(p, &pr, &err), WC_OK);
	wc_inference_query q = { .config = { .platform = platform, .tp = 1, .active_params_b = 8, .running = 32 } };
	if (pr && wc_predict_inference(pr, &q, &out, &err) == WC_OK) {
		w = out.power.node_power_w;
		*source = out.level_source;
		/* what CLI and HTTP answers echo */
		const char *named = wc_params_platform(p, platform);
		snprintf(echo, cap, "%s", named ? named : "(unknown)");
	} else {
		fprintf(stderr, "%s: %s\n", platform, err.msg);
	}
	wc_predictor_free(pr);
	return w;
}

int
main(void)
{
	wc_params paper = WC_PARAMS_INIT, low = WC_PARAMS_INIT;
	wc_error err;
	char echo[WC_NAME_MAX];
	const char *src = NULL, *src_low = NULL;
	wc_params_default(&paper);
	CHECK_INT(wc_params_copy(&low, &paper, &err), WC_OK);
	for (int i = 0; i < low.n_levels; i++) {
		lower(low.levels[i].name);
		lower(low.levels[i].s_shared_with);
	}
	for (int k = 0; k < low.n_terms; k++)
		lower(low.terms[k].level);
	CHECK_INT(wc_params_validate(&low, &err), WC_OK);

	double want = answer(&paper, "H100", echo, sizeof echo, &src);
	double got = answer(&low, "H100", echo, sizeof echo, &src_low);
	CHECK(want > 0);
	CHECK_NEAR(got, want, 1e-9 * want);
	CHECK(src && src_low && strcmp(src, src_low) == 0);
	CHECK(strcmp(echo, "h100") == 0);
	/* the catalog's alias of the board reaches the set's level too */
	got = answer(&low, "H100-SXM5", echo, sizeof echo, &src_low);
	CHECK_NEAR(got, want, 1e-9 * want);
	CHECK(strcmp(echo, "h100") == 0);
	/* a custom level of the built-in profile, shouted */
	want = answer(&paper, "H100-locked", echo, sizeof echo, &src);
	got = answer(&paper, "H100-LOCKED", echo, sizeof echo, &src_low);
	CHECK(want > 0);
	CHECK_NEAR(got, want, 1e-9 * want);
	CHECK(strcmp(echo, "H100-locked") == 0);
	CHECK(wc_params_level(&low, "H100-Locked") == wc_params_level(&low, "h100-locked"));

	/* a model term on "h100" in a set whose level is "H100" is that
	 * level's: it loaded and was then never found (+16 % power) */
	wc_model_term *t = &paper.model_terms[paper.n_model_terms++];
	snprintf(t->model, sizeof t->model, "Qwen3-8B");
	snprintf(t->level, sizeof t->level, "h100");
	t->shift = (wc_param){ .value = -0.5, .lo = NAN, .hi = NAN, .source = WC_SRC_CALIBRATED };
	t->runs = 3;
	CHECK_INT(wc_params_validate(&paper, &err), WC_OK);
	CHECK(wc_params_find_model_term(&paper, "Qwen3-8B", "H100") == t);
	CHECK(wc_params_find_model_term(&paper, "qwen/qwen3-8b", "h100") == t);

	/* a capacity or response level named by a catalog alias of the board
	 * (the loader takes such names) is that board's: it was never found */
	wc_params meas = WC_PARAMS_INIT;
	CHECK_INT(wc_params_profile("measured", &meas, &err), WC_OK);
	const wc_capacity_level *h = wc_capacity_level_find(&meas.capacity, "H100");
	CHECK(h != NULL);
	if (h) {
		snprintf(meas.capacity.levels[h - meas.capacity.levels].name, WC_NAME_MAX, "H100-SXM5");
		CHECK(wc_capacity_level_find(&meas.capacity, "H100") == h);
		CHECK(wc_capacity_level_find(&meas.capacity, "H100-NVL") == NULL); /* another board */
	}
	wc_response_params r = meas.response;
	r.tau_s.value = 0.1;
	r.n_levels = 1;
	snprintf(r.levels[0].level, sizeof r.levels[0].level, "H100-SXM5");
	r.levels[0].tau_s.value = 0.3;
	CHECK_NEAR(wc_response_tau_for(&r, "H100"), 0.3, 0);
	CHECK_NEAR(wc_response_tau_for(&r, "A100"), 0.1, 0);
	wc_params_clear(&meas);
	/* a draw column names its level as a term does: in any case */
	char dn[1][WC_LABEL_MAX] = { "theta[H100]" };
	double dv[2] = { 1.0, 2.0 };
	CHECK_INT(wc_params_set_draws(&paper, 2, 1, (const char (*)[WC_LABEL_MAX])dn, dv, &err), WC_OK);
	CHECK_INT(wc_params_draw_column(&paper, "theta[h100]"), 0);

	wc_params_clear(&paper);
	wc_params_clear(&low);
	return check_report("test_level_case");
}
