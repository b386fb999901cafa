/*
 * One law for the point estimate and every bootstrap draw: the interval
 * path evaluates each draw through the same bound law as the point value
 * (models/law.c). Two checks, each on configurations where every log of
 * the law is non-zero (tp > 1, a load series, a precision term, a locked
 * clock):
 *   - every draw equal to the point estimate: the interval collapses onto
 *     the point value;
 *   - two draws A and B: the interval's bounds are the type-7 percentiles
 *     of the law evaluated on a copy of the set holding A's or B's values.
 */
#include "predict/predict.h"
#include "tests/support/check.h"

#include <stdlib.h>

/* Every parameter of the profile becomes "fitted", so the named vector
 * (and the draws) cover all of them. */
static void
fitted_profile(wc_params *p)
{
	wc_params_default(p);
	for (int i = 0; i < p->n_levels; i++) {
		wc_level *l = &p->levels[i];
		if (!l->s_shared_with[0])
			l->s.source = WC_SRC_FITTED;
		l->theta.source = l->p0.source = WC_SRC_FITTED;
	}
	p->delta.source = p->gamma1.source = p->gamma2.source = p->kappa.source = WC_SRC_FITTED;
	for (int i = 0; i < p->n_terms; i++)
		if (p->terms[i].kept)
			p->terms[i].value.source = WC_SRC_FITTED;
	/* a locked host whose theta keeps the clock term visible */
	p->levels[3].theta.value = 1.2;
}

static double
point_power(const wc_params *p, const wc_inference_query *q)
{
	wc_predictor *pr;
	wc_inference_prediction o;
	wc_inference_query plain = *q;
	wc_error err;
	plain.want_interval = 0;
	CHECK_INT(wc_predictor_new(p, &pr, &err), WC_OK);
	CHECK_INT(wc_predict_inference(pr, &plain, &o, &err), WC_OK);
	wc_predictor_free(pr);
	return o.power.node_power_w;
}

/* The configurations: each exercises one part of the law away from zero. */
static const double series[6] = { 0, 3, 3, 17, 40, 0.5 };

static void
queries(wc_inference_query q[4])
{
	for (int i = 0; i < 4; i++) {
		memset(&q[i], 0, sizeof q[i]);
		q[i].config = (wc_config)WC_CONFIG_INIT;
		q[i].want_interval = 1;
		q[i].config.active_params_b = 14.8;
		q[i].config.running = 24;
	}
	q[0].config.platform = "H100"; /* tp > 1 */
	q[0].config.tp = 4;
	q[1].config.platform = "A100"; /* a load series */
	q[1].config.tp = 2;
	q[1].running_series = series;
	q[1].series_len = 6;
	q[1].dt_s = 0.05;
	q[2].config.platform = "H200"; /* precision terms: a shift and a factor */
	q[2].config.weights = WC_PREC_INT4;
	q[2].config.kv = WC_PREC_FP8;
	q[3].config.platform = "H100-locked"; /* shared S and the clock term */
	q[3].config.sm_clock_mhz = 1410;
}

int
main(void)
{
	wc_params p = WC_PARAMS_INIT, a = WC_PARAMS_INIT, b = WC_PARAMS_INIT;
	wc_error err;
	wc_inference_query q[4];
	fitted_profile(&p);
	queries(q);
	int k = wc_params_vector_names(&p, NULL, 0);
	CHECK(k >= 16); /* 3 S, 4 theta, 4 P0, delta, gamma1, gamma2, kappa, 3 terms */
	char (*names)[WC_LABEL_MAX] = calloc((size_t)k, sizeof *names);
	double *rows = calloc((size_t)k * 3, sizeof *rows);
	wc_params_vector_names(&p, names, k);

	/* The draws' own interval: without the law's held-out error. */
	p.pred_error.present = 0;
	/* 1. Every draw equals the point estimate: no interval, never a
	 *    zero-width one (docs/intervals.md). */
	for (int r = 0; r < 3; r++)
		for (int j = 0; j < k; j++)
			CHECK_INT(wc_params_get_named(&p, names[j], &rows[r * k + j]), WC_OK);
	CHECK_INT(wc_params_set_draws(&p, 3, k, (const char (*)[WC_LABEL_MAX])names, rows, &err), WC_OK);
	wc_predictor *pr;
	CHECK_INT(wc_predictor_new(&p, &pr, &err), WC_OK);
	for (int i = 0; i < 4; i++) {
		wc_inference_prediction o;
		CHECK_INT(wc_predict_inference(pr, &q[i], &o, &err), WC_OK);
		CHECK(!o.has_interval && isnan(o.node_lo_w) && isnan(o.node_hi_w));
		CHECK_CONTAINS(o.warnings[o.n_warnings - 1], "interval_95: none");
	}
	wc_predictor_free(pr);

	/* 2. Two different draws: each moves every parameter. */
	CHECK_INT(wc_params_copy(&a, &p, &err), WC_OK);
	CHECK_INT(wc_params_copy(&b, &p, &err), WC_OK);
	for (int j = 0; j < k; j++) {
		double v = rows[j];
		double sa = strncmp(names[j], "S[", 2) == 0 || strncmp(names[j], "P0[", 3) == 0 ? 0.95 * v
		          : strncmp(names[j], "term[kv", 7) == 0 ? v * 0.98 : v - 0.05;
		double sb = strncmp(names[j], "S[", 2) == 0 || strncmp(names[j], "P0[", 3) == 0 ? 1.04 * v
		          : strncmp(names[j], "term[kv", 7) == 0 ? v * 1.01 : v + 0.04;
		rows[j] = sa;
		rows[k + j] = sb;
		CHECK_INT(wc_params_set_named(&a, names[j], sa), WC_OK);
		CHECK_INT(wc_params_set_named(&b, names[j], sb), WC_OK);
	}
	CHECK_INT(wc_params_set_draws(&p, 2, k, (const char (*)[WC_LABEL_MAX])names, rows, &err), WC_OK);
	CHECK_INT(wc_predictor_new(&p, &pr, &err), WC_OK);
	for (int i = 0; i < 4; i++) {
		wc_inference_prediction o;
		double pa = point_power(&a, &q[i]), pb = point_power(&b, &q[i]);
		double lo = fmin(pa, pb), hi = fmax(pa, pb);
		CHECK(hi - lo > 1.0); /* the draws really differ here */
		CHECK_INT(wc_predict_inference(pr, &q[i], &o, &err), WC_OK);
		CHECK_INT(o.n_draws, 2);
		CHECK_NEAR(o.node_lo_w, lo + 0.025 * (hi - lo), 1e-9 * hi);
		CHECK_NEAR(o.node_hi_w, hi - 0.025 * (hi - lo), 1e-9 * hi);
	}
	wc_predictor_free(pr);
	wc_params_clear(&p);
	wc_params_clear(&a);
	wc_params_clear(&b);
	free(names);
	free(rows);
	return check_report("test_law_draws");
}
