/*
 * Envelope benchmark (docs/results.md, "Benchmarks"): a 1-hour horizon x
 * R replicas of Qwen3-8B on one A100 under Poisson 4 req/s with
 * ShareGPT-like lengths (the paper profile, the stand-in service times),
 * on 1 thread and on T threads in the same run (the peer is the
 * single-thread run; both must give the same numbers), then power budget
 * plans up to a fleet of K servers.
 *   bench_envelope [HORIZON_S] [R] [T] [K] [PLAN_HORIZON_S]
 */
#include "predict/predict.h"

#include <gsl/gsl_errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static double
now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double
cpu(void)
{
	struct rusage u;
	getrusage(RUSAGE_SELF, &u);
	return (double)u.ru_utime.tv_sec + 1e-6 * (double)u.ru_utime.tv_usec + (double)u.ru_stime.tv_sec +
	       1e-6 * (double)u.ru_stime.tv_usec;
}

static int
timed_run(const wc_envelope_workload *w, const wc_service_times *st, const wc_power_map *pm,
          wc_envelope_options *o, int threads, wc_envelope_result *r, double *wall, double *cpu_s)
{
	wc_error err;
	o->threads = threads;
	double c0 = cpu(), t0 = now();
	if (wc_envelope_run(w, st, pm, o, r, &err) != WC_OK) {
		fprintf(stderr, "bench_envelope: %s\n", err.msg);
		return 1;
	}
	*wall = now() - t0;
	*cpu_s = cpu() - c0;
	return 0;
}

int
main(int argc, char **argv)
{
	double horizon = argc > 1 ? atof(argv[1]) : 3600, plan_horizon = argc > 5 ? atof(argv[5]) : 600;
	int R = argc > 2 ? atoi(argv[2]) : 100, T = argc > 3 ? atoi(argv[3]) : 2, K = argc > 4 ? atoi(argv[4]) : 1000;
	wc_params p = WC_PARAMS_INIT;
	wc_config c = WC_CONFIG_INIT;
	wc_capacity_service_store rs;
	wc_service_times st;
	wc_power_map_law store;
	wc_power_map pm;
	wc_error err;
	gsl_set_error_handler_off();
	wc_params_default(&p);
	c.platform = "A100";
	c.active_params_b = 8.19;
	c.arch = wc_model_lookup("Qwen3-8B");
	if (wc_roofline_standin_init(&rs, &c, &err) || wc_power_map_from_law(&p, &c, NULL, &store, &pm, &err)) {
		fprintf(stderr, "bench_envelope: %s\n", err.msg);
		return 1;
	}
	wc_roofline_standin_service(&rs, &st);
	wc_envelope_workload w;
	wc_envelope_workload_init(&w);
	w.kind = WC_ENVELOPE_POISSON;
	w.rate = 4;
	w.input = (wc_length_dist){ WC_LENGTH_LOGNORMAL, 330, 300, NULL, 0 };
	w.output = (wc_length_dist){ WC_LENGTH_LOGNORMAL, 210, 200, NULL, 0 };
	wc_envelope_options o;
	wc_envelope_options_init(&o);
	o.horizon_s = horizon;
	o.replicas = R;
	wc_envelope_result r1, rt;
	double w1, c1, wt, ct;
	if (timed_run(&w, &st, &pm, &o, 1, &r1, &w1, &c1) || timed_run(&w, &st, &pm, &o, T, &rt, &wt, &ct))
		return 1;
	int same = memcmp(r1.server_band.mean_w, rt.server_band.mean_w, r1.server_band.n_bins * sizeof(double)) == 0 &&
	           memcmp(&r1.server, &rt.server, sizeof r1.server) == 0;
	printf("envelope: %g s x %d replicas, A100 Qwen3-8B, Poisson 4 req/s: mean %.1f W, p95 %.1f W, "
	       "ramp %.1f W/s, %.0f output tokens per replica\n", horizon, R, rt.server.mean_w.value,
	       rt.server.p95_w.value, rt.server.ramp_w_per_s.value, rt.server.output_tokens.value);
	printf("ENVELOPE_SECONDS_1 %.3f (cpu %.3f)\nENVELOPE_SECONDS_T %.3f (cpu %.3f, %d threads)\n", w1, c1, wt, ct, T);
	printf("same numbers on 1 and %d threads: %s\n", T, same ? "yes" : "NO");
	/* A fingerprint of the numbers (summary and band), to show that a
	 * change of the code left them bit for bit. */
	uint64_t h = 1469598103934665603ull;
	const unsigned char *b = (const unsigned char *)&r1.server;
	for (size_t i = 0; i < sizeof r1.server; i++)
		h = (h ^ b[i]) * 1099511628211ull;
	b = (const unsigned char *)r1.server_band.mean_w;
	for (size_t i = 0; i < r1.server_band.n_bins * sizeof(double); i++)
		h = (h ^ b[i]) * 1099511628211ull;
	b = (const unsigned char *)r1.server_band.p95_w;
	for (size_t i = 0; i < r1.server_band.n_bins * sizeof(double); i++)
		h = (h ^ b[i]) * 1099511628211ull;
	printf("fingerprint of the numbers (FNV-1a of the summary and band): %016llx\n", (unsigned long long)h);
	wc_envelope_result_clear(&r1);
	wc_envelope_result_clear(&rt);

	/* A budget that takes about K servers: the plan runs up to the bound. */
	wc_budget_options bo = { 1e12, WC_BUDGET_P95, K, 1.0 };
	wc_budget_plan plan;
	o.horizon_s = plan_horizon;
	o.threads = T;
	double c0 = cpu(), t0 = now();
	if (wc_envelope_budget(&w, &st, &pm, &o, &bo, &plan, &err) != WC_OK) {
		fprintf(stderr, "bench_envelope: %s\n", err.msg);
		return 1;
	}
	printf("PLAN_SECONDS %.3f (cpu %.3f): up to %d servers over %g s, %d probes, %d servers simulated, "
	       "aggregate p95 %.0f W\n", now() - t0, cpu() - c0, K, plan_horizon, plan.probes,
	       plan.servers_simulated, plan.stat_w);
	bo.budget_w = 0.5 * plan.stat_w; /* a budget that binds near K/2 */
	c0 = cpu();
	t0 = now();
	if (wc_envelope_budget(&w, &st, &pm, &o, &bo, &plan, &err) != WC_OK) {
		fprintf(stderr, "bench_envelope: %s\n", err.msg);
		return 1;
	}
	printf("PLAN_BINDING_SECONDS %.3f (cpu %.3f): budget %.0f W -> %d servers, %d probes, %d servers simulated\n",
	       now() - t0, cpu() - c0, bo.budget_w, plan.fleet_size, plan.probes, plan.servers_simulated);
	wc_params_clear(&p);
	return same ? 0 : 1;
}
