/* wattcast: dispatch to a command (cli/cmd_*.c). */
#include "cli.h"

#include "data/fileio.h"
#include "models/progress.h"

#include <errno.h>
#include <string.h>

static const cli_command commands[] = {
	{ .name = "predict", .run = cli_cmd_predict,
	  .summary = "predict mean power, or fine-tuning energy, from a frozen law" },
	{ .name = "fit", .run = cli_cmd_fit,
	  .summary = "fit a law (inference or fine-tuning) and freeze a parameter file" },
	{ .name = "calibrate", .run = cli_cmd_calibrate,
	  .summary = "adapt a frozen law to a few runs of your own models or platform" },
	{ .name = "validate", .run = cli_cmd_validate,
	  .summary = "held-out validation: forms, precision terms, frozen accuracy, fine-tuning" },
	{ .name = "simulate", .run = cli_cmd_simulate,
	  .summary = "generate a synthetic runs table (inference or fine-tuning)" },
	{ .name = "import", .run = cli_cmd_import,
	  .summary = "convert a published table or any CSV into a runs table" },
	{ .name = "ingest", .run = cli_cmd_ingest,
	  .summary = "turn measured runs (serving or fine-tuning) into a runs table",
	  .reads = "ingest: MB read" },
	{ .name = "metrics", .run = cli_cmd_metrics,
	  .summary = "grid-facing metrics of one power trace",
	  .reads = "metrics: MB read" },
	{ .name = "envelope", .run = cli_cmd_envelope,
	  .summary = "forecast the power trace's band, peaks and ramps; plan a fleet under a budget" },
	{ .name = "serve", .run = cli_cmd_serve,
	  .summary = "serve predictions over HTTP" },
	{ .name = "profile", .run = cli_cmd_profile,
	  .summary = "write a built-in parameter set as a parameter file" },
	{ .name = "models", .run = cli_cmd_models,
	  .summary = "list the model catalog (the names --model takes)" },
};
#define N_COMMANDS (sizeof commands / sizeof commands[0])

static void
usage(FILE *out)
{
	fprintf(out,
	        "wattcast %s - power and energy of LLM inference on GPUs, fitted and predicted\n\n"
	        "usage: wattcast COMMAND [ARGS...]\n"
	        "       wattcast COMMAND [SUBCOMMAND] --help\n"
	        "       wattcast help [COMMAND [SUBCOMMAND]]\n"
	        "       wattcast --version\n\ncommands:\n", WC_VERSION);
	for (size_t i = 0; i < N_COMMANDS; i++)
		fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "\n--quiet, anywhere on the line, turns off the progress lines that long work\n"
	             "(bootstrap draws, calibration replicates, envelope replicas, budget probes,\n"
	             "MB ingested) writes on stderr when it is a terminal. For ingest, import,\n"
	             "fit response, validate envelope and envelope --measured/--replay it also\n"
	             "turns off the warnings of reading the input, those saying data was lost\n"
	             "(bad lines skipped, an unfinished last line dropped) too; a refusal is\n"
	             "still printed, and metrics prints its warnings whatever --quiet.\n"
	             "\nexit status: 0 ok, 1 the work failed, 2 bad command line\n");
}

static int
unknown_command(const char *name)
{
	fprintf(stderr, "wattcast: unknown command '%s' (see wattcast --help)\n", name);
	return CLI_USAGE;
}

/* The words `help COMMAND` takes after a command that has no subcommand
 * table of its own (cli/subcommands.c checks the others' words): "" none. */
static const struct {
	const char *cmd, *words;
} help_words[] = {
	{ "calibrate", "finetune" }, { "ingest", "--prometheus" }, { "profile", "export" },
	{ "envelope", "" }, { "metrics", "" }, { "serve", "" }, { "models", "" },
};


/* `wattcast help COMMAND [SUBCOMMAND]` is `wattcast COMMAND [SUBCOMMAND]
 * --help` (docs/cli.md): the word after the command goes with it, so
 * `help fit capacity` prints fit capacity's help; a name no table has, or
 * a word more, is a usage error, as on the command line; `help help` is
 * the general help (`help` is a form of its own). */
static int
help_of(int argc, char **argv)
{
	if (strcmp(argv[2], "help") == 0 && argc == 3) {
		usage(stdout);
		return CLI_OK;
	}
	const int help = strcmp(argv[2], "help") == 0;
	if (argc > 4 || help) {
		fprintf(stderr, "wattcast help: '%.64s' is one word too many (help takes COMMAND [SUBCOMMAND])\n",
		        argv[help ? 3 : 4]);
		return CLI_USAGE;
	}
	for (size_t i = 0; argc == 4 && i < sizeof help_words / sizeof help_words[0]; i++)
		if (strcmp(argv[2], help_words[i].cmd) == 0 && strcmp(argv[3], help_words[i].words) != 0) {
			if (*help_words[i].words)
				fprintf(stderr, "wattcast help: unknown subcommand '%.64s' of %s (available: %s)\n", argv[3],
				        argv[2], help_words[i].words);
			else
				fprintf(stderr, "wattcast help: %s has no subcommands, got '%.64s'\n", argv[2], argv[3]);
			return CLI_USAGE;
		}
	for (size_t i = 0; i < N_COMMANDS; i++)
		if (strcmp(argv[2], commands[i].name) == 0) {
			/* drop "help" (argv[1]) and put --help where the last
			 * word was: argv[argc] stays the NULL */
			memmove(argv + 1, argv + 2, (size_t)(argc - 2) * sizeof *argv);
			argv[argc - 1] = (char *)"--help";
			return commands[i].run(argc - 1, argv + 1);
		}
	return unknown_command(argv[2]);
}

/* The answer on stdout is the work of most commands: one that could not
 * be written (a full disk, a closed pipe's file) is exit 1, as a failed
 * -o/--csv/--svg file is, never exit 0 with an empty or cut answer
 * (docs/cli.md, "Conventions"). Flushed and closed here, once, for every
 * command. A stdout closed before the start with nothing written to it
 * is no failure: the flush then has nothing to write, and fclose's EBADF
 * says only that the descriptor was never open. */
static int
stdout_checked(const char *cmd, int rc)
{
	int failed = ferror(stdout) != 0;
	errno = 0;
	if (fflush(stdout) != 0)
		failed = 1;
	int e = errno;
	errno = 0;
	if (fclose(stdout) != 0 && errno != EBADF && !failed) {
		failed = 1;
		e = errno;
	}
	if (!failed)
		return rc;
	fprintf(stderr, "wattcast%s%s: stdout: write failed (%s)\n", cmd ? " " : "", cmd ? cmd : "",
	        e ? strerror(e) : "an earlier write was refused");
	return rc != CLI_OK ? rc : CLI_FAIL;
}

static int
dispatch(int argc, char **argv, const char **cmd)
{
	int quiet = 0;
	for (int i = 1; i < argc;) /* --quiet may stand anywhere: take it out */
		if (strcmp(argv[i], "--quiet") == 0) {
			quiet = 1;
			memmove(argv + i, argv + i + 1, (size_t)(argc - i) * sizeof *argv);
			argc--;
		} else {
			i++;
		}
	if (argc < 2) {
		usage(stderr);
		return CLI_USAGE;
	}
	if (strcmp(argv[1], "help") == 0 && argc > 2 && strcmp(argv[2], "--help") != 0 &&
	    strcmp(argv[2], "-h") != 0)
		return help_of(argc, argv);
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		usage(stdout);
		return CLI_OK;
	}
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
		printf("wattcast %s\n", WC_VERSION);
		return CLI_OK;
	}
	cli_progress_setup(quiet);
	for (size_t i = 0; i < N_COMMANDS; i++)
		if (strcmp(argv[1], commands[i].name) == 0) {
			/* No output replaces a file the command reads (docs/cli.md,
			 * "Conventions"); the server writes none and runs for ever. */
			if (commands[i].run != cli_cmd_serve)
				wc_input_guard_on();
			if (commands[i].reads)
				wc_progress_begin(commands[i].reads, 0);
			*cmd = commands[i].name;
			int rc = commands[i].run(argc - 1, argv + 1);
			wc_progress_end();
			return rc;
		}
	return unknown_command(argv[1]);
}

int
main(int argc, char **argv)
{
	const char *cmd = NULL;
	int rc = dispatch(argc, argv, &cmd);
	return stdout_checked(cmd, rc);
}
