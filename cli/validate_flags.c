/*
 * Which `wattcast validate` analyses take which flag: one table, read by
 * every analysis's parser, so that a flag given where it does not apply is
 * refused naming the analyses that take it (docs/cli.md, "validate"),
 * whether the analysis knows the flag or not, and the lists cannot drift
 * apart from each other.
 */
#include "cli.h"
#include "cli_validate.h"

#include <stdio.h>
#include <string.h>

#define ALL_ANALYSES (CLI_VA_FORMS | CLI_VA_FORMS_REAL | CLI_VA_PRECISION | CLI_VA_HELDOUT | CLI_VA_LOMO | \
                      CLI_VA_FEWSHOT | CLI_VA_FEWSHOT_LOMO | CLI_VA_CAPACITY | CLI_VA_FINETUNE | CLI_VA_ENVELOPE)
#define FORMS_ANY (CLI_VA_FORMS | CLI_VA_FORMS_REAL)
#define FEWSHOT_ANY (CLI_VA_FEWSHOT | CLI_VA_FEWSHOT_LOMO)

/* Flag (without its dashes) and the analyses that take it. The parsers'
 * option lists accept these; test_cli_validate_flags checks every flag
 * against every analysis, so a parser and this table cannot disagree. */
static const struct {
	const char *flag;
	unsigned analyses;
} flags[] = {
	{ "json", ALL_ANALYSES },
	{ "prior", FORMS_ANY | CLI_VA_PRECISION | CLI_VA_LOMO | CLI_VA_FEWSHOT_LOMO },
	{ "profile", FORMS_ANY | CLI_VA_PRECISION | CLI_VA_HELDOUT | CLI_VA_LOMO | FEWSHOT_ANY | CLI_VA_CAPACITY |
	                     CLI_VA_ENVELOPE },
	{ "params", CLI_VA_HELDOUT | FEWSHOT_ANY | CLI_VA_CAPACITY | CLI_VA_ENVELOPE },
	{ "datasheet", CLI_VA_HELDOUT },
	{ "real", FORMS_ANY },
	/* heldout refits nothing and forms scores every form: --form there
	 * would change nothing, so it is refused */
	{ "form", CLI_VA_PRECISION | CLI_VA_LOMO | CLI_VA_FEWSHOT_LOMO },
	{ "terms", CLI_VA_FORMS_REAL | CLI_VA_LOMO | CLI_VA_FEWSHOT_LOMO | CLI_VA_CAPACITY },
	{ "law-terms", CLI_VA_FORMS_REAL | CLI_VA_LOMO | CLI_VA_CAPACITY },
	{ "per-run", CLI_VA_FORMS_REAL | CLI_VA_HELDOUT | CLI_VA_LOMO | FEWSHOT_ANY | CLI_VA_CAPACITY | CLI_VA_FINETUNE |
	                     CLI_VA_ENVELOPE },
	{ "lomo", FEWSHOT_ANY },
	{ "k", FEWSHOT_ANY },
	{ "scope", FEWSHOT_ANY },
	{ "idle-power", FEWSHOT_ANY },
	{ "run-scatter", FEWSHOT_ANY },
	{ "per-set", FEWSHOT_ANY },
	{ "per-level", CLI_VA_CAPACITY },
	{ "robust", CLI_VA_CAPACITY },
	{ "plain", CLI_VA_CAPACITY },
	{ "weights", CLI_VA_CAPACITY },
	{ "folds", CLI_VA_CAPACITY },
	{ "response", CLI_VA_ENVELOPE },
	{ "replicas", CLI_VA_ENVELOPE },
	{ "seed", CLI_VA_ENVELOPE },
	{ "threads", CLI_VA_ENVELOPE },
	{ "max-running", CLI_VA_ENVELOPE },
	{ "platform", CLI_VA_ENVELOPE },
	{ "tp", CLI_VA_ENVELOPE },
	{ "model", CLI_VA_ENVELOPE },
	{ "active-params", CLI_VA_ENVELOPE },
	{ "utc-offset", CLI_VA_ENVELOPE },
	{ "service", CLI_VA_ENVELOPE },
	{ "level", CLI_VA_ENVELOPE },
	{ "linger-bound", CLI_VA_ENVELOPE },
};

/* The analyses in `mask` as a list: an analysis whose every variant is in
 * it by its name alone ("forms"), one variant by the switch that makes it
 * ("forms --real") or its absence ("forms without --real"). */
static void
analyses_text(unsigned mask, char *buf, size_t cap)
{
	static const struct {
		unsigned bits, plain, with;
		const char *name, *switch_;
	} names[] = {
		{ FORMS_ANY, CLI_VA_FORMS, CLI_VA_FORMS_REAL, "forms", "--real" },
		{ CLI_VA_PRECISION, CLI_VA_PRECISION, 0, "precision", NULL },
		{ CLI_VA_HELDOUT, CLI_VA_HELDOUT, 0, "heldout", NULL },
		{ CLI_VA_LOMO, CLI_VA_LOMO, 0, "lomo", NULL },
		{ FEWSHOT_ANY, CLI_VA_FEWSHOT, CLI_VA_FEWSHOT_LOMO, "fewshot", "--lomo" },
		{ CLI_VA_CAPACITY, CLI_VA_CAPACITY, 0, "capacity", NULL },
		{ CLI_VA_FINETUNE, CLI_VA_FINETUNE, 0, "finetune", NULL },
		{ CLI_VA_ENVELOPE, CLI_VA_ENVELOPE, 0, "envelope", NULL },
	};
	enum { N = sizeof names / sizeof names[0] };
	char item[N][40];
	int n = 0;
	for (int i = 0; i < N; i++) {
		unsigned got = mask & names[i].bits;
		if (!got)
			continue;
		if (got == names[i].bits)
			snprintf(item[n++], sizeof item[0], "%s", names[i].name);
		else if (got == names[i].with)
			snprintf(item[n++], sizeof item[0], "%s %s", names[i].name, names[i].switch_);
		else
			snprintf(item[n++], sizeof item[0], "%s without %s", names[i].name, names[i].switch_);
	}
	buf[0] = '\0';
	for (int i = 0; i < n; i++) {
		size_t used = strlen(buf);
		snprintf(buf + used, cap - used, "%s%s", i == 0 ? "" : i == n - 1 ? " and " : ", ", item[i]);
	}
}

/* The table's entry for `flag` (`len` bytes), or -1. */
static int
find(const char *flag, size_t len)
{
	for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++)
		if (strlen(flags[i].flag) == len && strncmp(flags[i].flag, flag, len) == 0)
			return (int)i;
	return -1;
}

static int
refuse(const char *cmd, int i)
{
	char list[200];
	analyses_text(flags[i].analyses, list, sizeof list);
	return cli_usage_error(cmd, "--%s applies to %s only (see --help)", flags[i].flag, list);
}

int
cli_validate_flag_check(const char *cmd, unsigned analysis, const char *flag)
{
	int i = find(flag, strlen(flag));
	if (i < 0 || (flags[i].analyses & analysis))
		return CLI_OK;
	return refuse(cmd, i);
}

int
cli_validate_flags_given(const char *cmd, unsigned analysis, const struct option *opts, const unsigned char *given)
{
	for (int i = 0; opts[i].name; i++)
		if (given[i] && cli_validate_flag_check(cmd, analysis, opts[i].name) != CLI_OK)
			return CLI_USAGE;
	return CLI_OK;
}

int
cli_validate_bad_option(const char *cmd, unsigned analysis, int opt, char **argv)
{
	const char *text = argv[optind - 1];
	/* another analysis's flag: not unknown, only not taken here */
	if (opt == '?' && text[0] == '-' && text[1] == '-') {
		int i = find(text + 2, strcspn(text + 2, "="));
		if (i >= 0 && !(flags[i].analyses & analysis))
			return refuse(cmd, i);
	}
	return cli_bad_option(cmd, opt, argv);
}
