/*
 * `validate envelope` replays each run with its platform's time constant
 * where the response has one per level (docs/envelopes.md, "Fitting the
 * response"); --per-run printed the shared tau_s beside it, 0.0909 s on
 * every PowerTrace-Sim row where --json gave 0.0871 (A100) and 0.827
 * (H100). Both now print the one the replay used.
 */
#include "data/data.h"
#include "tests/support/support.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* A run folder of an H100 serving Qwen3-8B: 120 W idle, 400 W busy for
 * 60 s (UTC, 0.25 s), two requests. */
static char *
h100_run(const char *dir)
{
	char *run = path_join(dir, "h100_run"), *p;
	static char buf[16384];
	size_t n = 0;
	mkdir(run, 0755);
	p = path_join(run, "power.csv");
	n = (size_t)snprintf(buf, sizeof buf, "timestamp,index,power.draw [W]\n");
	for (int i = 0; i < 240; i++) {
		double t = i * 0.25;
		n += (size_t)snprintf(buf + n, sizeof buf - n, "2026/07/18 10:%02d:%02d.%03d,0,%.1f\n", (int)t / 60,
		                      (int)t % 60, (int)((t - (int)t) * 1000),
		                      (t > 2 && t < 9) || (t > 30 && t < 36) ? 400.0 : 120.0);
	}
	CHECK_INT(write_text(p, buf), 0);
	free(p);
	p = path_join(run, "requests.json");
	CHECK_INT(write_text(p, "{\"request_timestamps\":[1784368802.0,1784368830.0],\"input_lens\":[3000,1000],"
	                        "\"output_lens\":[400,300],\"ttfts\":[0.3,0.3],\"itls\":[0.012,0.012]}"), 0);
	free(p);
	p = path_join(run, "wattcast-run.json");
	CHECK_INT(write_text(p, "{\"schema\": \"wattcast.run/3\", \"platform\": \"H100\", \"model\": \"Qwen3-8B\", "
	                        "\"active_params_b\": 8.19, \"utc_offset_s\": 0}"), 0);
	free(p);
	return run;
}

/* The `column` value of the first data row of a --per-run CSV (NaN: none). */
static double
csv_value(const char *csv, const char *column)
{
	const char *line = csv;
	while (line && *line == '#')
		line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL;
	const char *row = line ? strchr(line, '\n') : NULL;
	if (!row)
		return NAN;
	row++;
	int col = 0, want = -1;
	for (const char *s = line; s < row - 1 && want < 0; col++) {
		size_t len = strcspn(s, ",\n");
		if (len == strlen(column) && strncmp(s, column, len) == 0)
			want = col;
		s += len + 1;
	}
	for (int c = 0; want >= 0 && c < want && row; c++)
		row = strchr(row, ',') ? strchr(row, ',') + 1 : NULL;
	return want >= 0 && row ? strtod(row, NULL) : NAN;
}

int
main(void)
{
	char *dir = test_tmpdir("cli_envelope_tau");
	char *run = h100_run(dir), *params = path_join(dir, "resp.json"), *per_run = path_join(dir, "per_run.csv");
	wc_params p = WC_PARAMS_INIT;
	wc_error err;
	CHECK_INT(wc_params_profile("measured", &p, &err), WC_OK);
	p.response.present = 1;
	p.response.fitted = 1;
	p.response.runs = 8;
	p.response.tau_s = (wc_response_value){ 0.09, 0.07, 0.13 };
	p.response.n_levels = 2;
	snprintf(p.response.levels[0].level, sizeof p.response.levels[0].level, "A100");
	p.response.levels[0].tau_s = (wc_response_value){ 0.087, NAN, NAN };
	p.response.levels[0].runs = 7;
	snprintf(p.response.levels[1].level, sizeof p.response.levels[1].level, "H100");
	p.response.levels[1].tau_s = (wc_response_value){ 0.83, NAN, NAN };
	p.response.levels[1].runs = 1;
	CHECK_INT(wc_params_save_file(params, &p, &err), WC_OK);
	wc_params_clear(&p);

	const char *argv[] = { "wattcast", "validate", "envelope", "--params", params, run, "--json", "--per-run",
		               per_run, NULL };
	run_result r;
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	json_t *j = json_loads(r.out ? r.out : "", 0, NULL);
	double json_tau = json_number_value(
		json_object_get(json_object_get(json_array_get(json_object_get(j, "runs"), 0), "response"), "tau_s"));
	json_decref(j);
	run_result_free(&r);
	char *csv = test_slurp(per_run);
	double csv_tau = csv_value(csv, "tau_s");
	fprintf(stderr, "tau_s: --json %g, --per-run %g\n", json_tau, csv_tau);
	CHECK_NEAR(json_tau, 0.83, 1e-12);
	CHECK_NEAR(csv_tau, 0.83, 1e-9);
	free(csv);
	free(per_run);
	free(params);
	free(run);
	free(dir);
	return check_report("test_cli_envelope_tau");
}
