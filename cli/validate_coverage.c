/*
 * The coverage notes of the held-out reports (validate lomo, heldout,
 * capacity): runs without an interval, and coverage by load
 * (docs/intervals.md, "The quantile" and "Coverage by load").
 */
#include "cli_validate.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>

void
cli_note_no_interval(const wc_accuracy *overall, const char *groups)
{
	if (overall->n_interval >= overall->n)
		return;
	printf("note: %d of %d run(s) have no 95 %% interval: the %s held out beside theirs hold fewer than the %d "
	       "residuals a 95 %% quantile needs (docs/intervals.md, \"The quantile\")\n",
	       overall->n - overall->n_interval, overall->n, groups, WC_PE_MIN_RESIDUALS);
}

void
cli_load_bands_print(const wc_heldout_report *r)
{
	if (r->n_load_bands < 2)
		return;
	printf("cover 95%% by load (bands of equal count by running; docs/intervals.md, \"Coverage by load\")\n"
	       "%-22s %5s %9s %8s\n", "running", "n", "cover 95%", "width %");
	for (int i = 0; i < r->n_load_bands; i++) {
		const wc_load_band *b = &r->load_bands[i];
		char range[32];
		snprintf(range, sizeof range, "%.4g-%.4g", b->running_lo, b->running_hi);
		printf("%-22s %5d %9.1f %8.1f\n", range, b->n_interval, 100.0 * b->coverage_95,
		       100.0 * b->median_rel_width);
	}
}

void
cli_load_bands_json(json_t *o, const wc_heldout_report *r)
{
	json_t *a = json_array();
	for (int i = 0; i < r->n_load_bands; i++) {
		const wc_load_band *b = &r->load_bands[i];
		json_array_append_new(a, json_pack("{s:f,s:f,s:i,s:f,s:f}", "running_lo", b->running_lo, "running_hi",
		                                   b->running_hi, "n_interval", b->n_interval, "coverage_95",
		                                   b->coverage_95, "median_rel_width", b->median_rel_width));
	}
	json_object_set_new(o, "coverage_by_load", a);
}
