/*
 * `predict flexibility` reports the requests that run, as `predict
 * inference` does (docs/cli.md, "predict flexibility"; docs/http-api.md,
 * "POST /v1/predict/flexibility"): on an A100, Qwen3-32B at concurrency 32
 * of 2000 + 512 tokens, the KV cache holds 16; the header said "running
 * 32" while its own warning said 16 run, and the JSON had no running count
 * but config.concurrency. Now the header says "running 16" and the JSON's
 * unconstrained point and each step carry mean_running, config.concurrency
 * staying the 32 asked; an open loop's header gives its rate and its mean.
 */
#include "tests/support/support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const base[] = { "wattcast",        "predict", "flexibility",    "--platform", "A100",
	                            "--model",         "Qwen3-32B", "--input-tokens", "2000",     "--output-tokens",
	                            "512",             "--steps", "4" };
#define N_BASE (sizeof base / sizeof base[0])

/* stdout of the sweep with `load` flags and `json` (0 the text) */
static char *
sweep(const char *flag, const char *value, int json)
{
	const char *argv[N_BASE + 4];
	size_t n = 0;
	for (; n < N_BASE; n++)
		argv[n] = base[n];
	argv[n++] = flag;
	argv[n++] = value;
	if (json)
		argv[n++] = "--json";
	argv[n] = NULL;
	run_result r;
	char *out = NULL;
	CHECK(run_wattcast(argv, NULL, &r) == 0 && r.status == 0);
	if (r.status != 0)
		fprintf(stderr, "  %s %s: %s\n", flag, value, r.err ? r.err : "");
	out = strdup(r.out ? r.out : "");
	run_result_free(&r);
	return out;
}

static int
near(double a, double b)
{
	return fabs(a - b) <= 1e-9 * fabs(b);
}

int
main(void)
{
	/* what predict inference says runs */
	const char *inf[] = { "wattcast", "predict", "inference", "--platform", "A100", "--model", "Qwen3-32B",
		              "--input-tokens", "2000", "--output-tokens", "512", "--concurrency", "32", "--json", NULL };
	run_result r;
	CHECK(run_wattcast(inf, NULL, &r) == 0 && r.status == 0);
	json_t *ij = json_loads(r.out ? r.out : "", 0, NULL);
	run_result_free(&r);
	const double runs = json_number_value(json_object_get(ij, "mean_running"));
	json_decref(ij);
	CHECK(near(runs, 16.0));

	char *text = sweep("--concurrency", "32", 0);
	CHECK_CONTAINS(text, "512 output tokens, running 16, engine vllm");
	CHECK_CONTAINS(text, "holds about 16 at a mean 2264 tokens each");
	free(text);

	char *js = sweep("--concurrency", "32", 1);
	json_t *j = json_loads(js, 0, NULL);
	CHECK(j != NULL);
	CHECK(near(json_number_value(json_object_get(json_object_get(j, "unconstrained"), "mean_running")), runs));
	CHECK(near(json_number_value(json_object_get(json_object_get(j, "config"), "concurrency")), 32.0));
	const json_t *steps = json_object_get(j, "steps");
	CHECK(json_array_size(steps) == 4);
	for (size_t i = 0; i < json_array_size(steps); i++) {
		const json_t *m = json_object_get(json_array_get(steps, i), "mean_running");
		CHECK(json_is_number(m) && near(json_number_value(m), runs));
	}
	json_decref(j);
	free(js);

	/* an open loop: its rate, and the mean that runs, which grows as the clock falls */
	text = sweep("--rate", "0.1", 0);
	CHECK_CONTAINS(text, "512 output tokens, rate 0.1, running 2.53");
	free(text);
	js = sweep("--rate", "0.1", 1);
	j = json_loads(js, 0, NULL);
	steps = json_object_get(j, "steps");
	const double top = json_number_value(json_object_get(json_array_get(steps, 0), "mean_running"));
	const double low = json_number_value(json_object_get(json_array_get(steps, 3), "mean_running"));
	CHECK(near(json_number_value(json_object_get(json_object_get(j, "unconstrained"), "mean_running")), top));
	CHECK(low > top);
	json_decref(j);
	free(js);
	return check_report("test_cli_flexibility_running");
}
