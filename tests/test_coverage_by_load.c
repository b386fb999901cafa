/*
 * Coverage by load (docs/intervals.md, "Coverage by load"): held-out rows
 * whose intervals miss more at light load are cut at the quartiles of
 * their running count, and each band's coverage is its own. The pooled
 * 95 % of 100 rows here (95 inside) hides a light band at 80 % and busy
 * bands at 100 %; a load tied across a cut stays in one band, and no
 * band holds fewer than 20 rows (fewer than two such bands give none);
 * rows without a load (fine-tuning) none.
 */
#include "tests/support/check.h"
#include "validation/validation_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static void
add(wc_per_run *rows, double running, int inside, const char *quantity)
{
	wc_per_run_row r;
	wc_per_run_row_init(&r);
	snprintf(r.run_id, sizeof r.run_id, "run%zu", rows->n);
	snprintf(r.quantity, sizeof r.quantity, "%s", quantity);
	if (running > 0)
		wc_per_run_row_input_number(&r, "running", running);
	r.predicted = 100.0;
	r.measured = inside ? 110.0 : 140.0;
	r.lo = 80.0;
	r.hi = 120.0 + running / 100.0; /* widths grow with the load: the median per band shows it */
	wc_error err;
	CHECK(wc_per_run_add(rows, &r, &err) == WC_OK);
}

int
main(void)
{
	wc_per_run rows = WC_PER_RUN_INIT;
	wc_heldout_report rep;
	wc_error err;
	/* 100 loaded rows, running 1..100: the first 25 miss 5 of theirs */
	for (int i = 1; i <= 100; i++)
		add(&rows, i, !(i <= 25 && i % 5 == 0), "mean_power_w");
	memset(&rep, 0, sizeof rep);
	CHECK(wc__coverage_summary(&rows, "mean_power_w", &rep, &err) == WC_OK);
	CHECK(fabs(rep.overall.coverage_95 - 0.95) < 1e-12);
	CHECK(rep.n_load_bands == 4);
	CHECK(rep.load_bands[0].running_lo == 1.0 && rep.load_bands[0].running_hi == 25.0);
	CHECK(rep.load_bands[0].n_interval == 25);
	CHECK(fabs(rep.load_bands[0].coverage_95 - 0.80) < 1e-12);
	for (int b = 1; b < 4; b++)
		CHECK(rep.load_bands[b].coverage_95 == 1.0);
	CHECK(rep.load_bands[3].running_hi == 100.0);
	CHECK(fabs(rep.load_bands[0].median_rel_width - (40.0 + 0.13) / 100.0) < 1e-9);
	CHECK(rep.load_bands[3].median_rel_width > rep.load_bands[0].median_rel_width);

	/* another quantity's rows take no part */
	for (int i = 1; i <= 30; i++)
		add(&rows, 500.0, 0, "throughput_tok_s");
	CHECK(wc__coverage_summary(&rows, "mean_power_w", &rep, &err) == WC_OK);
	CHECK(rep.n_load_bands == 4 && rep.load_bands[3].running_hi == 100.0);
	wc_per_run_clear(&rows);

	/* 45 rows, 25 of them at one load: that load is one band, whole,
	 * the cut moved before it (the band before keeps its 20) */
	for (int i = 0; i < 45; i++)
		add(&rows, i < 20 ? 1.0 + i : 32.0, 1, "mean_power_w");
	CHECK(wc__coverage_summary(&rows, NULL, &rep, &err) == WC_OK);
	CHECK(rep.n_load_bands == 2);
	CHECK(rep.load_bands[0].running_hi == 20.0 && rep.load_bands[0].n_interval == 20);
	CHECK(rep.load_bands[1].running_lo == 32.0 && rep.load_bands[1].n_interval == 25);
	wc_per_run_clear(&rows);

	/* 40 rows, 25 at one load: moved before it the band before would hold
	 * 15, after it nothing is left -- one band, none shown (a band of 15
	 * was shown, under the minimum of 20) */
	for (int i = 0; i < 40; i++)
		add(&rows, i < 15 ? 1.0 + i : 32.0, 1, "mean_power_w");
	CHECK(wc__coverage_summary(&rows, NULL, &rep, &err) == WC_OK);
	CHECK_INT(rep.n_load_bands, 0);
	wc_per_run_clear(&rows);

	/* 80 rows, 21 at one load then 59 apart: the cut moved past the tied
	 * load left the next band 19 rows (bands of 21, 19, 20, 20); the rows
	 * left are now shared by the bands they fill, none under 20 */
	for (int i = 0; i < 80; i++)
		add(&rows, i < 21 ? 10.0 : 41.0 + (i - 21), 1, "mean_power_w");
	CHECK(wc__coverage_summary(&rows, NULL, &rep, &err) == WC_OK);
	CHECK_INT(rep.n_load_bands, 3);
	CHECK_INT(rep.load_bands[0].n_interval, 21);
	CHECK_INT(rep.load_bands[1].n_interval, 29);
	CHECK_INT(rep.load_bands[2].n_interval, 30);
	for (int b = 0, sum = 0; b < rep.n_load_bands; b++) {
		CHECK(rep.load_bands[b].n_interval >= WC_LOAD_BAND_MIN_ROWS);
		sum += rep.load_bands[b].n_interval;
		if (b + 1 == rep.n_load_bands)
			CHECK_INT(sum, 80);
	}
	CHECK(rep.load_bands[0].running_hi == 10.0 && rep.load_bands[1].running_lo == 41.0);
	wc_per_run_clear(&rows);

	/* 39 rows: one band of 20 at most, so none */
	for (int i = 1; i <= 39; i++)
		add(&rows, i, 1, "mean_power_w");
	CHECK(wc__coverage_summary(&rows, NULL, &rep, &err) == WC_OK);
	CHECK(rep.n_load_bands == 0);
	wc_per_run_clear(&rows);

	/* rows without a running count (fine-tuning): none */
	for (int i = 1; i <= 60; i++)
		add(&rows, 0, 1, "energy_per_step_j");
	CHECK(wc__coverage_summary(&rows, NULL, &rep, &err) == WC_OK);
	CHECK(rep.n_load_bands == 0);
	wc_per_run_clear(&rows);
	return check_report("test_coverage_by_load");
}
