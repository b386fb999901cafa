/*
 * cli/: `wattcast envelope` (cli/cmd_envelope.c) and its files
 * (cli/envelope_io.c).
 */
#ifndef WC_CLI_ENVELOPE_H
#define WC_CLI_ENVELOPE_H

#include <stddef.h>

#include "cli.h"
#include "predict/predict.h"

/** Arrays read from files for one envelope command (owned). */
typedef struct {
	double *arrival_s, *arrival_in, *arrival_out;  /* --replay */
	size_t n_arrivals;
	double *series;                                /* --n-series, held on a uniform grid */
	size_t series_len;
	double series_dt;
	double *in_values, *out_values;                /* empirical lengths */
	size_t n_in_values, n_out_values;
	double *profile_until, *profile_rate;          /* --rate-profile */
	size_t n_profile;
	double *measured_t, *measured_w;               /* --measured: group power, s from the window start */
	size_t n_measured;
} cli_envelope_inputs;

void cli_envelope_inputs_free(cli_envelope_inputs *in);
int cli_read_replay(const char *cmd, const char *path, cli_envelope_inputs *in);
int cli_read_series(const char *cmd, const char *path, cli_envelope_inputs *in);
int cli_read_lengths(const char *cmd, const char *flag, const char *path, int output, double **values,
                     size_t *n);
int cli_write_band_csv(const char *cmd, const char *path, const wc_envelope_result *r);
int cli_write_band_svg(const char *cmd, const char *path, const wc_envelope_result *r,
                       const cli_envelope_inputs *in, const char *title);

#endif
