/*
 * The runs calibrate names as missed are missed by the set it writes, as
 * its answers give them (docs/calibration.md, "Runs the result misses").
 * The shift is fitted on the law uncapped, but every answer settles the
 * clock under the board's power limit (docs/capacity.md, "The board's
 * power limit"), and validate heldout scores the runs so. Before, the
 * warning scored them on the raw law: on the measured profile four A100
 * runs, two of them at 128 and 256 running where the law gives more than
 * 400 W per GPU, were named at +28.9 % and +22.9 % while the set answers
 * them at +25.0 % and +21.2 % (400 W).
 *
 * Each missed run is named, by the CLI and by POST /v1/calibrate, with the
 * error validate heldout --per-run gives it (to 0.1 %), and no other; on
 * the paper profile, where no answer is clipped, the same holds.
 */
#include "data/data.h"
#include "models/models.h"
#include "server/server.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

#include <math.h>
#include <stdlib.h>
#include <sys/stat.h>

#define N_RUNS 4
static const char *const ids[N_RUNS] = { "r1", "r2", "r3", "r4" };
static const double running[N_RUNS] = { 256, 2, 128, 4 };
static const double mean_w[N_RUNS] = { 320, 300, 330, 320 };
static char *dir;

/* validate heldout's error_pct of each run, and whether any answer was
 * settled under the board's limit. */
static int
heldout_errors(const char *params, const char *runs, double *err_pct)
{
	char *csv = path_join(dir, "per-run.csv");
	const char *argv[] = { "wattcast", "validate", "heldout", "--params", params, runs, "--per-run", csv, NULL };
	test_run_ok(argv);
	char *text = test_slurp(csv);
	int settled = text && strstr(text, "settles") != NULL, col = -1;
	for (int i = 0; i < N_RUNS; i++)
		err_pct[i] = NAN;
	char *save = NULL;
	for (char *line = text ? strtok_r(text, "\n", &save) : NULL; line; line = strtok_r(NULL, "\n", &save)) {
		char *cells[32];
		int n = 0;
		for (char *c = line; c && n < 32; c = strchr(c, ',') ? strchr(c, ',') + 1 : NULL)
			cells[n++] = c; /* empty cells count: strtod stops at the ',' */
		if (col < 0) {
			for (int k = 0; k < n; k++)
				if (strncmp(cells[k], "error_pct,", 10) == 0)
					col = k;
			continue;
		}
		for (int i = 0; i < N_RUNS; i++)
			if (n > col && strncmp(cells[0], ids[i], strlen(ids[i])) == 0 && cells[0][strlen(ids[i])] == ',')
				err_pct[i] = strtod(cells[col], NULL);
	}
	CHECK(col >= 0);
	free(text);
	free(csv);
	return settled;
}

/* `said` names each run heldout misses by over 15 % with its error to
 * 0.1 % and no other run, and says how many. */
static void
check_named(const char *said, const double *err_pct, const char *what)
{
	char want[64];
	int missed = 0;
	for (int i = 0; i < N_RUNS; i++) {
		CHECK(isfinite(err_pct[i]));
		int miss = fabs(err_pct[i]) > 15.0;
		missed += miss;
		snprintf(want, sizeof want, "%s %+.1f %%", ids[i], err_pct[i]);
		CHECK((strstr(said, want) != NULL) == miss);
		if ((strstr(said, want) != NULL) != miss)
			fprintf(stderr, "  %s: '%s' %s in: %s\n", what, want, miss ? "missing" : "named", said);
	}
	CHECK(missed > 0);
	snprintf(want, sizeof want, "misses %d of its %d runs", missed, N_RUNS);
	CHECK_CONTAINS(said, want);
}

static void
check_profile(CURL *h, const char *profile, int clipped)
{
	char csv[512], body[1024], name[64];
	size_t len = 0, blen = 0;
	len += (size_t)snprintf(csv, sizeof csv, "run_id,platform,tp,model,active_params_b,running,mean_power_w,"
	                                         "idle_power_w\n");
	blen += (size_t)snprintf(body, sizeof body, "{\"bootstrap\":0,\"seed\":1,\"runs\":[");
	for (int i = 0; i < N_RUNS; i++) {
		len += (size_t)snprintf(csv + len, sizeof csv - len, "%s,A100,1,Qwen3-8B,8,%g,%g,60\n", ids[i],
		                        running[i], mean_w[i]);
		blen += (size_t)snprintf(body + blen, sizeof body - blen,
		                         "%s{\"run_id\":\"%s\",\"platform\":\"A100\",\"tp\":1,\"model\":\"Qwen3-8B\","
		                         "\"running\":%g,\"mean_power_w\":%g,\"idle_power_w\":60}",
		                         i ? "," : "", ids[i], running[i], mean_w[i]);
	}
	snprintf(body + blen, sizeof body - blen, "]}");
	snprintf(name, sizeof name, "%s-runs.csv", profile);
	char *runs = test_fixture(dir, name, csv);
	snprintf(name, sizeof name, "%s-cal.json", profile);
	char *out = path_join(dir, name);
	const char *cal[] = { "wattcast", "calibrate", "--profile", profile, runs, "-o", out, "--bootstrap", "0",
		              "--seed", "1", NULL };
	run_result r;
	CHECK_INT(run_wattcast(cal, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	double err_pct[N_RUNS];
	/* the board's limit binds on measured (400 W per A100), on paper not */
	CHECK(heldout_errors(out, runs, err_pct) == clipped);
	check_named(r.out ? r.out : "", err_pct, profile);
	run_result_free(&r);

	/* POST /v1/calibrate on a server of the same profile */
	wc_params base = WC_PARAMS_INIT;
	wc_error err;
	CHECK_INT(wc_params_profile(profile, &base, &err), WC_OK);
	wc_server *srv = http_server_start(&base, profile, 2);
	http_reply hr;
	memset(&hr, 0, sizeof hr);
	if (srv) {
		http_post_json(h, url("/v1/calibrate"), body, &hr);
		wc_server_stop(srv);
	}
	CHECK_INT(hr.status, 200);
	char *warnings = hr.json ? json_dumps(json_object_get(hr.json, "warnings"), 0) : NULL;
	check_named(warnings ? warnings : "", err_pct, "POST /v1/calibrate");
	free(warnings);
	http_reply_free(&hr);
	wc_params_clear(&base);
	free(runs);
	free(out);
}

int
main(void)
{
	dir = test_tmpdir("server_calibrate_settled_misses");
	char *tmp = path_join(dir, "tmp");
	CHECK_INT(mkdir(tmp, 0700), 0);
	setenv("TMPDIR", tmp, 1); /* where the route makes its private folders */
	curl_global_init(CURL_GLOBAL_DEFAULT);
	CURL *h = curl_easy_init();
	check_profile(h, "measured", 1);
	check_profile(h, "paper", 0);
	curl_easy_cleanup(h);
	curl_global_cleanup();
	free(tmp);
	free(dir);
	return check_report("test_server_calibrate_settled_misses");
}
