/*
 * The built-in "measured" profile's A100 idle is the real A100 boards'
 * (docs/fitting.md, "The measured profile"): ../shared's PowerTrace-Sim
 * A100 runs ingested as validation/refit-measured.sh ingests them, the
 * mean of the idle_power_w of those that have one (each run's by
 * ingest's rule, docs/trace-metrics.md "Idle power"; pooled as
 * `calibrate --scope platform` pools a new level's P0), source
 * "measured". Until 2026-12-07 it was the synthetic published design's
 * 72.93 W, source "simulated", below every real run's 82.0-87.6 W. H200
 * keeps the design's simulated idle: no real H200 run exists. The runs
 * that take the profile's P0 in `validate envelope` are those without an
 * idle of their own, which the pool leaves out: a run is never predicted
 * with a pool holding its own idle. Skipped (77) when ../shared is absent.
 */
#include "data/data.h"
#include "models/profile_measured.h"
#include "tests/support/support.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int
main(void)
{
	const char *shared = test_shared_dir();
	if (!shared)
		return TEST_SKIP;
	/* the script's own ingest (validation/refit-measured.sh) */
	char *tmp = test_tmpdir("real_measured_idle"), *out = test_ingest_powertrace(shared, tmp);

	wc_runs_table *t = NULL;
	wc_error err;
	double sum = 0.0, lo = INFINITY, hi = -INFINITY;
	int pooled = 0, without = 0, h200 = 0;
	CHECK_INT(wc_runs_read(out, &t, &err), WC_OK);
	for (size_t i = 0; t && i < t->n_runs; i++) {
		const wc_run *run = &t->runs[i];
		h200 += strcmp(run->platform, "H200") == 0;
		if (strcmp(run->platform, "A100") != 0)
			continue;
		if (!isfinite(run->idle_power_w)) {
			without++; /* these take the profile's P0 */
			continue;
		}
		sum += run->idle_power_w;
		lo = fmin(lo, run->idle_power_w);
		hi = fmax(hi, run->idle_power_w);
		pooled++;
	}
	wc_runs_free(t);
	printf("A100: %d runs with a measured idle, %.2f-%.2f W, mean %.3f W; %d without\n", pooled, lo, hi,
	       pooled ? sum / pooled : NAN, without);
	CHECK_INT(pooled, 5);
	CHECK_INT(without, 2);
	CHECK_INT(h200, 0);

	wc_params m = WC_PARAMS_INIT;
	wc_params_measured(&m);
	const wc_level *a100 = wc_params_level(&m, "A100"), *h = wc_params_level(&m, "H200");
	CHECK(a100 != NULL && h != NULL);
	if (a100 && pooled) {
		printf("profile: A100 P0 %.3f W (%s)\n", a100->p0.value, wc_source_name(a100->p0.source));
		CHECK_NEAR(a100->p0.value, sum / pooled, 1e-9);
		CHECK(a100->p0.value >= lo && a100->p0.value <= hi);
		CHECK_INT((int)a100->p0.source, (int)WC_SRC_MEASURED);
	}
	if (h)
		CHECK_INT((int)h->p0.source, (int)WC_SRC_SIMULATED);
	wc_params_clear(&m);
	free(tmp);
	free(out);
	return check_report("test_real_measured_idle");
}
