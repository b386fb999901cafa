/* wattcast fit inference: fit the law on a runs table and freeze it. */
#include "cli.h"
#include "cli_capacity.h"
#include "data/data.h"
#include "fit/fit.h"
#include "validation/validation.h"

#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char fit_about[] =
	"Fits the inference power law (default form saturating_quadratic_load) jointly on\n"
	"every run of RUNS.csv not marked `exclude`, with residuals in log(P - G*P0), and\n"
	"writes the frozen law atomically to PARAMS.json with B bootstrap draws (default\n"
	"1000; 0 = none) for prediction intervals. A level's P0 is the median of its runs'\n"
	"idle_power_w, else the prior's (default: the built-in 'paper' profile), else for\n"
	"a board the catalog knows it is estimated from the board's power limit (source\n"
	"'estimated', warned); only for a board it does not know is P0 fitted (warned).\n"
	"Precision terms: 'paired' (default) keeps a term only where paired runs show it\n"
	"matters (p < 0.05, as `wattcast validate precision`); 'all' fits one for every\n"
	"precision setting present per level, 'pooled' one per precision for every level,\n"
	"'as-bf16' fits quantized runs with no term; 'none' leaves quantized runs out.\n"
	"Forms: power_law, power_law_quadratic_load, saturating, saturating_quadratic_load,\n"
	"floor_plus_rise (published), saturating_prefill (workload-aware: needs the runs'\n"
	"input_tokens/output_tokens; its capacity model is refitted on runs with\n"
	"throughput, else the prior's). --law-terms adds structure terms, shared shifts of z:\n"
	"moe and hybrid (architecture), tp (log GPU count), prompt (prompt share); 'arch' is\n"
	"moe,hybrid (docs/fitting.md). Results are bit-identical for a seed, whatever\n"
	"--threads. Built-in profiles: measured, paper, paper-prefill.\n";

static const cli_subcommands fit_commands;

enum { OPT_FORM = 1000, OPT_BOOT, OPT_SEED, OPT_THREADS, OPT_PRIOR, OPT_PROFILE, OPT_SHARE,
       OPT_TERMS, OPT_NAME, OPT_LAW_TERMS };

#define MAX_SHARES 16

static void
print_param(const char *name, const wc_param *p)
{
	if (!isfinite(p->value))
		return;
	printf("  %-28s %12.5g", name, p->value);
	if (isfinite(p->lo) && isfinite(p->hi))
		printf("   [%.5g, %.5g]", p->lo, p->hi);
	else
		printf("   %s", wc_source_name(p->source));
	putchar('\n');
}

static void
print_summary(const wc_fit_result *r, const char *input)
{
	const wc_params *p = &r->params;
	char used[64];
	if (r->n_runs < r->n_pieces) /* a run's pieces count once (docs/fitting.md) */
		snprintf(used, sizeof used, "%d runs (%d pieces)", r->n_runs, r->n_pieces);
	else
		snprintf(used, sizeof used, "%d runs", r->n_used);
	printf("fit: %s on %s: %s used, %d left out; %s in %d iterations; rms %.4f (log P-G*P0)\n",
	       wc_form_name(p->form), input, used, r->n_excluded,
	       r->converged ? "converged" : "NOT converged", r->niter, r->rms);
	printf("  %-28s %12s   %s\n", "parameter", "value", "95 % interval / source");
	for (int i = 0; i < p->n_levels; i++) {
		const wc_level *l = &p->levels[i];
		char name[WC_LABEL_MAX], shown[WC_LABEL_MAX + 16];
		wc_level_param_label(WC_LEVEL_P0, l->name, name, sizeof name);
		snprintf(shown, sizeof shown, "%s (W/GPU)", name);
		print_param(shown, &l->p0);
		if (!l->s_shared_with[0]) {
			wc_level_param_label(WC_LEVEL_S, l->name, name, sizeof name);
			snprintf(shown, sizeof shown, "%s (W/GPU)", name);
			print_param(shown, &l->s);
		} else {
			printf("  %-28s %12s   shares S with %s\n", "S", "", l->s_shared_with);
		}
		wc_level_param_label(WC_LEVEL_THETA, l->name, name, sizeof name);
		print_param(name, &l->theta);
		wc_level_param_label(WC_LEVEL_FLOOR, l->name, name, sizeof name);
		print_param(name, &l->floor_logit);
	}
	print_param("delta", &p->delta);
	print_param("gamma1", &p->gamma1);
	if (wc_form_has_quadratic(p->form))
		print_param("gamma2", &p->gamma2);
	print_param("kappa", &p->kappa);
	if (wc_form_has_prefill(p->form))
		print_param("phi", &p->phi); /* written to the file; the prefill's share of the headroom */
	/* the structure terms --law-terms asked for (written to the file) */
	for (int k = 0; k < WC_LT_COUNT; k++)
		if (p->law_terms & WC_LT_BIT(k))
			print_param(wc_law_term_name((wc_law_term)k), &p->law_term[k]);
	for (int k = 0; k < p->n_terms; k++) {
		char label[WC_LABEL_MAX];
		const wc_precision_term *t = &p->terms[k];
		wc_precision_term_label(t, label, sizeof label);
		if (t->kept)
			print_param(label, &t->value);
		else
			printf("  %-28s %12s   not kept (p = %.2g, %d pairs)\n", label, "-", t->p_value, t->pairs);
	}
	if (r->prefill_source[0])
		printf("  %s\n", r->prefill_source);
	for (int i = 0; i < r->n_warnings; i++)
		printf("  warning: %s\n", r->warnings[i]);
}

/* What the command line asked for; fo.shares points into `shares`. */
typedef struct {
	const char *prior_path, *profile, *output, *terms_mode, *label, *input;
	const char *shares[MAX_SHARES];
	wc_fit_options fo;
	wc_bootstrap_options bo;
	long boot, threads;
	int help;
} fit_args;

/* The flags into `a`; a->help after printing --help. */
static int
parse_fit_flags(int argc, char **argv, fit_args *a)
{
	static const struct option opts[] = {
		{ "form", required_argument, NULL, OPT_FORM },
		{ "bootstrap", required_argument, NULL, OPT_BOOT },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "threads", required_argument, NULL, OPT_THREADS },
		{ "prior", required_argument, NULL, OPT_PRIOR },
		{ "profile", required_argument, NULL, OPT_PROFILE },
		{ "share", required_argument, NULL, OPT_SHARE },
		{ "terms", required_argument, NULL, OPT_TERMS },
		{ "name", required_argument, NULL, OPT_NAME },
		{ "law-terms", required_argument, NULL, OPT_LAW_TERMS },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cmd = "fit inference";
	wc_fit_options *fo = &a->fo;
	int opt, rc;
	cli_reset_getopt();
	while ((opt = cli_getopt(argc, argv, ":ho:", opts, NULL)) != -1) {
		rc = CLI_OK;
		switch (opt) {
		case OPT_FORM:
			if (wc_form_from_name(optarg, &fo->form) != WC_OK)
				rc = cli_usage_error(cmd, "--form: unknown form '%s' (see --help)", optarg);
			break;
		case OPT_BOOT: rc = cli_parse_bootstrap(cmd, optarg, &a->boot); break;
		case OPT_SEED: rc = cli_parse_u64(cmd, "--seed", optarg, &a->bo.seed); break;
		case OPT_THREADS: rc = cli_parse_threads(cmd, optarg, &a->threads); break;
		case OPT_PRIOR: a->prior_path = optarg; break;
		case OPT_PROFILE: a->profile = optarg; break;
		case OPT_SHARE:
			if (fo->n_shares >= MAX_SHARES || !strchr(optarg, '='))
				rc = cli_usage_error(cmd, "--share: expected LEVEL=TARGET (at most %d), got '%s'",
				                     MAX_SHARES, optarg);
			else
				a->shares[fo->n_shares++] = optarg;
			break;
		case OPT_TERMS:
			a->terms_mode = optarg;
			if (strcmp(optarg, "paired") && cli_terms_mode(optarg) < 0)
				rc = cli_usage_error(cmd, "--terms: expected paired, all, pooled, as-bf16 or none, got '%s'",
				                     optarg);
			break;
		case OPT_NAME: rc = cli_parse_set_name(cmd, optarg); a->label = optarg; break;
		case OPT_LAW_TERMS:
			rc = cli_parse_law_terms(cmd, optarg, &a->fo.law_terms);
			break;
		case 'o': a->output = optarg; break;
		case 'h': cli_subcommands_usage(&fit_commands, stdout); a->help = 1; return CLI_OK;
		default: return cli_bad_option(cmd, opt, argv);
		}
		if (rc != CLI_OK)
			return rc;
	}
	return CLI_OK;
}

/* After the flags: one RUNS.csv, an output and consistent choices; the
 * options then point at what they need. */
static int
check_fit_args(int argc, char **argv, fit_args *a)
{
	const char *cmd = "fit inference";
	if (cli_expect_one_operand(cmd, argc, "RUNS.csv") != CLI_OK)
		return CLI_USAGE;
	if (!a->output)
		return cli_usage_error(cmd, "-o PARAMS.json is required");
	if (a->prior_path && a->profile)
		return cli_usage_error(cmd, "give at most one of --prior and --profile");
	a->input = argv[optind];
	const char *in[] = { a->input, a->prior_path };
	if (cli_check_output(cmd, "-o", a->output, in, 2) != CLI_OK)
		return CLI_USAGE;
	a->fo.shares = a->shares;
	a->bo.replicates = (int)a->boot;
	a->bo.threads = (int)a->threads;
	return CLI_OK;
}

/* --terms: none, or the terms paired runs support (into `specs`, which
 * must outlive the fit), or all (the fit's default). Errors are printed. */
static int
select_terms(const char *cmd, fit_args *a, const wc_runs_table *t, wc_precision_term *specs)
{
	wc_precision_report pr;
	wc_error err;
	if (strcmp(a->terms_mode, "paired") != 0) {
		a->fo.precision_terms = cli_terms_mode(a->terms_mode);
	} else {
		if (wc_validate_precision(t, &a->fo, &pr, &err) != WC_OK)
			return cli_fail(cmd, "precision analysis: %s", err.msg);
		a->fo.n_term_specs = wc_precision_terms_from_report(&pr, specs, WC_PRECISION_GROUPS_MAX);
		a->fo.term_specs = specs;
	}
	return CLI_OK;
}

/* --bootstrap against the file it would write (the fit and the prior's
 * sections carried over, as fit_and_write writes them): refused before
 * the draws, not after them (docs/fitting.md, "Bootstrap intervals"). */
static int
check_bootstrap_room(const char *cmd, const fit_args *a, const wc_fit_result *r)
{
	wc_params tmp = WC_PARAMS_INIT;
	wc_error err;
	int rc = CLI_OK;
	if (wc_params_copy(&tmp, &r->params, &err) != WC_OK ||
	    (!tmp.capacity.present && a->fo.prior &&
	     wc_capacity_params_copy(&tmp.capacity, &a->fo.prior->capacity, &err) != WC_OK) ||
	    (!tmp.finetune.present && a->fo.prior &&
	     wc_finetune_params_copy(&tmp.finetune, &a->fo.prior->finetune, &err) != WC_OK))
		rc = cli_fail(cmd, "%s", err.msg);
	else
		rc = cli_check_bootstrap_room(cmd, a->boot, r->n_free, &tmp);
	wc_params_clear(&tmp);
	return rc;
}

/* Fit, bootstrap, print the summary and write the parameter file; the
 * result is the caller's to clear. CLI_FAIL also when the fit did not
 * converge (the file is written all the same). */
static int
fit_and_write(const char *cmd, const fit_args *a, const wc_runs_table *t, wc_fit_result *r)
{
	wc_error err;
	char fingerprint[17];
	int rc;
	if (wc_fit_inference_law(t, &a->fo, r, &err) != WC_OK)
		return cli_fail(cmd, "%s", err.msg);
	char twins[WC_ERROR_MSG_MAX];
	if (wc_fit_twin_models(t, twins, sizeof twins))
		fprintf(stderr, "wattcast %s: warning: %s\n", cmd, twins);
	if (a->boot > 0 && (rc = check_bootstrap_room(cmd, a, r)) != CLI_OK)
		return rc;
	if (a->boot > 0 && wc_fit_bootstrap(t, &a->fo, &a->bo, r, &err) != WC_OK)
		return cli_fail(cmd, "%s", err.msg);
	snprintf(r->params.name, sizeof r->params.name, "%s", a->label ? a->label : "fit");
	cli_created_time(r->params.created_utc);
	/* The power law is what this fit estimates; the prior's separately
	 * fitted sections (capacity model, fine-tuning law) carry over
	 * unchanged, as `fit capacity` and `fit finetune` keep the power law
	 * of their base. */
	if (!r->params.capacity.present && a->fo.prior &&
	    wc_capacity_params_copy(&r->params.capacity, &a->fo.prior->capacity, &err) != WC_OK)
		return cli_fail(cmd, "%s", err.msg);
	if (!r->params.finetune.present && a->fo.prior &&
	    wc_finetune_params_copy(&r->params.finetune, &a->fo.prior->finetune, &err) != WC_OK)
		return cli_fail(cmd, "%s", err.msg);
	print_summary(r, a->input);
	if (wc_params_save_file(a->output, &r->params, &err) != WC_OK ||
	    wc_params_fingerprint(&r->params, fingerprint, &err) != WC_OK)
		return cli_fail(cmd, "%s", err.msg);
	printf("wrote %s (params_version %s, %d bootstrap draws)\n", a->output, fingerprint, r->params.n_draws);
	if (!r->converged)
		fprintf(stderr, "wattcast %s: the fit did not converge; %s was written with the estimate as is\n",
		        cmd, a->output);
	return r->converged ? CLI_OK : CLI_FAIL;
}

static int
fit_inference(int argc, char **argv)
{
	const char *cmd = "fit inference";
	fit_args a = { .terms_mode = "paired", .fo = WC_FIT_OPTIONS_INIT, .bo = WC_BOOTSTRAP_OPTIONS_INIT,
		       .boot = 1000, .threads = 1 };
	int rc;
	if ((rc = parse_fit_flags(argc, argv, &a)) != CLI_OK || a.help)
		return rc;
	if ((rc = check_fit_args(argc, argv, &a)) != CLI_OK)
		return rc;

	wc_params prior = WC_PARAMS_INIT;
	wc_runs_table *t = NULL;
	wc_fit_result r;
	wc_precision_term specs[WC_PRECISION_GROUPS_MAX];
	wc_error err;
	memset(&r, 0, sizeof r);
	gsl_set_error_handler_off();
	if ((rc = cli_load_params(cmd, a.prior_path, a.profile, &prior)) != CLI_OK)
		return rc;
	a.fo.prior = &prior;
	rc = CLI_FAIL;
	if (wc_runs_read(a.input, &t, &err) != WC_OK) {
		cli_fail(cmd, "%s", err.msg);
		goto done;
	}
	if (select_terms(cmd, &a, t, specs) != CLI_OK)
		goto done;
	rc = fit_and_write(cmd, &a, t, &r);
done:
	wc_fit_result_clear(&r);
	wc_runs_free(t);
	wc_params_clear(&prior);
	return rc;
}

static const cli_subcommand fit_targets[] = {
	{ "inference", fit_inference,
	  "wattcast fit inference RUNS.csv -o PARAMS.json [--form NAME]\n"
	  "                              [--bootstrap B] [--seed S] [--threads T]\n"
	  "                              [--prior FILE | --profile measured|paper|paper-prefill]\n"
	  "                              [--share LEVEL=TARGET]...\n"
	  "                              [--terms paired|all|pooled|as-bf16|none] [--name LABEL]\n"
	  "                              [--law-terms arch,moe,hybrid,tp,prompt|none]" },
	{ "capacity", cli_fit_capacity, "wattcast fit capacity --help         (the capacity model)" },
	{ "request-energy", cli_fit_request_energy,
	  "wattcast fit request-energy --help   (energy per request from a runs table)" },
	{ "finetune", cli_fit_finetune, "wattcast fit finetune --help         (the fine-tuning law)" },
	{ "response", cli_fit_response, "wattcast fit response --help         (the power response of envelopes)" },
	{ "intervals", cli_fit_intervals,
	  "wattcast fit intervals --help        (the law's held-out error, which 95 % intervals\n"
	  "                                             of mean power cover)" },
};

static const cli_subcommands fit_commands = {
	.cmd = "fit", .noun = "target", .subs = fit_targets,
	.n = sizeof fit_targets / sizeof fit_targets[0], .about = fit_about,
};

int
cli_cmd_fit(int argc, char **argv)
{
	return cli_subcommands_run(&fit_commands, argc, argv);
}
