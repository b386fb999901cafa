/*
 * Envelope service times from the capacity model (predict/envelope.h,
 * wc_capacity_service; docs/envelopes.md, "Service times"): its decode
 * step and prefill are the capacity answers' own (predict/capacity_predict.h, to
 * 1e-9) on dense and MoE models and groups of 1 and 2; Little's law holds
 * with them (mean running = lambda W, W built from the same callbacks); a
 * closed loop runs at the capacity model's throughput; the choice falls
 * back to the stand-in with the reason (no section, no level, no
 * architecture) and refuses a forced capacity model with it; and the
 * command line names the source, the fallback warning and the refusal.
 */
#include "predict/capacity_predict.h"
#include "predict/predict.h"
#include "tests/support/check.h"
#include "tests/support/run_json.h"
#include "tests/support/support.h"

#include <gsl/gsl_errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static wc_params paper;

static wc_config
config(const char *platform, int tp, const char *model)
{
	wc_config c = WC_CONFIG_INIT;
	c.platform = platform;
	c.tp = tp;
	c.arch = wc_model_lookup(model);
	c.active_params_b = c.arch ? c.arch->active_params_b : 8.0;
	return c;
}

/* predict/capacity's closed loop at n running gives latency = L_out t_dec +
 * n t_pre and ttft = t_pre + t_dec + (n - 1) t_pre / L_out (n >= 1); solve
 * both for t_dec and t_pre and
 * compare with the envelope's callbacks at the same state. */
static void
check_same_as_predict(const char *platform, int tp, const char *model, double n, double in, double out)
{
	wc_predictor *pr = NULL;
	wc_capacity_service_store store;
	wc_service_times st;
	wc_capacity_prediction cap;
	wc_error err;
	wc_inference_query q = { 0 };
	q.config = config(platform, tp, model);
	q.config.running = n;
	q.config.input_tokens = in;
	q.config.output_tokens = out;
	CHECK_INT(wc_predictor_new(&paper, &pr, &err), WC_OK);
	CHECK_INT(wc_predict_capacity(pr, &q, NAN, NAN, &cap, &err), WC_OK);
	CHECK_INT(wc_capacity_service(&paper, &q.config, &store, &st, &err), WC_OK);
	double lat = cap.value[WC_CAPQ_LATENCY], ttft = cap.value[WC_CAPQ_TTFT];
	double t_pre = (out * ttft - lat) / (out - 1), t_dec = (lat - n * t_pre) / out;
	double dec = st.decode_step_s(st.ctx, n, in + out / 2), pre = st.prefill_s(st.ctx, in);
	fprintf(stderr, "%s x%d %s n %g: decode step %.9g s (capacity %.9g), prefill %.9g s (capacity %.9g)\n",
	        platform, tp, model, n, dec, t_dec, pre, t_pre);
	CHECK(strcmp(st.source, "capacity") == 0);
	CHECK(fabs(dec / t_dec - 1) < 1e-9);
	CHECK(fabs(pre / t_pre - 1) < 1e-9);
	/* The throughput the capacity answer gives follows from them. */
	CHECK(fabs(n * out / (out * dec + n * pre) / cap.value[WC_CAPQ_THROUGHPUT] - 1) < 1e-9);
	wc_predictor_free(pr);
}

static void
test_same_as_predict_capacity(void)
{
	check_same_as_predict("A100", 1, "Qwen3-8B", 32, 107, 512);
	check_same_as_predict("H100", 2, "Qwen3-32B", 16, 1000, 300);
	check_same_as_predict("H200", 1, "gemma-4-26B-A4B", 8, 2000, 200);
	/* The decode step slows as n grows, the prefill as L grows. */
	wc_capacity_service_store store;
	wc_service_times st;
	wc_error err;
	wc_config c = config("A100", 1, "Qwen3-8B");
	CHECK_INT(wc_capacity_service(&paper, &c, &store, &st, &err), WC_OK);
	CHECK(st.decode_step_s(st.ctx, 64, 500) > st.decode_step_s(st.ctx, 8, 500));
	CHECK(st.decode_step_s(st.ctx, 8, 4000) > st.decode_step_s(st.ctx, 8, 500));
	CHECK(st.prefill_s(st.ctx, 2000) > 2 * st.prefill_s(st.ctx, 1000));
}

/* A Poisson workload at `load` requests/s or a closed loop of `load`
 * clients, with fixed token lengths. */
static void
fixed_workload(wc_envelope_workload *w, wc_envelope_kind kind, double load, double in, double out)
{
	wc_envelope_workload_init(w);
	w->kind = kind;
	if (kind == WC_ENVELOPE_POISSON)
		w->rate = load;
	else
		w->concurrency = load;
	w->input = (wc_length_dist){ WC_LENGTH_FIXED, in, 0, NULL, 0 };
	w->output = (wc_length_dist){ WC_LENGTH_FIXED, out, 0, NULL, 0 };
}

static void
setup_power(const wc_config *c, wc_power_map_law *store, wc_power_map *pm)
{
	wc_error err;
	CHECK_INT(wc_power_map_from_law(&paper, c, NULL, store, pm, &err), WC_OK);
}

/* Poisson arrivals at lambda with fixed lengths: a request is running for
 * its L_out steps, each a decode step at the running count, and the
 * steps it spends in carry its own prefill and those of the lambda W
 * requests admitted meanwhile: W = L_out decode(n + 1, c) + (1 + n)
 * prefill(L_in) with n = lambda W (c = L_in + L_out / 2, its mean context). */
static double
lambda_w(const wc_service_times *st, double lambda, double in, double out)
{
	double n = 0.0;
	for (int it = 0; it < 200; it++)
		n = lambda * (out * st->decode_step_s(st->ctx, n + 1, in + out / 2) + (1 + n) * st->prefill_s(st->ctx, in));
	return n;
}

static void
test_littles_law(void)
{
	wc_config c = config("A100", 1, "Qwen3-8B");
	wc_capacity_service_store store;
	wc_service_times st;
	wc_power_map_law pstore;
	wc_power_map pm;
	wc_envelope_workload w;
	wc_envelope_options o;
	wc_envelope_result r;
	wc_error err;
	CHECK_INT(wc_capacity_service(&paper, &c, &store, &st, &err), WC_OK);
	setup_power(&c, &pstore, &pm);
	fixed_workload(&w, WC_ENVELOPE_POISSON, 4.0, 32, 200);
	wc_envelope_options_init(&o);
	o.horizon_s = 2000;
	o.warmup_s = 20;
	o.replicas = 4;
	o.threads = 2;
	CHECK_INT(wc_envelope_run(&w, &st, &pm, &o, &r, &err), WC_OK);
	double expect = lambda_w(&st, w.rate, 32, 200), L = r.server.mean_running.value;
	fprintf(stderr, "Little's law with capacity service times: mean running %.4f, lambda W %.4f (%+.2f %%)\n", L,
	        expect, 100 * (L / expect - 1));
	CHECK(fabs(L / expect - 1) < 0.02);
	CHECK(strcmp(r.service_source, "capacity") == 0);
	wc_envelope_result_clear(&r);
}

/* 16 clients with fixed lengths in lockstep: each cycle is 16 prefills and
 * 512 decode steps at 16 running, the capacity model's closed loop. (At 16
 * the step is memory-bound at every context; near the roofline's kink --
 * 32 running on an A100 -- the engine's steps at their own contexts are
 * about 1 % longer than the capacity model's step at the mean context.) */
static void
test_closed_loop_throughput(void)
{
	wc_config c = config("A100", 1, "Qwen3-8B");
	wc_capacity_service_store store;
	wc_service_times st;
	wc_power_map_law pstore;
	wc_power_map pm;
	wc_envelope_workload w;
	wc_envelope_options o;
	wc_envelope_result r;
	wc_error err;
	wc_predictor *pr = NULL;
	wc_capacity_prediction cap;
	wc_inference_query q = { 0 };
	CHECK_INT(wc_capacity_service(&paper, &c, &store, &st, &err), WC_OK);
	setup_power(&c, &pstore, &pm);
	fixed_workload(&w, WC_ENVELOPE_CLOSED, 16, 107, 512);
	wc_envelope_options_init(&o);
	o.horizon_s = 300;
	o.replicas = 1;
	CHECK_INT(wc_envelope_run(&w, &st, &pm, &o, &r, &err), WC_OK);
	q.config = c;
	q.config.running = 16;
	q.config.input_tokens = 107;
	q.config.output_tokens = 512;
	CHECK_INT(wc_predictor_new(&paper, &pr, &err), WC_OK);
	CHECK_INT(wc_predict_capacity(pr, &q, NAN, NAN, &cap, &err), WC_OK);
	double sim = r.server.output_tokens.value / o.horizon_s, model = cap.value[WC_CAPQ_THROUGHPUT];
	fprintf(stderr, "closed loop of 16: %.2f tokens/s simulated, %.2f from the capacity model (%+.2f %%)\n", sim,
	        model, 100 * (sim / model - 1));
	CHECK(fabs(sim / model - 1) < 0.01);
	CHECK(fabs(sim / model - 1) < 0.005); /* what it achieves: 0.2 % */
	wc_predictor_free(pr);
	wc_envelope_result_clear(&r);
}

/* The engine runs no more requests than the KV cache holds at the
 * workload's lengths, as `predict` counts them, and says so; a prompt
 * that cannot fit at all is refused naming the length (docs/envelopes.md,
 * "Engine"). Qwen3-8B on one H100 at 16 000 + 1 000 tokens: 24 fit. */
static void
test_kv_limit(void)
{
	wc_config c = config("H100", 1, "Qwen3-8B");
	wc_service_store ss;
	wc_service_times st;
	wc_power_map_law pstore;
	wc_power_map pm;
	wc_envelope_workload w;
	wc_envelope_options o;
	wc_envelope_result r;
	wc_error err;
	CHECK_INT(wc_service_select(&paper, &c, WC_SERVICE_AUTO, &ss, &st, &err), WC_OK);
	setup_power(&c, &pstore, &pm);
	fixed_workload(&w, WC_ENVELOPE_CLOSED, 200, 16000, 1000);
	wc_envelope_options_init(&o);
	o.horizon_s = 200;
	o.warmup_s = 100;
	o.replicas = 1;
	double fit = st.kv_running(st.ctx, 16000, 1000);
	CHECK_NEAR(fit, 24, 0);
	CHECK_INT(wc_envelope_run(&w, &st, &pm, &o, &r, &err), WC_OK);
	CHECK(r.server.mean_running.value <= fit + 1e-9);
	CHECK(r.server.mean_running.value > 20);
	int warned = 0;
	for (int i = 0; i < r.n_warnings; i++)
		warned |= strstr(r.warnings[i], "max_running: the KV cache holds 24 requests of the workload's mean "
		                                "16000 input + 1000 output tokens") != NULL;
	CHECK(warned);
	wc_envelope_result_clear(&r);
	/* a prompt no memory holds */
	w.kind = WC_ENVELOPE_POISSON;
	w.rate = 1;
	w.input.mean = 1e7;
	CHECK_INT(wc_envelope_run(&w, &st, &pm, &o, &r, &err), WC_EINVAL);
	/* with predict's sizes: the GB it needs, those left after the weights */
	CHECK_CONTAINS(err.msg, "input_tokens: a request of the workload's mean 10000000 input + 1000 output tokens "
	                        "needs ");
	CHECK_CONTAINS(err.msg, " GB of KV cache but 1 x H100 (");
	CHECK_CONTAINS(err.msg, " GB after the weights and the engine's workspace");
	CHECK(strlen(err.msg) < WC_ERROR_MSG_MAX - 1);
	/* a replay's own lengths: the refusal names them (arrival_input, the
	 * request's /workload/arrivals/input_tokens and the CLI's --replay),
	 * not the lengths the workload did not give (it said input_tokens) */
	static const double at[3] = { 0, 1, 2 }, in[3] = { 500, 1e7, 500 };
	w.kind = WC_ENVELOPE_REPLAY;
	w.arrival_s = at;
	w.arrival_input = in;
	w.n_arrivals = 3;
	CHECK_INT(wc_envelope_run(&w, &st, &pm, &o, &r, &err), WC_EINVAL);
	CHECK_CONTAINS(err.msg, "arrival_input: a request of the workload's mean 3333667 input + 1000 output tokens "
	                        "needs ");
	CHECK_CONTAINS(err.msg, " GB of KV cache but ");
}

static void
expect_fallback(const wc_params *p, const wc_config *c, const char *reason)
{
	wc_service_store ss;
	wc_service_times st;
	wc_error err;
	CHECK_INT(wc_service_select(p, c, WC_SERVICE_AUTO, &ss, &st, &err), WC_OK);
	CHECK(!ss.is_capacity && strcmp(st.source, "roofline_standin") == 0);
	CHECK_CONTAINS(ss.fallback, "service times: the roofline stand-in (assumed efficiencies), not the capacity model: ");
	CHECK_CONTAINS(ss.fallback, reason);
	CHECK_INT(wc_service_select(p, c, WC_SERVICE_CAPACITY, &ss, &st, &err), WC_EINVAL);
	CHECK_CONTAINS(err.msg, "service: the capacity model cannot give the service times: ");
	CHECK_CONTAINS(err.msg, reason);
}

static void
test_choice(void)
{
	wc_service_store ss;
	wc_service_times st;
	wc_error err;
	wc_config c = config("A100", 1, "Qwen3-8B");
	CHECK_INT(wc_service_select(&paper, &c, WC_SERVICE_AUTO, &ss, &st, &err), WC_OK);
	CHECK(ss.is_capacity && strcmp(st.source, "capacity") == 0 && ss.fallback[0] == '\0');
	CHECK(strcmp(ss.capacity.level, "A100") == 0);
	CHECK_INT(wc_service_select(&paper, &c, WC_SERVICE_STANDIN, &ss, &st, &err), WC_OK);
	CHECK(!ss.is_capacity && strcmp(st.source, "roofline_standin") == 0 && ss.fallback[0] == '\0');
	/* Weights that cannot load are refused as `predict` refuses them,
	 * whichever service times (simulated without a word before). */
	wc_config huge = config("A100", 1, "Llama-3.1-405B");
	for (int ch = WC_SERVICE_AUTO; ch <= WC_SERVICE_STANDIN; ch++) {
		CHECK_INT(wc_service_select(&paper, &huge, (wc_service_choice)ch, &ss, &st, &err), WC_EINVAL);
		CHECK_CONTAINS(err.msg, "tp: the weights need 810.0 GB but 1 x A100");
	}
	huge.tp = 16;
	CHECK_INT(wc_service_select(&paper, &huge, WC_SERVICE_AUTO, &ss, &st, &err), WC_OK);
	/* No architecture, no level for the platform, no section. */
	wc_config dense = config("A100", 1, "no-such-model");
	expect_fallback(&paper, &dense, "the model's architecture is unknown");
	/* A catalog board without a capacity level: the capacity model on its
	 * datasheet with the fitted levels' median efficiency and overhead
	 * (docs/capacity.md, "Platforms without a capacity level"), said. */
	wc_config b200 = config("B200", 1, "Qwen3-8B");
	CHECK_INT(wc_service_select(&paper, &b200, WC_SERVICE_AUTO, &ss, &st, &err), WC_OK);
	CHECK(ss.is_capacity && strcmp(st.source, "capacity_datasheet") == 0);
	CHECK(strcmp(ss.capacity.level, "B200") == 0);
	CHECK_CONTAINS(ss.fallback, "platform: no fitted capacity level for B200: its datasheet (8 TB/s");
	CHECK_NEAR(ss.capacity.hw.bandwidth_b_s, 8e12, 1.0);
	CHECK_INT(wc_service_select(&paper, &b200, WC_SERVICE_CAPACITY, &ss, &st, &err), WC_OK);
	CHECK(strcmp(st.source, "capacity_datasheet") == 0);
	wc_params bare = WC_PARAMS_INIT;
	CHECK_INT(wc_params_copy(&bare, &paper, &err), WC_OK);
	wc_capacity_params_clear(&bare.capacity);
	wc_capacity_params_init(&bare.capacity);
	expect_fallback(&bare, &c, "the parameter set has no capacity section");
	wc_params_clear(&bare);
	/* Names. */
	wc_service_choice ch;
	CHECK_INT(wc_service_choice_from_name("capacity", &ch), WC_OK);
	CHECK_INT(ch, WC_SERVICE_CAPACITY);
	CHECK_INT(wc_service_choice_from_name("roofline", &ch), WC_EINVAL);
	CHECK(strcmp(wc_service_choice_name(WC_SERVICE_STANDIN), "standin") == 0);
}

/* Whether one of the answer's warnings holds `text`. */
static int
any_warning(const json_t *j, const char *text)
{
	const json_t *w = json_object_get(j, "warnings");
	for (size_t k = 0; k < json_array_size(w); k++)
		if (strstr(json_string_value(json_array_get(w, k)), text))
			return 1;
	return 0;
}

/* `wattcast envelope --platform P --model|--active-params M --poisson 2
 * --horizon 20 --replicas 2 --json`, parsed (exit 0 checked). */
static json_t *
envelope_json(const char *platform, const char *model_flag, const char *model)
{
	const char *argv[] = { "wattcast", "envelope", "--platform", platform, model_flag, model, "--poisson", "2",
		               "--horizon", "20", "--replicas", "2", "--json", NULL };
	return test_run_json(argv, NULL);
}

/* `wattcast envelope --json`: the source, the capacity level's values, and
 * for a model without an architecture the fallback warning; a forced
 * capacity model without one is a usage error naming --service. */
static void
test_cli(void)
{
	run_result r;
	json_t *j = envelope_json("A100", "--model", "Qwen3-8B");
	const json_t *st = json_object_get(j, "service_times");
	CHECK(st && strcmp(json_string_value(json_object_get(st, "source")), "capacity") == 0);
	CHECK(strcmp(json_string_value(json_object_get(json_object_get(st, "capacity"), "level")), "A100") == 0);
	/* 2/s runs about 6.7 at once, below the span A100 shares with H100's
	 * load shape (docs/fitting.md, "The measured profile"): that line,
	 * nothing else -- below the runs the answer is far from P0 + S, so
	 * the saturation caveat is not said (docs/fitting.md, "Physical
	 * bounds") */
	CHECK(json_array_size(json_object_get(j, "warnings")) == 1);
	CHECK(any_warning(j, "mean_running: load 6.72 is outside the calibrated span 7.9-256 on A100"));
	CHECK(!any_warning(j, "saturates at P0 + S"));
	CHECK(strcmp(json_string_value(json_object_get(j, "profile")), "measured") == 0);
	CHECK(strcmp(json_string_value(json_object_get(j, "level_source")), "calibrated") == 0);
	json_decref(j);
	/* A catalog board the set has no level for: power and service times
	 * both transferred from its datasheet, and both said. */
	j = envelope_json("L40S", "--model", "Qwen3-8B");
	CHECK(strcmp(json_string_value(json_object_get(j, "level_source")), "datasheet") == 0);
	st = json_object_get(j, "service_times");
	CHECK(st && strcmp(json_string_value(json_object_get(st, "source")), "capacity_datasheet") == 0);
	CHECK_CONTAINS(json_string_value(json_array_get(json_object_get(j, "warnings"), 0)),
	               "platform: no fitted level for L40S; level_source datasheet");
	CHECK_CONTAINS(json_string_value(json_array_get(json_object_get(j, "warnings"), 1)),
	               "platform: no fitted capacity level for L40S");
	const json_t *pm = json_object_get(j, "power_mapping");
	CHECK_NEAR(json_number_value(json_object_get(pm, "board_limit_w_per_gpu")),
	           wc_platform_board("L40S", NULL)->max_power_w, 0);
	json_decref(j);
	j = envelope_json("A100", "--active-params", "8");
	st = json_object_get(j, "service_times");
	CHECK(st && strcmp(json_string_value(json_object_get(st, "source")), "roofline_standin") == 0);
	CHECK_CONTAINS(json_string_value(json_object_get(st, "warning")), "the model's architecture is unknown");
	CHECK(any_warning(j, "not the capacity model: the model's architecture is unknown"));
	json_decref(j);
	const char *forced[] = { "wattcast", "envelope", "--platform", "A100", "--active-params", "8", "--poisson", "2",
		                 "--service", "capacity", NULL };
	CHECK_INT(run_wattcast(forced, NULL, &r), 0);
	CHECK_INT(r.status, 2);
	CHECK_CONTAINS(r.err, "wattcast envelope: --service: the capacity model cannot give the service times: the "
	                      "model's architecture is unknown");
	run_result_free(&r);
	const char *bad[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--poisson", "2",
		              "--service", "fast", NULL };
	CHECK_INT(run_wattcast(bad, NULL, &r), 0);
	CHECK_INT(r.status, 2);
	CHECK_CONTAINS(r.err, "--service: expected auto, capacity or standin, got 'fast'");
	run_result_free(&r);
}

/* The warnings of `wattcast envelope ARGS --json` joined by " | " into
 * buf (exit 0 checked). */
static const char *
cli_warnings(const char *const *argv, char *buf, size_t cap)
{
	run_result r;
	buf[0] = '\0';
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	json_t *j = json_loads(r.out ? r.out : "", 0, NULL);
	CHECK(j != NULL);
	const json_t *w = json_object_get(j, "warnings");
	for (size_t i = 0; i < json_array_size(w); i++)
		snprintf(buf + strlen(buf), cap - strlen(buf), "%s | ", json_string_value(json_array_get(w, i)));
	json_decref(j);
	run_result_free(&r);
	return buf;
}

/* How many of `wattcast envelope ARGS --json`'s warnings start with
 * `field` and name a span, the first of them `line` (else -1). */
static int
span_lines(const char *const *argv, const char *field, const char *line)
{
	char buf[8192];
	int n = 0, first = 0;
	for (const char *w = cli_warnings(argv, buf, sizeof buf), *end; *w; w = end + 3) {
		if (!(end = strstr(w, " | ")))
			break;
		const int len = (int)(end - w);
		if (strncmp(w, field, strlen(field)) == 0 && strstr(w, " span ") && strstr(w, " span ") < end) {
			first |= n == 0 && (size_t)len == strlen(line) && strncmp(w, line, (size_t)len) == 0;
			n++;
		}
	}
	if (n != 1 || !first)
		fprintf(stderr, "  %s: %s\n", field, buf);
	return first ? n : -1;
}

/* A tp or model size outside both calibrations, the power law's and the
 * capacity service times', is one line naming both spans, as `predict`
 * says it (docs/capacity.md, "Warnings"; tests/test_capacity_warnings.c
 * holds predict's): the envelope and the plan said it twice, the power
 * law's line and the capacity one's ("... 3.3-70.6 on H100", no unit). */
static void
test_one_line_both_spans(void)
{
	static const struct {
		const char *platform, *model, *tp, *weights, *field, *line;
	} both[] = {
		{ "H100", "Qwen3-0.6B", "1", "bf16", "active_params_b: ",
		  "active_params_b: 0.6 B is outside the calibrated span 3-70 B and the capacity calibration's span 3.3-70.6 "
		  "B on H100" },
		{ "H100", "Llama-3.1-405B", "16", "fp8", "tp: ",
		  "tp: 16 is outside the calibrated span 1-8 and the capacity calibration's span 1-8 on H100" },
		{ "H100", "Llama-3.1-405B", "16", "fp8", "active_params_b: ",
		  "active_params_b: 405 B is outside the calibrated span 3-70 B and the capacity calibration's span "
		  "3.3-70.6 B on H100" },
		{ "H200", "Llama-3.1-70B", "8", "bf16", "tp: ",
		  "tp: 8 is outside the calibrated span 1-4 and the capacity calibration's span 1-2 on H200" },
	};
	for (size_t i = 0; i < sizeof both / sizeof both[0]; i++) {
		const char *argv[] = { "wattcast", "envelope", "--platform", both[i].platform, "--model", both[i].model,
			               "--tp", both[i].tp, "--weights", both[i].weights, "--closed", "8", "--horizon", "20",
			               "--quiet", "--json", NULL, NULL, NULL };
		CHECK_INT(span_lines(argv, both[i].field, both[i].line), 1); /* the envelope */
		argv[16] = "--budget";
		argv[17] = "100000";
		CHECK_INT(span_lines(argv, both[i].field, both[i].line), 1); /* the plan */
	}
	/* the text answer prints the same list */
	const char *text[] = { "wattcast", "envelope", "--platform", "H100", "--model", "Qwen3-0.6B", "--closed", "8",
		               "--horizon", "20", "--replicas", "1", NULL };
	run_result r;
	CHECK_INT(run_wattcast(text, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, "warning: active_params_b: 0.6 B is outside the calibrated span 3-70 B and the capacity "
	                      "calibration's span 3.3-70.6 B on H100\n");
	CHECK(r.out && !strstr(r.out, "active_params_b: 0.6 B is outside the capacity calibration's span"));
	run_result_free(&r);
}

/* Envelopes and budget plans carry the caveats a point answer gives for
 * the same configuration (docs/envelopes.md, "Outputs"): the clock's
 * (kappa assumed at a lock; a lock below half the top clock), the capacity calibration's span (tp, sizes,
 * lengths: the same words as `predict`), and a plan its servers' queue as
 * the envelope says it (overloaded, or a closed loop's clients waiting). */
static void
test_caveats_as_predict(void)
{
	char buf[4096];
	const char *lock[] = { "wattcast", "envelope", "--platform", "H100", "--model", "Qwen3-14B", "--closed", "32",
		               "--horizon", "20", "--replicas", "2", "--sm-clock", "345", "--quiet", "--json", NULL, NULL,
		               NULL };
	const char *kappa = "sm_clock_mhz: no runs at a known locked clock were calibrated on H100"
	                    " and kappa is unpublished; kappa = 1 is assumed";
	/* below half the top clock: predict's low-clock caveat, word for word */
	const char *low = "sm_clock_mhz: the GPU runs at 345 MHz of H100's 1980 MHz top clock; the law does not model "
	                  "the bandwidth real boards lose below about half the top clock (docs/capacity.md)";
	CHECK_CONTAINS(cli_warnings(lock, buf, sizeof buf), kappa);
	CHECK_CONTAINS(buf, low);
	lock[16] = "--budget";
	lock[17] = "10000";
	lock[10] = "--seed"; /* a plan has no replicas */
	CHECK_CONTAINS(cli_warnings(lock, buf, sizeof buf), kappa);
	CHECK_CONTAINS(buf, low);
	const char *pred[] = { "wattcast", "predict", "inference", "--platform", "H100", "--model", "Qwen3-14B",
		               "--concurrency", "32", "--sm-clock", "345", "--json", NULL };
	CHECK_CONTAINS(cli_warnings(pred, buf, sizeof buf), low);
	/* the capacity span: every caveat is predict's own line */
	wc_config c = config("H200", 4, "Qwen3-235B-A22B");
	wc_service_store ss;
	wc_service_times st;
	wc_envelope_workload w;
	wc_error err;
	CHECK_INT(wc_service_select(&paper, &c, WC_SERVICE_AUTO, &ss, &st, &err), WC_OK);
	fixed_workload(&w, WC_ENVELOPE_POISSON, 2, 512, 256);
	wc_service_calibration_notes(&paper, &c, &w, &ss, NULL);
	CHECK(ss.n_warnings >= 2);
	wc_predictor *pr = NULL;
	wc_capacity_prediction cap;
	wc_inference_query q = { 0 };
	q.config = c;
	q.config.running = 32;
	q.config.input_tokens = 512;
	q.config.output_tokens = 256;
	CHECK_INT(wc_predictor_new(&paper, &pr, &err), WC_OK);
	CHECK_INT(wc_predict_capacity(pr, &q, NAN, NAN, &cap, &err), WC_OK);
	for (int i = 0; i < ss.n_warnings; i++) {
		int same = 0;
		for (int k = 0; k < cap.n_warnings; k++)
			same |= strcmp(cap.warnings[k], ss.warnings[i]) == 0;
		fprintf(stderr, "envelope caveat: %s (predict's: %d)\n", ss.warnings[i], same);
		CHECK(same);
	}
	CHECK_CONTAINS(ss.warnings[0], "tp: 4 is outside the capacity calibration's span 1-2 on H200");
	wc_predictor_free(pr);
	const char *tp4[] = { "wattcast", "envelope", "--platform", "H200", "--model", "Qwen3-235B-A22B", "--tp", "4",
		              "--poisson", "2", "--horizon", "20", "--budget", "40000", "--quiet", "--json", NULL };
	CHECK_CONTAINS(cli_warnings(tp4, buf, sizeof buf), "tp: 4 is outside the capacity calibration's span 1-2 on H200");
	CHECK_CONTAINS(buf, "capacity: calibrated only at ");
	/* a plan's servers' queue: overloaded, or the clients beyond the KV cache */
	const char *over[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Llama-3.1-8B", "--poisson", "40",
		               "--horizon", "60", "--budget", "10000", "--quiet", "--json", NULL };
	CHECK_CONTAINS(cli_warnings(over, buf, sizeof buf), "overloaded: ");
	CHECK_CONTAINS(buf, "requests per server still wait at the end (max_running 256)");
	const char *queue[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-32B", "--closed", "256",
		                "--horizon", "60", "--budget", "4000", "--quiet", "--json", NULL };
	CHECK_CONTAINS(cli_warnings(queue, buf, sizeof buf), "queue: 197 of the 256 clients wait for the engine's 59 "
	                                                      "slots (max_running) at the end");
	/* one rule for both: more clients than slots -- 48 on 24 leave as many
	 * waiting as run, 400 on 256 fewer waiting than slots; both are said,
	 * by the envelope and by the plan alike (lognormal lengths too) */
	const char *half[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--closed", "48",
		               "--max-running", "24", "--horizon", "60", "--quiet", "--json", NULL, NULL, NULL, NULL, NULL };
	const char *q24 = "queue: 24 of the 48 clients wait for the engine's 24 slots (max_running) at the end";
	CHECK_CONTAINS(cli_warnings(half, buf, sizeof buf), q24);
	half[14] = "--budget";
	half[15] = "5000";
	CHECK_CONTAINS(cli_warnings(half, buf, sizeof buf), q24);
	half[16] = "--output-tokens";
	half[17] = "lognormal:256:100";
	CHECK_CONTAINS(cli_warnings(half, buf, sizeof buf), q24);
	half[14] = half[16];
	half[15] = half[17];
	half[16] = NULL;
	CHECK_CONTAINS(cli_warnings(half, buf, sizeof buf), q24);
	half[7] = "400";
	half[8] = "--horizon"; /* the default 256 slots */
	half[9] = "60";
	CHECK_CONTAINS(cli_warnings(half, buf, sizeof buf), "queue: 144 of the 400 clients wait for the engine's 256 "
	                                                     "slots (max_running) at the end");
	half[7] = "24"; /* no more clients than slots: no queue */
	half[8] = "--max-running";
	half[9] = "24";
	CHECK(strstr(cli_warnings(half, buf, sizeof buf), "queue:") == NULL);
}

int
main(void)
{
	gsl_set_error_handler_off();
	wc_params_default(&paper);
	test_same_as_predict_capacity();
	test_littles_law();
	test_closed_loop_throughput();
	test_kv_limit();
	test_choice();
	test_cli();
	test_caveats_as_predict();
	test_one_line_both_spans();
	wc_params_clear(&paper);
	return check_report("test_envelope_capacity");
}
