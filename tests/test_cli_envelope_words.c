/*
 * What `wattcast envelope` says about the inputs it replays: a measured
 * run's damaged power log (a bad line, a gap bridged by a straight line)
 * is warned on stderr and in the JSON's "warnings", as `ingest` and
 * `validate envelope` warn it (docs/formats/telemetry.md, "Bad lines",
 * "Time gaps"); a --replay log's workload is described by the lengths
 * replayed, the log's (docs/envelopes.md, the workload table).
 */
#include "tests/support/support.h"

#include <jansson.h>
#include <stdlib.h>
#include <sys/stat.h>

/* A run folder: an A100 at 85 W idle and 300 W busy for 120 s (UTC,
 * 0.25 s), its sample at 30 s '[N/A]' and none from 40 s to 60 s, with
 * two requests. */
static char *
damaged_run(const char *dir)
{
	char *run = path_join(dir, "damaged"), *p;
	static char buf[32768];
	size_t n = 0;
	mkdir(run, 0755);
	p = path_join(run, "power.csv");
	n = (size_t)snprintf(buf, sizeof buf, "timestamp,index,power.draw [W]\n");
	for (int i = 0; i < 480; i++) {
		double t = i * 0.25;
		if (t >= 40 && t < 60)
			continue;
		char w[16];
		snprintf(w, sizeof w, "%.1f", (t > 2 && t < 6) || (t > 75 && t < 80) ? 300.0 : 85.0);
		n += (size_t)snprintf(buf + n, sizeof buf - n, "2026/07/18 10:%02d:%02d.%03d,0,%s\n", (int)t / 60,
		                      (int)t % 60, (int)((t - (int)t) * 1000), i == 120 ? "[N/A]" : w);
	}
	CHECK_INT(write_text(p, buf), 0);
	free(p);
	p = path_join(run, "requests.json");
	CHECK_INT(write_text(p, "{\"request_timestamps\":[1784368802.0,1784368875.0],\"input_lens\":[3000,1000],"
	                        "\"output_lens\":[250,150],\"ttfts\":[0.4,0.4],\"itls\":[0.0144,0.0144]}"), 0);
	free(p);
	return run;
}

/* envelope --measured read the log without a word: its "measured" column
 * was partly a straight line across 20 s without samples. */
static void
test_measured_damaged(const char *dir)
{
	char *run = damaged_run(dir);
	const char *argv[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--measured", run,
		               "--utc-offset", "0", "--replicas", "2", "--json", NULL };
	run_result r;
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.err, "wattcast envelope: warning: ");
	CHECK_CONTAINS(r.err, "power.csv:122:27: no power reading (power.draw is '[N/A]')");
	CHECK_CONTAINS(r.err, "power.csv:162: no sample for 20.2 s before this line");
	json_t *j = json_loads(r.out ? r.out : "", 0, NULL);
	const json_t *w = json_object_get(j, "warnings");
	int bad = 0, gap = 0;
	for (size_t i = 0; i < json_array_size(w); i++) {
		const char *s = json_string_value(json_array_get(w, i));
		bad += s && strstr(s, "power.csv:122:27: no power reading") != NULL;
		gap += s && strstr(s, "power.csv:162: no sample for 20.2 s") != NULL;
	}
	CHECK_INT(bad, 1);
	CHECK_INT(gap, 1);
	CHECK(json_object_get(j, "measured") != NULL);
	json_decref(j);
	run_result_free(&r);
	/* --quiet silences stderr; the answer still carries them */
	const char *quiet[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--measured", run,
		                "--utc-offset", "0", "--replicas", "2", "--json", "--quiet", NULL };
	CHECK_INT(run_wattcast(quiet, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	CHECK(r.err && strstr(r.err, "warning") == NULL);
	CHECK_CONTAINS(r.out, "no power reading (power.draw is '[N/A]')");
	run_result_free(&r);
	free(run);
}

/* --replay's JSON echoed the length flags (512 / 256 by default, 2000
 * with --output-tokens 2000) while the log's own counts were replayed:
 * it now gives the lengths replayed, and a flag filling nothing says so. */
static void
test_replay_lengths(const char *dir)
{
	char *log = path_join(dir, "requests.csv");
	CHECK_INT(write_text(log, "arrival_s,first_token_s,completion_s,input_tokens,output_tokens\n"
	                          "1000.0,1000.3,1000.8,4000,30\n1001.0,1001.2,1001.6,5000,\n"
	                          "1005.7,1005.8,1006.3,6000,50\n"), 0);
	const char *argv[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--replay", log,
		               "--horizon", "8", "--replicas", "2", "--input-tokens", "100", "--output-tokens", "1000",
		               "--json", NULL };
	run_result r;
	char want[512];
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	snprintf(want, sizeof want, "wattcast envelope: note: --replay %s: every request has its input_tokens; "
	         "--input-tokens is not used\n", log);
	CHECK_CONTAINS(r.err, want);
	CHECK(r.err && strstr(r.err, "--output-tokens is not used") == NULL); /* it fills one */
	json_t *j = json_loads(r.out ? r.out : "", 0, NULL);
	const json_t *w = json_object_get(j, "workload");
	const json_t *in = json_object_get(w, "input_tokens"), *out = json_object_get(w, "output_tokens");
	CHECK(json_string_value(json_object_get(in, "distribution")) &&
	      strcmp(json_string_value(json_object_get(in, "distribution")), "log") == 0);
	CHECK_NEAR(json_number_value(json_object_get(in, "mean")), 5000.0, 1e-9);
	CHECK_INT(json_integer_value(json_object_get(in, "missing")), 0);
	CHECK(json_object_get(in, "missing_drawn_from") == NULL);
	/* the output's mean: 30, 50 and the one missing at --output-tokens' 1000 */
	CHECK_NEAR(json_number_value(json_object_get(out, "mean")), 1080.0 / 3.0, 1e-9);
	CHECK_INT(json_integer_value(json_object_get(out, "missing")), 1);
	const json_t *from = json_object_get(out, "missing_drawn_from");
	CHECK(json_string_value(json_object_get(from, "distribution")) &&
	      strcmp(json_string_value(json_object_get(from, "distribution")), "fixed") == 0);
	CHECK_NEAR(json_number_value(json_object_get(from, "mean")), 1000.0, 1e-9);
	json_decref(j);
	run_result_free(&r);
	free(log);
}

/* A log without a token column: every count is filled. The note said
 * "every request has its input_tokens; --input-tokens is not used" while
 * the flag set every length (294 against 378 W), and without a flag the
 * defaults filled them unsaid, which a log missing half its counts says. */
static void
test_replay_no_token_columns(const char *dir)
{
	char *log = path_join(dir, "notok.csv");
	CHECK_INT(write_text(log, "arrival_s,first_token_s,completion_s\n1000.0,1000.3,1000.8\n"
	                          "1001.0,1001.2,1001.6\n1005.7,1005.8,1006.3\n"), 0);
	for (int flag = 0; flag < 2; flag++) {
		const char *argv[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--replay", log,
			               "--horizon", "8", flag ? "--input-tokens" : "--json", flag ? "100" : NULL, NULL };
		run_result r;
		char want[512];
		CHECK_INT(run_wattcast(argv, NULL, &r), 0);
		CHECK_INT(r.status, 0);
		CHECK(r.err && strstr(r.err, "is not used") == NULL);
		snprintf(want, sizeof want, "wattcast envelope: warning: --replay %s: 3 of 3 requests have no input_tokens; "
		         "drawn from %s\n", log, flag ? "--input-tokens 100" : "the default --input-tokens 512");
		CHECK_CONTAINS(r.err, want);
		snprintf(want, sizeof want, "wattcast envelope: warning: --replay %s: 3 of 3 requests have no output_tokens; "
		         "drawn from the default --output-tokens 256\n", log);
		CHECK_CONTAINS(r.err, want);
		run_result_free(&r);
	}
	free(log);
}

/* The CLI's words for the same warnings (docs/envelopes.md): a replay's
 * own lengths beyond the context were named arrival_input, no flag; the
 * lengths drawn for a log's missing counts were on stderr alone, not in
 * --json's "warnings"; a closed loop of 1024 running about 1022 at once
 * (A100's spans 7.9-256 and 0.954-32) was not judged, where predict warns. */
static void
test_replay_words(const char *dir)
{
	char *log = path_join(dir, "big.csv");
	CHECK_INT(write_text(log, "arrival_s,completion_s,input_tokens,output_tokens\n0,1,100000,10\n"
	                          "1,2,100000,10\n2,3,100000,\n"), 0);
	for (int json = 0; json < 2; json++) {
		const char *argv[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--replay", log,
			               "--horizon", "10", json ? "--json" : NULL, NULL };
		run_result r;
		CHECK_INT(run_wattcast(argv, NULL, &r), 0);
		CHECK_INT(r.status, 0);
		CHECK_CONTAINS(r.out, "--replay: the workload's mean 100000 + 92 tokens exceed the model's context of "
		                      "40960 tokens");
		CHECK(r.out && strstr(r.out, "arrival_input") == NULL);
		char want[512];
		snprintf(want, sizeof want, "--replay %s: 1 of 3 requests has no output_tokens; drawn from the default "
		         "--output-tokens 256", log);
		CHECK_CONTAINS(r.err, want);
		if (json) /* in the answer too, as the readers' warnings */
			CHECK_CONTAINS(r.out, want);
		run_result_free(&r);
	}
	free(log);
	const char *closed[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--closed", "1024",
		                 "--max-running", "1024", "--input-tokens", "64", "--output-tokens", "64", "--horizon",
		                 "30", "--replicas", "1", NULL };
	run_result r;
	CHECK_INT(run_wattcast(closed, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, "warning: mean_running: load 10");
	CHECK_CONTAINS(r.out, "is outside the calibrated span 7.9-256 and the capacity calibration's span 0.954-32 on A100");
	run_result_free(&r);
	/* a mostly idle open loop (mean about 0.18 running) is judged at its
	 * mean, as predict --rate 0.05 judges it ("rate: load 0.171 is
	 * outside the calibrated span 1-256"): it was judged at one, silent
	 * under the paper profile (docs/envelopes.md, "Engine") */
	for (int measured = 0; measured < 2; measured++) {
		const char *idle[] = { "wattcast", "envelope", "--profile", measured ? "measured" : "paper", "--platform",
			               "A100", "--model", "Qwen3-8B", "--poisson", "0.05", "--horizon", "600",
			               "--replicas", "1", NULL };
		CHECK_INT(run_wattcast(idle, NULL, &r), 0);
		CHECK_INT(r.status, 0);
		if (measured)
			CHECK_CONTAINS(r.out, "warning: mean_running: load 0.178 is outside the calibrated span 7.9-256 and "
			               "the capacity calibration's span 0.954-32 on A100");
		else
			CHECK_CONTAINS(r.out, "warning: mean_running: load 0.184 is outside the calibrated span 1-256 on A100");
		run_result_free(&r);
	}
	/* an n(t) of 0.3 at its own values, as predict --running-series
	 * judges the same file; it was judged at one, and said nothing */
	char *series = path_join(dir, "low.csv");
	FILE *f = fopen(series, "w");
	CHECK(f != NULL);
	if (!f) {
		free(series);
		return;
	}
	fputs("t_s,running\n", f);
	for (int i = 0; i < 20; i++)
		fprintf(f, "%d,0.3\n", i);
	fclose(f);
	const char *low[] = { "wattcast", "envelope", "--profile", "paper", "--platform", "A100", "--model", "Qwen3-8B",
		              "--n-series", series, "--horizon", "20", "--replicas", "1", NULL };
	CHECK_INT(run_wattcast(low, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, "warning: running_series: load 0.3 is outside the calibrated span 1-256 on A100");
	run_result_free(&r);
	free(series);
}

int
main(void)
{
	char *dir = test_tmpdir("cli_envelope_words");
	test_measured_damaged(dir);
	test_replay_lengths(dir);
	test_replay_no_token_columns(dir);
	test_replay_words(dir);
	free(dir);
	return check_report("test_cli_envelope_words");
}
