/* Private to cli/: reports of `wattcast validate` kept in files of their own. */
#ifndef WC_CLI_VALIDATE_H
#define WC_CLI_VALIDATE_H

#include "validation/validation.h"

/** Print the report of `validate forms --real` (report_forms_real.c), as
 *  text or JSON. Returns CLI_OK. */
int cli_report_forms_real(const char *input, int json, const wc_forms_real_report *r);

/** A runs table with a header and no rows scores nothing, nor one whose
 *  every row is excluded for an analysis that leaves excluded rows out
 *  (`scores_excluded` 0: all but heldout): print why (naming `input`;
 *  wc_runs_excluded_note) and return CLI_FAIL; CLI_OK otherwise. Every
 *  held-out analysis of a runs table refuses them so, rather than print an
 *  empty report with exit 0. */
int cli_validate_some_runs(const char *cmd, const char *input, const wc_runs_table *t, int scores_excluded);

/** Cross-conformal reports (validate lomo, validate capacity): when
 *  `overall` has runs without an interval, one line saying how many and
 *  why -- the other `groups` hold fewer residuals than a 95 % quantile
 *  needs (docs/intervals.md, "The quantile") -- rather than a bare "–". */
void cli_note_no_interval(const wc_accuracy *overall, const char *groups);

#endif
