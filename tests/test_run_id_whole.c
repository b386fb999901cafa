/*
 * A run id a message names goes whole; only the message's bound cuts it,
 * ending in "..." (docs/architecture.md, "Errors"). The fit's refusal of
 * a level whose every run is beyond the board's bound named `run
 * lm-arena-chat|Qwen/Qwen3-235B-A2` -- the first 32 bytes, shared by all
 * five runs of that ML.ENERGY sweep (its ids are 55-70 bytes) -- and the
 * note of excluded rows cut the id at 40 bytes, both with no "...".
 */
#include "data/data.h"
#include "fit/fit.h"
#include "tests/support/support.h"

#include <gsl/gsl_errno.h>
#include <string.h>

#define LONG_ID "lm-arena-chat|Qwen/Qwen3-235B-A22B-Instruct-2507|B200|4gpu|seqs8"

static void
add(wc_runs_table *t, const char *id, double n, double power)
{
	wc_run r;
	wc_run_init(&r);
	snprintf(r.run_id, sizeof r.run_id, "%s", id);
	snprintf(r.platform, sizeof r.platform, "L40S");
	snprintf(r.model, sizeof r.model, "Qwen3-235B-A22B");
	r.active_params_b = 22;
	r.running = n;
	r.idle_power_w = 60;
	r.mean_power_w = power;
	CHECK_INT(wc_runs_append(t, &r, NULL), WC_OK);
}

int
main(void)
{
	gsl_set_error_handler_off();
	wc_error err;
	wc_fit_options fo = WC_FIT_OPTIONS_INIT;
	wc_fit_result r;

	/* The fit's refusal: the id whole, the message within its bound. */
	wc_runs_table *t = wc_runs_new();
	add(t, LONG_ID, 8, 2562.2);
	add(t, LONG_ID "6", 16, 2896.7);
	CHECK_INT(wc_fit_inference_law(t, &fo, &r, &err), WC_EINVAL);
	CHECK_CONTAINS(err.msg, "(wrong unit, platform or tp? run " LONG_ID ")");
	CHECK(strlen(err.msg) <= 255);

	/* The note of excluded rows: the id whole; a note too long for its
	 * buffer cut by the one rule, with "...". */
	snprintf(t->runs[0].exclude, sizeof t->runs[0].exclude, "x");
	char note[256];
	CHECK(wc_runs_excluded_why(t, note, sizeof note) == 1);
	CHECK_CONTAINS(note, "(" LONG_ID "'s: 'x')");
	char shorter[100];
	CHECK(wc_runs_excluded_why(t, shorter, sizeof shorter) == 1);
	CHECK(strlen(shorter) == sizeof shorter - 1 && strcmp(shorter + sizeof shorter - 4, "...") == 0);
	wc_runs_free(t);
	return check_report("test_run_id_whole");
}
