/* cli/: what `fit capacity`, `fit request-energy` and `validate capacity`
 * share (capacity_inputs.c). */
#ifndef WC_CLI_CAPACITY_H
#define WC_CLI_CAPACITY_H

#include "fit/capacity_fit.h"

typedef struct {
	wc_runs_table *runs;          /* every runs-table input, merged */
	wc_periods_table *periods;    /* every periods-table input, merged */
	wc_capacity_data data;        /* the evidence drawn from both */
} cli_capacity_inputs;

/** Load `n` files (runs tables, periods tables, raw ML.ENERGY tables);
 *  errors are printed. Free with cli_capacity_inputs_free (also on failure). */
int cli_capacity_inputs_load(const char *cmd, char **paths, int n, cli_capacity_inputs *in);
void cli_capacity_inputs_free(cli_capacity_inputs *in);

/** Rows the capacity data skipped without a note (no timing: no running
 *  requests, no output_tokens, no observation): the line naming the runs
 *  of reason `why` (WC_CAPACITY_UNTIMED_*) -- the reason, their count and
 *  as many ids as fit 255 bytes -- into buf; *n the runs of that reason.
 *  `fit capacity` and `validate capacity` name them so (docs/capacity.md). */
void cli_capacity_untimed_line(const wc_runs_table *t, int why, char *buf, size_t cap, int *n);
/** Most lines cli_capacity_noted_lines writes. */
#define CLI_CAPACITY_REASONS_MAX (WC_WARNINGS_MAX + 1)
/** The rows the data skipped with a note, one line per reason; returns the
 *  lines, *named the rows they count. */
int cli_capacity_noted_lines(const wc_capacity_data *d, const wc_runs_table *t, char lines[][256], int *named);

/** --per-level LIST (eta, t0, t1, etac, tau) into per_level[]. */
int cli_parse_per_level(const char *cmd, const char *list, int *per_level);

/** --weights model|run into model_weights (1: each model counts once). */
int cli_parse_weights(const char *cmd, const char *arg, int *model_weights);

/* Targets of `wattcast fit` (cmd_fit_capacity.c). */
int cli_fit_capacity(int argc, char **argv);
int cli_fit_request_energy(int argc, char **argv);
/* `wattcast validate capacity` (cmd_validate_capacity.c). */
int cli_validate_capacity(int argc, char **argv);

#endif
