/*
 * Trace envelopes (predict/envelope.h) against known answers: bit-identical
 * bands for 1 and 2 threads; a constant n(t) gives a flat band at the
 * law's value after the response time constant; Poisson arrivals with a
 * fixed service time reproduce Little's law; a fleet of K independent
 * servers has K times one server's mean and a relative spread shrinking
 * as 1/sqrt(K); budget plans on a known fleet; bursty gaps with the
 * gamma law vLLM's client uses and a piecewise-constant rate; bad inputs
 * refused with the field named.
 */
#include "predict/envelope_internal.h"
#include "predict/predict.h"
#include "tests/support/check.h"

#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static wc_params paper;

/* Qwen3-8B on one A100 (or `tp` of them), the paper law, the stand-in. */
typedef struct {
	wc_config c;
	wc_capacity_service_store rs;
	wc_service_times st;
	wc_power_map_law store;
	wc_power_map pm;
} setup;

static void
setup_init(setup *s, int tp)
{
	wc_error err;
	s->c = (wc_config)WC_CONFIG_INIT;
	s->c.platform = "A100";
	s->c.tp = tp;
	s->c.active_params_b = 8.19;
	s->c.arch = wc_model_lookup("Qwen3-8B");
	CHECK_INT(wc_roofline_standin_init(&s->rs, &s->c, &err), WC_OK);
	wc_roofline_standin_service(&s->rs, &s->st);
	CHECK_INT(wc_power_map_from_law(&paper, &s->c, NULL, &s->store, &s->pm, &err), WC_OK);
}

static void
poisson_workload(wc_envelope_workload *w, double rate)
{
	wc_envelope_workload_init(w);
	w->kind = WC_ENVELOPE_POISSON;
	w->rate = rate;
	w->input = (wc_length_dist){ WC_LENGTH_LOGNORMAL, 330, 300, NULL, 0 };
	w->output = (wc_length_dist){ WC_LENGTH_LOGNORMAL, 210, 200, NULL, 0 };
}

static int
same_band(const wc_envelope_band *a, const wc_envelope_band *b)
{
	size_t n = a->n_bins;
	return n == b->n_bins && memcmp(a->mean_w, b->mean_w, n * sizeof(double)) == 0 &&
	       memcmp(a->p5_w, b->p5_w, n * sizeof(double)) == 0 &&
	       memcmp(a->p95_w, b->p95_w, n * sizeof(double)) == 0 &&
	       memcmp(a->mean_running, b->mean_running, n * sizeof(double)) == 0;
}

static void
test_threads_bit_identical(void)
{
	setup s;
	wc_envelope_workload w;
	wc_envelope_options o;
	wc_envelope_result r1, r2;
	wc_error err;
	setup_init(&s, 1);
	poisson_workload(&w, 4.0);
	wc_envelope_options_init(&o);
	o.horizon_s = 120;
	o.replicas = 7;
	o.seed = 42;
	for (int mode = 0; mode < WC_FLEET_MODE_COUNT; mode++) {
		o.fleet_mode = (wc_fleet_mode)mode;
		o.fleet_size = mode == 0 ? 1 : 3;
		o.threads = 1;
		CHECK_INT(wc_envelope_run(&w, &s.st, &s.pm, &o, &r1, &err), WC_OK);
		o.threads = 2;
		CHECK_INT(wc_envelope_run(&w, &s.st, &s.pm, &o, &r2, &err), WC_OK);
		CHECK(same_band(&r1.server_band, &r2.server_band));
		CHECK(same_band(&r1.fleet_band, &r2.fleet_band));
		CHECK(memcmp(&r1.server, &r2.server, sizeof r1.server) == 0);
		CHECK(memcmp(&r1.fleet, &r2.fleet, sizeof r1.fleet) == 0);
		/* ...and the replicas differ from each other (the band is not empty). */
		CHECK(r1.server.p95_w.hi > r1.server.p95_w.lo);
		wc_envelope_result_clear(&r1);
		wc_envelope_result_clear(&r2);
	}
	/* Another seed gives another band. */
	o.fleet_mode = WC_FLEET_INDEPENDENT;
	o.fleet_size = 1;
	CHECK_INT(wc_envelope_run(&w, &s.st, &s.pm, &o, &r1, &err), WC_OK);
	o.seed = 43;
	CHECK_INT(wc_envelope_run(&w, &s.st, &s.pm, &o, &r2, &err), WC_OK);
	CHECK(!same_band(&r1.server_band, &r2.server_band));
	wc_envelope_result_clear(&r1);
	wc_envelope_result_clear(&r2);
}

static void
test_constant_series_flat_band(void)
{
	setup s;
	wc_envelope_workload w;
	wc_envelope_options o;
	wc_envelope_result r;
	wc_error err;
	wc_power law;
	double n_t[2000];
	setup_init(&s, 2);
	for (int i = 0; i < 2000; i++)
		n_t[i] = 8;
	wc_envelope_workload_init(&w);
	w.kind = WC_ENVELOPE_SERIES;
	w.series_running = n_t;
	w.series_len = 2000;
	w.series_dt_s = 0.05;
	wc_envelope_options_init(&o);
	o.horizon_s = 100;
	o.replicas = 3;
	o.tau_s = 0.5;
	o.hold_s = 0;
	CHECK_INT(wc_envelope_run(&w, &s.st, &s.pm, &o, &r, &err), WC_OK);
	wc_config c = s.c;
	c.running = 8;
	CHECK_INT(wc_law_power(&paper, &c, &law, &err), WC_OK);
	/* Starts from idle, then within 20 tau (e^-20 of the step) the band
	 * is flat at the law. */
	CHECK(r.server_band.mean_w[0] < law.node_power_w - 20);
	for (size_t k = 10; k < r.server_band.n_bins; k++) {
		CHECK_NEAR(r.server_band.mean_w[k], law.node_power_w, 1e-6 * law.node_power_w);
		CHECK_NEAR(r.server_band.p5_w[k], r.server_band.p95_w[k], 1e-9);
	}
	CHECK_NEAR(r.server.p50_w.value, law.node_power_w, 1e-6 * law.node_power_w);
	CHECK_NEAR(r.server.mean_running.value, 8.0, 1e-9);
	/* The response: after one bin of 1 s with tau = 0.5 s the mean is
	 * P0 + (P - P0)(1 - tau (1 - e^-2) / 1). */
	double p0 = 2 * s.pm.idle_w, expect = law.node_power_w - (law.node_power_w - p0) * 0.5 * (1 - exp(-2.0));
	CHECK_NEAR(r.server_band.mean_w[0], expect, 1e-6 * expect);
	CHECK_CONTAINS(r.service_source, "none");
	CHECK_INT(r.n_warnings, 0); /* the series covers the horizon exactly */
	wc_envelope_result_clear(&r);
	/* A series shorter than the window leaves it idle after its end, and
	 * a longer one is cut: both said. */
	w.series_len = 400;
	CHECK_INT(wc_envelope_run(&w, &s.st, &s.pm, &o, &r, &err), WC_OK);
	CHECK(r.n_warnings == 1 && strstr(r.warnings[0], "running_series: covers 20 s of the 100 s simulated"));
	CHECK_NEAR(r.server.mean_running.value, 8.0 * 20 / 100, 1e-9);
	wc_envelope_result_clear(&r);
	o.horizon_s = 50;
	w.series_len = 2000;
	CHECK_INT(wc_envelope_run(&w, &s.st, &s.pm, &o, &r, &err), WC_OK);
	CHECK(r.n_warnings == 1 && strstr(r.warnings[0], "running_series: its last 50 s lie beyond the 50 s"));
	wc_envelope_result_clear(&r);
}

/* A service of fixed length: every step 10 ms, no prefill time. */
static double
fixed_step(void *ctx, double running, double context)
{
	(void)ctx;
	(void)running;
	(void)context;
	return 0.01;
}

static double
no_prefill(void *ctx, double input)
{
	(void)ctx;
	(void)input;
	return 0.0;
}

static void
test_littles_law(void)
{
	setup s;
	wc_envelope_workload w;
	wc_envelope_options o;
	wc_envelope_result r;
	wc_error err;
	wc_service_times fixed = { fixed_step, no_prefill, NULL, NULL, "fixed", 0 };
	setup_init(&s, 1);
	wc_envelope_workload_init(&w);
	w.kind = WC_ENVELOPE_POISSON;
	w.rate = 20.0;
	w.output = (wc_length_dist){ WC_LENGTH_FIXED, 50, 0, NULL, 0 };
	wc_envelope_options_init(&o);
	o.horizon_s = 2000;
	o.warmup_s = 20;
	o.replicas = 4;
	o.threads = 2;
	CHECK_INT(wc_envelope_run(&w, &fixed, &s.pm, &o, &r, &err), WC_OK);
	/* W = 50 steps of 10 ms; L = lambda W = 10. */
	double L = r.server.mean_running.value;
	fprintf(stderr, "Little's law: mean running %.4f, lambda W = 10\n", L);
	CHECK(fabs(L / 10.0 - 1.0) < 0.02);
	CHECK(fabs(L / 10.0 - 1.0) < 0.01); /* what it achieves: 0.15 % */
	/* Every request yields 50 tokens: tokens ~ lambda * horizon * 50. */
	CHECK(fabs(r.server.output_tokens.value / (20.0 * 2000 * 50) - 1.0) < 0.02);
	CHECK_CONTAINS(r.service_source, "fixed");
	wc_envelope_result_clear(&r);
	/* Short requests make a step of error a large one: 5 tokens, W = 50 ms. */
	w.rate = 40.0;
	w.output.mean = 5;
	o.horizon_s = 500;
	CHECK_INT(wc_envelope_run(&w, &fixed, &s.pm, &o, &r, &err), WC_OK);
	CHECK(fabs(r.server.mean_running.value / 2.0 - 1.0) < 0.02);
	wc_envelope_result_clear(&r);
	w.output.mean = 50;

	/* A closed loop of 8 with the same service keeps 8 running (each
	 * client waits one step between requests: 50 of 51 steps). */
	w.kind = WC_ENVELOPE_CLOSED;
	w.concurrency = 8;
	o.horizon_s = 200;
	CHECK_INT(wc_envelope_run(&w, &fixed, &s.pm, &o, &r, &err), WC_OK);
	CHECK_NEAR(r.server.mean_running.value, 8.0 * 50.0 / 51.0, 0.05);
	wc_envelope_result_clear(&r);
	/* ...and an engine limit of 4 caps it at 4, the other 4 said waiting
	 * (docs/envelopes.md, "Engine": more clients than slots) */
	o.max_running = 4;
	CHECK_INT(wc_envelope_run(&w, &fixed, &s.pm, &o, &r, &err), WC_OK);
	CHECK_NEAR(r.server.mean_running.value, 4.0, 0.01);
	CHECK_INT(r.n_warnings, 2);
	CHECK_CONTAINS(r.warnings[0], "queue: 4 of the 8 clients wait for the engine's 4 slots (max_running) at the end");
	/* and, as every closed loop without a think time, its steady count
	 * (docs/envelopes.md, "Closed loops against Fig. 29") */
	CHECK_CONTAINS(r.warnings[1], "concurrency: 8 clients without a think time hold the running count steady");
	wc_envelope_result_clear(&r);
	/* Arrivals at twice the service rate: the queue grows, and it says so. */
	w.kind = WC_ENVELOPE_POISSON;
	w.rate = 20.0;
	o.max_running = 4;
	o.horizon_s = 100;
	CHECK_INT(wc_envelope_run(&w, &fixed, &s.pm, &o, &r, &err), WC_OK);
	CHECK_INT(r.n_warnings, 1);
	CHECK_CONTAINS(r.warnings[0], "overloaded:");
	wc_envelope_result_clear(&r);
}

/* Mean over bins of (p95 - p5) / mean: the band's relative width. */
static double
relative_width(const wc_envelope_band *b)
{
	double s = 0.0;
	for (size_t k = 5; k < b->n_bins; k++)
		s += (b->p95_w[k] - b->p5_w[k]) / b->mean_w[k];
	return s / (double)(b->n_bins - 5);
}

static void
test_fleet_scaling(void)
{
	setup s;
	wc_envelope_workload w;
	wc_envelope_options o;
	wc_envelope_result one, fleet;
	wc_error err;
	setup_init(&s, 1);
	poisson_workload(&w, 2.0);
	wc_envelope_options_init(&o);
	o.horizon_s = 120;
	o.replicas = 60;
	o.threads = 2;
	CHECK_INT(wc_envelope_run(&w, &s.st, &s.pm, &o, &one, &err), WC_OK);
	o.fleet_size = 16;
	CHECK_INT(wc_envelope_run(&w, &s.st, &s.pm, &o, &fleet, &err), WC_OK);
	CHECK_INT(fleet.fleet_size, 16);
	double ratio = fleet.fleet.mean_w.value / one.server.mean_w.value;
	CHECK(fabs(ratio / 16.0 - 1.0) < 0.02);
	CHECK(fabs(fleet.fleet.energy_j.value / one.server.energy_j.value / 16.0 - 1.0) < 0.02);
	/* Spread of 16 independent servers: 1/4 of one server's, within 25 %. */
	double shrink = relative_width(&fleet.fleet_band) / relative_width(&one.server_band);
	fprintf(stderr, "fleet of 16: mean ratio %.4f, relative spread ratio %.4f (1/sqrt(16) = 0.25)\n",
	        ratio, shrink);
	CHECK(shrink > 0.25 * 0.75 && shrink < 0.25 * 1.25);
	/* The fleet's peak is at least its p95 and below 16 single peaks. */
	CHECK(fleet.fleet_peak_w >= fleet.fleet.p95_w.value);
	CHECK(fleet.fleet_peak_w < 16 * one.fleet_peak_w);
	wc_envelope_result_clear(&one);
	wc_envelope_result_clear(&fleet);

	/* A shared process split round robin carries the same total load. */
	o.fleet_mode = WC_FLEET_ROUND_ROBIN;
	o.fleet_size = 4;
	o.replicas = 10;
	CHECK_INT(wc_envelope_run(&w, &s.st, &s.pm, &o, &fleet, &err), WC_OK);
	CHECK(fabs(fleet.fleet.output_tokens.value / (4 * fleet.server.output_tokens.value) - 1) < 0.1);
	wc_envelope_result_clear(&fleet);
}

static void
test_budget_plan(void)
{
	setup s;
	wc_envelope_workload w;
	wc_envelope_options o;
	wc_budget_options bo = { 0, WC_BUDGET_P95, 100, 1.0 };
	wc_budget_plan plan;
	wc_error err;
	wc_power law;
	double n_t[200];
	setup_init(&s, 1);
	for (int i = 0; i < 200; i++)
		n_t[i] = 16;
	wc_envelope_workload_init(&w);
	w.kind = WC_ENVELOPE_SERIES;
	w.series_running = n_t;
	w.series_len = 200;
	w.series_dt_s = 1.0;
	wc_envelope_options_init(&o);
	o.horizon_s = 200;
	o.warmup_s = 1;
	o.tau_s = 0;
	o.threads = 2;
	wc_config c = s.c;
	c.running = 16;
	CHECK_INT(wc_law_power(&paper, &c, &law, &err), WC_OK);
	/* Every server draws exactly P: 10.5 P fits 10 servers. */
	bo.budget_w = 10.5 * law.node_power_w;
	CHECK_INT(wc_envelope_budget(&w, &s.st, &s.pm, &o, &bo, &plan, &err), WC_OK);
	CHECK_INT(plan.fleet_size, 10);
	CHECK_NEAR(plan.stat_w, 10 * law.node_power_w, 1e-6 * law.node_power_w);
	CHECK_NEAR(plan.next_stat_w, 11 * law.node_power_w, 1e-6 * law.node_power_w);
	CHECK_INT(plan.at_bound, 0);
	CHECK(plan.probes <= 9);
	CHECK(plan.servers_simulated <= 16);
	/* Below one server: none fit; above the bound: the bound. */
	bo.budget_w = 0.5 * law.node_power_w;
	CHECK_INT(wc_envelope_budget(&w, &s.st, &s.pm, &o, &bo, &plan, &err), WC_OK);
	CHECK_INT(plan.fleet_size, 0);
	bo.budget_w = 1e9;
	bo.max_fleet = 37;
	CHECK_INT(wc_envelope_budget(&w, &s.st, &s.pm, &o, &bo, &plan, &err), WC_OK);
	CHECK_INT(plan.fleet_size, 37);
	CHECK_INT(plan.at_bound, 1);

	/* A random workload: the plan's size keeps its p95 under the budget,
	 * one more exceeds it, and the answer does not depend on threads. */
	wc_envelope_workload pw;
	poisson_workload(&pw, 3.0);
	o.horizon_s = 60;
	bo.budget_w = 4000;
	bo.max_fleet = 64;
	CHECK_INT(wc_envelope_budget(&pw, &s.st, &s.pm, &o, &bo, &plan, &err), WC_OK);
	CHECK(plan.fleet_size > 5 && plan.fleet_size < 20);
	CHECK(plan.stat_w <= 4000 && plan.next_stat_w > 4000);
	wc_budget_plan plan1;
	o.threads = 1;
	CHECK_INT(wc_envelope_budget(&pw, &s.st, &s.pm, &o, &bo, &plan1, &err), WC_OK);
	CHECK_INT(plan1.fleet_size, plan.fleet_size);
	CHECK(plan1.stat_w == plan.stat_w);
	bo.stat = WC_BUDGET_MAX;
	CHECK_INT(wc_envelope_budget(&pw, &s.st, &s.pm, &o, &bo, &plan1, &err), WC_OK);
	CHECK(plan1.fleet_size <= plan.fleet_size);
	/* A shared process with a balancer is planned too. */
	o.fleet_mode = WC_FLEET_LEAST_LOADED;
	bo.stat = WC_BUDGET_P95;
	CHECK_INT(wc_envelope_budget(&pw, &s.st, &s.pm, &o, &bo, &plan1, &err), WC_OK);
	CHECK(plan1.fleet_size > 5 && plan1.fleet_size < 20);
}

static void
expect_refusal(const wc_envelope_workload *w, const wc_envelope_options *o, const setup *s,
               const char *field)
{
	wc_envelope_result r;
	wc_error err = { 0, "" };
	CHECK_INT(wc_envelope_run(w, &s->st, &s->pm, o, &r, &err), WC_EINVAL);
	CHECK(strncmp(err.msg, field, strlen(field)) == 0);
	if (strncmp(err.msg, field, strlen(field)) != 0)
		fprintf(stderr, "expected a message on '%s', got '%s'\n", field, err.msg);
}

static void
test_bad_inputs(void)
{
	setup s;
	wc_envelope_workload w;
	wc_envelope_options o;
	setup_init(&s, 1);
	wc_envelope_options_init(&o);
	o.horizon_s = 10;
	poisson_workload(&w, -1.0);
	expect_refusal(&w, &o, &s, "rate: must be");
	poisson_workload(&w, 2.0);
	o.horizon_s = 1e9;
	expect_refusal(&w, &o, &s, "horizon_s: must be");
	o.horizon_s = 10;
	o.replicas = 0;
	expect_refusal(&w, &o, &s, "replicas: must be");
	o.replicas = 2;
	o.bin_s = 0.07;
	expect_refusal(&w, &o, &s, "bin_s: must be");
	o.bin_s = 1;
	o.sample_s = 20; /* longer than the horizon: one sample at t = 0 */
	expect_refusal(&w, &o, &s, "sample_s: 20 s would sample the horizon of 10 s at t = 0 alone; at most 9.95 s");
	o.sample_s = 10; /* the horizon itself: t = 0 alone too */
	expect_refusal(&w, &o, &s, "sample_s: 10 s would sample the horizon of 10 s at t = 0 alone");
	/* the default cadence samples a short horizon twice (0.1 s was one
	 * sample of 0.1 s); one grid step has one value, sampled once */
	CHECK(wc_envelope_samples(10, 9.95) == 2 && wc_envelope_samples(10, 10) == 1);
	CHECK(wc_envelope_sample_within(0.1, 0.1) == 0.05 && wc_envelope_sample_within(0.1, 0.15) == 0.1);
	CHECK(wc_envelope_sample_within(0.1, 0.05) == 0.05 && wc_envelope_samples(0.05, 0.05) == 1);
	o.sample_s = 0.25;
	w.kind = WC_ENVELOPE_REPLAY;
	expect_refusal(&w, &o, &s, "arrival_s: empty replay log");
	double n_t[4] = { 1, 2, NAN, 3 };
	wc_envelope_workload_init(&w);
	w.kind = WC_ENVELOPE_SERIES;
	w.series_running = n_t;
	w.series_len = 4;
	expect_refusal(&w, &o, &s, "series_running/2: must be");
	poisson_workload(&w, 2.0);
	w.output.sd = -3;
	expect_refusal(&w, &o, &s, "output_tokens: sd must be");
	poisson_workload(&w, 2.0);
	w.kind = WC_ENVELOPE_BURSTY;
	w.burstiness = 0;
	expect_refusal(&w, &o, &s, "burstiness: must be");
	wc_envelope_workload_init(&w);
	w.concurrency = 2.5;
	expect_refusal(&w, &o, &s, "concurrency: must be");
}

static void
test_standin(void)
{
	setup s;
	setup_init(&s, 1);
	/* Qwen3-8B, bf16, on one A100: 16.38 GB of weights and 147 456 bytes
	 * of KV per token at 0.7 x 2.04 TB/s, plus 2 ms. */
	double kv = 2.0 * 36 * 8 * 128 * 2;
	double expect = 0.002 + (8.19e9 * 2 + 10 * 500 * kv) / (0.7 * 2.04e12);
	CHECK_NEAR(s.st.decode_step_s(s.st.ctx, 10, 500), expect, 1e-12);
	/* causal attention: L (L + 1) / 2 query-key pairs, 4 w FLOPs each
	 * (docs/capacity.md, "Step time") */
	double flops = 2 * 8.19e9 * 1000 + 2.0 * 36 * 1000.0 * 1001 * 4096;
	CHECK_NEAR(s.st.prefill_s(s.st.ctx, 1000), flops / (0.5 * 312e12), 1e-12);
	CHECK(strcmp(s.st.source, "roofline_standin") == 0);
	/* Two GPUs halve both. */
	setup s2;
	setup_init(&s2, 2);
	CHECK_NEAR(s2.st.decode_step_s(s2.st.ctx, 10, 500) - 0.002, (expect - 0.002) / 2, 1e-12);
	/* A locked-clock level is its platform; an unknown one is refused. */
	wc_error err;
	wc_capacity_service_store rs;
	wc_config c = s.c;
	c.platform = "H100-locked";
	CHECK_INT(wc_roofline_standin_init(&rs, &c, &err), WC_OK);
	c.platform = "TPU9";
	CHECK_INT(wc_roofline_standin_init(&rs, &c, &err), WC_ENOTFOUND);
	CHECK(strncmp(err.msg, "platform:", 9) == 0);
}

/* Gaps of the open-loop generator (white box): bursty gamma gaps have mean
 * 1/rate and squared coefficient of variation 1/burstiness. */
/* A short log replayed over a long horizon says that the rest is idle;
 * over its own span it says nothing. */
static void
test_short_replay(void)
{
	setup s;
	setup_init(&s, 1);
	const double at[3] = { 0.0, 1.5, 3.0 };
	wc_envelope_workload w;
	poisson_workload(&w, 1.0);
	w.kind = WC_ENVELOPE_REPLAY;
	w.arrival_s = at;
	w.n_arrivals = 3;
	wc_envelope_options o;
	wc_envelope_options_init(&o);
	o.replicas = 1;
	const double horizons[2] = { 60, 5 };
	for (int i = 0; i < 2; i++) {
		wc_envelope_result r;
		wc_error err;
		o.horizon_s = horizons[i];
		CHECK_INT(wc_envelope_run(&w, &s.st, &s.pm, &o, &r, &err), WC_OK);
		int warned = 0;
		for (int k = 0; k < r.n_warnings; k++)
			warned |= strstr(r.warnings[k], "arrival_s: the replayed log's last arrival is at 3 s of the 60 s "
			                                "horizon") != NULL;
		CHECK_INT(warned, i == 0);
		wc_envelope_result_clear(&r);
	}
}

static void
test_arrival_gaps(void)
{
	const double shapes[3] = { 0.25, 1.0, 4.0 };
	for (int i = 0; i < 3; i++) {
		wc_envelope_workload w;
		wc__envelope_rng rng;
		wc__arrivals a;
		wc_envelope_workload_init(&w);
		w.kind = WC_ENVELOPE_BURSTY;
		w.rate = 2.0;
		w.burstiness = shapes[i];
		wc__envelope_rng_init(&rng, 7, (uint64_t)i);
		CHECK_INT(wc__arrivals_init(&a, &w, &rng, 0.0, 1e9, 1.0), WC_OK);
		double prev = 0.0, s = 0.0, s2 = 0.0, in, out;
		const int n = 200000;
		for (int k = 0; k < n; k++) {
			double t = wc__arrivals_peek(&a), g = t - prev;
			wc__arrivals_take(&a, &in, &out);
			s += g;
			s2 += g * g;
			prev = t;
		}
		double mean = s / n, cv2 = (s2 / n - mean * mean) / (mean * mean);
		CHECK(fabs(mean / 0.5 - 1) < 0.01);
		CHECK(fabs(cv2 * shapes[i] - 1) < 0.03);
		wc__arrivals_clear(&a);
	}
}

static void
test_rate_profile(void)
{
	setup s;
	wc_envelope_workload w;
	wc_envelope_options o;
	wc_envelope_result r;
	wc_error err;
	wc_service_times fixed = { fixed_step, no_prefill, NULL, NULL, "fixed", 0 };
	double until[2] = { 100, 200 }, rate[2] = { 4, 40 };
	setup_init(&s, 1);
	wc_envelope_workload_init(&w);
	w.kind = WC_ENVELOPE_POISSON;
	w.n_profile = 2;
	w.profile_until_s = until;
	w.profile_rate = rate;
	w.output = (wc_length_dist){ WC_LENGTH_FIXED, 50, 0, NULL, 0 };
	wc_envelope_options_init(&o);
	o.horizon_s = 300; /* the last rate (40/s) holds after 200 s */
	o.replicas = 8;
	o.bin_s = 100;
	CHECK_INT(wc_envelope_run(&w, &fixed, &s.pm, &o, &r, &err), WC_OK);
	/* lambda W with W = 0.5 s: 2, then 20 (less the first W of a step). */
	CHECK(fabs(r.server_band.mean_running[0] / 2.0 - 1) < 0.05);
	CHECK(fabs(r.server_band.mean_running[1] / 20.0 - 1) < 0.02);
	CHECK(fabs(r.server_band.mean_running[2] / 20.0 - 1) < 0.02);
	CHECK(r.server_band.mean_w[1] > r.server_band.mean_w[0] + 20);
	wc_envelope_result_clear(&r);
}

int
main(void)
{
	gsl_set_error_handler_off();
	wc_params_default(&paper);
	test_standin();
	test_threads_bit_identical();
	test_constant_series_flat_band();
	test_littles_law();
	test_fleet_scaling();
	test_budget_plan();
	test_bad_inputs();
	test_arrival_gaps();
	test_short_replay();
	test_rate_profile();
	wc_params_clear(&paper);
	return check_report("test_envelope");
}
