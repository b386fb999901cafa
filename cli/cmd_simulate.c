/* wattcast simulate inference: a synthetic runs table from a known law. */
#include "cli.h"
#include "data/data.h"
#include "validation/validation.h"

#include <string.h>

static const char simulate_about[] =
	"Draws a runs table from a known law (default: the built-in published profile)\n"
	"with the published experimental design (~250 closed-loop runs), multiplicative\n"
	"noise SD on mean power (default 0.03) and 1 % on idle power. The same seed gives\n"
	"the same file byte for byte. The file says in its header that it is synthetic.\n"
	"Above the board's power limit a row is what predict answers, at the clock the\n"
	"limit settles at; --uncapped draws the law's own value there (the uncapped\n"
	"draw a law is fitted as; data/default/paper-design-seed42.csv).\n";

static const cli_subcommands simulate_commands;

enum { OPT_DESIGN = 1000, OPT_SEED, OPT_NOISE, OPT_PARAMS, OPT_PROFILE, OPT_UNCAPPED };

static void
print_warning(const char *msg, void *payload)
{
	(void)payload;
	fprintf(stderr, "wattcast simulate inference: warning: %s\n", msg);
}

static int
simulate_inference(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "design", required_argument, NULL, OPT_DESIGN },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "noise", required_argument, NULL, OPT_NOISE },
		{ "params", required_argument, NULL, OPT_PARAMS },
		{ "profile", required_argument, NULL, OPT_PROFILE },
		{ "uncapped", no_argument, NULL, OPT_UNCAPPED },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cmd = "simulate inference", *params_path = NULL, *profile = NULL, *output = NULL;
	wc_simulate_options so = WC_SIMULATE_OPTIONS_INIT;
	so.warn = print_warning;
	int opt, rc;
	cli_reset_getopt();
	while ((opt = cli_getopt(argc, argv, ":ho:", opts, NULL)) != -1) {
		rc = CLI_OK;
		switch (opt) {
		case OPT_DESIGN: so.design = optarg; break;
		case OPT_SEED: rc = cli_parse_u64(cmd, "--seed", optarg, &so.seed); break;
		case OPT_NOISE: rc = cli_parse_double_unbounded(cmd, "--noise", optarg, 0, 1, &so.noise); break;
		case OPT_PARAMS: params_path = optarg; break;
		case OPT_PROFILE: profile = optarg; break;
		case OPT_UNCAPPED: so.uncapped = 1; break;
		case 'o': output = optarg; break;
		case 'h': cli_subcommands_usage(&simulate_commands, stdout); return CLI_OK;
		default: return cli_bad_option(cmd, opt, argv);
		}
		if (rc != CLI_OK)
			return rc;
	}
	if (optind < argc)
		return cli_usage_error(cmd, "unexpected argument '%s' (see --help)", argv[optind]);
	if (!output)
		return cli_usage_error(cmd, "-o RUNS.csv is required");
	const char *in[] = { params_path };
	if (cli_check_output(cmd, "-o", output, in, 1) != CLI_OK)
		return CLI_USAGE;
	if (strcmp(so.design, "paper") != 0)
		return cli_usage_error(cmd, "--design: unknown design '%s' (available: paper)", so.design);
	wc_params truth = WC_PARAMS_INIT;
	wc_runs_table *t = NULL;
	wc_error err;
	char header[1024];
	if ((rc = cli_load_params(cmd, params_path, profile, &truth)) != CLI_OK)
		return rc;
	rc = CLI_OK;
	wc_simulate_header(&so, &truth, header, sizeof header);
	cli_made_by_truth(header, sizeof header, params_path, profile);
	/* Which file was the truth: a set's name is not unique, its
	 * fingerprint is (the params_version predict and fit print). */
	char version[17];
	if (wc_params_fingerprint(&truth, version, &err) == WC_OK) {
		size_t len = strlen(header);
		if (params_path)
			snprintf(header + len, sizeof header - len, "\nTruth file: %s, params_version %s.", params_path,
			         version);
		else
			snprintf(header + len, sizeof header - len, "\nTruth: built-in profile '%s', params_version %s.",
			         truth.name, version);
	}
	if (wc_simulate_inference(&truth, &so, &t, &err) != WC_OK ||
	    wc_runs_write(output, t, header, &err) != WC_OK)
		rc = cli_fail(cmd, "%s", err.msg);
	else
		fprintf(stderr, "wrote %zu synthetic runs to %s\n", t->n_runs, output);
	wc_runs_free(t);
	wc_params_clear(&truth);
	return rc;
}

static const cli_subcommand simulate_targets[] = {
	{ "inference", simulate_inference,
	  "wattcast simulate inference [--design paper] [--seed S] [--noise SD] [--uncapped]\n"
	  "                                   [--params FILE | --profile measured|paper|paper-prefill] -o RUNS.csv" },
	{ "finetune", cli_simulate_finetune,
	  "wattcast simulate finetune --help   (a synthetic fine-tuning runs table)" },
};

static const cli_subcommands simulate_commands = {
	.cmd = "simulate", .noun = "target", .subs = simulate_targets,
	.n = sizeof simulate_targets / sizeof simulate_targets[0], .about = simulate_about,
};

int
cli_cmd_simulate(int argc, char **argv)
{
	return cli_subcommands_run(&simulate_commands, argc, argv);
}
