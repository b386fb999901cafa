/*
 * The in-sample warnings of a frozen set scored on a table, and their
 * JSON fields: one place for validate heldout and validate fewshot's base
 * (its k = 0 column is validate heldout's on the same runs).
 */
#include "cli.h"
#include "cli_validate.h"

#include <jansson.h>
#include <stdio.h>

void
cli_validate_in_sample(const char *cmd, const wc_params *p, const wc_runs_table *t, const char *input,
                       int datasheet, wc_in_sample_rows *in, int *coverage_in_sample)
{
	char msg[WC_ERROR_MSG_MAX];
	if (wc_heldout_in_sample(p, t, input, msg, sizeof msg, in))
		fprintf(stderr, "wattcast %s: warning: %s\n", cmd, msg);
	/* a level's P0 set from these rows, or a set too old to tell */
	if (wc_heldout_level_note(p, t, in, input, msg, sizeof msg, &in->idle))
		fprintf(stderr, "wattcast %s: warning: %s\n", cmd, msg);
	*coverage_in_sample = wc_heldout_interval_in_sample(p, t, datasheet, input, msg, sizeof msg);
	if (*coverage_in_sample)
		fprintf(stderr, "wattcast %s: warning: %s\n", cmd, msg);
}

/* Named as validate envelope's response_in_sample, for what saw the rows
 * (docs/validation.md, "Frozen-law accuracy"). */
void
cli_in_sample_json(struct json_t *o, const wc_in_sample_rows *in, int coverage_in_sample)
{
	json_object_set_new(o, "law_in_sample", json_integer((json_int_t)in->law));
	json_object_set_new(o, "calibration_in_sample", json_integer((json_int_t)in->calibration));
	json_object_set_new(o, "capacity_in_sample", json_integer((json_int_t)in->capacity));
	json_object_set_new(o, "level_in_sample", json_integer((json_int_t)in->idle));
	json_object_set_new(o, "rows_in_sample", json_integer((json_int_t)in->rows));
	json_object_set_new(o, "coverage_in_sample", json_boolean(coverage_in_sample));
}
