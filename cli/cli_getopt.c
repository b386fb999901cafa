/*
 * The flags of every command as getopt_long reads them (cli/cli.h,
 * cli_getopt): a value that is empty, not UTF-8 where it becomes a name,
 * or itself a flag is refused here, before any work, and each bad flag is
 * reported in one wording (docs/cli.md, "Conventions").
 */
#include "cli.h"
#include "data/data.h"

#include <getopt.h>
#include <string.h>
#include <unistd.h>

/* A flag's value that is itself one of the command's flags, its own word
 * after the flag ("--model -o z.csv"): the value is missing, and the
 * flag after it was taken for it ("z.csv: run folders cannot be mixed
 * with --prometheus"). getopt_long takes a long flag's unambiguous
 * prefix, so a prefix of one is one. A value given in the flag's word
 * ("--model=-o") is kept, as is "-" (standard input) and a negative
 * number (no command has a digit for a short flag). docs/cli.md,
 * "Conventions". */
static const char *flag_as_value;

static int
is_flag(const char *text, const char *shortopts, const struct option *longopts)
{
	if (text[0] != '-' || !text[1])
		return 0;
	if (text[1] != '-')
		return text[1] != ':' && strchr(shortopts, text[1]) != NULL;
	size_t n = strcspn(text + 2, "=");
	for (; n > 0 && longopts && longopts->name; longopts++)
		if (strncmp(longopts->name, text + 2, n) == 0)
			return 1;
	return 0;
}

int
cli_bad_option(const char *cmd, int opt, char **argv)
{
	const char *text = argv[optind - 1];
	if (opt == CLI_OPT_EMPTY) {
		/* "-o ''" leaves the flag one back; "--output=" is one word. */
		if (!*text && optind >= 2)
			text = argv[optind - 2];
		int n = (int)strcspn(text, "=");
		return cli_usage_error(cmd, "%.*s needs a value, got an empty one (see --help)", n, text);
	}
	if (opt == CLI_OPT_NOT_UTF8) {
		char why[48];
		wc_utf8_refuse(optarg, why, sizeof why);
		if (text == optarg && optind >= 2)
			text = argv[optind - 2]; /* "--model X": the flag is one back */
		return cli_usage_error(cmd, "%.*s: %s", (int)strcspn(text, "="), text, why);
	}
	if (opt == ':' && flag_as_value)
		return cli_usage_error(cmd, "%s needs a value (see --help), and '%.64s' after it is a flag", text,
		                       flag_as_value);
	if (opt == ':')
		return cli_usage_error(cmd, "%s needs a value (see --help)", text);
	if (optopt && !(text[0] == '-' && text[1] == '-'))
		return cli_usage_error(cmd, "unknown flag '-%c' (see --help)", optopt);
	return cli_usage_error(cmd, "unknown flag '%s' (see --help)", text);
}

/* Flags whose value becomes a name in a table or a parameter file. */
static const char *const name_flags[] = { "model", "platform", "name", "relative-to", "share" };

int
cli_getopt(int argc, char **argv, const char *shortopts, const struct option *longopts, int *longindex)
{
	int index = -1;
	int opt = getopt_long(argc, argv, shortopts, longopts, &index);
	if (longindex)
		*longindex = index;
	flag_as_value = NULL;
	if (opt != -1 && opt != ':' && opt != '?' && optarg && optind >= 2 && optarg == argv[optind - 1] &&
	    is_flag(optarg, shortopts, longopts)) {
		flag_as_value = optarg;
		optind--; /* argv[optind - 1] is the flag, as when it ends the line */
		return ':';
	}
	/* An empty value is never a file, a name or a number: refused here,
	 * before the work, not when the output is renamed into "" after it. */
	if (opt != -1 && opt != ':' && opt != '?' && optarg && !*optarg)
		return CLI_OPT_EMPTY;
	/* A name that is not UTF-8 would be left out of the parameter file
	 * (jansson writes no such string): refused as it enters (docs/cli.md,
	 * "Conventions"). File paths may be any bytes. */
	char why[48];
	if (opt != -1 && opt != ':' && opt != '?' && optarg && index >= 0 && wc_utf8_refuse(optarg, why, sizeof why))
		for (size_t i = 0; i < sizeof name_flags / sizeof *name_flags; i++)
			if (strcmp(longopts[index].name, name_flags[i]) == 0)
				return CLI_OPT_NOT_UTF8;
	return opt;
}

void
cli_reset_getopt(void)
{
	optind = 0; /* 0 also re-initialises glibc's internal state */
	opterr = 0;
}
