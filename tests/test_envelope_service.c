/*
 * One capacity law for envelopes and `predict inference`
 * (docs/envelopes.md, "Service times"): with equal inputs -- the same
 * five step numbers, platform, group, clock and architecture -- an
 * envelope's decode step and prefill equal the step times predict
 * inference's closed loop reports, for the fitted capacity level and for
 * the stand-in (the capacity model at assumed efficiencies) alike; a
 * locked SM clock slows the compute-bound terms in both; a hybrid model's
 * KV cache counts only its attention layers and its recurrent state; and
 * a mixture of experts the capacity model refuses is refused by the
 * stand-in too, with the field named, rather than simulated as dense.
 */
#include "models/capacity_model.h"
#include "predict/capacity_predict.h"
#include "predict/predict.h"
#include "tests/support/check.h"

#include <gsl/gsl_errno.h>
#include <math.h>
#include <string.h>

static wc_params paper;

/* A hybrid: 8 of 32 layers attend (64 values per token and layer cached),
 * every request keeps 4 MB of recurrent state. */
static const wc_model_info hybrid = {
	.name = "test-hybrid", .architecture = WC_ARCH_DENSE, .total_params_b = 7, .active_params_b = 7,
	.layers = 32, .d_model = 4096, .attention_heads = 32, .kv_heads = 8, .head_dim = 128,
	.attention_layers = 8, .kv_dim = 64, .state_bytes = 4e6,
};

static wc_config
config(const char *platform, int tp, const wc_model_info *m, double clock_mhz)
{
	wc_config c = WC_CONFIG_INIT;
	c.platform = platform;
	c.tp = tp;
	c.arch = m;
	c.active_params_b = m->active_params_b;
	c.sm_clock_mhz = clock_mhz;
	return c;
}

/* predict inference's closed loop at n running gives latency = L_out t_dec
 * + n t_pre and ttft = t_pre + t_dec + (n - 1) t_pre / L_out (n >= 1):
 * solved for both and compared with
 * the envelope's callbacks at the same state (context L_in + L_out / 2). */
static void
check_equal(const wc_params *p, const wc_config *c, const wc_service_times *st, double n, double in, double out)
{
	wc_predictor *pr = NULL;
	wc_capacity_prediction cap;
	wc_error err;
	wc_inference_query q = { 0 };
	q.config = *c;
	q.config.running = n;
	q.config.input_tokens = in;
	q.config.output_tokens = out;
	CHECK_INT(wc_predictor_new(p, &pr, &err), WC_OK);
	CHECK_INT(wc_predict_capacity(pr, &q, NAN, NAN, &cap, &err), WC_OK);
	double lat = cap.value[WC_CAPQ_LATENCY], ttft = cap.value[WC_CAPQ_TTFT];
	double t_pre = (out * ttft - lat) / (out - 1), t_dec = (lat - n * t_pre) / out;
	double dec = st->decode_step_s(st->ctx, n, in + out / 2), pre = st->prefill_s(st->ctx, in);
	fprintf(stderr, "%-9s %s x%d %s at %g MHz, n %g: decode %.9g s (predict %.9g), prefill %.9g s (predict %.9g)\n",
	        st->source, c->platform, c->tp, c->arch->name, c->sm_clock_mhz, n, dec, t_dec, pre, t_pre);
	CHECK(fabs(dec / t_dec - 1) < 1e-9);
	CHECK(fabs(pre / t_pre - 1) < 1e-9);
	wc_predictor_free(pr);
}

/* The fitted level, clock locked or not: equal to predict inference. */
static void
test_capacity_level(void)
{
	const wc_model_info *qwen = wc_model_lookup("Qwen3-8B"), *moe = wc_model_lookup("gemma-4-26B-A4B");
	const struct {
		const char *platform;
		int tp;
		const wc_model_info *m;
		double clock, n, in, out;
	} cases[] = {
		{ "A100", 1, qwen, 0, 32, 107, 512 },    { "A100", 1, qwen, 1005, 32, 2000, 512 },
		{ "H100", 2, qwen, 1200, 16, 1000, 300 }, { "H200", 1, moe, 1400, 8, 2000, 200 },
		{ "A100", 1, &hybrid, 0, 64, 4000, 400 }, { "H100", 1, &hybrid, 900, 64, 4000, 400 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		wc_config c = config(cases[i].platform, cases[i].tp, cases[i].m, cases[i].clock);
		wc_capacity_service_store store;
		wc_service_times st;
		wc_error err;
		CHECK_INT(wc_capacity_service(&paper, &c, &store, &st, &err), WC_OK);
		check_equal(&paper, &c, &st, cases[i].n, cases[i].in, cases[i].out);
	}
}

/* A copy of `p` whose capacity numbers are the stand-in's assumed ones,
 * shared by every level. */
static void
assumed_set(const wc_params *p, wc_params *out)
{
	wc_error err;
	const double v[WC_CAP_KINDS] = { [WC_CAP_ETA] = WC_STANDIN_BW_EFFICIENCY, [WC_CAP_T0] = WC_STANDIN_STEP_OVERHEAD_S,
		                         [WC_CAP_T1] = 0.0, [WC_CAP_ETAC] = WC_STANDIN_FLOPS_EFFICIENCY, [WC_CAP_TAU] = 0.0 };
	CHECK_INT(wc_params_copy(out, p, &err), WC_OK);
	wc_draws_clear(&out->capacity.draws);
	for (int k = 0; k < WC_CAP_KINDS; k++) {
		out->capacity.shared[k] = 1;
		out->capacity.shared_p[k].value = v[k];
	}
}

/* The stand-in is the same law at the assumed numbers. */
static void
test_standin(void)
{
	wc_params assumed = WC_PARAMS_INIT;
	assumed_set(&paper, &assumed);
	const wc_model_info *qwen = wc_model_lookup("Qwen3-8B"), *moe = wc_model_lookup("gemma-4-26B-A4B");
	const struct {
		const char *platform;
		int tp;
		const wc_model_info *m;
		double clock, n;
	} cases[] = {
		{ "A100", 1, qwen, 0, 32 }, { "A100", 1, qwen, 1005, 64 }, { "H100", 2, moe, 0, 8 },
		{ "H200", 1, moe, 1400, 64 }, { "A100", 1, &hybrid, 0, 64 }, { "H100", 4, &hybrid, 900, 128 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		wc_config c = config(cases[i].platform, cases[i].tp, cases[i].m, cases[i].clock);
		wc_capacity_service_store store;
		wc_service_times st;
		wc_error err;
		CHECK_INT(wc_roofline_standin_init(&store, &c, &err), WC_OK);
		wc_roofline_standin_service(&store, &st);
		CHECK(strcmp(st.source, "roofline_standin") == 0);
		check_equal(&assumed, &c, &st, cases[i].n, 3000, 300);
	}
	wc_params_clear(&assumed);
}

/* What the law's bytes mean for the stand-in's decode step. */
static void
test_standin_bytes(void)
{
	wc_capacity_service_store s_h, s_full, s_lock;
	wc_service_times st_h, st_full, st_lock;
	wc_error err;
	wc_model_info full = hybrid;
	full.attention_layers = 0;
	full.kv_dim = 0;
	full.state_bytes = 0;
	wc_config ch = config("A100", 1, &hybrid, 0), cf = config("A100", 1, &full, 0);
	CHECK_INT(wc_roofline_standin_init(&s_h, &ch, &err), WC_OK);
	CHECK_INT(wc_roofline_standin_init(&s_full, &cf, &err), WC_OK);
	wc_roofline_standin_service(&s_h, &st_h);
	wc_roofline_standin_service(&s_full, &st_full);
	/* Per request and token of context: 8 x 64 x 2 bytes against 32 x 2 x
	 * 8 x 128 x 2; the hybrid adds 2 x 4 MB of state per request. */
	const double bw = 0.7 * 2.04e12, n = 16, dc = 1000;
	double kv_h = (st_h.decode_step_s(st_h.ctx, n, 2 * dc) - st_h.decode_step_s(st_h.ctx, n, dc)) * bw / (n * dc);
	double kv_f = (st_full.decode_step_s(st_full.ctx, n, 2 * dc) - st_full.decode_step_s(st_full.ctx, n, dc)) * bw /
	              (n * dc);
	fprintf(stderr, "KV bytes per token: hybrid %.1f, full attention %.1f\n", kv_h, kv_f);
	CHECK(fabs(kv_h / (8 * 64 * 2) - 1) < 1e-6);
	CHECK(fabs(kv_f / (32 * 2 * 8 * 128 * 2) - 1) < 1e-6);
	double state = (st_h.decode_step_s(st_h.ctx, 2 * n, 0) - st_h.decode_step_s(st_h.ctx, n, 0)) * bw / n;
	CHECK(fabs(state / 8e6 - 1) < 1e-6);
	/* A locked clock slows the prefill in proportion; memory-bound decode
	 * steps stay. */
	wc_config cl = config("A100", 1, &hybrid, 1410 / 2.0);
	CHECK_INT(wc_roofline_standin_init(&s_lock, &cl, &err), WC_OK);
	wc_roofline_standin_service(&s_lock, &st_lock);
	CHECK(fabs(st_lock.prefill_s(st_lock.ctx, 1000) / st_h.prefill_s(st_h.ctx, 1000) - 2) < 1e-9);
	CHECK(st_lock.decode_step_s(st_lock.ctx, 1, 100) == st_h.decode_step_s(st_h.ctx, 1, 100));
	/* Outside the platform's clock range: refused as predict inference does. */
	wc_config slow = config("A100", 1, &hybrid, 50);
	CHECK_INT(wc_roofline_standin_init(&s_lock, &slow, &err), WC_EINVAL);
	CHECK_CONTAINS(err.msg, "sm_clock_mhz: 50 MHz is outside the clock range of A100");
}

/* A mixture of experts without its routing is refused, not taken as dense. */
static void
test_standin_refuses_moe(void)
{
	wc_model_info moe = *wc_model_lookup("gemma-4-26B-A4B");
	moe.experts_per_token = 0;
	wc_config c = config("A100", 1, &moe, 0);
	wc_capacity_service_store s;
	wc_service_store ss;
	wc_service_times st;
	wc_error err;
	CHECK_INT(wc_roofline_standin_init(&s, &c, &err), WC_EINVAL);
	CHECK_CONTAINS(err.msg, "architecture/experts_per_token: must be a whole number >= 1");
	CHECK(wc_service_select(&paper, &c, WC_SERVICE_AUTO, &ss, &st, &err) != WC_OK);
	CHECK_CONTAINS(err.msg, "architecture/experts_per_token");
}

int
main(void)
{
	gsl_set_error_handler_off();
	wc_params_default(&paper);
	test_capacity_level();
	test_standin();
	test_standin_bytes();
	test_standin_refuses_moe();
	wc_params_clear(&paper);
	return check_report("test_envelope_service");
}
