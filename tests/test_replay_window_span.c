/*
 * A replayed run's measured side covers the simulated horizon
 * (docs/envelopes.md, "Replaying a measured run"): the horizon is the
 * window in whole 50 ms steps, so a window of 59.764 s is replayed over
 * 59.75 s, and its measured mean and energy are those of the same
 * 59.75 s. They were the whole window's: energy 10 850.6 J beside a mean
 * of 181.557 W, 2.5 J more than the mean times the horizon. `validate
 * envelope` takes the same window (one loader), so its measured mean is
 * the same number.
 */
#include "tests/support/support.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

/* An H100 run of Qwen3-8B sampled every 0.25 s for 59.75 s, then once
 * more 14 ms later (a meter's late sample): 400 W while busy and over
 * the last second, 120 W otherwise. */
static char *
odd_window_run(const char *dir)
{
	char *run = path_join(dir, "odd_window"), *p;
	static char buf[16384];
	size_t n = 0;
	mkdir(run, 0755);
	n = (size_t)snprintf(buf, sizeof buf, "timestamp,index,power.draw [W]\n");
	for (int i = 0; i <= 240; i++) {
		int ms = i < 240 ? i * 250 : 59764;
		double t = ms / 1000.0;
		n += (size_t)snprintf(buf + n, sizeof buf - n, "2026/07/18 10:%02d:%02d.%03d,0,%.1f\n", ms / 60000,
		                      ms / 1000 % 60, ms % 1000,
		                      (t > 2 && t < 9) || (t > 30 && t < 36) || t > 59 ? 400.0 : 120.0);
	}
	p = path_join(run, "power.csv");
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

static double
number_at(const json_t *o, const char *a, const char *b)
{
	return json_number_value(json_object_get(json_object_get(o, a), b));
}

int
main(void)
{
	char *dir = test_tmpdir("replay_window_span");
	char *run = odd_window_run(dir);
	const char *argv[] = { "wattcast", "envelope", "--profile", "measured", "--measured", run, "--json", "--quiet",
		               NULL };
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	json_t *o = json_loads(r.out ? r.out : "", 0, NULL);
	CHECK(o != NULL);
	double horizon = number_at(o, "simulation", "horizon_s"), measured = number_at(o, "measured", "horizon_s");
	double mean = number_at(o, "measured", "mean_w"), energy = number_at(o, "measured", "energy_j");
	CHECK_NEAR(horizon, 59.75, 1e-9);
	CHECK_NEAR(measured, horizon, 1e-9);
	/* the measured energy is its mean over the horizon: 181.506 W x 59.75 s */
	CHECK_NEAR(energy, mean * horizon, 1e-6 * energy);
	CHECK_NEAR(mean, 181.506, 0.001);
	json_decref(o);
	run_result_free(&r);

	/* validate envelope measures the same window */
	const char *vargv[] = { "wattcast", "validate", "envelope", run, "--profile", "measured", "--json", "--quiet",
		                NULL };
	CHECK(run_wattcast(vargv, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	o = json_loads(r.out ? r.out : "", 0, NULL);
	CHECK(o != NULL);
	json_t *runs = json_object_get(o, "runs");
	CHECK(json_array_size(runs) == 1);
	CHECK_NEAR(number_at(json_array_get(runs, 0), "measured", "mean_w"), mean, 0.001);
	json_decref(o);
	run_result_free(&r);
	free(run);
	free(dir);
	return check_report("test_replay_window_span");
}
