/*
 * A measured run whose engine counts no prompt tokens -- TGI's gauges
 * (tgi_batch_current_size, tgi_queue_size), or a vLLM engine.csv without
 * prompt_tokens_total -- replayed (docs/envelopes.md, "Replaying a
 * measured run"): a whole load level whose manifest states its completed
 * requests has exactly that many arrivals, each with the stated input
 * tokens per request as its prompt and the stated output total shared
 * out; a cut level has its stated count times the share of its stated
 * span inside the window (the gauge's count at least), said in a
 * warning, and the stated mean prompt; without a manifest the lengths are drawn, and `envelope --measured`
 * says so. The gauge alone gave 11 of the 13, at a made-up 512-token
 * prompt, without a word (94 of 200 on the 4 req/s A100 run).
 */
#include "trace/replay.h"
#include "tests/support/support.h"
#include "tests/support/synth_epoch.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define T0 1700000000.0
#define DT 0.25

/* Requests in the engine at each 0.25 s sample: three single requests
 * from an empty engine, eight arrivals one per interval, one interval
 * where a request arrives and one completes (the gauge stays at 8), then
 * the engine drains: 12 arrivals, of which the gauge shows 11. */
static const int load[] = { 0, 1, 0, 1, 0, 1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 8, 6, 4, 2, 0, 0 };
#define N_SAMPLES ((int)(sizeof load / sizeof load[0]))

static void
write_run(const char *d, const char *manifest)
{
	char *p;
	mkdir(d, 0755);
	synth_epoch_tgi(d, T0, DT, load, N_SAMPLES);
	synth_epoch_power(d, T0, 60, 100.0, 2.0);
	if (manifest) {
		p = path_join(d, "manifest.json");
		CHECK_INT(write_text(p, manifest), 0);
		free(p);
	}
}

/* One level over the engine log stating `scale` times 13 completed
 * requests, 1 300 input tokens (100 a request) and 1 000 output tokens;
 * `start` its first second (before the power log's T0: a cut level). */
static char *
manifest_of(const char *start, int scale)
{
	static char m[1024];
	snprintf(m, sizeof m,
	         "{\"run_id\": \"tgi\", \"hardware\": \"A100\", \"model\": \"Qwen/Qwen3-8B\", \"tp\": 1,"
	         " \"clock\": {\"power_timestamp_basis\": \"unix_epoch\", \"engine_timestamp_basis\": \"unix_epoch\"},"
	         " \"probe\": {\"levels\": [{\"label\": \"rate\", \"t_start_epoch\": %s,"
	         " \"t_end_epoch\": 1700000005.0, \"params\": {\"request_rate\": 2.0, \"burstiness\": 1.0},"
	         " \"summary\": {\"completed\": %d, \"total_input_tokens\": %d, \"total_output_tokens\": %d}}]}}",
	         start, 13 * scale, 1300 * scale, 1000 * scale);
	return m;
}

static int
load_replay(const char *d, wc_trace_replay **r, size_t *n)
{
	wc_ingest_options opt;
	wc_error err;
	wc_ingest_options_init(&opt);
	snprintf(opt.defaults.platform, sizeof opt.defaults.platform, "A100");
	snprintf(opt.defaults.model, sizeof opt.defaults.model, "Qwen3-8B");
	opt.defaults.tp = 1;
	opt.defaults.utc_offset_s = 0;
	int rc = wc_trace_replay_load(d, &opt, r, n, &err);
	CHECK_INT(rc, WC_OK);
	if (rc != WC_OK)
		fprintf(stderr, "%s\n", err.msg);
	return rc == WC_OK && *n == 1;
}

/* Every arrival's prompt is the stated 100 tokens; returns the output
 * tokens in all. */
static double
check_lengths(const wc_trace_replay *w)
{
	double out = 0;
	CHECK(strcmp(w->arrival_source, "engine_running") == 0);
	CHECK(fabs(w->mean_input - 100) < 1e-9);
	for (size_t i = 0; i < w->n_arrivals; i++) {
		CHECK(w->input[i] == 100);
		CHECK(w->output[i] == 76 || w->output[i] == 77);
		out += w->output[i];
	}
	return out;
}

static void
check_whole_level(const char *root)
{
	char *d = path_join(root, "whole");
	wc_trace_replay *r = NULL;
	size_t n = 0;
	write_run(d, manifest_of("1700000000.0", 1));
	if (load_replay(d, &r, &n)) {
		/* 13 as the manifest states, not the 11 the gauge shows */
		CHECK_INT((int)r[0].n_arrivals, 13);
		CHECK(check_lengths(&r[0]) == 1000);
		/* the two the gauge hides go where requests were in the engine
		 * to complete: none to an interval starting empty */
		for (size_t i = 0; i < r[0].n_arrivals; i++) {
			int k = (int)ceil((r[0].arrival_s[i] + r[0].start_epoch - T0) / DT);
			CHECK(k >= 1 && k < N_SAMPLES);
			if (k >= 1 && k < N_SAMPLES && load[k] <= load[k - 1])
				CHECK(load[k - 1] > 0);
		}
	}
	wc_trace_replay_free(r, n);
	/* `envelope --measured` replays them, lengths known: nothing drawn */
	const char *argv[] = { "wattcast", "envelope", "--measured", d, "--platform", "A100", "--model", "Qwen3-8B",
		               "--json", NULL };
	run_result res;
	CHECK_INT(run_wattcast(argv, NULL, &res), 0);
	CHECK_INT(res.status, 0);
	json_t *o = json_loads(res.out ? res.out : "", 0, NULL), *in = json_object_get(json_object_get(o, "workload"),
		                                                                                 "input_tokens");
	CHECK(o != NULL);
	CHECK_INT((int)json_integer_value(json_object_get(in, "missing")), 0);
	CHECK(fabs(json_number_value(json_object_get(in, "mean")) - 100) < 1e-9);
	CHECK_INT((int)json_integer_value(json_object_get(json_object_get(o, "measured"), "arrivals")), 13);
	CHECK(res.err && strstr(res.err, "drawn") == NULL);
	json_decref(o);
	run_result_free(&res);
	free(d);
}

/* A cut level: its stated count times the share of its stated span in
 * the window (the lifetime share `ingest` counts a request crossing a
 * window's end by), never fewer than the gauge shows; its mean prompt
 * still the stated one. `scale` 1: 13 x 5/7 s = 9.3, under the gauge's
 * 11; scale 2: 26 x 5/7 = 18.6, 19 (the gauge alone gave 11). */
static void
check_cut_level(const char *root, int scale, int want)
{
	char name[16];
	snprintf(name, sizeof name, "cut%d", scale);
	char *d = path_join(root, name);
	wc_trace_replay *r = NULL;
	size_t n = 0;
	/* the level starts two seconds before the power log: its count is not
	 * the window's, its mean prompt still is the stated one */
	write_run(d, manifest_of("1699999998.0", scale));
	if (load_replay(d, &r, &n)) {
		CHECK_INT((int)r[0].n_arrivals, want);
		(void)check_lengths(&r[0]);
	}
	wc_trace_replay_free(r, n);
	/* said, with what the gauge shows: the rule is an estimate */
	const char *argv[] = { "wattcast", "envelope", "--measured", d, "--platform", "A100", "--model", "Qwen3-8B",
		               "--json", NULL };
	char said[160];
	snprintf(said, sizeof said, ": load level 0 cut: %d arrivals replayed, its stated %d "
	         "requests times the 5.0 of its 7.0 s inside the window; the load gauge shows 11", want, 13 * scale);
	run_result res;
	CHECK_INT(run_wattcast(argv, NULL, &res), 0);
	CHECK_INT(res.status, 0);
	CHECK_CONTAINS(res.err, said);
	json_t *o = json_loads(res.out ? res.out : "", 0, NULL);
	CHECK_INT((int)json_integer_value(json_object_get(json_object_get(o, "measured"), "arrivals")), want);
	json_decref(o);
	run_result_free(&res);
	free(d);
}

/* validate envelope says what such a replay sets: the gauge and the
 * manifest's count, prompts and outputs at their stated means -- not
 * "spread evenly", which the hidden arrivals are not. */
static void
check_known_said(const char *root)
{
	char *d = path_join(root, "cut2");
	const char *argv[] = { "wattcast", "validate", "envelope", "--profile", "measured", d, "--platform", "A100",
		               "--model", "Qwen3-8B", "--quiet", NULL };
	run_result res;
	CHECK_INT(run_wattcast(argv, NULL, &res), 0);
	CHECK_INT(res.status, 0);
	CHECK_CONTAINS(res.out, "(arrivals rebuilt interval by interval from the engine's load gauge and the "
	                        "manifest's count, prompts and output lengths at their stated means)");
	run_result_free(&res);
	free(d);
}

static void
check_drawn_said(const char *root)
{
	char *d = path_join(root, "bare");
	write_run(d, NULL);
	const char *argv[] = { "wattcast", "envelope", "--measured", d, "--platform", "A100", "--model", "Qwen3-8B",
		               "--utc-offset", "0", "--json", NULL };
	run_result res;
	CHECK_INT(run_wattcast(argv, NULL, &res), 0);
	CHECK_INT(res.status, 0);
	json_t *o = json_loads(res.out ? res.out : "", 0, NULL), *warnings = json_object_get(o, "warnings");
	const char *want[] = { "run bare: none of its 11 arrivals (from engine_running) has input_tokens; drawn from "
		               "the default, a fixed 512",
		               "run bare: none of its 11 arrivals (from engine_running) has output_tokens; drawn from "
		               "the default, a fixed 256" };
	for (int k = 0; k < 2; k++) {
		int found = 0;
		for (size_t i = 0; i < json_array_size(warnings); i++)
			found |= strcmp(json_string_value(json_array_get(warnings, i)), want[k]) == 0;
		CHECK(found);
		CHECK_CONTAINS(res.err, want[k]);
	}
	json_decref(o);
	run_result_free(&res);
	free(d);
}

int
main(void)
{
	char *root = test_tmpdir("replay_no_prompt_tokens");
	check_whole_level(root);
	check_cut_level(root, 1, 11);
	check_cut_level(root, 2, 19);
	check_known_said(root);
	check_drawn_said(root);
	free(root);
	return check_report("test_replay_no_prompt_tokens");
}
