/*
 * The inputs of `fit capacity` and `validate capacity`: any mix of runs
 * tables, periods tables and raw ML.ENERGY configuration tables, merged
 * by data/table_inputs.h, and the capacity evidence drawn from both.
 */
#include "cli.h"
#include "cli_capacity.h"
#include "data/table_inputs.h"

#include <string.h>

int
cli_capacity_inputs_load(const char *cmd, char **paths, int n, cli_capacity_inputs *in)
{
	wc_error err;
	memset(in, 0, sizeof *in);
	if (wc_table_inputs_read(paths, n > 0 ? (size_t)n : 0, &in->runs, &in->periods, &err) != WC_OK)
		return cli_fail(cmd, "%s", err.msg);
	if (wc_capacity_data_add_runs(&in->data, in->runs, &err) != WC_OK ||
	    wc_capacity_data_add_periods(&in->data, in->periods, &err) != WC_OK)
		return cli_fail(cmd, "%s", err.msg);
	if (n > 1)
		wc_table_inputs_fingerprint(paths, (size_t)n, in->data.sha256);
	return CLI_OK;
}

void
cli_capacity_inputs_free(cli_capacity_inputs *in)
{
	wc_runs_free(in->runs);
	if (in->periods)
		wc_periods_free(in->periods);
	wc_capacity_data_clear(&in->data);
	memset(in, 0, sizeof *in);
}
