/*
 * A relation fitted on packed runs -- steps holding half the tokens they
 * have room for -- is a check of queries packed alike (docs/finetune.md,
 * "How the compute law and the relations combine"; docs/formats/
 * params-file.md, "relations.*.base.step_fill", schema 15). Its file
 * recorded no share, so its base read as full steps: a full-step query was
 * compared as on the sweep (+29.7 % from the law, warned) and the packed
 * query the runs were like was off it, unchecked. A fit also put packed
 * and unpacked runs in one sweep. Files before 15 still read as full
 * steps; a /14 file may not carry the share.
 */
#include "data/data.h"
#include "fit/fit.h"
#include "fit/finetune_fit.h"
#include "predict/finetune_predict.h"
#include "predict/predict.h"
#include "validation/validation.h"
#include "tests/support/support.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The simulated design with every step packed to half its room: each
 * run's energy is the truth law's at the packed step's FLOPs, its noise
 * kept (the full run's energy over the law's at the full step). */
static wc_ft_table *
packed_of(const wc_ft_table *full, const wc_finetune_params *truth)
{
	wc_ft_table *t = wc_ft_table_new();
	for (size_t i = 0; t && i < full->n_runs; i++) {
		wc_ft_run r = full->runs[i];
		wc_ft_flops ff, fp;
		CHECK_INT(wc_ft_flops_compute(&r.config, &ff, NULL), WC_OK);
		r.config.tokens_per_step = 0.5 * wc_ft_step_tokens(&r.config);
		CHECK_INT(wc_ft_flops_compute(&r.config, &fp, NULL), WC_OK);
		double m = wc_ft_e0_multiplier(truth->e0_scope, r.config.gpus);
		r.energy_per_step_j *= wc_ft_step_energy(truth->e0.value, truth->kappa.value, m, fp.flops_per_step_tflop) /
		                       wc_ft_step_energy(truth->e0.value, truth->kappa.value, m, ff.flops_per_step_tflop);
		snprintf(r.run_id, sizeof r.run_id, "packed-%zu", i);
		CHECK_INT(wc_ft_table_append(t, &r, NULL), WC_OK);
	}
	return t;
}

/* The sequence relation's check of `c` under the set `p`. */
static wc_finetune_relation_check
seq_check(const wc_params *p, const wc_ft_config *c)
{
	wc_predictor *pr = NULL;
	wc_finetune_query q = { .config = *c, .platform = NULL, .steps = NAN, .want_interval = 0 };
	wc_finetune_prediction out;
	wc_error err;
	wc_finetune_relation_check none = { 0 };
	CHECK_INT(wc_predictor_new(p, &pr, &err), WC_OK);
	if (!pr || wc_predict_finetune(pr, &q, &out, &err) != WC_OK) {
		fprintf(stderr, "predict: %s\n", err.msg);
		CHECK(0);
		wc_predictor_free(pr);
		return none;
	}
	wc_predictor_free(pr);
	return out.relations[WC_FT_REL_SEQ];
}

/* The set `p` with its fine-tuning section replaced by `f`, written as a
 * file and loaded back. */
static char *
dumped(wc_params *p, const wc_finetune_params *f)
{
	CHECK_INT(wc_finetune_params_copy(&p->finetune, f, NULL), WC_OK);
	return wc_params_dump(p, 0, NULL);
}

static void
packed_runs_checked_packed(void)
{
	wc_params truth = WC_PARAMS_INIT, p = WC_PARAMS_INIT, q = WC_PARAMS_INIT;
	wc_ft_simulate_options so = WC_FT_SIMULATE_OPTIONS_INIT;
	wc_bootstrap_options bo = { 0, 1, 1 };
	wc_ft_table *full = NULL;
	wc_ft_fit_result fr;
	wc_error err;
	wc_params_default(&truth);
	wc_params_default(&p);
	CHECK_INT(wc_simulate_finetune(&truth, &so, &full, NULL), WC_OK);
	wc_ft_table *packed = packed_of(full, &truth.finetune);
	CHECK_INT(wc_fit_finetune(packed, &bo, &fr, &err), WC_OK);
	const wc_ft_relation *rel = &fr.section.relations[WC_FT_REL_SEQ];
	CHECK(rel->present && rel->has_base);
	CHECK_NEAR(rel->fill, 0.5, 1e-9);

	/* Through the file, as predict and serve read it. */
	char *s = dumped(&p, &fr.section);
	CHECK(s && strstr(s, "\"step_fill\": 0.5") != NULL);
	CHECK_INT(wc_params_load_buffer(s, strlen(s), "packed.json", &q, &err), WC_OK);
	CHECK_NEAR(q.finetune.relations[WC_FT_REL_SEQ].fill, 0.5, 1e-12);
	wc_ft_config c = q.finetune.relations[WC_FT_REL_SEQ].base;
	c.seq_len = 1024;
	/* The full step is not what the runs did: off the sweep. */
	wc_finetune_relation_check k = seq_check(&q, &c);
	CHECK_INT(k.on_sweep, 0);
	CHECK(isnan(k.diff_pct));
	/* Packed like the runs: on it, and the relation agrees with the law. */
	c.tokens_per_step = 0.5 * wc_ft_step_tokens(&c);
	k = seq_check(&q, &c);
	fprintf(stderr, "packed query: relation %.4f J/token, %+.2f %% from the law\n", k.energy_per_token_j,
	        k.diff_pct);
	CHECK_INT(k.on_sweep, 1);
	CHECK(fabs(k.diff_pct) < 2.0);
	/* 1 % apart is another share: off the sweep. */
	c.tokens_per_step = 0.52 * wc_ft_step_tokens(&c);
	CHECK_INT(seq_check(&q, &c).on_sweep, 0);

	/* A /14 file may not carry the share; without it, it reads as full
	 * steps, as such files meant. */
	char *v14 = test_replaced(strdup(s), "\"wattcast.params/19\"", "\"wattcast.params/14\"");
	CHECK(wc_params_load_buffer(v14, strlen(v14), "v14.json", &q, &err) != WC_OK);
	CHECK_CONTAINS(err.msg, "/finetune/relations/batch_size/base/step_fill: needs \"wattcast.params/15\"");
	json_t *js = json_loads(v14, 0, NULL), *rels = json_object_get(json_object_get(js, "finetune"), "relations");
	const char *key;
	json_t *r;
	json_object_foreach(rels, key, r)
		json_object_del(json_object_get(r, "base"), "step_fill");
	char *old = json_dumps(js, 0);
	json_decref(js);
	CHECK(old && !strstr(old, "step_fill"));
	CHECK_INT(wc_params_load_buffer(old, strlen(old), "v14.json", &q, &err), WC_OK);
	free(old);
	CHECK_NEAR(q.finetune.relations[WC_FT_REL_SEQ].fill, 1.0, 0.0);
	c.tokens_per_step = NAN;
	CHECK_INT(seq_check(&q, &c).on_sweep, 1);
	/* A share outside (0, 1] is refused on its path. */
	char *bad = test_replaced(strdup(s), "\"step_fill\": 0.5", "\"step_fill\": 1.5");
	CHECK(wc_params_load_buffer(bad, strlen(bad), "bad.json", &q, &err) != WC_OK);
	CHECK_CONTAINS(err.msg, "base/step_fill: the share of a step its runs filled must be in (0, 1]");
	free(bad);
	free(v14);
	free(s);

	/* Packed and unpacked runs of one table: one sweep takes one share
	 * (they were one sweep of 36 runs at 6 levels). */
	wc_ft_table *both = wc_ft_table_new();
	for (size_t i = 0; i < full->n_runs; i++)
		CHECK_INT(wc_ft_table_append(both, &full->runs[i], NULL), WC_OK);
	for (size_t i = 0; i < packed->n_runs; i++)
		CHECK_INT(wc_ft_table_append(both, &packed->runs[i], NULL), WC_OK);
	wc_ft_fit_result fb;
	CHECK_INT(wc_fit_finetune(both, &bo, &fb, &err), WC_OK);
	for (int kd = 0; kd < WC_FT_REL_COUNT; kd++) {
		const wc_ft_relation *a = &fr.section.relations[kd], *b = &fb.section.relations[kd];
		CHECK(a->present && b->present && a->runs == b->runs && a->levels == b->levels);
		CHECK(b->fill == 1.0 || b->fill == 0.5);
	}
	wc_ft_fit_result_clear(&fb);
	wc_ft_table_free(both);

	wc_ft_fit_result_clear(&fr);
	wc_ft_table_free(packed);
	wc_ft_table_free(full);
	wc_params_clear(&truth);
	wc_params_clear(&p);
	wc_params_clear(&q);
}

int
main(void)
{
	packed_runs_checked_packed();
	return check_report("test_finetune_packed_sweep");
}
