/*
 * Arrivals rebuilt from engine counters (docs/envelopes.md, "Replaying a
 * measured run"): the count of an interval follows the load gauge, not
 * its prompt tokens over the mean prompt, so prompts of unequal length
 * do not turn one request into several at once; the arrivals the gauge
 * cannot show (a completion in the same interval) are added where the
 * prompt tokens leave some unexplained, and the total stays the prompt
 * tokens over the mean prompt. A whole load level whose manifest states
 * its completed requests has exactly that many arrivals (the engine's
 * prompt tokens are not the client's count), their output lengths add up
 * to the level's stated total, and `validate envelope` says the arrivals
 * were rebuilt from counters, not known.
 */
#include "trace/replay.h"
#include "data/fileio.h"
#include "tests/support/support.h"
#include "tests/support/synth_epoch.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define T0 1700000000.0
#define DT 0.25

/* Load (running) and prompt tokens added at each 0.25 s sample after the
 * first: three single requests from an empty engine (100 tokens each: the
 * mean prompt), eight intervals of one arrival each with prompts of 10
 * and 190 tokens, one interval where a request arrives and one completes
 * (load unchanged) with 300 prompt tokens, then the engine drains. */
static const int load[] = { 0, 1, 0, 1, 0, 1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 8, 6, 4, 2, 0, 0 };
static const int prompt[] = { 0, 100, 0, 100, 0, 100, 0, 10, 190, 10, 190, 10, 190, 10, 190, 300, 0, 0, 0, 0, 0 };
#define N_SAMPLES ((int)(sizeof load / sizeof load[0]))

static char *
engine_csv(void)
{
	size_t cap = 64 * 64, len = 0;
	char *s = malloc(cap);
	double total = 0;
	len += (size_t)snprintf(s, cap, "timestamp,num_requests_running,num_requests_waiting,prompt_tokens_total\n");
	for (int k = 0; k < N_SAMPLES; k++) {
		total += prompt[k];
		len += (size_t)snprintf(s + len, cap - len, "%.3f,%d,0,%.0f\n", T0 + DT * k, load[k], total);
	}
	return s;
}

/* A powertrace-sim manifest: one level over the engine log that states 13
 * completed requests with 1 300 prompt tokens (the client's count: 100 a
 * request, as the single intervals show, while the engine counted 1 400)
 * and 1 000 output tokens. */
static const char manifest[] =
	"{\"run_id\": \"counters\", \"hardware\": \"A100\", \"model\": \"Qwen/Qwen3-8B\", \"tp\": 1,"
	" \"clock\": {\"power_timestamp_basis\": \"unix_epoch\", \"engine_timestamp_basis\": \"unix_epoch\"},"
	" \"probe\": {\"levels\": [{\"label\": \"rate\", \"t_start_epoch\": 1700000000.0,"
	" \"t_end_epoch\": 1700000005.0, \"params\": {\"request_rate\": 2.0, \"burstiness\": 1.0},"
	" \"summary\": {\"completed\": 13, \"total_input_tokens\": 1300, \"total_output_tokens\": 1000}}]}}";

static void
check_level_count(const char *root, const char *d, const wc_ingest_options *opt)
{
	char *p = path_join(d, "manifest.json");
	CHECK(write_text(p, manifest) == 0);
	free(p);
	wc_trace_replay *r = NULL;
	size_t n = 0;
	wc_error err;
	int rc = wc_trace_replay_load(d, opt, &r, &n, &err);
	CHECK_INT(rc, WC_OK);
	if (rc != WC_OK)
		fprintf(stderr, "%s\n", err.msg);
	if (rc == WC_OK && n == 1) {
		/* 13, not the engine's 1 400 tokens over the client's 100 (14) */
		CHECK_INT((int)r[0].n_arrivals, 13);
		CHECK(fabs(r[0].mean_input - 1400.0 / 13) < 1e-9);
		double out = 0;
		for (size_t i = 0; i < r[0].n_arrivals; i++) {
			CHECK(r[0].output[i] == 76 || r[0].output[i] == 77);
			out += r[0].output[i];
		}
		CHECK(out == 1000); /* not 13 x 77 */
	}
	wc_trace_replay_free(r, n);
	/* The replay is set, not random, but its arrivals are rebuilt: the
	 * header and each row say so (they said "every arrival and length
	 * known"). */
	char *csv = path_join(root, "per_run.csv"), *text = NULL;
	size_t len = 0;
	const char *argv[] = { "wattcast", "validate", "envelope", "--profile", "measured", d, "--platform", "A100",
		               "--model", "Qwen3-8B", "--quiet", "--per-run", csv, NULL };
	run_result res;
	CHECK_INT(run_wattcast(argv, NULL, &res), 0);
	CHECK_INT(res.status, 0);
	if (res.status)
		fprintf(stderr, "%s", res.err);
	CHECK_CONTAINS(res.out, "each simulated once: the replays draw nothing at random (arrivals rebuilt interval by "
	                        "interval from the engine's counters, output lengths at their mean), so --seed");
	CHECK(res.out && strstr(res.out, "known") == NULL);
	run_result_free(&res);
	CHECK_INT(wc_read_file(csv, 1 << 20, &text, &len, &err), WC_OK);
	CHECK_CONTAINS(text, ",engine_prompt_tokens,13,");
	CHECK_CONTAINS(text, "\"the replay draws nothing at random (arrivals rebuilt interval by interval from the "
	                     "engine's counters, output lengths at their mean): simulated once");
	free(text);
	/* --replicas 1 changes nothing of it: the run is simulated once and
	 * said so, lo/hi blank (it read as a one-replica Monte-Carlo run,
	 * lo = hi = the prediction, and runs_simulated_once 0) */
	const char *one[] = { "wattcast", "validate", "envelope", "--profile", "measured", d, "--platform", "A100",
		              "--model", "Qwen3-8B", "--quiet", "--replicas", "1", "--json", NULL };
	CHECK_INT(run_wattcast(one, NULL, &res), 0);
	CHECK_INT(res.status, 0);
	CHECK_CONTAINS(res.out, "\"runs_simulated_once\": 1");
	run_result_free(&res);
	one[13] = NULL; /* the text header names what the replay knows */
	CHECK_INT(run_wattcast(one, NULL, &res), 0);
	CHECK_CONTAINS(res.out, "each simulated once: the replays draw nothing at random (arrivals rebuilt interval by "
	                        "interval from the engine's counters, output lengths at their mean), so --seed");
	run_result_free(&res);
	free(csv);
}

int
main(void)
{
	char *root = test_tmpdir("replay_counters"), *eng = engine_csv();
	char *d = path_join(root, "run"), *p;
	mkdir(d, 0755);
	p = path_join(d, "engine.csv");
	CHECK(write_text(p, eng) == 0);
	free(p);
	synth_epoch_power(d, T0, 60, 100.0, 2.0);

	wc_ingest_options opt;
	wc_ingest_options_init(&opt);
	snprintf(opt.defaults.platform, sizeof opt.defaults.platform, "A100");
	snprintf(opt.defaults.model, sizeof opt.defaults.model, "Qwen3-8B");
	opt.defaults.tp = 1;
	opt.defaults.active_params_b = 8.19;
	opt.defaults.utc_offset_s = 0;
	wc_trace_replay *r = NULL;
	size_t n = 0;
	wc_error err;
	int rc = wc_trace_replay_load(d, &opt, &r, &n, &err);
	CHECK_INT(rc, WC_OK);
	if (rc != WC_OK)
		fprintf(stderr, "%s\n", err.msg);
	CHECK(n >= 1);
	if (rc == WC_OK && n >= 1) {
		const wc_trace_replay *w = &r[0];
		CHECK(strcmp(w->arrival_source, "engine_prompt_tokens") == 0);
		CHECK(fabs(w->mean_input - 100) < 1e-9);
		/* 1400 prompt tokens over a mean prompt of 100. */
		CHECK_INT((int)w->n_arrivals, 14);
		/* Arrivals per interval, by the interval's end on the engine clock. */
		int per[N_SAMPLES] = { 0 };
		double off = w->start_epoch - T0;
		for (size_t i = 0; i < w->n_arrivals; i++) {
			int k = (int)ceil((w->arrival_s[i] + off) / DT);
			if (k >= 0 && k < N_SAMPLES)
				per[k]++;
		}
		/* Every one of the eight single arrivals is there, whatever its
		 * prompt (the prompt-token count gave 0 and 2 in turn); the two
		 * arrivals the gauge could not show go where the prompt tokens
		 * say: one to a 190-token interval, one to the interval where a
		 * request also completed (it gets 2, not the 3 its 300 tokens
		 * over 100 would give). */
		int extra = 0;
		for (int k = 7; k <= 14; k++) {
			CHECK(per[k] >= 1 && per[k] <= 2);
			extra += per[k] - 1;
		}
		CHECK_INT(extra, 1);
		CHECK_INT(per[15], 2);
		CHECK_INT(per[1] + per[3] + per[5], 3);
		/* An interval's arrivals share its prompt tokens. */
		for (size_t i = 0; i < w->n_arrivals; i++)
			CHECK(w->input[i] >= 1);
	}
	wc_trace_replay_free(r, n);
	check_level_count(root, d, &opt);
	free(d);
	free(eng);
	free(root);
	return check_report("test_replay_counters");
}
