/*
 * A capacity section fitted on real runs against the published aggregates
 * it never saw (label realdata; ../shared read in place). The section is
 * fitted the way docs/capacity.md ("What identifies eta_c") recommends:
 * `wattcast ingest` of the PowerTrace-Sim run folders (TTFT and ITL from
 * request logs, so the compute efficiency is identified) plus the
 * published periods (data/default/published-periods.csv, the only rows on
 * H200), Huber-weighted (`--robust`, docs/capacity.md "Robust fit"); the power law
 * is the built-in default's. Then, pooled as the
 * captions pool (arithmetic mean over the configurations; where the KV
 * cache holds fewer than the stated concurrency -- Qwen3-32B on one 80 GB
 * GPU -- the answer is vLLM's, fewer running and the rest waiting):
 * - Fig. 29: Qwen3-8B/14B, TP 1, 32 in flight, 512 output tokens, latency
 *   and energy per output token on A100, H100, H200;
 * - Fig. 30: six dense Qwen3 0.6B-32B on the three platforms, latency,
 *   energy per request and per token at 1 and 256 in flight;
 * - Fig. 33: latency with fp8 and int4 weights relative to bf16 (choice:
 *   the caption's five models are not named, so ratios over Qwen3-4B, 8B,
 *   14B, 32B and Llama-3.1-8B on A100 and H200);
 * - Fig. 34: energy per token with an fp8 KV cache relative to bf16.
 * At the prompt length the fit gives the published design and at 256, 512
 * and 1024 tokens. The goal is 10 %; the test asserts what is met within
 * it and pins what is not to today's value (docs/capacity.md, "Published
 * checks from real runs", lists both).
 */
#include "data/data.h"
#include "fit/capacity_fit.h"
#include "predict/capacity_predict.h"
#include "tests/support/support.h"

#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdlib.h>

typedef struct {
	double lat, ept, epr;
} pooled;

static pooled
pool(const wc_predictor *pr, const char *const *platforms, int n_plat, const char *const *models, int n_models,
     double running, double input, wc_precision weights, wc_precision kv)
{
	pooled s = { 0, 0, 0 };
	int k = 0;
	for (int h = 0; h < n_plat; h++)
		for (int m = 0; m < n_models; m++) {
			wc_inference_query q = { .config = WC_CONFIG_INIT };
			wc_capacity_prediction cp;
			wc_error err;
			q.config.platform = platforms[h];
			q.config.arch = wc_model_lookup(models[m]);
			q.config.active_params_b = q.config.arch->active_params_b;
			q.config.running = running;
			q.config.input_tokens = input;
			q.config.output_tokens = 512;
			q.config.weights = weights;
			q.config.kv = kv;
			/* as `wattcast predict` answers it: under the board's limit */
			if (wc_predict_board_limit(pr, &q, &err) != WC_OK ||
			    wc_predict_capacity(pr, &q, NAN, NAN, &cp, &err) != WC_OK) {
				fprintf(stderr, "  %s %s: %s\n", platforms[h], models[m], err.msg);
				CHECK(!"every pooled configuration is answered");
				continue;
			}
			s.lat += cp.value[WC_CAPQ_LATENCY];
			s.ept += cp.value[WC_CAPQ_E_TOKEN];
			s.epr += cp.value[WC_CAPQ_E_REQUEST];
			k++;
		}
	if (k) {
		s.lat /= k;
		s.ept /= k;
		s.epr /= k;
	}
	return s;
}

/* Ratio predicted / published; within the goal, or pinned to today's. */
static void
check(const char *what, double input, double pred, double published, double today)
{
	double ratio = pred / published;
	printf("  %-30s at %6.0f tokens: %9.4g / %-9.4g %+6.1f %%%s\n", what, input, pred, published,
	       100 * (ratio - 1), fabs(ratio - 1) <= 0.10 ? "" : "  (outside 10 %)");
	if (isnan(today))
		CHECK_NEAR(ratio, 1.0, 0.10);
	else
		CHECK_NEAR(100 * (ratio - 1), today, 1.0);
}

/* Ingest the PowerTrace-Sim folders of one platform into `out`. */
static int
ingest(const char *shared, const char *platform, const char *const *folders, int n, const char *out)
{
	const char *argv[24];
	char *dirs[8];
	int k = 0;
	argv[k++] = "wattcast";
	argv[k++] = "ingest";
	for (int i = 0; i < n; i++) {
		char rel[160];
		snprintf(rel, sizeof rel, "data/real/powertrace-sim/%s", folders[i]);
		argv[k++] = dirs[i] = path_join(shared, rel);
	}
	const char *tail[] = { "-o", out, "--platform", platform, "--tp", "1", "--model", "Qwen/Qwen3-8B",
	                       "--utc-offset", "-25200", "--quiet", NULL };
	for (int i = 0; tail[i]; i++)
		argv[k++] = tail[i];
	argv[k] = NULL;
	run_result r;
	int ok = run_wattcast(argv, NULL, &r) == 0 && r.status == 0;
	run_result_free(&r);
	for (int i = 0; i < n; i++)
		free(dirs[i]);
	return ok;
}

/* The section fitted on the ingested runs and the published periods. */
static int
fit_section(const char *shared, wc_params *p)
{
	static const char *const a100[] = { "arrival_pattern_qwen3-8b_a100_smooth", "arrival_rate_qwen3-8b_a100_r2p5",
		                            "burstgpt_qwen3-8b_a100", "trace_replay_smoke_qwen3-8b_a100",
		                            "validate_qwen3-8b_a100" };
	static const char *const h100[] = { "validate_qwen3-8b" };
	char *dir = test_tmpdir("real_capacity_published");
	char *runs[2] = { path_join(dir, "a100.csv"), path_join(dir, "h100.csv") };
	char *periods = path_join(test_env("WC_SOURCE_DIR", "."), "data/default/published-periods.csv");
	wc_capacity_data d = WC_CAPACITY_DATA_INIT;
	wc_capacity_fit_options o = WC_CAPACITY_FIT_OPTIONS_INIT;
	wc_capacity_fit_result r;
	wc_periods_table *pt = NULL;
	wc_error err;
	int ok = ingest(shared, "A100", a100, 5, runs[0]) && ingest(shared, "H100", h100, 1, runs[1]);
	CHECK(ok);
	for (int i = 0; ok && i < 2; i++) {
		wc_runs_table *t = NULL;
		ok = wc_runs_read(runs[i], &t, &err) == WC_OK && wc_capacity_data_add_runs(&d, t, &err) == WC_OK;
		wc_runs_free(t);
	}
	o.robust = 1; /* `fit capacity --robust`, recommended for real runs */
	ok = ok && wc_periods_read(periods, &pt, &err) == WC_OK && wc_capacity_data_add_periods(&d, pt, &err) == WC_OK;
	CHECK(ok);
	if (ok && (ok = wc_fit_capacity(&d, &o, &r, &err) == WC_OK)) {
		CHECK(r.converged);
		double etac = r.params.shared_p[WC_CAP_ETAC].value;
		printf("  fitted on %d rows (%d observations): compute efficiency %.3f\n", r.n_rows, r.n_obs, etac);
		/* real TTFTs identify it near 0.8 (docs/capacity.md) */
		CHECK(etac > 0.7 && etac < 0.95);
		wc_params_default(p);
		ok = wc_capacity_params_copy(&p->capacity, &r.params, &err) == WC_OK;
		wc_capacity_fit_result_clear(&r);
	}
	CHECK(ok);
	wc_periods_free(pt);
	wc_capacity_data_clear(&d);
	free(runs[0]);
	free(runs[1]);
	free(periods);
	free(dir);
	return ok;
}

/* Today's signed error (%) of each check outside the goal, by input
 * length (NAN: within 10 %, asserted as such). Order: Fig. 29 latency and
 * energy per token on A100, H100, H200; Fig. 30 latency, energy per
 * request and per token at 1 and at 256; Fig. 33 fp8 and int4; Fig. 34. */
#define N_CHECKS 15
#define N_INPUTS 4

static void
figures(const wc_predictor *pr, double input, const double *today)
{
	static const char *const plat3[3] = { "A100", "H100", "H200" }, *const plat2[2] = { "A100", "H200" };
	static const char *const pair[2] = { "Qwen3-8B", "Qwen3-14B" };
	static const char *const six[6] = { "Qwen3-0.6B", "Qwen3-1.7B", "Qwen3-4B", "Qwen3-8B", "Qwen3-14B", "Qwen3-32B" };
	static const char *const five[5] = { "Qwen3-4B", "Qwen3-8B", "Qwen3-14B", "Qwen3-32B", "Llama-3.1-8B" };
	static const double lat29[3] = { 10.1, 5.5, 4.2 }, ept29[3] = { 0.22, 0.19, 0.16 };
	int c = 0;
	char what[64];
	for (int h = 0; h < 3; h++) {
		pooled s = pool(pr, &plat3[h], 1, pair, 2, 32, input, WC_PREC_BF16, WC_PREC_BF16);
		snprintf(what, sizeof what, "Fig. 29 %s latency", plat3[h]);
		check(what, input, s.lat, lat29[h], today[c++]);
		snprintf(what, sizeof what, "Fig. 29 %s J/token", plat3[h]);
		check(what, input, s.ept, ept29[h], today[c++]);
	}
	static const struct {
		double n, lat, epr, ept;
	} f30[2] = { { 1, 5.5, 2000, 3.9 }, { 256, 21, 45, 0.088 } };
	for (int i = 0; i < 2; i++) {
		pooled s = pool(pr, plat3, 3, six, 6, f30[i].n, input, WC_PREC_BF16, WC_PREC_BF16);
		snprintf(what, sizeof what, "Fig. 30 n=%.0f latency", f30[i].n);
		check(what, input, s.lat, f30[i].lat, today[c++]);
		snprintf(what, sizeof what, "Fig. 30 n=%.0f J/request", f30[i].n);
		check(what, input, s.epr, f30[i].epr, today[c++]);
		snprintf(what, sizeof what, "Fig. 30 n=%.0f J/token", f30[i].n);
		check(what, input, s.ept, f30[i].ept, today[c++]);
	}
	double bf16 = pool(pr, plat2, 2, five, 5, 32, input, WC_PREC_BF16, WC_PREC_BF16).lat;
	check("Fig. 33 fp8 / bf16 latency", input, pool(pr, plat2, 2, five, 5, 32, input, WC_PREC_FP8, WC_PREC_BF16).lat / bf16,
	      8.1 / 11.2, today[c++]);
	check("Fig. 33 int4 / bf16 latency", input,
	      pool(pr, plat2, 2, five, 5, 32, input, WC_PREC_INT4, WC_PREC_BF16).lat / bf16, 7.5 / 11.2, today[c++]);
	double kv16 = pool(pr, plat3, 3, five, 5, 32, input, WC_PREC_BF16, WC_PREC_BF16).ept;
	check("Fig. 34 fp8 / bf16 KV J/token", input,
	      pool(pr, plat3, 3, five, 5, 32, input, WC_PREC_BF16, WC_PREC_FP8).ept / kv16, 0.98, today[c++]);
}

int
main(void)
{
	const char *shared = test_shared_dir();
	if (!shared)
		return TEST_SKIP;
	gsl_set_error_handler_off();
	wc_params p = WC_PARAMS_INIT;
	wc_predictor *pr = NULL;
	wc_error err;
	if (!fit_section(shared, &p) || wc_predictor_new(&p, &pr, &err) != WC_OK) {
		CHECK(!"a capacity section fitted on real runs");
		wc_params_clear(&p);
		return check_report("test_real_capacity_published");
	}
	const wc_capacity_workload *w = wc_capacity_workload_find(&p.capacity, "powertrace-paper");
	CHECK(w != NULL);
	const double inputs[N_INPUTS] = { w ? w->input_tokens.value : 512, 256, 512, 1024 };
	static const double today[N_INPUTS][N_CHECKS] = {
#define X NAN
		{ X, X, X, X, X, X, X, X, X, 16.6, X, X, X, -14.7, X },
		{ X, X, X, X, -13.9, -13.1, X, X, X, -21.8, -27.2, -27.3, X, -22.0, X },
		{ X, X, X, X, X, X, X, X, X, 15.1, X, X, X, -14.9, X },
		{ 27.5, 31.9, 25.5, 26.1, 10.0, 11.0, X, X, X, 92.6, 73.2, 73.0, X, X, X },
#undef X
	};
	for (int i = 0; i < N_INPUTS; i++)
		figures(pr, inputs[i], today[i]);
	wc_predictor_free(pr);
	wc_params_clear(&p);
	return check_report("test_real_capacity_published");
}
