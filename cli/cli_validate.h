/* Private to cli/: reports of `wattcast validate` kept in files of their own. */
#ifndef WC_CLI_VALIDATE_H
#define WC_CLI_VALIDATE_H

#include "validation/validation.h"

#include <getopt.h>

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
/** The refusal of inputs (`input`: the file, or the label of several)
 *  that hold a header and no rows: "INPUT: no runs (a header and no rows):
 *  nothing to validate", CLI_FAIL. Every analysis says it so. */
int cli_validate_no_rows(const char *cmd, const char *input);

/** Write the analysis' --per-run file `path` (NULL: none asked) when it
 *  scored `scored` > 0 rows; when it scored nothing, none, and a file
 *  already there stays as it was (docs/validation.md, "Per-run output"):
 *  the one rule of every validate analysis that fails for scoring
 *  nothing (validate_skips.c). Returns WC_OK or the write's error. */
int cli_validate_per_run_write(const char *path, const wc_per_run *pr, long scored, wc_error *err);

/** Cross-conformal reports (validate lomo, validate capacity, validate
 *  forms --real): when `overall` has runs without an interval, one line
 *  saying how many and why -- the other `groups` hold fewer residuals than
 *  a 95 % quantile needs (docs/intervals.md, "The quantile") -- rather
 *  than a bare "–"; `who` (NULL: none) names the report it is about. */
void cli_note_no_interval(const wc_accuracy *overall, const char *groups, const char *who);

/** The report's coverage by load (docs/intervals.md, "Coverage by
 *  load"): a table after the report's, nothing when it has fewer than two
 *  bands; in JSON, "coverage_by_load", an array of {running_lo,
 *  running_hi, n_interval, coverage_95, median_rel_width}, empty then
 *  (validate_coverage.c). */
void cli_load_bands_print(const wc_heldout_report *r);
struct json_t;
void cli_load_bands_json(struct json_t *o, const wc_heldout_report *r);

/** A frozen set `p` scored on `t` (validate heldout; fewshot's base):
 *  on stderr the warnings of wc_heldout_in_sample (rows the set was
 *  fitted or calibrated on, or whose power its capacity section, fitted
 *  on this table, moves) and wc_heldout_interval_in_sample (its
 *  interval's quantile computed on these rows, `datasheet` as scored);
 *  into `*in` and `*coverage_in_sample` what they found, for the JSON. */
void cli_validate_in_sample(const char *cmd, const wc_params *p, const wc_runs_table *t, const char *input,
                            int datasheet, wc_in_sample_rows *in, int *coverage_in_sample);
/** Into `o` those findings: law_in_sample, calibration_in_sample,
 *  capacity_in_sample and rows_in_sample (row counts) and
 *  coverage_in_sample (a boolean). */
struct json_t;
void cli_in_sample_json(struct json_t *o, const wc_in_sample_rows *in, int coverage_in_sample);

/** The runs a frozen-law score skipped, each reason whole
 *  (cli/validate_skips.c): filled by cli_skips_add, a wc_heldout_skip_fn
 *  with a cli_skips as its payload; `lost` those out of memory dropped. */
typedef struct {
	char **run_id, **why;
	size_t n, cap, lost;
} cli_skips;
void cli_skips_add(const char *run_id, const char *why, void *payload);
/** One stderr warning a run: "warning: run 'ID' skipped: WHY". */
void cli_skips_warn(const char *cmd, const cli_skips *s);
/** Into `o`: "skipped_runs", [{run_id, reason}] (validate capacity's shape), every one. */
void cli_skips_json(struct json_t *o, const cli_skips *s);
void cli_skips_free(cli_skips *s);

/** One stderr warning per structure term and reason the refits of `n`
 *  reports left it out for, in the fit's words, with how many of their
 *  refits gave that reason (docs/fitting.md, "Structure terms";
 *  validate_skips.c). */
void cli_law_terms_warn(const char *cmd, const wc_heldout_report *const *reps, int n);

/** The analyses of `wattcast validate`, one bit each; forms and fewshot
 *  count as two, without and with the switch that changes what they take
 *  (--real, --lomo). */
enum {
	CLI_VA_FORMS = 1u << 0, CLI_VA_FORMS_REAL = 1u << 1, CLI_VA_PRECISION = 1u << 2, CLI_VA_HELDOUT = 1u << 3,
	CLI_VA_LOMO = 1u << 4, CLI_VA_FEWSHOT = 1u << 5, CLI_VA_FEWSHOT_LOMO = 1u << 6, CLI_VA_CAPACITY = 1u << 7,
	CLI_VA_FINETUNE = 1u << 8, CLI_VA_ENVELOPE = 1u << 9,
};

/** CLI_OK when `flag` (without its dashes) applies to `analysis` (a
 *  CLI_VA_* bit) by the one table of validate_flags.c, or is not in it;
 *  else the usage error "--FLAG applies to A, B and C only (see --help)",
 *  CLI_USAGE. */
int cli_validate_flag_check(const char *cmd, unsigned analysis, const char *flag);
/** cli_validate_flag_check for each of `opts` whose `given[i]` is set. */
int cli_validate_flags_given(const char *cmd, unsigned analysis, const struct option *opts,
                             const unsigned char *given);
/** cli_bad_option for a validate analysis: an unknown flag that another
 *  analysis takes is refused naming the analyses it applies to, as
 *  cli_validate_flag_check does. Call from the `default:` branch. */
int cli_validate_bad_option(const char *cmd, unsigned analysis, int opt, char **argv);

#endif
