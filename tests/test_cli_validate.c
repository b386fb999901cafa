/*
 * `wattcast validate ... --per-run FILE` end to end: every held-out report
 * can write one CSV row per predicted run, and the rows agree with the
 * medians it prints (lomo leaves excluded runs out, as its --help now
 * says); a bad flag combination is a usage error; a table
 * with a header and no rows, or with no run the law can score, is a
 * failure naming the file (it printed nan with exit 0), in every analysis
 * the same words; a form that cannot be fitted shows no k, and why.
 */
#include "data/data.h"
#include "tests/support/support.h"

#include <jansson.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static run_result
run(const char *const *argv)
{
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	return r;
}

/* Lines of a text file (0 when it cannot be read). */
static int
count_lines(const char *path, char **text_out)
{
	char *text = NULL;
	size_t len = 0;
	int n = 0;
	if (wc_read_file(path, 1u << 26, &text, &len, NULL) != WC_OK)
		return 0;
	for (size_t i = 0; i < len; i++)
		n += text[i] == '\n';
	*text_out = text;
	return n;
}

/* No run scored, reasons past the refusal's one line: each said whole on
 * stderr before it, and --json prints its document with every run's
 * reason (the refusal cut the first mid-word, "...'BoardYYY)", and --json
 * printed nothing; docs/validation.md, "Frozen-law accuracy"). */
static void
check_every_skip_whole(const char *dir, const char *head)
{
	char text[1024], id[96], board[2][48];
	memset(id, 'x', 90);
	id[90] = '\0';
	for (int k = 0; k < 2; k++) {
		memset(board[k], k ? 'Z' : 'Y', 45);
		board[k][45] = '\0';
	}
	snprintf(text, sizeof text, "%s%s,%s,1,Qwen3-8B,8.19,4,380,100\nsecond,%s,1,Qwen3-8B,8.19,4,380,100\n", head, id,
	         board[0], board[1]);
	char *p = path_join(dir, "long.csv"), want[2][320];
	CHECK_INT(write_text(p, text), 0);
	for (int k = 0; k < 2; k++)
		snprintf(want[k], sizeof want[k], "validate heldout: warning: run '%s' skipped: platform: unknown level "
		         "'%s' in parameter set 'paper'\n", k ? "second" : id, board[k]);
	const char *argv[] = { "wattcast", "validate", "heldout", "--profile", "paper", p, NULL, NULL };
	for (int json = 0; json < 2; json++) {
		argv[6] = json ? "--json" : NULL;
		run_result r = run(argv);
		CHECK_INT(r.status, 1);
		CHECK_CONTAINS(r.err, want[0]);
		CHECK_CONTAINS(r.err, want[1]);
		CHECK_CONTAINS(r.err, "long.csv: no run could be scored (2 of 2 skipped; each run's reason above)");
		const char *line = r.err ? strstr(r.err, "wattcast validate heldout: /") : NULL;
		CHECK(line && strcspn(line, "\n") <= 255 + strlen("wattcast validate heldout: "));
		if (json) {
			json_t *o = json_loads(r.out ? r.out : "", 0, NULL), *a = json_object_get(o, "skipped_runs");
			CHECK_INT((int)json_array_size(a), 2);
			CHECK_INT((int)json_integer_value(json_object_get(json_object_get(o, "overall"), "n")), 0);
			const char *why = json_string_value(json_object_get(json_array_get(a, 0), "reason"));
			CHECK_CONTAINS(why, board[0]);
			CHECK_CONTAINS(why, "' in parameter set 'paper'");
			CHECK(strcmp(json_string_value(json_object_get(json_array_get(a, 0), "run_id")), id) == 0);
			json_decref(o);
		} else {
			CHECK(!r.out || r.out[0] == '\0');
		}
		run_result_free(&r);
	}
	free(p);
}

int
main(void)
{
	char *dir = test_tmpdir("cli_validate");
	char *runs = path_join(dir, "runs.csv"), *per = path_join(dir, "per_run.csv");
	char *lomo_per = path_join(dir, "lomo.csv"), *text = NULL;
	run_result r;
	const char *sim[] = { "wattcast", "simulate", "inference", "--seed", "3", "-o", runs, NULL };
	r = run(sim);
	CHECK_INT(r.status, 0);
	run_result_free(&r);

	/* heldout: all 247 runs, each with its inputs and error. */
	const char *held[] = { "wattcast", "validate", "heldout", "--profile", "paper", runs,
	                       "--per-run", per, NULL };
	r = run(held);
	CHECK_INT(r.status, 0);
	CHECK_INT(count_lines(per, &text), 248);
	CHECK_CONTAINS(text, "run_id,set,fold,platform,tp,model,active_params_b,running,load,");
	CHECK_CONTAINS(text, "\nsim001,fitted,,A100,1,Qwen3-0.6B,0.6,1,running,bf16,bf16,,");
	CHECK_CONTAINS(text, ",mean_power_w,");
	CHECK_CONTAINS(text, ",llama31_70b_closed_loop,,A100,4,Llama-3.1-70B,70.6,");
	CHECK(r.out && !strstr(r.out, "records no held-out error")); /* paper records one */
	free(text);
	run_result_free(&r);

	/* lomo: the held-out model is the fold. */
	const char *lomo[] = { "wattcast", "validate", "lomo", runs, "--terms", "none", "--per-run",
	                       lomo_per, NULL };
	r = run(lomo);
	CHECK_INT(r.status, 0);
	CHECK(count_lines(lomo_per, &text) > 200);
	CHECK_CONTAINS(text, ",A100,Qwen3-14B,A100,1,Qwen3-14B,");
	/* excluded runs (the held-out Llama-3.1-70B set) take no part in
	 * lomo, and its --help says so (it named forms and precision only) */
	CHECK(text && !strstr(text, "llama31_70b_closed_loop"));
	free(text);
	run_result_free(&r);
	const char *vhelp[] = { "wattcast", "validate", "lomo", "--help", NULL };
	r = run(vhelp);
	CHECK_INT(r.status, 0);
	/* capacity and finetune leave them out too, and said so nowhere here */
	CHECK_CONTAINS(r.out, "Excluded runs (`exclude` column) are left out of forms, precision, lomo,\n"
	                      "fewshot, capacity (marked periods rows too) and finetune, and included in\n"
	                      "heldout");
	run_result_free(&r);

	/* Two models' A100 runs: each fold's quantile has the other model's
	 * 13 residuals, fewer than 19, so no run gets an interval -- said,
	 * not left as "–" and n_int 0 (docs/intervals.md, "The quantile"). */
	char *small = path_join(dir, "small.csv"), *all = NULL;
	CHECK(count_lines(runs, &all) > 0);
	size_t cap = strlen(all) + 1, used = 0;
	char *keep = calloc(1, cap);
	for (char *line = all; keep && line && *line;) {
		char *end = strchr(line, '\n');
		if (end)
			*end = '\0';
		size_t len = strlen(line);
		if (!strncmp(line, "run_id,", 7) || strstr(line, ",A100,1,Qwen3-8B,") || strstr(line, ",A100,1,Qwen3-14B,")) {
			memcpy(keep + used, line, len);
			keep[used + len] = '\n';
			used += len + 1;
		}
		line = end ? end + 1 : NULL;
	}
	CHECK_INT(write_text(small, keep), 0);
	const char *lomo_small[] = { "wattcast", "validate", "lomo", small, "--terms", "none", NULL };
	r = run(lomo_small);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, "note: 26 of 26 run(s) have no 95 % interval: the other models held out beside theirs "
	                      "hold fewer than the 19 residuals a 95 % quantile needs");
	run_result_free(&r);
	/* The same rows again under an unknown name: one run filed twice,
	 * which leave-one-model-out keeps in training beside its twin; said. */
	char *dup = path_join(dir, "dup.csv");
	size_t n_keep = strlen(keep), dup_used = n_keep;
	char *twice = calloc(1, 2 * n_keep + 4096);
	memcpy(twice, keep, n_keep);
	for (char *line = strchr(keep, '\n') + 1; line && *line;) {
		char *end = strchr(line, '\n'), *model = strstr(line, ",A100,1,");
		*end = '\0';
		model += strlen(",A100,1,");
		char *rest = strchr(model, ',');
		dup_used += (size_t)sprintf(twice + dup_used, "filed-again-under-acme-%.*sacme/Foo%s\n", (int)(model - line), line, rest);
		line = end + 1;
	}
	CHECK_INT(write_text(dup, twice), 0);
	const char *lomo_dup[] = { "wattcast", "validate", "lomo", dup, "--terms", "none", NULL };
	r = run(lomo_dup);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.err, "wattcast validate lomo: warning: 26 row(s) equal another model's row in every measured "
	                      "field, e.g. run 'filed-again-under-acme-");
	CHECK_CONTAINS(r.err, "leave-one-model-out keeps such a twin in training");
	{ /* the example names a whole run id, one row of the file (it named a
	   * prefix that matched several) */
		const char *at = r.err ? strstr(r.err, "e.g. run '") : NULL;
		char id[160] = "", line[200];
		if (at && sscanf(at + strlen("e.g. run '"), "%159[^']", id) == 1) {
			snprintf(line, sizeof line, "\n%s,", id);
			CHECK(strstr(twice, line) != NULL);
		} else
			CHECK(!"no run id in the twin warning");
	}
	run_result_free(&r);
	/* fewshot --lomo holds a model out the same way: the same warning (it
	 * said nothing, and its k = 0 was partly in-sample) */
	const char *fs_dup[] = { "wattcast", "validate", "fewshot", dup, "--lomo", "--terms", "none", "--k", "1", NULL };
	r = run(fs_dup);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.err, "wattcast validate fewshot: warning: 26 row(s) equal another model's row in every "
	                      "measured field, e.g. run 'filed-again-under-acme-");
	run_result_free(&r);
	r = run(lomo_small); /* the table without twins: no such warning */
	CHECK(!r.err || !strstr(r.err, "row(s) equal another model's row"));
	run_result_free(&r);
	const char *fs_small[] = { "wattcast", "validate", "fewshot", small, "--lomo", "--terms", "none", "--k", "1", NULL };
	r = run(fs_small);
	CHECK(!r.err || !strstr(r.err, "row(s) equal another model's row"));
	run_result_free(&r);
	free(twice);
	free(dup);
	free(keep);
	free(all);
	free(small);

	/* --per-run where it does not apply: a usage error naming the flag. */
	const char *bad[] = { "wattcast", "validate", "forms", runs, "--per-run", per, NULL };
	r = run(bad);
	CHECK_INT(r.status, 2);
	CHECK_CONTAINS(r.err, "--per-run");
	run_result_free(&r);
	/* --form and --prior where they change nothing (heldout refits
	 * nothing, forms scores every form) were taken in silence, the output
	 * byte for byte the same; --terms there was already refused so. */
	const char *hf[] = { "wattcast", "validate", "heldout", "--profile", "paper", runs, "--form", "power_law", NULL };
	test_usage_error(hf, "validate heldout: --form applies to precision, lomo and fewshot --lomo only (see --help)");
	char *set = path_join(dir, "set.json");
	const char *fit[] = { "wattcast", "fit", "inference", runs, "--bootstrap", "0", "-o", set, NULL };
	test_run_ok(fit);
	const char *hp[] = { "wattcast", "validate", "heldout", "--params", set, runs, "--prior", set, NULL };
	test_usage_error(hp, "validate heldout: --prior applies to forms, precision, lomo and fewshot --lomo only (see --help)");
	/* draws without a held-out error: the coverage says so */
	char *set_b = path_join(dir, "set_b.json");
	const char *fitb[] = { "wattcast", "fit", "inference", runs, "--bootstrap", "40", "--seed", "1", "-o", set_b,
		               NULL };
	test_run_ok(fitb);
	const char *hb[] = { "wattcast", "validate", "heldout", "--params", set_b, runs, NULL };
	r = run(hb);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, "records no held-out error of mean power, so its intervals cover the parameters' "
	                      "uncertainty only");
	run_result_free(&r);
	const char *hbj[] = { "wattcast", "validate", "heldout", "--params", set_b, runs, "--json", NULL };
	r = run(hbj);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, "\"intervals_cover\": \"parameters only: the set records no held-out error");
	run_result_free(&r);
	free(set_b);
	const char *ff[] = { "wattcast", "validate", "forms", runs, "--form", "power_law", NULL };
	test_usage_error(ff, "validate forms: --form applies to precision, lomo and fewshot --lomo only (see --help)");
	free(set);

	char *empty = path_join(dir, "empty.csv"), *alien = path_join(dir, "alien.csv");
	const char *head = "run_id,platform,tp,model,active_params_b,running,mean_power_w,idle_power_w\n";
	CHECK_INT(write_text(empty, head), 0);
	char alien_text[256];
	snprintf(alien_text, sizeof alien_text, "%sa,X900,1,Qwen3-8B,8.19,4,380,100\n", head);
	CHECK_INT(write_text(alien, alien_text), 0);
	const char *what[] = { "heldout", "lomo", "forms", "precision" };
	for (int i = 0; i < 4; i++) {
		const char *v[] = { "wattcast", "validate", what[i], "--profile", "paper", empty, NULL };
		r = run(v);
		CHECK_INT(r.status, 1);
		CHECK_CONTAINS(r.err, "empty.csv: no runs (a header and no rows)");
		run_result_free(&r);
	}
	/* capacity says it in the same words, naming the file (it said "no
	 * row could be scored (0 row(s) read, 0 skipped)" and no file) */
	const char *cap_empty[] = { "wattcast", "validate", "capacity", empty, NULL };
	r = run(cap_empty);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "wattcast validate capacity: ");
	CHECK_CONTAINS(r.err, "empty.csv: no runs (a header and no rows): nothing to validate\n");
	run_result_free(&r);
	/* a form that cannot be fitted on every run has no k: "–" / null and
	 * why (floor_plus_rise's 6 parameters on 5 runs; it said k = 0) */
	char *five = path_join(dir, "five.csv"), five_text[600];
	int at = snprintf(five_text, sizeof five_text, "%s", head);
	static const int n_five[] = { 1, 2, 4, 8, 16 };
	static const double p_five[] = { 92.2, 103.8, 125.3, 162.6, 217.7 };
	for (int i = 0; i < 5; i++)
		at += snprintf(five_text + at, sizeof five_text - (size_t)at, "r%d,A100,1,Qwen3-8B,8.19,%d,%.1f,80\n", i,
		               n_five[i], p_five[i]);
	CHECK_INT(write_text(five, five_text), 0);
	const char *forms5[] = { "wattcast", "validate", "forms", five, NULL };
	r = run(forms5);
	/* nothing scored, nothing chosen: the table, then exit 1 */
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "five.csv: no form could be scored on any test (");
	CHECK_CONTAINS(r.out, "\nsaturating_quadratic_load      5 ");
	CHECK_CONTAINS(r.out, "\nfloor_plus_rise                – ");
	CHECK_CONTAINS(r.out, "\nk of floor_plus_rise: – (its fit on all 5 runs failed: fit: 5 usable runs for 6 "
	                      "parameters)\n");
	run_result_free(&r);
	const char *forms5j[] = { "wattcast", "validate", "forms", five, "--json", NULL };
	r = run(forms5j);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.out, "\"form\": \"floor_plus_rise\",\n      \"k\": null,\n      \"k_reason\": \"fit: 5 usable "
	                      "runs for 6 parameters\",");
	CHECK_CONTAINS(r.out, "\"form\": \"saturating_quadratic_load\",\n      \"k\": 5,\n      \"T1\"");
	run_result_free(&r);
	free(five);
	const char *none[] = { "wattcast", "validate", "heldout", "--profile", "paper", alien, NULL };
	r = run(none);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "validate heldout: warning: run 'a' skipped: platform: unknown level 'X900' in parameter "
	                      "set 'paper'\n");
	CHECK_CONTAINS(r.err, "alien.csv: no run could be scored (1 of 1 skipped; each run's reason above)");
	CHECK(strstr(r.err, "--datasheet") == NULL); /* X900 is no catalog board: no transfer to offer */
	run_result_free(&r);
	check_every_skip_whole(dir, head);
	/* one A100 run scored, one L40S run skipped: the report names why and
	 * what would score it */
	snprintf(alien_text, sizeof alien_text, "%sa,A100,1,Qwen3-8B,8.19,4,380,100\nb,L40S,1,Qwen3-8B,8.19,4,250,60\n",
	         head);
	CHECK_INT(write_text(alien, alien_text), 0);
	r = run(none);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, "1 run(s) skipped, the first run 'b': platform: unknown level 'L40S' in parameter set "
	                      "'paper'; --datasheet scores a catalog board by its transfer");
	run_result_free(&r);
	/* a raw ML.ENERGY configuration table is imported on the fly, as
	 * validate capacity and fit capacity do (docs/cli.md): it was refused
	 * for want of run_id */
	char *raw = path_join(dir, "configurations_text.csv");
	CHECK_INT(write_text(raw, "task,model_id,architecture,total_params_billions,activated_params_billions,"
	                          "weight_precision,gpu_model,num_gpus,avg_batch_size,avg_power_watts,avg_output_len,"
	                          "energy_per_token_joules,output_throughput_tokens_per_sec\n"
	                          "chat,org/M,Dense,8,8,bfloat16,H100,1,31.5,520,600,0.4,2000\n"
	                          "chat,org/N,Dense,14,14,bfloat16,H100,1,15.5,480,600,0.5,1200\n"),
	          0);
	const char *raw_held[] = { "wattcast", "validate", "heldout", "--profile", "measured", raw, NULL };
	r = run(raw_held);
	CHECK_INT(r.status, 0);
	CHECK(!r.err || !strstr(r.err, "run_id"));
	CHECK_CONTAINS(r.out, "2");
	run_result_free(&r);
	const char *raw_lomo[] = { "wattcast", "validate", "lomo", raw, "--quiet", NULL };
	r = run(raw_lomo);
	CHECK(!r.err || !strstr(r.err, "missing required column"));
	run_result_free(&r);
	const char *raw_few[] = { "wattcast", "validate", "fewshot", raw, "--profile", "measured", "--quiet", NULL };
	r = run(raw_few);
	CHECK(!r.err || !strstr(r.err, "missing required column"));
	run_result_free(&r);
	free(raw);
	free(empty);
	free(alien);
	free(runs);
	free(per);
	free(lomo_per);
	free(dir);
	return check_report("test_cli_validate");
}
