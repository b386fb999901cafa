/*
 * engine.csv columns named as the Prometheus series, label block and all
 * (docs/formats/telemetry.md, "engine.csv"): a scraper that copies the
 * exposition's names writes `vllm:num_requests_running{engine="0",...}`,
 * unquoted (its commas then split the name over several fields) or
 * CSV-quoted. Such columns were not recognised: unquoted, every data line
 * had "too few fields" and the file was refused with a hint to allow more
 * bad lines; quoted or with one label, the run had no n(t). The metric is
 * now matched by its name. A header whose field count no data line shares
 * is named as the problem, in one error without the --max-bad hint.
 */
#include "data/data.h"
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A header line and ten rows a second apart (running k % 3, tokens 10 k). */
static char *
write_log(const char *dir, const char *name, const char *header)
{
	char body[4096];
	snprintf(body, sizeof body, "%s\n", header);
	for (int k = 0; k < 10; k++) {
		size_t len = strlen(body);
		snprintf(body + len, sizeof body - len, "%d,%d,%d\n", 1000 + k, k % 3, 10 * k);
	}
	return test_fixture(dir, name, body);
}

static int
read_log(const char *path, wc_engine_log **e, test_warnings *w, wc_error *err)
{
	wc_telemetry_options opt = WC_TELEMETRY_OPTIONS_INIT;
	opt.max_bad_option = "--max-bad";
	memset(w, 0, sizeof *w);
	opt.warn = test_collect_warning;
	opt.warn_payload = w;
	return wc_engine_read(path, &opt, 0, e, err);
}

static void
labelled(const char *dir, const char *name, const char *header)
{
	wc_engine_log *e = NULL;
	test_warnings w;
	wc_error err;
	char *p = write_log(dir, name, header);
	CHECK_INT(read_log(p, &e, &w, &err), WC_OK);
	CHECK(e && e->col[WC_ENG_RUNNING] && e->col[WC_ENG_GENERATION_TOKENS]);
	if (e && e->col[WC_ENG_RUNNING] && e->col[WC_ENG_GENERATION_TOKENS]) {
		CHECK_INT(e->n, 10);
		CHECK_INT(e->bad_lines, 0);
		CHECK_NEAR(wc_engine_value_at(e, WC_ENG_RUNNING, 1004.0), 1.0, 1e-12);
		CHECK_NEAR(wc_engine_value_at(e, WC_ENG_GENERATION_TOKENS, 1007.0), 70.0, 1e-12);
	}
	CHECK_INT(w.count, 0);
	wc_engine_free(e);
	free(p);
}

int
main(void)
{
	char *dir = test_tmpdir("engine_labels");
	wc_engine_log *e = NULL;
	test_warnings w;
	wc_error err;

	labelled(dir, "vllm_unquoted.csv",
	         "timestamp,vllm:num_requests_running{engine=\"0\",model_name=\"m/Phi-3\"},"
	         "vllm:generation_tokens_total{engine=\"0\",model_name=\"m/Phi-3\"}");
	labelled(dir, "vllm_quoted.csv",
	         "timestamp,\"vllm:num_requests_running{engine=\"\"0\"\",model_name=\"\"m/Phi-3\"\"}\","
	         "\"vllm:generation_tokens_total{engine=\"\"0\"\",model_name=\"\"m/Phi-3\"\"}\"");
	labelled(dir, "vllm_one_label.csv",
	         "timestamp,vllm:num_requests_running{engine=\"0\"},vllm:generation_tokens_total{engine=\"0\"}");
	labelled(dir, "sglang_unquoted.csv",
	         "timestamp,sglang:num_running_reqs{model_name=\"m/Llama\",tp_rank=\"0\"},"
	         "sglang:generation_tokens_total{model_name=\"m/Llama\",tp_rank=\"0\"}");

	/* A label block never closed: the header is refused, naming it. */
	char *p = write_log(dir, "unclosed.csv", "timestamp,vllm:num_requests_running{engine=\"0\",x=\"1\"");
	CHECK_INT(read_log(p, &e, &w, &err), WC_EPARSE);
	CHECK_CONTAINS(err.msg, ":1:11: header: the label block of 'vllm:num_requests_running{engine=\"0\"' "
	               "is not closed");
	free(p);

	/* A header with a field no data line has: the header is named, once. */
	p = write_log(dir, "wrong_header.csv", "timestamp,num_requests_running,generation_tokens_total,x");
	CHECK_INT(read_log(p, &e, &w, &err), WC_EPARSE);
	CHECK(e == NULL);
	CHECK_CONTAINS(err.msg, "wrong_header.csv:1: the header has 4 fields, every data line 3 (10 lines): "
	               "the header is wrong");
	/* data lines in a locale's ';' are what is wrong, not the header */
	free(p);
	p = write_log(dir, "semicolons.csv", "timestamp,num_requests_running,generation_tokens_total");
	FILE *fp = fopen(p, "w");
	fputs("timestamp,num_requests_running,generation_tokens_total\n1.0;1;10\n2.0;1;20\n3.0;2;30\n", fp);
	fclose(fp);
	CHECK_INT(read_log(p, &e, &w, &err), WC_EPARSE);
	CHECK_CONTAINS(err.msg, "semicolons.csv:2: the data lines are separated by ';', the header by ','");
	CHECK(strstr(err.msg, "--max-bad") == NULL);
	CHECK_INT(w.count, 0);
	CHECK(strlen(err.msg) <= 255);
	free(p);

	/* Lines of the wrong count before the first good one: one warning
	 * for them, and the share of bad lines still applies. */
	char body[4096] = "timestamp,num_requests_running,generation_tokens_total\n";
	for (int k = 0; k < 10; k++) {
		size_t len = strlen(body);
		snprintf(body + len, sizeof body - len, k < 2 ? "%d,%d\n" : "%d,%d,5\n", 1000 + k, k);
	}
	p = test_fixture(dir, "two_short.csv", body);
	CHECK_INT(read_log(p, &e, &w, &err), WC_EPARSE);
	CHECK_CONTAINS(w.text, "two_short.csv:2:7: expected 3 fields, found 2 (to line 3)");
	CHECK_INT(w.count, 1);
	CHECK_CONTAINS(err.msg, "allow more with --max-bad FRACTION: 2 of 10 data lines");
	free(p);

	/* Every line bad, for other reasons: no hint to allow more. */
	p = test_fixture(dir, "all_bad.csv", "timestamp,num_requests_running\n1,x\n2,y\n");
	CHECK_INT(read_log(p, &e, &w, &err), WC_EPARSE);
	CHECK_CONTAINS(err.msg, "fix the bad lines: 2 of 2 data lines are malformed");
	free(p);

	/* Series of one metric told apart by a label. Data-parallel engines
	 * (`engine`, `dp_rank`) each count their own requests: added up
	 * (only the first was read, silently: half the server's tokens).
	 * SGLang's tensor-parallel ranks repeat one count: the first is read.
	 * Any other label (two servers?) refuses the header, naming it. */
	const char *const two[3] = {
		"timestamp,vllm:num_requests_running{engine=\"0\"},vllm:generation_tokens_total{engine=\"0\"},"
		"vllm:num_requests_running{engine=\"1\"},vllm:generation_tokens_total{engine=\"1\"}\n",
		"timestamp,sglang:num_running_reqs{tp_rank=\"0\"},sglang:generation_tokens_total{tp_rank=\"0\"},"
		"sglang:num_running_reqs{tp_rank=\"1\"},sglang:generation_tokens_total{tp_rank=\"1\"}\n",
		"timestamp,vllm:num_requests_running{model_name=\"a\"},vllm:generation_tokens_total{model_name=\"a\"},"
		"vllm:num_requests_running{model_name=\"b\"},vllm:generation_tokens_total{model_name=\"b\"}\n" };
	for (int v = 0; v < 3; v++) {
		char text[4096];
		snprintf(text, sizeof text, "%s", two[v]);
		for (int k = 0; k < 10; k++)
			snprintf(text + strlen(text), sizeof text - strlen(text), "%d,1,%d,%d,%d\n", 1000 + k, 10 * k,
			         v == 0 ? 2 : 1, (v == 0 ? 20 : 10) * k);
		p = test_fixture(dir, v == 0 ? "engines.csv" : v == 1 ? "tp_ranks.csv" : "servers.csv", text);
		e = NULL;
		int rc = read_log(p, &e, &w, &err);
		CHECK_INT(rc, v == 2 ? WC_EPARSE : WC_OK);
		if (rc == WC_OK && e) {
			CHECK_NEAR(wc_engine_value_at(e, WC_ENG_RUNNING, 1004.0), v == 0 ? 3.0 : 1.0, 1e-12);
			CHECK_NEAR(wc_engine_value_at(e, WC_ENG_GENERATION_TOKENS, 1007.0), v == 0 ? 210.0 : 70.0, 1e-9);
		}
		if (v == 2) {
			CHECK_CONTAINS(err.msg, "servers.csv:1:98: header:");
			CHECK_CONTAINS(err.msg, "header: num_requests_running twice, its labels differing in "
			               "'model_name' (two servers?)");
			CHECK(strlen(err.msg) <= 255);
		}
		wc_engine_free(e);
		free(p);
	}

	/* A header again with the columns in another order (a logger
	 * restarted, appending): the lines after it are read by it, said at
	 * its line (they were read by the first header, silently: waiting
	 * requests as n(t), prompt tokens as generated ones). The same
	 * header again is skipped, not a bad line. */
	for (int v = 0; v < 2; v++) {
		char text[4096] = "timestamp,num_requests_running,num_requests_waiting,generation_tokens_total,"
		                  "prompt_tokens_total\n";
		for (int k = 0; k < 10; k++) {
			if (k == 5)
				snprintf(text + strlen(text), sizeof text - strlen(text), v == 0 ?
				         "timestamp,num_requests_waiting,num_requests_running,prompt_tokens_total,"
				         "generation_tokens_total\n" : "timestamp,num_requests_running,num_requests_waiting,"
				         "generation_tokens_total,prompt_tokens_total\n");
			snprintf(text + strlen(text), sizeof text - strlen(text),
			         k >= 5 && v == 0 ? "%d,0,4,%d,%d\n" : "%d,4,0,%d,%d\n", 1000 + k,
			         (k >= 5 && v == 0 ? 20 : 10) * k, (k >= 5 && v == 0 ? 10 : 20) * k);
		}
		p = test_fixture(dir, v == 0 ? "reheader.csv" : "same_header.csv", text);
		e = NULL;
		CHECK_INT(read_log(p, &e, &w, &err), WC_OK);
		if (e) {
			CHECK_INT(e->n, 10);
			CHECK_INT(e->bad_lines, 0);
			CHECK_NEAR(wc_engine_value_at(e, WC_ENG_RUNNING, 1008.0), 4.0, 1e-12);
			CHECK_NEAR(wc_engine_value_at(e, WC_ENG_GENERATION_TOKENS, 1009.0), 90.0, 1e-9);
			CHECK_NEAR(wc_engine_value_at(e, WC_ENG_PROMPT_TOKENS, 1009.0), 180.0, 1e-9);
		}
		if (v == 0) {
			char want[1200];
			snprintf(want, sizeof want, "%s:7: a header again, naming other columns or another order than "
			         "line 1's: the lines after it are read by it", p);
			CHECK_CONTAINS(w.text, want);
		}
		CHECK_INT(w.count, v == 0 ? 1 : 0);
		wc_engine_free(e);
		free(p);
	}

	/* A header again leaving out engine 1 (a logger restarted with
	 * engine 0's series alone): the sums are unknown from there on, so
	 * the log ends at the row before it, said naming the engine. Read on,
	 * engine 1 dropped to 0 running and its tokens were held flat. */
	{
		char text[4096] = "timestamp,num_requests_running{engine=\"0\"},num_requests_running{engine=\"1\"},"
		                  "generation_tokens_total{engine=\"0\"},generation_tokens_total{engine=\"1\"}\n";
		for (int k = 0; k < 10; k++) {
			if (k == 5)
				snprintf(text + strlen(text), sizeof text - strlen(text), "timestamp,"
				         "num_requests_running{engine=\"0\"},generation_tokens_total{engine=\"0\"}\n");
			if (k < 5)
				snprintf(text + strlen(text), sizeof text - strlen(text), "%d,2,2,%d,%d\n", 1000 + k,
				         10 * k, 10 * k);
			else
				snprintf(text + strlen(text), sizeof text - strlen(text), "%d,2,%d\n", 1000 + k, 10 * k);
		}
		p = test_fixture(dir, "engine_left_out.csv", text);
		e = NULL;
		CHECK_INT(read_log(p, &e, &w, &err), WC_OK);
		if (e) {
			CHECK_INT(e->n, 5);
			CHECK_INT(e->data_lines, 5);
			CHECK_NEAR(wc_engine_value_at(e, WC_ENG_RUNNING, 1004.0), 4.0, 1e-12);
			CHECK_NEAR(wc_engine_value_at(e, WC_ENG_GENERATION_TOKENS, 1004.0), 80.0, 1e-9);
		}
		char want[1200];
		snprintf(want, sizeof want, "%s:7: a header again, leaving out num_requests_running{engine=\"1\"} "
		         "(and 1 more series) that line 1's named: unknown from here on, so the log ends at line 6", p);
		CHECK_CONTAINS(w.text, want);
		CHECK_INT(w.count, 1);
		wc_engine_free(e);
		free(p);
	}

	free(dir);
	return check_report("test_engine_labels");
}
