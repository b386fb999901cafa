/*
 * wattcast profile export NAME -o FILE: write a built-in parameter set as
 * a parameter file. It is what an installation starts from: the packaged
 * service reads /etc/wattcast/params.json, and a fresh install writes the
 * default profile there (docs/cli.md, "profile"). The file is the same set
 * the server answers from with --profile NAME, so serving the exported
 * file gives byte-identical answers.
 */
#include "cli.h"
#include "data/data.h"

#include <string.h>

static const char profile_usage[] =
	"usage: wattcast profile export NAME -o FILE\n\n"
	"Writes the built-in parameter set NAME as a parameter file, atomically:\n"
	"'default' (the set predict and serve use without --params/--profile) or a\n"
	"profile name (an unknown name is refused with the list).\n\n"
	"  -o, --output FILE   where to write (required)\n";

int
cli_cmd_profile(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cmd = "profile", *out = NULL;
	if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		fputs(profile_usage, stdout);
		return CLI_OK;
	}
	if (argc < 2 || strcmp(argv[1], "export") != 0)
		return cli_usage_error(cmd, "expected 'export' (see --help)");
	cli_reset_getopt();
	for (int opt; (opt = cli_getopt(argc - 1, argv + 1, ":o:h", opts, NULL)) != -1;) {
		switch (opt) {
		case 'o': out = optarg; break;
		case 'h': fputs(profile_usage, stdout); return CLI_OK;
		default: return cli_bad_option(cmd, opt, argv + 1);
		}
	}
	int rc = cli_expect_one_operand(cmd, argc - 1, "NAME");
	if (rc != CLI_OK)
		return rc;
	if (!out)
		return cli_usage_error(cmd, "-o FILE is required");
	if (cli_check_output(cmd, "-o", out, NULL, 0) != CLI_OK)
		return CLI_USAGE;
	wc_params p = WC_PARAMS_INIT;
	wc_error err;
	const char *name = argv[1 + optind];
	/* "default" is whatever `predict` and `serve` use without a flag. An
	 * unknown NAME is the command line's fault (exit 2); the list names
	 * "default" too, which this operand takes and --profile does not. */
	if (strcmp(name, "default") == 0)
		rc = cli_load_answer_params(cmd, NULL, NULL, &p);
	else if (wc_params_profile(name, &p, &err) != WC_OK)
		rc = cli_usage_error(cmd, "unknown set '%s' (available: default, " WC_PARAMS_PROFILE_NAMES ")", name);
	if (rc == CLI_OK && wc_params_save_file(out, &p, &err) != WC_OK)
		rc = cli_fail(cmd, "%s", err.msg);
	wc_params_clear(&p);
	return rc;
}
