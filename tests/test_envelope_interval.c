/*
 * The envelope's predictive interval (docs/envelopes.md "Outputs",
 * docs/intervals.md): with a prediction_error section, the mean and p95
 * get the law's held-out error around the simulated value -- containing
 * it, with width, exactly value x exp([q_lo, q_hi]) -- reported apart from
 * the Monte-Carlo spread (each metric's p5 / p95 keep their names); without
 * one, no interval (null in JSON), and the spread is unchanged.
 */
#include "predict/predict.h"
#include "server/server.h"
#include "tests/support/check.h"

#include <gsl/gsl_errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void
run(const wc_params *p, wc_envelope_result *r, wc_power_map *pm, wc_power_map_law *store,
    wc_capacity_service_store *ss, wc_service_times *st, wc_envelope_workload *w, wc_envelope_options *o,
    wc_config *c)
{
	wc_error err;
	*c = (wc_config)WC_CONFIG_INIT;
	c->platform = "A100";
	c->arch = wc_model_lookup("Qwen3-8B");
	c->active_params_b = c->arch->active_params_b;
	CHECK_INT(wc_power_map_from_law(p, c, NULL, store, pm, &err), WC_OK);
	CHECK_INT(wc_roofline_standin_init(ss, c, &err), WC_OK);
	wc_roofline_standin_service(ss, st);
	wc_envelope_workload_init(w);
	w->kind = WC_ENVELOPE_POISSON;
	w->rate = 2.0;
	wc_envelope_options_init(o);
	o->horizon_s = 120;
	o->replicas = 4;
	CHECK_INT(wc_envelope_run(w, st, pm, o, r, &err), WC_OK);
}

static json_t *
rendered(const wc_envelope_result *r, const wc_power_map *pm, const wc_service_times *st,
         const wc_envelope_workload *w, const wc_envelope_options *o, const wc_config *c)
{
	wc_response_params resp;
	wc_error err;
	wc_response_assumed(&resp);
	wc_envelope_render ctx = { .config = c, .workload = w, .options = o, .response = &resp,
		                   .response_source = "assumed", .power = pm, .service = st, .params_version = "t" };
	char *s = wc_render_envelope(&ctx, r, 0, &err);
	json_t *j = s ? json_loads(s, 0, NULL) : NULL;
	free(s);
	CHECK(j != NULL);
	return j;
}

int
main(void)
{
	gsl_set_error_handler_off();
	wc_params p = WC_PARAMS_INIT;
	wc_envelope_result r;
	wc_power_map pm;
	wc_power_map_law store;
	wc_capacity_service_store ss;
	wc_service_times st;
	wc_envelope_workload w;
	wc_envelope_options o;
	wc_config c;
	wc_params_default(&p);
	/* The built-in set has a prediction_error section: without it, no
	 * interval, and the spread as before. */
	wc_pred_error builtin = p.pred_error;
	CHECK(builtin.present && builtin.n_strata > 0);
	p.pred_error = (wc_pred_error){ 0 };
	run(&p, &r, &pm, &store, &ss, &st, &w, &o, &c);
	CHECK(!pm.has_pe && isnan(r.server_interval.mean_lo) && isnan(r.server_interval.p95_hi));
	double spread_lo = r.server.mean_w.lo, spread_hi = r.server.mean_w.hi, mean = r.server.mean_w.value;
	json_t *j = rendered(&r, &pm, &st, &w, &o, &c);
	CHECK(json_is_null(json_object_get(json_object_get(j, "server"), "interval_95")));
	json_decref(j);
	wc_envelope_result_clear(&r);
	/* A pooled stratum of 40 held-out runs, -10 % / +12 % in log terms. */
	wc_pe_stratum s = { .platform = "", .source = "", .n = 40, .q_lo = -0.10, .q_hi = 0.12 };
	p.pred_error = (wc_pred_error){ 0 };
	p.pred_error.present = 1;
	p.pred_error.level = 0.95;
	CHECK_INT(wc_pe_add(&p.pred_error, &s), WC_OK);
	run(&p, &r, &pm, &store, &ss, &st, &w, &o, &c);
	CHECK(pm.has_pe && pm.pe.n == 40);
	const wc_envelope_interval *iv = &r.server_interval;
	fprintf(stderr, "mean %.2f W: spread [%.2f, %.2f], predictive [%.2f, %.2f]; p95 %.2f W: predictive [%.2f, %.2f]\n",
	        r.server.mean_w.value, r.server.mean_w.lo, r.server.mean_w.hi, iv->mean_lo, iv->mean_hi,
	        r.server.p95_w.value, iv->p95_lo, iv->p95_hi);
	/* The simulation is the same; only the interval is new. */
	CHECK(r.server.mean_w.value == mean && r.server.mean_w.lo == spread_lo && r.server.mean_w.hi == spread_hi);
	CHECK(fabs(iv->mean_lo / (mean * exp(-0.10)) - 1) < 1e-12);
	CHECK(fabs(iv->mean_hi / (mean * exp(0.12)) - 1) < 1e-12);
	CHECK(iv->p95_lo < r.server.p95_w.value && r.server.p95_w.value < iv->p95_hi);
	CHECK(fabs(iv->p95_hi / (r.server.p95_w.value * exp(0.12)) - 1) < 1e-12);
	/* JSON (10 significant digits): beside the summary, named apart from
	 * it, saying what it covers. */
	j = rendered(&r, &pm, &st, &w, &o, &c);
	json_t *ij = json_object_get(json_object_get(j, "server"), "interval_95");
	CHECK(json_is_object(ij));
	CHECK(fabs(json_number_value(json_array_get(json_object_get(ij, "mean_w"), 0)) / iv->mean_lo - 1) < 1e-9);
	CHECK(fabs(json_number_value(json_array_get(json_object_get(ij, "p95_w"), 1)) / iv->p95_hi - 1) < 1e-9);
	CHECK_CONTAINS(json_string_value(json_object_get(ij, "covers")), "not the Monte-Carlo spread");
	CHECK(json_integer_value(json_object_get(json_object_get(ij, "stratum"), "runs")) == 40);
	const json_t *sm = json_object_get(json_object_get(json_object_get(j, "server"), "summary"), "mean_w");
	CHECK(fabs(json_number_value(json_object_get(sm, "p5")) / spread_lo - 1) < 1e-9);
	json_decref(j);
	wc_envelope_result_clear(&r);
	/* A wide held-out error (x e^1) would put the mean's upper end above
	 * what one A100 can sustain; it ends at its ceiling, 1.1 x 400 W over
	 * the time a request runs and P0 over the rest (the few idle bins
	 * before and between the first arrivals: a little under 440 W,
	 * docs/intervals.md "Physical ceiling"). p95 does not: real 0.25 s
	 * samples pass the board limit. */
	p.pred_error.strata[0].q_lo = -1.0;
	p.pred_error.strata[0].q_hi = 1.0;
	run(&p, &r, &pm, &store, &ss, &st, &w, &o, &c);
	CHECK(pm.max_w == 400.0);
	CHECK(r.server.mean_w.value * exp(1.0) > 440.0);
	CHECK(iv->mean_hi <= 440.0 && iv->mean_hi > 0.98 * 440.0 && iv->mean_hi > r.server.mean_w.value);
	CHECK(fabs(iv->p95_hi / (r.server.p95_w.value * exp(1.0)) - 1) < 1e-12);
	CHECK(fabs(iv->mean_lo / (r.server.mean_w.value * exp(-1.0)) - 1) < 1e-12); /* the lower end as before */
	wc_envelope_result_clear(&r);
	/* Wider still (x e^3), the lower ends would fall below what the GPU
	 * draws idle: they end at its idle power, never above the point. */
	p.pred_error.strata[0].q_lo = -3.0;
	p.pred_error.strata[0].q_hi = 3.0;
	run(&p, &r, &pm, &store, &ss, &st, &w, &o, &c);
	CHECK(pm.idle_w > 0 && r.server.mean_w.value * exp(-3.0) < pm.idle_w * pm.tp);
	CHECK_NEAR(iv->mean_lo, pm.idle_w * pm.tp, 1e-9);
	CHECK_NEAR(iv->p95_lo, fmin(pm.idle_w * pm.tp, r.server.p95_w.value), 1e-9);
	CHECK(iv->mean_lo <= r.server.mean_w.value && iv->mean_lo < iv->mean_hi);
	wc_envelope_result_clear(&r);
	/* A board answered from its datasheet is never narrower than a fitted
	 * level (docs/intervals.md, "Strata"): a datasheet stratum narrower
	 * than the pooled one gives way to it, as predict's answers do. */
	wc_pe_stratum ds = { .platform = "", .source = "datasheet", .n = 325, .q_lo = -0.1, .q_hi = 0.1 };
	p.pred_error.strata[0].q_lo = -0.3;
	p.pred_error.strata[0].q_hi = 0.35;
	CHECK_INT(wc_pe_add(&p.pred_error, &ds), WC_OK);
	wc_config l40s = WC_CONFIG_INIT;
	l40s.platform = "L40S";
	l40s.arch = wc_model_lookup("Qwen3-8B");
	l40s.active_params_b = l40s.arch->active_params_b;
	wc_error e2;
	CHECK_INT(wc_power_map_from_law(&p, &l40s, NULL, &store, &pm, &e2), WC_OK);
	CHECK(pm.has_pe && strcmp(pm.pe.source, "datasheet") == 0 && pm.pe.n == 325);
	CHECK(pm.pe.q_lo == -0.3 && pm.pe.q_hi == 0.35);
	wc_params_clear(&p);
	return check_report("test_envelope_interval");
}
