/*
 * The coverage notes of the held-out reports (validate lomo, heldout,
 * capacity): runs without an interval, and coverage by load
 * (docs/intervals.md, "The quantile" and "Coverage by load").
 */
#include "cli_validate.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

void
cli_note_no_interval(const wc_accuracy *overall, const char *groups, const char *who)
{
	if (overall->n_interval >= overall->n)
		return;
	printf("note: %s%d of %d run(s) have no 95 %% interval: the %s held out beside theirs hold fewer than the %d "
	       "residuals a 95 %% quantile needs (docs/intervals.md, \"The quantile\")\n", who ? who : "",
	       overall->n - overall->n_interval, overall->n, groups, WC_PE_MIN_RESIDUALS);
}

/* The significant digits the band labels take: 4, or as many more as
 * tell each band's edges from its neighbours' (95.7255 and 95.7344, two
 * bands' edges, both printed 95.73 and read as one load split between
 * them, which never happens; docs/intervals.md, "Coverage by load"). */
static int
label_digits(const wc_heldout_report *r)
{
	for (int d = 4; d < 17; d++) {
		int apart = 1;
		for (int i = 0; i + 1 < r->n_load_bands && apart; i++) {
			char a[32], b[32];
			snprintf(a, sizeof a, "%.*g", d, r->load_bands[i].running_hi);
			snprintf(b, sizeof b, "%.*g", d, r->load_bands[i + 1].running_lo);
			apart = strcmp(a, b) != 0;
		}
		if (apart)
			return d;
	}
	return 17;
}

void
cli_load_bands_print(const wc_heldout_report *r)
{
	if (r->n_load_bands < 2)
		return;
	printf("cover 95%% by load (bands of equal count by running; docs/intervals.md, \"Coverage by load\")\n"
	       "%-22s %5s %9s %8s\n", "running", "n", "cover 95%", "width %");
	const int d = label_digits(r);
	for (int i = 0; i < r->n_load_bands; i++) {
		const wc_load_band *b = &r->load_bands[i];
		char range[56];
		snprintf(range, sizeof range, "%.*g-%.*g", d, b->running_lo, d, b->running_hi);
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
