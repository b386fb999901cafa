/*
 * Runs tables (docs/formats/runs-table.md): every refusal names file:line:column and the
 * reason; comments, quoting, unknown columns and n(t) series files are
 * read; a write + read round trip keeps every value and extra column.
 */
#include "data/data.h"
#include "tests/support/support.h"

#include <math.h>
#include <stdlib.h>

static const char *header = "run_id,platform,tp,model,active_params_b,running,mean_power_w";

/* Parse `text`; expect failure with every needle in the message. */
static void
refused(const char *text, const char *n1, const char *n2)
{
	wc_runs_table *t = NULL;
	wc_error err;
	int rc = wc_runs_read_buffer(text, strlen(text), "runs.csv", &t, &err);
	CHECK(rc != WC_OK);
	CHECK(t == NULL);
	if (rc != WC_OK) {
		CHECK_CONTAINS(err.msg, n1);
		if (n2)
			CHECK_CONTAINS(err.msg, n2);
	}
}

static char *
table(const char *hdr, const char *rows)
{
	size_t n = strlen(hdr) + strlen(rows) + 4;
	char *s = malloc(n);
	snprintf(s, n, "%s\n%s", hdr, rows);
	return s;
}

int
main(void)
{
	wc_error err;
	wc_runs_table *t0 = NULL;
	char *s;

	/* Each error case: missing column, non-numeric, tp < 1, N <= 0. */
	refused("run_id,platform,model,active_params_b,running,mean_power_w\nr1,A100,m,8,32,300\n",
	        "runs.csv:1:1:", "missing required column 'tp'");
	refused("run_id,platform,tp,model,active_params_b,mean_power_w\nr1,A100,1,m,8,300\n",
	        "runs.csv:1:1:", "missing required column 'running' (or 'n_series')");
	s = table(header, "r1,A100,1,Qwen3-8B,8.19,32,362\nr2,A100,1,Qwen3-8B,8.19,3x2,362\n");
	refused(s, "runs.csv:3:25:", "column 'running': expected a number, got '3x2'");
	free(s);
	/* a control byte in a name is refused, as POST /v1/calibrate refuses
	 * it (it was read, and written into a set's model terms) */
	s = table(header, "r1,A1\00100,1,Qwen3-8B,8.19,32,362\n");
	refused(s, "runs.csv:2:4:", "column 'platform': control character at byte 3");
	free(s);
	s = table(header, "r1,A100,1,My\tModel,8.19,32,362\n");
	refused(s, "runs.csv:2:11:", "column 'model': control character at byte 3");
	free(s);
	/* strtod's hex, inf and nan forms are not the plain decimals the
	 * format promises (docs/formats/runs-table.md): 0x10 read as 16 */
	s = table(header, "r1,A100,1,Qwen3-8B,8.19,0x10,362\n");
	refused(s, "runs.csv:2:25:", "column 'running': expected a number, got '0x10'");
	free(s);
	s = table(header, "r1,A100,1,Qwen3-8B,8.19,32,0x1.9p8\n");
	refused(s, "runs.csv:2:28:", "column 'mean_power_w': expected a number, got '0x1.9p8'");
	free(s);
	s = table(header, "r1,A100,1,Qwen3-8B,8.19,32,infinity\n");
	refused(s, "runs.csv:2:28:", "got 'infinity'");
	free(s);
	s = table(header, "# a comment\nr1,A100,0,Qwen3-8B,8.19,32,362\n");
	refused(s, "runs.csv:3:9:", "column 'tp': tp must be a whole number from 1 to 4096, got '0'");
	free(s);
	s = table(header, "r1,A100,99999,Qwen3-8B,8.19,32,362\n"); /* the message states the rule it broke */
	refused(s, "runs.csv:2:9:", "from 1 to 4096, got '99999'");
	free(s);
	s = table(header, "r1,A100,1.5,Qwen3-8B,8.19,32,362\n");
	refused(s, "runs.csv:2:9:", "tp must be a whole number");
	free(s);
	s = table(header, "r1,A100,1,Qwen3-8B,0,32,362\n");
	refused(s, "runs.csv:2:20:", "column 'active_params_b': active params must be > 0, got '0'");
	free(s);
	s = table(header, "r1,A100,1,Qwen3-8B,-3,32,362\n");
	refused(s, "runs.csv:2:20:", "active params must be > 0");
	free(s);
	s = table(header, "r1,A100,1,Qwen3-8B,8,32,\n");
	refused(s, "runs.csv:2:", "column 'mean_power_w': value is required");
	free(s);
	s = table(header, "r1,A100,1,Qwen3-8B,8,32,300,extra\n");
	refused(s, "runs.csv:2:29:", "expected 7 fields as in the header, got 8"); /* the extra field */
	free(s);
	s = table(header, "r1,A100,1,Qwen3-8B,8,32,300\nr1,A100,1,Qwen3-8B,8,64,320\n");
	refused(s, "runs.csv:3:1:", "duplicate run_id 'r1' (first on line 2)");
	free(s);
	s = table(header, "r1,A100,1,Qwen3-8B,8,,300\n");
	refused(s, "runs.csv:2:1:", "one of 'running' and 'n_series' is required");
	free(s);
	/* A locked clock the board cannot run at (a typo, 99999 for 1999) is
	 * refused at its cell, as predict refuses it; a level named after its
	 * board (H100-locked) is checked against that board. */
	s = table("run_id,platform,tp,model,active_params_b,running,mean_power_w,sm_clock_mhz",
	          "r1,H100,1,Qwen3-8B,8,32,300,1500\nr2,H100-locked,1,Qwen3-8B,8,32,300,99999\n");
	refused(s, "runs.csv:3:", "column 'sm_clock_mhz': must be within the H100's clock range 345-1980 MHz (platform catalog), got '99999'");
	free(s);
	/* A catalog model's size may be left out (column or cell); another
	 * model's may not. */
	{
		const char *t1 = "run_id,platform,tp,model,running,mean_power_w\nr1,H100,1,Qwen/Qwen3-8B,32,500\n";
		wc_runs_table *t = NULL;
		CHECK_INT(wc_runs_read_buffer(t1, strlen(t1), "runs.csv", &t, &err), WC_OK);
		CHECK(t && t->n_runs == 1 && fabs(t->runs[0].active_params_b - 8.19) < 1e-9);
		wc_runs_free(t);
	}
	/* A board's platform is stored as the catalog spells it, so nvidia-smi's
	 * product name and a lower-case name are one level; another name is kept. */
	{
		const char *t1 = "run_id,platform,tp,model,running,mean_power_w\nr1,NVIDIA L40S,1,Qwen3-8B,32,300\n"
		                 "r2,l40s,1,Qwen3-8B,8,250\nr3,RTX6000Ada,1,Qwen3-8B,8,250\n";
		wc_runs_table *t = NULL;
		CHECK_INT(wc_runs_read_buffer(t1, strlen(t1), "runs.csv", &t, &err), WC_OK);
		CHECK(t && t->n_runs == 3 && strcmp(t->runs[0].platform, "L40S") == 0 &&
		      strcmp(t->runs[1].platform, "L40S") == 0 && strcmp(t->runs[2].platform, "RTX6000Ada") == 0);
		wc_runs_free(t);
	}
	refused("run_id,platform,tp,model,running,mean_power_w\nr1,H100,1,my-model,32,500\n", "runs.csv:2:1:",
	        "column 'active_params_b': value is required (model 'my-model' is not in the catalog)");
	s = table(header, "r1,A100,1,my-model,,32,362\n");
	refused(s, "runs.csv:2:20:", "value is required (model 'my-model' is not in the catalog)");
	free(s);
	/* A load or power no run measures (models/limits.h) is a typo or a
	 * unit slip, refused at its cell: 1e300 W calibrated a shift of 9.4. */
	s = table(header, "r1,A100,1,Qwen3-8B,8,1e300,300\n");
	refused(s, "runs.csv:2:22:", "column 'running': must be at most 1e+06 requests at once, got '1e300'");
	free(s);
	s = table(header, "r1,A100,1,Qwen3-8B,8,32,1e300\n");
	refused(s, "runs.csv:2:25:", "column 'mean_power_w': must be at most 5000 W (5000 W per GPU of its tp 1");
	free(s);
	s = table(header, "r1,A100,1,my-model,1e-9,8,300\n");
	refused(s, "runs.csv:2:", "column 'active_params_b': must be between 0.0001 and 100000 B, got '1e-9'");
	free(s);
	s = table("run_id,platform,mean_power_w,tp,model,active_params_b,running", "r1,A100,12000,2,Qwen3-8B,8,32\n");
	refused(s, "runs.csv:2:9:", "must be at most 10000 W (5000 W per GPU of its tp 2, above any GPU board)");
	free(s);
	s = table("run_id,platform,tp,model,active_params_b,running,mean_power_w,idle_power_w",
	          "r1,A100,1,Qwen3-8B,8,32,300,6000\n");
	refused(s, "runs.csv:2:", "column 'idle_power_w': must be at most 5000 W per GPU (above any GPU board)");
	free(s);
	/* A throughput or a timing the capacity fit reads that no run measures:
	 * -5 tok/s was dropped while the fit said "0 skipped", 1e300 fitted. */
	{
		const char *hc = "run_id,platform,tp,model,running,mean_power_w,output_tokens,throughput_tok_s,"
		                 "median_itl_ms,ttft_s";
		s = table(hc, "r1,H100,1,Qwen3-8B,8,400,300,-5,20,\n");
		refused(s, "runs.csv:2:30:", "column 'throughput_tok_s': must be >= 0 and at most 1e+07 tokens/s");
		free(s);
		s = table(hc, "r1,H100,1,Qwen3-8B,8,400,300,1e300,20,\n");
		refused(s, "runs.csv:2:30:", "column 'throughput_tok_s': must be >= 0 and at most 1e+07 tokens/s");
		free(s);
		s = table(hc, "r1,H100,1,Qwen3-8B,8,400,300,900,abc,\n");
		refused(s, "runs.csv:2:34:", "column 'median_itl_ms': expected a number, got 'abc'");
		free(s);
		s = table(hc, "r1,H100,1,Qwen3-8B,8,400,300,900,-20,\n");
		refused(s, "runs.csv:2:34:", "column 'median_itl_ms': must be >= 0 and at most 8.64e+07 (a day), got '-20'");
		free(s);
		s = table(hc, "r1,H100,1,Qwen3-8B,8,400,300,900,1e300,\n");
		refused(s, "runs.csv:2:34:", "column 'median_itl_ms': must be >= 0 and at most 8.64e+07");
		free(s);
		s = table(hc, "r1,H100,1,Qwen3-8B,8,400,300,900,20,86401\n");
		refused(s, "runs.csv:2:37:", "column 'ttft_s': must be >= 0 and at most 86400 (a day), got '86401'");
		free(s);
		s = table(hc, "r1,H100,1,Qwen3-8B,8,400,300,10000000,,86400\nr2,H100,1,Qwen3-8B,0,90,,0,0,\n");
		CHECK_INT(wc_runs_read_buffer(s, strlen(s), "runs.csv", &t0, &err), WC_OK); /* at the bounds */
		wc_runs_free(t0);
		free(s);
	}
	/* A measured energy per token no token costs: -5.1 J was left out of
	 * `fit request-energy` without a word, 1e300 J fitted and scored as
	 * measured (models/limits.h, WC_RUN_MAX_ENERGY_PER_TOKEN_J_PER_GPU). */
	{
		const char *he = "run_id,platform,tp,model,running,mean_power_w,output_tokens,energy_per_token_j";
		const char *why = "column 'energy_per_token_j': must be > 0 and at most 4.32e+08 J (5000 W per GPU "
		                  "of its tp 1 for a day, 86400 s, on one token), got '";
		s = table(he, "r1,A100,1,Qwen3-8B,8,300,128,-5.0977\n");
		refused(s, "runs.csv:2:30:", why);
		free(s);
		s = table(he, "r1,A100,1,Qwen3-8B,8,300,128,0\n");
		refused(s, "runs.csv:2:30:", "got '0'");
		free(s);
		s = table(he, "r1,A100,1,Qwen3-8B,8,300,128,1e300\n");
		refused(s, "runs.csv:2:30:", why);
		free(s);
		/* the group's bound: tp GPUs for the day */
		s = table(he, "r1,A100,2,Qwen3-8B,8,300,128,8.65e8\n");
		refused(s, "runs.csv:2:30:", "at most 8.64e+08 J (5000 W per GPU of its tp 2");
		free(s);
		s = table(he, "r1,A100,2,Qwen3-8B,8,300,128,8.64e8\nr2,A100,1,Qwen3-8B,8,300,128,1e-9\n"
		              "r3,A100,1,Qwen3-8B,8,300,128,\n");
		CHECK_INT(wc_runs_read_buffer(s, strlen(s), "runs.csv", &t0, &err), WC_OK); /* at the bounds, blank */
		wc_runs_free(t0);
		free(s);
	}
	s = table("run_id,platform,tp,model,active_params_b,running,mean_power_w",
	          "r1,A100,8,Qwen3-8B,8,1000000,39000\n");
	CHECK_INT(wc_runs_read_buffer(s, strlen(s), "runs.csv", &t0, &err), WC_OK); /* at the bounds */
	wc_runs_free(t0);
	free(s);
	s = table(header, "r1,A100,1,\"Qwen3-8B,8,32,300\n");
	refused(s, "runs.csv:2:11:", "unterminated quoted field");
	free(s);
	s = table("run_id,platform,tp,model,active_params_b,running,mean_power_w,weights",
	          "r1,A100,1,m,8,32,300,fp4\n");
	refused(s, "runs.csv:2:", "column 'weights': expected bf16, fp8 or int4, got 'fp4'");
	free(s);
	refused("", "runs.csv:1:1:", "no header row");
	refused("run_id,tp,tp\n", "runs.csv:1:11:", "duplicate column 'tp'");

	/* A good table: comments, CRLF, quotes, blanks, extras, series file. */
	char *dir = test_tmpdir("runs_table");
	char *series_path = path_join(dir, "r3.series.csv");
	CHECK(write_text(series_path, "t_s,running\r\n0,0\r\n0.5,4\r\n1.0,4\r\n1.5,2\r\n") == 0);
	char *runs_path = path_join(dir, "runs.csv");
	CHECK(write_text(runs_path,
	                 "# synthetic\r\n"
	                 "run_id,platform,tp,model,active_params_b,running,n_series,mean_power_w,"
	                 "idle_power_w,weights,kv_cache,sm_clock_mhz,set,note\r\n"
	                 "r1,A100,1,Qwen3-8B,8.19,32,,362.5,72.9,,,,fit,\"a, quoted \"\"note\"\"\"\r\n"
	                 "r2,H100-locked,2,\"Qwen3-14B\",14.8,16,,700,,fp8,fp8,1410,,\r\n"
	                 "r3,H200,1,Qwen3-8B,8.19,,r3.series.csv,300,,,,,poisson,x\r\n") == 0);
	wc_runs_table *t = NULL;
	CHECK_INT(wc_runs_read(runs_path, &t, &err), WC_OK);
	if (!t) {
		fprintf(stderr, "%s\n", err.msg);
		return check_report("test_runs_table");
	}
	CHECK_INT(t->n_runs, 3);
	CHECK(strcmp(t->runs[0].run_id, "r1") == 0);
	CHECK_NEAR(t->runs[0].idle_power_w, 72.9, 0);
	CHECK(isnan(t->runs[1].idle_power_w));
	CHECK_INT(t->runs[1].tp, 2);
	CHECK_INT(t->runs[1].weights, WC_PREC_FP8);
	CHECK_INT(t->runs[1].kv, WC_PREC_FP8);
	CHECK_NEAR(t->runs[1].sm_clock_mhz, 1410, 0);
	CHECK(t->runs[0].sm_clock_mhz == 0);
	CHECK(strcmp(t->runs[1].model, "Qwen3-14B") == 0);
	CHECK(strcmp(t->runs[0].set, "fit") == 0);
	CHECK_INT(t->runs[2].line, 5);
	/* Where a cell is, for checks after the reader (a calibration's). */
	char at[600];
	CHECK_INT(wc_runs_cell_at(t, &t->runs[1], "mean_power_w", at, sizeof at), 1);
	CHECK(strstr(at, "runs.csv:4:39: column 'mean_power_w'") != NULL);
	CHECK_INT(wc_runs_cell_at(t, &t->runs[2], "exclude", at, sizeof at), 0); /* no such column */
	CHECK(at[0] == '\0');
	CHECK_INT(t->extra.n, 1);
	CHECK(strcmp(wc_runs_get_extra(t, 0, "note"), "a, quoted \"note\"") == 0);
	CHECK(wc_runs_get_extra(t, 0, "missing") == NULL);
	/* series: 0 for 0.5 s, 4 for 1.0 s, 2 for the median step 0.5 s */
	CHECK_INT(t->runs[2].series.len, 3);
	CHECK_NEAR(t->runs[2].series.running[0], 0, 0);
	CHECK_NEAR(t->runs[2].series.weight[0], 0.5, 1e-12);
	CHECK_NEAR(t->runs[2].series.running[1], 2, 0);
	CHECK_NEAR(t->runs[2].series.weight[1], 0.5, 1e-12);
	CHECK_NEAR(t->runs[2].series.running[2], 4, 0);
	CHECK_NEAR(t->runs[2].series.weight[2], 1.0, 1e-12);

	/* Round trip through the writer. */
	CHECK_INT(wc_runs_set_extra(t, 1, "score", "0.5", &err), WC_OK);
	CHECK(wc_runs_set_extra(t, 1, "tp", "3", &err) != WC_OK);
	char *copy_path = path_join(dir, "copy.csv");
	CHECK_INT(wc_runs_write(copy_path, t, "rewritten\nby the test", &err), WC_OK);
	wc_runs_table *u = NULL;
	CHECK_INT(wc_runs_read(copy_path, &u, &err), WC_OK);
	if (u) {
		CHECK_INT(u->n_runs, 3);
		for (size_t i = 0; i < 3; i++) {
			CHECK(strcmp(u->runs[i].run_id, t->runs[i].run_id) == 0);
			CHECK(u->runs[i].tp == t->runs[i].tp);
			CHECK(u->runs[i].mean_power_w == t->runs[i].mean_power_w);
			CHECK(u->runs[i].weights == t->runs[i].weights);
			CHECK(u->runs[i].sm_clock_mhz == t->runs[i].sm_clock_mhz);
			CHECK(u->runs[i].series.len == t->runs[i].series.len);
		}
		CHECK(strcmp(wc_runs_get_extra(u, 0, "note"), "a, quoted \"note\"") == 0);
		CHECK(strcmp(wc_runs_get_extra(u, 1, "score"), "0.5") == 0);
		CHECK(strcmp(wc_runs_get_extra(u, 0, "score"), "") == 0);
		wc_runs_free(u);
	}

	/* Series file errors carry both files' positions. */
	CHECK(write_text(series_path, "t_s,running\n0,0\n0.5,-1\n") == 0);
	wc_runs_free(t);
	t = NULL;
	CHECK(wc_runs_read(runs_path, &t, &err) != WC_OK);
	CHECK_CONTAINS(err.msg, "runs.csv:5:");
	CHECK_CONTAINS(err.msg, "r3.series.csv:3:");
	CHECK_CONTAINS(err.msg, "running must be a number 0 to 1e+06, got -1");
	free(series_path);
	free(runs_path);
	free(copy_path);
	free(dir);
	return check_report("test_runs_table");
}
