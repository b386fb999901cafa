/*
 * The prefill-aware form (docs/inference-law.md, "Prefill-aware form"):
 * with its workload terms off it is the published form to 1e-9; with
 * them on it is G*(P0 + D + rho*max(0, A - D)) computed by hand from the
 * capacity model's prefill share; it never decreases with load; the
 * built-in paper-prefill profile is the paper profile until token lengths
 * are given; a load series mixes each sample on its own, its idle ones
 * drawing G*P0.
 */
#include "data/data.h"
#include "models/models.h"
#include "tests/support/support.h"

#include <math.h>
#include <string.h>

static double
node_power(const wc_params *p, const wc_config *c)
{
	wc_power pw;
	wc_error err;
	CHECK_INT(wc_law_power(p, c, &pw, &err), WC_OK);
	return pw.node_power_w;
}

/* No token lengths (or no architecture): the published form, exactly. */
static void
terms_off_is_published(const wc_params *paper, const wc_params *prefill)
{
	static const char *const platforms[] = { "A100", "H100", "H200" };
	static const double loads[] = { 0.3, 1, 7, 32, 256 };
	for (int l = 0; l < 3; l++)
		for (int k = 0; k < 5; k++) {
			wc_config c = WC_CONFIG_INIT;
			c.platform = platforms[l];
			c.tp = 2;
			c.model = "Qwen3-14B";
			c.arch = wc_model_lookup("Qwen3-14B");
			c.active_params_b = c.arch->active_params_b;
			c.running = loads[k];
			c.output_tokens = 300; /* no input length, no set: no share */
			double a = node_power(paper, &c), b = node_power(prefill, &c);
			CHECK_NEAR(b, a, 1e-9 * a);
			c.input_tokens = 2000; /* lengths, but no architecture */
			c.arch = NULL;
			b = node_power(prefill, &c);
			CHECK_NEAR(b, a, 1e-9 * a);
		}
	/* A load series too. */
	wc_config c = WC_CONFIG_INIT;
	double n[4] = { 0, 3, 17, 40 }, w[4] = { 1, 2, 3, 4 };
	wc_power pa, pb;
	c.platform = "H100";
	c.active_params_b = 8.19;
	c.running = 25.1;
	CHECK_INT(wc_law_power_series(paper, &c, n, w, 4, &pa, NULL), WC_OK);
	CHECK_INT(wc_law_power_series(prefill, &c, n, w, 4, &pb, NULL), WC_OK);
	CHECK_NEAR(pb.node_power_w, pa.node_power_w, 1e-9 * pa.node_power_w);
}

/* Terms on: the mix by hand from the share and the headroom. */
static void
mix_by_hand(const wc_params *paper, const wc_params *prefill)
{
	wc_config c = test_catalog_config("A100", 1, "Qwen3-8B", 0.0);
	c.input_tokens = 4600;
	c.output_tokens = 100;
	for (int k = 0; k < 3; k++) {
		static const double loads[3] = { 0.5, 2, 24 };
		c.running = loads[k];
		double rho = wc_law_prefill_share(prefill, &c);
		CHECK(rho > 0.05 && rho < 1.0);
		const wc_level *lv = wc_params_level(prefill, "A100");
		double headroom = wc_law_prefill_headroom(prefill, lv);
		CHECK_NEAR(headroom, 400.0 - 72.9, 1e-9);
		double a = prefill->phi.value * headroom;
		double g = c.tp, p0 = lv->p0.value;
		double d = (node_power(paper, &c) - g * p0) / g; /* published dynamic per GPU */
		double u = c.running < 1.0 ? c.running : 1.0, one = d / u;
		double expect = g * (p0 + u * (one + rho * fmax(0.0, a - one)));
		CHECK_NEAR(node_power(prefill, &c), expect, 1e-9 * expect);
		CHECK(node_power(prefill, &c) > node_power(paper, &c) + 1.0);
	}
	/* A prefill power below the decode power changes nothing. */
	wc_params low = WC_PARAMS_INIT;
	wc_params_copy(&low, prefill, NULL);
	low.phi.value = 0.01;
	c.running = 24;
	CHECK_NEAR(node_power(&low, &c), node_power(paper, &c), 1e-9 * node_power(paper, &c));
	wc_params_clear(&low);
}

/* A load series mixes each sample on its own (docs/inference-law.md,
 * "Averaging over a load series"): an idle sample draws G*P0 exactly, a
 * loaded one its own decode mixed with rho taken at the series' mean.
 * Mixing the mean decode power charged rho*A over the idle time too: an
 * all-idle A100 series drew 85.50 W for its 72.9 W idle, [0, 16] 254.04 W
 * for 214.95 W. */
static void
series_idle_draws_idle(const wc_params *paper, const wc_params *prefill)
{
	wc_config c = test_catalog_config("A100", 1, "Qwen3-8B", 0.0);
	c.input_tokens = 335;
	c.output_tokens = 213;
	const wc_level *lv = wc_params_level(prefill, "A100");
	const double p0 = lv->p0.value, a = prefill->phi.value * wc_law_prefill_headroom(prefill, lv);
	const double idle[2] = { 0, 0 }, half[2] = { 0, 16 }, w[2] = { 1, 1 };
	wc_power pw;
	/* all idle, the law bound at the mean (0) and at a loaded count alike */
	for (int k = 0; k < 2; k++) {
		c.running = k ? 8.0 : 0.0;
		CHECK(wc_law_prefill_share(prefill, &c) > 0.0);
		CHECK_INT(wc_law_power_series(prefill, &c, idle, w, 2, &pw, NULL), WC_OK);
		CHECK(pw.node_power_w == p0 && pw.dynamic_w == 0.0);
	}
	/* half idle, half at 16, rho at the mean 8 */
	c.running = 8.0;
	const double rho = wc_law_prefill_share(prefill, &c);
	c.running = 16.0;
	const double d16 = node_power(paper, &c) - p0;
	const double expect = 0.5 * (p0 + (p0 + d16 + rho * fmax(0.0, a - d16)));
	c.running = 8.0;
	CHECK_INT(wc_law_power_series(prefill, &c, half, w, 2, &pw, NULL), WC_OK);
	CHECK_NEAR(pw.node_power_w, expect, 1e-9 * expect);
	CHECK_NEAR(pw.node_power_w, 214.96, 0.01);
	/* the prediction's path (a bound point over a histogram) agrees */
	wc_law_binding b;
	wc_law_point lp;
	wc_load_histogram h;
	CHECK_INT(wc_law_bind(prefill, &c, &b, NULL), WC_OK);
	wc_law_bound_point(&b, NULL, &lp);
	CHECK_INT(wc_load_histogram_build(half, NULL, 1.0, 2, &h, NULL), WC_OK);
	CHECK_INT(wc_law_point_power(&lp, 1, &h, &pw, NULL), WC_OK);
	CHECK_NEAR(pw.node_power_w, expect, 1e-9 * expect);
	wc_load_histogram_free(&h);
	CHECK_INT(wc_load_histogram_build(idle, NULL, 1.0, 2, &h, NULL), WC_OK);
	CHECK_INT(wc_law_point_power(&lp, 1, &h, &pw, NULL), WC_OK);
	CHECK(pw.node_power_w == p0);
	wc_load_histogram_free(&h);
}

/* Non-decreasing in n with the prefill share on (it grows with n). */
static void
monotone_with_tokens(const wc_params *prefill)
{
	static const char *const models[] = { "Qwen3-8B", "Qwen3-32B", "Llama-3.1-70B" };
	static const double inputs[] = { 100, 4600 };
	for (int m = 0; m < 3; m++)
		for (int i = 0; i < 2; i++) {
			wc_config c = WC_CONFIG_INIT;
			c.platform = "H100";
			c.tp = m == 2 ? 4 : 1;
			c.model = models[m];
			c.arch = wc_model_lookup(models[m]);
			c.active_params_b = c.arch->active_params_b;
			c.input_tokens = inputs[i];
			c.output_tokens = 200;
			double prev = -INFINITY, prev_rho = 0.0;
			for (double n = 0.05; n <= 256; n *= 1.1) {
				c.running = n;
				double v = node_power(prefill, &c), rho = wc_law_prefill_share(prefill, &c);
				CHECK(v >= prev - 1e-9 * fabs(prev));
				CHECK(rho >= prev_rho - 1e-12);
				prev = v;
				prev_rho = rho;
			}
		}
}

int
main(void)
{
	wc_params paper = WC_PARAMS_INIT, prefill = WC_PARAMS_INIT;
	wc_error err;
	wc_params_default(&paper);
	CHECK_INT(wc_params_profile("paper-prefill", &prefill, &err), WC_OK);
	CHECK(prefill.form == WC_FORM_PREFILL && strcmp(prefill.name, "paper-prefill") == 0);
	CHECK(prefill.phi.value == 1.0 && prefill.phi.source == WC_SRC_ASSUMED);
	CHECK_INT(wc_params_validate(&prefill, &err), WC_OK);
	terms_off_is_published(&paper, &prefill);
	mix_by_hand(&paper, &prefill);
	monotone_with_tokens(&prefill);
	series_idle_draws_idle(&paper, &prefill);
	/* An unknown profile names the known ones. */
	CHECK(wc_params_profile("paper-prefil", &prefill, &err) != WC_OK);
	CHECK_CONTAINS(err.msg, "paper-prefill");
	wc_params_clear(&paper);
	wc_params_clear(&prefill);
	return check_report("test_law_prefill");
}
