/*
 * wattcast envelope reading request logs (--replay FILE, --input-tokens /
 * --output-tokens empirical:FILE) and n(t) files: requests of 0 output
 * tokens are replayed as their prefill and count no token; every refusal
 * of a row names file:line:column (or the JSON path), the column and the
 * value, through one reader for --replay and empirical:; an empty log is
 * a refused file (exit 1) whatever its form; --json lists the lines the
 * reader skipped in its warnings; an n(t) names its lines too.
 */
#include "tests/support/support.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>

/* One summary statistic's value of an envelope's --json answer (NaN: null). */
static double
summary_value(json_t *j, const char *name)
{
	json_t *v = json_object_get(json_object_get(json_object_get(json_object_get(j, "server"), "summary"), name),
	                            "value");
	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* A request that produced no output token (aborted, an empty completion)
 * is replayed as its prefill alone, as a one-token request is, but counts
 * no output token: the energy per output token is over the tokens the log
 * says were generated (docs/envelopes.md, "Engine"). It counted one token
 * each, so a log of only such requests answered an energy per token. */
static void
test_replay_zero_output(const char *dir)
{
	char *zero = path_join(dir, "zero_out.csv"), *one = path_join(dir, "one_out.csv");
	char *none = path_join(dir, "none_out.csv");
	write_text(zero, "arrival_s,completion_s,input_tokens,output_tokens\n"
	                 "1000.0,1000.8,4129,31\n1001.0,1001.2,500,0\n1002.0,1005.6,4959,120\n");
	write_text(one, "arrival_s,completion_s,input_tokens,output_tokens\n"
	                "1000.0,1000.8,4129,31\n1001.0,1001.2,500,1\n1002.0,1005.6,4959,120\n");
	write_text(none, "arrival_s,completion_s,input_tokens,output_tokens\n"
	                 "1000.0,1000.1,512,0\n1001.0,1001.1,512,0\n1002.0,1002.1,512,0\n");
	const char *logs[] = { zero, one, none };
	json_t *j[3];
	for (int k = 0; k < 3; k++) {
		run_result r;
		const char *argv[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--replay",
			               logs[k], "--horizon", "10", "--replicas", "2", "--json", NULL };
		CHECK_INT(run_wattcast(argv, NULL, &r), 0);
		CHECK_INT(r.status, 0);
		j[k] = json_loads(r.out ? r.out : "", 0, NULL);
		CHECK(j[k] != NULL);
		CHECK(!r.err || !strstr(r.err, "must be tokens"));
		run_result_free(&r);
	}
	/* the same power (the prefill's step alone either way); one token less */
	CHECK(summary_value(j[0], "energy_j") == summary_value(j[1], "energy_j"));
	CHECK(summary_value(j[0], "p95_w") == summary_value(j[1], "p95_w"));
	CHECK_NEAR(summary_value(j[0], "output_tokens"), 31 + 120, 1e-9);
	CHECK_NEAR(summary_value(j[1], "output_tokens"), 31 + 1 + 120, 1e-9);
	CHECK_NEAR(summary_value(j[0], "energy_per_output_token_j"), summary_value(j[0], "energy_j") / 151, 1e-6);
	/* no output token at all: none per token, as for an n(t) */
	CHECK(summary_value(j[2], "energy_j") > 0);
	CHECK_NEAR(summary_value(j[2], "output_tokens"), 0, 0);
	CHECK(isnan(summary_value(j[2], "energy_per_output_token_j")));
	for (int k = 0; k < 3; k++)
		json_decref(j[k]);
	free(zero);
	free(one);
	free(none);
}

/* Run `wattcast envelope` on H100/Qwen3-8B over 20 s with `extra` flags
 * (NULL-terminated); the result in `r`. */
static void
run_envelope(const char *const *extra, run_result *r)
{
	const char *argv[32] = { "wattcast", "envelope", "--platform", "H100", "--model", "Qwen3-8B", "--horizon", "20" };
	int n = 8;
	for (int i = 0; extra[i] && n < 31; i++)
		argv[n++] = extra[i];
	argv[n] = NULL;
	CHECK_INT(run_wattcast(argv, NULL, r), 0);
}

/* The refusal names `flag`, then the file `path` and `rest` (its
 * position, column, value and why). */
static void
expect_refusal(const char *const *extra, int status, const char *flag, const char *path, const char *rest)
{
	run_result r;
	char needle[2048];
	snprintf(needle, sizeof needle, "wattcast envelope: %s: %s%s", flag, path, rest);
	run_envelope(extra, &r);
	CHECK_INT(r.status, status);
	CHECK_CONTAINS(r.err, needle);
	run_result_free(&r);
}

/* A token count over the envelope's 10^7 was refused by the workload's
 * check after sorting: "--replay (entry 0): must be tokens 1 to 1e+07",
 * an index of the sorted log (line 2 here holds 512 tokens), exit 2. Now
 * the reader names the cell, the column and the value, for --replay and
 * empirical: alike, and the file is refused (exit 1). */
static void
test_token_bound(const char *dir)
{
	char *big = path_join(dir, "big.csv"), *bigj = path_join(dir, "big.json"), *zin = path_join(dir, "zin.csv");
	write_text(big, "arrival_s,completion_s,input_tokens,output_tokens\n"
	                "1784415005.0,1784415007.0,512,256\n1784415001.0,1784415003.0,20000000,10\n"
	                "1784415003.0,1784415004.0,512,256\n");
	write_text(bigj, "{\"request_timestamps\":[1784415001.0,1784415002.0],\"e2els\":[1.0,1.0],"
	                 "\"input_lens\":[100,200],\"output_lens\":[10,50000000]}\n");
	write_text(zin, "arrival_s,completion_s,input_tokens,output_tokens\n"
	                "1784415001.0,1784415002.0,512,256\n1784415003.0,1784415004.0,0,256\n");
	const char *rep[] = { "--replay", big, NULL };
	expect_refusal(rep, 1, "--replay", big, ":3:27: input_tokens = 20000000 is no token count (a whole number, "
	                                        "1 to 1e+07)");
	const char *emp[] = { "--poisson", "1", "--input-tokens", "empirical:", NULL };
	char spec[1200];
	snprintf(spec, sizeof spec, "empirical:%s", big);
	emp[3] = spec;
	expect_refusal(emp, 1, "--input-tokens", big, ":3:27: input_tokens = 20000000 is no token count");
	const char *js[] = { "--replay", bigj, NULL };
	expect_refusal(js, 1, "--replay", bigj, ": /output_lens/1: 50000000 is no token count (a whole number, 0 to "
	                                        "1e+07)");
	/* a prompt of 0 tokens, refused at an index of the sorted log too */
	const char *zr[] = { "--replay", zin, NULL };
	expect_refusal(zr, 1, "--replay", zin, ":3:27: input_tokens = 0 is no token count (a whole number, 1 to 1e+07)");
	run_result r;
	run_envelope(rep, &r);
	CHECK(!r.err || !strstr(r.err, "entry"));
	run_result_free(&r);
	free(big);
	free(bigj);
	free(zin);
}

/* empirical:FILE read the log on its own and said only "fix the bad
 * lines: 1 of 9 data lines are malformed"; it is --replay's reader now:
 * each bad line with file:line:column and why, whatever --quiet. */
static void
test_empirical_bad_lines(const char *dir)
{
	char *tok = path_join(dir, "tok.csv"), spec[1200];
	char text[2048] = "arrival_s,completion_s,input_tokens,output_tokens\n";
	for (int i = 0; i < 9; i++)
		snprintf(text + strlen(text), sizeof text - strlen(text), "17844150%02d.0,17844150%02d.5,%s,100\n", i, i,
		         i == 5 ? "12.5" : "512");
	write_text(tok, text);
	snprintf(spec, sizeof spec, "empirical:%s", tok);
	for (int k = 0; k < 2; k++) {
		const char *emp[] = { "--poisson", "1", k ? "--output-tokens" : "--input-tokens", spec, "--quiet", NULL };
		expect_refusal(emp, 1, k ? "--output-tokens" : "--input-tokens", tok,
		               ":7:27: input_tokens = 12.5 is no token count (a whole number, 1 to 1e+07)");
	}
	free(tok);
}

/* An empty log is a refused file, exit 1, whatever its form: a header
 * alone was refused by the workload's check (exit 2, without the file's
 * name) while a 0-byte file or an empty requests.json was exit 1. A bad
 * timestamp in requests.json is named at its entry with its value. */
static void
test_empty_and_unusable(const char *dir)
{
	char *hdr = path_join(dir, "empty.csv"), *zero = path_join(dir, "zero.csv"), *ej = path_join(dir, "empty.json");
	char *str = path_join(dir, "str.json");
	write_text(hdr, "arrival_s,completion_s,input_tokens,output_tokens\n");
	write_text(zero, "");
	write_text(ej, "{\"request_timestamps\":[],\"e2els\":[],\"input_lens\":[],\"output_lens\":[]}\n");
	write_text(str, "{\"input_lens\":[100,200,300],\"output_lens\":[10,20,30],\"request_timestamps\":"
	                "[1784415163.0,\"x\",1784415165.0],\"e2els\":[1.0,1.0,1.0]}\n");
	const char *h[] = { "--replay", hdr, NULL }, *z[] = { "--replay", zero, NULL }, *e[] = { "--replay", ej, NULL };
	expect_refusal(h, 1, "--replay", hdr, ": no requests");
	expect_refusal(z, 1, "--replay", zero, ": empty file (no header)");
	expect_refusal(e, 1, "--replay", ej, ": no requests");
	const char *s[] = { "--replay", str, NULL };
	expect_refusal(s, 1, "--replay", str, ": /request_timestamps/1: expected a number, got \"x\"");
	free(hdr);
	free(zero);
	free(ej);
	free(str);
}

/* A line skipped under the 1 % rule was said on stderr only: --json's
 * "warnings" were [] while the answer replayed 199 of 200 requests. They
 * are listed, whatever --quiet, as --measured lists its reader's, in the
 * forecast and in the budget plan. */
static void
test_json_warnings(const char *dir)
{
	char *bad = path_join(dir, "bad1.csv");
	size_t cap = 200 * 48 + 64, len = 0;
	char *text = malloc(cap);
	len += (size_t)snprintf(text, cap, "arrival_s,completion_s,input_tokens,output_tokens\n");
	for (int i = 0; i < 200; i++)
		len += (size_t)snprintf(text + len, cap - len, "%.1f,%.1f,512,64\n", 1784415000.0 + 0.5 * i,
		                        1784415000.0 + 0.5 * i + (i == 3 ? -1.0 : 1.0));
	write_text(bad, text);
	free(text);
	for (int k = 0; k < 2; k++) {
		const char *extra[] = { "--replay", bad, "--json", "--quiet", k ? "--budget" : NULL, "5000", NULL };
		run_result r;
		run_envelope(extra, &r);
		CHECK_INT(r.status, 0);
		json_t *j = json_loads(r.out ? r.out : "", 0, NULL);
		json_t *w = json_object_get(j, "warnings");
		int found = 0;
		for (size_t i = 0; i < json_array_size(w); i++)
			found += strstr(json_string_value(json_array_get(w, i)), "--replay: ") != NULL &&
			         strstr(json_string_value(json_array_get(w, i)), "bad1.csv:5:14: completion_s: completion before arrival") != NULL;
		CHECK_INT(found, 1);
		CHECK(!r.err || !strstr(r.err, "bad1.csv:5")); /* --quiet */
		json_decref(j);
		run_result_free(&r);
	}
	free(bad);
}

/* An n(t) refused at a sample names its line: a value over the bound
 * said "data row 1 (t = 0 s)". A file of more samples than an n(t)
 * takes (WC_SERIES_MAX, the HTTP series') is refused at the first one
 * over. A file whose closest spacing is far below its span is no longer
 * put on a grid of that spacing (its samples hold at their own times,
 * docs/formats/runs-table.md): 0.001 s apart over 600 000 s, once
 * refused as a 900 000 000-sample grid, runs. */
static void
test_series_positions(const char *dir)
{
	char *big = path_join(dir, "nt_big.csv"), *huge = path_join(dir, "nt_huge.csv"),
	     *many = path_join(dir, "nt_many.csv");
	write_text(big, "t_s,running\n0,1e9\n1,2\n");
	write_text(huge, "t_s,running\n0,16\n0.001,16\n600000,0\n");
	const char *b[] = { "--n-series", big, NULL }, *h[] = { "--n-series", huge, "--json", NULL },
		   *m[] = { "--n-series", many, NULL };
	expect_refusal(b, 1, "--n-series", big, ":2:3: running must be a number 0 to 65536, got 1e9");
	run_result r;
	run_envelope(h, &r);
	CHECK_INT(r.status, 0);
	run_result_free(&r);
	/* 1 000 001 samples: the last on line 1 000 002 (after the header) */
	FILE *f = fopen(many, "w");
	CHECK(f != NULL);
	if (f) {
		fputs("t_s,running\n", f);
		for (long k = 0; k <= 1000000; k++)
			fprintf(f, "%ld,1\n", k);
		fclose(f);
	}
	expect_refusal(m, 1, "--n-series", many, ":1000002:1: more than 1000000 samples");
	free(big);
	free(huge);
	free(many);
}

int
main(void)
{
	char *dir = test_tmpdir("cli_envelope_logs");
	test_replay_zero_output(dir);
	test_token_bound(dir);
	test_empirical_bad_lines(dir);
	test_empty_and_unusable(dir);
	test_json_warnings(dir);
	test_series_positions(dir);
	free(dir);
	return check_report("test_cli_envelope_logs");
}
