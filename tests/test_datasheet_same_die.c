/*
 * A board whose die has a fitted level (A100-40GB and the A100, H200 NVL
 * and H200) is transferred from every fitted level's mean, not from that
 * level alone (docs/fitting.md, "Platforms without a fitted level"), and
 * its answer says so, naming the level: an A100-40GB answer of the
 * `measured` profile drew 17 % above the A100's at one running request
 * with no word why. The choice is the held-out one this test measures:
 * H100 and H200 (one GH100 die) each rebuilt from the other alone missed
 * more than from the mean over every other level (the rule), on both
 * built-in profiles.
 */
#include "models/catalog.h"
#include "models/profile_measured.h"
#include "predict/predict.h"
#include "tests/support/support.h"

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <string.h>

/* `set` with only the levels on the die of board `name` (itself kept:
 * the transfer skips it). */
static void
die_only(const wc_params *set, const char *name, wc_params *out)
{
	wc_error err;
	const wc_platform_info *me = wc_platform_lookup(name);
	CHECK_INT(wc_params_copy(out, set, &err), WC_OK);
	int k = 0;
	for (int i = 0; i < out->n_levels; i++) {
		const wc_platform_info *b = wc_platform_lookup(out->levels[i].name);
		if (b && b->die && me && me->die && strcmp(b->die, me->die) == 0)
			out->levels[k++] = out->levels[i];
	}
	out->n_levels = k;
}

/* Median |error| % (worst into *worst) of level `name` of `set` rebuilt
 * by the datasheet rule from the levels of `from`, over the published
 * design (0.6-32.8 B x 1-256 running, TP 1), against the level itself. */
static double
lopo(const wc_params *set, const wc_params *from, const char *name, double *worst)
{
	wc_params p = WC_PARAMS_INIT;
	wc_error err;
	double e[36];
	int n = 0;
	const double sizes[6] = { 0.6, 1.7, 4, 8.19, 14.8, 32.8 }, loads[6] = { 1, 4, 16, 32, 128, 256 };
	CHECK_INT(wc_params_copy(&p, set, &err), WC_OK);
	wc_level *lv = (wc_level *)wc_params_level(&p, name), truth = *lv, moved;
	CHECK_INT(wc_params_datasheet_level(from, name, name, &moved), WC_OK);
	*worst = 0;
	for (int i = 0; i < 6; i++)
		for (int j = 0; j < 6; j++) {
			wc_config c = WC_CONFIG_INIT;
			wc_power a, b;
			c.platform = name;
			c.active_params_b = sizes[i];
			c.running = loads[j];
			*lv = moved;
			CHECK_INT(wc_law_power(&p, &c, &a, &err), WC_OK);
			*lv = truth;
			CHECK_INT(wc_law_power(&p, &c, &b, &err), WC_OK);
			e[n] = fabs(a.node_power_w / b.node_power_w - 1) * 100;
			*worst = fmax(*worst, e[n]);
			n++;
		}
	gsl_sort(e, 1, (size_t)n);
	wc_params_clear(&p);
	return gsl_stats_median_from_sorted_data(e, 1, (size_t)n);
}

/* The rule against the same-die variant, H100 and H200 left out in turn. */
static void
same_die_held_out(void)
{
	wc_params sets[2] = { WC_PARAMS_INIT, WC_PARAMS_INIT };
	const char *profiles[2] = { "paper", "measured" }, *names[2] = { "H100", "H200" };
	wc_params_default(&sets[0]);
	wc_params_measured(&sets[1]);
	double rule = 0, die = 0;
	for (int s = 0; s < 2; s++)
		for (int k = 0; k < 2; k++) {
			wc_params only = WC_PARAMS_INIT;
			die_only(&sets[s], names[k], &only);
			CHECK_INT(only.n_levels, 2);
			double w_rule, w_die;
			const double m_rule = lopo(&sets[s], &sets[s], names[k], &w_rule);
			const double m_die = lopo(&sets[s], &only, names[k], &w_die);
			printf("  %s, leave %s out: every level %.2f %% (worst %.2f), same die alone %.2f %% (worst %.2f)\n",
			       profiles[s], names[k], m_rule, w_rule, m_die, w_die);
			rule += m_rule;
			die += m_die;
			wc_params_clear(&only);
		}
	/* the mean over the four cells: the rule's below the variant's */
	printf("  mean of the medians: every level %.2f %%, same die alone %.2f %%\n", rule / 4, die / 4);
	CHECK(rule < die);
	wc_params_clear(&sets[0]);
	wc_params_clear(&sets[1]);
}

int
main(void)
{
	same_die_held_out();

	/* Every catalog board on both profiles: a board with a fitted level
	 * on its die names it in its note, whole in 255 bytes; another does
	 * not. */
	for (int s = 0; s < 2; s++) {
		wc_params set = WC_PARAMS_INIT;
		wc_predictor *pr = NULL;
		wc_error err;
		if (s)
			wc_params_measured(&set);
		else
			wc_params_default(&set);
		CHECK_INT(wc_predictor_new(&set, &pr, &err), WC_OK);
		for (size_t i = 0; pr && i < wc_platform_count(); i++) {
			const wc_platform_info *b = wc_platform_at(i);
			if (wc_params_level(&set, b->name))
				continue;
			wc_inference_query q;
			wc_inference_prediction o;
			memset(&q, 0, sizeof q);
			q.config = (wc_config)WC_CONFIG_INIT;
			q.config.platform = b->name;
			q.config.active_params_b = 8.19;
			q.config.running = 1;
			CHECK_INT(wc_predict_inference(pr, &q, &o, &err), WC_OK);
			const char *note = NULL;
			for (int w = 0; w < o.n_warnings; w++)
				if (strncmp(o.warnings[w], "platform: no fitted level for ", 30) == 0)
					note = o.warnings[w];
			CHECK(note != NULL);
			if (!note)
				continue;
			CHECK(strlen(note) <= 255);
			char want[96] = "";
			const int sibling = strcmp(b->die, "GA100") == 0 || strcmp(b->die, "GH100") == 0;
			if (sibling)
				snprintf(want, sizeof want, " alone (same %s die", b->die);
			CHECK(sibling ? strstr(note, want) != NULL : strstr(note, " die") == NULL);
			CHECK(strstr(note, "missed by up to 30 %") != NULL); /* whole */
			if (sibling && !strstr(note, want))
				fprintf(stderr, "  %s: %s\n", b->name, note);
		}
		wc_predictor_free(pr);
		wc_params_clear(&set);
	}

	/* The planner's case, as `predict` prints it. */
	const char *argv[] = { "wattcast", "predict", "inference", "--platform", "A100-40GB", "--model", "Qwen3-8B",
	                       "--concurrency", "1", NULL };
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, "S and theta transferred from all fitted levels, not A100 alone (same GA100 die: held out, "
	                      "that missed more)");
	run_result_free(&r);
	return check_report("test_datasheet_same_die");
}
