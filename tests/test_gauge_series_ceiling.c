/*
 * A load series read from the engine's sampled gauge (a runs table's
 * n_source engine) does not hold its interval's top at P0 over the steps
 * it reads as 0 (docs/intervals.md, "Physical ceiling"): the gauge misses
 * short requests between its samples, and the GPU does not fall to idle
 * in sub-second gaps (BurstGPT on an A100, segments of 10: steps read 0
 * averaging 135-162 W at an idle of 87.6 W, measured means above their
 * intervals in 5 of 11 segments). A request log's series ("requests") and
 * a user's keep the idle-share ceiling. Until 2026-12-06 every series kept
 * it: the gauge run here ended at 170 W, as the log's.
 */
#include "data/data.h"
#include "tests/support/check.h"
#include "tests/support/support.h"

#include <stdlib.h>
#include <string.h>

/* The per-run CSV's `hi` of run `id`. */
static double
hi_of(const char *csv, const char *id)
{
	char line[64];
	snprintf(line, sizeof line, "\n%s,", id);
	const char *row = strstr(csv, line);
	CHECK(row != NULL);
	if (!row)
		return NAN;
	char one[4096], v[64];
	const char *end = strchr(row + 1, '\n');
	size_t head = (size_t)(strchr(csv, '\n') - csv), len = end ? (size_t)(end - row - 1) : strlen(row + 1);
	CHECK(head + 1 + len < sizeof one);
	snprintf(one, sizeof one, "%.*s\n%.*s", (int)head, csv, (int)len, row + 1);
	test_csv_field(one, "hi", v, sizeof v);
	return atof(v);
}

int
main(void)
{
	char *dir = test_tmpdir("gauge_series_ceiling");
	char *series = test_fixture(dir, "g.series", "t_s,running\n0,0\n1,0\n2,0\n3,64\n");
	char *table = test_fixture(dir, "g.csv", "run_id,platform,tp,model,n_series,mean_power_w,idle_power_w,n_source\n"
	                                         "gauge,A100,1,Qwen3-8B,g.series,300,80,engine\n"
	                                         "log,A100,1,Qwen3-8B,g.series,300,80,requests\n"
	                                         "mine,A100,1,Qwen3-8B,g.series,300,80,\n");
	char *per_run = path_join(dir, "g_r.csv");
	/* the reader notes the gauge */
	wc_runs_table *t = NULL;
	wc_error err;
	CHECK_INT(wc_runs_read(table, &t, &err), WC_OK);
	CHECK(t && t->n_runs == 3 && t->runs[0].n_gauge == 1 && t->runs[1].n_gauge == 0 && t->runs[2].n_gauge == 0);
	wc_runs_free(t);
	const char *argv[] = { "wattcast", "validate", "heldout", "--profile", "measured", table, "--per-run", per_run, NULL };
	test_run_ok(argv);
	char *csv = test_slurp(per_run);
	CHECK(csv != NULL);
	if (csv) {
		/* the log's and the user's: 3/4 x 80 W idle + 1/4 x 1.1 x 400 W */
		const double idle_share = 0.75 * 80.0 + 0.25 * 1.1 * 400.0, gauge = hi_of(csv, "gauge");
		printf("hi: gauge %.2f W, log %.2f W, user's %.2f W\n", gauge, hi_of(csv, "log"), hi_of(csv, "mine"));
		CHECK_NEAR(hi_of(csv, "log"), idle_share, 1e-6);
		CHECK_NEAR(hi_of(csv, "mine"), idle_share, 1e-6);
		CHECK(gauge > idle_share + 10.0 && gauge <= 1.1 * 400.0);
	}
	free(csv);
	free(per_run);
	free(table);
	free(series);
	free(dir);
	return check_report("test_gauge_series_ceiling");
}
