/* cli/: what `predict inference` and `predict flexibility` read from the
 * command line (predict_flags.c), for cmd_predict.c, which checks it and
 * answers. */
#ifndef WC_CLI_PREDICT_H
#define WC_CLI_PREDICT_H

#include "cli_flexibility.h"
#include "models/catalog.h"

/** What the command line asked for. */
typedef struct {
	const char *cmd;              /* "predict inference" or "predict flexibility" */
	int flex;                     /* 1: predict flexibility */
	cli_flex_options fo;
	const char *params_path, *profile, *model;
	wc_inference_query q;
	const char *conc_text;        /* --concurrency as given (NULL: not given) */
	const char *series_path;      /* --running-series FILE (NULL: not given) */
	wc_load_histogram series;     /* its samples: distinct counts, seconds at each */
	const char *money_text[2];    /* --price-per-kwh, --grams-co2-per-kwh as given */
	int json, have_active, help, have_in, have_out, have_rate, have_weights;
	long tp;
	double price, co2, power_cap;
	wc_arch_facts facts;   /* explicit architecture facts */
	wc_model_info arch;
} cli_predict_args;

/** The flags into `a` (each at most once; docs/cli.md, "Conventions");
 *  a->help set, and nothing printed, at --help. */
int cli_predict_flags(int argc, char **argv, cli_predict_args *a);

#endif
