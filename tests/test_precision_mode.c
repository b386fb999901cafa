/*
 * How a fit took quantized runs is recorded in its set (schema 9,
 * `provenance.precision_mode`; docs/formats/params-file.md) and a refit of
 * the set -- a held-out fold -- is built the same way (docs/validation.md,
 * "Refitting a set"): a set fitted with quantized runs left out refits
 * without them, one fitted with them as bf16 refits with them. Older files
 * and sets that do not record it keep the previous rule; a /8 file may not
 * carry the key, and a bad value is refused by path.
 */
#include "data/data.h"
#include "fit/fit.h"
#include "tests/support/support.h"
#include "tests/support/synth_runs.h"

#include <gsl/gsl_errno.h>
#include <stdlib.h>
#include <string.h>

/* Fit `t` with quantized runs taken as `mode` (a WC_TERMS_*); the set
 * records it, a refit built like the set uses the same runs, and the
 * file carries it. */
static void
fit_records(const wc_runs_table *t, const wc_params *prior, int mode, wc_precision_mode want,
            const char *name)
{
	wc_fit_options fo = WC_FIT_OPTIONS_INIT, like = WC_FIT_OPTIONS_INIT;
	wc_fit_result r, again;
	wc_error err;
	fo.prior = prior;
	fo.precision_terms = mode;
	CHECK_INT(wc_fit_inference_law(t, &fo, &r, &err), WC_OK);
	CHECK_INT((int)r.params.precision_mode, (int)want);
	like.prior = prior;
	wc_fit_options_like(&like, &r.params, -1);
	CHECK_INT(like.precision_terms, mode);
	CHECK_INT(wc_fit_inference_law(t, &like, &again, &err), WC_OK);
	CHECK_INT(again.n_used, r.n_used);
	char *dump = wc_params_dump(&r.params, 1, &err), key[64];
	snprintf(key, sizeof key, "\"precision_mode\": \"%s\"", name);
	CHECK_CONTAINS(dump, key);
	wc_params back = WC_PARAMS_INIT;
	CHECK_INT(wc_params_load_buffer(dump, strlen(dump), "t.json", &back, &err), WC_OK);
	CHECK_INT((int)back.precision_mode, (int)want);
	free(dump);
	wc_params_clear(&back);
	wc_fit_result_clear(&r);
	wc_fit_result_clear(&again);
}

static void
file_versions(void)
{
	wc_params p = WC_PARAMS_INIT, q = WC_PARAMS_INIT;
	wc_error err;
	wc_params_default(&p);
	p.precision_mode = WC_PMODE_AS_BF16;
	char *s = wc_params_dump(&p, 1, &err);
	CHECK_CONTAINS(s, "\"schema\": \"wattcast.params/19\"");
	/* A /8 file may not carry the key. */
	s = test_replaced(s, "\"schema\": \"wattcast.params/19\"", "\"schema\": \"wattcast.params/8\"");
	CHECK(wc_params_load_buffer(s, strlen(s), "v8", &q, &err) != WC_OK);
	CHECK_CONTAINS(err.msg, "/provenance/precision_mode");
	/* A bad value is refused by path, naming the choices. */
	s = test_replaced(s, "\"schema\": \"wattcast.params/8\"", "\"schema\": \"wattcast.params/9\"");
	s = test_replaced(s, "\"as-bf16\"", "\"bf16\"");
	CHECK(wc_params_load_buffer(s, strlen(s), "v9", &q, &err) != WC_OK);
	CHECK_CONTAINS(err.msg, "/provenance/precision_mode");
	CHECK_CONTAINS(err.msg, "as-bf16");
	free(s);
	/* A set that does not record it writes no key; as a /8 file it loads,
	 * unknown, and a refit keeps the old rule: the paper profile's terms
	 * make it a term per level. */
	p.precision_mode = WC_PMODE_UNKNOWN;
	s = wc_params_dump(&p, 1, &err);
	CHECK(s && strstr(s, "precision_mode") == NULL);
	s = test_replaced(s, "\"schema\": \"wattcast.params/19\"", "\"schema\": \"wattcast.params/8\"");
	CHECK_INT(wc_params_load_buffer(s, strlen(s), "v8", &q, &err), WC_OK);
	CHECK_INT((int)q.precision_mode, (int)WC_PMODE_UNKNOWN);
	wc_fit_options like = WC_FIT_OPTIONS_INIT;
	CHECK(q.n_terms > 0);
	wc_fit_options_like(&like, &q, -1);
	CHECK_INT(like.precision_terms, WC_TERMS_PER_LEVEL);
	q.n_terms = 0;
	wc_fit_options_like(&like, &q, -1);
	CHECK_INT(like.precision_terms, WC_TERMS_AS_BF16);
	/* A paired set refits its own terms as specs. */
	wc_params_default(&q);
	q.precision_mode = WC_PMODE_PAIRED;
	wc_fit_options_like(&like, &q, -1);
	CHECK(like.term_specs == q.terms && like.n_term_specs == q.n_terms);
	CHECK_INT(wc_fit_precision_mode(&like), (int)WC_PMODE_PAIRED);
	/* Paired runs that kept no term (ML.ENERGY's): still paired, not
	 * "all", which refits would read as a term per level. */
	wc_fit_options none_kept = WC_FIT_OPTIONS_INIT;
	wc_precision_term no_specs[1];
	none_kept.term_specs = no_specs;
	none_kept.n_term_specs = 0;
	CHECK_INT(wc_fit_precision_mode(&none_kept), (int)WC_PMODE_PAIRED);
	/* --terms replaces the recipe, the paired set's specs included (they
	 * would otherwise take precedence over the mode in the fit) */
	wc_fit_options_like(&like, &q, WC_TERMS_AS_BF16);
	CHECK(like.term_specs == NULL && like.n_term_specs == 0);
	CHECK_INT(like.precision_terms, WC_TERMS_AS_BF16);
	CHECK_INT(wc_fit_precision_mode(&like), (int)WC_PMODE_AS_BF16);
	free(s);
	wc_params_clear(&p);
	wc_params_clear(&q);
}

int
main(void)
{
	wc_params paper = WC_PARAMS_INIT;
	wc_runs_table *t = wc_runs_new();
	wc_pcg32 rng;
	gsl_set_error_handler_off();
	wc_params_default(&paper);
	wc_pcg32_seed(&rng, 9, 0);
	static const double sizes[] = { 1.7, 8.2, 14.8, 32.8 };
	int id = 0;
	for (size_t m = 0; m < sizeof sizes / sizeof sizes[0]; m++)
		for (int n = 1; n <= 256; n *= 2)
		{
			char model[16];
			snprintf(model, sizeof model, "m%.0f", sizes[m]);
			/* the power is bf16's: the as-bf16 recipe's assumption */
			synth_law_run(t, &paper, model, sizes[m], 1, n, n >= 64 && m % 2 ? WC_PREC_FP8 : WC_PREC_BF16, 0.02,
			              id++, &rng);
		}
	fit_records(t, &paper, WC_TERMS_NONE, WC_PMODE_NONE, "none");
	fit_records(t, &paper, WC_TERMS_AS_BF16, WC_PMODE_AS_BF16, "as-bf16");
	/* The two recipes use different runs, so a refit that ignored the
	 * record would differ from one of them. */
	wc_fit_options a = WC_FIT_OPTIONS_INIT, b = WC_FIT_OPTIONS_INIT;
	wc_fit_result ra, rb;
	wc_error err;
	a.prior = b.prior = &paper;
	a.precision_terms = WC_TERMS_NONE;
	b.precision_terms = WC_TERMS_AS_BF16;
	CHECK_INT(wc_fit_inference_law(t, &a, &ra, &err), WC_OK);
	CHECK_INT(wc_fit_inference_law(t, &b, &rb, &err), WC_OK);
	CHECK(ra.n_used < rb.n_used);
	wc_fit_result_clear(&ra);
	wc_fit_result_clear(&rb);
	file_versions();
	wc_runs_free(t);
	wc_params_clear(&paper);
	return check_report("test_precision_mode");
}
