/*
 * The `warnings` cell of `--per-run` holds a prediction's warnings whole
 * (docs/validation.md, "Per-run output"): a DeepSeek-V3.1 run on B200 with
 * fp8 weights -- scored on its datasheet transfer, five warnings, 698
 * bytes -- had its cell cut at 599 bytes, mid-word ("weights: fp8 o").
 * A list longer than the row holds ends in "; ...", never mid-warning.
 */
#include "tests/support/check.h"
#include "data/data.h"
#include "predict/predict.h"
#include "tests/support/support.h"
#include "validation/validation.h"

#include <stdlib.h>
#include <string.h>

/* The run as `wattcast import mlenergy` writes it (lm-arena-chat,
 * max_num_seqs 512). */
static void
add_deepseek_b200(wc_runs_table *t)
{
	wc_run r;
	wc_run_init(&r);
	snprintf(r.run_id, sizeof r.run_id, "lm-arena-chat|deepseek-ai/DeepSeek-V3.1|B200|8gpu|seqs512");
	snprintf(r.platform, sizeof r.platform, "B200");
	snprintf(r.model, sizeof r.model, "deepseek-ai/DeepSeek-V3.1");
	snprintf(r.set, sizeof r.set, "lm-arena-chat");
	r.tp = 8;
	r.active_params_b = 37;
	r.total_params_b = 671;
	r.running = 511.463414634;
	r.mean_power_w = 5383.8085054;
	r.weights = WC_PREC_FP8;
	r.output_tokens = 849.19921875;
	wc_runs_append(t, &r, NULL);
}

/* What `wattcast predict` warns for the same run, "; "-joined. */
static void
predict_warnings(const wc_params *p, const wc_run *r, char *out, size_t cap)
{
	wc_predictor *pr = NULL;
	wc_inference_query q = { .config = WC_CONFIG_INIT };
	wc_inference_prediction o;
	wc_error err;
	out[0] = '\0';
	CHECK_INT(wc_predictor_new(p, &pr, &err), WC_OK);
	wc_run_config(r, &q.config);
	q.skip_memory_check = 1;
	CHECK_INT(wc_predict_inference(pr, &q, &o, &err), WC_OK);
	for (int w = 0; w < o.n_warnings; w++) {
		size_t used = strlen(out);
		snprintf(out + used, cap - used, "%s%s", used ? "; " : "", o.warnings[w]);
	}
	wc_predictor_free(pr);
}

int
main(void)
{
	wc_params p = WC_PARAMS_INIT;
	wc_heldout_report rep;
	wc_error err;
	wc_params_default(&p); /* the "paper" profile */
	wc_runs_table *t = wc_runs_new();
	add_deepseek_b200(t);
	static char expect[WC_WARNINGS_MAX * (WC_WARNING_LEN + 2)];
	predict_warnings(&p, &t->runs[0], expect, sizeof expect);
	CHECK_CONTAINS(expect, "; weights: fp8 on B200 has no fitted term; its power is predicted as bf16's");
	CHECK(strlen(expect) > 600); /* longer than the cell held */

	wc_per_run ds = WC_PER_RUN_INIT;
	CHECK_INT(wc_validate_heldout_datasheet(&p, t, &rep, &ds, &err), WC_OK);
	CHECK_INT(ds.n, 1);
	if (ds.n == 1) {
		CHECK(strcmp(ds.rows[0].warnings, expect) == 0);
		if (strcmp(ds.rows[0].warnings, expect) != 0)
			fprintf(stderr, "  cell:    %s\n  predict: %s\n", ds.rows[0].warnings, expect);
	}
	/* ... and so in the file: the cell (quoted, it holds commas) ends
	 * with the last warning's last words. */
	char *dir = test_tmpdir("per_run_warnings"), *path = path_join(dir, "per_run.csv");
	CHECK_INT(wc_per_run_write(path, &ds, &err), WC_OK);
	char *text = NULL;
	size_t len;
	CHECK_INT(wc_read_file(path, 1 << 20, &text, &len, &err), WC_OK);
	CHECK_CONTAINS(text, "(step times and memory use fp8's bytes; prefill computes at the BF16 rate)\"\n");
	free(text);
	wc_per_run_clear(&ds);

	/* The bound: a prediction's full list and the writer's own extras
	 * (WC_PER_RUN_WARNINGS_MAX of the longest a warning is) fit whole;
	 * one more closes the list with "; ..." and later ones are dropped. */
	static wc_per_run_row row;
	static char w[WC_WARNING_LEN];
	wc_per_run_row_init(&row);
	for (int k = 0; k < WC_PER_RUN_WARNINGS_MAX; k++) {
		memset(w, 'a' + k % 26, sizeof w - 1);
		w[sizeof w - 1] = '\0';
		snprintf(w, sizeof w, "warning %02d", k);
		w[strlen(w)] = ' '; /* 255 bytes, numbered */
		wc_per_run_row_warn(&row, w);
	}
	CHECK_INT((int)strlen(row.warnings), WC_PER_RUN_WARNINGS_MAX * (WC_WARNING_LEN - 1) +
	                                         (WC_PER_RUN_WARNINGS_MAX - 1) * 2);
	CHECK_CONTAINS(row.warnings, "; warning 19 ");
	CHECK(!row.warnings_closed);
	wc_per_run_row_warn(&row, w);
	wc_per_run_row_warn(&row, "short");
	size_t n = strlen(row.warnings);
	CHECK(n > 5 && strcmp(row.warnings + n - 5, "; ...") == 0);
	CHECK(row.warnings_closed);
	CHECK(strstr(row.warnings, "short") == NULL);
	/* Every warning before the "; ..." is whole: 255 bytes apart. */
	CHECK_INT((int)n, WC_PER_RUN_WARNINGS_MAX * (WC_WARNING_LEN + 1) - 2 + 5);
	/* A short list is untouched. */
	wc_per_run_row_init(&row);
	wc_per_run_row_warn(&row, "one");
	wc_per_run_row_warn(&row, "two");
	CHECK(strcmp(row.warnings, "one; two") == 0);

	free(path);
	free(dir);
	wc_runs_free(t);
	return check_report("test_per_run_warnings");
}
