/*
 * The numbers docs/intervals.md quotes in its prose from the built-in
 * profile are the ones the binary gives now, as test_capacity_docs_numbers
 * holds docs/capacity.md's: each example is run, and the phrase the page
 * words it with, holding the program's digits, must be on the page (its
 * runs of white space read as one space). The page said the MI300X
 * Llama-3.1-70B TP 2 Poisson 2 envelope's p95_w interval tops at 1982 W,
 * 1.32 x the boards' 1500 W, where the program gives 2089 W.
 */
#include "tests/support/support.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int
page_says(const char *phrase)
{
	return test_doc_says("docs/intervals.md", phrase);
}

/* "Physical ceiling": the envelope's mean ends at the boards' ceiling, its
 * p95 is not held there. */
static void
mi300x_envelope(void)
{
	const char *argv[] = { "wattcast", "envelope", "--platform", "MI300X", "--model", "Llama-3.1-70B", "--tp", "2",
		               "--poisson", "2", "--quiet", "--threads", "1", "--json", NULL };
	run_result r;
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	json_t *j = json_loads(r.out ? r.out : "", 0, NULL);
	CHECK(j != NULL);
	const json_t *iv = json_object_get(json_object_get(j, "server"), "interval_95");
	const double mean_hi = json_number_value(json_array_get(json_object_get(iv, "mean_w"), 1));
	const double p95_hi = json_number_value(json_array_get(json_object_get(iv, "p95_w"), 1));
	char phrase[256];
	snprintf(phrase, sizeof phrase, "has `mean_w` up to %.0f W = 2 × 1.1 × 750 W. Its `p95_w` interval (up to %.0f "
	         "W, %.2f × the boards' 1500 W", mean_hi, p95_hi, p95_hi / 1500.0);
	CHECK(page_says(phrase));
	json_decref(j);
	run_result_free(&r);
}

int
main(void)
{
	mi300x_envelope();
	return check_report("test_intervals_docs_numbers");
}
