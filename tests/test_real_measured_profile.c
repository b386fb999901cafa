/*
 * The built-in "measured" profile equals a refit: validation/refit-measured.sh
 * (the built wattcast on ../shared's real runs, seed 42, 200 draws) is run
 * and every embedded constant of models/profile_measured.c -- each level's
 * P0, S and theta, the shared slopes and structure terms, the capacity
 * section and the held-out
 * error -- is compared with the file it writes: point values within 1e-4,
 * interval ends within 3 % of the interval's scale (the tolerance
 * test_capacity_paper states for the published periods), sources equal;
 * where the script pins the profile's own OpenBLAS kernels (AVX2), every
 * value and interval end equal.
 * Also: the default of `predict` names the profile and its level source,
 * and the profile's choice of terms (every run in, no precision term, no
 * structure term: docs/validation.md "Candidate terms") scores as
 * documented leaving each ML.ENERGY model out: median |error| H100 7.55 %
 * (goal 9 %), B200 12.91 %.
 */
#include "data/data.h"
#include "models/profile_measured.h"
#include "tests/support/support.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 1 when the script pinned the built-in profile's own BLAS kernels: the
 * refit is then the embedded profile to the last bit, bounds included. */
static int exact;

static void
same_param(const char *name, const wc_param *got, const wc_param *want)
{
	double scale = fmax(fabs(want->value), 1e-3);
	CHECK_NEAR(got->value, want->value, 1e-4 * scale);
	if (exact) {
		CHECK_NEAR(got->value, want->value, 1e-12 * scale);
		if (isfinite(want->lo) || isfinite(got->lo)) {
			CHECK_NEAR(got->lo, want->lo, 1e-12 * fmax(fabs(want->lo), 1e-300));
			CHECK_NEAR(got->hi, want->hi, 1e-12 * fmax(fabs(want->hi), 1e-300));
		}
	}
	CHECK_INT((int)got->source, (int)want->source);
	CHECK_INT(isfinite(got->lo), isfinite(want->lo));
	/* Interval ends are percentiles of 200 bootstrap draws, and a machine
	 * whose BLAS rounds differently sends a few replicates elsewhere: the
	 * 97.5th percentile is the 5th-6th largest draw, so one draw moves it
	 * by several per cent of the width (da8a0b0's own profile refitted on
	 * another CPU: t1's end 4 % off). 10 % of the width still catches a
	 * changed fit. A parameter at a bound of its domain (source "bound")
	 * was not identified by the rows: its resamples wander along that
	 * direction (the powertrace-paper input length's end 60 vs 66 tokens
	 * across two machines), so only its ordering is checked. */
	if (isfinite(want->lo) && isfinite(got->lo)) {
		double width = fmax(want->hi - want->lo, 1e-3 * scale);
		if (want->source == WC_SRC_BOUND) {
			CHECK(got->lo <= got->value && got->value <= got->hi);
		} else {
			CHECK_NEAR(got->lo, want->lo, 0.10 * width);
			CHECK_NEAR(got->hi, want->hi, 0.10 * width);
		}
	}
	const int ends_moved = fabs(got->lo - want->lo) > 0 || fabs(got->hi - want->hi) > 0; /* NaN ends: not moved */
	if (fabs(got->value - want->value) > 1e-4 * scale || (exact && ends_moved))
		fprintf(stderr, "  %s: refit %.17g [%.17g, %.17g], embedded %.17g [%.17g, %.17g]\n", name, got->value,
		        got->lo, got->hi, want->value, want->lo, want->hi);
}

static void
same_law(const wc_params *got, const wc_params *want)
{
	CHECK_INT(got->n_levels, want->n_levels);
	CHECK_INT((int)got->form, (int)want->form);
	for (int i = 0; i < want->n_levels; i++) {
		const wc_level *w = &want->levels[i], *g = wc_params_level(got, w->name);
		CHECK(g != NULL);
		if (!g)
			continue;
		same_param("P0", &g->p0, &w->p0);
		same_param("S", &g->s, &w->s);
		same_param("theta", &g->theta, &w->theta);
		CHECK_INT(g->range.runs, w->range.runs);
	}
	same_param("delta", &got->delta, &want->delta);
	same_param("gamma1", &got->gamma1, &want->gamma1);
	same_param("gamma2", &got->gamma2, &want->gamma2);
	CHECK_INT(got->n_terms, want->n_terms);
	CHECK_INT((int)got->law_terms, (int)want->law_terms);
	/* the refit records how it took quantized runs; the embedded set must say the same */
	CHECK_INT((int)got->precision_mode, (int)want->precision_mode);
	for (int k = 0; k < WC_LT_COUNT; k++)
		if (want->law_terms & WC_LT_BIT(k))
			same_param(wc_law_term_name((wc_law_term)k), &got->law_term[k], &want->law_term[k]);
	CHECK_INT(got->runs, want->runs);
}

static void
same_capacity(const wc_capacity_params *got, const wc_capacity_params *want)
{
	CHECK_INT(got->n_levels, want->n_levels);
	for (int i = 0; i < want->n_levels && i < got->n_levels; i++) {
		CHECK(strcmp(got->levels[i].name, want->levels[i].name) == 0);
		same_param("eta", &got->levels[i].p[WC_CAP_ETA], &want->levels[i].p[WC_CAP_ETA]);
		same_param("t0", &got->levels[i].p[WC_CAP_T0], &want->levels[i].p[WC_CAP_T0]);
	}
	for (int k = WC_CAP_T1; k < WC_CAP_KINDS; k++)
		same_param("capacity shared", &got->shared_p[k], &want->shared_p[k]);
	CHECK_INT(got->n_workloads, want->n_workloads);
	for (int i = 0; i < want->n_workloads && i < got->n_workloads; i++)
		same_param(want->workloads[i].set, &got->workloads[i].input_tokens, &want->workloads[i].input_tokens);
	CHECK_INT(got->rows, want->rows);
}

/* Can this machine run the built-in profile's OpenBLAS kernels (AVX2, an
 * OpenBLAS that takes OPENBLAS_CORETYPE)? Asked of the binary in `bin_dir`
 * as the script asks it. */
static int
haswell_kernels(const char *bin_dir)
{
	char cmd[4200], line[256];
	int found = 0;
	snprintf(cmd, sizeof cmd, "grep -qw avx2 /proc/cpuinfo 2>/dev/null && OPENBLAS_VERBOSE=2 "
	         "OPENBLAS_CORETYPE=Haswell '%s/wattcast' --version 2>&1", bin_dir);
	FILE *f = popen(cmd, "r");
	while (f && fgets(line, sizeof line, f))
		found |= strcmp(line, "Core: Haswell\n") == 0;
	if (f)
		pclose(f);
	return found;
}

/* The default answer names the profile and the level's source. */
static void
default_answer(void)
{
	const char *argv[] = { "wattcast", "predict", "inference", "--platform", "H100", "--model", "Qwen3-8B",
	                       "--tp", "1", "--concurrency", "32", "--json", NULL };
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, "\"profile\": \"measured\"");
	CHECK_CONTAINS(r.out, "\"level_source\": \"bound\"");
	run_result_free(&r);
}

static double
lomo_median(const json_t *o, const char *platform)
{
	return json_number_value(json_object_get(json_object_get(json_object_get(o, "sets"), platform),
	                                         "median_abs_err_pct"));
}

static void
heldout_choice(const char *dir, const char *shared)
{
	char *src = path_join(shared, "data/real/mlenergy/configurations_text.csv"), *ml = path_join(dir, "ml.csv");
	const char *imp[] = { "wattcast", "import", "mlenergy", src, "-o", ml, NULL };
	const char *lomo[] = { "wattcast", "validate", "lomo", ml, "--terms", "as-bf16", "--json", NULL };
	run_result r;
	CHECK(run_wattcast(imp, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	run_result_free(&r);
	CHECK(run_wattcast(lomo, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	json_t *o = json_loads(r.out ? r.out : "", 0, NULL);
	CHECK(o != NULL);
	CHECK_INT((int)json_integer_value(json_object_get(json_object_get(o, "overall"), "n")), 325);
	CHECK_NEAR(lomo_median(o, "H100"), 7.55, 0.01);
	CHECK_NEAR(lomo_median(o, "B200"), 12.91, 0.01);
	CHECK(lomo_median(o, "H100") <= 9.0);
	json_decref(o);
	run_result_free(&r);
	free(src);
	free(ml);
}

int
main(void)
{
	const char *shared = test_shared_dir();
	if (!shared)
		return TEST_SKIP;
	/* the script puts A100's measured P0 into its set with jq */
	if (system("command -v jq >/dev/null 2>&1") != 0) {
		printf("SKIP: jq not found; validation/refit-measured.sh needs it\n");
		return TEST_SKIP;
	}
	char *dir = test_tmpdir("real_measured_profile"), *out = path_join(dir, "measured.json");
	char *bin = strdup(test_env("WATTCAST_BIN", "build/wattcast"));
	char *slash = strrchr(bin, '/'), cmd[4096];
	if (slash)
		*slash = '\0';
	char *log = path_join(dir, "refit.err");
	snprintf(cmd, sizeof cmd, "sh '%s/validation/refit-measured.sh' '%s' '%s' '%s' >/dev/null 2>'%s'",
	         test_env("WC_SOURCE_DIR", "."), slash ? bin : ".", shared, out, log);
	CHECK_INT(system(cmd), 0);
	/* With the profile's own kernels the refit is the profile exactly;
	 * until 2026-12-07 the script let OpenBLAS pick this CPU's, and the
	 * gpqa input's upper end read 620.01 for the embedded 545.84 */
	char *said = test_slurp(log);
	exact = haswell_kernels(slash ? bin : ".");
	if (exact)
		CHECK_CONTAINS(said, "refit-measured.sh: OpenBLAS kernels pinned to Haswell");
	printf("  refit %s\n", exact ? "with the profile's BLAS kernels: checked to the last bit" :
	                                 "with other BLAS kernels: checked within the tolerances");
	free(said);
	free(log);
	wc_params got = WC_PARAMS_INIT, want = WC_PARAMS_INIT;
	wc_error err;
	wc_params_measured(&want);
	CHECK(strcmp(want.name, "measured") == 0);
	if (wc_params_load_file(out, &got, &err) == WC_OK) {
		same_law(&got, &want);
		same_capacity(&got.capacity, &want.capacity);
		/* The held-out errors: mean power pooled and its datasheet stratum,
		 * and the capacity section's latency and energy per output token. */
		CHECK_INT(got.pred_error.n_strata, 2);
		CHECK_INT(want.pred_error.n_strata, 2);
		for (int k = 0; k < 2 && k < got.pred_error.n_strata; k++) {
			CHECK(strcmp(got.pred_error.strata[k].source, want.pred_error.strata[k].source) == 0);
			CHECK_INT(got.pred_error.strata[k].n, want.pred_error.strata[k].n);
			CHECK_NEAR(got.pred_error.strata[k].q_hi, want.pred_error.strata[k].q_hi, 1e-4);
		}
		const int which[2] = { WC_PEQ_LATENCY, WC_PEQ_ENERGY_TOKEN };
		for (int i = 0; i < 2; i++) {
			const wc_pred_error *g = &got.quantity_error[which[i]], *w = &want.quantity_error[which[i]];
			CHECK_INT(g->present, 1);
			CHECK_INT(w->present, 1);
			CHECK_INT(g->n_strata, w->n_strata);
			for (int k = 0; k < g->n_strata && k < w->n_strata; k++) {
				CHECK(strcmp(g->strata[k].source, w->strata[k].source) == 0);
				CHECK_INT(g->strata[k].n, w->strata[k].n);
				CHECK_NEAR(g->strata[k].q_hi, w->strata[k].q_hi, 1e-4);
			}
		}
		/* The calibration's record and every row it used, each once:
		 * the design rows of A100, H200 and their H100 reference
		 * (docs/formats/params-file.md, "Provenance"). */
		CHECK(strcmp(got.calibration.input_sha256, want.calibration.input_sha256) == 0);
		CHECK_INT(got.calibration.runs, want.calibration.runs);
		CHECK_INT(want.n_calibration_rows, 230);
		CHECK_INT(got.n_calibration_rows, want.n_calibration_rows);
		for (int i = 0; i < got.n_calibration_rows && i < want.n_calibration_rows; i++)
			CHECK(got.calibration_rows[i] == want.calibration_rows[i]);
		/* The capacity fit's runs, each once, by platform and run id:
		 * PowerTrace-Sim's and ML.ENERGY's (docs/validation.md, "Envelopes"). */
		CHECK_INT(got.capacity.n_run_hashes, want.capacity.n_run_hashes);
		CHECK(want.capacity.n_run_hashes > 300);
		for (int i = 0; i < got.capacity.n_run_hashes && i < want.capacity.n_run_hashes; i++)
			CHECK(got.capacity.run_hashes[i] == want.capacity.run_hashes[i]);
		/* Latency's datasheet stratum: each platform left out. */
		for (int i = 0; i < 2; i++) {
			CHECK_INT(want.quantity_error[which[i]].n_strata, 2);
			CHECK(strcmp(want.quantity_error[which[i]].strata[1].source, "datasheet") == 0);
		}
	} else {
		fprintf(stderr, "%s\n", err.msg);
		CHECK(0);
	}
	default_answer();
	heldout_choice(dir, shared);
	wc_params_clear(&got);
	wc_params_clear(&want);
	free(bin);
	free(out);
	free(dir);
	return check_report("test_real_measured_profile");
}
