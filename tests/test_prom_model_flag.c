/*
 * `wattcast ingest --scrapes --model` (docs/fleet.md, "Grouping"): the
 * flag names a group's model only where its engine's series carry no
 * model_name (TGI's). Over series of model_name="Qwen/Qwen3-8B",
 * `--model meta-llama/Llama-3.1-8B-Instruct` was ignored without a word;
 * it is now said not applied, naming the flag's value, the group and the
 * model read, and the rows are Qwen/Qwen3-8B. A --model naming the
 * label's model says nothing. Without model_name and without --model the
 * refusal says the flag is for series without model_name.
 */
#include "data/data.h"
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T0 1767225600L

static run_result
one(const char *in, const char *out, const char *model)
{
	const char *argv[] = { "wattcast", "ingest", "--scrapes", in, "-o", out, "--model", model, NULL };
	run_result r;
	if (!model)
		argv[6] = NULL;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	fprintf(stderr, "--model %s: exit %d\n%s", model ? model : "(none)", r.status, r.err ? r.err : "");
	return r;
}

static char *
scrapes(const char *dir, const char *name, const char *labels)
{
	size_t cap = 1 << 20, len = 0;
	char *buf = malloc(cap);
	for (int s = 0; s < 120; s++)
		len += (size_t)snprintf(buf + len, cap - len, "# wattcast-scrape %ld a:8000\n"
		                        "vllm:num_requests_running%s 8\n"
		                        "# wattcast-scrape %ld dcgm:9400\n"
		                        "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\",Hostname=\"a\",modelName=\"NVIDIA H100 "
		                        "80GB HBM3\"} 300\n", T0 + s, labels, T0 + s);
	char *in = path_join(dir, name);
	CHECK(write_text(in, buf) == 0);
	free(buf);
	return in;
}

int
main(void)
{
	char *dir = test_tmpdir("prom_model_flag");
	char *in = scrapes(dir, "qwen.prom", "{model_name=\"Qwen/Qwen3-8B\"}");
	char *bare = scrapes(dir, "bare.prom", "");
	char *out = path_join(dir, "out.csv");
	run_result r = one(in, out, "meta-llama/Llama-3.1-8B-Instruct");
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.err, "--model meta-llama/Llama-3.1-8B-Instruct: not applied to 1 group ('a' first): their "
	               "engines' model_name names Qwen/Qwen3-8B, and what the data states wins; --model names the "
	               "model of series without model_name");
	char *csv = test_slurp(out);
	CHECK(csv && strstr(csv, ",Qwen/Qwen3-8B,") && !strstr(csv, "Llama"));
	free(csv);
	run_result_free(&r);
	r = one(in, out, "Qwen/Qwen3-8B");
	CHECK_INT(r.status, 0);
	CHECK(!r.err || !strstr(r.err, "--model"));
	run_result_free(&r);
	/* No model_name: --model names it; without it, refused naming the
	 * flag for such series. */
	r = one(bare, out, "Qwen/Qwen3-8B");
	CHECK_INT(r.status, 0);
	CHECK(!r.err || !strstr(r.err, "--model"));
	csv = test_slurp(out);
	CHECK(csv && strstr(csv, ",Qwen/Qwen3-8B,"));
	free(csv);
	run_result_free(&r);
	r = one(bare, out, NULL);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "no model_name label: give --model NAME (it names the model of series without "
	               "model_name)");
	run_result_free(&r);
	free(in);
	free(bare);
	free(out);
	free(dir);
	return check_report("test_prom_model_flag");
}
