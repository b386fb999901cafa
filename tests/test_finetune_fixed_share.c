/*
 * A fine-tuning prediction's e0 warning cites the share of the step the
 * fixed term G e0 took in the runs the law was fitted on
 * (docs/finetune.md, "Predicting"; docs/formats/params-file.md,
 * ranges.fixed_share, schema 11). A law fitted on seven 8 x H100 LoRA
 * runs, at most 62 % fixed (tests/fixtures/finetune/h100-lora-7runs.csv),
 * said nothing of a step 77 % fixed and, of one 96 % fixed, cited "at most
 * 93 % fixed in the synthetic design" -- another table. Files without the
 * span (the published section, /10 and older) keep that wording and its
 * 95 % bound; a /10 file may not carry the span.
 */
#include "data/data.h"
#include "server/server_internal.h"
#include "tests/support/support.h"

#include <math.h>
#include <stdlib.h>

static const char *dir;

static run_result
run(const char *const *argv, int status)
{
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, status);
	if (r.status != status)
		fprintf(stderr, "%s\n%s\n", r.out, r.err);
	return r;
}

/* `predict finetune --params law` of LoRA rank 16 on 8 H100 at
 * (micro_batch, seq_len), grad-accum 4: its stdout (malloc'd). */
static char *
predict(const char *law, const char *micro_batch, const char *seq_len)
{
	const char *argv[] = { "wattcast", "predict", "finetune", "--params", law, "--method", "lora", "--model",
		               "Llama-3.1-8B", "--micro-batch", micro_batch, "--seq-len", seq_len, "--grad-accum", "4",
		               "--gpus", "8", "--lora-rank", "16", "--platform", "H100", NULL };
	run_result r = run(argv, 0);
	char *out = strdup(r.out ? r.out : "");
	run_result_free(&r);
	return out;
}

/* The HTTP answer's warnings, joined, for the same question. */
static char *
http_warnings(const char *law, const char *micro_batch, const char *seq_len)
{
	wc_params p = WC_PARAMS_INIT;
	wc_profiles *pf = NULL;
	wc_error err;
	char body[512], *joined = calloc(1, 4096);
	CHECK_INT(wc_params_load_file(law, &p, &err), WC_OK);
	const wc_params *sets[1] = { &p };
	const char *sources[1] = { law };
	CHECK_INT(wc_profiles_new(1, sets, sources, &pf, &err), WC_OK);
	snprintf(body, sizeof body, "{\"method\":\"lora\",\"model\":\"Llama-3.1-8B\",\"micro_batch\":%s,\"seq_len\":%s,"
	         "\"grad_accum\":4,\"gpus\":8,\"lora_rank\":16,\"platform\":\"H100\"}", micro_batch, seq_len);
	json_t *item = json_loads(body, 0, NULL);
	wc_api_error e;
	memset(&e, 0, sizeof e);
	json_t *answer = pf && item ? wc_finetune_answer(item, pf, &e) : NULL;
	CHECK(answer != NULL);
	size_t i;
	json_t *w;
	json_array_foreach(json_object_get(answer, "warnings"), i, w)
		snprintf(joined + strlen(joined), 4096 - strlen(joined), "%s\n", json_string_value(w));
	json_decref(answer);
	json_decref(item);
	if (pf)
		wc_profiles_release(pf);
	wc_params_clear(&p);
	return joined;
}

/* `law` rewritten as a /10 file, with or without its span. */
static char *
as_v10(const char *law, const char *name, int keep_span)
{
	json_error_t je;
	json_t *root = json_load_file(law, 0, &je);
	CHECK(root != NULL);
	json_object_set_new(root, "schema", json_string("wattcast.params/10"));
	/* Nor the share of a step a relation's runs filled (schema 15). */
	const char *key;
	json_t *rel;
	json_object_foreach(json_object_get(json_object_get(root, "finetune"), "relations"), key, rel)
		json_object_del(json_object_get(rel, "base"), "step_fill");
	if (!keep_span)
		json_object_del(json_object_get(json_object_get(root, "finetune"), "ranges"), "fixed_share");
	char *path = path_join(dir, name);
	CHECK_INT(json_dump_file(root, path, JSON_INDENT(2)), 0);
	json_decref(root);
	return path;
}

int
main(void)
{
	dir = test_tmpdir("finetune_fixed_share");
	char *runs = path_join(test_env("WC_SOURCE_DIR", "."), "tests/fixtures/finetune/h100-lora-7runs.csv");
	char *law = path_join(dir, "fit.json");
	const char *fit[] = { "wattcast", "fit", "finetune", runs, "-o", law, "--bootstrap", "0", NULL };
	run_result r = run(fit, 0);
	CHECK_CONTAINS(r.out, "F 2140.72-18110.9 TFLOP, G e0 16.4-62.5 % of E_step");
	run_result_free(&r);

	/* fit finetune writes the span: 8 x 400.47 J of 5128.1 J at F 2140.7
	 * TFLOP, of 19484.2 J at 18110.9 TFLOP */
	wc_params p = WC_PARAMS_INIT;
	wc_error err;
	CHECK_INT(wc_params_load_file(law, &p, &err), WC_OK);
	const wc_ft_span *fs = &p.finetune.ranges.fixed_share;
	CHECK(fabs(fs->lo - 0.16443) < 1e-4 && fabs(fs->hi - 0.62475) < 1e-4);
	fprintf(stderr, "fitted fixed share %.6f-%.6f\n", fs->lo, fs->hi);
	char *text = test_slurp(law);
	CHECK_CONTAINS(text, "\"schema\": \"wattcast.params/19\"");
	CHECK_CONTAINS(text, "\"fixed_share\": [");
	free(text);
	wc_params_clear(&p);

	/* 77 % fixed, above the runs' 62.5 %: warned, citing the runs */
	char *out = predict(law, "2", "512");
	CHECK_CONTAINS(out, "warning: e0: the fixed per-step energy G e0 (3203.78 J) is 76.9 % of the step's, its "
	                    "compute 962 J: a step this small is outside what the law was fitted on (16.4-62.5 % "
	                    "fixed in its runs), and the answer rests on e0 more than any of them did");
	CHECK(strstr(out, "synthetic design") == NULL);
	free(out);
	char *w = http_warnings(law, "2", "512");
	CHECK_CONTAINS(w, "e0: the fixed per-step energy G e0 (3203.78 J) is 76.9 % of the step's");
	CHECK_CONTAINS(w, "(16.4-62.5 % fixed in its runs)");
	free(w);
	/* the tester's question, 96 % fixed: the runs' span, not the design's */
	out = predict(law, "1", "128");
	CHECK_CONTAINS(out, "is 96.4 % of the step's");
	CHECK_CONTAINS(out, "(16.4-62.5 % fixed in its runs)");
	CHECK(strstr(out, "synthetic design") == NULL);
	free(out);
	/* a fitted run's own configuration (62.5 %) and a larger step: none */
	out = predict(law, "4", "512");
	CHECK(strstr(out, "warning: e0:") == NULL);
	free(out);
	out = predict(law, "8", "4096");
	CHECK(strstr(out, "warning: e0:") == NULL);
	free(out);

	/* A /10 file without the span loads and keeps the published design's
	 * 95 % bound and wording. */
	char *old = as_v10(law, "v10.json", 0);
	out = predict(old, "1", "128");
	CHECK_CONTAINS(out, "is 96.4 % of the step's, its compute 120 J: a step this small is outside what the law "
	                    "was fitted on (at most 93 % fixed in the synthetic design), and the answer is e0 alone");
	free(out);
	out = predict(old, "2", "512");
	CHECK(strstr(out, "warning: e0:") == NULL);
	free(out);
	free(old);
	/* ... and may not carry the span */
	old = as_v10(law, "v10-span.json", 1);
	CHECK(wc_params_load_file(old, &p, &err) != WC_OK);
	CHECK_CONTAINS(err.msg, "/finetune/ranges/fixed_share: needs \"wattcast.params/11\" or later");
	free(old);

	/* The published section has none, and dumps without the key. */
	wc_params_default(&p);
	CHECK(isnan(p.finetune.ranges.fixed_share.lo) && isnan(p.finetune.ranges.fixed_share.hi));
	char *dump = wc_params_dump(&p, 0, &err);
	CHECK(dump && strstr(dump, "fixed_share") == NULL);
	free(dump);
	wc_params_clear(&p);

	/* calibrate finetune records its runs' share under the calibrated law:
	 * one run, one point */
	char *csv = test_slurp(runs), *one = path_join(dir, "one.csv"), *cal = path_join(dir, "cal.json");
	char *row = strstr(csv, "\nb1-s2048,");
	char *next = row ? strchr(row + 1, '\n') : NULL;
	CHECK(next != NULL);
	if (next)
		next[1] = '\0';
	CHECK_INT(write_text(one, csv), 0);
	const char *calibrate[] = { "wattcast", "calibrate", "finetune", one, "-o", cal, "--params", law,
		                    "--bootstrap", "0", NULL };
	r = run(calibrate, 0);
	run_result_free(&r);
	CHECK_INT(wc_params_load_file(cal, &p, &err), WC_OK);
	fs = &p.finetune.ranges.fixed_share;
	double want = wc_ft_fixed_share(p.finetune.e0.value, p.finetune.kappa.value, 8, 2193.49);
	CHECK(isfinite(fs->lo) && fs->lo == fs->hi && fabs(fs->lo - want) < 1e-5);
	wc_params_clear(&p);
	free(csv);
	free(one);
	free(cal);
	free(law);
	free(runs);
	return check_report("test_finetune_fixed_share");
}
