/*
 * Frozen-law accuracy (Table 14 analogue) with known answers: runs whose
 * measured power is the law's value times known factors give exactly the
 * expected median |error|, share within 5 % and bias, overall and per set.
 */
#include "tests/support/check.h"
#include "data/data.h"
#include "tests/support/support.h"
#include "predict/capacity_predict.h"
#include "predict/predict.h"
#include "validation/validation.h"

#include <stdlib.h>

/* The prediction is what `predict` answers, the clock settled under the
 * board's limit: H200 at 256 running passes it (paper's law 706.7 W, the
 * answer 700 W; docs/validation.md, "Frozen-law accuracy"). */
static void
add(wc_runs_table *t, const wc_params *p, const char *gpu, double n, double off_pct, const char *set)
{
	wc_inference_query q = { .config = WC_CONFIG_INIT };
	wc_inference_prediction pw;
	wc_predictor *pr = NULL;
	wc_error err;
	wc_run r;
	q.config.platform = gpu;
	q.config.active_params_b = 8.19;
	q.config.running = n;
	CHECK_INT(wc_predictor_new(p, &pr, &err), WC_OK);
	CHECK_INT(wc_predict_settle_clock(pr, &q, &err), WC_OK);
	CHECK_INT(wc_predict_inference(pr, &q, &pw, &err), WC_OK);
	wc_predictor_free(pr);
	wc_run_init(&r);
	snprintf(r.run_id, sizeof r.run_id, "r%zu", t->n_runs);
	snprintf(r.platform, sizeof r.platform, "%s", gpu);
	snprintf(r.model, sizeof r.model, "Qwen3-8B");
	snprintf(r.set, sizeof r.set, "%s", set);
	r.active_params_b = 8.19;
	r.running = n;
	/* measured = predicted / (1 + e): the error (pred - meas)/meas is e */
	r.mean_power_w = pw.power.node_power_w / (1.0 + off_pct / 100.0);
	wc_runs_append(t, &r, NULL);
}

int
main(void)
{
	wc_params p = WC_PARAMS_INIT;
	wc_heldout_report rep;
	wc_error err;
	wc_params_default(&p);
	wc_runs_table *t = wc_runs_new();
	/* set a: errors +2, -4, +10 %; set b: -1, +3 %; one unknown platform */
	add(t, &p, "A100", 32, 2, "a");
	add(t, &p, "H100", 8, -4, "a");
	add(t, &p, "H200", 128, 10, "a");
	add(t, &p, "A100", 1, -1, "b");
	add(t, &p, "H200", 256, 3, "b");
	add(t, &p, "A100", 16, 0, "");
	snprintf(t->runs[5].platform, sizeof t->runs[5].platform, "TPU");
	CHECK_INT(wc_validate_heldout(&p, t, &rep, NULL, &err), WC_OK);
	CHECK_INT(rep.skipped, 1);
	CHECK_CONTAINS(rep.skip_reason, "run 'r5': platform: unknown level 'TPU'"); /* said, not only counted */
	CHECK_INT(rep.overall.n, 5);
	CHECK_NEAR(rep.overall.median_abs_err_pct, 3.0, 1e-9);
	CHECK_NEAR(rep.overall.share_within_5pct, 0.8, 1e-12);
	CHECK_NEAR(rep.overall.bias_pct, 2.0, 1e-9);
	CHECK_INT(rep.n_sets, 2);
	CHECK(strcmp(rep.sets[0].set, "a") == 0);
	CHECK_INT(rep.sets[0].n, 3);
	CHECK_NEAR(rep.sets[0].median_abs_err_pct, 4.0, 1e-9);
	CHECK_NEAR(rep.sets[0].share_within_5pct, 2.0 / 3.0, 1e-12);
	CHECK_NEAR(rep.sets[0].bias_pct, 8.0 / 3.0, 1e-9);
	CHECK(strcmp(rep.sets[1].set, "b") == 0);
	CHECK_NEAR(rep.sets[1].median_abs_err_pct, 2.0, 1e-9);
	CHECK_NEAR(rep.sets[1].bias_pct, 1.0, 1e-9);
	CHECK_NEAR(rep.sets[1].share_within_5pct, 1.0, 0);
	CHECK_INT(rep.sets_not_shown, 0);
	{ /* beyond WC_HELDOUT_SETS_MAX sets the rest are counted, not dropped
	   * silently: 40 sets of two runs each, 8 sets and 16 runs unlisted */
		wc_runs_table *many = wc_runs_new();
		wc_heldout_report big;
		for (int k = 0; k < 80; k++) {
			char set[16];
			snprintf(set, sizeof set, "s%02d", k % 40);
			add(many, &p, "A100", 8, 1, set);
		}
		CHECK_INT(wc_validate_heldout(&p, many, &big, NULL, &err), WC_OK);
		CHECK_INT(big.n_sets, WC_HELDOUT_SETS_MAX);
		CHECK_INT(big.sets_not_shown, 40 - WC_HELDOUT_SETS_MAX);
		CHECK_INT(big.runs_not_shown, 2 * (40 - WC_HELDOUT_SETS_MAX));
		CHECK_INT(big.overall.n, 80);
		wc_runs_free(many);
	}

	/* --per-run: one row per predicted run, with what went into it. A run
	 * with its own idle power uses it; a large model gets a warning (on
	 * two GPUs: its 141 GB of weights do not fit in one). */
	t->runs[1].idle_power_w = 120.0;
	t->runs[1].mean_power_w += 3.0 * (120.0 - 126.3); /* keeps its -4 % */
	t->runs[2].active_params_b = 70.6;
	t->runs[2].tp = 2;
	wc_per_run pr = WC_PER_RUN_INIT;
	CHECK_INT(wc_validate_heldout(&p, t, &rep, &pr, &err), WC_OK);
	CHECK_INT(pr.n, 5);
	CHECK(strcmp(pr.rows[0].run_id, "r0") == 0 && strcmp(pr.rows[0].set, "a") == 0);
	CHECK_NEAR(pr.rows[0].error_pct, 2.0, 1e-9);
	CHECK_NEAR(pr.rows[0].predicted, pr.rows[0].measured * 1.02, 1e-9);
	CHECK(strcmp(pr.rows[0].p0_source, "params:published") == 0);
	CHECK(strcmp(pr.rows[1].p0_source, "run") == 0);
	CHECK_CONTAINS(pr.rows[2].warnings, "active_params_b: 70.6");
	/* The profile has no draws: the interval is its held-out error. */
	CHECK(pr.rows[0].lo < pr.rows[0].predicted && pr.rows[0].predicted < pr.rows[0].hi);
	char *dir = test_tmpdir("validate_heldout"), *path = path_join(dir, "per_run.csv");
	CHECK_INT(wc_per_run_write(path, &pr, &err), WC_OK);
	char *text = NULL;
	size_t len;
	CHECK_INT(wc_read_file(path, 1 << 20, &text, &len, &err), WC_OK);
	CHECK_CONTAINS(text, "run_id,set,fold,platform,tp,model,active_params_b,running,load,weights,"
	                     "kv_cache,sm_clock_mhz,idle_power_w,quantity,predicted,measured,error_pct,lo,hi,"
	                     "p0_source,warnings\n");
	CHECK_CONTAINS(text, "\nr1,a,,H100,1,Qwen3-8B,8.19,8,running,bf16,bf16,,120,mean_power_w,");
	free(text);
	free(path);
	free(dir);
	wc_per_run_clear(&pr);
	/* A catalog board the law has no level for (L40S): skipped by the
	 * fit's own scores, scored on its datasheet transfer when asked (as
	 * predict answers it); a name no catalog knows stays skipped. */
	snprintf(t->runs[4].platform, sizeof t->runs[4].platform, "L40S");
	CHECK_INT(wc_validate_heldout(&p, t, &rep, NULL, &err), WC_OK);
	CHECK_INT(rep.skipped, 2);
	CHECK_INT(rep.overall.n, 4);
	wc_per_run ds = WC_PER_RUN_INIT;
	CHECK_INT(wc_validate_heldout_datasheet(&p, t, &rep, &ds, &err), WC_OK);
	CHECK_INT(rep.skipped, 1);
	CHECK_INT(rep.overall.n, 5);
	CHECK_CONTAINS(rep.skip_reason, "unknown level 'TPU'");
	CHECK(strcmp(ds.rows[4].p0_source, "params:datasheet") == 0);
	CHECK_CONTAINS(ds.rows[4].warnings, "no fitted level for L40S");
	wc_per_run_clear(&ds);
	wc_runs_free(t);
	return check_report("test_validate_heldout");
}
