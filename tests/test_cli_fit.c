/*
 * `wattcast fit / validate / import` end to end: a fit freezes a loadable
 * parameter file whose draws give prediction intervals; results are
 * byte-identical for 1 and 2 threads; JSON reports have the documented
 * shape; bad input exits non-zero with the file, line and column, and
 * writes nothing.
 */
#include "data/data.h"
#include "tests/support/support.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static run_result
run(const char *const *argv)
{
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	return r;
}

int
main(void)
{
	char *dir = test_tmpdir("cli_fit");
	char *runs = path_join(dir, "runs.csv"), *p1 = path_join(dir, "p1.json"), *p2 = path_join(dir, "p2.json");
	run_result r;
	setenv("SOURCE_DATE_EPOCH", "1700000000", 1); /* children inherit it */

	const char *sim[] = { "wattcast", "simulate", "inference", "--seed", "7", "-o", runs, NULL };
	r = run(sim);
	CHECK_INT(r.status, 0);
	run_result_free(&r);

	const char *fit1[] = { "wattcast", "fit", "inference", runs, "-o", p1, "--bootstrap", "60",
	                       "--seed", "5", "--threads", "1", NULL };
	r = run(fit1);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, "converged");
	CHECK_CONTAINS(r.out, "theta[H100-locked]");
	CHECK_CONTAINS(r.out, "60 bootstrap draws");
	run_result_free(&r);
	/* validate precision names the base law's runs, and none without
	 * pairs (no base law is fitted then; it said "0 bf16 runs") */
	const char *vp[] = { "wattcast", "validate", "precision", runs, NULL };
	r = run(vp);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, "(base law fitted on 214 bf16 runs)");
	run_result_free(&r);
	char *bf = path_join(dir, "bf16-only.csv");
	CHECK_INT(write_text(bf, "run_id,platform,tp,model,active_params_b,running,mean_power_w,idle_power_w\n"
	                         "a,A100,1,m,8,4,250,73\nb,A100,1,m,8,16,300,73\n"), 0);
	const char *vp0[] = { "wattcast", "validate", "precision", bf, NULL };
	r = run(vp0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, "no paired runs");
	CHECK(strstr(r.out, "base law fitted on") == NULL);
	run_result_free(&r);
	free(bf);
	/* the structure terms fitted are in the summary, as in the file */
	const char *fitlt[] = { "wattcast", "fit", "inference", runs, "-o", p2, "--bootstrap", "0",
	                        "--law-terms", "tp", NULL };
	r = run(fitlt);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, "  log_tp ");
	run_result_free(&r);
	/* so is the prefill-aware form's phi (the file has it; the table did not) */
	const char *fitsp[] = { "wattcast", "fit", "inference", runs, "-o", p2, "--bootstrap", "0",
	                        "--form", "saturating_prefill", NULL };
	r = run(fitsp);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, "\n  phi                                     1   assumed\n");
	run_result_free(&r);
	const char *fit2[] = { "wattcast", "fit", "inference", runs, "-o", p2, "--bootstrap", "60",
	                       "--seed", "5", "--threads", "2", NULL };
	r = run(fit2);
	CHECK_INT(r.status, 0);
	run_result_free(&r);
	char *a = NULL, *b = NULL;
	size_t la = 0, lb = 0;
	CHECK_INT(wc_read_file(p1, 1u << 26, &a, &la, NULL), WC_OK);
	CHECK_INT(wc_read_file(p2, 1u << 26, &b, &lb, NULL), WC_OK);
	CHECK(a && b && la == lb && memcmp(a, b, la) == 0); /* bit-identical for 1 and 2 threads */
	free(a);
	free(b);

	/* The frozen file loads and gives a prediction interval. */
	wc_params p = WC_PARAMS_INIT;
	CHECK_INT(wc_params_load_file(p1, &p, NULL), WC_OK);
	CHECK_INT(p.n_draws, 60);
	CHECK_INT(p.bootstrap, 60);
	CHECK(p.seed == 5);
	CHECK(strcmp(p.created_utc, "2023-11-14T22:13:20Z") == 0);
	wc_params_clear(&p);
	const char *pred[] = { "wattcast", "predict", "inference", "--params", p1, "--platform", "H200",
	                       "--model", "Qwen3-8B", "--concurrency", "32", "--json", NULL };
	r = run(pred);
	CHECK_INT(r.status, 0);
	json_t *o = json_loads(r.out, 0, NULL);
	json_t *iv = json_object_get(json_object_get(o, "interval_95"), "node_power_w");
	double node = json_number_value(json_object_get(o, "node_power_w"));
	CHECK(json_is_array(iv));
	CHECK(json_number_value(json_array_get(iv, 0)) < node && node < json_number_value(json_array_get(iv, 1)));
	CHECK_NEAR(node, 613.3, 613.3 * 0.03); /* the truth the data came from */
	json_decref(o);
	run_result_free(&r);

	/* JSON reports. */
	const char *held[] = { "wattcast", "validate", "heldout", "--params", p1, runs, "--json", NULL };
	r = run(held);
	CHECK_INT(r.status, 0);
	o = json_loads(r.out, 0, NULL);
	json_t *ov = json_object_get(o, "overall");
	CHECK(json_is_integer(json_object_get(ov, "n")) && json_integer_value(json_object_get(ov, "n")) == 247);
	CHECK(json_is_number(json_object_get(ov, "median_abs_err_pct")));
	CHECK(json_is_number(json_object_get(ov, "share_within_5pct")));
	CHECK(json_is_number(json_object_get(ov, "bias_pct")));
	CHECK(json_is_object(json_object_get(json_object_get(o, "sets"), "llama31_70b_closed_loop")));
	json_decref(o);
	run_result_free(&r);
	const char *forms[] = { "wattcast", "validate", "forms", runs, "--json", NULL };
	r = run(forms);
	CHECK_INT(r.status, 0);
	o = json_loads(r.out, 0, NULL);
	CHECK(strcmp(json_string_value(json_object_get(o, "chosen")), "saturating_quadratic_load") == 0);
	CHECK_INT(json_array_size(json_object_get(o, "forms")), 6);
	CHECK(json_is_null(json_object_get(json_array_get(json_object_get(o, "forms"), 4), "T1"))); /* "–" */
	json_decref(o);
	run_result_free(&r);

	/* A run at or below idle is left out and named, so that the user can
	 * find it; the warning gave only a count. One under 1 W per GPU (a
	 * power in kW) no longer reaches the fit: the reader refuses it at
	 * its cell (test_power_floor_readers). */
	{
		char *kw = path_join(dir, "kw.csv"), *kwp = path_join(dir, "kw.json");
		char tab[2048] = "run_id,platform,tp,model,active_params_b,running,mean_power_w,idle_power_w\n";
		static const double n[] = { 1, 2, 4, 8, 16, 32, 64 }, m[] = { 0.6, 8.19, 32.8 };
		for (int i = 0; i < 7; i++)
			for (int j = 0; j < 3; j++) {
				size_t len = strlen(tab);
				snprintf(tab + len, sizeof tab - len, "r%d,A100,1,m%g,%g,%g,%.1f,73\n", 3 * i + j, m[j], m[j],
				         n[i], 73 + 300 * (1 - exp(-n[i] / 8)) * (1 + 0.1 * log(m[j])));
			}
		strcat(tab, "kwrun,A100,1,m8,8.19,16,31,73\n");
		CHECK_INT(write_text(kw, tab), 0);
		const char *fk[] = { "wattcast", "fit", "inference", kw, "-o", kwp, "--bootstrap", "0", NULL };
		r = run(fk);
		CHECK_INT(r.status, 0);
		CHECK_CONTAINS(r.out, "1 run(s) with mean power <= G*P0 left out of the fit (check the unit: W, not kW; "
		                      "and idle_power_w): kwrun");
		run_result_free(&r);
		free(kw);
		free(kwp);
	}

	/* Bad input: file:line:column, exit 1, nothing written. */
	char *bad = path_join(dir, "bad.csv"), *out = path_join(dir, "never.json");
	CHECK(write_text(bad, "run_id,platform,tp,model,active_params_b,running,mean_power_w\n"
	                      "a,A100,1,m,8,32,300\nb,A100,1,m,8,thirty,310\n") == 0);
	const char *fitbad[] = { "wattcast", "fit", "inference", bad, "-o", out, NULL };
	r = run(fitbad);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "bad.csv:3:14: column 'running': expected a number, got 'thirty'");
	CHECK(!test_exists(out));
	run_result_free(&r);
	const char *nofile[] = { "wattcast", "fit", "inference", "/no/such/runs.csv", "-o", out, NULL };
	r = run(nofile);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "/no/such/runs.csv");
	run_result_free(&r);
	const char *badform[] = { "wattcast", "fit", "inference", runs, "-o", out, "--form", "cubic", NULL };
	r = run(badform);
	CHECK_INT(r.status, 2);
	CHECK_CONTAINS(r.err, "--form: unknown form 'cubic'");
	run_result_free(&r);
	const char *badthreads[] = { "wattcast", "fit", "inference", runs, "-o", out, "--threads", "0", NULL };
	r = run(badthreads);
	CHECK_INT(r.status, 2);
	CHECK_CONTAINS(r.err, "--threads");
	run_result_free(&r);
	const char *noout[] = { "wattcast", "fit", "inference", runs, NULL };
	r = run(noout);
	CHECK_INT(r.status, 2);
	CHECK_CONTAINS(r.err, "-o PARAMS.json is required");
	run_result_free(&r);

	/* import csv: renamed columns, errors at the source's positions. */
	char *other = path_join(dir, "other.csv"), *conv = path_join(dir, "conv.csv");
	CHECK(write_text(other, "id,gpu,gpus,name,params,batch,watts,note\n"
	                        "x1,H100,1,Qwen3-8B,8.19,32,552,ok\nx2,H100,2,Qwen3-14B,14.8,x,900,bad\n") == 0);
	const char *imp[] = { "wattcast", "import", "csv", other, "--map",
	                      "id=run_id,gpu=platform,gpus=tp,name=model,params=active_params_b,batch=running,watts=mean_power_w",
	                      "-o", conv, NULL };
	r = run(imp);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "other.csv:3:26: column 'running': expected a number, got 'x'");
	CHECK(!test_exists(conv));
	run_result_free(&r);
	CHECK(write_text(other, "id,gpu,gpus,name,params,batch,watts,note\n"
	                        "x1,H100,1,Qwen3-8B,8.19,32,552,ok\nx2,H100,2,Qwen3-14B,14.8,64,900,fine\n") == 0);
	r = run(imp);
	CHECK_INT(r.status, 0);
	run_result_free(&r);
	wc_runs_table *t = NULL;
	CHECK_INT(wc_runs_read(conv, &t, NULL), WC_OK);
	CHECK(t && t->n_runs == 2 && t->runs[1].tp == 2 && strcmp(wc_runs_get_extra(t, 1, "note"), "fine") == 0);
	wc_runs_free(t);
	const char *badmap[] = { "wattcast", "import", "csv", other, "--map", "nosuch=run_id", "-o", conv, NULL };
	r = run(badmap);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "--map: no column 'nosuch'");
	run_result_free(&r);

	/* import mlenergy: the published format is checked, with positions. */
	char *me = path_join(dir, "configs.csv");
	CHECK(write_text(me, "task,model_id,gpu_model,num_gpus,avg_batch_size\nchat,m,H100,1,8\n") == 0);
	const char *imp_me[] = { "wattcast", "import", "mlenergy", me, "-o", conv, NULL };
	r = run(imp_me);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "configs.csv:1:1: missing column 'architecture'");
	run_result_free(&r);
	CHECK(write_text(me, "task,model_id,architecture,total_params_billions,activated_params_billions,"
	                     "weight_precision,gpu_model,num_gpus,avg_batch_size,avg_power_watts,avg_output_len,"
	                     "energy_per_token_joules,output_throughput_tokens_per_sec\n"
	                     "chat,org/M,MoE,30,3,bfloat16,H100,2,31.5,820,600,0.4,2000\n"
	                     "chat,org/M,MoE,30,3,nf4,H100,2,31.5,820,600,0.4,2000\n") == 0);
	r = run(imp_me);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "configs.csv:3:21: column 'weight_precision': unknown 'nf4'");
	run_result_free(&r);

	free(me);
	free(bad);
	free(out);
	free(other);
	free(conv);
	free(runs);
	free(p1);
	free(p2);
	free(dir);
	/* --help says what fit/ does with a level without idle readings: a
	 * board the catalog knows gets P0 from its power limit, only another
	 * is fitted (the help said "else it is fitted" for every board) */
	const char *help[] = { "wattcast", "fit", "inference", "--help", NULL };
	run_result h = run(help);
	CHECK_INT(h.status, 0);
	CHECK_CONTAINS(h.out, "a board the catalog knows it is estimated from the board's power limit");
	CHECK(h.out && strstr(h.out, "else it is fitted") == NULL);
	run_result_free(&h);
	return check_report("test_cli_fit");
}
