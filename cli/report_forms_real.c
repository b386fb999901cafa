/*
 * The report of `wattcast validate forms --real`: every form's held-out
 * accuracy on a real table, leave one model out and leave one workload out,
 * side by side per platform (docs/validation.md, "Forms on real runs").
 */
#include "cli.h"
#include "cli_validate.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static json_t *
num_or_null(double v, int n)
{
	return n > 0 && isfinite(v) ? json_real(v) : json_null();
}

/* One accuracy's numbers into `o`: the median and bias, and the coverage
 * and median relative width of the runs' cross-conformal 95 % intervals, as
 * lomo reports them (docs/validation.md, "Forms on real runs"). */
static json_t *
accuracy_json(json_t *o, const wc_accuracy *a)
{
	json_object_set_new(o, "n", json_integer(a->n));
	json_object_set_new(o, "median_abs_err_pct", num_or_null(a->median_abs_err_pct, a->n));
	json_object_set_new(o, "bias_pct", num_or_null(a->bias_pct, a->n));
	json_object_set_new(o, "n_interval", json_integer(a->n_interval));
	json_object_set_new(o, "coverage_95", num_or_null(a->coverage_95, a->n_interval));
	json_object_set_new(o, "median_rel_width", num_or_null(a->median_rel_width, a->n_interval));
	return o;
}

static json_t *
report_json(const wc_heldout_report *r)
{
	json_t *o = accuracy_json(json_object(), &r->overall), *sets = json_object();
	for (int i = 0; i < r->n_sets; i++)
		json_object_set_new(sets, r->sets[i].set, accuracy_json(json_object(), &r->sets[i]));
	json_object_set_new(o, "platforms", sets);
	json_object_set_new(o, "skipped", json_integer(r->skipped));
	if (r->skipped && r->skip_reason[0])
		json_object_set_new(o, "skip_reason", json_string(r->skip_reason));
	return o;
}

/* "12.40 (153)" or "–" for one platform of one report; with `cover`, the
 * share of its intervals holding the measured value, "95.7 (325)". */
static void
print_set(const wc_heldout_report *r, const char *set, int cover)
{
	const wc_accuracy *x = set ? NULL : &r->overall;
	for (int i = 0; set && i < r->n_sets; i++)
		if (strcmp(r->sets[i].set, set) == 0)
			x = &r->sets[i];
	if (x && !cover && x->n > 0)
		printf(" %7.2f (%3d)", x->median_abs_err_pct, x->n);
	else if (x && cover && x->n_interval > 0)
		printf(" %7.1f (%3d)", 100.0 * x->coverage_95, x->n_interval);
	else
		printf(" %*s", cli_field_width("–", 13), "–");
}

int
cli_report_forms_real(const char *input, int json, const wc_forms_real_report *r)
{
	/* Platforms in order of first appearance over every report, both
	 * passes: a table of one model scores nothing leaving it out, and its
	 * platforms are then in the leave-one-workload-out reports only (the
	 * text gives the numbers --json gives, docs/validation.md "Forms on
	 * real runs"). */
	const char *platforms[WC_HELDOUT_SETS_MAX];
	int n_platforms = 0;
	for (int pass = 0; pass < 2; pass++)
		for (int f = 0; f < r->n_forms; f++) {
			const wc_heldout_report *h = pass == 0 ? &r->forms[f].lomo : &r->forms[f].lowo;
			for (int i = 0; i < h->n_sets; i++) {
				const char *s = h->sets[i].set;
				int seen = 0;
				for (int k = 0; k < n_platforms && !seen; k++)
					seen = strcmp(platforms[k], s) == 0;
				if (!seen && n_platforms < WC_HELDOUT_SETS_MAX)
					platforms[n_platforms++] = s;
			}
		}
	if (json) {
		json_t *o = json_object(), *forms = json_array();
		json_object_set_new(o, "models", json_integer(r->models));
		json_object_set_new(o, "workloads", json_integer(r->workloads));
		for (int f = 0; f < r->n_forms; f++)
			json_array_append_new(forms, json_pack("{s:s,s:b,s:o,s:o}", "form", wc_form_name(r->forms[f].form),
			                                       "published", wc_form_is_published(r->forms[f].form),
			                                       "lomo", report_json(&r->forms[f].lomo), "lowo",
			                                       report_json(&r->forms[f].lowo)));
		json_object_set_new(o, "forms", forms);
		cli_print_json_report(o);
		return CLI_OK;
	}
	printf("forms on real runs of %s: median |error| %% (runs), %d models and %d workloads held out in turn\n",
	       input, r->models, r->workloads);
	/* Each pass's medians, then the coverage of the same runs' 95 %
	 * intervals (the --per-run lo/hi): an interval is worth what it covers. */
	for (int table = 0; table < 4; table++) {
		int pass = table / 2, cover = table % 2;
		const char *what = pass == 0 ? "leave one model out" : "leave one workload out";
		if (cover)
			printf("\n%s, cover 95%% (runs with an interval)\n%-28s %13s", what, "form", "all");
		else
			printf("\n%s\n%-28s %13s", what, "form", "all");
		for (int k = 0; k < n_platforms; k++)
			printf(" %13s", platforms[k]);
		putchar('\n');
		for (int f = 0; f < r->n_forms; f++) {
			const wc_heldout_report *h = pass == 0 ? &r->forms[f].lomo : &r->forms[f].lowo;
			printf("%-28s", wc_form_name(r->forms[f].form));
			print_set(h, NULL, cover);
			for (int k = 0; k < n_platforms; k++)
				print_set(h, platforms[k], cover);
			putchar('\n');
		}
	}
	printf("cover 95%%: share of measured values inside the 95 %% interval, from the other folds' held-out "
	       "errors (other models, other workloads; docs/intervals.md)\n");
	if (r->workloads < 2)
		printf("(one workload in the table: leave one workload out is not scored)\n");
	/* A `–` cover is no interval, said as lomo says it (the one note) */
	for (int pass = 0; pass < 2 && !json; pass++)
		for (int f = 0; f < r->n_forms && (pass == 0 || r->workloads >= 2); f++) {
			char who[96];
			snprintf(who, sizeof who, "%s, leave one %s out: ", wc_form_name(r->forms[f].form),
			         pass == 0 ? "model" : "workload");
			cli_note_no_interval(pass == 0 ? &r->forms[f].lomo.overall : &r->forms[f].lowo.overall,
			                     pass == 0 ? "other models" : "other workloads", who);
		}
	/* Runs a form's folds left unscored, and why: a median over the rest
	 * says nothing of them (docs/validation.md, "Candidate terms"). */
	for (int pass = 0; pass < 2; pass++)
		for (int f = 0; f < r->n_forms; f++) {
			const wc_heldout_report *h = pass == 0 ? &r->forms[f].lomo : &r->forms[f].lowo;
			if (h->skipped && (pass == 0 || r->workloads >= 2))
				printf("%s, leave one %s out: %d run(s) not scored: %s\n", wc_form_name(r->forms[f].form),
				       pass == 0 ? "model" : "workload", h->skipped,
				       h->skip_reason[0] ? h->skip_reason : "no reason recorded");
		}
	return CLI_OK;
}
