/*
 * Refusals of a run folder, an output's folder, a target word and an
 * --n-series file under a folder of about 300 bytes, ASCII and CJK. The
 * run folder's errors printed "%s: reason" with the folder first, and
 * the folder alone filled the 255 bytes ("wattcast ingest: /tmp/...aaa"):
 * no "not a folder", no "no run folder". -o into a folder that does not
 * exist quoted the folder and the file whole (708 bytes); "fit PATH"
 * quoted the path whole (429 bytes); envelope's --n-series did not take
 * its flag's 12 bytes off the path's room (266 bytes); a runs table's
 * n_series refusal lost the table's folder and the series' reason, and
 * -o naming its input quoted the path twice. Each now quotes
 * the path once by the one rule (docs/architecture.md, "Errors"): the
 * message within 255 bytes, the head of the path kept, the reason whole.
 */
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static char deep[1024];
static size_t head = 24; /* bytes of the folder's head a refusal keeps */

/* Run argv; its refusal after "wattcast CMD: " is within 255 bytes,
 * starts with `flag` then the folder's head, holds "..." and ends with
 * `want`. */
static void
refused(const char *const *argv, const char *cmd, const char *flag, const char *want)
{
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK(r.status != 0);
	char prefix[128];
	snprintf(prefix, sizeof prefix, "wattcast %s: ", cmd);
	const char *l = r.err ? strstr(r.err, prefix) : NULL;
	CHECK(l != NULL);
	if (l) {
		const char *msg = l + strlen(prefix);
		size_t n = strcspn(msg, "\n"), w = strlen(want), k = strlen(flag);
		char one[2048];
		snprintf(one, sizeof one, "%.*s", (int)n, msg);
		int ok = n <= 255 && n >= w && memcmp(one + n - w, want, w) == 0 && strncmp(one, flag, k) == 0 &&
		         strncmp(one + k, deep, head) == 0 && strstr(one, "...") != NULL;
		CHECK(ok);
		if (!ok)
			fprintf(stderr, "%zu bytes: %s\n  want the end: %s\n", n, one, want);
	}
	run_result_free(&r);
}

static void
under(const char *dir, const char *seg)
{
	snprintf(deep, sizeof deep, "%s", dir);
	for (int k = 0; strlen(deep) < 300; k++) {
		size_t len = strlen(deep);
		snprintf(deep + len, sizeof deep - len, "/%s%d", seg, k);
		CHECK(mkdir(deep, 0755) == 0);
	}
	char *out = path_join(dir, "x.csv"), *none = path_join(deep, "nonexist");
	char *empty = path_join(deep, "emptyrun"), *nodir = path_join(deep, "nodir/x.json");
	CHECK(mkdir(empty, 0755) == 0);

	const char *ing[] = { "wattcast", "ingest", none, "-o", out, "--quiet", NULL };
	refused(ing, "ingest", "", "/nonexist: cannot open (No such file or directory)");
	const char *emp[] = { "wattcast", "ingest", empty, "-o", out, "--quiet", NULL };
	refused(emp, "ingest", "", "/emptyrun: no run folder (one holding power.csv) in or under it");
	const char *env[] = { "wattcast", "envelope", "--platform", "A100", "--active-params", "8",
		              "--measured", none, NULL };
	refused(env, "envelope", "", "/nonexist: cannot open (No such file or directory)");

	const char *o[] = { "wattcast", "ingest", empty, "-o", nodir, "--quiet", NULL };
	refused(o, "ingest", "-o: ", "/nodir/x.json: its folder does not exist");
	char *csv = test_fixture(deep, "x.csv", "t_s,running\n0,4\n");
	const char *fit[] = { "wattcast", "fit", csv, NULL };
	refused(fit, "fit", "unknown target '", "/x.csv' (available: inference, capacity, request-energy, "
	        "finetune, response, intervals)");

	char *one = test_fixture(deep, "one.csv", "t_s,running,extra\n0,4,1\n");
	const char *ns[] = { "wattcast", "envelope", "--platform", "A100", "--active-params", "8",
		             "--n-series", one, NULL };
	refused(ns, "envelope", "--n-series: ", "/one.csv:1:1: expected two fields (t_s,running)");

	/* two paths in one message: the runs table's cell, then its series */
	char *sd = path_join(deep, "s.series");
	CHECK(mkdir(sd, 0755) == 0);
	free(test_fixture(sd, "a100_validate_tp1_r2p5_b1p0_s20260712_1784415659.csv", "t_s,running\n0,4\n"));
	char *table = test_fixture(deep, "ok.csv", "run_id,platform,tp,model,n_series,mean_power_w\n"
	                           "r1,H100,1,Qwen3-8B,s.series/a100_validate_tp1_r2p5_b1p0_s20260712_1784415659.csv,300\n");
	const char *fi[] = { "wattcast", "fit", "inference", table, "-o", out, NULL };
	refused(fi, "fit inference", "", "/ok.csv:2:20: column 'n_series': s.series/a100_validate_tp1_r2p5_b1p0_"
	        "s20260712_1784415659.csv:2:1: needs at least two samples; a lone sample has no step to hold for");

	/* -o naming an input: the path once when it is named as it was read */
	char *run = path_join(deep, "run"), log[8192] = "timestamp, index, power.draw [W]\n";
	CHECK(mkdir(run, 0755) == 0);
	for (int i = 0; i < 200; i++) {
		size_t len = strlen(log);
		snprintf(log + len, sizeof log - len, "2026/07/18 15:%02d:%02d.%03d, 0, %.2f W\n", 57 + (25 + i / 10) / 60,
		         (25 + i / 10) % 60, 100 * (i % 10), i > 40 && i < 160 ? 300.0 : 100.0);
	}
	char *power = test_fixture(run, "power.csv", log);
	const char *self[] = { "wattcast", "ingest", run, "-o", power, "--power-only", "--platform", "H100", "--model",
		               "Qwen/Qwen3-8B", "--tp", "1", "--utc-offset", "0", "--quiet", NULL };
	refused(self, "ingest", "", "/run/power.csv: is a file this command read; writing it would destroy that "
	        "input (give another output file)");

	/* a fine-tuning run's step analysis: the folder by the rule too (it
	 * kept only the folder's last name, a rule of its own) */
	char *ft = path_join(deep, "ft"), flat[8192] = "timestamp, index, power.draw [W]\n";
	CHECK(mkdir(ft, 0755) == 0);
	for (int i = 0; i < 100; i++) {
		size_t len = strlen(flat);
		snprintf(flat + len, sizeof flat - len, "2026/07/18 15:57:%02d.%03d, 0, 300.5\n", i / 4, 250 * (i % 4));
	}
	free(test_fixture(ft, "power.csv", flat));
	free(test_fixture(ft, "wattcast-run.json", "{\"schema\": \"wattcast.run/3\", \"platform\": \"H100\", "
	                  "\"model\": \"Llama-3.1-8B\", \"utc_offset_s\": 0, \"finetune\": {\"method\": \"qlora\", "
	                  "\"micro_batch\": 8, \"seq_len\": 1024, \"grad_accum\": 4, \"lora_rank\": 64, "
	                  "\"checkpointing\": false}}\n"));
	const char *fti[] = { "wattcast", "ingest", ft, "-o", out, NULL };
	head = 8; /* a long reason beside the run's folder leaves the head little room */
	refused(fti, "ingest", "", "/ft: no step period in the trace (no autocorrelation peak in "
	        "0.5-120 s over 25 s of training); give a step log (steps.csv or trainer_state.json) or finetune.steps "
	        "in wattcast-run.json");
	head = 24;
	char *test_free_list[] = { sd, table, run, power, ft };
	for (size_t i = 0; i < 5; i++)
		free(test_free_list[i]);
	free(out);
	free(none);
	free(empty);
	free(nodir);
	free(csv);
	free(one);
}

int
main(void)
{
	char *dir = test_tmpdir("cli_deep_run_folder");
	char *a = path_join(dir, "a"), *c = path_join(dir, "c");
	CHECK(mkdir(a, 0755) == 0 && mkdir(c, 0755) == 0);
	under(a, "folder_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
	under(c, "\xe6\xa8\xa1\xe5\x9e\x8b\xe5\x8a\x9f\xe7\x8e\x87\xe6\xb5\x8b\xe9\x87\x8f"
	         "\xe6\xa8\xa1\xe5\x9e\x8b\xe5\x8a\x9f\xe7\x8e\x87\xe6\xb5\x8b\xe9\x87\x8f"); /* 模型功率测量 twice */
	free(a);
	free(c);
	free(dir);
	return check_report("test_cli_deep_run_folder");
}
