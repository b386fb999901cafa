/*
 * wattcast validate capacity: leave-one-model-out accuracy of throughput
 * and energy per output token on runs tables, and leave-one-out accuracy
 * of the published (or any) batch-turnover periods.
 */
#include "cli.h"
#include "cli_validate.h"
#include "cli_capacity.h"
#include "data/data.h"
#include "validation/validation.h"

#include <gsl/gsl_errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
	"usage: wattcast validate capacity RUNS.csv... [--json] [--per-run FILE]\n"
	"                                 [--params P | --profile measured|paper|paper-prefill]\n"
	"                                 [--per-level eta,t0,...] [--plain] [--weights run|model]\n"
	"                                 [--terms all|pooled|as-bf16|none] [--law-terms LIST|none]\n"
	"                                 [--folds model|platform]\n\n"
	"Leave one model out over the runs tables' rows (runs tables or raw ML.ENERGY\n"
	"tables): for each model, the capacity model and the power law are refitted on\n"
	"the other models and its throughput and energy per output token predicted;\n"
	"median |error| %, share within 5 % and bias % per platform. Leave one out over\n"
	"the periods tables' rows (e.g. data/default/published-periods.csv): each period\n"
	"predicted from a fit on the other periods. --params / --profile give the power\n"
	"fits their prior (P0 where the runs have no idle power). --per-run FILE writes\n"
	"one CSV row per prediction (quantity throughput_tok_s, energy_per_token_j or\n"
	"period_s). Rows with a non-empty `exclude` are neither fitted nor predicted;\n"
	"the report counts them. The capacity model is fitted as `fit capacity` does\n"
	"(Huber-weighted); --plain fits it by plain least squares, as `fit capacity\n"
	"--plain` does;\n"
	"--weights model makes each model count once in every fit, as `fit capacity\n"
	"--weights model` does. Each fold refits the power law as the prior was built\n"
	"(docs/validation.md, \"Refitting a set\"): its structure terms (moe,tp for the\n"
	"measured profile, none for paper) and quantized runs as its fit took them\n"
	"(its provenance.precision_mode; a file without it: a term per level when it\n"
	"has precision terms, else every quantized run in with none); --terms and\n"
	"--law-terms override them as in `fit inference`.\n"
	"--folds platform leaves each platform out instead: the capacity model is\n"
	"refitted on the other platforms' rows (runs tables and periods) and the\n"
	"platform's rows predicted through the datasheet transfer an unfitted board\n"
	"gets (docs/capacity.md, \"Platforms without a capacity level\"); energy per\n"
	"output token divides the prior's power, its level for the platform replaced by\n"
	"its datasheet transfer, by that throughput.\n";

enum { OPT_JSON = 1000, OPT_PER_RUN, OPT_PARAMS, OPT_PROFILE, OPT_PER_LEVEL, OPT_ROBUST, OPT_PLAIN, OPT_WEIGHTS,
       OPT_TERMS, OPT_LAW_TERMS, OPT_FOLDS };

static json_t *
num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *
report_json(const wc_heldout_report *r, int n_named, const wc_capacity_skip *named)
{
	json_t *o = json_object(), *sets = json_object();
	for (int i = 0; i <= r->n_sets; i++) {
		const wc_accuracy *a = i < r->n_sets ? &r->sets[i] : &r->overall;
		json_t *x = json_pack("{s:i,s:o,s:o,s:o,s:i,s:o,s:o}", "n", a->n, "median_abs_err_pct",
		                      num(a->median_abs_err_pct), "share_within_5pct", num(a->share_within_5pct),
		                      "bias_pct", num(a->bias_pct), "n_interval", a->n_interval, "coverage_95",
		                      num(a->coverage_95), "median_rel_width", num(a->median_rel_width));
		if (i < r->n_sets)
			json_object_set_new(sets, a->set, x);
		else
			json_object_set_new(o, "overall", x);
	}
	json_object_set_new(o, "platforms", sets);
	cli_load_bands_json(o, r);
	json_object_set_new(o, "skipped", json_integer(r->skipped));
	json_t *runs = json_array();
	for (int i = 0; i < n_named; i++)
		json_array_append_new(runs, json_pack("{s:s,s:s}", "run_id", named[i].run_id, "reason", named[i].reason));
	json_object_set_new(o, "skipped_runs", runs);
	return o;
}

/* Rows marked `exclude` (runs-table and periods rows alike): counted and
 * one named with its reason, in the words lomo and `fit intervals` use
 * (wc_excluded_say), so that "(all) 11" of 16 periods does not read as
 * every row scored (docs/validation.md, "Capacity"). The count, 0 = none. */
static size_t
excluded_note(const wc_capacity_data *d, char *buf, size_t cap)
{
	size_t n = 0, first = 0;
	if (cap)
		buf[0] = '\0';
	for (size_t i = d->n_rows; i-- > 0;)
		if (d->rows[i].exclude[0]) {
			n++;
			first = i;
		}
	if (n)
		wc_excluded_say(n, "row", d->rows[first].id, d->rows[first].exclude, buf, cap);
	return n;
}

static void
print_report(const char *title, const wc_heldout_report *r, int n_named, const wc_capacity_skip *named)
{
	/* a section no row was scored in is still shown, so the reader is
	 * told it was tried and why nothing came of it (docs/validation.md) */
	if (!r->overall.n) {
		printf("%s\n  no row scored\n", title);
		goto skipped;
	}
	printf("%s\n%-22s %5s %14s %11s %9s %9s %8s\n", title, "platform", "n", "median |err| %", "within 5 %",
	       "bias %", "cover 95%", "width %");
	for (int i = 0; i <= r->n_sets; i++) {
		const wc_accuracy *a = i < r->n_sets ? &r->sets[i] : &r->overall;
		printf("%-22s %5d %14.2f %11.1f %+9.2f", i < r->n_sets ? a->set : "(all)", a->n, a->median_abs_err_pct,
		       100.0 * a->share_within_5pct, a->bias_pct); /* a percentage, as its heading says */
		if (a->n_interval > 0)
			printf(" %9.1f %8.1f\n", 100.0 * a->coverage_95, 100.0 * a->median_rel_width);
		else
			printf(" %*s %*s\n", cli_field_width("–", 9), "–", cli_field_width("–", 8), "–");
	}
	cli_note_no_interval(&r->overall, "other folds (models, or periods)", NULL);
	cli_load_bands_print(r);
skipped:
	if (!r->skipped)
		return;
	printf("%d row(s) skipped: their fold could not predict them:\n", r->skipped);
	for (int i = 0; i < n_named; i++)
		printf("  %s: %s\n", named[i].run_id, named[i].reason);
	if (r->skipped > n_named)
		printf("  (%d more not named)\n", r->skipped - n_named);
}

/* Rows of the tables the capacity model cannot describe: named by
 * cli_capacity_noted_lines and cli_capacity_untimed_line (capacity_inputs.c). */
static json_t *
unscored_json(const wc_capacity_data *d, const wc_runs_table *t)
{
	json_t *a = json_array();
	char line[256], noted[CLI_CAPACITY_REASONS_MAX][256];
	int n, named;
	int lines = cli_capacity_noted_lines(d, t, noted, &named);
	for (int i = 0; i < lines; i++)
		json_array_append_new(a, json_string(noted[i]));
	for (int w = 0; d->n_skipped > named && w < WC_CAPACITY_UNTIMED_COUNT; w++) {
		cli_capacity_untimed_line(t, w, line, sizeof line, &n);
		if (n)
			json_array_append_new(a, json_string(line));
	}
	return json_pack("{s:i,s:o}", "rows", d->n_skipped, "reasons", a);
}

static void
print_unscored(const wc_capacity_data *d, const wc_runs_table *t)
{
	int named, n;
	char line[256], noted[CLI_CAPACITY_REASONS_MAX][256];
	if (!d->n_skipped)
		return;
	fprintf(stderr, "validate capacity: %d table row(s) not scored (no timing to score, or nothing the "
	        "capacity model can describe):\n", d->n_skipped);
	int lines = cli_capacity_noted_lines(d, t, noted, &named);
	for (int i = 0; i < lines; i++)
		fprintf(stderr, "  warning: %s\n", noted[i]);
	/* The untimed runs by id, so that the count above is accounted for. */
	for (int w = 0; named < d->n_skipped && w < WC_CAPACITY_UNTIMED_COUNT; w++) {
		cli_capacity_untimed_line(t, w, line, sizeof line, &n);
		if (n)
			fprintf(stderr, "  warning: %s\n", line);
		named += n;
	}
	if (named < d->n_skipped)
		fprintf(stderr, "  (%d more not named)\n", d->n_skipped - named);
}

static int
report(const wc_capacity_report *r, const wc_capacity_data *d, const wc_runs_table *t, wc_capacity_folds folds,
       int json)
{
	const int plat = folds == WC_CAPACITY_FOLDS_PLATFORM;
	if (json) {
		json_t *tp = report_json(&r->throughput, r->n_named[0], r->named[0]),
		       *en = report_json(&r->energy, r->n_named[1], r->named[1]),
		       *pe = report_json(&r->periods, r->n_named[2], r->named[2]);
		json_t *o = plat ? json_pack("{s:o,s:o,s:o}", "throughput_lopo", tp, "energy_per_token_lopo", en,
		                             "periods_lopo", pe)
		                 : json_pack("{s:o,s:o,s:o}", "throughput_lomo", tp, "energy_per_token_lomo", en,
		                             "periods_loo", pe);
		json_object_set_new(o, "unscored", unscored_json(d, t));
		char note[WC_ERROR_MSG_MAX];
		size_t n_excluded = excluded_note(d, note, sizeof note);
		json_object_set_new(o, "excluded", n_excluded ? json_pack("{s:I,s:s}", "rows", (json_int_t)n_excluded,
		                                                          "note", note)
		                                              : json_pack("{s:i}", "rows", 0));
		cli_print_json_report(o);
		return CLI_OK;
	}
	print_unscored(d, t);
	if (r->throughput.overall.n || r->throughput.skipped)
		print_report(plat ? "throughput, leave one platform out (datasheet transfer; error = predicted vs measured)"
		                  : "throughput, leave one model out (error = predicted vs measured)",
		             &r->throughput, r->n_named[0], r->named[0]);
	if (r->energy.overall.n || r->energy.skipped)
		print_report(plat ? "energy per output token, leave one platform out (power and capacity transferred)"
		                  : "energy per output token, leave one model out",
		             &r->energy, r->n_named[1], r->named[1]);
	if (r->periods.overall.n || r->periods.skipped)
		print_report(plat ? "batch-turnover period, leave one platform out (datasheet transfer)"
		                  : "batch-turnover period, leave one out",
		             &r->periods, r->n_named[2], r->named[2]);
	char note[WC_ERROR_MSG_MAX];
	if (excluded_note(d, note, sizeof note))
		printf("%s\n", note);
	return CLI_OK;
}

/* Periods rows equal to an earlier one in every measured field: held out
 * together (validation/capacity.c), and said, the first pair named whole
 * -- or, when both do not fit, the later alone (docs/validation.md,
 * "Capacity"). */
static void
warn_period_twins(const char *cmd, const wc_capacity_report *r)
{
	char msg[WC_ERROR_MSG_MAX], pair[2 * sizeof r->period_twin[0] + 16];
	if (!r->period_twins)
		return;
	/* one id twice: the same table given twice (its rows' default ids) */
	if (strcmp(r->period_twin[0], r->period_twin[1]) == 0)
		snprintf(pair, sizeof pair, "'%s' twice", r->period_twin[0]);
	else
		snprintf(pair, sizeof pair, "'%s' and '%s'", r->period_twin[0], r->period_twin[1]);
	if ((size_t)snprintf(msg, sizeof msg, "%d periods row(s) equal an earlier one in every measured field, e.g. "
	                     "%s: one period given twice? each is held out with its twins",
	                     r->period_twins, pair) >= sizeof msg)
		wc_error_format(msg, sizeof msg, "%d periods row(s) equal an earlier one in every measured field, e.g. "
		                "'%s': one period given twice? each is held out with its twins", r->period_twins,
		                r->period_twin[1]);
	fprintf(stderr, "wattcast %s: warning: %s\n", cmd, msg);
}

/* Nothing scored: every row read is counted as skipped with its reason --
 * the rows nothing could be scored in (named on stderr), the rows their
 * fold could not predict (its own reason, as lomo says it: a table of one
 * model leaves nothing to fit), the rows excluded (docs/validation.md,
 * "Capacity"). */
static int
fail_unscored(const char *cmd, const wc_capacity_data *d, const wc_capacity_report *r)
{
	char why[WC_ERROR_MSG_MAX] = "", all[160];
	size_t excluded = excluded_note(d, all, sizeof all);
	const wc_heldout_report *fold = r->throughput.skipped ? &r->throughput : &r->periods;
	int unpredicted = r->throughput.skipped + r->periods.skipped;
	if (unpredicted)
		snprintf(why, sizeof why, "; %d not predicted: %.150s", unpredicted,
		         fold->skip_reason[0] ? fold->skip_reason : "no reason recorded");
	if (wc_runs_excluded_note(d->n_rows, excluded, all, sizeof all))
		snprintf(why + strlen(why), sizeof why - strlen(why), "; %s", all);
	else if (excluded)
		snprintf(why + strlen(why), sizeof why - strlen(why), "; %zu excluded", excluded);
	return cli_fail(cmd, "no row could be scored (%zu row(s) read, %zu skipped%.200s): nothing to validate",
	                d->n_rows + (size_t)d->n_skipped, (size_t)d->n_skipped + (size_t)unpredicted + excluded, why);
}

/* Inputs with a header and no rows: refused naming them, as every
 * analysis refuses them (it said "no row could be scored (0 row(s) read,
 * 0 skipped)" and no file). */
static int
some_rows(const char *cmd, const cli_capacity_inputs *in)
{
	return in->runs->n_runs || in->periods->n_rows ? CLI_OK : cli_validate_no_rows(cmd, in->runs->path);
}

int
cli_validate_capacity(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, OPT_JSON },
		{ "per-run", required_argument, NULL, OPT_PER_RUN },
		{ "params", required_argument, NULL, OPT_PARAMS },
		{ "profile", required_argument, NULL, OPT_PROFILE },
		{ "per-level", required_argument, NULL, OPT_PER_LEVEL },
		{ "robust", no_argument, NULL, OPT_ROBUST },
		{ "plain", no_argument, NULL, OPT_PLAIN },
		{ "weights", required_argument, NULL, OPT_WEIGHTS },
		{ "terms", required_argument, NULL, OPT_TERMS },
		{ "law-terms", required_argument, NULL, OPT_LAW_TERMS },
		{ "folds", required_argument, NULL, OPT_FOLDS },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cmd = "validate capacity", *per_run_path = NULL, *params = NULL, *profile = NULL;
	wc_capacity_fit_options co = WC_CAPACITY_FIT_OPTIONS_INIT;
	int opt, json = 0, rc, terms = -1, law_given = 0;
	wc_capacity_folds folds = WC_CAPACITY_FOLDS_MODEL;
	unsigned law_mask = 0u;
	cli_reset_getopt();
	while ((opt = cli_getopt(argc, argv, ":h", opts, NULL)) != -1) {
		switch (opt) {
		case OPT_JSON: json = 1; break;
		case OPT_PER_RUN: per_run_path = optarg; break;
		case OPT_PARAMS: params = optarg; break;
		case OPT_PROFILE: profile = optarg; break;
		case OPT_PER_LEVEL:
			if ((rc = cli_parse_per_level(cmd, optarg, co.per_level)) != CLI_OK)
				return rc;
			break;
		case OPT_ROBUST: co.robust = 1; break;
		case OPT_PLAIN: co.robust = 0; break;
		case OPT_WEIGHTS:
			if ((rc = cli_parse_weights(cmd, optarg, &co.model_weights)) != CLI_OK)
				return rc;
			break;
		case OPT_TERMS:
			if ((rc = cli_parse_terms(cmd, optarg, &terms)) != CLI_OK)
				return rc;
			break;
		case OPT_LAW_TERMS:
			if ((rc = cli_parse_law_terms(cmd, optarg, &law_mask)) != CLI_OK)
				return rc;
			law_given = 1;
			break;
		case OPT_FOLDS:
			if (strcmp(optarg, "model") && strcmp(optarg, "platform"))
				return cli_usage_error(cmd, "--folds: expected model or platform, got '%s'", optarg);
			folds = strcmp(optarg, "platform") == 0 ? WC_CAPACITY_FOLDS_PLATFORM : WC_CAPACITY_FOLDS_MODEL;
			break;
		case 'h': fputs(usage, stdout); return CLI_OK;
		default: return cli_validate_bad_option(cmd, CLI_VA_CAPACITY, opt, argv);
		}
	}
	if (optind >= argc)
		return cli_usage_error(cmd, "RUNS.csv is required (see --help)");
	if (params && profile)
		return cli_usage_error(cmd, "give at most one of --params and --profile");
	if (cli_check_output(cmd, "--per-run", per_run_path, (const char *const *)argv + optind,
	                     (size_t)(argc - optind)) != CLI_OK ||
	    cli_check_output(cmd, "--per-run", per_run_path, &params, 1) != CLI_OK)
		return CLI_USAGE;
	gsl_set_error_handler_off();
	cli_capacity_inputs in;
	wc_params prior = WC_PARAMS_INIT;
	wc_per_run pr = WC_PER_RUN_INIT;
	wc_capacity_report r;
	wc_error err;
	memset(&in, 0, sizeof in);
	if ((rc = cli_load_params(cmd, params, profile, &prior)) == CLI_OK &&
	    (rc = cli_capacity_inputs_load(cmd, argv + optind, argc - optind, &in)) == CLI_OK &&
	    (rc = some_rows(cmd, &in)) == CLI_OK) {
		wc_fit_options po = WC_FIT_OPTIONS_INIT;
		po.prior = &prior;
		wc_fit_options_like(&po, &prior, terms);
		if (law_given)
			po.law_terms = law_mask;
		const wc_heldout_report *energy = &r.energy;
		if (wc_validate_capacity_folds(in.runs, &in.data, &co, &po, folds, &r, per_run_path ? &pr : NULL, &err) !=
		        WC_OK ||
		    cli_validate_per_run_write(per_run_path, &pr,
		                               (long)r.throughput.overall.n + r.energy.overall.n + r.periods.overall.n,
		                               &err) != WC_OK)
			rc = cli_fail(cmd, "%s", err.msg);
		/* the structure terms the power refits left out, once each */
		else if (cli_law_terms_warn(cmd, &energy, 1), warn_period_twins(cmd, &r),
		         !(r.throughput.overall.n || r.energy.overall.n || r.periods.overall.n)) {
			/* Nothing scored is no validation: an empty report with exit 0
			 * read as a pass, as the other analyses refuse (docs/cli.md,
			 * "validate"). The unscored rows say why, and the sections
			 * name the rows their folds could not predict -- in --json's
			 * skipped_runs too, so the document is printed as the text is
			 * (docs/validation.md, "Capacity"). */
			report(&r, &in.data, in.runs, folds, json);
			rc = fail_unscored(cmd, &in.data, &r);
		} else
			rc = report(&r, &in.data, in.runs, folds, json);
	}
	wc_per_run_clear(&pr);
	cli_capacity_inputs_free(&in);
	wc_params_clear(&prior);
	return rc;
}
