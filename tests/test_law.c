/*
 * The inference law with the built-in "paper" profile against the
 * published sanity anchors (docs/inference-law.md), the idle and TP rules, series
 * averaging, precision terms, and the forms' analytic derivatives.
 */
#include "models/models.h"
#include "tests/support/check.h"

static double
node_power(const wc_params *p, const char *platform, double active, int tp, double n)
{
	wc_config c = WC_CONFIG_INIT;
	wc_power pw;
	c.platform = platform;
	c.active_params_b = active;
	c.tp = tp;
	c.running = n;
	CHECK_INT(wc_law_power(p, &c, &pw, NULL), WC_OK);
	return pw.node_power_w;
}

int
main(void)
{
	wc_params p = WC_PARAMS_INIT;
	wc_params_default(&p);
	CHECK_INT(wc_params_validate(&p, NULL), WC_OK);

	/* Published anchors: closed loop, n = 32, TP 1, bf16 (within 0.5 W). */
	CHECK_NEAR(node_power(&p, "A100", 8.19, 1, 32), 362.8, 0.5);
	CHECK_NEAR(node_power(&p, "A100", 14.8, 1, 32), 373.5, 0.5);
	CHECK_NEAR(node_power(&p, "H100", 8.19, 1, 32), 551.3, 0.5);
	CHECK_NEAR(node_power(&p, "H100", 14.8, 1, 32), 579.5, 0.5);
	CHECK_NEAR(node_power(&p, "H200", 8.19, 1, 32), 613.3, 0.5);
	CHECK_NEAR(node_power(&p, "H200", 14.8, 1, 32), 642.0, 0.5);

	/* n = 0 is exactly G*P0 (no quadratic term at log 0). */
	CHECK(node_power(&p, "A100", 8.19, 1, 0) == 72.9);
	CHECK(node_power(&p, "H100", 70.6, 4, 0) == 4 * 126.3);

	/* TP 2 doubles the idle part and enters lN as log(N/(8*2)). */
	{
		wc_config c = WC_CONFIG_INIT;
		wc_power pw;
		c.platform = "H200";
		c.active_params_b = 32.8;
		c.tp = 2;
		c.running = 64;
		CHECK_INT(wc_law_power(&p, &c, &pw, NULL), WC_OK);
		CHECK(pw.idle_power_w == 2 * 120.9);
		double ln = log(64.0 / 32.0), lN = log(32.8 / 16.0);
		double z = 1.47 + 0.598 * lN + 0.749 * ln + 0.10 * ln * ln;
		double expect = 2 * 120.9 + 2 * 604 / (1 + exp(-z));
		CHECK_NEAR(pw.node_power_w, expect, 1e-9);
		CHECK_NEAR(pw.per_gpu_power_w, expect / 2, 1e-9);
	}

	/* Pooled concurrency endpoints behind gamma2 = 0.10 (docs/inference-law.md): mean over
	 * 0.6B-32B dense x A100/H100/H200, even mix. n = 256 reproduces the
	 * published 573 W; n = 1 gives 337.6 W against the published 373 W (the
	 * paper's mix at n = 1 is not an even one; no gamma2 fits both ends). */
	{
		const double sizes[6] = { 0.6, 1.7, 4.0, 8.19, 14.8, 32.8 };
		const char *gpus[3] = { "A100", "H100", "H200" };
		double at1 = 0, at256 = 0;
		for (int g = 0; g < 3; g++)
			for (int s = 0; s < 6; s++) {
				at1 += node_power(&p, gpus[g], sizes[s], 1, 1) / 18;
				at256 += node_power(&p, gpus[g], sizes[s], 1, 256) / 18;
			}
		CHECK_NEAR(at256, 573, 2);
		CHECK_NEAR(at1, 337.6, 0.1);
	}

	/* Series: average of the law over the samples, idle steps included. */
	{
		wc_config c = WC_CONFIG_INIT;
		wc_power pw;
		double n[3] = { 0, 16, 64 }, w[3] = { 1, 2, 1 };
		c.platform = "A100";
		c.active_params_b = 8.19;
		c.running = 999; /* ignored by the series call */
		CHECK_INT(wc_law_power_series(&p, &c, n, w, 3, &pw, NULL), WC_OK);
		double expect = (node_power(&p, "A100", 8.19, 1, 0) + 2 * node_power(&p, "A100", 8.19, 1, 16) +
		                 node_power(&p, "A100", 8.19, 1, 64)) / 4;
		CHECK_NEAR(pw.node_power_w, expect, 1e-9);
		/* ... which is not the law at the mean load (Jensen). */
		CHECK(fabs(pw.node_power_w - node_power(&p, "A100", 8.19, 1, 24)) > 1.0);
	}

	/* Precision terms: fp8 KV is a factor on S everywhere; fp8 weights shift z on
	 * H200 only; the locked-clock level uses H100's S and phi(f). */
	{
		wc_config c = WC_CONFIG_INIT;
		wc_power base, pw;
		c.platform = "H100";
		c.active_params_b = 8.19;
		c.running = 32;
		wc_law_power(&p, &c, &base, NULL);
		c.kv = WC_PREC_FP8;
		wc_law_power(&p, &c, &pw, NULL);
		CHECK_NEAR(pw.dynamic_w, 0.967 * base.dynamic_w, 1e-9);
		c.kv = WC_PREC_BF16;
		c.weights = WC_PREC_FP8;
		wc_law_power(&p, &c, &pw, NULL);
		CHECK(pw.node_power_w == base.node_power_w); /* no term on H100 */
		c.platform = "H200";
		wc_law_power(&p, &c, &pw, NULL);
		double z = 1.47 + 0.598 * log(8.19 / 8) - 0.81;
		CHECK_NEAR(pw.node_power_w, 120.9 + 604 / (1 + exp(-z)), 1e-9);
		c.platform = "H100-locked";
		c.weights = WC_PREC_BF16;
		c.sm_clock_mhz = 1410;
		wc_law_power(&p, &c, &pw, NULL);
		z = 5.53 + 0.598 * log(8.19 / 8);
		CHECK_NEAR(pw.node_power_w, 77.8 + 537 * (1410.0 / 1980) / (1 + exp(-z)), 1e-9);
	}

	/* Bad configurations name the field. */
	{
		wc_config c = WC_CONFIG_INIT;
		wc_power pw;
		wc_error err;
		c.platform = "A100";
		c.active_params_b = 8;
		c.tp = 0;
		CHECK_INT(wc_law_power(&p, &c, &pw, &err), WC_EINVAL);
		CHECK_CONTAINS(err.msg, "tp:");
		c.tp = 1;
		c.active_params_b = -1;
		CHECK_INT(wc_law_power(&p, &c, &pw, &err), WC_EINVAL);
		CHECK_CONTAINS(err.msg, "active_params_b:");
		c.active_params_b = 8;
		c.running = NAN;
		CHECK_INT(wc_law_power(&p, &c, &pw, &err), WC_EINVAL);
		CHECK_CONTAINS(err.msg, "running:");
		c.running = 1;
		/* an idle power at the board's limit is no idle GPU's */
		c.idle_power_w = 400;
		CHECK_INT(wc_law_power(&p, &c, &pw, &err), WC_EINVAL);
		CHECK_CONTAINS(err.msg, "idle_power_w: 400 W per GPU is not below A100's board limit of 400 W");
		c.idle_power_w = 85;
		CHECK_INT(wc_law_power(&p, &c, &pw, &err), WC_OK);
		c.idle_power_w = 0;
		c.platform = "L40S";
		CHECK_INT(wc_law_power(&p, &c, &pw, &err), WC_ENOTFOUND);
		CHECK_CONTAINS(err.msg, "L40S");
		/* finite per GPU, overflowing for the group: refused, not inf */
		wc_params q = WC_PARAMS_INIT;
		wc_params_default(&q);
		q.kappa.value = 300;
		c.platform = "H100";
		c.tp = 4096;
		c.sm_clock_mhz = 1e6;
		CHECK_INT(wc_law_power(&q, &c, &pw, &err), WC_ERANGE);
		CHECK_CONTAINS(err.msg, "non-finite");
	}

	/* Each form's analytic derivative matches a central difference. */
	for (int f = 0; f < WC_FORM_COUNT; f++) {
		const double z = 0.7, fl = -0.4, h = 1e-6;
		double gz, gf;
		wc_form_link((wc_form)f, z, fl, &gz, &gf);
		double nz = (wc_form_link((wc_form)f, z + h, fl, NULL, NULL) -
		             wc_form_link((wc_form)f, z - h, fl, NULL, NULL)) / (2 * h);
		double nf = (wc_form_link((wc_form)f, z, fl + h, NULL, NULL) -
		             wc_form_link((wc_form)f, z, fl - h, NULL, NULL)) / (2 * h);
		CHECK_NEAR(gz, nz, 1e-7);
		CHECK_NEAR(gf, nf, 1e-7);
		wc_form back;
		CHECK_INT(wc_form_from_name(wc_form_name((wc_form)f), &back), WC_OK);
		CHECK_INT(back, f);
	}
	/* The logistic does not overflow far from 0. */
	CHECK(wc_form_link(WC_FORM_SATURATING, -800, 0, NULL, NULL) >= 0.0);
	CHECK(wc_form_link(WC_FORM_SATURATING, 800, 0, NULL, NULL) == 1.0);

	/* wc_law_z is the z of wc_law_point_dynamic, bit for bit, and returns
	 * the load argument (held at the vertex of a turning quadratic). */
	{
		wc_law_point lp = { .form = WC_FORM_SATURATING_QUADRATIC, .scale = 300, .z0 = 0.3,
		                    .gamma1 = 0.8, .gamma2 = -0.2 };
		const double ns[] = { 1.0, 3.0, 32.0, 500.0 };
		for (int k = 0; k < 4; k++) {
			double a, z = wc_law_z(lp.z0, lp.gamma1, lp.gamma2, wc_law_log_load(ns[k]), &a);
			CHECK(lp.scale * wc_form_link(lp.form, z, 0, NULL, NULL) == wc_law_point_dynamic(&lp, ns[k]));
			CHECK(a == wc_law_load_argument(lp.gamma1, lp.gamma2, wc_law_log_load(ns[k])));
		}
		double a;
		wc_law_z(0, 0.8, -0.2, wc_law_log_load(500), &a);
		CHECK_NEAR(a, 2.0, 0.0); /* the vertex -gamma1 / (2 gamma2) */
		CHECK(wc_law_z(0.5, 1.0, 0.0, 2.0, NULL) == 2.5);
	}
	/* The link's log and its ratios, as the fit's residuals take them:
	 * log g, g_z / g and g_F / g, finite where g underflows. */
	for (int f = 0; f < WC_FORM_COUNT; f++) {
		const double zs[] = { -3.0, 0.0, 0.7, 25.0 };
		for (int k = 0; k < 4; k++) {
			double gz, gf, rz, rf, g = wc_form_link((wc_form)f, zs[k], -0.4, &gz, &gf);
			double lg = wc_form_link_log((wc_form)f, zs[k], -0.4, &rz, &rf);
			CHECK_NEAR(lg, log(g), 1e-14 * (1 + fabs(lg)));
			CHECK_NEAR(rz, gz / g, 1e-14);
			CHECK_NEAR(rf, gf / g, 1e-14);
		}
	}
	{
		double rz, lg = wc_form_link_log(WC_FORM_SATURATING, -800, 0, &rz, NULL);
		CHECK_NEAR(lg, -800.0, 1e-12);
		CHECK_NEAR(rz, 1.0, 1e-12);
		lg = wc_form_link_log(WC_FORM_SATURATING_QUADRATIC, 800, 0, &rz, NULL);
		CHECK(lg == 0.0 && rz >= 0.0 && rz < 1e-300);
	}
	/* The clock coordinate: f over the board's highest clock (the set's
	 * reference for a level the catalog does not know); 0 when free. */
	CHECK_NEAR(wc_law_clock_ratio(NULL, 1980.0, 990.0), 0.5, 0.0);
	CHECK(wc_law_clock_ratio(NULL, 1980.0, 0.0) == 0.0);
	{
		const wc_level *h100 = wc_params_level(&p, "H100");
		CHECK(h100 != NULL);
		if (h100)
			CHECK(wc_law_clock_ratio(h100, 1.0, 990.0) == 990.0 / wc_law_clock_ref_mhz(h100, 1.0));
	}
	return check_report("test_law");
}
