/*
 * The real A100 4 req/s run of ../shared/data/real/powertrace-sim (label
 * realdata) with engine.csv's first rows blank or NaN, read by `wattcast
 * ingest` as the Prometheus readers read the same data
 * (docs/formats/telemetry.md, "Missing cells"). Every counter `nan` on the
 * first 20 rows (idle: series not exported yet) gives the untouched run's
 * row; it gave no throughput, energy per token, iterations or phase
 * split (with the manifest, the level's 213.36 output tokens per request
 * instead of the counter's 213.44, without a word). The same run split into
 * two data-parallel engines with one blank cell of engine 1 on the first
 * row gives it too. num_requests_running blank on the first 120 rows (30 s,
 * idle then load) is unknown there, not 0: the row starts at its first
 * value with the untouched run's n(t) there, said naming the column and
 * the span; it read 6.785 running over the whole level (8.075 true).
 * Every counter blank on the first 118 rows (30 s, load from 18.9 s)
 * started mid-run: the row starts at its first value (it read 480.38
 * tok/s, 0.52336 J/token over the whole level); the token and step
 * counters blank on every line are absent (they read 0 tok/s, 0 tokens,
 * 0 iterations), and so is the token counter of two engines one of which
 * is blank on every line (it read engine 0's half of the tokens).
 * The mirror on the last rows: generation_tokens_total blank (or `nan`)
 * on the last 58 rows (14.86 s of the drain) is unknown there, not held
 * flat: the row ends at its last value (532.10 tok/s, 0.44805 J/token
 * over 59.95 s, the untouched counter's tokens there); held flat it read
 * 426.20 tok/s and 0.58990 J/token over the whole level (-25 % tokens),
 * silently. Two engines, engine 1 without the column while its other
 * counters have theirs: the sum is unknown, as blank on every line (it
 * read engine 0's half of the tokens).
 */
#include "data/data.h"
#include "tests/support/support.h"
#include "trace/trace.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *const files[] = { "power.csv", "engine.csv", "manifest.json" };
static char *text[3];

/* Ingest `dir` into `res` (one row expected), its warnings into `w`. */
static int
ingest(const char *dir, wc_ingest_result *res, test_warnings *w)
{
	wc_ingest_options o;
	wc_error err;
	wc_ingest_options_init(&o);
	o.warn = test_collect_warning;
	o.warn_payload = w;
	memset(w, 0, sizeof *w);
	int rc = wc_ingest_run(dir, &o, res, &err);
	CHECK_INT(rc, WC_OK);
	if (rc != WC_OK)
		fprintf(stderr, "%s\n", err.msg);
	CHECK_INT(res->n_rows, 1);
	return rc == WC_OK && res->n_rows == 1;
}

/* A copy of the run in root/name with engine.csv `engine`. */
static char *
copy_run(const char *root, const char *name, const char *engine)
{
	char *run = path_join(root, name);
	mkdir(run, 0755);
	for (int k = 0; k < 3; k++) {
		char *p = path_join(run, files[k]);
		CHECK_INT(write_text(p, k == 1 ? engine : text[k]), 0);
		free(p);
	}
	return run;
}

/* engine.csv with field j of data line i (from 1) replaced by `cell`
 * where blank(header field j, i) says so. */
static char *
edited(int (*blank)(const char *name, int line), const char *cell)
{
	size_t cap = strlen(text[1]) * 2 + 64, len = 0;
	char *out = malloc(cap), *src = strdup(text[1]), *save = NULL, *names[64];
	int nn = 0, line = 0;
	for (char *l = strtok_r(src, "\n", &save); l; l = strtok_r(NULL, "\n", &save), line++) {
		char *fs = NULL;
		int j = 0;
		for (char *f = strtok_r(l, ",", &fs); f; f = strtok_r(NULL, ",", &fs), j++) {
			if (line == 0 && nn < 64)
				names[nn++] = strdup(f);
			int b = line > 0 && j < nn && blank(names[j], line);
			len += (size_t)snprintf(out + len, cap - len, "%s%s", j ? "," : "", b ? cell : f);
		}
		len += (size_t)snprintf(out + len, cap - len, "\n");
	}
	for (int j = 0; j < nn; j++)
		free(names[j]);
	free(src);
	return out;
}

static int
ends(const char *s, const char *tail)
{
	size_t n = strlen(s), m = strlen(tail);
	return n >= m && strcmp(s + n - m, tail) == 0;
}

static int
counters_20(const char *name, int line)
{
	return line <= 20 && (ends(name, "_total") || ends(name, "_sum") || ends(name, "_count"));
}

static int
running_120(const char *name, int line)
{
	return line <= 120 && strcmp(name, "num_requests_running") == 0;
}

/* Every counter blank on the first 118 rows (30 s, idle then load): it
 * started mid-run, its first value far more than a spacing counts */
static int
counters_118(const char *name, int line)
{
	return line <= 118 && (ends(name, "_total") || ends(name, "_sum") || ends(name, "_count"));
}

/* The token and step counters blank on every line */
static int
tokens_never(const char *name, int line)
{
	(void)line;
	return strcmp(name, "generation_tokens_total") == 0 || strcmp(name, "iteration_tokens_total_count") == 0;
}

/* generation_tokens_total blank on the last 58 of the 293 data lines */
static int
tokens_last_58(const char *name, int line)
{
	return line >= 236 && strcmp(name, "generation_tokens_total") == 0;
}

/* Two engines: each holds half of every value (the cache's share whole),
 * engine 1's generation_tokens_total blank on the first row, with `never`
 * 1 on every line, with 2 no column at all. */
static char *
split_engines(int never)
{
	size_t cap = strlen(text[1]) * 8 + 4096, len = 0;
	char *out = malloc(cap), *src = strdup(text[1]), *save = NULL, *names[64];
	int nn = 0, line = 0;
	for (char *l = strtok_r(src, "\n", &save); l; l = strtok_r(NULL, "\n", &save), line++) {
		char *fs = NULL;
		int j = 0;
		for (char *f = strtok_r(l, ",", &fs); f; f = strtok_r(NULL, ",", &fs), j++) {
			if (line == 0 && nn < 64)
				names[nn++] = strdup(f);
			for (int e = 0; e < (j ? 2 : 1); e++) {
				const char *sep = j || e ? "," : "";
				if (never == 2 && e == 1 && strcmp(names[j], "generation_tokens_total") == 0)
					continue;
				if (line == 0 && j)
					len += (size_t)snprintf(out + len, cap - len, "%s\"vllm:%s{engine=\"\"%d\"\"}\"", sep, f, e);
				else if (j == 0)
					len += (size_t)snprintf(out + len, cap - len, "%s", f);
				else if ((line == 1 || never) && e == 1 && strcmp(names[j], "generation_tokens_total") == 0)
					len += (size_t)snprintf(out + len, cap - len, ",");
				else
					len += (size_t)snprintf(out + len, cap - len, "%s%.17g", sep,
					                        strtod(f, NULL) * (strstr(names[j], "cache") ? 1.0 : 0.5));
			}
		}
		len += (size_t)snprintf(out + len, cap - len, "\n");
	}
	for (int j = 0; j < nn; j++)
		free(names[j]);
	free(src);
	return out;
}

static void
same_row(const wc_ingest_row *a, const wc_ingest_row *b)
{
	CHECK_NEAR(a->run.running, b->run.running, 0);
	CHECK_NEAR(a->run.throughput_tok_s, b->run.throughput_tok_s, 0);
	CHECK_NEAR(a->run.energy_per_token_j, b->run.energy_per_token_j, 0);
	CHECK_NEAR(a->iterations, b->iterations, 0);
	CHECK_NEAR(a->prefill_energy_j, b->prefill_energy_j, 0);
	CHECK_NEAR(a->decode_energy_j, b->decode_energy_j, 0);
	CHECK_NEAR(a->start_epoch, b->start_epoch, 0);
}

int
main(void)
{
	const char *shared = test_shared_dir();
	if (!shared)
		return TEST_SKIP;
	char *src = path_join(shared, "data/real/powertrace-sim/validate_qwen3-8b_a100/"
	                              "a100_validate_tp1_r4p0_b1p0_s20260712_1784415439");
	char *root = test_tmpdir("real_engine_leading_blanks");
	if (!test_read_texts(src, files, 3, text))
		return check_report("test_real_engine_leading_blanks");
	test_warnings w;
	wc_ingest_result ref = { NULL, 0, 0 }, cnt = { NULL, 0, 0 }, dp = { NULL, 0, 0 }, gauge = { NULL, 0, 0 };
	if (!ingest(src, &ref, &w))
		return check_report("test_real_engine_leading_blanks");
	const wc_ingest_row *r = &ref.rows[0];
	CHECK_NEAR(r->run.throughput_tok_s, 570.29, 0.005);
	CHECK_NEAR(r->iterations, 3964, 0);

	/* every counter NaN on the first 20 rows: the untouched row */
	char *e = edited(counters_20, "nan"), *run = copy_run(root, "counters", e);
	if (ingest(run, &cnt, &w)) {
		same_row(&cnt.rows[0], r);
		/* no word of the counters: the one warning is the level's idle
		 * lead-in, which the untouched run gets too */
		CHECK_INT(w.count, 1);
		CHECK_CONTAINS(w.text, "(no prompt tokens yet)");
	}
	free(e);
	free(run);

	/* two engines, one blank cell of engine 1 on the first row */
	e = split_engines(0);
	run = copy_run(root, "engines", e);
	if (ingest(run, &dp, &w))
		same_row(&dp.rows[0], r);
	free(e);
	free(run);

	/* num_requests_running blank on the first 120 rows */
	e = edited(running_120, "");
	run = copy_run(root, "gauge", e);
	if (ingest(run, &gauge, &w)) {
		const wc_ingest_row *g = &gauge.rows[0];
		CHECK_CONTAINS(w.text, "num_requests_running has no value on the engine log's first 120 rows "
		               "(1784415445.639-1784415476.244, 30.605 s): unknown there, not 0");
		CHECK_NEAR(g->start_epoch, 1784415476.2443757, 1e-6);
		CHECK_NEAR(g->run.running, 11.4847, 5e-5);
		/* n(t) cell by cell as the untouched log's at the same times */
		size_t off = (size_t)llround((g->start_epoch + g->series_t[0] - r->start_epoch - r->series_t[0]) / 0.05);
		CHECK(g->series_len > 800 && off + g->series_len <= r->series_len);
		for (size_t k = 0; k < g->series_len && off + k < r->series_len; k++)
			CHECK_NEAR(g->series_running[k], r->series_running[off + k], 0);
	}
	free(e);
	free(run);

	/* every counter blank on the first 30 s, under load from 1784415464.5:
	 * the row starts at their first value, its tokens the untouched
	 * log's there (803.74 tok/s, 0.38843 J/token over 44.738 s); counted
	 * from there over the whole level it read 480.38 tok/s and 0.52336
	 * J/token (+18.7 %), silently */
	wc_ingest_result late = { NULL, 0, 0 }, never = { NULL, 0, 0 };
	e = edited(counters_118, "");
	run = copy_run(root, "late", e);
	if (ingest(run, &late, &w)) {
		const wc_ingest_row *g = &late.rows[0];
		wc_engine_log *eng = NULL;
		wc_error err;
		char *p = path_join(src, "engine.csv");
		CHECK_CONTAINS(w.text, "blank on the first 118 rows (1784415445.639-1784415475.736, 30.097 s), then");
		CHECK_CONTAINS(w.text, "counted unseen there, unknown");
		CHECK_CONTAINS(w.text, "engine's counters 1784415475.736-");
		CHECK_NEAR(g->start_epoch, 1784415475.7359233, 1e-6);
		CHECK_NEAR(g->run.throughput_tok_s, 803.745, 0.005);
		CHECK_NEAR(g->run.energy_per_token_j, 0.38843, 5e-5);
		CHECK_INT(wc_engine_read(p, NULL, 0, &eng, &err), WC_OK);
		if (eng)
			CHECK_NEAR(g->run.throughput_tok_s * (g->end_epoch - g->start_epoch),
			           wc_engine_value_at(eng, WC_ENG_GENERATION_TOKENS, g->end_epoch) -
			           wc_engine_value_at(eng, WC_ENG_GENERATION_TOKENS, g->start_epoch), 1e-6);
		wc_engine_free(eng);
		free(p);
	}
	free(e);
	free(run);

	/* the token and step counters blank on every line: unknown, as
	 * without the columns -- the level's 213.36 output tokens a request
	 * (570.08 tok/s, 0.44102 J/token), no iterations; they read 0 tok/s,
	 * 0 tokens and 0 iterations, silently */
	e = edited(tokens_never, "");
	run = copy_run(root, "never", e);
	if (ingest(run, &never, &w)) {
		const wc_ingest_row *g = &never.rows[0];
		CHECK_CONTAINS(w.text, "generation_tokens_total has no value on any line (blank or NaN): unknown, not 0");
		CHECK_NEAR(g->run.throughput_tok_s, 570.077, 0.005);
		CHECK_NEAR(g->run.energy_per_token_j, 0.44102, 5e-5);
		CHECK(isnan(g->iterations));
		CHECK_NEAR(g->start_epoch, r->start_epoch, 0);
	}
	free(e);
	free(run);
	wc_ingest_result_clear(&late);
	wc_ingest_result_clear(&never);

	/* two engines, engine 1's generation_tokens_total blank on every
	 * line: the sum is unknown, read as without the column -- the level's
	 * 213.36 output tokens a request (570.08 tok/s, 0.44102 J/token), the
	 * steps counted as before; added up without engine 1 it read engine
	 * 0's half, 285.15 tok/s and 0.88170 J/token, silently */
	wc_ingest_result half = { NULL, 0, 0 };
	e = split_engines(1);
	run = copy_run(root, "engine_never", e);
	if (ingest(run, &half, &w)) {
		const wc_ingest_row *g = &half.rows[0];
		CHECK_CONTAINS(w.text, "generation_tokens_total{engine=\"1\"} has no value on any line (blank or NaN) "
		               "while the other engines count");
		CHECK_NEAR(g->run.throughput_tok_s, 570.077, 0.005);
		CHECK_NEAR(g->run.energy_per_token_j, 0.44102, 5e-5);
		CHECK_NEAR(g->iterations, r->iterations, 0);
		CHECK_NEAR(g->start_epoch, r->start_epoch, 0);
	}
	free(e);
	free(run);
	wc_ingest_result_clear(&half);

	/* generation_tokens_total blank, then NaN, on the last 58 rows: the
	 * row ends at its last value, its tokens the untouched counter's
	 * there */
	for (int k = 0; k < 2; k++) {
		wc_ingest_result early = { NULL, 0, 0 };
		e = edited(tokens_last_58, k ? "nan" : "");
		run = copy_run(root, k ? "early_nan" : "early", e);
		if (ingest(run, &early, &w)) {
			const wc_ingest_row *g = &early.rows[0];
			wc_engine_log *eng = NULL;
			wc_error err;
			char *p = path_join(src, "engine.csv");
			CHECK_CONTAINS(w.text, "engine.csv: generation_tokens_total blank on the last 58 rows "
			               "(1784415505.576-1784415520.435, 14.860 s) after 31903: unknown there, not held flat");
			CHECK_CONTAINS(w.text, "engine's counters 1784415445.639-1784415505.576)");
			CHECK_NEAR(g->start_epoch, r->start_epoch, 0);
			CHECK_NEAR(g->end_epoch, 1784415505.5755281, 1e-6);
			CHECK_NEAR(g->run.throughput_tok_s, 532.103, 0.005);
			CHECK_NEAR(g->run.energy_per_token_j, 0.44805, 5e-5);
			CHECK_INT(wc_engine_read(p, NULL, 0, &eng, &err), WC_OK);
			if (eng)
				CHECK_NEAR(g->run.throughput_tok_s * (g->end_epoch - g->start_epoch),
				           wc_engine_value_at(eng, WC_ENG_GENERATION_TOKENS, g->end_epoch) -
				           wc_engine_value_at(eng, WC_ENG_GENERATION_TOKENS, g->start_epoch), 1e-6);
			wc_engine_free(eng);
			free(p);
		}
		free(e);
		free(run);
		wc_ingest_result_clear(&early);
	}

	/* two engines, engine 1 without a generation_tokens_total column:
	 * as blank on every line -- the level's 213.36 output tokens a
	 * request; it read engine 0's half, 285.15 tok/s, silently */
	wc_ingest_result nocol = { NULL, 0, 0 };
	e = split_engines(2);
	run = copy_run(root, "engine_nocol", e);
	if (ingest(run, &nocol, &w)) {
		const wc_ingest_row *g = &nocol.rows[0];
		CHECK_CONTAINS(w.text, "generation_tokens_total{engine=\"1\"} has no column while that engine's other "
		               "columns do: their sum is unknown, not a part");
		CHECK_NEAR(g->run.throughput_tok_s, 570.077, 0.005);
		CHECK_NEAR(g->run.energy_per_token_j, 0.44102, 5e-5);
		CHECK_NEAR(g->iterations, r->iterations, 0);
	}
	free(e);
	free(run);
	wc_ingest_result_clear(&nocol);

	wc_ingest_result_clear(&ref);
	wc_ingest_result_clear(&cnt);
	wc_ingest_result_clear(&dp);
	wc_ingest_result_clear(&gauge);
	for (int k = 0; k < 3; k++)
		free(text[k]);
	free(src);
	free(root);
	return check_report("test_real_engine_leading_blanks");
}
