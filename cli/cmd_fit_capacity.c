/*
 * wattcast fit capacity: calibrate the capacity model and write it as the
 * capacity section of a parameter file; wattcast fit request-energy: the
 * affine request-energy decomposition of runs that sweep output length.
 */
#include "cli.h"
#include "cli_capacity.h"
#include "data/data.h"
#include "data/table_inputs.h"

#include <gsl/gsl_errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char capacity_usage[] =
	"usage: wattcast fit capacity RUNS.csv... -o PARAMS.json [--bootstrap B] [--seed S]\n"
	"                             [--threads T]\n"
	"                             [--params BASE.json | --profile measured|paper|paper-prefill]\n"
	"                             [--per-level eta,t0,...] [--plain] [--weights run|model]\n"
	"                             [--calibrated-on TEXT]\n\n"
	"Fits the capacity model (decode step time t0 + t1 n + max(t_mem, t_cmp) + t_tp,\n"
	"compute-bound prefill; docs/capacity.md) on every row of the inputs not marked\n"
	"`exclude`: runs tables (latency = running x output_tokens / throughput_tok_s,\n"
	"ITL from itl_s or median_itl_ms, TTFT from ttft_s), periods tables (period_s)\n"
	"and raw ML.ENERGY configuration tables (imported on the fly). Workloads whose\n"
	"rows give no input length get a fitted mean input length per `set`. Writes\n"
	"BASE (default: the built-in 'paper' profile) with its capacity section added or\n"
	"replaced -- the power law is kept -- with B bootstrap draws (default 1000).\n"
	"--per-level lists the parameters fitted per platform (default eta,t0; the rest\n"
	"of eta, t0, t1, etac, tau, tau_ep is shared). Each observation is weighted by\n"
	"Huber's weight of its residual (docs/capacity.md, \"Robust fit\") unless there\n"
	"are fewer than 2 observations per parameter; --plain fits by plain least\n"
	"squares instead (--robust, the default, is accepted). --weights model makes\n"
	"each model count once (each of its rows weighs 1 / its rows, scaled to a mean\n"
	"of 1; the default\n"
	"--weights run counts each row once: docs/capacity.md, \"Each model counts once\").\n"
	"--calibrated-on TEXT is recorded as the capacity section's\n"
	"provenance.calibrated_on in place of the inputs' names; it changes no number.\n"
	"Bit-identical for a seed, whatever --threads.\n";

static const char energy_usage[] =
	"usage: wattcast fit request-energy RUNS.csv [--json]\n\n"
	"For every (model, platform, tp, running = batch, input_tokens = context) group\n"
	"of runs that sweeps output_tokens (longest >= 1.2 x shortest; rows without\n"
	"input_tokens are left out), fits E(N) = E_fixed + N x E_step to one batch's energy,\n"
	"energy_per_token_j x running x output_tokens (energy_j, a whole window's energy\n"
	"over many batches, is not read), and prints E_fixed, E_step, E_step per request\n"
	"and the residual at each N.\n";

enum { OPT_BOOT = 1000, OPT_SEED, OPT_THREADS, OPT_PARAMS, OPT_PROFILE, OPT_PER_LEVEL, OPT_ON, OPT_JSON, OPT_ROBUST, OPT_PLAIN, OPT_WEIGHTS };

typedef struct {
	const char *output, *params, *profile, *on;
	wc_capacity_fit_options fo;
	wc_bootstrap_options bo;
	long boot, threads;
	int help;
} cap_args;

int
cli_parse_per_level(const char *cmd, const char *list, int *per_level)
{
	char buf[128];
	if (cli_check_list(cmd, "--per-level", list) != CLI_OK)
		return CLI_USAGE;
	snprintf(buf, sizeof buf, "%s", list);
	for (int k = 0; k < WC_CAP_KINDS; k++)
		per_level[k] = 0;
	for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int found = 0;
		for (int k = 0; k < WC_CAP_KINDS; k++)
			if (strcmp(tok, wc_capacity_kind_name((wc_capacity_kind)k)) == 0)
				found = per_level[k] = 1;
		if (!found)
			return cli_usage_error(cmd, "--per-level: unknown parameter '%s' (eta, t0, t1, etac, tau, tau_ep)", tok);
	}
	return CLI_OK;
}

int
cli_parse_weights(const char *cmd, const char *arg, int *model_weights)
{
	if (strcmp(arg, "model") == 0 || strcmp(arg, "run") == 0) {
		*model_weights = arg[0] == 'm';
		return CLI_OK;
	}
	return cli_usage_error(cmd, "--weights: '%s' is neither model (each model counts once) nor run (each run "
	                       "counts once)", arg);
}

static int
parse_cap_flags(int argc, char **argv, cap_args *a)
{
	static const struct option opts[] = {
		{ "bootstrap", required_argument, NULL, OPT_BOOT },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "threads", required_argument, NULL, OPT_THREADS },
		{ "params", required_argument, NULL, OPT_PARAMS },
		{ "profile", required_argument, NULL, OPT_PROFILE },
		{ "per-level", required_argument, NULL, OPT_PER_LEVEL },
		{ "calibrated-on", required_argument, NULL, OPT_ON },
		{ "robust", no_argument, NULL, OPT_ROBUST },
		{ "plain", no_argument, NULL, OPT_PLAIN },
		{ "weights", required_argument, NULL, OPT_WEIGHTS },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cmd = "fit capacity";
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
		case OPT_PER_LEVEL: rc = cli_parse_per_level(cmd, optarg, a->fo.per_level); break;
		case OPT_ON:
			/* what capacity.provenance.calibrated_on holds; cut, the
			 * record would name something else (docs/cli.md, "fit capacity") */
			if (strlen(optarg) >= WC_INPUTS_LABEL_MAX)
				return cli_usage_error(cmd, "--calibrated-on: %zu bytes, more than the %zu "
				                       "capacity.provenance.calibrated_on holds", strlen(optarg),
				                       WC_INPUTS_LABEL_MAX - 1);
			a->on = optarg;
			break;
		case OPT_ROBUST: a->fo.robust = 1; break;
		case OPT_PLAIN: a->fo.robust = 0; break;
		case OPT_WEIGHTS: rc = cli_parse_weights(cmd, optarg, &a->fo.model_weights); break;
		case 'o': a->output = optarg; break;
		case 'h': fputs(capacity_usage, stdout); a->help = 1; return CLI_OK;
		default: return cli_bad_option(cmd, opt, argv);
		}
		if (rc != CLI_OK)
			return rc;
	}
	if (optind >= argc)
		return cli_usage_error(cmd, "RUNS.csv is required (see --help)");
	if (!a->output)
		return cli_usage_error(cmd, "-o PARAMS.json is required");
	if (a->params && a->profile)
		return cli_usage_error(cmd, "give at most one of --params and --profile");
	/* --params may be the output, its capacity section replaced (docs/cli.md,
	 * "Conventions"). */
	if (cli_check_output(cmd, "-o", a->output, (const char *const *)argv + optind, (size_t)(argc - optind)) != CLI_OK)
		return CLI_USAGE;
	a->bo.replicates = (int)a->boot;
	a->bo.threads = (int)a->threads;
	return CLI_OK;
}

static void
print_param(const wc_capacity_fit_result *r, const char *name, const wc_param *p, const char *unit)
{
	printf("  %-28s %12.5g %-4s", name, p->value, unit);
	if (isfinite(p->lo) && isfinite(p->hi))
		printf(" [%.5g, %.5g]", p->lo, p->hi);
	else if (p->source != WC_SRC_BOUND && wc_capacity_fit_named_unidentified(r, name))
		printf(" not identified"); /* no interval: the fit's curvature along it is zero */
	else if (p->source != WC_SRC_BOUND)
		printf(" %s", wc_source_name(p->source));
	/* at an edge of its domain: the rows did not identify it */
	printf("%s\n", p->source == WC_SRC_BOUND ? " at a bound: not identified" : "");
}

static const char *
kind_unit(int k)
{
	return k == WC_CAP_ETA || k == WC_CAP_ETAC ? "" : "s";
}

/* The rows skipped without a note (no timing): named with their reason,
 * as validate capacity names them, so the count in the head line is
 * accounted for (docs/capacity.md, "Observations and fitting"); rows
 * skipped with a note are among the fit's warnings already. */
static void
print_untimed(const wc_runs_table *t)
{
	char line[256];
	int n;
	for (int w = 0; w < WC_CAPACITY_UNTIMED_COUNT; w++) {
		cli_capacity_untimed_line(t, w, line, sizeof line, &n);
		if (n)
			printf("  warning: %s\n", line);
	}
}

static void
print_capacity_summary(const wc_capacity_fit_result *r, const wc_capacity_data *d, const wc_runs_table *t)
{
	const wc_capacity_params *c = &r->params;
	char label[WC_LABEL_MAX];
	char eff[48] = "";
	if (fabs(r->n_eff - r->n_obs) > 1e-6 * r->n_obs) /* weighted rows: Kish's effective count */
		snprintf(eff, sizeof eff, ", %.1f effective", r->n_eff);
	printf("fit capacity: %d rows (%d observations%s, %d skipped), %d parameters; %s in %d iterations; "
	       "rms %.4f (log time)\n", r->n_rows, r->n_obs, eff, d->n_skipped, r->n_params,
	       r->converged ? "converged" : "NOT converged", r->niter, r->rms);
	printf("  %-28s %12s %-4s %s\n", "parameter", "value", "unit", "95 % interval / source");
	for (int k = 0; k < WC_CAP_KINDS; k++) {
		if (c->shared[k]) {
			wc_capacity_label((wc_capacity_kind)k, NULL, label, sizeof label);
			print_param(r, label, &c->shared_p[k], kind_unit(k));
			continue;
		}
		for (int i = 0; i < c->n_levels; i++) {
			wc_capacity_label((wc_capacity_kind)k, c->levels[i].name, label, sizeof label);
			print_param(r, label, &c->levels[i].p[k], kind_unit(k));
		}
	}
	for (int w = 0; w < c->n_workloads; w++) {
		wc_capacity_workload_label(c->workloads[w].set, label, sizeof label);
		print_param(r, label, &c->workloads[w].input_tokens, "tok");
	}
	for (int i = 0; i < r->n_warnings; i++)
		printf("  warning: %s\n", r->warnings[i]);
	print_untimed(t);
}

/* --bootstrap against the file it would write: BASE with the fitted
 * section in place of its own, refused before the draws are made
 * (docs/fitting.md, "Bootstrap intervals"). */
static int
check_bootstrap_room(const char *cmd, long boot, const wc_capacity_fit_result *r, const wc_params *base)
{
	wc_params tmp = WC_PARAMS_INIT;
	wc_error err;
	int rc;
	if (wc_params_copy(&tmp, base, &err) != WC_OK || wc_capacity_params_copy(&tmp.capacity, &r->params, &err) != WC_OK)
		rc = cli_fail(cmd, "%s", err.msg);
	else
		rc = cli_check_bootstrap_room(cmd, boot, r->n_params, &tmp);
	wc_params_clear(&tmp);
	return rc;
}

/* Fit (and bootstrap), then write BASE with the new section. */
static int
fit_capacity_and_write(const char *cmd, const cap_args *a, const cli_capacity_inputs *in, wc_params *base)
{
	wc_capacity_fit_result r;
	wc_error err;
	char fp[17];
	int rc = CLI_FAIL;
	if (wc_fit_capacity(&in->data, &a->fo, &r, &err) != WC_OK)
		return cli_fail(cmd, "%s", err.msg);
	if (a->boot > 0 && (rc = check_bootstrap_room(cmd, a->boot, &r, base)) != CLI_OK)
		goto done;
	rc = CLI_FAIL;
	if (a->boot > 0 && wc_fit_capacity_bootstrap(&in->data, &a->fo, &a->bo, &r, &err) != WC_OK) {
		cli_fail(cmd, "%s", err.msg);
		goto done;
	}
	cli_created_time(r.params.created_utc);
	snprintf(r.params.calibrated_on, sizeof r.params.calibrated_on, "%s", a->on ? a->on : in->runs->path);
	/* Cost and carbon defaults the base already had are kept. */
	if (base->capacity.present) {
		r.params.price_per_kwh = base->capacity.price_per_kwh;
		r.params.grams_co2_per_kwh = base->capacity.grams_co2_per_kwh;
	}
	print_capacity_summary(&r, &in->data, in->runs);
	static const int stale[] = { WC_PEQ_LATENCY, WC_PEQ_ENERGY_TOKEN };
	cli_drop_stale_errors(cmd, base, stale, 2, "capacity");
	if (wc_capacity_params_copy(&base->capacity, &r.params, &err) != WC_OK ||
	    wc_params_save_file(a->output, base, &err) != WC_OK || wc_params_fingerprint(base, fp, &err) != WC_OK) {
		cli_fail(cmd, "%s", err.msg);
		goto done;
	}
	printf("wrote %s (params_version %s, %d capacity draws)\n", a->output, fp, base->capacity.draws.n);
	rc = r.converged ? CLI_OK : CLI_FAIL;
	if (!r.converged)
		fprintf(stderr, "wattcast %s: the fit did not converge; %s was written with the estimate as is\n", cmd,
		        a->output);
done:
	wc_capacity_fit_result_clear(&r);
	return rc;
}

int
cli_fit_capacity(int argc, char **argv)
{
	const char *cmd = "fit capacity";
	cap_args a = { .fo = WC_CAPACITY_FIT_OPTIONS_INIT, .bo = WC_BOOTSTRAP_OPTIONS_INIT, .boot = 1000,
		       .threads = 1 };
	cli_capacity_inputs in;
	wc_params base = WC_PARAMS_INIT;
	int rc;
	if ((rc = parse_cap_flags(argc, argv, &a)) != CLI_OK || a.help)
		return rc;
	gsl_set_error_handler_off();
	memset(&in, 0, sizeof in);
	if ((rc = cli_load_params_rewritable(cmd, a.params, a.profile, &base)) == CLI_OK &&
	    (rc = cli_capacity_inputs_load(cmd, argv + optind, argc - optind, &in)) == CLI_OK)
		rc = fit_capacity_and_write(cmd, &a, &in, &base);
	cli_capacity_inputs_free(&in);
	wc_params_clear(&base);
	return rc;
}

#define NEGATIVE_FIXED "E_fixed is negative, which no window draws: these lengths do not identify it (docs/capacity.md)"

static json_t *
group_json(const wc_request_energy_group *g)
{
	json_t *pts = json_array();
	for (int i = 0; i < g->n; i++)
		json_array_append_new(pts, json_pack("{s:f,s:f,s:f}", "output_tokens", g->N[i], "energy_j", g->E[i],
		                                     "residual_pct", g->residual_pct[i]));
	json_t *o = json_pack("{s:s,s:s,s:i,s:f,s:f,s:f,s:f,s:f,s:o}", "model", g->model, "platform", g->platform,
	                      "tp", g->tp, "batch", g->batch, "context", g->context, "e_fixed_j", g->e_fixed_j,
	                      "e_step_j", g->e_step_j, "e_step_per_request_mj", g->e_step_per_request_mj, "points", pts);
	if (o && g->e_fixed_j < 0) /* the text's warning, in the JSON too */
		json_object_set_new(o, "warning", json_string(NEGATIVE_FIXED));
	return o;
}

static void
print_groups(const wc_request_energy_group *g, size_t n, int json)
{
	if (json) {
		json_t *arr = json_array();
		for (size_t k = 0; k < n; k++)
			json_array_append_new(arr, group_json(&g[k]));
		char *s = json_dumps(arr, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(8));
		if (s)
			puts(s);
		free(s);
		json_decref(arr);
		return;
	}
	for (size_t k = 0; k < n; k++) {
		printf("%s on %d x %s, batch %g, context %g: E_fixed %.2f J, E_step %.4f J (%.2f mJ per request)\n",
		       g[k].model, g[k].tp, g[k].platform, g[k].batch, g[k].context, g[k].e_fixed_j, g[k].e_step_j,
		       g[k].e_step_per_request_mj);
		if (g[k].e_fixed_j < 0)
			printf("  warning: %s\n", NEGATIVE_FIXED);
		for (int i = 0; i < g[k].n; i++)
			printf("  N %6g: measured %10.2f J, residual %+7.2f %%\n", g[k].N[i], g[k].E[i], g[k].residual_pct[i]);
	}
}

int
cli_fit_request_energy(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, OPT_JSON },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cmd = "fit request-energy";
	int opt, json = 0;
	cli_reset_getopt();
	while ((opt = cli_getopt(argc, argv, ":h", opts, NULL)) != -1) {
		if (opt == OPT_JSON)
			json = 1;
		else if (opt == 'h')
			return fputs(energy_usage, stdout), CLI_OK;
		else
			return cli_bad_option(cmd, opt, argv);
	}
	if (optind != argc - 1)
		return cli_usage_error(cmd, "exactly one RUNS.csv expected (see --help)");
	wc_runs_table *t = NULL;
	wc_request_energy_group *g = NULL;
	size_t n = 0;
	wc_error err;
	if (wc_runs_read(argv[optind], &t, &err) != WC_OK || wc_fit_request_energy_runs(t, &g, &n, &err) != WC_OK) {
		wc_runs_free(t);
		return cli_fail(cmd, "%s", err.msg);
	}
	print_groups(g, n, json);
	free(g);
	wc_runs_free(t);
	return CLI_OK;
}
