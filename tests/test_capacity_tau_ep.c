/*
 * The two collectives of the capacity law (docs/capacity.md, "Step time"):
 * tau for tensor-parallel groups, tau_ep for expert-parallel ones.
 * - Recovery: rows simulated (PCG32, seed 7, 3 % log-normal noise) with
 *   tau 1.5e-5 s and tau_ep 4.5e-5 s, three dense models at TP 1/2/4 and an MoE
 *   at EP 1/2/4: the bootstrap interval of each holds its true value, and
 *   each lies within 20 % of it.
 * - A fit with no expert-parallel group cannot identify tau_ep: it holds
 *   it at tau (not 0), says so, and writes the section without tau_ep;
 *   one whose multi-GPU rows are all expert parallel holds tau at tau_ep.
 * - Loading: a section without tau_ep (a wattcast.params/17 file, or an
 *   /18 one a fit wrote so) takes tau, for the point and every draw; a /17
 *   file that carries tau_ep is refused naming /18; an /18 file's tau_ep
 *   is its own and survives a write and a read.
 */
#include "data/data.h"
#include "data/params_internal.h"
#include "fit/capacity_fit.h"
#include "tests/support/support.h"

#include <gsl/gsl_errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/catalog.h"

static const wc_capacity_point truth = { 0.8, 3e-3, 4e-5, 0.5, 1.5e-5, 4.5e-5 };

static double
noise(wc_pcg32 *rng)
{
	double u1 = (wc_pcg32_next(rng) + 1.0) / 4294967297.0, u2 = wc_pcg32_next(rng) / 4294967296.0;
	return 0.03 * sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

/* One row from `truth` on H100, the MoE spread expert parallel when
 * `ep` (as fit/capacity_data.c places a row with expert_parallel > 1). */
static void
add_row(wc_capacity_data *d, wc_pcg32 *rng, const char *model, int tp, int ep, double n)
{
	const wc_platform_info *pi = wc_platform_lookup("H100");
	wc_capacity_hw hw = { pi->bandwidth_tb_s * 1e12, pi->bf16_tflops * 1e12, pi->memory_gb * 1e9, 0.0 };
	wc_capacity_row r;
	wc_capacity_times t;
	memset(&r, 0, sizeof r);
	snprintf(r.id, sizeof r.id, "%s-%d-%d-%zu", model, tp, ep, d->n_rows);
	snprintf(r.platform, sizeof r.platform, "H100");
	snprintf(r.model, sizeof r.model, "%s", model);
	snprintf(r.model_key, sizeof r.model_key, "%s", model);
	snprintf(r.set, sizeof r.set, "stated");
	r.tp = tp;
	r.running = n;
	r.input_tokens = 400.0;
	r.output_tokens = 500.0;
	r.expert_parallel = ep ? tp : NAN;
	CHECK_INT(wc_capacity_arch_make(wc_model_lookup(model), WC_PREC_BF16, WC_PREC_BF16, &r.arch, NULL), WC_OK);
	wc_capacity_arch_place(&r.arch, tp, ep && tp > 1);
	wc_capacity_times_eval(&truth, &r.arch, &hw, tp, n, r.input_tokens, r.output_tokens, &t);
	r.latency_s = t.latency_s * exp(noise(rng));
	r.itl_s = t.t_dec * exp(noise(rng));
	r.ttft_s = t.ttft_s * exp(noise(rng));
	r.throughput_tok_s = r.energy_per_token_j = r.mean_power_w = NAN;
	d->rows = realloc(d->rows, (d->n_rows + 1) * sizeof *d->rows);
	d->rows[d->n_rows++] = r;
	d->cap_rows = d->n_rows;
}

/* Three dense models and one MoE, each at 1, 2 and 4 GPUs and 3 loads. */
static void
simulate(wc_capacity_data *d, int with_moe)
{
	static const char *const models[4] = { "Qwen3-8B", "Qwen3-14B", "Qwen3-32B", "Qwen3-30B-A3B" };
	static const int tps[3] = { 1, 2, 4 };
	static const double ns[3] = { 8, 48, 160 };
	wc_pcg32 rng;
	wc_pcg32_seed(&rng, 7, 0);
	for (int m = 0; m < (with_moe ? 4 : 3); m++)
		for (int g = 0; g < 3; g++)
			for (int k = 0; k < 3; k++)
				add_row(d, &rng, models[m], tps[g], m == 3, ns[k]);
}

static void
recovery(void)
{
	wc_capacity_data d = WC_CAPACITY_DATA_INIT;
	wc_capacity_fit_options o = WC_CAPACITY_FIT_OPTIONS_INIT;
	wc_capacity_fit_result r;
	wc_bootstrap_options b = { 200, 11, 1 };
	wc_error err;
	o.robust = 0; /* clean rows: plain least squares (as test_capacity_fit) */
	simulate(&d, 1);
	CHECK_INT(wc_fit_capacity(&d, &o, &r, &err), WC_OK);
	CHECK(r.converged);
	CHECK_INT(wc_fit_capacity_bootstrap(&d, &o, &b, &r, &err), WC_OK);
	CHECK(!r.params.tau_ep_tied);
	const char *names[2] = { "tau", "tau_ep" };
	const double want[2] = { truth.tau, truth.tau_ep };
	for (int i = 0; i < 2; i++) {
		const wc_param *p = wc_capacity_param_named(&r.params, names[i]);
		CHECK(p != NULL);
		if (!p)
			continue;
		printf("  %-7s true %-9.4g fitted %-9.4g [%.4g, %.4g] (%s)\n", names[i], want[i], p->value, p->lo, p->hi,
		       wc_source_name(p->source));
		CHECK(p->source == WC_SRC_FITTED);
		CHECK(p->lo <= want[i] && want[i] <= p->hi);
		CHECK(fabs(log(p->value / want[i])) < 0.2);
	}
	/* the draws carry each its own column */
	CHECK(wc_draws_column(&r.params.draws, "tau") >= 0 && wc_draws_column(&r.params.draws, "tau_ep") >= 0);
	wc_capacity_fit_result_clear(&r);
	wc_capacity_data_clear(&d);
}

static void
no_ep_rows(void)
{
	wc_capacity_data d = WC_CAPACITY_DATA_INIT;
	wc_capacity_fit_options o = WC_CAPACITY_FIT_OPTIONS_INIT;
	wc_capacity_fit_result r;
	wc_bootstrap_options b = { 50, 11, 1 };
	wc_error err;
	simulate(&d, 0);
	CHECK_INT(wc_fit_capacity(&d, &o, &r, &err), WC_OK);
	CHECK_INT(wc_fit_capacity_bootstrap(&d, &o, &b, &r, &err), WC_OK);
	int said = 0;
	for (int i = 0; i < r.n_warnings; i++)
		said += strstr(r.warnings[i], "tau_ep: no expert-parallel row has a group of more than one GPU; "
		                              "held at tau") != NULL;
	CHECK_INT(said, 1);
	const wc_capacity_params *c = &r.params;
	printf("  no EP rows: tau %.4g, tau_ep %.4g (tied %d)\n", c->shared_p[WC_CAP_TAU].value,
	       c->shared_p[WC_CAP_TAU_EP].value, c->tau_ep_tied);
	CHECK(c->tau_ep_tied);
	CHECK(c->shared_p[WC_CAP_TAU].value > 0);
	CHECK(c->shared_p[WC_CAP_TAU_EP].value == c->shared_p[WC_CAP_TAU].value);
	/* an MoE spread over 4 GPUs is charged tau, point and draws */
	wc_capacity_binding bd;
	wc_capacity_point pt;
	CHECK_INT(wc_capacity_bind(c, "H100", &bd, &err), WC_OK);
	wc_capacity_bound_point(&bd, NULL, &pt);
	CHECK(pt.tau_ep == pt.tau && pt.tau > 0);
	CHECK(c->draws.n == 50);
	for (int i = 0; i < c->draws.n; i++) {
		wc_capacity_bound_point(&bd, c->draws.values + (size_t)i * c->draws.k, &pt);
		CHECK(pt.tau_ep == pt.tau);
	}
	/* written without tau_ep */
	json_t *j = wc__params_capacity_json(c, 1);
	CHECK(json_object_get(json_object_get(j, "shared"), "tau") != NULL);
	CHECK(json_object_get(json_object_get(j, "shared"), "tau_ep") == NULL);
	json_decref(j);
	wc_capacity_fit_result_clear(&r);
	wc_capacity_data_clear(&d);
}

/* Every multi-GPU row expert parallel: tau is not identified and is held
 * at tau_ep (written with source "assumed"), not fixed at 0, so a dense
 * group on the section is charged what the rows did show. */
static void
ep_rows_only(void)
{
	wc_capacity_data d = WC_CAPACITY_DATA_INIT, all = WC_CAPACITY_DATA_INIT;
	wc_capacity_fit_options o = WC_CAPACITY_FIT_OPTIONS_INIT;
	wc_capacity_fit_result r;
	wc_error err;
	simulate(&all, 1);
	for (size_t i = 0; i < all.n_rows; i++)
		if (all.rows[i].tp == 1 || all.rows[i].arch.expert_parallel) {
			d.rows = realloc(d.rows, (d.n_rows + 1) * sizeof *d.rows);
			d.rows[d.n_rows++] = all.rows[i];
		}
	d.cap_rows = d.n_rows;
	CHECK_INT(wc_fit_capacity(&d, &o, &r, &err), WC_OK);
	int said = 0;
	for (int i = 0; i < r.n_warnings; i++)
		said += strstr(r.warnings[i], "tau: no row without expert parallelism has a group of more than one GPU; "
		                              "held at tau_ep") != NULL;
	CHECK_INT(said, 1);
	const wc_capacity_params *c = &r.params;
	printf("  EP rows only: tau %.4g (%s), tau_ep %.4g (%s)\n", c->shared_p[WC_CAP_TAU].value,
	       wc_source_name(c->shared_p[WC_CAP_TAU].source), c->shared_p[WC_CAP_TAU_EP].value,
	       wc_source_name(c->shared_p[WC_CAP_TAU_EP].source));
	CHECK(!c->tau_ep_tied);
	CHECK(c->shared_p[WC_CAP_TAU_EP].source == WC_SRC_FITTED && c->shared_p[WC_CAP_TAU_EP].value > 0);
	CHECK(c->shared_p[WC_CAP_TAU].source == WC_SRC_ASSUMED &&
	      c->shared_p[WC_CAP_TAU].value == c->shared_p[WC_CAP_TAU_EP].value);
	wc_capacity_fit_result_clear(&r);
	free(d.rows);
	wc_capacity_data_clear(&all);
}

/* The default profile's dump with its capacity section's shared tau_ep
 * set to `tau_ep` (absent when NaN), under `schema`. */
static char *
edited(const char *schema, double tau_ep)
{
	json_t *j = test_paper_json();
	char *s;
	json_object_set_new(j, "schema", json_string(schema));
	json_t *shared = json_object_get(json_object_get(j, "capacity"), "shared");
	CHECK(json_is_object(shared));
	json_object_del(shared, "tau_ep");
	if (!isnan(tau_ep))
		json_object_set_new(shared, "tau_ep", json_pack("{s:f,s:s}", "value", tau_ep, "source", "fitted"));
	s = json_dumps(j, 0);
	json_decref(j);
	return s;
}

static void
loading(void)
{
	wc_params p = WC_PARAMS_INIT, q = WC_PARAMS_INIT;
	wc_error err;
	wc_capacity_binding b;
	wc_capacity_point pt;
	/* a /17 file: no tau_ep, which takes tau for point and draws */
	char *s = edited(WC_PARAMS_SCHEMA_V17, NAN);
	CHECK_INT(wc_params_load_buffer(s, strlen(s), "v17.json", &p, &err), WC_OK);
	free(s);
	const wc_capacity_params *c = &p.capacity;
	CHECK(c->present && c->tau_ep_tied);
	CHECK(c->shared_p[WC_CAP_TAU_EP].value == c->shared_p[WC_CAP_TAU].value);
	CHECK_INT(wc_capacity_bind(c, c->levels[0].name, &b, &err), WC_OK);
	wc_capacity_bound_point(&b, NULL, &pt);
	CHECK(pt.tau_ep == pt.tau && pt.tau > 0);
	int tau_col = wc_draws_column(&c->draws, "tau");
	for (int i = 0; i < c->draws.n; i++) {
		const double *row = c->draws.values + (size_t)i * c->draws.k;
		wc_capacity_bound_point(&b, row, &pt);
		CHECK(pt.tau_ep == pt.tau && (tau_col < 0 || pt.tau == row[tau_col]));
	}
	/* written back, it stays without tau_ep and reads back tied */
	char *dump = wc_params_dump(&p, 1, &err);
	CHECK(dump && strstr(dump, "\"tau_ep\"") == NULL && strstr(dump, WC_PARAMS_SCHEMA) != NULL);
	CHECK_INT(wc_params_load_buffer(dump, strlen(dump), "again.json", &q, &err), WC_OK);
	CHECK(q.capacity.tau_ep_tied);
	free(dump);
	wc_params_clear(&q);
	wc_params_clear(&p);

	/* a /17 file carrying tau_ep: refused, naming the schema that adds it */
	s = edited(WC_PARAMS_SCHEMA_V17, 4e-5);
	CHECK(wc_params_load_buffer(s, strlen(s), "v17.json", &p, &err) != WC_OK);
	CHECK_CONTAINS(err.msg, "/capacity/shared/tau_ep: needs \"wattcast.params/18\" or later");
	free(s);
	wc_params_clear(&p);

	/* an /18 file's own tau_ep */
	s = edited(WC_PARAMS_SCHEMA_V19, 4e-5);
	CHECK_INT(wc_params_load_buffer(s, strlen(s), "v18.json", &p, &err), WC_OK);
	free(s);
	c = &p.capacity;
	CHECK(!c->tau_ep_tied && c->shared_p[WC_CAP_TAU_EP].value == 4e-5);
	CHECK_INT(wc_capacity_bind(c, c->levels[0].name, &b, &err), WC_OK);
	wc_capacity_bound_point(&b, NULL, &pt);
	CHECK(pt.tau_ep == 4e-5 && pt.tau != 4e-5);
	dump = wc_params_dump(&p, 1, &err);
	CHECK_INT(wc_params_load_buffer(dump, strlen(dump), "again.json", &q, &err), WC_OK);
	CHECK(!q.capacity.tau_ep_tied && q.capacity.shared_p[WC_CAP_TAU_EP].value == 4e-5);
	free(dump);
	wc_params_clear(&q);
	wc_params_clear(&p);
}

int
main(void)
{
	gsl_set_error_handler_off();
	recovery();
	no_ep_rows();
	ep_rows_only();
	loading();
	return check_report("test_capacity_tau_ep");
}
