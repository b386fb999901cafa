/* wattcast calibrate finetune: rescale the fine-tuning law to one or a few
 * measured runs and write the calibrated parameter file. */
#include "cli.h"
#include "data/data.h"
#include "fit/fit.h"
#include "fit/finetune_fit.h"

#include <math.h>
#include <string.h>

static const char usage[] =
	"usage: wattcast calibrate finetune RUNS.csv -o NEW.json\n"
	"                                   [--params BASE.json | --profile measured|paper|paper-prefill]\n"
	"                                   [--mode scale|kappa] [--run-scatter X]\n"
	"                                   [--bootstrap B] [--seed S] [--name LABEL]\n\n"
	"Adapts the fine-tuning law of BASE (default: the built-in profile 'paper') to one\n"
	"or a few runs of a fine-tuning runs table (docs/formats/finetune-runs.md), keeping\n"
	"the base's shape (docs/finetune.md, \"Calibrating from one run\"):\n"
	"  --mode scale  (default) one factor s on the whole law: E_step = s (G e0 + kappa F);\n"
	"                the ratio of e0 to kappa is held\n"
	"  --mode kappa  kappa refitted with e0 held at the base's value (refused when the\n"
	"                held e0 leaves the runs no energy for their FLOPs)\n"
	"Draws: B replicates (default: as many as the base has draws, else 1000; 0 = none),\n"
	"each combining one base draw with each run's energy moved by its scatter\n"
	"(--run-scatter, sd of log E_step; default the base's residual RMS, else 0.1).\n"
	"The base's inference law is kept; its relations are dropped (they describe the\n"
	"base's sweeps). Runs with `exclude` set are left out. Bit-identical for a seed.\n"
	"Then: wattcast predict finetune --params NEW.json ...\n";

enum { OPT_PARAMS = 1000, OPT_PROFILE, OPT_MODE, OPT_SCATTER, OPT_BOOT, OPT_SEED, OPT_NAME };

typedef struct {
	const char *params, *profile, *output, *input, *label;
	wc_ft_calibrate_options co;
	long boot;
	int have_boot, help;
} cal_ft_args;

static int
parse_one(const char *cmd, int opt, cal_ft_args *a)
{
	switch (opt) {
	case OPT_PARAMS: a->params = optarg; return CLI_OK;
	case OPT_PROFILE: a->profile = optarg; return CLI_OK;
	case OPT_MODE:
		if (wc_ft_cal_mode_from_name(optarg, &a->co.mode) != WC_OK)
			return cli_usage_error(cmd, "--mode: expected scale or kappa, got '%s'", optarg);
		return CLI_OK;
	case OPT_SCATTER: return cli_parse_double_unbounded(cmd, "--run-scatter", optarg, 0, 0, &a->co.run_scatter);
	case OPT_BOOT: a->have_boot = 1; return cli_parse_bootstrap(cmd, optarg, &a->boot);
	case OPT_SEED: return cli_parse_u64(cmd, "--seed", optarg, &a->co.seed);
	case OPT_NAME:
		a->label = optarg;
		return cli_parse_set_name(cmd, optarg);
	case 'o': a->output = optarg; return CLI_OK;
	default: return CLI_USAGE;
	}
}

static int
parse_flags(const char *cmd, int argc, char **argv, cal_ft_args *a)
{
	static const struct option opts[] = {
		{ "params", required_argument, NULL, OPT_PARAMS }, { "profile", required_argument, NULL, OPT_PROFILE },
		{ "mode", required_argument, NULL, OPT_MODE }, { "run-scatter", required_argument, NULL, OPT_SCATTER },
		{ "bootstrap", required_argument, NULL, OPT_BOOT }, { "seed", required_argument, NULL, OPT_SEED },
		{ "name", required_argument, NULL, OPT_NAME }, { "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	int opt, rc;
	cli_reset_getopt();
	while ((opt = cli_getopt(argc, argv, ":ho:", opts, NULL)) != -1) {
		if (opt == 'h') {
			fputs(usage, stdout);
			a->help = 1;
			return CLI_OK;
		}
		if (opt == ':' || opt == '?' || opt == CLI_OPT_EMPTY || opt == CLI_OPT_NOT_UTF8)
			return cli_bad_option(cmd, opt, argv);
		if ((rc = parse_one(cmd, opt, a)) != CLI_OK)
			return rc;
	}
	if (cli_expect_one_operand(cmd, argc, "RUNS.csv") != CLI_OK)
		return CLI_USAGE;
	if (!a->output)
		return cli_usage_error(cmd, "-o NEW.json is required");
	if (a->params && a->profile)
		return cli_usage_error(cmd, "give at most one of --params and --profile");
	a->input = argv[optind];
	const char *in[] = { a->input, a->params };
	if (cli_check_output(cmd, "-o", a->output, in, 2) != CLI_OK)
		return CLI_USAGE;
	a->co.replicates = !a->have_boot ? 0 : a->boot == 0 ? -1 : (int)a->boot;
	return CLI_OK;
}

static void
print_summary(const cal_ft_args *a, const wc_ft_calibrate_result *r, const wc_finetune_params *base)
{
	const wc_finetune_params *s = &r->section;
	const wc_param *f = &s->calibrated.factor;
	printf("calibrate finetune (%s mode) on %s: %d run(s) on %s; run scatter %.3g (%s)\n",
	       wc_ft_cal_mode_name(a->co.mode), a->input, r->n_runs, s->platform, r->run_scatter,
	       r->scatter_source);
	printf("  held: %s\n", wc_ft_cal_mode_held(a->co.mode));
	printf("  %-22s %12s %12s   %s\n", "parameter", "base", "calibrated", "95 % interval");
	printf("  %-22s %12s %12.5g", a->co.mode == WC_FT_CAL_SCALE ? "scale factor" : "kappa / base kappa",
	       "1", f->value);
	if (isfinite(f->lo))
		printf("   [%.5g, %.5g]", f->lo, f->hi);
	printf("\n  %-22s %12.6g %12.6g", s->e0_scope == WC_FT_E0_PER_GPU ? "e0 (J per GPU)" : "e0 (J per job)",
	       base->e0.value, s->e0.value);
	if (isfinite(s->e0.lo))
		printf("   [%.6g, %.6g]", s->e0.lo, s->e0.hi);
	printf("\n  %-22s %12.6g %12.6g", "kappa (J/TFLOP)", base->kappa.value, s->kappa.value);
	if (isfinite(s->kappa.lo))
		printf("   [%.6g, %.6g]", s->kappa.lo, s->kappa.hi);
	printf("\n  %-22s %12s %12s %12s\n", "run", "measured J", "base J", "calibrated J");
	for (int i = 0; i < r->n_shown; i++)
		printf("  %-22.22s %12.1f %12.1f %12.1f\n", r->shown[i].run_id, r->shown[i].measured_j,
		       r->shown[i].base_j, r->shown[i].calibrated_j);
	for (int i = 0; i < r->n_warnings; i++)
		printf("  warning: %s\n", r->warnings[i]);
}

/* Calibrate, put the section into `base` and write it. */
static int
calibrate_and_write(const char *cmd, const cal_ft_args *a, const wc_ft_table *t, wc_params *base)
{
	wc_ft_calibrate_result r;
	wc_error err;
	char base_version[17], fingerprint[17];
	int rc;
	memset(&r, 0, sizeof r);
	/* refused before the replicates (docs/fitting.md, "Bootstrap intervals") */
	if (a->co.replicates > 0 && (rc = cli_check_finetune_bootstrap_room(cmd, a->co.replicates, base)) != CLI_OK)
		return rc;
	rc = CLI_FAIL;
	if (wc_params_fingerprint(base, base_version, &err) != WC_OK ||
	    wc_ft_calibrate(&base->finetune, t, &a->co, &r, &err) != WC_OK) {
		cli_fail_path(cmd, a->input, ": %s", err.msg);
		goto done;
	}
	snprintf(r.section.calibrated.base_version, sizeof r.section.calibrated.base_version, "%s", base_version);
	snprintf(r.section.calibrated.base_name, sizeof r.section.calibrated.base_name, "%s", base->name);
	print_summary(a, &r, &base->finetune);
	if (wc_finetune_params_copy(&base->finetune, &r.section, &err) != WC_OK) {
		cli_fail(cmd, "%s", err.msg);
		goto done;
	}
	snprintf(base->name, sizeof base->name, "%s", a->label ? a->label : "calibrated");
	cli_created_time(base->finetune.created_utc); /* the section's own time; the top-level record is the inference law's */
	if (wc_params_save_file(a->output, base, &err) != WC_OK ||
	    wc_params_fingerprint(base, fingerprint, &err) != WC_OK) {
		cli_fail(cmd, "%s", err.msg);
		goto done;
	}
	printf("wrote %s (params_version %s, %d draws of the fine-tuning law)\n", a->output, fingerprint,
	       base->finetune.draws.n);
	rc = CLI_OK;
done:
	wc_ft_calibrate_result_clear(&r);
	return rc;
}

int
cli_calibrate_finetune(int argc, char **argv)
{
	const char *cmd = "calibrate finetune";
	cal_ft_args a = { .co = WC_FT_CALIBRATE_OPTIONS_INIT };
	wc_params base = WC_PARAMS_INIT;
	wc_ft_table *t = NULL;
	wc_error err;
	int rc;
	if ((rc = parse_flags(cmd, argc, argv, &a)) != CLI_OK || a.help)
		return rc;
	if ((rc = cli_load_params(cmd, a.params, a.profile, &base)) != CLI_OK)
		return rc;
	if (wc_ft_table_read(a.input, &t, &err) != WC_OK)
		rc = cli_fail(cmd, "%s", err.msg);
	else
		rc = calibrate_and_write(cmd, &a, t, &base);
	wc_ft_table_free(t);
	wc_params_clear(&base);
	return rc;
}
