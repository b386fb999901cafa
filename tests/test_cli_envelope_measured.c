/*
 * `wattcast envelope --measured RUN_DIR` against the run it replays
 * (docs/envelopes.md, "Replaying a measured run"): a flag naming another
 * board, model, group, SM clock or precision is a what-if prediction,
 * said so on stderr and in the JSON's "warnings" alike (it was said "not
 * applied" while the answer took it; a clock or precision, nothing); --warmup and --sample, which the run's window and cadence
 * replace, are said not used; a fleet's chart draws the one server's band
 * beside the one server measured; and the replay predicts what `validate
 * envelope` predicts for the run, to the last digit. A balancer's fleet
 * is refused: it split the run's arrivals over its servers and set one
 * server's share beside the one server that served them all. A folder of
 * several runs reads only the run it replays.
 */
#include "tests/support/run_json.h"
#include "tests/support/support.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* A run folder `name` whose manifest states an H100 serving Qwen3-8B with
 * the parameter count a checkpoint has (8.190427136 B, the catalog's
 * 8.19 B rounded): `quiet_w` W idle and 400 W busy for 60 s (UTC, 0.25 s),
 * with two requests. */
static char *
h100_run(const char *dir, const char *name, double quiet_w)
{
	char *run = path_join(dir, name), *p;
	static char buf[16384];
	size_t n = 0;
	mkdir(run, 0755);
	p = path_join(run, "power.csv");
	n = (size_t)snprintf(buf, sizeof buf, "timestamp,index,power.draw [W]\n");
	for (int i = 0; i < 240; i++) {
		double t = i * 0.25;
		n += (size_t)snprintf(buf + n, sizeof buf - n, "2026/07/18 10:%02d:%02d.%03d,0,%.1f\n", (int)t / 60,
		                      (int)t % 60, (int)((t - (int)t) * 1000),
		                      (t > 2 && t < 9) || (t > 30 && t < 36) ? 400.0 : quiet_w);
	}
	CHECK_INT(write_text(p, buf), 0);
	free(p);
	p = path_join(run, "requests.json");
	CHECK_INT(write_text(p, "{\"request_timestamps\":[1784368802.0,1784368830.0],\"input_lens\":[3000,1000],"
	                        "\"output_lens\":[400,300],\"ttfts\":[0.3,0.3],\"itls\":[0.012,0.012]}"), 0);
	free(p);
	p = path_join(run, "wattcast-run.json");
	CHECK_INT(write_text(p, "{\"schema\": \"wattcast.run/3\", \"platform\": \"H100\", \"model\": \"Qwen3-8B\", "
	                        "\"active_params_b\": 8.190427136, \"utc_offset_s\": 0}"), 0);
	free(p);
	return run;
}

/* Every "wattcast envelope: warning: " line of stderr is in the JSON's
 * "warnings", whole; returns how many there were. */
static int
warnings_match(const char *err, const json_t *warnings)
{
	static const char tag[] = "wattcast envelope: warning: ";
	int n = 0;
	for (const char *s = err ? strstr(err, tag) : NULL; s; s = strstr(s, tag)) {
		s += strlen(tag);
		const char *eol = strchr(s, '\n');
		size_t len = eol ? (size_t)(eol - s) : strlen(s);
		int found = 0;
		for (size_t i = 0; i < json_array_size(warnings); i++) {
			const char *w = json_string_value(json_array_get(warnings, i));
			found |= w && strlen(w) == len && strncmp(w, s, len) == 0;
		}
		if (!found)
			fprintf(stderr, "not in the JSON's warnings: %.*s\n", (int)len, s);
		CHECK(found);
		n++;
	}
	return n;
}

/* --platform A100 --model Qwen3-14B on an H100 run of Qwen3-8B: the
 * answer is A100's and Qwen3-14B's, and every word says so. */
static void
test_what_if(const char *run)
{
	const char *argv[] = { "wattcast", "envelope", "--profile", "measured", "--measured", run, "--platform", "A100",
		               "--model", "Qwen3-14B", "--json", NULL };
	run_result r;
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	CHECK(r.err && strstr(r.err, "not applied") == NULL);
	CHECK_CONTAINS(r.err, "warning: --platform A100, but the run ran on H100: the prediction is for A100");
	CHECK_CONTAINS(r.err, "warning: --model Qwen3-14B, but the run served Qwen3-8B: the prediction is for "
	               "Qwen3-14B");
	json_t *j = json_loads(r.out ? r.out : "", 0, NULL);
	const json_t *cfg = json_object_get(j, "config");
	CHECK(cfg && strcmp(json_string_value(json_object_get(cfg, "platform")), "A100") == 0);
	CHECK_NEAR(json_number_value(json_object_get(cfg, "active_params_b")), 14.8, 1e-9);
	const json_t *w = json_object_get(j, "warnings");
	CHECK_INT(warnings_match(r.err, w), 2);
	for (size_t i = 0; i < json_array_size(w); i++)
		CHECK(strstr(json_string_value(json_array_get(w, i)), "not applied") == NULL);
	json_decref(j);
	run_result_free(&r);
	/* --platform alone: one warning, the same in both */
	const char *plat[] = { "wattcast", "envelope", "--profile", "measured", "--measured", run, "--platform", "A100",
		               "--json", NULL };
	CHECK_INT(run_wattcast(plat, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	CHECK(r.err && strstr(r.err, "not applied") == NULL);
	j = json_loads(r.out ? r.out : "", 0, NULL);
	CHECK_INT(warnings_match(r.err, json_object_get(j, "warnings")), 1);
	json_decref(j);
	run_result_free(&r);
}

/* --warmup and --sample were dropped without a word. */
static void
test_unused_flags(const char *run)
{
	const char *argv[] = { "wattcast", "envelope", "--profile", "measured", "--measured", run, "--sample", "1",
		               "--warmup", "10", NULL };
	run_result r;
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.err, "wattcast envelope: note: --measured replays the run's own arrivals, lengths, window and "
	               "cadence; --warmup and --sample given are not used\n");
	run_result_free(&r);
	const char *none[] = { "wattcast", "envelope", "--profile", "measured", "--measured", run, NULL };
	CHECK_INT(run_wattcast(none, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	CHECK(r.err && strstr(r.err, "not used") == NULL);
	run_result_free(&r);
}

/* The highest y of the chart's band polygon's points is its lowest
 * pixel; the smallest y its top: the band's top in pixels (0 at the top). */
static double
band_top_px(const char *svg)
{
	const char *p = svg ? strstr(svg, "<polygon") : NULL;
	const char *pts = p ? strstr(p, "points=\"") : NULL;
	double top = INFINITY;
	for (const char *s = pts ? pts + 8 : NULL; s && *s && *s != '"';) {
		char *end;
		(void)strtod(s, &end);
		if (*end != ',')
			break;
		double y = strtod(end + 1, &end);
		top = fmin(top, y);
		s = end + (*end == ' ');
	}
	return top;
}

/* --fleet 4 drew the fleet's band (four servers) beside the one server
 * measured, the measurement a quarter of the prediction: the chart now
 * draws the one server's band and says so. */
static void
test_fleet_chart(const char *dir, const char *run)
{
	char *one = path_join(dir, "one.svg"), *four = path_join(dir, "four.svg");
	const char *a1[] = { "wattcast", "envelope", "--profile", "measured", "--measured", run, "--svg", one, NULL };
	const char *a4[] = { "wattcast", "envelope", "--profile", "measured", "--measured", run, "--fleet", "4",
		             "--svg", four, NULL };
	run_result r;
	CHECK_INT(run_wattcast(a1, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	run_result_free(&r);
	CHECK_INT(run_wattcast(a4, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	run_result_free(&r);
	char *s1 = test_slurp(one), *s4 = test_slurp(four);
	CHECK_CONTAINS(s4, "replay: server band</text>");
	CHECK_CONTAINS(s4, "band: one server's (the run measured one; the fleet's is in --csv, --json)");
	CHECK_CONTAINS(s4, "red: measured");
	/* the same band, drawn at the same height, as without --fleet */
	CHECK(isfinite(band_top_px(s1)));
	CHECK_NEAR(band_top_px(s4), band_top_px(s1), 0.05);
	free(s1);
	free(s4);
	free(one);
	free(four);
}

/* --fleet 4 --fleet-mode round_robin printed a server given a quarter of
 * the run's arrivals beside the measured GPU that served them all. */
static void
test_shared_fleet(const char *run)
{
	static const char *const modes[] = { "round_robin", "least_loaded" };
	for (size_t i = 0; i < 2; i++) {
		const char *argv[] = { "wattcast", "envelope", "--profile", "measured", "--measured", run, "--fleet", "4",
			               "--fleet-mode", modes[i], NULL };
		char needle[160];
		snprintf(needle, sizeof needle, "--fleet-mode %s: --measured replays the one server the run measured, "
		         "which served all its arrivals; a balancer would split them over the 4 servers", modes[i]);
		test_usage_error(argv, needle);
	}
	/* an independent fleet replays them all on each server: answered */
	const char *ok[] = { "wattcast", "envelope", "--profile", "measured", "--measured", run, "--fleet", "4",
		             "--fleet-mode", "independent", NULL };
	test_run_ok(ok);
}

/* The "mean_w" row's predicted value of `validate envelope --per-run`. */
static double
validate_mean(const char *csv)
{
	const char *row = csv ? strstr(csv, ",mean_w,") : NULL;
	return row ? strtod(row + 8, NULL) : NAN;
}

/* envelope --measured is "exactly as validate envelope does": it predicted
 * the catalog's 8.19 B where validate takes the run's 8.190427136 B, and
 * the two means differed by 0.003-0.006 W on real runs. Its load's line
 * (mean_running outside the calibrated span) was missing from validate's
 * per-run warnings, which are the prediction's. */
static void
test_same_as_validate(const char *dir, const char *run)
{
	char *per_run = path_join(dir, "per_run.csv");
	const char *env[] = { "wattcast", "envelope", "--profile", "measured", "--measured", run, "--json", NULL };
	const char *val[] = { "wattcast", "validate", "envelope", "--profile", "measured", run, "--per-run", per_run,
		              NULL };
	run_result r;
	CHECK_INT(run_wattcast(env, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	json_t *j = json_loads(r.out ? r.out : "", 0, NULL);
	double ap = json_number_value(json_object_get(json_object_get(j, "config"), "active_params_b"));
	double mean = json_number_value(json_object_get(
		json_object_get(json_object_get(json_object_get(j, "server"), "summary"), "mean_w"), "value"));
	char load[512] = "";
	const json_t *w = json_object_get(j, "warnings");
	for (size_t i = 0; i < json_array_size(w); i++)
		if (strncmp(json_string_value(json_array_get(w, i)), "mean_running:", 13) == 0)
			snprintf(load, sizeof load, "%s", json_string_value(json_array_get(w, i)));
	json_decref(j);
	run_result_free(&r);
	CHECK_INT(run_wattcast(val, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	run_result_free(&r);
	char *csv = test_slurp(per_run);
	CHECK_CONTAINS(csv, ",H100,1,8.190427136,");
	CHECK_NEAR(ap, 8.190427136, 1e-12);
	CHECK(isfinite(mean) && mean > 120.0);
	CHECK_NEAR(mean, validate_mean(csv), 1e-6 * mean);
	CHECK_CONTAINS(load, "mean_running: load 0.");
	CHECK_CONTAINS(csv, load);
	free(csv);
	free(per_run);
}

/* A run whose idle power is rejected (quiet at 480 W, over its 400 W
 * load) is predicted at the platform's P0: the warning says so, not "the
 * fit uses the platform's P0" of ingest, where no fit runs. */
static void
test_idle_unknown(const char *dir)
{
	char *run = h100_run(dir, "h100_hot_quiet", 480.0);
	const char *argv[] = { "wattcast", "envelope", "--profile", "measured", "--measured", run, "--json", NULL };
	run_result r;
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.err, "idle power 480.0 W of GPU 0");
	CHECK_CONTAINS(r.err, "; the envelope predicts with the platform's P0 (or --idle-power's)\n");
	CHECK(r.err && strstr(r.err, "the fit uses") == NULL);
	json_t *j = json_loads(r.out ? r.out : "", 0, NULL);
	CHECK(warnings_match(r.err, json_object_get(j, "warnings")) >= 1);
	json_decref(j);
	run_result_free(&r);
	free(run);
}

/* `envelope` with `argv` (NULL-ended after the run): exit 0, its JSON
 * answer (decref) with every stderr warning in its "warnings"; stderr
 * into `err` (free). */
static json_t *
measured_json(const char *const *argv, char **err)
{
	json_t *j = test_run_json(argv, err);
	warnings_match(*err, json_object_get(j, "warnings"));
	return j;
}

/* --sm-clock, --weights and --kv name the prediction, as --platform,
 * --model and --tp do: another than the run's is a what-if said as such
 * (a 900 MHz prediction sat beside the run's unlocked 1410 MHz power with
 * no word); unnamed, they are the run's own, as `validate envelope` binds
 * them. */
static void
test_what_if_clock(const char *dir, const char *run)
{
	const char *clock[] = { "wattcast", "envelope", "--profile", "measured", "--measured", run, "--sm-clock", "1200",
		                "--json", NULL };
	const char *prec[] = { "wattcast", "envelope", "--profile", "measured", "--measured", run, "--weights", "fp8",
		               "--kv", "fp8", "--json", NULL };
	const char *same[] = { "wattcast", "envelope", "--profile", "measured", "--measured", run, "--weights", "bf16",
		               "--kv", "bf16", "--json", NULL };
	char *err;
	json_t *j = measured_json(clock, &err);
	CHECK_CONTAINS(err, "warning: --sm-clock 1200, but the run did not lock its SM clock: the prediction is for "
	               "1200 MHz, the measured values are at the board's own clocks (a what-if replay, "
	               "docs/envelopes.md)\n");
	CHECK_NEAR(json_number_value(json_object_get(json_object_get(j, "config"), "sm_clock_mhz")), 1200, 1e-9);
	json_decref(j);
	free(err);
	j = measured_json(prec, &err);
	CHECK_CONTAINS(err, "warning: --weights fp8, but the run ran with bf16 weights: the prediction is for fp8 "
	               "weights, the measured values are with bf16 weights (a what-if replay");
	CHECK_CONTAINS(err, "warning: --kv fp8, but the run ran with bf16 KV cache: the prediction is for fp8 KV "
	               "cache");
	json_decref(j);
	free(err);
	j = measured_json(same, &err);
	CHECK(err && strstr(err, "what-if") == NULL);
	json_decref(j);
	free(err);

	/* a run that states its lock and precision: its own unless named */
	char *locked = h100_run(dir, "h100_locked", 120.0), *m = path_join(locked, "wattcast-run.json");
	CHECK_INT(write_text(m, "{\"schema\": \"wattcast.run/3\", \"platform\": \"H100\", \"model\": "
	                        "\"Qwen3-8B\", \"active_params_b\": 8.190427136, \"utc_offset_s\": 0, "
	                        "\"sm_clock_mhz\": 1500, \"weights\": \"fp8\"}"), 0);
	const char *own[] = { "wattcast", "envelope", "--profile", "measured", "--measured", locked, "--json", NULL };
	const char *other[] = { "wattcast", "envelope", "--profile", "measured", "--measured", locked, "--sm-clock",
		                "1200", "--json", NULL };
	j = measured_json(own, &err);
	const json_t *cfg = json_object_get(j, "config");
	CHECK_NEAR(json_number_value(json_object_get(cfg, "sm_clock_mhz")), 1500, 1e-9);
	CHECK(strcmp(json_string_value(json_object_get(cfg, "weights")), "fp8") == 0);
	CHECK(err && strstr(err, "what-if") == NULL);
	json_decref(j);
	free(err);
	j = measured_json(other, &err);
	CHECK_CONTAINS(err, "warning: --sm-clock 1200, but the run locked its SM clock at 1500 MHz: the prediction is "
	               "for 1200 MHz, the measured values are at 1500 MHz (a what-if replay");
	json_decref(j);
	free(err);
	free(m);
	free(locked);
}

/* A folder of several runs replays its first window, in its first run
 * folder, and reads only that run: a second run without its UTC offset,
 * on another board and model, refused the command ("the UTC offset is
 * unknown; give --utc-offset"), and with --utc-offset the first run's
 * platform and model were said "not applied" of it, flags never given. */
static void
test_folder_of_runs(const char *dir)
{
	char *folder = path_join(dir, "several"), *lone = path_join(dir, "lone");
	mkdir(folder, 0755);
	mkdir(lone, 0755);
	char *first = h100_run(folder, "a_first", 120.0), *second = h100_run(folder, "b_second", 120.0);
	char *alone = h100_run(lone, "a_first", 120.0), *m = path_join(second, "wattcast-run.json");
	CHECK_INT(write_text(m, "{\"schema\": \"wattcast.run/3\", \"platform\": \"A100\", \"model\": "
	                        "\"Qwen3-14B\"}"), 0);
	const char *plain[] = { "wattcast", "envelope", "--profile", "measured", "--measured", folder, "--json", NULL };
	const char *offset[] = { "wattcast", "envelope", "--profile", "measured", "--measured", folder, "--utc-offset",
		                 "0", "--json", NULL };
	const char *one[] = { "wattcast", "envelope", "--profile", "measured", "--measured", lone, "--json", NULL };
	char *err, *err_one;
	json_t *o = measured_json(one, &err_one);
	for (int k = 0; k < 2; k++) {
		json_t *j = measured_json(k ? offset : plain, &err);
		CHECK(err && strstr(err, "not applied") == NULL && strstr(err, "UTC offset") == NULL);
		if (err && (strstr(err, "not applied") || strstr(err, "UTC offset")))
			fprintf(stderr, "%s", err);
		const json_t *meas = json_object_get(j, "measured");
		CHECK(json_is_string(json_object_get(meas, "run_id")));
		CHECK_INT((int)json_integer_value(json_object_get(meas, "run_folders")), 2);
		CHECK_INT((int)json_integer_value(json_object_get(meas, "windows_in_folder")), 1);
		/* the first run's prediction, as if it were alone */
		const json_t *a = json_object_get(json_object_get(j, "server"), "summary");
		const json_t *b = json_object_get(json_object_get(o, "server"), "summary");
		CHECK(json_number_value(json_object_get(json_object_get(a, "mean_w"), "value")) ==
		      json_number_value(json_object_get(json_object_get(b, "mean_w"), "value")));
		json_decref(j);
		free(err);
	}
	json_decref(o);
	free(err_one);
	free(m);
	free(alone);
	free(second);
	free(first);
	free(lone);
	free(folder);
}

int
main(void)
{
	char *dir = test_tmpdir("cli_envelope_measured");
	char *run = h100_run(dir, "h100_run", 120.0);
	test_what_if(run);
	test_what_if_clock(dir, run);
	test_unused_flags(run);
	test_fleet_chart(dir, run);
	test_shared_fleet(run);
	test_same_as_validate(dir, run);
	test_idle_unknown(dir);
	test_folder_of_runs(dir);
	free(run);
	free(dir);
	return check_report("test_cli_envelope_measured");
}
