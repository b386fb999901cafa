/*
 * wattcast validate forms|precision|heldout: the held-out analyses of the
 * published Tables 11, 12 and 14, as tables or JSON.
 */
#include "cli.h"
#include "cli_validate.h"
#include "cli_capacity.h"
#include "data/data.h"
#include "data/table_inputs.h"
#include "fit/fit.h"
#include "validation/validation.h"

#include <gsl/gsl_errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char validate_about[] =
	"forms      scores every candidate form by held-out RMS in log(P - G*P0):\n"
	"           T1 leave one model out, T2 fit n 1-64 / predict 128-256, T3 leave one\n"
	"           TP degree out, T4 leave one platform-model pair out; '-' = not scored;\n"
	"           the primary score averages the tests every form was scored on.\n"
	"           Runs with quantized weights or KV cache are left out (Table 11).\n"
	"           --real: every form (the published five and saturating_prefill) on\n"
	"           real runs instead, leave one model out and leave one workload (`set`)\n"
	"           out, median |error| % of mean power per platform, side by side, and\n"
	"           the coverage of each run's cross-conformal 95 % interval.\n"
	"precision  finds paired runs, compares no term / shift inside z / factor on S by\n"
	"           leave-one-pair-out RMS, keeps a term when p < 0.05 (Table 12).\n"
	"heldout    accuracy of a frozen law on every run of RUNS.csv, overall and per\n"
	"           `set`: n, median |error| %, share within 5 %, bias % (Table 14);\n"
	"           --datasheet also scores runs on a catalog board the law has no level\n"
	"           for, by its datasheet transfer (zero-shot on a new board).\n"
	"lomo       leave-one-model-out: for each model (with its -FP8/-Instruct/... variants)\n"
	"           fit the law on the other models and predict it; accuracy per platform.\n"
	"fewshot    calibrate on k runs of each model (or platform) and predict the rest,\n"
	"           k = 0, 1, 3 side by side (docs/validation.md).\n"
	"Excluded runs (`exclude` column) are left out of forms, precision, lomo,\n"
	"fewshot, capacity (marked periods rows too) and finetune, and included in\n"
	"heldout (held-out sets are usually excluded from fits).\n"
	"RUNS.csv may also be a raw ML.ENERGY configuration table: it is imported as\n"
	"`wattcast import mlenergy` does.\n"	"--per-run FILE writes one CSV row per predicted run: run_id, set, fold, the\n"
	"inputs used, predicted and measured mean power, error %, the 95 % interval\n"
	"(heldout: the file's draws and held-out error; lomo: cross-conformal, from the\n"
	"other models' held-out errors), where P0 came from, and the warnings.\n"
	"heldout and lomo also print the share of measured values inside the 95 %\n"
	"interval and its median width (docs/intervals.md).\n";

static const cli_subcommands validate_commands;

enum { OPT_JSON = 1000, OPT_PRIOR, OPT_PROFILE, OPT_PARAMS, OPT_FORM, OPT_TERMS, OPT_PER_RUN, OPT_REAL,
       OPT_LAW_TERMS, OPT_DATASHEET };

typedef struct {
	const char *cmd, *input, *prior, *profile, *params, *form, *terms, *per_run, *law_terms;
	int json, real, datasheet;
	unsigned law_mask;
} validate_args;

/* The analysis `what` as the flag table names it (validate_flags.c). */
static unsigned
analysis_of(const char *what, int real)
{
	if (strcmp(what, "forms") == 0)
		return real ? CLI_VA_FORMS_REAL : CLI_VA_FORMS;
	if (strcmp(what, "precision") == 0)
		return CLI_VA_PRECISION;
	return strcmp(what, "heldout") == 0 ? CLI_VA_HELDOUT : CLI_VA_LOMO;
}

static int
parse_args(const char *what, const char *cmd, int argc, char **argv, validate_args *a)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, OPT_JSON },
		{ "prior", required_argument, NULL, OPT_PRIOR },
		{ "profile", required_argument, NULL, OPT_PROFILE },
		{ "params", required_argument, NULL, OPT_PARAMS },
		{ "form", required_argument, NULL, OPT_FORM },
		{ "terms", required_argument, NULL, OPT_TERMS },
		{ "per-run", required_argument, NULL, OPT_PER_RUN },
		{ "real", no_argument, NULL, OPT_REAL },
		{ "law-terms", required_argument, NULL, OPT_LAW_TERMS },
		{ "datasheet", no_argument, NULL, OPT_DATASHEET },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned char given[sizeof opts / sizeof opts[0]] = { 0 };
	int opt, idx;
	memset(a, 0, sizeof *a);
	a->cmd = cmd;
	cli_reset_getopt();
	/* --real changes what forms takes and may come last: the flags known
	 * here are weighed after the loop, against the analysis in full */
	while ((opt = cli_getopt(argc, argv, ":h", opts, &idx)) != -1) {
		if (idx >= 0 && opt >= OPT_JSON)
			given[idx] = 1;
		switch (opt) {
		case OPT_JSON: a->json = 1; break;
		case OPT_PRIOR: a->prior = optarg; break;
		case OPT_PROFILE: a->profile = optarg; break;
		case OPT_PARAMS: a->params = optarg; break;
		case OPT_FORM: a->form = optarg; break;
		case OPT_PER_RUN: a->per_run = optarg; break;
		case OPT_REAL: a->real = 1; break;
		case OPT_DATASHEET: a->datasheet = 1; break;
		case OPT_LAW_TERMS:
			a->law_terms = optarg;
			if (cli_parse_law_terms(cmd, optarg, &a->law_mask) != CLI_OK)
				return CLI_USAGE;
			break;
		case OPT_TERMS: {
			int mode;
			a->terms = optarg;
			if (cli_parse_terms(cmd, optarg, &mode) != CLI_OK)
				return CLI_USAGE;
			break;
		}
		case 'h': cli_subcommands_usage(&validate_commands, stdout); return -1;
		default: return cli_validate_bad_option(cmd, analysis_of(what, a->real), opt, argv);
		}
	}
	/* Every flag where it applies (one table for every analysis, docs/cli.md
	 * "validate"), before the flags are weighed against each other. */
	if (cli_validate_flags_given(cmd, analysis_of(what, a->real), opts, given) != CLI_OK)
		return CLI_USAGE;
	if (cli_expect_one_operand(cmd, argc, "RUNS.csv") != CLI_OK)
		return CLI_USAGE;
	if (a->prior && a->profile)
		return cli_usage_error(cmd, "give at most one of --prior and --profile");
	a->input = argv[optind];
	const char *in[] = { a->input, a->prior, a->params };
	if (cli_check_output(cmd, "--per-run", a->per_run, in, 3) != CLI_OK)
		return CLI_USAGE;
	return CLI_OK;
}

static json_t *
num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static void
print_json(json_t *o)
{
	cli_print_json_report(o);
}

static void
print_cell(double v, int ok)
{
	if (ok && isfinite(v))
		printf(" %8.3f", v);
	else
		printf(" %*s", cli_field_width("–", 8), "–");
}

static int
report_forms(const validate_args *a, const wc_forms_report *r)
{
	if (a->json) {
		json_t *o = json_object(), *tests = json_array(), *forms = json_array();
		json_object_set_new(o, "runs", json_integer(r->runs));
		json_object_set_new(o, "metric", json_string("held-out RMS of log(P - G*P0)"));
		for (int t = 0; t < WC_TEST_COUNT; t++)
			json_array_append_new(tests, json_pack("{s:s,s:s,s:b}", "name", wc_test_name(t),
			                      "description", wc_test_description(t), "in_primary", r->in_primary[t]));
		for (int f = 0; f < WC_FORM_COUNT; f++) {
			const wc_form_score *s = &r->forms[f];
			json_t *e = json_pack("{s:s,s:o}", "form", wc_form_name(s->form), "k",
			                      s->k >= 0 ? json_integer(s->k) : json_null());
			if (s->k < 0)
				json_object_set_new(e, "k_reason", json_string(s->k_reason));
			for (int t = 0; t < WC_TEST_COUNT; t++)
				json_object_set_new(e, wc_test_name(t), s->scored[t] ? num(s->score[t]) : json_null());
			json_object_set_new(e, "primary", num(s->primary));
			json_object_set_new(e, "compared", json_boolean(s->compared));
			json_array_append_new(forms, e);
		}
		json_object_set_new(o, "tests", tests);
		json_object_set_new(o, "forms", forms);
		json_object_set_new(o, "chosen", r->chosen >= 0 ? json_string(wc_form_name((wc_form)r->chosen))
		                                                : json_null());
		print_json(o);
		return CLI_OK;
	}
	printf("candidate forms on %s (%d runs; held-out RMS in log(P - G*P0))\n", a->input, r->runs);
	printf("%-28s %3s %8s %8s %8s %8s %8s\n", "form", "k", "T1", "T2", "T3", "T4", "primary");
	for (int f = 0; f < WC_FORM_COUNT; f++) {
		const wc_form_score *s = &r->forms[f];
		if (s->k >= 0)
			printf("%-28s %3d", wc_form_name(s->form), s->k);
		else
			printf("%-28s %*s", wc_form_name(s->form), cli_field_width("–", 3), "–");
		for (int t = 0; t < WC_TEST_COUNT; t++)
			print_cell(s->score[t], s->scored[t]);
		print_cell(s->primary, 1);
		printf("%s\n", f == r->chosen ? "  <- chosen" : "");
	}
	for (int t = 0; t < WC_TEST_COUNT; t++)
		printf("%s: %s%s\n", wc_test_name(t), wc_test_description(t),
		       r->in_primary[t] ? "" : " (not in the primary score: not scored for every form compared)");
	for (int f = 0; f < WC_FORM_COUNT; f++)
		if (r->forms[f].k < 0)
			printf("k of %s: – (its fit on all %d runs failed: %.200s)\n", wc_form_name(r->forms[f].form), r->runs,
			       r->forms[f].k_reason);
	int left = 0;
	for (int f = 0; f < WC_FORM_COUNT; f++) {
		const wc_form_score *s = &r->forms[f];
		int n = 0;
		for (int t = 0; t < WC_TEST_COUNT; t++)
			n += s->scored[t] != 0;
		if (!s->compared && n > 0 && r->chosen >= 0) {
			printf("%s%s (%d of %d tests)", left++ ? ", " : "not compared, scored on fewer tests than the rest: ",
			       wc_form_name(s->form), n, WC_TEST_COUNT);
		}
	}
	if (left)
		printf("\n");
	if (r->chosen < 0)
		printf("no test could be scored for every form: nothing chosen\n");
	return CLI_OK;
}

static const char *
term_symbol(const wc_precision_group *g)
{
	if (!g->kept)
		return "none";
	return g->better == WC_PLACE_ON_S ? (g->setting == WC_SETTING_KV ? "m_kv" : "m_w") : "b_w";
}

static int
report_precision(const validate_args *a, const wc_precision_report *r)
{
	if (a->json) {
		json_t *o = json_object(), *groups = json_array();
		json_object_set_new(o, "base_runs", json_integer(r->base_runs));
		for (int i = 0; i < r->n_groups; i++) {
			const wc_precision_group *g = &r->groups[i];
			json_array_append_new(groups, json_pack("{s:s,s:s,s:o,s:i,s:o,s:o,s:o,s:s,s:o,s:b,s:s,s:o}",
			        "setting", wc_setting_name(g->setting), "precision", wc_precision_name(g->precision),
			        "level", g->level[0] ? json_string(g->level) : json_null(), "pairs", g->pairs,
			        "rms_no_term", num(g->rms[0]), "rms_inside_z", num(g->rms[1]), "rms_on_s", num(g->rms[2]),
			        "better", wc_placement_name(g->better), "p_value", num(g->p_value), "kept", g->kept,
			        "term_kept", term_symbol(g), "value", g->kept ? num(g->value) : json_null()));
		}
		json_object_set_new(o, "groups", groups);
		print_json(o);
		return CLI_OK;
	}
	if (r->n_groups > 0)
		printf("precision terms from paired runs in %s (base law fitted on %d bf16 runs)\n", a->input,
		       r->base_runs);
	else /* no pair, so no base law was fitted */
		printf("precision terms from paired runs in %s\n", a->input);
	printf("%-26s %5s %9s %9s %9s %8s %6s %8s\n", "level", "pairs", "rms none", "inside z", "on S",
	       "p", "kept", "value");
	for (int i = 0; i < r->n_groups; i++) {
		const wc_precision_group *g = &r->groups[i];
		char name[96];
		snprintf(name, sizeof name, "%s %s @ %s", wc_setting_name(g->setting),
		         wc_precision_name(g->precision), g->level[0] ? g->level : "all");
		printf("%-26s %5d", name, g->pairs);
		for (int c = 0; c < 3; c++)
			print_cell(g->rms[c], 1);
		if (isfinite(g->p_value))
			printf(" %8.3g", g->p_value);
		else
			printf(" %*s", cli_field_width("–", 8), "–");
		printf(" %6s", term_symbol(g));
		if (g->kept)
			printf(" %8.3f", g->value);
		putchar('\n');
	}
	if (r->n_groups == 0)
		printf("no paired runs (two runs identical but for one precision setting)\n");
	return CLI_OK;
}

static json_t *
accuracy_json(const wc_accuracy *x)
{
	return json_pack("{s:i,s:o,s:o,s:o,s:i,s:o,s:o}", "n", x->n, "median_abs_err_pct",
	                 num(x->median_abs_err_pct), "share_within_5pct", num(x->share_within_5pct),
	                 "bias_pct", num(x->bias_pct), "n_interval", x->n_interval, "coverage_95",
	                 num(x->coverage_95), "median_rel_width", num(x->median_rel_width));
}

static void
print_accuracy(const char *name, const wc_accuracy *x)
{
	/* every column headed "%" is a percentage, the share within 5 % too */
	printf("%-34s %5d %14.2f %11.1f %+9.2f", name, x->n, x->median_abs_err_pct,
	       100.0 * x->share_within_5pct, x->bias_pct);
	if (x->n_interval > 0)
		printf(" %9.1f %5d %10.1f\n", 100.0 * x->coverage_95, x->n_interval, 100.0 * x->median_rel_width);
	else
		printf(" %*s %5d %*s\n", cli_field_width("–", 9), "–", 0, cli_field_width("–", 10), "–");
}

/* Does `t` hold a run on a catalog board `p` has no level for: one
 * `--datasheet` would score. */
static int
transferable(const wc_params *p, const wc_runs_table *t)
{
	for (size_t i = 0; i < t->n_runs; i++)
		if (!wc_params_level(p, t->runs[i].platform) && wc_platform_lookup(t->runs[i].platform))
			return 1;
	return 0;
}

static int
report_heldout(const validate_args *a, const wc_heldout_report *r, const char *what, const wc_params *frozen,
               const wc_runs_table *t, const wc_in_sample_rows *in, int coverage_in_sample, const cli_skips *skips)
{
	if (a->json) {
		json_t *o = json_object(), *sets = json_object();
		json_object_set_new(o, "overall", accuracy_json(&r->overall));
		cli_load_bands_json(o, r);
		for (int i = 0; i < r->n_sets; i++)
			json_object_set_new(sets, r->sets[i].set, accuracy_json(&r->sets[i]));
		json_object_set_new(o, "sets", sets);
		json_object_set_new(o, "skipped", json_integer(r->skipped));
		json_object_set_new(o, "sets_not_shown", json_integer(r->sets_not_shown));
		if (frozen) /* heldout; lomo's folds never saw their runs */
			cli_in_sample_json(o, in, coverage_in_sample);
		if (r->skip_reason[0])
			json_object_set_new(o, "skip_reason", json_string(r->skip_reason));
		if (skips) /* heldout: every skipped run's reason, whole */
			cli_skips_json(o, skips);
		if (frozen && frozen->pred_error.n_strata == 0 && r->overall.n_interval > 0)
			json_object_set_new(o, "intervals_cover", json_string("parameters only: the set records no held-out "
			                                                        "error of mean power (docs/intervals.md)"));
		print_json(o);
		return CLI_OK;
	}
	if (strcmp(what, "lomo") == 0)
		printf("leave-one-model-out accuracy on %s, per platform (error = predicted vs measured mean power)\n",
		       a->input);
	else
		printf("frozen-law accuracy on %s (error = predicted vs measured mean power)\n", a->input);
	printf("%-34s %5s %14s %11s %9s %9s %5s %10s\n", "set", "n", "median |err| %", "within 5 %", "bias %",
	       "cover 95%", "n_int", "width %");
	print_accuracy("(all runs)", &r->overall);
	for (int i = 0; i < r->n_sets; i++)
		print_accuracy(r->sets[i].set, &r->sets[i]);
	if (r->sets_not_shown) /* docs/validation.md: at most WC_HELDOUT_SETS_MAX sets listed */
		printf("%d more set(s), %d run(s), not listed (at most %d sets, in order of first appearance); they are in "
		       "(all runs)\n", r->sets_not_shown, r->runs_not_shown, WC_HELDOUT_SETS_MAX);
	if (r->skipped && strcmp(what, "lomo") == 0)
		printf("%d run(s) skipped: %s\n", r->skipped, r->skip_reason);
	else if (r->skipped)
		printf("%d run(s) skipped, the first %s%s\n", r->skipped,
		       r->skip_reason[0] ? r->skip_reason : "with no prediction for its platform",
		       frozen && !a->datasheet && transferable(frozen, t)
		               ? "; --datasheet scores a catalog board by its transfer" : "");
	char why[WC_ERROR_MSG_MAX];
	if (strcmp(what, "lomo") == 0 && wc_runs_excluded_why(t, why, sizeof why))
		printf("%s\n", why);
	if (strcmp(what, "lomo") == 0) {
		printf("cover 95%%: share of measured values inside the 95 %% interval; width %%: median (hi - lo) / "
		       "predicted; intervals from the other models' held-out errors (docs/intervals.md)\n");
		cli_note_no_interval(&r->overall, "other models", NULL);
	}
	else
		printf("cover 95%%: share of measured values inside the 95 %% interval (n_int runs had one); "
		       "width %%: median (hi - lo) / predicted\n");
	cli_load_bands_print(r);
	/* Draws alone describe the parameters, not the next run: a set
	 * without a held-out error covers far fewer (docs/intervals.md). */
	if (frozen && frozen->pred_error.n_strata == 0 && r->overall.n_interval > 0)
		printf("note: '%s' records no held-out error of mean power, so its intervals cover the parameters' "
		       "uncertainty only, not a new run's miss: expect far fewer than 95 %% covered "
		       "(`wattcast fit intervals` adds it; docs/intervals.md)\n", frozen->name);
	return CLI_OK;
}

/* validate forms that chose no form: exit 1 after the table, as the other
 * analyses refuse a report of nothing (docs/cli.md, "validate"). */
static int
forms_unchosen(const char *cmd, const char *input, const wc_forms_report *r)
{
	int any = 0;
	for (int f = 0; f < WC_FORM_COUNT; f++)
		for (int t = 0; t < WC_TEST_COUNT; t++)
			any |= r->forms[f].scored[t];
	fflush(stdout); /* after the table it refers to, in one capture of both streams */
	return cli_fail_path(cmd, input, ": %s: nothing chosen",
	                     any ? "no test was scored for every form compared"
	                         : "no form could be scored on any test (each fold's fit failed, or left unidentified "
	                           "a parameter its held-out runs use)");
}

/* validate forms --real: every form, held out by model and by workload. */
static int
forms_real(const char *cmd, const validate_args *a, const wc_runs_table *t, wc_fit_options *fo,
           wc_per_run *per_run)
{
	wc_forms_real_report r;
	wc_error err;
	fo->precision_terms = a->terms ? cli_terms_mode(a->terms) : WC_TERMS_PER_LEVEL;
	int vrc = wc_validate_forms_real(t, fo, &r, a->per_run ? per_run : NULL, &err), scored = 0;
	for (int f = 0; vrc == WC_OK && f < r.n_forms; f++)
		scored |= r.forms[f].fitted;
	/* nothing scored: no --per-run file, exit 1 after the report says why */
	if (vrc == WC_OK)
		vrc = cli_validate_per_run_write(a->per_run, per_run, scored, &err);
	if (vrc != WC_OK)
		return cli_fail(cmd, "%s", err.msg);
	const wc_heldout_report *reps[2 * WC_FORM_COUNT];
	for (int f = 0; f < r.n_forms; f++) {
		reps[2 * f] = &r.forms[f].lomo;
		reps[2 * f + 1] = &r.forms[f].lowo;
	}
	cli_law_terms_warn(cmd, reps, 2 * r.n_forms);
	int rc = cli_report_forms_real(a->input, a->json, &r);
	/* the closing line follows the report it points to ("each form's
	 * reason above") in one capture of both streams, not before it */
	fflush(stdout);
	if (rc == CLI_OK && !scored)
		return cli_fail_path(cmd, a->input, ": no run could be scored by any form (%zu run(s); each form's reason "
		                     "above): nothing to validate", t->n_runs);
	return rc;
}

static int
validate(const char *what, int argc, char **argv)
{
	char cmd[32];
	validate_args a;
	wc_params prior = WC_PARAMS_INIT, frozen = WC_PARAMS_INIT;
	wc_runs_table *t = NULL;
	wc_per_run per_run = WC_PER_RUN_INIT;
	cli_skips skips = { NULL, NULL, 0, 0, 0 };
	wc_error err;
	int rc;
	snprintf(cmd, sizeof cmd, "validate %s", what);
	if ((rc = parse_args(what, cmd, argc, argv, &a)) != CLI_OK)
		return rc < 0 ? CLI_OK : rc;
	int heldout = strcmp(what, "heldout") == 0;
	if (heldout && !a.params && !a.profile)
		return cli_usage_error(cmd, "--params FILE (or --profile measured|paper|paper-prefill) is required");
	if (heldout && a.params && a.profile)
		return cli_usage_error(cmd, "give one of --params and --profile");
	int real = a.real; /* forms only: the flag table refuses it elsewhere */
	wc_fit_options fo = WC_FIT_OPTIONS_INIT;
	if (a.form && wc_form_from_name(a.form, &fo.form) != WC_OK)
		return cli_usage_error(cmd, "--form: unknown form '%s'", a.form);
	gsl_set_error_handler_off();
	memset(&frozen, 0, sizeof frozen);
	/* For heldout, --profile names the frozen law; elsewhere the prior. */
	if ((rc = cli_load_params(cmd, a.prior, heldout ? NULL : a.profile, &prior)) != CLI_OK)
		return rc;
	if (heldout && (rc = cli_load_params(cmd, a.params, a.profile, &frozen)) != CLI_OK)
		goto done;
	rc = CLI_FAIL;
	if (wc_table_inputs_read_runs(a.input, &t, &err) != WC_OK) {
		cli_fail(cmd, "%s", err.msg);
		goto done;
	}
	if (cli_validate_some_runs(cmd, a.input, t, heldout) != CLI_OK)
		goto done;
	fo.prior = &prior;
	fo.law_terms = a.law_mask;
	if (real) {
		rc = forms_real(cmd, &a, t, &fo, &per_run);
	} else if (strcmp(what, "forms") == 0) {
		wc_forms_report r;
		fo.precision_terms = 0;
		if (wc_validate_forms(t, &fo, &r, &err) != WC_OK)
			cli_fail(cmd, "%s", err.msg);
		else if ((rc = report_forms(&a, &r)) == CLI_OK && r.chosen < 0)
			rc = forms_unchosen(cmd, a.input, &r);
	} else if (strcmp(what, "precision") == 0) {
		wc_precision_report r;
		if (wc_validate_precision(t, &fo, &r, &err) != WC_OK)
			cli_fail(cmd, "%s", err.msg);
		else
			rc = report_precision(&a, &r);
	} else {
		wc_heldout_report r;
		fo.precision_terms = a.terms ? cli_terms_mode(a.terms) : WC_TERMS_PER_LEVEL;
		wc_per_run *pr = a.per_run ? &per_run : NULL;
		int vrc = !heldout ? wc_validate_lomo(t, &fo, &r, pr, &err)
		                   : wc_validate_heldout_each(&frozen, t, a.datasheet, &r, pr, cli_skips_add, &skips, &err);
		if (vrc == WC_OK)
			vrc = cli_validate_per_run_write(a.per_run, &per_run, r.overall.n, &err);
		char in_sample[WC_ERROR_MSG_MAX];
		wc_in_sample_rows in = { 0 };
		int cover_in = 0;
		if (vrc == WC_OK && !heldout && wc_fit_twin_models(t, in_sample, sizeof in_sample))
			fprintf(stderr, "wattcast %s: warning: %s\n", cmd, in_sample);
		const wc_heldout_report *rp = &r;
		if (vrc == WC_OK && !heldout)
			cli_law_terms_warn(cmd, &rp, 1);
		if (vrc == WC_OK && heldout)
			cli_validate_in_sample(cmd, &frozen, t, a.input, a.datasheet, &in, &cover_in);
		if (vrc != WC_OK)
			cli_fail(cmd, "%s", err.msg);
		else if (r.overall.n == 0) { /* every run skipped: no accuracy to report */
			/* each reason whole before the refusal's one line, which cut
			 * it mid-word; --json prints its document with them too
			 * (docs/validation.md, "Frozen-law accuracy") */
			if (heldout)
				cli_skips_warn(cmd, &skips);
			else
				fprintf(stderr, "wattcast %s: warning: %s\n", cmd,
				        r.skip_reason[0] ? r.skip_reason : "no reason recorded");
			if (a.json)
				report_heldout(&a, &r, what, heldout ? &frozen : NULL, t, &in, cover_in, heldout ? &skips : NULL);
			cli_fail_path(cmd, a.input, ": no run could be scored (%d of %zu skipped; %s above)%s", r.skipped,
			              t->n_runs, heldout ? "each run's reason" : "the reason",
			              heldout && !a.datasheet && transferable(&frozen, t)
			                      ? "; --datasheet scores a catalog board by its transfer" : "");
		} else
			rc = report_heldout(&a, &r, what, heldout ? &frozen : NULL, t, &in, cover_in, heldout ? &skips : NULL);
	}
done:
	cli_skips_free(&skips);
	wc_per_run_clear(&per_run);
	wc_runs_free(t);
	wc_params_clear(&prior);
	wc_params_clear(&frozen);
	return rc;
}

int
cli_validate_no_rows(const char *cmd, const char *input)
{
	return cli_fail_path(cmd, input, ": no runs (a header and no rows): nothing to validate");
}

int
cli_validate_some_runs(const char *cmd, const char *input, const wc_runs_table *t, int scores_excluded)
{
	char why[160];
	/* A header alone scored nothing and printed nan (or an empty
	 * report) with exit 0. */
	if (t->n_runs == 0)
		return cli_validate_no_rows(cmd, input);
	/* Every row excluded left nothing to fit or predict, and the report
	 * said "0 of 325 skipped; no reason recorded" (docs/cli.md, "validate"). */
	if (!scores_excluded && wc_runs_excluded_note(t->n_runs, wc_runs_excluded(t), why, sizeof why))
		return cli_fail_path(cmd, input, ": nothing to validate: %s", why);
	return CLI_OK;
}

/* forms, precision, heldout and lomo share one driver. */
static int
validate_analysis(int argc, char **argv)
{
	return validate(argv[0], argc, argv);
}

static const cli_subcommand validate_analyses[] = {
	{ "forms", validate_analysis,
	  "wattcast validate forms RUNS.csv [--json] [--prior FILE | --profile measured|paper|paper-prefill]\n"
	  "       wattcast validate forms --real RUNS.csv [--json] [--terms all|pooled|as-bf16|none] [--per-run FILE]\n"
	  "                               [--law-terms arch,moe,hybrid,tp,prompt|none]\n"
	  "                               [--prior FILE | --profile measured|paper|paper-prefill]" },
	{ "precision", validate_analysis,
	  "wattcast validate precision RUNS.csv [--json] [--form NAME]\n"
	  "                                   [--prior FILE | --profile measured|paper|paper-prefill]" },
	{ "heldout", validate_analysis,
	  "wattcast validate heldout (--params FILE | --profile measured|paper|paper-prefill) RUNS.csv\n"
	  "                                 [--json] [--datasheet] [--per-run FILE]" },
	{ "lomo", validate_analysis,
	  "wattcast validate lomo RUNS.csv [--json] [--form NAME] [--terms all|pooled|as-bf16|none]\n"
	  "                              [--per-run FILE] [--law-terms arch,moe,hybrid,tp,prompt|none]\n"
	  "                              [--prior FILE | --profile measured|paper|paper-prefill]" },
	{ "fewshot", cli_validate_fewshot,
	  "wattcast validate fewshot RUNS.csv (--params FILE | --profile measured|paper|paper-prefill\n"
	  "                                 | --lomo)\n"
	  "                                 [--k 1,3] [--scope model|platform] ... (see fewshot --help)" },
	{ "capacity", cli_validate_capacity,
	  "wattcast validate capacity RUNS.csv... [--json] [--per-run FILE] (see its --help)" },
	{ "finetune", cli_validate_finetune,
	  "wattcast validate finetune RUNS.csv [--json] [--per-run FILE]   (see its --help)" },
	{ "envelope", cli_validate_envelope,
	  "wattcast validate envelope (--params FILE | --profile measured|paper|paper-prefill) RUN_DIR...\n"
	  "                                  [--json] [--per-run FILE]  (see `wattcast validate envelope --help`)" },
};

static const cli_subcommands validate_commands = {
	.cmd = "validate", .noun = "analysis", .subs = validate_analyses,
	.n = sizeof validate_analyses / sizeof validate_analyses[0], .about = validate_about,
};

int
cli_cmd_validate(int argc, char **argv)
{
	return cli_subcommands_run(&validate_commands, argc, argv);
}
