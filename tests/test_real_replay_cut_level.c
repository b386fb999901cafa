/*
 * The real A100 4 req/s run of ../shared/data/real/powertrace-sim (label
 * realdata) replayed with its load level stated to end 2 s after its
 * power log (a cut level, docs/envelopes.md, "Replaying a measured run"): its
 * stated 200 requests times the share of its stated span inside the
 * window, 194, whether the engine counts prompt tokens or not -- one
 * rule -- said in a warning, the output tokens the stated mean per
 * request. With prompt_tokens_total it replayed 202 arrivals and 43 099
 * output tokens, more than the 200 and 42 672 the level completed: the
 * engine's prompt tokens over the client's mean prompt count the template
 * tokens the server adds to each prompt as requests. The whole level
 * replays its 200 and 42 672.
 */
#include "data/data.h"
#include "tests/support/support.h"
#include "trace/replay.h"
#include "trace/trace.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *const files[] = { "power.csv", "engine.csv", "manifest.json" };
static char *text[3];

/* A copy of the run in root/name with `engine` and `manifest`. */
static char *
copy_run(const char *root, const char *name, const char *engine, const char *manifest)
{
	char *run = path_join(root, name);
	mkdir(run, 0755);
	for (int k = 0; k < 3; k++) {
		char *p = path_join(run, files[k]);
		CHECK_INT(write_text(p, k == 1 ? engine : k == 2 ? manifest : text[k]), 0);
		free(p);
	}
	return run;
}

/* `s` with the first `from` replaced by `to` (a copy). */
static char *
replaced(const char *s, const char *from, const char *to)
{
	const char *at = strstr(s, from);
	CHECK(at != NULL);
	if (!at)
		return strdup(s);
	size_t n = strlen(s) - strlen(from) + strlen(to) + 1, head = (size_t)(at - s);
	char *out = malloc(n);
	snprintf(out, n, "%.*s%s%s", (int)head, s, to, at + strlen(from));
	return out;
}

/* engine.csv without its prompt_tokens_total column (the 5th). */
static char *
without_prompts(void)
{
	size_t cap = strlen(text[1]) + 1, len = 0;
	char *out = malloc(cap), *src = strdup(text[1]), *save = NULL;
	for (char *l = strtok_r(src, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char *fs = NULL;
		int j = 0, first = 1;
		for (char *f = strtok_r(l, ",", &fs); f; f = strtok_r(NULL, ",", &fs), j++) {
			if (j == 4)
				continue;
			len += (size_t)snprintf(out + len, cap - len, "%s%s", first ? "" : ",", f);
			first = 0;
		}
		len += (size_t)snprintf(out + len, cap - len, "\n");
	}
	free(src);
	return out;
}

/* The run's one window replayed: arrivals, output tokens in all, the
 * warnings in `w`. */
static int
replay(const char *dir, size_t *arrivals, double *output, test_warnings *w)
{
	wc_ingest_options o;
	wc_error err;
	wc_trace_replay *r = NULL;
	size_t n = 0;
	wc_ingest_options_init(&o);
	o.warn = test_collect_warning;
	o.warn_payload = w;
	memset(w, 0, sizeof *w);
	int rc = wc_trace_replay_load(dir, &o, &r, &n, &err);
	CHECK_INT(rc, WC_OK);
	if (rc != WC_OK)
		fprintf(stderr, "%s\n", err.msg);
	CHECK_INT((int)n, 1);
	if (rc != WC_OK || n != 1) {
		wc_trace_replay_free(r, n);
		return 0;
	}
	*arrivals = r[0].n_arrivals;
	*output = 0;
	for (size_t i = 0; i < r[0].n_arrivals; i++)
		*output += r[0].output[i];
	wc_trace_replay_free(r, n);
	return 1;
}

int
main(void)
{
	const char *shared = test_shared_dir();
	if (!shared)
		return TEST_SKIP;
	char *src = path_join(shared, "data/real/powertrace-sim/validate_qwen3-8b_a100/"
	                              "a100_validate_tp1_r4p0_b1p0_s20260712_1784415439");
	char *root = test_tmpdir("real_replay_cut_level");
	if (!test_read_texts(src, files, 3, text))
		return check_report("test_real_replay_cut_level");
	test_warnings w;
	size_t arrivals = 0;
	double output = 0;
	/* the whole level: its completed requests and output tokens */
	if (replay(src, &arrivals, &output, &w)) {
		CHECK_INT((int)arrivals, 200);
		CHECK_NEAR(output, 42672, 0);
	}
	char *cut = replaced(text[2], "\"t_end_epoch\": 1784415520.6581297", "\"t_end_epoch\": 1784415522.474");
	char *bare = without_prompts();
	static const char *const said = ": load level 0 cut: 194 arrivals replayed, its stated 200 requests times "
	                                "the 74.9 of its 77.0 s inside the window; the load gauge shows ";
	for (int k = 0; k < 2; k++) {
		char *run = copy_run(root, k ? "cut_no_prompts" : "cut", k ? bare : text[1], cut);
		if (replay(run, &arrivals, &output, &w)) {
			/* 200 x 74.9 / 77.0, never more than the level completed */
			CHECK_INT((int)arrivals, 194);
			CHECK_NEAR(output, round(194 * 42672 / 200.0), 0);
			CHECK_CONTAINS(w.text, said);
			if (arrivals != 194)
				fprintf(stderr, "%s: %zu arrivals, %.0f output tokens\n", run, arrivals, output);
		}
		free(run);
	}
	free(cut);
	free(bare);
	for (int k = 0; k < 3; k++)
		free(text[k]);
	free(src);
	free(root);
	return check_report("test_real_replay_cut_level");
}
