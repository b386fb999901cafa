/*
 * wattcast fit intervals: measure a law's held-out error of mean power on a
 * runs table and store it as the "prediction_error" section of a parameter
 * file, so that its 95 % intervals cover runs nobody fitted
 * (docs/intervals.md).
 */
#include "cli.h"
#include "data/data.h"
#include "fit/fit.h"
#include "validation/validation.h"

#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static const char usage[] =
	"usage: wattcast fit intervals RUNS.csv (--params FILE | --profile NAME) -o PARAMS.json\n"
	"                              [--folds model|workload|frozen] [--prior FILE]\n"
	"                              [--form NAME] [--terms all|pooled|as-bf16|none]\n\n"
	"Measures how far the law misses runs it did not see and stores it in the\n"
	"parameter set's `prediction_error` section (schema 5): 95 % split-conformal\n"
	"quantiles of |log(measured / predicted)| over the held-out runs, pooled over\n"
	"platforms and per platform with at least 20 held-out groups. Folds:\n"
	"  model     (default) refit the law leaving each model (with its variants) out,\n"
	"            as `validate lomo` does (--form, --terms, --prior as there): for\n"
	"            answers about models the set was not fitted on;\n"
	"  workload  the same, one `set` at a time;\n"
	"  frozen    predict every run with the set itself, which never saw them (a\n"
	"            built-in profile on your measurements).\n"
	"Everything else in the set is kept; the result is written atomically.\n";

enum { OPT_PARAMS = 1000, OPT_PROFILE, OPT_FOLDS, OPT_PRIOR, OPT_FORM, OPT_TERMS };

typedef struct {
	const char *input, *out, *params, *profile, *folds, *prior, *form, *terms;
} iv_args;

static int
parse(int argc, char **argv, iv_args *a, int *help)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' }, { "params", required_argument, NULL, OPT_PARAMS },
		{ "profile", required_argument, NULL, OPT_PROFILE }, { "folds", required_argument, NULL, OPT_FOLDS },
		{ "prior", required_argument, NULL, OPT_PRIOR }, { "form", required_argument, NULL, OPT_FORM },
		{ "terms", required_argument, NULL, OPT_TERMS }, { "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cmd = "fit intervals";
	int opt;
	memset(a, 0, sizeof *a);
	a->folds = "model";
	cli_reset_getopt();
	while ((opt = getopt_long(argc, argv, ":ho:", opts, NULL)) != -1) {
		switch (opt) {
		case 'o': a->out = optarg; break;
		case OPT_PARAMS: a->params = optarg; break;
		case OPT_PROFILE: a->profile = optarg; break;
		case OPT_FOLDS: a->folds = optarg; break;
		case OPT_PRIOR: a->prior = optarg; break;
		case OPT_FORM: a->form = optarg; break;
		case OPT_TERMS: a->terms = optarg; break;
		case 'h': fputs(usage, stdout); *help = 1; return CLI_OK;
		default: return cli_bad_option(cmd, opt, argv);
		}
	}
	if (cli_expect_one_operand(cmd, argc, "RUNS.csv") != CLI_OK)
		return CLI_USAGE;
	a->input = argv[optind];
	if (!a->out)
		return cli_usage_error(cmd, "-o PARAMS.json is required (see --help)");
	if (!a->params == !a->profile)
		return cli_usage_error(cmd, "give one of --params FILE and --profile NAME");
	if (strcmp(a->folds, "model") && strcmp(a->folds, "workload") && strcmp(a->folds, "frozen"))
		return cli_usage_error(cmd, "--folds: expected model, workload or frozen, got '%s'", a->folds);
	if (a->terms && cli_terms_mode(a->terms) < 0)
		return cli_usage_error(cmd, "--terms: expected all, pooled, as-bf16 or none, got '%s'", a->terms);
	return CLI_OK;
}

static void
report(const iv_args *a, const wc_pred_error *pe)
{
	printf("held-out error of mean power on %s (folds: %s), 95 %% quantiles of |log(measured/predicted)|:\n",
	       a->input, pe->folds);
	printf("  %-24s %6s %10s %22s\n", "stratum", "n", "q", "interval / prediction");
	for (int i = 0; i < pe->n_strata; i++) {
		const wc_pe_stratum *s = &pe->strata[i];
		printf("  %-24s %6d %10.4f       [%.3f, %.3f]\n", s->platform[0] ? s->platform : "(pooled)", s->n,
		       s->q_hi, exp(s->q_lo), exp(s->q_hi));
	}
	printf("wrote %s\n", a->out);
}

int
cli_fit_intervals(int argc, char **argv)
{
	const char *cmd = "fit intervals";
	iv_args a;
	int help = 0, rc = parse(argc, argv, &a, &help);
	if (rc != CLI_OK || help)
		return rc;
	wc_params p = WC_PARAMS_INIT, prior = WC_PARAMS_INIT;
	wc_runs_table *t = NULL;
	wc_fit_options fo = WC_FIT_OPTIONS_INIT;
	wc_pred_error pe;
	wc_error err;
	char sha[65], data[160];
	gsl_set_error_handler_off();
	if (a.form && wc_form_from_name(a.form, &fo.form) != WC_OK)
		return cli_usage_error(cmd, "--form: unknown form '%s'", a.form);
	if ((rc = cli_load_params(cmd, a.params, a.profile, &p)) != CLI_OK ||
	    (rc = cli_load_params(cmd, a.prior, NULL, &prior)) != CLI_OK)
		goto done;
	rc = CLI_FAIL;
	if (wc_runs_read(a.input, &t, &err) != WC_OK || wc_sha256_file_hex(a.input, sha, &err) != WC_OK) {
		cli_fail(cmd, "%s", err.msg);
		goto done;
	}
	fo.prior = &prior;
	fo.precision_terms = a.terms ? cli_terms_mode(a.terms) : WC_TERMS_PER_LEVEL;
	const char *base = strrchr(a.input, '/');
	snprintf(data, sizeof data, "%s (sha256 %.16s)", base ? base + 1 : a.input, sha);
	if (wc_validate_pred_error(t, &fo, &p, a.folds, data, &pe, &err) != WC_OK) {
		cli_fail(cmd, "%s", err.msg);
		goto done;
	}
	p.pred_error = pe;
	if (wc_params_save_file(a.out, &p, &err) != WC_OK) {
		cli_fail(cmd, "%s", err.msg);
		goto done;
	}
	report(&a, &pe);
	rc = CLI_OK;
done:
	wc_runs_free(t);
	wc_params_clear(&p);
	wc_params_clear(&prior);
	return rc;
}
