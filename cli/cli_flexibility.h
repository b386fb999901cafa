/* cli/: `wattcast predict flexibility` (flexibility_io.c), called from
 * cmd_predict.c, which parses the configuration as `predict inference`
 * does. */
#ifndef WC_CLI_FLEXIBILITY_H
#define WC_CLI_FLEXIBILITY_H

#include "cli.h"
#include "predict/capacity_predict.h"
#include "predict/predict.h"

/** `predict flexibility` outputs (flexibility_io.c): the sweep, JSON or
 *  for people on stdout, and optional CSV and SVG files. */
typedef struct {
	int by_cap, steps, json;
	const char *csv, *svg;
	int (*config_error)(const char *cmd, const wc_error *err); /* a refusal naming the flag */
	double price_per_kwh, grams_co2_per_kwh; /* as given (NaN: not): the sweep uses neither, and says so */
} cli_flex_options;
int cli_flexibility_run(const char *cmd, const wc_params *params, const wc_inference_query *q,
                        const cli_flex_options *o);

/** The capacity answer `cp` to configuration `c`, for people, on stdout
 *  (capacity_text.c). */
void cli_print_capacity(const wc_config *c, const wc_capacity_prediction *cp);

#endif
