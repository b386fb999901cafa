/*
 * `validate capacity` names every table row it does not score, and why
 * (docs/cli.md, "validate"): the rows the capacity data leaves out with
 * no note of its own -- a run without output tokens, a power-only run --
 * were only counted, "(1 more without a note: power-only runs, or past
 * the first 0 notes)", a sentence that named no row and contradicted
 * itself. Periods keep the leave-one-out scoring something. `fit capacity`
 * names the rows it skips the same way.
 */
#include "tests/support/support.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

int
main(void)
{
	char *dir = test_tmpdir("cli_capacity_unscored");
	char *periods = path_join(test_env("WC_SOURCE_DIR", "."), "data/default/published-periods.csv");
	char *runs = test_fixture(dir, "runs.csv",
	                          "run_id,platform,tp,model,active_params_b,running,mean_power_w,output_tokens,"
	                          "throughput_tok_s\n"
	                          "r_notok,H100,1,Qwen3-8B,8,16,500,,900\n"
	                          "r_p1,H100,1,Qwen3-8B,8,8,400,200,\n"
	                          "r_p2,H100,1,Qwen3-8B,8,32,600,200,\n");
	run_result r;
	const char *text[] = { "wattcast", "validate", "capacity", periods, runs, NULL };
	CHECK_INT(run_wattcast(text, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.err, "validate capacity: 3 table row(s) not scored");
	CHECK_CONTAINS(r.err, "  warning: output_tokens blank (no tokens per request to turn throughput into time); "
	                      "1 row(s) skipped: r_notok\n");
	CHECK_CONTAINS(r.err, "  warning: a power-only run (no positive throughput_tok_s, itl_s, median_itl_ms or "
	                      "ttft_s); 2 row(s) skipped: r_p1, r_p2\n");
	CHECK(r.err && !strstr(r.err, "without a note") && !strstr(r.err, "more past"));
	run_result_free(&r);

	const char *json[] = { "wattcast", "validate", "capacity", periods, runs, "--json", NULL };
	CHECK_INT(run_wattcast(json, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	json_t *o = json_loads(r.out ? r.out : "", 0, NULL);
	const json_t *u = json_object_get(o, "unscored");
	CHECK_INT(json_integer_value(json_object_get(u, "rows")), 3);
	CHECK_INT(json_array_size(json_object_get(u, "reasons")), 2);
	CHECK_CONTAINS(json_string_value(json_array_get(json_object_get(u, "reasons"), 0)), "r_notok");
	json_decref(o);
	run_result_free(&r);

	/* fit capacity names them too: its head line counted "3 skipped" and
	 * no line said which rows or why */
	char *fitted = path_join(dir, "fitted.json");
	const char *fc[] = { "wattcast", "fit", "capacity", periods, runs, "-o", fitted, "--bootstrap", "0", NULL };
	CHECK_INT(run_wattcast(fc, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, ", 3 skipped)");
	CHECK_CONTAINS(r.out, "  warning: output_tokens blank (no tokens per request to turn throughput into time); "
	                      "1 row(s) skipped: r_notok\n");
	CHECK_CONTAINS(r.out, "  warning: a power-only run (no positive throughput_tok_s, itl_s, median_itl_ms or "
	                      "ttft_s); 2 row(s) skipped: r_p1, r_p2\n");
	run_result_free(&r);
	free(fitted);

	/* rows of a model the catalog lacks: one line per reason, naming the
	 * rows as a message holds them and counting all -- it gave one line per
	 * row and stopped naming past the 16th ("(3 more past the first 16
	 * notes)"); a row past the notes counts with a noted row of the same
	 * platform, model and precisions, any other under a reason of its own */
	char unk[4096] = "run_id,platform,tp,model,active_params_b,running,mean_power_w,output_tokens,"
	                 "throughput_tok_s\n";
	for (int i = 1; i <= 19; i++) {
		size_t used = strlen(unk);
		snprintf(unk + used, sizeof unk - used, "u%02d,H100,1,acme/%s,8,%d,500,200,900\n", i,
		         i <= 17 ? "Foo" : "Bar", i);
	}
	char *unknown = test_fixture(dir, "unknown.csv", unk);
	const char *un[] = { "wattcast", "validate", "capacity", periods, unknown, NULL };
	CHECK_INT(run_wattcast(un, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.err, "validate capacity: 19 table row(s) not scored");
	CHECK_CONTAINS(r.err, "  warning: model 'acme/Foo' is not in the catalog (no architecture); 17 row(s) "
	                      "skipped: u01, u02, u03, ");
	CHECK_CONTAINS(r.err, "  warning: a platform, model or precision the capacity model cannot describe; 2 "
	                      "row(s) skipped: u18, u19\n");
	CHECK(r.err && !strstr(r.err, "u01: model") && !strstr(r.err, "more past") && !strstr(r.err, "not named"));
	const char *line = r.err ? strstr(r.err, "  warning: model 'acme/Foo'") : NULL;
	CHECK(line && strcspn(line, "\n") <= 10 + 255);
	run_result_free(&r);
	free(unknown);

	/* A header alone, or rows none of which can be scored, is no
	 * validation: it printed nothing (or every n 0) and exited 0. */
	char *hdr = test_fixture(dir, "hdr.csv", "run_id,platform,tp,model,running,mean_power_w\n");
	const char *hv[] = { "wattcast", "validate", "capacity", hdr, NULL };
	CHECK_INT(run_wattcast(hv, NULL, &r), 0);
	CHECK_INT(r.status, 1);
	/* in the words of every analysis, naming the file */
	CHECK_CONTAINS(r.err, "validate capacity: ");
	CHECK_CONTAINS(r.err, "hdr.csv: no runs (a header and no rows): nothing to validate");
	run_result_free(&r);
	const char *hj[] = { "wattcast", "validate", "capacity", hdr, "--json", NULL };
	CHECK_INT(run_wattcast(hj, NULL, &r), 0);
	CHECK_INT(r.status, 1);
	CHECK(!r.out || !strstr(r.out, "\"n\""));
	run_result_free(&r);
	const char *pw[] = { "wattcast", "validate", "capacity", runs, NULL };
	CHECK_INT(run_wattcast(pw, NULL, &r), 0);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "1 row(s) skipped: r_notok\n");
	CHECK_CONTAINS(r.err, "no row could be scored (3 row(s) read, 3 skipped)");
	run_result_free(&r);
	/* --json printed nothing at all: the document is printed as the text
	 * sections are (its unscored rows, the folds' skipped_runs), the exit
	 * status the text mode's */
	const char *pwj[] = { "wattcast", "validate", "capacity", runs, "--json", NULL };
	CHECK_INT(run_wattcast(pwj, NULL, &r), 0);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "no row could be scored (3 row(s) read, 3 skipped)");
	json_t *pj = r.out ? json_loads(r.out, 0, NULL) : NULL;
	CHECK(pj != NULL);
	CHECK_INT(json_integer_value(json_object_get(json_object_get(pj, "unscored"), "rows")), 3);
	CHECK_INT(json_integer_value(json_object_get(json_object_get(json_object_get(pj, "throughput_lomo"), "overall"),
	                                             "n")), 0);
	json_decref(pj);
	run_result_free(&r);
	free(hdr);

	/* A batch-turnover period of 1e300 s is no measurement: it was fitted
	 * ("converged in 1 iterations", rms 206 in log time) and exit 0. */
	char *pp = test_fixture(dir, "pp.csv", "platform,model,tp,running,input_tokens,output_tokens,period_s\n"
	                                       "A100,Qwen3-8B,1,32,,512,7.4\n"
	                                       "A100,Qwen3-14B,1,32,,512,1e300\n");
	char *cap = path_join(dir, "cap.json");
	const char *pf[] = { "wattcast", "fit", "capacity", pp, "-o", cap, "--bootstrap", "0", NULL };
	CHECK_INT(run_wattcast(pf, NULL, &r), 0);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "pp.csv:3:26: column 'period_s': must be at most 86400 s (a day), got '1e300'");
	CHECK(!test_exists(cap));
	run_result_free(&r);
	const char *pv[] = { "wattcast", "validate", "capacity", pp, NULL };
	CHECK_INT(run_wattcast(pv, NULL, &r), 0);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "pp.csv:3:26: column 'period_s': must be at most 86400 s");
	run_result_free(&r);
	free(cap);
	free(pp);

	/* A fold that cannot predict: four runs of one model and one of
	 * another (the PowerTrace-Sim runs' shape). No energy row was scored,
	 * and the text left the section out without a word; the skipped rows
	 * were counted, not named, under an either/or reason. Now the section
	 * says "no row scored" and each skipped run is named with its fold's
	 * own reason, in the text and in --json. */
	char *few = test_fixture(dir, "few.csv",
	                         "run_id,platform,tp,model,active_params_b,running,mean_power_w,idle_power_w,"
	                         "input_tokens,output_tokens,throughput_tok_s,energy_per_token_j\n"
	                         "q1,A100,1,Qwen3-8B,8.19,1,180,60,500,200,60,3.0\n"
	                         "q2,A100,1,Qwen3-8B,8.19,2,220,60,500,200,115,1.9\n"
	                         "q3,A100,1,Qwen3-8B,8.19,4,260,60,500,200,215,1.2\n"
	                         "q4,A100,1,Qwen3-8B,8.19,8,300,60,500,200,390,0.77\n"
	                         "g1,A100,1,Llama-3.1-8B,8.03,8,300,60,500,200,400,0.75\n");
	const char *ft[] = { "wattcast", "validate", "capacity", few, NULL };
	CHECK_INT(run_wattcast(ft, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, "4 row(s) skipped: their fold could not predict them:\n"
	                      "  q1: no capacity fit without its model: capacity fit: ");
	CHECK_CONTAINS(r.out, "energy per output token, leave one model out\n  no row scored\n"
	                      "5 row(s) skipped: their fold could not predict them:\n  q1: ");
	CHECK_CONTAINS(r.out, "\n  g1: no power-law fit without its model: fit: ");
	CHECK(r.out && !strstr(r.out, " or no finite prediction"));
	run_result_free(&r);
	const char *fj[] = { "wattcast", "validate", "capacity", few, "--json", NULL };
	CHECK_INT(run_wattcast(fj, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	json_t *fo = r.out ? json_loads(r.out, 0, NULL) : NULL;
	json_t *en = json_object_get(fo, "energy_per_token_lomo"), *sk = json_object_get(en, "skipped_runs");
	CHECK_INT(json_integer_value(json_object_get(en, "skipped")), 5);
	CHECK_INT((long long)json_array_size(sk), 5);
	const char *g1 = json_string_value(json_object_get(json_array_get(sk, 4), "run_id"));
	CHECK(g1 && strcmp(g1, "g1") == 0);
	CHECK_CONTAINS(json_string_value(json_object_get(json_array_get(sk, 4), "reason")),
	               "no power-law fit without its model");
	json_decref(fo);
	run_result_free(&r);
	free(few);

	/* One model: each fold has nothing to fit, so no row is scored (the
	 * ML.ENERGY Qwen3-32B rows' shape). --json printed 0 bytes; it now
	 * gives every row under skipped_runs with the fold's reason, exit 1. */
	char *one = test_fixture(dir, "one.csv",
	                         "run_id,platform,tp,model,active_params_b,running,mean_power_w,idle_power_w,"
	                         "input_tokens,output_tokens,throughput_tok_s,energy_per_token_j\n"
	                         "q1,A100,1,Qwen3-8B,8.19,1,180,60,500,200,60,3.0\n"
	                         "q2,A100,1,Qwen3-8B,8.19,2,220,60,500,200,115,1.9\n"
	                         "q3,A100,1,Qwen3-8B,8.19,4,260,60,500,200,215,1.2\n");
	const char *oj[] = { "wattcast", "validate", "capacity", one, "--json", NULL };
	CHECK_INT(run_wattcast(oj, NULL, &r), 0);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "no row could be scored (3 row(s) read, 3 skipped; 3 not predicted: ");
	json_t *oo = r.out ? json_loads(r.out, 0, NULL) : NULL;
	const json_t *otp = json_object_get(oo, "throughput_lomo");
	CHECK_INT(json_integer_value(json_object_get(otp, "skipped")), 3);
	CHECK_INT((long long)json_array_size(json_object_get(otp, "skipped_runs")), 3);
	CHECK_CONTAINS(json_string_value(json_object_get(json_array_get(json_object_get(otp, "skipped_runs"), 0),
	                                                 "reason")),
	               "no capacity fit without its model");
	json_decref(oo);
	run_result_free(&r);
	free(one);

	free(runs);
	free(periods);
	free(dir);
	return check_report("test_cli_capacity_unscored");
}
