/*
 * Commands made of subcommands (`fit`, `validate`, `predict`, `simulate`)
 * dispatch from one table each: the branch taken, the "unknown ..." error
 * and the usage block all read the same entry, so a new subcommand is one
 * line of its table (docs/cli.md).
 */
#include "cli.h"

#include <string.h>

void
cli_subcommands_usage(const cli_subcommands *t, FILE *out)
{
	for (size_t i = 0; i < t->n; i++)
		fprintf(out, "%s%s\n", i ? "       " : "usage: ", t->subs[i].usage);
	fprintf(out, "\n%s", t->about);
}

int
cli_subcommands_run(const cli_subcommands *t, int argc, char **argv)
{
	if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		cli_subcommands_usage(t, argc < 2 ? stderr : stdout);
		return argc < 2 ? CLI_USAGE : CLI_OK;
	}
	for (size_t i = 0; i < t->n; i++)
		if (strcmp(argv[1], t->subs[i].name) == 0)
			return t->subs[i].run(argc - 1, argv + 1);
	char names[512] = "";
	for (size_t i = 0, used = 0; i < t->n && used < sizeof names; i++)
		used += (size_t)snprintf(names + used, sizeof names - used, "%s%s", i ? ", " : "", t->subs[i].name);
	/* The word may be a path (a target forgotten before a file): quoted by
	 * the one rule, so the list of names stays whole (docs/architecture.md,
	 * "Errors"). */
	char msg[WC_ERROR_MSG_MAX];
	int k = snprintf(msg, sizeof msg, "unknown %.32s '", t->noun);
	wc_error_format_path(msg + k, sizeof msg - (size_t)k, argv[1], "' (available: %s)", names);
	return cli_usage_error(t->cmd, "%s", msg);
}
