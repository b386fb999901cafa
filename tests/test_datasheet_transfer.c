/*
 * The datasheet transfer rule (docs/fitting.md, "Platforms without a
 * fitted level"), left one platform out on the published levels: each of
 * A100, H100 and H200 is rebuilt from its datasheet and the other two, and
 * its predictions over the published design (0.6-32.8 B, 1-256 running,
 * TP 1) are compared with the published level's. Carrying each level's
 * theta by delta x log(BF16 throughput ratio) is what keeps every median
 * under 10 % (without it: 10.5 / 15.6 / 3.0 %, worst 24.1 %). Also: a catalog platform
 * without a level is answered with level_source "datasheet" and a warning;
 * nvidia-smi's product name of a fitted board finds the fitted level; an
 * unknown platform is refused; the copy of a set that answers from a
 * transfer (wc_params_datasheet_copy) replaces or adds the level, without
 * draws or the level's model terms, and leaves its source untouched.
 * The measured levels' medians and worsts the docs quote are the ones
 * computed here (measured_on_pages).
 */
#include "models/catalog.h"
#include "models/profile_measured.h"
#include "predict/flexibility.h"
#include "predict/predict.h"
#include "tests/support/support.h"

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <stdlib.h>
#include <string.h>

/* The "  warning: " line of `out` beginning `start`, its length into
 * *len (the warning's own, without the prefix); NULL when none. */
static const char *
warning_line(const char *out, const char *start, size_t *len)
{
	static const char prefix[] = "  warning: ";
	char key[160];
	snprintf(key, sizeof key, "%s%s", prefix, start);
	const char *at = out ? strstr(out, key) : NULL;
	*len = at ? strcspn(at, "\n") - (sizeof prefix - 1) : 0;
	return at;
}

/* An AMD board outside the fitted boards' BF16 throughputs (MI300X and
 * MI325X under `paper`, fitted on A100, H100, H200: 312-989 TFLOPS) gets
 * both caveats in its power note: it kept the throughput's and lost "an
 * AMD board (CDNA 3) can miss by more". The capacity transfer's note of an
 * AMD board carries the vendor caveat too (it never did); an NVIDIA
 * board's neither. Each whole in 255 bytes. */
static void
amd_caveats(void)
{
	const char *boards[] = { "MI300X", "MI325X", "H100-NVL" };
	const char *profiles[] = { "paper", "measured" };
	for (size_t b = 0; b < 3; b++)
		for (size_t k = 0; k < 2; k++) {
			const char *argv[] = { "wattcast", "predict", "inference", "--profile", profiles[k], "--platform",
				               boards[b], "--model", "Qwen3-8B", "--concurrency", "32", "--input-tokens", "512",
				               "--output-tokens", "256", NULL };
			run_result r;
			CHECK(run_wattcast(argv, NULL, &r) == 0);
			CHECK_INT(r.status, 0);
			char power[64], capacity[64];
			snprintf(power, sizeof power, "platform: no fitted level for %s;", boards[b]);
			snprintf(capacity, sizeof capacity, "platform: no fitted capacity level for %s:", boards[b]);
			size_t np = 0, nc = 0;
			const char *p = warning_line(r.out, power, &np), *c = warning_line(r.out, capacity, &nc);
			CHECK(p && c && np <= 255 && nc <= 255);
			const int amd = b < 2;
			if (p && c) {
				const char *caveat = "an AMD board (CDNA 3) can miss by more";
				const char *in_p = strstr(p, caveat), *in_c = strstr(c, caveat);
				CHECK(amd ? in_p && in_p < p + np + 11 : in_p == NULL || in_p > p + np + 11);
				CHECK(amd ? in_c && in_c < c + nc + 11 : in_c == NULL || in_c > c + nc + 11);
				if (amd && k == 0) { /* and the throughput's, whole */
					const char *range = strstr(p, "on NVIDIA boards of 312-989 TFLOPS (not 1307)");
					CHECK(range && range < p + np);
				}
				if (amd && k == 0 && !(in_p && in_p < p + np + 11))
					fprintf(stderr, "  %s %s: %.*s\n", profiles[k], boards[b], (int)np + 11, p);
			}
			run_result_free(&r);
		}
}

/* Whether docs page `rel` says `phrase` (white space read as one space). */
static void
doc_says(const char *rel, const char *phrase)
{
	CHECK(test_doc_says(rel, phrase));
}

/* The measured levels' medians and worsts as the docs quote them (README
 * "Measured accuracy", docs/results.md "Datasheet transfer",
 * docs/fitting.md's table, docs/validation.md's candidates): A100's idle
 * becoming the real runs' 84.21 W moved them from 12.5 / 2.8 / 11.5 /
 * 6.9 % (worst 25.5 %) to 8.0 / 3.7 / 10.7 / 6.3 % (17.3 %), and four
 * pages kept the old ones with no test to see it. */
static void
measured_on_pages(const double med[4], const double worst[4])
{
	static const char *const names[4] = { "A100", "H100", "H200", "B200" };
	char s[512];
	double lo = med[0], hi = med[0], top = worst[0];
	for (int i = 1; i < 4; i++) {
		lo = fmin(lo, med[i]);
		hi = fmax(hi, med[i]);
		top = fmax(top, worst[i]);
	}
	snprintf(s, sizeof s, "/ %.1f\xe2\x80\x93%.1f %% (%.1f %%)", lo, hi, top);
	doc_says("README.md", s);
	snprintf(s, sizeof s,
	         "A100 %.1f %% (worst %.1f %%), H100 %.1f %% (%.1f %%), H200 %.1f %% (%.1f %%), B200 %.1f %% (%.1f %%)",
	         med[0], worst[0], med[1], worst[1], med[2], worst[2], med[3], worst[3]);
	doc_says("docs/results.md", s);
	snprintf(s, sizeof s, "| **%.1f / %.1f / %.1f / %.1f %%** (", med[0], med[1], med[2], med[3]);
	doc_says("docs/validation.md", s);
	snprintf(s, sizeof s, "| **%.1f %%** (", top);
	doc_says("docs/validation.md", s);
	/* fitting.md's table: the `measured` cell is the row's third */
	char *page = test_doc_text("docs/fitting.md");
	for (int i = 0; i < 4; i++) {
		char row[32], cell[64];
		snprintf(row, sizeof row, "| %s | ", names[i]);
		snprintf(cell, sizeof cell, " | %.1f / %.1f %% | ", med[i], worst[i]);
		const char *at = strstr(page, "| left out | `paper` |");
		at = at ? strstr(at, row) : NULL;
		const char *c = at ? strchr(at + strlen(row), '|') : NULL; /* after `paper` */
		c = c ? strchr(c + 1, '|') : NULL;                          /* after `paper`, before */
		CHECK(c && strncmp(c - 1, cell, strlen(cell)) == 0);
		if (!(c && strncmp(c - 1, cell, strlen(cell)) == 0))
			fprintf(stderr, "docs/fitting.md: the %s row's `measured` cell is not%s\n", names[i], cell);
	}
	free(page);
}

static double
lopo(const wc_params *paper, const char *name, double *worst)
{
	wc_params p = WC_PARAMS_INIT;
	wc_error err;
	double e[64];
	int n = 0;
	const double sizes[6] = { 0.6, 1.7, 4, 8.19, 14.8, 32.8 }, loads[6] = { 1, 4, 16, 32, 128, 256 };
	CHECK_INT(wc_params_copy(&p, paper, &err), WC_OK);
	wc_level *lv = (wc_level *)wc_params_level(&p, name), truth = *lv;
	CHECK_INT(wc_params_datasheet_level(paper, name, name, lv), WC_OK);
	CHECK_INT(lv->s.source, WC_SRC_DATASHEET);
	*worst = 0;
	for (int i = 0; i < 6; i++)
		for (int j = 0; j < 6; j++) {
			wc_config c = WC_CONFIG_INIT;
			wc_power a, b;
			c.platform = name;
			c.active_params_b = sizes[i];
			c.running = loads[j];
			CHECK_INT(wc_law_power(&p, &c, &a, &err), WC_OK);
			*lv = truth;
			CHECK_INT(wc_law_power(&p, &c, &b, &err), WC_OK);
			CHECK_INT(wc_params_datasheet_level(paper, name, name, lv), WC_OK);
			e[n] = fabs(a.node_power_w / b.node_power_w - 1) * 100;
			*worst = fmax(*worst, e[n]);
			n++;
		}
	gsl_sort(e, 1, (size_t)n);
	wc_params_clear(&p);
	return gsl_stats_median_from_sorted_data(e, 1, (size_t)n);
}

int
main(void)
{
	wc_params paper = WC_PARAMS_INIT;
	wc_error err;
	wc_params_default(&paper);
	const char *names[3] = { "A100", "H100", "H200" };
	for (int i = 0; i < 3; i++) {
		double worst, med = lopo(&paper, names[i], &worst);
		printf("  leave %s out: median |error| %.1f %%, worst %.1f %% (36 configurations)\n", names[i], med,
		       worst);
		CHECK(med < 10.0);
		CHECK(worst < 12.0);
	}
	/* The same on the measured profile's four levels (docs/results.md):
	 * every miss within the bound the answers' warning states, 30 %. */
	wc_params measured = WC_PARAMS_INIT;
	wc_params_measured(&measured);
	const char *mnames[4] = { "A100", "H100", "H200", "B200" };
	double mmed[4], mworst[4];
	for (int i = 0; i < 4; i++) {
		double worst, med = lopo(&measured, mnames[i], &worst);
		printf("  measured, leave %s out: median |error| %.1f %%, worst %.1f %% (36 configurations)\n",
		       mnames[i], med, worst);
		CHECK(med < 20.0);
		CHECK(worst < 30.0);
		mmed[i] = med;
		mworst[i] = worst;
	}
	measured_on_pages(mmed, mworst);
	/* The copy a board without a level is answered from: the measured set
	 * (which has draws) copied without them, B200 replaced in place by
	 * its transfer from the other levels, H100 NVL added, a model term of
	 * the replaced level dropped and the source's left as it was. */
	static const char draw_names[1][WC_LABEL_MAX] = { "delta" };
	const double draw_values[2] = { 0.9, 1.0 };
	CHECK_INT(wc_params_set_draws(&measured, 2, 1, draw_names, draw_values, &err), WC_OK);
	CHECK(measured.n_draws == 2 && measured.n_model_terms < WC_MAX_MODEL_TERMS);
	wc_model_term *mt = &measured.model_terms[measured.n_model_terms++];
	memset(mt, 0, sizeof *mt);
	snprintf(mt->model, sizeof mt->model, "Qwen3-8B");
	snprintf(mt->level, sizeof mt->level, "B200");
	wc_params *copy = NULL;
	CHECK_INT(wc_params_datasheet_copy(&measured, "B200", &copy, &err), WC_OK);
	if (copy) {
		wc_level expect;
		CHECK_INT(wc_params_datasheet_level(&measured, "B200", "B200", &expect), WC_OK);
		CHECK_INT(copy->n_levels, measured.n_levels);
		CHECK(copy->n_draws == 0 && copy->draws == NULL && copy->draw_names == NULL);
		CHECK_INT(copy->n_model_terms, measured.n_model_terms - 1);
		CHECK(wc_params_find_model_term(&measured, "Qwen3-8B", "B200") != NULL);
		const wc_level *b = wc_params_level(copy, "B200");
		CHECK(b && b->s.source == WC_SRC_DATASHEET && b->theta.value == expect.theta.value);
		CHECK(wc_params_level(&measured, "B200")->s.source != WC_SRC_DATASHEET);
		free(copy);
	}
	CHECK_INT(wc_params_datasheet_copy(&measured, "H100-NVL", &copy, &err), WC_OK);
	if (copy) {
		CHECK_INT(copy->n_levels, measured.n_levels + 1);
		CHECK(wc_params_level(copy, "H100-NVL") && !wc_params_level(&measured, "H100-NVL"));
		free(copy);
	}
	CHECK_INT(wc_params_datasheet_copy(&measured, "TPUv9", &copy, &err), WC_ENOTFOUND);
	CHECK(copy == NULL);
	wc_params_clear(&measured);

	wc_predictor *pr = NULL;
	CHECK_INT(wc_predictor_new(&paper, &pr, &err), WC_OK);
	wc_inference_query q;
	wc_inference_prediction o;
	memset(&q, 0, sizeof q);
	q.config = (wc_config)WC_CONFIG_INIT;
	q.config.platform = "h100 nvl";
	q.config.active_params_b = 8.19;
	q.config.running = 32;
	CHECK_INT(wc_predict_inference(pr, &q, &o, &err), WC_OK);
	CHECK(o.level_source && strcmp(o.level_source, "datasheet") == 0);
	CHECK(strcmp(o.profile, "paper") == 0);
	CHECK(o.n_warnings >= 1 && strstr(o.warnings[0], "level_source datasheet") != NULL);
	/* A 400 W board: far below the 700 W SXM part's 551 W. */
	CHECK(o.power.node_power_w > 250 && o.power.node_power_w < 400);
	q.config.platform = "NVIDIA H100 80GB HBM3";
	CHECK_INT(wc_predict_inference(pr, &q, &o, &err), WC_OK);
	CHECK(o.level_source && strcmp(o.level_source, "published") == 0);
	CHECK_NEAR(o.power.idle_power_w, 126.3, 1e-9);
	q.config.platform = "TPUv9";
	CHECK(wc_predict_inference(pr, &q, &o, &err) != WC_OK);
	wc_predictor_free(pr);

	/* On a board from its datasheet the answer says so once (it also said
	 * "level had no runs in the calibration"); the flexibility sweep says
	 * the power side's caveats too -- the datasheet note, and kappa
	 * assumed at the lowest clock it locks (it gave the capacity note
	 * alone). */
	pr = test_measured_predictor(&measured);
	q.config = test_catalog_config("MI300X", 1, "Qwen3-14B", 32);
	q.want_interval = 1;
	q.config.input_tokens = 512;
	q.config.output_tokens = 256;
	CHECK_INT(wc_predict_inference(pr, &q, &o, &err), WC_OK);
	int notes = 0;
	for (int i = 0; i < o.n_warnings; i++) {
		notes += strstr(o.warnings[i], "platform:") && strstr(o.warnings[i], "MI300X") != NULL;
		/* another vendor's board than every fitted level: said whole */
		if (strstr(o.warnings[i], "platform: no fitted level for MI300X"))
			CHECK_CONTAINS(o.warnings[i], "missed by up to 30 % between NVIDIA boards; an AMD board (CDNA 3) can "
			                              "miss by more");
		CHECK(strstr(o.warnings[i], "had no runs in the calibration") == NULL);
	}
	CHECK_INT(notes, 1);
	/* its interval says it is the datasheet stratum's (it said "held-out
	 * error", as a fitted level's) */
	CHECK_CONTAINS(wc_predict_power_covers(&o), "of mean power of datasheet transfers");
	q.config.platform = "H100";
	CHECK_INT(wc_predict_inference(pr, &q, &o, &err), WC_OK);
	CHECK(strstr(wc_predict_power_covers(&o), "datasheet") == NULL);
	/* an NVIDIA board without a level is what the held-out miss measured */
	q.config.platform = "L40S";
	CHECK_INT(wc_predict_inference(pr, &q, &o, &err), WC_OK);
	for (int i = 0; i < o.n_warnings; i++)
		if (strstr(o.warnings[i], "platform: no fitted level for L40S"))
			CHECK(strstr(o.warnings[i], "AMD") == NULL && strstr(o.warnings[i], "missed by up to 30 %"));
	q.config.platform = "MI300X";
	wc_flexibility *f = malloc(sizeof *f);
	CHECK(f != NULL);
	if (f) {
		CHECK_INT(wc_predict_flexibility(pr, &q, 0, 4, f, &err), WC_OK);
		int datasheet = 0, kappa = 0;
		for (int i = 0; i < f->n_warnings; i++) {
			datasheet += strstr(f->warnings[i], "platform: no fitted level for MI300X") != NULL;
			kappa += strncmp(f->warnings[i], "at ", 3) == 0 && strstr(f->warnings[i], "kappa = 1 is assumed");
		}
		CHECK_INT(datasheet, 1);
		CHECK_INT(kappa, 1);
		free(f);
	}
	wc_predictor_free(pr);
	wc_params_clear(&measured);

	/* The CLI refuses an unknown platform naming both lists. */
	run_result r;
	const char *argv[] = { "wattcast", "predict", "inference", "--platform", "TPUv9", "--model", "Qwen3-8B",
	                       "--concurrency", "4", NULL };
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK(r.status != 0);
	CHECK_CONTAINS(r.err, "--platform: unknown platform 'TPUv9'");
	CHECK_CONTAINS(r.err, "from datasheets: A10G, L4");
	run_result_free(&r);
	/* The clock the board's limit settles at is the answer's clock: the
	 * limit's warning says it, and the clock term's caveat once, naming
	 * the platform, as for the same clock under a cap (it was said three
	 * ways of a 401 W answer on a 400 W board, then not at all). */
	const char *limited[] = { "wattcast", "predict", "inference", "--platform", "A100", "--model", "Llama-3.1-70B",
	                          "--tp", "4", "--concurrency", "64", "--input-tokens", "512", "--output-tokens", "256",
	                          NULL };
	CHECK(run_wattcast(limited, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	CHECK(strstr(r.out ? r.out : "", "above the board's power limit") || strstr(r.err ? r.err : "", "above the board's power limit"));
	const char *kappa = r.out ? strstr(r.out, "warning: platform: no runs at a known locked clock were calibrated") : NULL;
	CHECK(kappa && strstr(kappa, "kappa = 1 is assumed") && !strstr(strstr(kappa, "assumed"), "kappa"));
	CHECK(!strstr(r.err ? r.err : "", "kappa"));
	run_result_free(&r);
	amd_caveats();
	wc_params_clear(&paper);
	return check_report("test_datasheet_transfer");
}
