/*
 * A window's p5, p50, p95 and max are of the samples its time holds
 * (docs/trace-metrics.md, "The metrics"; docs/envelopes.md, "Replaying a
 * measured run"), not of the points a cut interpolates on the curve: a
 * window cut between two samples ends on such a point, which counts for
 * the energy and the mean but is no sample. They were taken among the
 * samples: `envelope --measured` on a run whose meter sampled 2 ms past
 * its 5.75-s replayed span gave p95 453.51 W (462.35 W of the 23 samples
 * inside) on the A100 trace-replay smoke run, beside a mean, an energy
 * and a --csv of the 5.75 s alone; here a late 900 W sample made max_w
 * 893.8 W. And a sample on the edge of two `ingest` segments counts in one
 * of them, the later, as wc_trace_in_window places a request's tokens
 * (docs/formats/telemetry.md, "What ingest derives").
 */
#include "tests/support/support.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* An H100 run of Qwen3-8B sampled every 0.25 s for 5.5 s, then 2 ms
 * past 5.75 s (a meter's late sample) at 900 W: 400 W over [1, 1.75],
 * 700 W at 2 s (the edge of two 1-s segments), 480 W at 3 s, 120 W
 * otherwise. */
static char *
late_sample_run(const char *dir)
{
	char *run = path_join(dir, "late_sample");
	static char buf[4096];
	size_t n = 0;
	mkdir(run, 0755);
	n = (size_t)snprintf(buf, sizeof buf, "timestamp,index,power.draw [W]\n");
	for (int i = 0; i <= 23; i++) {
		int ms = i < 23 ? i * 250 : 5752;
		double w = ms == 5752 ? 900.0 : ms == 2000 ? 700.0 : ms == 3000 ? 480.0 : ms >= 1000 && ms <= 1750 ? 400.0
		                                                                                              : 120.0;
		n += (size_t)snprintf(buf + n, sizeof buf - n, "2026/07/18 10:00:%02d.%03d,0,%.1f\n", ms / 1000,
		                      ms % 1000, w);
	}
	free(test_fixture(run, "power.csv", buf));
	free(test_fixture(run, "requests.json",
	                  "{\"request_timestamps\":[1784368801.0,1784368803.0],\"input_lens\":[3000,1000],"
	                  "\"output_lens\":[40,30],\"ttfts\":[0.3,0.3],\"itls\":[0.012,0.012]}"));
	free(test_fixture(run, "wattcast-run.json",
	                  "{\"schema\": \"wattcast.run/3\", \"platform\": \"H100\", \"model\": \"Qwen3-8B\", "
	                  "\"active_params_b\": 8.190427136, \"utc_offset_s\": 0}"));
	return run;
}

static double
number_at(const json_t *o, const char *a, const char *b)
{
	return json_number_value(json_object_get(json_object_get(o, a), b));
}

/* envelope --measured and validate envelope: the 23 samples inside the
 * 5.75-s span, sorted 17 x 120, 4 x 400, 480, 700: p95 at rank 20.9 is
 * 400 + 0.9 x 80 = 472, max 700 (with the point interpolated at 5.75 s,
 * 893.8 W, they were 667 and 893.8). */
static void
check_replay(const char *run)
{
	const char *argv[] = { "wattcast", "envelope", "--profile", "measured", "--measured", run, "--json", "--quiet",
		               NULL };
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	json_t *o = json_loads(r.out ? r.out : "", 0, NULL);
	CHECK(o != NULL);
	CHECK_NEAR(number_at(o, "measured", "horizon_s"), 5.75, 1e-9);
	const double p95 = number_at(o, "measured", "p95_w"), max = number_at(o, "measured", "max_w");
	CHECK_NEAR(p95, 472.0, 1e-9);
	CHECK_NEAR(max, 700.0, 1e-9);
	CHECK_NEAR(number_at(o, "measured", "p5_w"), 120.0, 1e-9);
	CHECK_NEAR(number_at(o, "measured", "p50_w"), 120.0, 1e-9);
	/* the mean and energy are the curve's over [0, 5.75], its end point
	 * interpolated: 5.75 s x mean */
	CHECK_NEAR(number_at(o, "measured", "energy_j"), 5.75 * number_at(o, "measured", "mean_w"), 1e-6);
	json_decref(o);
	run_result_free(&r);

	const char *vargv[] = { "wattcast", "validate", "envelope", run, "--profile", "measured", "--json", "--quiet",
		                NULL };
	CHECK(run_wattcast(vargv, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	o = json_loads(r.out ? r.out : "", 0, NULL);
	CHECK(o != NULL);
	json_t *runs = json_object_get(o, "runs");
	CHECK(json_array_size(runs) == 1);
	CHECK_NEAR(number_at(json_array_get(runs, 0), "measured", "p95_w"), p95, 1e-9);
	CHECK_NEAR(number_at(json_array_get(runs, 0), "measured", "max_w"), max, 1e-9);
	json_decref(o);
	run_result_free(&r);
}

/* Column `col` of the row whose run_id ends with `suffix`, in a runs table. */
static double
row_value(const char *csv, const char *suffix, const char *col)
{
	char line[4096];
	int want = -1, k = 0;
	const char *s = csv;
	while (*s == '#')
		s = strchr(s, '\n') + 1;
	for (const char *h = s; *h && *h != '\n'; k++) {
		size_t len = strcspn(h, ",\n");
		if (len == strlen(col) && strncmp(h, col, len) == 0)
			want = k;
		h += len + (h[len] == ',');
	}
	CHECK(want >= 0);
	for (s = strchr(s, '\n'); s && s[1]; s = strchr(s + 1, '\n')) {
		size_t len = strcspn(s + 1, "\n");
		snprintf(line, sizeof line, "%.*s", (int)len, s + 1);
		const char *id_end = strchr(line, ',');
		size_t sl = strlen(suffix);
		if (!id_end || (size_t)(id_end - line) < sl || strncmp(id_end - sl, suffix, sl) != 0)
			continue;
		/* fields split at commas outside quotes (`exclude` holds one) */
		const char *f = line;
		for (int i = 0, quoted = 0; i < want && *f; f++) {
			if (*f == '"')
				quoted = !quoted;
			else if (*f == ',' && !quoted)
				i++;
		}
		return *f ? strtod(f, NULL) : NAN;
	}
	CHECK(0);
	return NAN;
}

/* `ingest --segment 1`: the 700 W sample at 2 s is segment 3's
 * ([2, 3)), not segment 2's ([1, 2), whose curve still ends on it). */
static void
check_segments(const char *dir, const char *run)
{
	char *out = path_join(dir, "runs.csv");
	const char *argv[] = { "wattcast", "ingest", run, "-o", out, "--segment", "1", NULL };
	test_run_ok(argv);
	char *csv = test_slurp(out);
	CHECK_NEAR(row_value(csv, "#seg2", "max_w"), 400.0, 1e-9);
	CHECK_NEAR(row_value(csv, "#seg3", "max_w"), 700.0, 1e-9);
	CHECK_NEAR(row_value(csv, "#seg1", "max_w"), 120.0, 1e-9);
	free(csv);
	free(out);
}

int
main(void)
{
	char *dir = test_tmpdir("replay_window_samples");
	char *run = late_sample_run(dir);
	check_replay(run);
	check_segments(dir, run);
	free(run);
	free(dir);
	return check_report("test_replay_window_samples");
}
