/*
 * engine.csv with one column per data-parallel engine (vLLM's `engine`,
 * SGLang's `dp_rank` label) where one engine restarts
 * (docs/formats/telemetry.md, "engine.csv"). The engines' counters were
 * added up before restarts were looked for, so the other engine's growth
 * kept the sum above the row after the restarted engine's drop, and the
 * drop was read as a glitch: every row until the sum caught up was
 * skipped (a real A100 run split in two engines: 73 of 368 lines bad,
 * refused; with --max-bad, 167.83 instead of 213.44 output tokens, +27 %
 * energy per token). Each engine's counter is now judged on its own and
 * the engines are added up after: the totals equal the no-restart log's.
 */
#include "data/data.h"
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROWS 30
#define RESTART 15 /* engine 1 restarts between rows 14 and 15 */

/* ROWS rows a second apart: engine 0 generates 100 tokens/s, engine 1
 * 60. restart: 0 none, 1 engine 1 alone, 2 both (a server restart); a
 * restarted counter holds what it counted since. glitch: a row (> 0)
 * where engine 1's counter reads 0 once. Each engine has a column of its
 * own labelled `label`="0" / "1"; with `ranks`, one per tensor-parallel
 * rank too (SGLang's dp_rank x tp_rank grid: one count repeated). */
static char *
write_log(const char *dir, const char *name, const char *label, int ranks, int restart, int glitch)
{
	char text[16384] = "timestamp";
	for (int en = 0; en < 2; en++)
		for (int rank = 0; rank <= ranks; rank++) {
			char tp[32] = "";
			if (ranks)
				snprintf(tp, sizeof tp, ",tp_rank=\"\"%d\"\"", rank);
			size_t len = strlen(text);
			snprintf(text + len, sizeof text - len, ",\"vllm:num_requests_running{%s=\"\"%d\"\",model_name="
			         "\"\"m\"\"%s}\",\"vllm:generation_tokens_total{%s=\"\"%d\"\",model_name=\"\"m\"\"%s}\"",
			         label, en, tp, label, en, tp);
		}
	strcat(text, "\n");
	for (int k = 0; k < ROWS; k++) {
		int k0 = restart == 2 && k >= RESTART ? k - RESTART + 1 : k;
		int k1 = restart >= 1 && k >= RESTART ? k - RESTART + 1 : k;
		size_t len = strlen(text);
		snprintf(text + len, sizeof text - len, "%d", 1000 + k);
		for (int en = 0; en < 2; en++)
			for (int rank = 0; rank <= ranks; rank++) {
				len = strlen(text);
				snprintf(text + len, sizeof text - len, ",%d,%d", 3 - en, en == 0 ? 100 * k0 :
				         k == glitch ? 0 : 60 * k1);
			}
		strcat(text, "\n");
	}
	char *p = path_join(dir, name);
	CHECK(write_text(p, text) == 0);
	return p;
}

static wc_engine_log *
read_log(const char *path, test_warnings *w)
{
	wc_telemetry_options opt = WC_TELEMETRY_OPTIONS_INIT;
	wc_engine_log *e = NULL;
	wc_error err;
	memset(w, 0, sizeof *w);
	opt.warn = test_collect_warning;
	opt.warn_payload = w;
	opt.max_bad_option = "--max-bad";
	int rc = wc_engine_read(path, &opt, 0, &e, &err);
	CHECK_INT(rc, WC_OK);
	if (rc != WC_OK)
		fprintf(stderr, "  %s\n", err.msg);
	return e;
}

/* Tokens the two engines generated from the first row to the last:
 * (100 + 60) x 29 when none is lost. */
static double
generated(const wc_engine_log *e)
{
	return wc_engine_value_at(e, WC_ENG_GENERATION_TOKENS, 1000.0 + ROWS - 1) -
	       wc_engine_value_at(e, WC_ENG_GENERATION_TOKENS, 1000.0);
}

static void
one_engine_restarts(const char *dir, const char *name, const char *label, int ranks)
{
	test_warnings w;
	char *p = write_log(dir, name, label, ranks, 1, -1), want[1200];
	wc_engine_log *e = read_log(p, &w);
	if (e) {
		CHECK_INT(e->n, ROWS);
		CHECK_INT(e->bad_lines, 0);
		CHECK_NEAR(generated(e), 160.0 * (ROWS - 1), 1e-9);
		CHECK_NEAR(wc_engine_value_at(e, WC_ENG_RUNNING, 1020.0), 5.0, 1e-12);
	}
	snprintf(want, sizeof want, "%s:%d: generation_tokens_total{%s=\"1\"} fell from %d to 60 and stayed "
	         "down: read as a restart of that engine alone, counted on", p, RESTART + 2, label, 60 * (RESTART - 1));
	CHECK_CONTAINS(w.text, want);
	CHECK(strstr(w.text, "glitch") == NULL);
	CHECK_INT(w.count, 1);
	wc_engine_free(e);
	free(p);
}

int
main(void)
{
	char *dir = test_tmpdir("engine_engine_restart");
	test_warnings w;
	char *p, want[1200];
	wc_engine_log *e;

	/* The same log without a restart: the totals to meet. */
	p = write_log(dir, "none.csv", "engine", 0, 0, -1);
	e = read_log(p, &w);
	if (e)
		CHECK_NEAR(generated(e), 160.0 * (ROWS - 1), 1e-9);
	CHECK_INT(w.count, 0);
	wc_engine_free(e);
	free(p);

	one_engine_restarts(dir, "vllm.csv", "engine", 0);
	one_engine_restarts(dir, "sglang.csv", "dp_rank", 0);
	one_engine_restarts(dir, "sglang_grid.csv", "dp_rank", 1);

	/* Both engines at once: a server restart, counted on in each. */
	p = write_log(dir, "server.csv", "engine", 0, 2, -1);
	e = read_log(p, &w);
	if (e) {
		CHECK_INT(e->bad_lines, 0);
		CHECK_NEAR(generated(e), 160.0 * (ROWS - 1), 1e-9);
	}
	snprintf(want, sizeof want, "%s:%d: generation_tokens_total{engine=\"0\"} fell from %d to 100 (and 1 more "
	         "counter) and stayed down: read as a server restart", p, RESTART + 2, 100 * (RESTART - 1));
	CHECK_CONTAINS(w.text, want);
	CHECK_INT(w.count, 1);
	wc_engine_free(e);
	free(p);

	/* One engine's counter reading 0 for one row is still a glitch,
	 * named with its engine; the row is skipped. */
	p = write_log(dir, "glitch.csv", "engine", 0, 0, 20);
	{
		wc_telemetry_options opt = WC_TELEMETRY_OPTIONS_INIT;
		wc_error err;
		memset(&w, 0, sizeof w);
		opt.warn = test_collect_warning;
		opt.warn_payload = &w;
		opt.max_bad_fraction = 0.1;
		e = NULL;
		CHECK_INT(wc_engine_read(p, &opt, 0, &e, &err), WC_OK);
	}
	if (e) {
		CHECK_INT(e->n, ROWS - 1);
		CHECK_INT(e->bad_lines, 1);
		CHECK_NEAR(generated(e), 160.0 * (ROWS - 1), 1e-9);
	}
	snprintf(want, sizeof want, "%s:22: generation_tokens_total{engine=\"1\"} = 0 against 1140 on the lines "
	         "around it: a glitch, not a restart; row skipped", p);
	CHECK_CONTAINS(w.text, want);
	wc_engine_free(e);
	free(p);

	free(dir);
	return check_report("test_engine_engine_restart");
}
