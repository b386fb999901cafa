/* wattcast validate finetune: level-held-out accuracy of the fine-tuning law. */
#include "cli.h"
#include "cli_validate.h"
#include "data/data.h"
#include "validation/validation.h"

#include <gsl/gsl_errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
	"usage: wattcast validate finetune RUNS.csv [--json] [--per-run FILE]\n\n"
	"Level-held-out validation of the fine-tuning law (docs/finetune.md) on a\n"
	"fine-tuning runs table: the table's sweeps (runs differing only in the\n"
	"micro-batch, the sequence length or the model) are found, and every level of\n"
	"every sweep is held out in turn and its energy per token predicted from the\n"
	"rest -- by the sweep's relation refitted on its other levels (the published\n"
	"protocol) and by the compute law refitted on every other run (what `predict\n"
	"finetune` answers with). Per level the error; overall the median |error|, the\n"
	"share within +-5 % and the bias, for each predictor. Runs with `exclude` set\n"
	"take no part. Each run's prediction gets a cross-conformal 95 % interval (the\n"
	"other levels' held-out errors; docs/intervals.md): its coverage (share of\n"
	"measured values inside) and median relative width are printed overall and\n"
	"per relation. --per-run FILE writes one CSV row per run and predictor, with\n"
	"lo and hi.\n";

enum { OPT_JSON = 1000, OPT_PER_RUN };

static json_t *
num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* Coverage of one set's intervals. */
static json_t *
coverage_json(const wc_accuracy *a)
{
	return json_pack("{s:i,s:o,s:o}", "n", a->n_interval, "coverage_95", num(a->coverage_95),
	                 "median_rel_width", num(a->median_rel_width));
}

static json_t *
accuracy_json(const wc_accuracy *a, const wc_heldout_report *cov)
{
	json_t *o = json_pack("{s:i,s:o,s:o,s:o}", "levels_scored", a->n, "median_abs_error_pct",
	                      num(a->median_abs_err_pct), "share_within_5pct", num(a->share_within_5pct),
	                      "bias_pct", num(a->bias_pct)), *by = json_object();
	json_t *c = coverage_json(&cov->overall);
	for (int i = 0; i < cov->n_sets; i++)
		json_object_set_new(by, cov->sets[i].set, coverage_json(&cov->sets[i]));
	json_object_set_new(c, "relations", by);
	json_object_set_new(o, "interval_95", c);
	return o;
}

/* Coverage rows: overall, then per relation, for both predictors. */
static void
print_coverage(const wc_ft_heldout *r)
{
	const wc_heldout_report *c[2] = { &r->cov_relation, &r->cov_compute };
	printf("\n95 %% intervals per run (cross-conformal): cover %% / median width %%\n");
	printf("%-26s %14s %14s\n", "", "relation", "compute law");
	for (int i = -1; i < c[1]->n_sets; i++) {
		const char *name = i < 0 ? "(all)" : c[1]->sets[i].set;
		printf("%-26s", name);
		for (int k = 0; k < 2; k++) {
			const wc_accuracy *a = i < 0 ? &c[k]->overall : NULL;
			for (int j = 0; i >= 0 && j < c[k]->n_sets; j++)
				if (!strcmp(c[k]->sets[j].set, name))
					a = &c[k]->sets[j];
			if (a && a->n_interval > 0)
				printf("  %5.1f / %5.1f", 100.0 * a->coverage_95, 100.0 * a->median_rel_width);
			else
				printf(" %*s", cli_field_width("–", 14), "–");
		}
		putchar('\n');
	}
}

static void
print_json(const char *input, const wc_ft_heldout *r)
{
	json_t *o = json_object(), *levels = json_array();
	json_object_set_new(o, "input", json_string(input));
	json_object_set_new(o, "runs", json_integer(r->runs));
	json_object_set_new(o, "sweeps", json_integer(r->sweeps.n));
	for (int i = 0; i < r->n_levels; i++) {
		const wc_ft_level *l = &r->levels[i];
		const wc_ft_sweep *s = &r->sweeps.sweeps[l->sweep];
		json_array_append_new(levels, json_pack("{s:i,s:s,s:s,s:f,s:i,s:f,s:o,s:o,s:o,s:o}",
		        "sweep", l->sweep + 1, "relation", wc_ft_relation_name(s->kind),
		        "factor", wc_ft_relation_factor(s->kind), "level", l->x, "runs", l->n_runs,
		        "measured_j_per_token", l->measured, "relation_j_per_token", num(l->relation),
		        "relation_error_pct", num(l->relation_err_pct), "compute_law_j_per_token",
		        num(l->compute), "compute_law_error_pct", num(l->compute_err_pct)));
	}
	json_object_set_new(o, "levels", levels);
	json_object_set_new(o, "relation", accuracy_json(&r->relation, &r->cov_relation));
	json_object_set_new(o, "compute_law", accuracy_json(&r->compute, &r->cov_compute));
	cli_print_json_report(o);
}

/* `v` in `fmt` (a leading space, then `width` columns), or "–" in the same
 * columns when nothing was scored: NaN is no number to print. */
static void
print_cell(double v, const char *fmt, int width)
{
	if (isfinite(v))
		printf(fmt, v);
	else
		printf(" %*s", cli_field_width("–", width), "–");
}

static void
print_table(const char *input, const wc_ft_heldout *r)
{
	printf("level-held-out validation on %s (%d runs, %d sweeps; energy per token, J)\n", input, r->runs,
	       r->sweeps.n);
	printf("%-5s %-12s %8s %4s %10s %10s %8s %10s %8s\n", "sweep", "factor", "level", "runs",
	       "measured", "relation", "err %", "compute", "err %");
	for (int i = 0; i < r->n_levels; i++) {
		const wc_ft_level *l = &r->levels[i];
		printf("%-5d %-12s %8g %4d %10.5f", l->sweep + 1, wc_ft_relation_factor(l->kind), l->x,
		       l->n_runs, l->measured);
		print_cell(l->relation, " %10.5f", 10);
		print_cell(l->relation_err_pct, " %+8.2f", 8);
		print_cell(l->compute, " %10.5f", 10);
		print_cell(l->compute_err_pct, " %+8.2f", 8);
		putchar('\n');
	}
	const wc_accuracy *a[2] = { &r->relation, &r->compute };
	printf("\n%-26s %14s %14s\n", "", "relation", "compute law");
	printf("%-26s %14d %14d\n", "levels scored", a[0]->n, a[1]->n);
	printf("%-26s", "median |error| %");
	for (int k = 0; k < 2; k++)
		print_cell(a[k]->median_abs_err_pct, " %14.2f", 14);
	printf("\n%-26s", "share within +-5 %");
	for (int k = 0; k < 2; k++)
		print_cell(100 * a[k]->share_within_5pct, " %13.1f%%", 14);
	printf("\n%-26s", "bias % (+ = over)");
	for (int k = 0; k < 2; k++)
		print_cell(a[k]->bias_pct, " %+14.2f", 14);
	putchar('\n');
	print_coverage(r);
}

int
cli_validate_finetune(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, OPT_JSON },
		{ "per-run", required_argument, NULL, OPT_PER_RUN },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cmd = "validate finetune", *per_run_path = NULL;
	int opt, json = 0, rc;
	cli_reset_getopt();
	while ((opt = cli_getopt(argc, argv, ":h", opts, NULL)) != -1) {
		switch (opt) {
		case OPT_JSON: json = 1; break;
		case OPT_PER_RUN: per_run_path = optarg; break;
		case 'h': fputs(usage, stdout); return CLI_OK;
		default: return cli_validate_bad_option(cmd, CLI_VA_FINETUNE, opt, argv);
		}
	}
	if (cli_expect_one_operand(cmd, argc, "RUNS.csv") != CLI_OK)
		return CLI_USAGE;
	const char *input = argv[optind];
	if (cli_check_output(cmd, "--per-run", per_run_path, &input, 1) != CLI_OK)
		return CLI_USAGE;
	wc_ft_table *t = NULL;
	wc_ft_heldout r;
	wc_per_run pr = WC_PER_RUN_INIT;
	wc_error err;
	gsl_set_error_handler_off();
	memset(&r, 0, sizeof r);
	rc = CLI_FAIL;
	if (wc_ft_table_read(input, &t, &err) != WC_OK ||
	    wc_validate_finetune(t, per_run_path ? &pr : NULL, &r, &err) != WC_OK ||
	    (per_run_path && wc_per_run_write(per_run_path, &pr, &err) != WC_OK)) {
		cli_fail(cmd, "%s", err.msg);
		goto done;
	}
	if (json)
		print_json(input, &r);
	else
		print_table(input, &r);
	rc = CLI_OK;
done:
	wc_ft_heldout_clear(&r);
	wc_per_run_clear(&pr);
	wc_ft_table_free(t);
	return rc;
}
