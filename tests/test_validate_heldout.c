/*
 * Frozen-law accuracy (Table 14 analogue) with known answers: runs whose
 * measured power is the law's value times known factors give exactly the
 * expected median |error|, share within 5 % and bias, overall and per set.
 */
#include "tests/support/check.h"
#include "validation/validation.h"

static void
add(wc_runs_table *t, const wc_params *p, const char *gpu, double n, double off_pct, const char *set)
{
	wc_config c = WC_CONFIG_INIT;
	wc_power pw;
	wc_run r;
	c.platform = gpu;
	c.active_params_b = 8.19;
	c.running = n;
	wc_law_power(p, &c, &pw, NULL);
	wc_run_init(&r);
	snprintf(r.run_id, sizeof r.run_id, "r%zu", t->n_runs);
	snprintf(r.platform, sizeof r.platform, "%s", gpu);
	snprintf(r.model, sizeof r.model, "Qwen3-8B");
	snprintf(r.set, sizeof r.set, "%s", set);
	r.active_params_b = 8.19;
	r.running = n;
	/* measured = predicted / (1 + e): the error (pred - meas)/meas is e */
	r.mean_power_w = pw.node_power_w / (1.0 + off_pct / 100.0);
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
	CHECK_INT(wc_validate_heldout(&p, t, &rep, &err), WC_OK);
	CHECK_INT(rep.skipped, 1);
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
	wc_runs_free(t);
	return check_report("test_validate_heldout");
}
