/*
 * The workload's input against the simulated window (docs/envelopes.md,
 * "Engine"), said by an envelope and by a budget plan in the same words
 * (one rule, wc__envelope_window_note):
 * - a replayed log longer than the horizon: its requests arriving beyond
 *   it are left out, counted, with the log's last arrival; the JSON's
 *   workload gives `requests` (in the log) and `requests_replayed`. A log
 *   of 500 requests 2 s apart over 600 s served 300 of them and said
 *   "requests": 500 with no word;
 * - a plan of an n(t) shorter than the window, or of a log ending before
 *   half the horizon, warns as the envelope does: 3 s of n(t) over 600 s
 *   planned 13 servers at their idle power with no word;
 * - the command line's band-memory guard charges the replicas simulated: a
 *   workload that draws nothing (an n(t), a closed loop of fixed lengths)
 *   runs once whatever --replicas asks, and was refused "use fewer
 *   replicas" for bands it never holds (docs/envelopes.md, "Outputs").
 */
#include "tests/support/support.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ENV "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--profile", "paper"

/* The JSON answer of `argv` (exit 0), or NULL. */
static json_t *
json_of(const char *const *argv)
{
	run_result r;
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	if (r.status != 0)
		fprintf(stderr, "%s\n", r.err ? r.err : "");
	json_t *j = json_loads(r.out ? r.out : "", 0, NULL);
	CHECK(j != NULL);
	run_result_free(&r);
	return j;
}

/* The one warning of `j` that starts with `head`, or "" (none) -- at most one. */
static const char *
warning_of(const json_t *j, const char *head)
{
	const json_t *ws = json_object_get(j, "warnings");
	const char *found = "";
	for (size_t i = 0; i < json_array_size(ws); i++) {
		const char *m = json_string_value(json_array_get(ws, i));
		if (m && strncmp(m, head, strlen(head)) == 0) {
			CHECK(found[0] == '\0');
			found = m;
			CHECK(strlen(m) <= 255);
		}
	}
	return found;
}

/* A log of 500 requests 2 s apart (the last at 998 s), 500 + 200 tokens. */
static char *
long_log(const char *dir)
{
	size_t cap = 64 * 1024, len = 0;
	char *text = malloc(cap);
	const char *keys[4] = { "request_timestamps", "ttfts", "input_lens", "output_lens" };
	len += (size_t)snprintf(text + len, cap - len, "{");
	for (int k = 0; k < 4; k++) {
		len += (size_t)snprintf(text + len, cap - len, "%s\"%s\":[", k ? "," : "", keys[k]);
		for (int i = 0; i < 500; i++) {
			const double v = k == 0 ? 1.7e9 + 2.0 * i : k == 1 ? 0.1 : k == 2 ? 500 : 200;
			len += (size_t)snprintf(text + len, cap - len, "%s%.10g", i ? "," : "", v);
		}
		len += (size_t)snprintf(text + len, cap - len, "]");
	}
	snprintf(text + len, cap - len, "}\n");
	char *path = test_fixture(dir, "long.json", text);
	free(text);
	return path;
}

static void
test_long_replay(const char *dir)
{
	char *log = long_log(dir);
	const char *horizons[3] = { "600", "100", "1000" };
	const int replayed[3] = { 300, 50, 500 };
	const char *said[3] = { "arrival_s: the replayed log's last 200 of 500 requests arrive beyond the 600 s horizon "
		                "(its last at 998 s) and are left out",
		                "arrival_s: the replayed log's last 450 of 500 requests arrive beyond the 100 s horizon "
		                "(its last at 998 s) and are left out",
		                "" };
	for (int i = 0; i < 3; i++) {
		const char *argv[] = { ENV, "--replay", log, "--horizon", horizons[i], "--json", NULL };
		json_t *j = json_of(argv);
		const json_t *w = json_object_get(j, "workload");
		CHECK_INT((int)json_integer_value(json_object_get(w, "requests")), 500);
		CHECK_INT((int)json_integer_value(json_object_get(w, "requests_replayed")), replayed[i]);
		const char *got = warning_of(j, "arrival_s: ");
		if (said[i][0])
			CHECK_CONTAINS(got, said[i]);
		else
			CHECK(got[0] == '\0');
		/* the plan says the same, in the same words */
		const char *plan[] = { ENV, "--replay", log, "--horizon", horizons[i], "--budget", "3000", "--json", NULL };
		json_t *p = json_of(plan);
		CHECK(strcmp(warning_of(p, "arrival_s: "), got) == 0);
		CHECK_INT((int)json_integer_value(json_object_get(json_object_get(p, "workload"), "requests_replayed")),
		          replayed[i]);
		json_decref(p);
		json_decref(j);
	}
	free(log);
}

/* A budget plan of an n(t) of 3 s and of a log of 4 requests over 5.65 s
 * warns of its idle rest as the envelope does, in text and JSON. */
static void
test_plan_short_inputs(const char *dir)
{
	char *nt = test_fixture(dir, "nt3.csv", "t_s,running\n0,8\n1,8\n2,8\n");
	char *log = test_fixture(dir, "short.csv", "arrival_s,completion_s,input_tokens,output_tokens\n"
	                                           "1700000000.00,1700000001.0,4129,31\n"
	                                           "1700000000.87,1700000002.0,4218,44\n"
	                                           "1700000001.77,1700000004.0,4959,281\n"
	                                           "1700000005.65,1700000007.0,5115,41\n");
	const char *flags[2] = { "--n-series", "--replay" };
	const char *files[2] = { nt, log };
	const char *heads[2] = { "running_series: ", "arrival_s: " };
	const char *said[2] = { "running_series: covers 3 s of the 600 s simulated (warm-up and horizon); nothing runs "
		                "after it (n = 0, the idle power)",
		                "arrival_s: the replayed log's last arrival is at 5.65 s of the 600 s horizon; the rest is "
		                "idle" };
	for (int i = 0; i < 2; i++) {
		const char *env[] = { ENV, flags[i], files[i], "--json", NULL };
		const char *plan[] = { ENV, flags[i], files[i], "--budget", "1000", "--json", NULL };
		json_t *e = json_of(env), *p = json_of(plan);
		CHECK_CONTAINS(warning_of(e, heads[i]), said[i]);
		CHECK(strcmp(warning_of(p, heads[i]), warning_of(e, heads[i])) == 0);
		json_decref(e);
		json_decref(p);
		/* the text plan too */
		const char *text[] = { ENV, flags[i], files[i], "--budget", "1000", NULL };
		run_result r;
		CHECK_INT(run_wattcast(text, NULL, &r), 0);
		CHECK_INT(r.status, 0);
		char line[512];
		snprintf(line, sizeof line, "warning: %s", said[i]);
		CHECK_CONTAINS(r.out, line);
		run_result_free(&r);
	}
	free(nt);
	free(log);
}

/* Bins that 100 000 replicas x 2 traces could not hold in half of this
 * machine's memory (two doubles a cell), 1 replica easily: the horizon
 * in 0.05 s bins. */
static void
test_memory_once(const char *dir)
{
	const double have = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
	const double bins = 2.0 * ceil(0.5 * have / (100000.0 * 2 * 2 * sizeof(double)));
	char horizon[32], *ns = path_join(dir, "n16.csv");
	snprintf(horizon, sizeof horizon, "%.0f", bins * 0.05);
	CHECK_INT(write_text(ns, "t_s,running\n0,16\n60,16\n"), 0);
	const char *once[][4] = { { "--n-series", ns, NULL, NULL }, { "--closed", "8", NULL, NULL } };
	for (int i = 0; i < 2; i++) {
		const char *argv[] = { ENV, once[i][0], once[i][1], "--horizon", horizon, "--bin", "0.05", "--replicas",
			               "100000", "--fleet", "2", "--quiet", "--json", NULL };
		json_t *j = json_of(argv);
		CHECK_INT((int)json_integer_value(json_object_get(json_object_get(j, "simulation"), "replicas")), 1);
		json_decref(j);
	}
	/* a workload that draws still is refused, naming the replicas */
	const char *draws[] = { ENV, "--poisson", "0.001", "--horizon", horizon, "--bin", "0.05", "--replicas",
		                "100000", "--fleet", "2", "--quiet", NULL };
	run_result r;
	CHECK_INT(run_wattcast(draws, NULL, &r), 0);
	CHECK_INT(r.status, 2);
	CHECK_CONTAINS(r.err, "--replicas, --horizon, --bin: 100000 replicas x ");
	run_result_free(&r);
	free(ns);
}

int
main(void)
{
	char *dir = test_tmpdir("cli_envelope_window");
	test_long_replay(dir);
	test_plan_short_inputs(dir);
	test_memory_once(dir);
	free(dir);
	return check_report("test_cli_envelope_window");
}
