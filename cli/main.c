/* wattcast: dispatch to a command (cli/cmd_*.c). */
#include "cli.h"

#include <string.h>

static const cli_command commands[] = {
	{ "predict", "predict mean power, or fine-tuning energy, from a frozen law", cli_cmd_predict },
	{ "fit", "fit a law (inference or fine-tuning) and freeze a parameter file", cli_cmd_fit },
	{ "calibrate", "adapt a frozen law to a few runs of your own models or platform", cli_cmd_calibrate },
	{ "validate", "held-out validation: forms, precision terms, frozen accuracy, fine-tuning", cli_cmd_validate },
	{ "simulate", "generate a synthetic runs table (inference or fine-tuning)", cli_cmd_simulate },
	{ "import", "convert a published table or any CSV into a runs table", cli_cmd_import },
	{ "ingest", "turn measured runs (serving or fine-tuning) into a runs table", cli_cmd_ingest },
	{ "metrics", "grid-facing metrics of one power trace", cli_cmd_metrics },
	{ "envelope", "forecast the power trace's band, peaks and ramps; plan a fleet under a budget", cli_cmd_envelope },
	{ "serve", "serve predictions over HTTP", cli_cmd_serve },
	{ "profile", "write a built-in parameter set as a parameter file", cli_cmd_profile },
};
#define N_COMMANDS (sizeof commands / sizeof commands[0])

static void
usage(FILE *out)
{
	fprintf(out,
	        "wattcast %s - power and energy of LLM inference on GPUs, fitted and predicted\n\n"
	        "usage: wattcast COMMAND [ARGS...]\n"
	        "       wattcast COMMAND --help\n"
	        "       wattcast --version\n\ncommands:\n", WC_VERSION);
	for (size_t i = 0; i < N_COMMANDS; i++)
		fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "\nexit status: 0 ok, 1 the work failed, 2 bad command line\n");
}

int
main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return CLI_USAGE;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		if (argc > 2 && strcmp(argv[1], "help") == 0) {
			char *sub[] = { argv[2], (char *)"--help", NULL };
			for (size_t i = 0; i < N_COMMANDS; i++)
				if (strcmp(argv[2], commands[i].name) == 0)
					return commands[i].run(2, sub);
		}
		usage(stdout);
		return CLI_OK;
	}
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
		printf("wattcast %s\n", WC_VERSION);
		return CLI_OK;
	}
	for (size_t i = 0; i < N_COMMANDS; i++)
		if (strcmp(argv[1], commands[i].name) == 0)
			return commands[i].run(argc - 1, argv + 1);
	fprintf(stderr, "wattcast: unknown command '%s' (see wattcast --help)\n", argv[1]);
	return CLI_USAGE;
}
