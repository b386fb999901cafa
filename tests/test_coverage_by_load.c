/*
 * Coverage by load (docs/intervals.md, "Coverage by load"): held-out rows
 * whose intervals miss more at light load are cut at the quartiles of
 * their running count, and each band's coverage is its own. The pooled
 * 95 % of 100 rows here (95 inside) hides a light band at 80 % and busy
 * bands at 100 %; a load tied across a cut stays in one band; fewer than
 * two bands of 20 rows give none; rows without a load (fine-tuning) none.
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

	/* 40 rows, 20 of them at one load: that load is one band, whole */
	for (int i = 0; i < 40; i++)
		add(&rows, i < 15 ? 1.0 + i : 32.0, 1, "mean_power_w");
	CHECK(wc__coverage_summary(&rows, NULL, &rep, &err) == WC_OK);
	CHECK(rep.n_load_bands == 2);
	CHECK(rep.load_bands[0].running_hi == 15.0 && rep.load_bands[0].n_interval == 15);
	CHECK(rep.load_bands[1].running_lo == 32.0 && rep.load_bands[1].n_interval == 25);
	CHECK(rep.load_bands[0].n_interval + rep.load_bands[1].n_interval == 40);
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
