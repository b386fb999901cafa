/*
 * wattcast fit intervals: measure a law's held-out error on a runs table
 * and store it in a parameter file -- mean power's as the
 * "prediction_error" section, latency's, energy per output token's and
 * fine-tuning energy's in "prediction_errors" -- so that its 95 %
 * intervals cover runs nobody fitted (docs/intervals.md).
 */
#include "cli.h"
#include "cli_capacity.h"
#include "data/data.h"
#include "data/table_inputs.h"
#include "fit/fit.h"
#include "validation/validation.h"

#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static const char usage[] =
	"usage: wattcast fit intervals RUNS.csv (--params FILE | --profile NAME) -o PARAMS.json\n"
	"                              [--quantity power|capacity|finetune] [--plain]\n"
	"                              [--weights run|model]\n"
	"                              [--folds model|workload|platform|frozen|level] [--prior FILE]\n"
	"                              [--form NAME] [--terms all|pooled|as-bf16|none]\n\n"
	"Measures how far the law misses runs it did not see and stores it in the\n"
	"parameter set's `prediction_error` section (schema 5): 95 % split-conformal\n"
	"quantiles of |log(measured / predicted)| over the held-out runs, pooled over\n"
	"platforms and per platform with at least 20 held-out groups. Folds:\n"
	"  model     (default) refit the law leaving each model (with its variants) out,\n"
	"            as `validate lomo` does (--terms, --prior as there): for\n"
	"            answers about models the set was not fitted on;\n"
	"  workload  the same, one `set` at a time;\n"
	"  frozen    predict every run with the set itself, which never saw them (a\n"
	"            built-in profile on your measurements);\n"
	"  platform  predict each platform's runs with the set's level for it replaced\n"
	"            by the datasheet transfer from its other levels: a stratum for\n"
	"            `datasheet` levels, added to the section already there.\n"
	"Every refit is built as the set was (docs/validation.md, \"Refitting a set\"):\n"
	"its form (--form, when given, must be the set's), its structure terms, and\n"
	"quantized runs as its fit took them (the set's\n"
	"provenance.precision_mode; a file without it: a term per level when it has\n"
	"precision terms, else every quantized run in with none); --terms overrides it.\n"
	"RUNS.csv may also be a raw ML.ENERGY configuration table: it is imported as\n"
	"`wattcast import mlenergy` does.\n"
	"--quantity capacity (RUNS.csv... as `validate capacity` takes them): the\n"
	"capacity model's held-out error, leaving each model out, of latency (from\n"
	"throughput, the same |log residual|) and of energy per output token\n"
	"(`prediction_errors`, schema 6), refitted as `fit capacity` fits (Huber-weighted;\n"
	"--plain: plain least squares, as the `paper` profile's section was fitted;\n"
	"--weights model: each model counts once, as `fit capacity --weights model`).\n"
	"--quantity finetune (a fine-tuning runs table): the fine-tuning law's held-out\n"
	"error of energy per step, each level of each sweep held out as `validate\n"
	"finetune` does (folds `level`). Flags another quantity uses (--folds other\n"
	"than the quantity's own, --plain, --weights, --prior, ...) are usage errors.\n"
	"Everything else in the set is kept; the result is written atomically.\n";

enum { OPT_PARAMS = 1000, OPT_PROFILE, OPT_FOLDS, OPT_PRIOR, OPT_FORM, OPT_TERMS, OPT_QUANTITY, OPT_PLAIN, OPT_WEIGHTS };

typedef struct {
	const char *input, *out, *params, *profile, *folds, *prior, *form, *terms, *quantity;
	char **inputs;
	int n_inputs;
	int plain; /* capacity refits by plain least squares */
	int model_weights; /* capacity refits count each model once */
} iv_args;

/* A flag the quantity does not use is a usage error naming what it applies
 * to, as `validate` does (docs/cli.md): accepted, it changed nothing (a
 * fine-tuning error asked with --folds frozen was level folds). Each
 * quantity's folds are its own: power any of four, capacity `model`,
 * fine-tuning `level`. */
static int
applies(iv_args *a, int weights_given)
{
	const char *cmd = "fit intervals";
	int power = !strcmp(a->quantity, "power"), capacity = !strcmp(a->quantity, "capacity");
	const char *own = power ? NULL : capacity ? "model" : "level";
	if (power && (a->plain || weights_given))
		return cli_usage_error(cmd, "%s applies to --quantity capacity only (see --help)",
		                       a->plain ? "--plain" : "--weights");
	if (!power && !capacity && (a->plain || weights_given || a->prior || a->form || a->terms))
		return cli_usage_error(cmd, "--%s applies to --quantity power or capacity only (see --help)",
		                       a->plain ? "plain" : weights_given ? "weights" : a->prior ? "prior"
		                       : a->form ? "form" : "terms");
	if (capacity && a->prior)
		return cli_usage_error(cmd, "--prior applies to --quantity power only (see --help)");
	if (own && a->folds && strcmp(a->folds, own))
		return cli_usage_error(cmd, "--folds: --quantity %s holds out %s; --folds %s applies to --quantity "
		                       "power only (see --help)", a->quantity, capacity ? "each model (folds model)"
		                       : "each level of each sweep (folds level)", a->folds);
	if (!a->folds)
		a->folds = own ? own : "model";
	if (power && strcmp(a->folds, "model") && strcmp(a->folds, "workload") && strcmp(a->folds, "frozen") &&
	    strcmp(a->folds, "platform"))
		return cli_usage_error(cmd, "--folds: expected model, workload, platform or frozen, got '%s'%s", a->folds,
		                       strcmp(a->folds, "level") ? "" : " (level is --quantity finetune's)");
	return CLI_OK;
}

static int
parse(int argc, char **argv, iv_args *a, int *help)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' }, { "params", required_argument, NULL, OPT_PARAMS },
		{ "profile", required_argument, NULL, OPT_PROFILE }, { "folds", required_argument, NULL, OPT_FOLDS },
		{ "prior", required_argument, NULL, OPT_PRIOR }, { "form", required_argument, NULL, OPT_FORM },
		{ "terms", required_argument, NULL, OPT_TERMS }, { "quantity", required_argument, NULL, OPT_QUANTITY },
		{ "plain", no_argument, NULL, OPT_PLAIN }, { "weights", required_argument, NULL, OPT_WEIGHTS },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cmd = "fit intervals";
	int opt, rc, weights_given = 0;
	memset(a, 0, sizeof *a);
	a->quantity = "power";
	cli_reset_getopt();
	while ((opt = cli_getopt(argc, argv, ":ho:", opts, NULL)) != -1) {
		switch (opt) {
		case 'o': a->out = optarg; break;
		case OPT_PARAMS: a->params = optarg; break;
		case OPT_PROFILE: a->profile = optarg; break;
		case OPT_FOLDS: a->folds = optarg; break;
		case OPT_PRIOR: a->prior = optarg; break;
		case OPT_FORM: a->form = optarg; break;
		case OPT_TERMS: a->terms = optarg; break;
		case OPT_QUANTITY: a->quantity = optarg; break;
		case OPT_PLAIN: a->plain = 1; break;
		case OPT_WEIGHTS:
			weights_given = 1;
			if (cli_parse_weights(cmd, optarg, &a->model_weights) != CLI_OK)
				return CLI_USAGE;
			break;
		case 'h': fputs(usage, stdout); *help = 1; return CLI_OK;
		default: return cli_bad_option(cmd, opt, argv);
		}
	}
	if (strcmp(a->quantity, "power") && strcmp(a->quantity, "capacity") && strcmp(a->quantity, "finetune"))
		return cli_usage_error(cmd, "--quantity: expected power, capacity or finetune, got '%s'", a->quantity);
	if ((rc = applies(a, weights_given)) != CLI_OK)
		return rc;
	if (strcmp(a->quantity, "capacity") == 0 && optind < argc) {
		a->inputs = argv + optind;
		a->n_inputs = argc - optind;
	} else if (cli_expect_one_operand(cmd, argc, "RUNS.csv") != CLI_OK)
		return CLI_USAGE;
	a->input = argv[optind];
	if (!a->out)
		return cli_usage_error(cmd, "-o PARAMS.json is required (see --help)");
	/* --params may be the output, a section added to it (docs/cli.md,
	 * "Conventions"); the prior is another file. */
	const char *in[] = { a->prior };
	if (cli_check_output(cmd, "-o", a->out, (const char *const *)argv + optind, (size_t)(argc - optind)) != CLI_OK ||
	    cli_check_output(cmd, "-o", a->out, in, 1) != CLI_OK)
		return CLI_USAGE;
	if (!a->params == !a->profile)
		return cli_usage_error(cmd, "give one of --params FILE and --profile NAME");
	int mode;
	return a->terms ? cli_parse_terms(cmd, a->terms, &mode) : CLI_OK;
}

static void
report(const iv_args *a, const wc_pred_error *pe)
{
	/* every input, as the section's `data` names them (capacity pools
	 * several: the first alone hid the others' runs behind n) */
	printf("held-out error of %s on %s", pe->quantity[0] ? pe->quantity : "mean_power_w", a->input);
	for (int i = 1; i < a->n_inputs; i++)
		printf(" + %s", a->inputs[i]);
	printf(" (folds: %s), 95 %% quantiles of |log(measured/predicted)|:\n", pe->folds);
	printf("  %-24s %6s %10s %22s\n", "stratum", "n", "q", "interval / prediction");
	int datasheet = 0;
	for (int i = 0; i < pe->n_strata; i++) {
		const wc_pe_stratum *s = &pe->strata[i];
		char name[64];
		snprintf(name, sizeof name, "%s%s%s", s->platform[0] ? s->platform : "(pooled)", s->source[0] ? ", " : "",
		         s->source);
		printf("  %-24s %6d %10.4f       [%.3f, %.3f]\n", name, s->n,
		       s->q_hi, exp(s->q_lo), exp(s->q_hi));
		datasheet |= strcmp(s->source, "datasheet") == 0;
	}
	if (datasheet && strcmp(pe->folds, "platform") != 0)
		printf("  (the datasheet stratum leaves each platform out, docs/intervals.md)\n");
}

/* A quantile over a few held-out groups is itself noisy and its guarantee
 * is between groups (docs/intervals.md, "Strata"), the reason a platform
 * needs WC_PE_MIN_GROUPS for a stratum of its own: the pooled one is held
 * to the same count, said rather than refused. Without it `--folds
 * workload` on ML.ENERGY's two sets wrote a "95 %" from 2 groups without a
 * word. */
static void
warn_groups(const char *stratum, int n_groups, const char *folds)
{
	if (n_groups <= 0 || n_groups >= WC_PE_MIN_GROUPS)
		return;
	fprintf(stderr, "wattcast fit intervals: warning: %s: hold out more groups, or read its 95 %% as rough: "
	        "the quantile rests on %d held-out group(s) (folds %s), fewer than the %d a stratum needs "
	        "(docs/intervals.md, \"Strata\"); a quantile over few groups is itself noisy\n",
	        stratum, n_groups, folds, WC_PE_MIN_GROUPS);
}

/* The pooled stratum, and a datasheet stratum that other folds made (a
 * capacity quantity's, each platform left out): every quantile a section
 * carries is held to the same count. */
static void
warn_few_groups(const wc_pred_error *pe)
{
	const char *q = pe->quantity[0] ? pe->quantity : "mean_power_w";
	char name[64];
	if (!pe->present)
		return;
	warn_groups(q, pe->n_groups, pe->folds);
	snprintf(name, sizeof name, "%s datasheet", q);
	warn_groups(name, pe->n_groups_datasheet, "platform");
}

/* The runs the quantiles leave out, and why: the section's n alone hid
 * them (172 B200 runs against a set with no B200 level), where `validate
 * heldout` on the same input says "172 run(s) skipped". Frozen folds
 * predict every row as heldout does; the refitting folds leave excluded
 * rows out. */
static void
report_skipped(const iv_args *a, const wc_runs_table *t, const wc_params *p, const wc_pred_error *pe,
               const char *why_folds)
{
	int frozen = strcmp(a->folds, "frozen") == 0, pooled = -1;
	size_t eligible = 0, lacking = 0;
	char names[160] = "";
	for (int i = 0; i < pe->n_strata && pooled < 0; i++)
		if (!pe->strata[i].platform[0])
			pooled = pe->strata[i].n;
	for (size_t i = 0; i < t->n_runs; i++)
		eligible += frozen || !t->runs[i].exclude[0];
	/* and those the refitting folds leave out, as cli.md's count says
	 * them ("7 excluded"): the n alone left 7 of 247 rows unsaid */
	char why[WC_ERROR_MSG_MAX];
	if (!frozen && wc_runs_excluded_why(t, why, sizeof why))
		printf("  %s\n", why);
	/* idle rows are predicted but carry no held-out error (docs/intervals.md,
	 * "Where it applies"): said apart from the runs not predicted */
	if (pe->n_idle > 0)
		printf("  %d idle row(s) (running 0 throughout) left out of the quantiles: the held-out error is of "
		       "loaded runs\n", pe->n_idle);
	if (pooled < 0 || eligible <= (size_t)pooled + (size_t)pe->n_idle)
		return;
	size_t skipped = eligible - (size_t)pooled - (size_t)pe->n_idle;
	/* A frozen set predicts nothing on a platform it has no level for. */
	for (size_t i = 0; frozen && i < t->n_runs; i++) {
		const char *plat = t->runs[i].platform;
		size_t n = 0;
		int seen = 0;
		for (size_t j = 0; j < i && !seen; j++)
			seen = strcmp(t->runs[j].platform, plat) == 0;
		if (seen || wc_params_level(p, plat))
			continue;
		for (size_t j = i; j < t->n_runs; j++)
			n += strcmp(t->runs[j].platform, plat) == 0;
		size_t used = strlen(names);
		if (used + strlen(plat) + 32 < sizeof names)
			snprintf(names + used, sizeof names - used, "%s%s (%zu runs)", lacking ? ", " : "", plat, n);
		lacking += n;
	}
	printf("  %zu run(s) not predicted, left out of the quantiles: ", skipped);
	if (lacking)
		printf("the set has no level for %s", names);
	if (lacking && lacking < skipped)
		printf("; %zu more with no positive prediction", skipped - lacking);
	else if (!lacking && why_folds && why_folds[0])
		printf("%s", why_folds); /* the folds' own reason, as validate lomo says it */
	else if (!lacking)
		printf("%s", strcmp(a->folds, "platform") == 0 ? "no datasheet transfer for their platform, or no "
		                                                 "positive prediction"
		             : frozen ? "no positive prediction"
		                      : "their fold's refit failed, or no positive prediction");
	putchar('\n');
}

/* The datasheet stratum of `pe` into the set's section, replacing an
 * older one; the section's own folds stay (docs/intervals.md, "Strata"). */
static void
merge_datasheet(wc_pred_error *into, const wc_pred_error *pe)
{
	if (!into->present) {
		*into = *pe;
		return;
	}
	int kept = 0;
	for (int i = 0; i < into->n_strata; i++)
		if (strcmp(into->strata[i].source, "datasheet") != 0)
			into->strata[kept++] = into->strata[i];
	into->n_strata = kept;
	for (int i = 0; i < pe->n_strata; i++)
		wc_pe_add(into, &pe->strata[i]);
}

/* Folds other than `platform` measure the pooled and per-platform strata
 * only: the set's datasheet strata (each platform left out) are no folds
 * of theirs and stay, as `--folds platform` keeps the strata it does not
 * replace (docs/intervals.md, "Strata"). Dropping them widened a datasheet
 * board's answer by the fitted levels' error alone. Says what it kept. */
static int
keep_datasheet(const wc_pred_error *old, wc_pred_error *pe)
{
	for (int i = 0; old->present && i < pe->n_strata; i++)
		if (strcmp(pe->strata[i].source, "datasheet") == 0)
			return CLI_OK; /* the new folds measured one of their own */
	for (int i = 0; old->present && i < old->n_strata; i++) {
		const wc_pe_stratum *s = &old->strata[i];
		if (strcmp(s->source, "datasheet") != 0)
			continue;
		if (wc_pe_add(pe, s) != WC_OK)
			return cli_fail("fit intervals", "prediction_error: more than %d strata with the set's datasheet "
			                "stratum kept", WC_PE_STRATA_MAX);
		printf("  kept the set's %s%sdatasheet stratum (n %d, q %.4f; --folds platform measures it again)\n",
		       s->platform, s->platform[0] ? " " : "", s->n, s->q_hi);
	}
	return CLI_OK;
}

/* The capacity model's or the fine-tuning law's held-out errors into
 * p->quantity_error (docs/intervals.md). */
static int
other_quantity(const iv_args *a, const char *data, wc_params *p)
{
	const char *cmd = "fit intervals";
	wc_pred_error pe[WC_PEQ_COUNT];
	wc_error err;
	int rc = CLI_OK;
	memset(pe, 0, sizeof pe);
	if (strcmp(a->quantity, "finetune") == 0) {
		wc_ft_table *t = NULL;
		if (wc_ft_table_read(a->input, &t, &err) != WC_OK ||
		    wc_validate_finetune_pred_error(t, data, pe, &err) != WC_OK)
			rc = cli_fail(cmd, "%s", err.msg);
		wc_ft_table_free(t);
	} else {
		cli_capacity_inputs in;
		wc_capacity_fit_options co = WC_CAPACITY_FIT_OPTIONS_INIT;
		wc_fit_options po = WC_FIT_OPTIONS_INIT;
		memset(&in, 0, sizeof in);
		co.robust = !a->plain;
		co.model_weights = a->model_weights;
		po.prior = p;
		wc_fit_options_like(&po, p, a->terms ? cli_terms_mode(a->terms) : -1);
		if ((rc = cli_capacity_inputs_load(cmd, a->inputs, a->n_inputs, &in)) == CLI_OK &&
		    wc_validate_capacity_pred_error(in.runs, &in.data, &co, &po, data, pe, &err) != WC_OK)
			rc = cli_fail(cmd, "%s", err.msg);
		cli_capacity_inputs_free(&in);
	}
	for (int q = 0; rc == CLI_OK && q < WC_PEQ_COUNT; q++)
		if (pe[q].present) {
			p->quantity_error[q] = pe[q];
			report(a, &pe[q]);
			warn_few_groups(&pe[q]);
		}
	return rc;
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
	wc_form asked;
	gsl_set_error_handler_off();
	if (a.form && wc_form_from_name(a.form, &asked) != WC_OK)
		return cli_usage_error(cmd, "--form: unknown form '%s'", a.form);
	if ((rc = cli_load_params_rewritable(cmd, a.params, a.profile, &p)) != CLI_OK ||
	    (rc = cli_load_params(cmd, a.prior, NULL, &prior)) != CLI_OK)
		goto done;
	/* The folds refit the set's own form (wc_fit_options_like); another
	 * form's error, stored in this set, would widen its intervals by a law
	 * it does not evaluate (docs/intervals.md, "Folds: match the use"). */
	if (a.form && asked != p.form) {
		rc = cli_usage_error(cmd, "--form: the set's law is %s and its held-out error must be that law's; leave "
		                     "--form out, or fit the set with --form %s first", wc_form_name(p.form), a.form);
		goto done;
	}
	rc = CLI_FAIL;
	if (wc_sha256_file_hex(a.input, sha, &err) != WC_OK) {
		cli_fail(cmd, "%s", err.msg);
		goto done;
	}
	const char *base = strrchr(a.input, '/');
	snprintf(data, sizeof data, "%s (sha256 %.16s)", base ? base + 1 : a.input, sha);
	/* every input is named, not the first alone (capacity pools several) */
	for (int i = 1; i < a.n_inputs && strlen(data) + 8 < sizeof data; i++) {
		const char *b = strrchr(a.inputs[i], '/');
		size_t len = strlen(data);
		snprintf(data + len, sizeof data - len, " + %s", b ? b + 1 : a.inputs[i]);
	}
	if (strcmp(a.quantity, "power") != 0) {
		if (other_quantity(&a, data, &p) != CLI_OK)
			goto done;
	} else {
		/* a raw ML.ENERGY table is imported as every command taking one
		 * runs table imports it (docs/cli.md) */
		if (wc_table_inputs_read_runs(a.input, &t, &err) != WC_OK) {
			cli_fail(cmd, "%s", err.msg);
			goto done;
		}
		fo.prior = &prior;
		/* each fold refits the set as it was built */
		wc_fit_options_like(&fo, &p, a.terms ? cli_terms_mode(a.terms) : -1);
		char skip_why[WC_ERROR_MSG_MAX];
		if (wc_validate_pred_error_why(t, &fo, &p, a.folds, data, &pe, skip_why, sizeof skip_why, &err) !=
		    WC_OK) {
			cli_fail(cmd, "%s", err.msg);
			goto done;
		}
		report(&a, &pe);
		report_skipped(&a, t, &p, &pe, skip_why);
		warn_few_groups(&pe);
		char twins[WC_ERROR_MSG_MAX];
		if (strcmp(a.folds, "model") == 0 && wc_fit_twin_models(t, twins, sizeof twins))
			fprintf(stderr, "wattcast %s: warning: %s\n", cmd, twins);
		char in_sample[WC_ERROR_MSG_MAX];
		if (strcmp(a.folds, "frozen") == 0 &&
		    wc_heldout_in_sample(&p, t, a.input, in_sample, sizeof in_sample, NULL))
			fprintf(stderr, "wattcast %s: warning: %s\n", cmd, in_sample);
		if (strcmp(a.folds, "platform") == 0)
			merge_datasheet(&p.pred_error, &pe);
		else if (keep_datasheet(&p.pred_error, &pe) != CLI_OK)
			goto done;
		else
			p.pred_error = pe;
	}
	char version[17];
	if (wc_params_save_file(a.out, &p, &err) != WC_OK || wc_params_fingerprint(&p, version, &err) != WC_OK) {
		cli_fail(cmd, "%s", err.msg);
		goto done;
	}
	printf("wrote %s (params_version %s)\n", a.out, version);
	rc = CLI_OK;
done:
	wc_runs_free(t);
	wc_params_clear(&p);
	wc_params_clear(&prior);
	return rc;
}
