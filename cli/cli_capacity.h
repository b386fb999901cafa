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
