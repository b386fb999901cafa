/*
 * wattcast models: the model catalog (models/model_catalog.c) on the
 * command line, as GET /v1/models gives it over HTTP, so that a planner
 * can find the name to give --model (docs/cli.md, "models"); with
 * --platforms the platform catalog, the names --platform takes, which a
 * message then names by this command instead of listing them all in its
 * 255 bytes; and the one refusal of a name the catalog does not know,
 * with the entry it is most likely a typo of.
 */
#include "cli.h"
#include "models/catalog.h"
#include "models/law.h"
#include "server/server.h"

#include <stdlib.h>
#include <string.h>

static const char models_usage[] =
	"usage: wattcast models [--json]\n"
	"       wattcast models --platforms\n\n"
	"Lists the model catalog: the names --model takes (an org/ prefix and\n"
	"suffixes such as -Instruct or -FP8 are read as docs/capacity.md says),\n"
	"with each model's architecture, active and total parameters, layers,\n"
	"published weights' precision and default context.\n\n"
	"  --json   one JSON array, as GET /v1/models's models: also each model's\n"
	"           d_model, attention and KV heads, head size, experts (and per\n"
	"           token), cache layers and sliding window\n"
	"  --platforms  the platform catalog instead: the names --platform takes,\n"
	"           with each board's architecture, memory, power limit and the\n"
	"           other spellings read as it (GET /v1/platforms gives its facts)\n";

/* The platform catalog (models/platform_catalog.c), one board a line. */
static int
list_platforms(void)
{
	printf("%-15s %-12s %7s %8s  %s\n", "platform", "arch", "mem GB", "limit W", "also read as");
	for (size_t i = 0; i < wc_platform_count(); i++) {
		const wc_platform_info *pi = wc_platform_at(i);
		printf("%-15s %-12s %7g %8g  ", pi->name, pi->architecture ? pi->architecture : "-", pi->memory_gb,
		       pi->max_power_w);
		for (size_t k = 0; k < sizeof pi->aliases / sizeof pi->aliases[0] && pi->aliases[k]; k++)
			printf("%s%s", k ? ", " : "", pi->aliases[k]);
		putchar('\n');
	}
	return CLI_OK;
}

int
cli_model_unknown(const char *cmd, const char *model, const char *instead)
{
	char other[160];
	/* a name of another size starts like the entry a "did you mean"
	 * would offer: say why it is not that one (docs/capacity.md, "Model
	 * names") */
	if (wc_model_name_other(model, other, sizeof other))
		return cli_usage_error(cmd, "--model: unknown model '%.64s': %s (%s)", model, other, instead);
	const wc_model_info *m = wc_model_suggest(model);
	if (m)
		return cli_usage_error(cmd, "--model: unknown model '%.64s': did you mean %s? ('wattcast models' lists "
		                       "them; or %s)", model, m->name, instead);
	return cli_usage_error(cmd, "--model: unknown model '%.64s' ('wattcast models' lists them; or %s)", model,
	                       instead);
}

int
cli_cmd_models(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "platforms", no_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cmd = "models";
	int json = 0, platforms = 0;
	cli_reset_getopt();
	for (int opt; (opt = cli_getopt(argc, argv, ":h", opts, NULL)) != -1;) {
		switch (opt) {
		case 'j': json = 1; break;
		case 'p': platforms = 1; break;
		case 'h': fputs(models_usage, stdout); return CLI_OK;
		default: return cli_bad_option(cmd, opt, argv);
		}
	}
	if (optind < argc)
		return cli_usage_error(cmd, "unexpected argument '%s' (see --help)", argv[optind]);
	if (platforms && json)
		return cli_usage_error(cmd, "--json and --platforms: give one (GET /v1/platforms gives the platforms "
		                       "as JSON)");
	if (platforms)
		return list_platforms();
	if (json) {
		/* the builder of GET /v1/models, so both list the same facts */
		wc_error err;
		char *s = wc_render_models(2, &err);
		if (!s)
			return cli_fail(cmd, "%s", err.msg);
		int rc = fputs(s, stdout) != EOF && fputc('\n', stdout) != EOF ? CLI_OK : CLI_FAIL;
		free(s);
		return rc;
	}
	printf("%-30s %-7s %9s %9s %6s %7s %9s\n", "model", "arch", "active B", "total B", "layers", "weights",
	       "context");
	for (size_t i = 0; i < wc_model_count(); i++) {
		const wc_model_info *m = wc_model_at(i);
		/* 0 is "not stated" (the JSON's null, docs/cli.md "models"),
		 * not a context of no tokens. */
		char context[16] = "-";
		if (m->context_tokens > 0)
			snprintf(context, sizeof context, "%d", m->context_tokens);
		printf("%-30s %-7s %9g %9g %6d %7s %9s\n", m->name, wc_architecture_name(m->architecture),
		       m->active_params_b, m->total_params_b, m->layers, wc_precision_name((wc_precision)m->weights),
		       context);
	}
	return CLI_OK;
}
