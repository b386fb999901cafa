/* wattcast fit finetune: fit the fine-tuning law and add it to a parameter file. */
#include "cli.h"
#include "data/data.h"
#include "fit/fit.h"
#include "fit/finetune_fit.h"

#include <gsl/gsl_errno.h>
#include <math.h>
#include <string.h>

static const char usage[] =
	"usage: wattcast fit finetune RUNS.csv -o PARAMS.json\n"
	"                             [--params BASE | --profile measured|paper|paper-prefill]\n"
	"                             [--bootstrap B] [--seed S] [--threads T] [--name LABEL]\n\n"
	"Fits the fine-tuning law (docs/finetune.md) on a fine-tuning runs table\n"
	"(docs/formats/finetune-runs.md): the compute law E_step = G e0 + kappa F_step (e0\n"
	"per GPU, G the job's GPUs) by least squares on relative residuals, with R^2,\n"
	"standard errors and B bootstrap\n"
	"draws (default 1000; 0 = none), and each per-factor relation (micro-batch\n"
	"a + b/B, sequence length a + b*S + c/S, model size a + b*N) on the table's\n"
	"largest sweep of that factor. The result replaces the fine-tuning section of\n"
	"BASE (default: the built-in profile 'paper'; its inference law is kept) and is\n"
	"written atomically to PARAMS.json. Runs with `exclude` set are left out.\n"
	"Runs whose energies do not vary, or that give kappa <= 0, are refused.\n"
	"Results are bit-identical for a seed, whatever --threads.\n";

enum { OPT_BOOT = 1000, OPT_SEED, OPT_THREADS, OPT_PARAMS, OPT_PROFILE, OPT_NAME };

typedef struct {
	const char *input, *output, *params, *profile, *label;
	wc_bootstrap_options bo;
	long boot, threads;
	int help;
} fit_ft_args;

static int
parse_flags(int argc, char **argv, fit_ft_args *a)
{
	static const struct option opts[] = {
		{ "bootstrap", required_argument, NULL, OPT_BOOT },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "threads", required_argument, NULL, OPT_THREADS },
		{ "params", required_argument, NULL, OPT_PARAMS },
		{ "profile", required_argument, NULL, OPT_PROFILE },
		{ "name", required_argument, NULL, OPT_NAME },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cmd = "fit finetune";
	int opt, rc;
	cli_reset_getopt();
	while ((opt = cli_getopt(argc, argv, ":ho:", opts, NULL)) != -1) {
		rc = CLI_OK;
		switch (opt) {
		case OPT_BOOT: rc = cli_parse_bootstrap(cmd, optarg, &a->boot); break;
		case OPT_SEED: rc = cli_parse_u64(cmd, "--seed", optarg, &a->bo.seed); break;
		case OPT_THREADS: rc = cli_parse_threads(cmd, optarg, &a->threads); break;
		case OPT_PARAMS: a->params = optarg; break;
		case OPT_PROFILE: a->profile = optarg; break;
		case OPT_NAME:
			a->label = optarg;
			if (!optarg[0] || strlen(optarg) >= WC_NAME_MAX)
				rc = cli_usage_error(cmd, "--name: %zu bytes, expected 1-%d", strlen(optarg), WC_NAME_MAX - 1);
			break;
		case 'o': a->output = optarg; break;
		case 'h': fputs(usage, stdout); a->help = 1; return CLI_OK;
		default: return cli_bad_option(cmd, opt, argv);
		}
		if (rc != CLI_OK)
			return rc;
	}
	if (cli_expect_one_operand(cmd, argc, "RUNS.csv") != CLI_OK)
		return CLI_USAGE;
	if (!a->output)
		return cli_usage_error(cmd, "-o PARAMS.json is required");
	if (a->params && a->profile)
		return cli_usage_error(cmd, "give at most one of --params and --profile");
	a->input = argv[optind];
	/* BASE may be the output: it is read whole before any work, and is
	 * replaced (atomically) only by a finished file (docs/cli.md,
	 * "Conventions"). */
	const char *in[] = { a->input };
	if (cli_check_output(cmd, "-o", a->output, in, 1) != CLI_OK)
		return CLI_USAGE;
	a->bo.replicates = (int)a->boot;
	a->bo.threads = (int)a->threads;
	return CLI_OK;
}

static void
print_param(const char *name, const char *unit, const wc_param *p, double se)
{
	printf("    %-8s %12.6g %-9s", name, p->value, unit);
	if (isfinite(p->lo) && isfinite(p->hi))
		printf(" 95 %% [%.6g, %.6g]", p->lo, p->hi);
	if (isfinite(se))
		printf("  (se %.3g)", se);
	putchar('\n');
}

static void
print_relation(const wc_ft_fit_result *r, int k)
{
	const wc_ft_relation *rel = &r->section.relations[k];
	wc_ft_relation_kind kind = (wc_ft_relation_kind)k;
	if (!r->has_relation[k]) {
		printf("  %-16s not fitted (no sweep of %s)\n", wc_ft_relation_name(kind), wc_ft_relation_factor(kind));
		return;
	}
	const wc_ft_config *b = &rel->base;
	printf("  %-16s e_tok = %-13s R^2 %.4f   %d runs, %d levels of %s in %g-%g\n",
	       wc_ft_relation_name(kind), wc_ft_relation_form(kind), rel->r2, rel->runs, rel->levels,
	       wc_ft_relation_factor(kind), rel->x.lo, rel->x.hi);
	for (int j = 0; j < wc_ft_relation_terms(kind); j++) {
		char name[4] = { ' ', (char)('a' + j), '\0', '\0' };
		print_param(name + 1, "", &rel->coef[j], r->relation[k].se[j]);
	}
	printf("    held fixed: %s", wc_ft_method_name(b->method));
	if (kind != WC_FT_REL_SIZE)
		printf(", %g B model", b->params_b);
	if (kind != WC_FT_REL_BATCH)
		printf(", micro-batch %d", b->micro_batch);
	if (kind != WC_FT_REL_SEQ)
		printf(", seq %d", b->seq_len);
	printf(", grad-accum %d, %d GPU%s%s", b->grad_accum, b->gpus, b->gpus == 1 ? "" : "s",
	       b->checkpointing ? ", checkpointing" : "");
	/* Packed runs: a query is on this sweep only at their share. */
	if (rel->fill < 1.0)
		printf(", steps %.3g %% full", 100.0 * rel->fill);
	printf("\n");
}

static void
print_summary(const wc_ft_fit_result *r, const char *input)
{
	const wc_finetune_params *s = &r->section;
	printf("fit finetune on %s: %d runs used, %d left out; platform %s\n", input, r->n_used,
	       r->n_excluded, s->platform);
	printf("  compute law      E_step = G * e0 + kappa * F_step (e0 per GPU)   R^2 %.4f, F %g-%g TFLOP", s->r2,
	       s->ranges.flops_tflop.lo, s->ranges.flops_tflop.hi);
	/* what a prediction's e0 warning cites (docs/finetune.md, "Predicting") */
	if (isfinite(s->ranges.fixed_share.hi))
		printf(", G e0 %.1f-%.1f %% of E_step", 100.0 * s->ranges.fixed_share.lo, 100.0 * s->ranges.fixed_share.hi);
	printf("\n");
	print_param("e0", "J", &s->e0, s->e0_se);
	print_param("kappa", "J/TFLOP", &s->kappa, s->kappa_se);
	for (int k = 0; k < WC_FT_REL_COUNT; k++)
		print_relation(r, k);
	for (int i = 0; i < r->n_warnings; i++)
		printf("  warning: %s\n", r->warnings[i]);
}

/* Fit, put the section into `base` and write it. */
static int
fit_and_write(const char *cmd, const fit_ft_args *a, const wc_ft_table *t, wc_params *base)
{
	wc_ft_fit_result r;
	wc_error err;
	char fingerprint[17];
	int rc;
	if (a->boot > 0 && (rc = cli_check_finetune_bootstrap_room(cmd, a->boot, base)) != CLI_OK)
		return rc;
	rc = CLI_FAIL;
	if (wc_fit_finetune(t, a->boot > 0 ? &a->bo : NULL, &r, &err) != WC_OK)
		return cli_fail_path(cmd, a->input, ": %s", err.msg);
	snprintf(r.section.input_sha256, sizeof r.section.input_sha256, "%s", t->sha256);
	r.section.seed = a->bo.seed;
	r.section.bootstrap = (int)a->boot;
	print_summary(&r, a->input);
	static const int stale[] = { WC_PEQ_FT_STEP };
	cli_drop_stale_errors(cmd, base, stale, 1, "finetune");
	if (wc_finetune_params_copy(&base->finetune, &r.section, &err) != WC_OK) {
		cli_fail(cmd, "%s", err.msg);
		goto done;
	}
	if (a->label)
		snprintf(base->name, sizeof base->name, "%s", a->label);
	else if (!a->params)
		snprintf(base->name, sizeof base->name, "fit");
	cli_created_time(base->finetune.created_utc); /* the section's own time; the top-level record is the inference law's */
	if (wc_params_save_file(a->output, base, &err) != WC_OK ||
	    wc_params_fingerprint(base, fingerprint, &err) != WC_OK) {
		cli_fail(cmd, "%s", err.msg);
		goto done;
	}
	printf("wrote %s (params_version %s, %d bootstrap draws of the fine-tuning law)\n", a->output,
	       fingerprint, base->finetune.draws.n);
	rc = CLI_OK;
done:
	wc_ft_fit_result_clear(&r);
	return rc;
}

int
cli_fit_finetune(int argc, char **argv)
{
	const char *cmd = "fit finetune";
	fit_ft_args a = { .bo = WC_BOOTSTRAP_OPTIONS_INIT, .boot = 1000, .threads = 1 };
	wc_params base = WC_PARAMS_INIT;
	wc_ft_table *t = NULL;
	wc_error err;
	int rc;
	if ((rc = parse_flags(argc, argv, &a)) != CLI_OK || a.help)
		return rc;
	/* OpenBLAS must not start its own threads under the bootstrap's. */
	wc_linalg_pin_single_thread();
	gsl_set_error_handler_off();
	if ((rc = cli_load_params_rewritable(cmd, a.params, a.profile, &base)) != CLI_OK)
		return rc;
	if (wc_ft_table_read(a.input, &t, &err) != WC_OK)
		rc = cli_fail(cmd, "%s", err.msg);
	else
		rc = fit_and_write(cmd, &a, t, &base);
	wc_ft_table_free(t);
	wc_params_clear(&base);
	return rc;
}
