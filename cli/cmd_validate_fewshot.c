/*
 * wattcast validate fewshot: calibrate on k runs of each model (or
 * platform) and predict the rest, k = 0, 1, 3 side by side
 * (docs/validation.md, "Few-shot calibration").
 */
#include "cli.h"
#include "cli_validate.h"
#include "data/data.h"
#include "data/table_inputs.h"
#include "models/limits.h"
#include "fit/fit.h"
#include "validation/validation.h"

#include <gsl/gsl_errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char fewshot_usage[] =
	"usage: wattcast validate fewshot RUNS.csv\n"
	"                                 (--params BASE.json | --profile measured|paper|paper-prefill | --lomo)\n"
	"                                 [--k 1,3] [--scope model|platform] [--idle-power W]\n"
	"                                 [--run-scatter X] [--form NAME] [--terms all|pooled|as-bf16|none]\n"
	"                                 [--prior FILE] [--per-set] [--per-run FILE] [--json]\n\n"
	"For every model (--scope platform: every platform) of RUNS.csv and each level it\n"
	"ran on: order its runs by closeness to the reference load n = 32 (ties by run_id),\n"
	"calibrate the base on the first k (as `wattcast calibrate`) and predict the runs\n"
	"after the largest k. k = 0 (the base as it is) and every --k value are scored on\n"
	"the same held-out runs: median |error| % per platform, side by side.\n"
	"--lomo fits the base per held-out model (platform) on the other runs, with\n"
	"--form/--terms/--prior as `validate lomo`, so that k = 0 is not in-sample;\n"
	"--params/--profile use one frozen base for every group instead.\n"
	"--per-set calibrates and predicts within one workload (`set`) at a time: a\n"
	"planner's own runs under their own load, rather than across workloads.\n";

enum { OPT_PARAMS = 1000, OPT_PROFILE, OPT_LOMO, OPT_K, OPT_SCOPE, OPT_IDLE, OPT_SCATTER, OPT_FORM,
       OPT_TERMS, OPT_PRIOR, OPT_PER_RUN, OPT_JSON, OPT_PER_SET };

typedef struct {
	const char *params, *profile, *prior, *per_run, *input, *terms, *form;
	int lomo, json, help;
	wc_fewshot_options fo;
	wc_fit_options fit;
} fewshot_args;

/* "1,3" into k (0 first, then the values, increasing). */
static int
parse_k(const char *cmd, const char *text, wc_fewshot_options *o)
{
	char buf[64], *save = NULL;
	o->n_k = 1;
	o->k[0] = 0;
	if (cli_check_list(cmd, "--k", text) != CLI_OK)
		return CLI_USAGE;
	snprintf(buf, sizeof buf, "%s", text);
	for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		long v;
		if (o->n_k >= WC_FEWSHOT_K_MAX)
			return cli_usage_error(cmd, "--k: at most %d values", WC_FEWSHOT_K_MAX - 1);
		if (cli_parse_int(cmd, "--k", tok, 1, 1000, &v) != CLI_OK)
			return CLI_USAGE;
		if (v <= o->k[o->n_k - 1])
			return cli_usage_error(cmd, "--k: expected increasing values, got '%s'", text);
		o->k[o->n_k++] = (int)v;
	}
	return CLI_OK;
}

static int
parse_flags(const char *cmd, int argc, char **argv, fewshot_args *a)
{
	static const struct option opts[] = {
		{ "params", required_argument, NULL, OPT_PARAMS }, { "profile", required_argument, NULL, OPT_PROFILE },
		{ "lomo", no_argument, NULL, OPT_LOMO }, { "k", required_argument, NULL, OPT_K },
		{ "scope", required_argument, NULL, OPT_SCOPE }, { "idle-power", required_argument, NULL, OPT_IDLE },
		{ "run-scatter", required_argument, NULL, OPT_SCATTER }, { "form", required_argument, NULL, OPT_FORM },
		{ "terms", required_argument, NULL, OPT_TERMS }, { "prior", required_argument, NULL, OPT_PRIOR },
		{ "per-run", required_argument, NULL, OPT_PER_RUN }, { "json", no_argument, NULL, OPT_JSON },
		{ "per-set", no_argument, NULL, OPT_PER_SET },
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	unsigned char given[sizeof opts / sizeof opts[0]] = { 0 };
	int opt, rc, idx;
	cli_reset_getopt();
	while ((opt = cli_getopt(argc, argv, ":h", opts, &idx)) != -1) {
		rc = CLI_OK;
		if (idx >= 0 && opt >= OPT_PARAMS)
			given[idx] = 1;
		switch (opt) {
		case OPT_PARAMS: a->params = optarg; break;
		case OPT_PROFILE: a->profile = optarg; break;
		case OPT_LOMO: a->lomo = 1; break;
		case OPT_K: rc = parse_k(cmd, optarg, &a->fo); break;
		case OPT_SCOPE:
			if (wc_calibrate_scope_from_name(optarg, &a->fo.scope) != WC_OK)
				rc = cli_usage_error(cmd, "--scope: expected model or platform, got '%s'", optarg);
			break;
		case OPT_IDLE:
			rc = cli_parse_double_max(cmd, "--idle-power", optarg, 0, 0, WC_GPU_MAX_POWER_W, &a->fo.idle_power_w);
			break;
		case OPT_SCATTER:
			rc = cli_parse_range(cmd, "--run-scatter", optarg, WC_RUN_SCATTER_MIN, WC_RUN_SCATTER_MAX,
			                     &a->fo.run_scatter);
			break;
		case OPT_FORM:
			a->form = optarg;
			if (wc_form_from_name(optarg, &a->fit.form) != WC_OK)
				rc = cli_usage_error(cmd, "--form: unknown form '%s'", optarg);
			break;
		case OPT_TERMS:
			/* The same modes as `validate lomo`: its recipe (the measured
			 * profile's as-bf16) must be replayable here for k = 0. */
			a->terms = optarg;
			rc = cli_parse_terms(cmd, optarg, &a->fit.precision_terms);
			break;
		case OPT_PRIOR: a->prior = optarg; break;
		case OPT_PER_RUN: a->per_run = optarg; break;
		case OPT_JSON: a->json = 1; break;
		case OPT_PER_SET: a->fo.per_set = 1; break;
		case 'h': fputs(fewshot_usage, stdout); a->help = 1; return CLI_OK;
		default: return cli_validate_bad_option(cmd, a->lomo ? CLI_VA_FEWSHOT_LOMO : CLI_VA_FEWSHOT, opt, argv);
		}
		if (rc != CLI_OK)
			return rc;
	}
	/* --form, --terms and --prior shape the bases --lomo fits: without it
	 * they apply to nothing (the flag table, docs/cli.md "validate") */
	if (cli_validate_flags_given(cmd, a->lomo ? CLI_VA_FEWSHOT_LOMO : CLI_VA_FEWSHOT, opts, given) != CLI_OK)
		return CLI_USAGE;
	if (cli_expect_one_operand(cmd, argc, "RUNS.csv") != CLI_OK)
		return CLI_USAGE;
	a->input = argv[optind];
	const char *in[] = { a->input, a->params, a->prior };
	if (cli_check_output(cmd, "--per-run", a->per_run, in, 3) != CLI_OK)
		return CLI_USAGE;
	if (a->lomo + (a->params != NULL) + (a->profile != NULL) != 1)
		return cli_usage_error(cmd, "give exactly one of --params, --profile and --lomo");
	return CLI_OK;
}

/* Why runs go unpredicted, when the CLI can tell from a frozen base
 * (the library counts them as skipped without the reason): platform
 * scope calibrates each platform as a new level, and `calibrate` refuses
 * a level the base already has, so each such platform of the table is
 * refused at every k >= 1; model scope adjusts a model on a level the
 * base has, so a platform it lacks is predicted at no k. "" when neither
 * applies. */
static void
refusal_reason(const fewshot_args *a, const wc_params *base, const wc_runs_table *t, char *why,
               size_t cap)
{
	char names[128] = "";
	int n = 0, platform = a->fo.scope == WC_CALIBRATE_PLATFORM;
	why[0] = '\0';
	if (a->lomo)
		return;
	for (size_t i = 0; i < t->n_runs; i++) {
		const char *p = t->runs[i].platform;
		int seen = 0;
		for (size_t j = 0; j < i && !seen; j++)
			seen = !t->runs[j].exclude[0] && strcmp(t->runs[j].platform, p) == 0;
		if (seen || t->runs[i].exclude[0] || !wc_params_level(base, p) != !platform)
			continue;
		size_t used = strlen(names);
		if (used + strlen(p) + 8 < sizeof names)
			snprintf(names + used, sizeof names - used, "%s%s", n ? ", " : "", p);
		else if (!strstr(names, ", ..."))
			snprintf(names + used, sizeof names - used, ", ...");
		n++;
	}
	if (n && platform)
		snprintf(why, cap,
		         "platform scope adds each platform as a new level, and the base already has %s "
		         "(calibrate refuses it): use --scope model, or --lomo",
		         names);
	else if (n)
		snprintf(why, cap,
		         "the base has no level for %s (model scope adjusts a known level; add it with "
		         "calibrate --scope platform)",
		         names);
}

/* Whether no k >= 1 predicted any run: the comparison the command makes
 * is empty (k = 0 alone is `validate heldout`). */
static int
nothing_calibrated(const wc_fewshot_report *r)
{
	int predicted = 0;
	for (int i = 0; i < r->n_k; i++)
		predicted += r->k[i] > 0 ? r->by_k[i].overall.n : 0;
	return r->n_k > 1 && predicted == 0;
}

/* the rows scored at any k, k = 0 included: none, and no --per-run file */
static long
rows_scored(const wc_fewshot_report *r)
{
	long n = 0;
	for (int i = 0; i < r->n_k; i++)
		n += r->by_k[i].overall.n;
	return n;
}

static json_t *
num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *
accuracy_json(const wc_accuracy *x)
{
	return json_pack("{s:i,s:o,s:o,s:o,s:i,s:o,s:o}", "n", x->n, "median_abs_err_pct",
	                 num(x->median_abs_err_pct), "share_within_5pct", num(x->share_within_5pct), "bias_pct",
	                 num(x->bias_pct), "n_interval", x->n_interval, "coverage_95", num(x->coverage_95),
	                 "median_rel_width", num(x->median_rel_width));
}

static void
print_json(const fewshot_args *a, const wc_fewshot_report *r, const char *why, const wc_in_sample_rows *in,
           int coverage_in_sample)
{
	json_t *o = json_object(), *ks = json_array();
	if (why[0])
		json_object_set_new(o, "not_predicted_reason", json_string(why));
	json_object_set_new(o, "scope", json_string(wc_calibrate_scope_name(a->fo.scope)));
	json_object_set_new(o, "base", json_string(a->lomo ? "lomo" : a->params ? a->params : a->profile));
	json_object_set_new(o, "groups", json_integer(r->groups));
	json_object_set_new(o, "groups_too_small", json_integer(r->groups_too_small));
	json_object_set_new(o, "groups_without_base", json_integer(r->groups_without_base));
	for (int i = 0; i < r->n_k; i++) {
		const wc_heldout_report *h = &r->by_k[i];
		json_t *sets = json_object();
		for (int s = 0; s < h->n_sets; s++)
			json_object_set_new(sets, h->sets[s].set, accuracy_json(&h->sets[s]));
		/* each distinct reason with its count, as the text says them */
		json_t *whys = json_array();
		for (int j = 0; j < r->n_skips; j++)
			if (r->skips[j].k_index == i)
				json_array_append_new(whys, json_pack("{s:i,s:s}", "count", r->skips[j].count, "why",
				                                      r->skips[j].why));
		json_array_append_new(ks, json_pack("{s:i,s:o,s:o,s:i,s:o}", "k", r->k[i], "overall",
		                                    accuracy_json(&h->overall), "sets", sets, "skipped", h->skipped,
		                                    "skipped_why", whys));
	}
	json_object_set_new(o, "by_k", ks);
	/* the base's, as validate heldout's; --lomo's bases never saw their
	 * group's runs */
	cli_in_sample_json(o, in, coverage_in_sample);
	cli_print_json_report(o);
}

/* The median of set `name` at k index i, or NaN. */
static const wc_accuracy *
set_at(const wc_fewshot_report *r, int i, const char *name)
{
	if (!name)
		return &r->by_k[i].overall;
	for (int s = 0; s < r->by_k[i].n_sets; s++)
		if (strcmp(r->by_k[i].sets[s].set, name) == 0)
			return &r->by_k[i].sets[s];
	return NULL;
}

/* Whether the k columns of set `name` (NULL: all runs) scored different
 * numbers of runs, with the counts ("k=0 150, k=1 0, k=3 169") in `buf`:
 * a k that cannot predict a group (k = 0 on a platform the base lacks, a
 * calibration refused) leaves its runs out of that column alone, and two
 * columns that scored runs then do not compare (docs/validation.md, "Few-shot
 * calibration"). */
static int
uneven_n(const wc_fewshot_report *r, const char *name, int cover, char *buf, size_t cap)
{
	int first = -1, differ = 0;
	size_t used = 0;
	buf[0] = '\0';
	for (int i = 0; i < r->n_k && used < cap; i++) {
		const wc_accuracy *x = set_at(r, i, name);
		int n = x ? (cover ? x->n_interval : x->n) : 0;
		differ |= n > 0 && first > 0 && n != first; /* a column of none shows "–" */
		first = first > 0 ? first : n;
		used += (size_t)snprintf(buf + used, cap - used, "%sk=%d %d", i ? ", " : "", r->k[i], n);
	}
	return differ;
}

/* One row per set: median |error| % per k (cover = 0), or coverage of
 * the 95 % interval / median relative width, both % (cover = 1). */
static void
print_row(const wc_fewshot_report *r, const char *name, int cover)
{
	/* n: the runs scored, the most at any k (every k scores the runs after
	 * the largest; a k that predicts none of them, k = 0 with no base for
	 * a new platform, scores 0) */
	int n = 0;
	for (int i = 0; i < r->n_k; i++) {
		const wc_accuracy *x = set_at(r, i, name);
		n = x && x->n > n ? x->n : n;
	}
	printf("%-24s %5d", name ? name : "(all runs)", n);
	for (int i = 0; i < r->n_k; i++) {
		const wc_accuracy *x = set_at(r, i, name);
		if (!cover && x && x->n > 0)
			printf("  %10.2f", x->median_abs_err_pct);
		else if (cover && x && x->n_interval > 0)
			printf("  %5.1f/%4.0f", 100.0 * x->coverage_95, 100.0 * x->median_rel_width);
		else
			printf("  %*s", cli_field_width("–", 10), "–");
	}
	putchar('\n');
	char counts[160];
	/* n above is the most of any k; the coverage table's columns score
	 * the runs with an interval, and differ as the error table's do */
	if (uneven_n(r, name, cover, counts, sizeof counts))
		printf("  (runs scored: %s)\n", counts);
}

/* One row per set that any k scored (the first k's may have none). */
static void
print_rows(const wc_fewshot_report *r, int cover)
{
	print_row(r, NULL, cover);
	for (int i = 0; i < r->n_k; i++)
		for (int s = 0; s < r->by_k[i].n_sets; s++) {
			const char *name = r->by_k[i].sets[s].set;
			int seen = 0;
			for (int j = 0; j < i && !seen; j++)
				seen = set_at(r, j, name) != NULL;
			if (!seen)
				print_row(r, name, cover);
		}
}

/* What one group is: a model (or platform) on one level, and one
 * workload with --per-set. */
static const char *
group_words(const fewshot_args *a, char *buf, size_t cap)
{
	snprintf(buf, cap, a->fo.per_set ? "%s, level and set" : "%s and level", wc_calibrate_scope_name(a->fo.scope));
	return buf;
}

/* `uneven`: its k columns scored different runs (uneven_n of all runs) */
static void
print_table(const fewshot_args *a, const wc_fewshot_report *r, const char *why, int uneven)
{
	char words[48], no_base[48] = "";
	if (r->groups_without_base > 0)
		snprintf(no_base, sizeof no_base, "; %d whose base failed", r->groups_without_base);
	printf("few-shot calibration on %s (scope %s, base %s): median |error| %% of mean power\n"
	       "on the runs after the largest k of each %s (%d groups; %d too small%s)\n",
	       a->input, wc_calibrate_scope_name(a->fo.scope),
	       a->lomo ? "fitted without the held-out group" : a->params ? a->params : a->profile,
	       group_words(a, words, sizeof words), r->groups, r->groups_too_small, no_base);
	printf("%-24s %5s", "set", "n");
	for (int i = 0; i < r->n_k; i++)
		printf("  %4s k=%-3d", "", r->k[i]);
	putchar('\n');
	print_rows(r, 0);
	if (uneven)
		printf("  (the k columns score different runs, so they do not compare; docs/validation.md)\n");
	printf("coverage of the 95 %% interval %% / its median width, %% of the prediction (docs/intervals.md):\n");
	print_rows(r, 1);
	/* A base fitted per fold has neither draws nor held-out error: the
	 * calibrated interval is then the shift's uncertainty alone, not a
	 * new run's own scatter, and undercovers (docs/validation.md). */
	if (a->lomo)
		printf("  (--lomo: the bases carry no held-out error, so these intervals cover the calibrated "
		       "parameters only, not a new run's scatter; a set with a prediction_error section adds it)\n");
	/* The counts per k, each distinct reason with its count (one reason
	 * said for all hid the others: docs/validation.md), then the hint. */
	int any = 0;
	for (int i = 0; i < r->n_k; i++) {
		if (!r->by_k[i].skipped)
			continue;
		printf("k=%d: %d run(s) not predicted\n", r->k[i], r->by_k[i].skipped);
		int said = 0;
		for (int j = 0; j < r->n_skips; j++)
			if (r->skips[j].k_index == i) {
				printf("  %d: %s\n", r->skips[j].count, r->skips[j].why);
				said += r->skips[j].count;
			}
		if (said < r->by_k[i].skipped)
			printf("  %d: other reasons\n", r->by_k[i].skipped - said);
		any = 1;
	}
	if (any && why[0])
		printf("  hint: %s\n", why);
}

int
cli_validate_fewshot(int argc, char **argv)
{
	const char *cmd = "validate fewshot";
	fewshot_args a = { .fo = { .n_k = 3, .k = { 0, 1, 3 } }, .fit = WC_FIT_OPTIONS_INIT };
	wc_params base = WC_PARAMS_INIT, prior = WC_PARAMS_INIT;
	wc_runs_table *t = NULL;
	wc_per_run per_run = WC_PER_RUN_INIT;
	wc_fewshot_report r;
	wc_error err;
	int rc;
	if ((rc = parse_flags(cmd, argc, argv, &a)) != CLI_OK || a.help)
		return rc;
	gsl_set_error_handler_off();
	if (a.lomo) {
		if ((rc = cli_load_params(cmd, a.prior, NULL, &prior)) != CLI_OK)
			return rc;
		a.fit.prior = &prior;
		if (!a.terms)
			a.fit.precision_terms = WC_TERMS_PER_LEVEL;
		a.fo.refit = &a.fit;
	} else if ((rc = cli_load_params(cmd, a.params, a.profile, &base)) != CLI_OK) {
		return rc;
	}
	a.fo.base = &base;
	rc = CLI_FAIL;
	if (wc_table_inputs_read_runs(a.input, &t, &err) != WC_OK) {
		cli_fail(cmd, "%s", err.msg);
	} else if (cli_validate_some_runs(cmd, a.input, t, 0) != CLI_OK) {
		/* said why */
	} else if (wc_validate_fewshot(t, &a.fo, &r, a.per_run ? &per_run : NULL, &err) != WC_OK ||
	           cli_validate_per_run_write(a.per_run, &per_run, rows_scored(&r), &err) != WC_OK) {
		cli_fail(cmd, "%s", err.msg);
	} else {
		char why[256];
		wc_in_sample_rows in = { 0 };
		int cover_in = 0;
		/* a frozen base scored on the table it was fitted or calibrated
		 * on: its k = 0 column, and the calibrations on top of it, are
		 * in-sample, and so is its coverage when its interval's quantile
		 * came from these rows -- as validate heldout says them, its k = 0
		 * rows being heldout's */
		if (!a.lomo)
			cli_validate_in_sample(cmd, &base, t, a.input, 0, &in, &cover_in);
		/* --lomo's k = 0 is held out only if no other model's row is the
		 * held-out one filed again: the twin check of `validate lomo`
		 * (fit/twins.c; docs/validation.md, "Leave-one-model-out") */
		char twins[WC_ERROR_MSG_MAX];
		if (a.lomo && a.fo.scope == WC_CALIBRATE_MODEL && wc_fit_twin_models(t, twins, sizeof twins))
			fprintf(stderr, "wattcast %s: warning: %s\n", cmd, twins);
		refusal_reason(&a, &base, t, why, sizeof why);
		/* No group keeps a run past the largest k: that, not the base,
		 * is why nothing was predicted (k 200 on ML.ENERGY's models);
		 * not when some group was skipped for a reason of its own (a
		 * base refit that failed: the table says it) */
		char words[48];
		if (r.groups == 0 && r.groups_too_small > 0 && r.n_skips == 0)
			snprintf(why, sizeof why, "each of the %d groups (%s) has at most %d runs, none left "
			         "to predict after the largest k, %d: give --k below %d", r.groups_too_small,
			         group_words(&a, words, sizeof words), r.largest_too_small,
			         a.fo.k[a.fo.n_k - 1], r.largest_too_small);
		char counts[160]; /* the table says it, and the warning with the counts */
		const int uneven = uneven_n(&r, NULL, 0, counts, sizeof counts);
		if (a.json)
			print_json(&a, &r, why, &in, cover_in);
		else
			print_table(&a, &r, why, uneven);
		if (uneven)
			fprintf(stderr, "wattcast %s: warning: the k columns score different runs (%s), so they do not "
			        "compare (docs/validation.md)\n", cmd, counts);
		/* The table is printed (k = 0 still says something), but a run
		 * that compares nothing must not pass for one that did. */
		if (nothing_calibrated(&r)) {
			fflush(stdout); /* the table it points to comes first in one capture of both streams */
			cli_fail(cmd, "no run calibrated at any k >= 1%s%s", why[0] ? ": " : "",
			         why[0] ? why : " (see the table)");
		} else {
			rc = CLI_OK;
		}
	}
	wc_per_run_clear(&per_run);
	wc_runs_free(t);
	wc_params_clear(&base);
	wc_params_clear(&prior);
	return rc;
}
