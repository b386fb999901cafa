/* wattcast predict finetune: energy of a fine-tuning job from a frozen law. */
#include "cli.h"
#include "data/data.h"
#include "models/limits.h"
#include "predict/predict.h"
#include "server/server.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
	"usage: wattcast predict finetune --method full|lora|qlora\n"
	"           (--model NAME | --active-params B --layers L --d-model D [--model NAME])\n"
	"           --micro-batch B --seq-len S [--grad-accum A] [--gpus G] [--data-parallel R]\n"
	"           [--lora-rank R] [--checkpointing] [--tokens-per-step T] [--steps K]\n"
	"           [--platform NAME] [--params FILE | --profile measured|paper|paper-prefill] [--json]\n\n"
	"Predicts the energy of one optimizer step of a fine-tuning job (all G GPUs,\n"
	"checkpoint saves excluded) from the compute law E_step = G e0 + kappa * F_step (e0\n"
	"per GPU) of a frozen parameter set (default: the built-in profile 'measured',\n"
	"whose fine-tuning law is the published one, QLoRA on one H200): energy per step and per token -- THE prediction --,\n"
	"the analytical FLOPs per step and, with --steps K, the energy of K steps in kWh.\n"
	"With bootstrap draws in the file a 95 % interval is printed. The per-factor\n"
	"relations are shown as checks, not predictions. Inputs\n"
	"outside what the law was calibrated on (ranges, platform, method, several GPUs)\n"
	"are predicted anyway, with a warning. --grad-accum and --gpus default to 1;\n"
	"--data-parallel (replicas) defaults to --gpus; --lora-rank is required for lora\n"
	"and qlora. docs/finetune.md has the mathematics.\n";

enum { OPT_METHOD = 1000, OPT_MODEL, OPT_ACTIVE, OPT_LAYERS, OPT_DMODEL, OPT_BATCH, OPT_SEQ,
       OPT_ACCUM, OPT_GPUS, OPT_DP, OPT_RANK, OPT_CKPT, OPT_TOKENS, OPT_STEPS, OPT_PLATFORM,
       OPT_PARAMS, OPT_PROFILE, OPT_JSON };

typedef struct {
	const char *params_path, *profile, *model, *method;
	wc_finetune_query q;
	int json, help, have_active;
} ft_args;

/* An integer flag into an int field. */
static int
int_flag(const char *flag, long min, long max, int *out)
{
	long v;
	int rc = cli_parse_int("predict finetune", flag, optarg, min, max, &v);
	if (rc == CLI_OK)
		*out = (int)v;
	return rc;
}

static int
parse_one(int opt, ft_args *a)
{
	const char *cmd = "predict finetune";
	wc_ft_config *c = &a->q.config;
	switch (opt) {
	case OPT_METHOD:
		a->method = optarg;
		if (wc_ft_method_from_name(optarg, &c->method) != WC_OK)
			return cli_usage_error(cmd, "--method: expected %s, got '%s'", wc_ft_method_choices(), optarg);
		return CLI_OK;
	case OPT_MODEL: a->model = optarg; return CLI_OK;
	case OPT_ACTIVE:
		a->have_active = 1;
		return cli_parse_double_max(cmd, "--active-params", optarg, 0, 0, WC_MODEL_MAX_PARAMS_B, &c->params_b);
	case OPT_LAYERS: return int_flag("--layers", 1, WC_FT_MAX_LAYERS, &c->layers);
	case OPT_DMODEL: return int_flag("--d-model", 1, WC_FT_MAX_D_MODEL, &c->d_model);
	case OPT_BATCH: return int_flag("--micro-batch", 1, WC_FT_MAX_INT, &c->micro_batch);
	case OPT_SEQ: return int_flag("--seq-len", 1, WC_FT_MAX_INT, &c->seq_len);
	case OPT_ACCUM: return int_flag("--grad-accum", 1, WC_FT_MAX_INT, &c->grad_accum);
	case OPT_GPUS: return int_flag("--gpus", 1, WC_FT_MAX_GPUS, &c->gpus);
	case OPT_DP: return int_flag("--data-parallel", 1, WC_FT_MAX_GPUS, &c->data_parallel);
	case OPT_RANK: return int_flag("--lora-rank", 1, WC_FT_MAX_LORA_RANK, &c->lora_rank);
	case OPT_CKPT: c->checkpointing = 1; return CLI_OK;
	case OPT_TOKENS: return cli_parse_double(cmd, "--tokens-per-step", optarg, 0, 0, &c->tokens_per_step);
	case OPT_STEPS: return cli_parse_double(cmd, "--steps", optarg, 0, 1, &a->q.steps);
	case OPT_PLATFORM: a->q.platform = optarg; return CLI_OK;
	case OPT_PARAMS: a->params_path = optarg; return CLI_OK;
	case OPT_PROFILE: a->profile = optarg; return CLI_OK;
	case OPT_JSON: a->json = 1; return CLI_OK;
	default: return CLI_USAGE;
	}
}

static int
parse_flags(int argc, char **argv, ft_args *a)
{
	static const struct option opts[] = {
		{ "method", required_argument, NULL, OPT_METHOD },
		{ "model", required_argument, NULL, OPT_MODEL },
		{ "active-params", required_argument, NULL, OPT_ACTIVE },
		{ "layers", required_argument, NULL, OPT_LAYERS },
		{ "d-model", required_argument, NULL, OPT_DMODEL },
		{ "micro-batch", required_argument, NULL, OPT_BATCH },
		{ "seq-len", required_argument, NULL, OPT_SEQ },
		{ "grad-accum", required_argument, NULL, OPT_ACCUM },
		{ "gpus", required_argument, NULL, OPT_GPUS },
		{ "data-parallel", required_argument, NULL, OPT_DP },
		{ "lora-rank", required_argument, NULL, OPT_RANK },
		{ "checkpointing", no_argument, NULL, OPT_CKPT },
		{ "tokens-per-step", required_argument, NULL, OPT_TOKENS },
		{ "steps", required_argument, NULL, OPT_STEPS },
		{ "platform", required_argument, NULL, OPT_PLATFORM },
		{ "params", required_argument, NULL, OPT_PARAMS },
		{ "profile", required_argument, NULL, OPT_PROFILE },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt, rc;
	cli_reset_getopt();
	while ((opt = cli_getopt(argc, argv, ":h", opts, NULL)) != -1) {
		if (opt == 'h') {
			fputs(usage, stdout);
			a->help = 1;
			return CLI_OK;
		}
		if (opt == ':' || opt == '?' || opt == CLI_OPT_EMPTY || opt == CLI_OPT_NOT_UTF8)
			return cli_bad_option("predict finetune", opt, argv);
		if ((rc = parse_one(opt, a)) != CLI_OK)
			return rc;
	}
	return CLI_OK;
}

/* After the flags: a complete configuration, the model resolved. */
static int
check_args(int argc, char **argv, ft_args *a)
{
	const char *cmd = "predict finetune";
	wc_ft_config *c = &a->q.config;
	if (optind < argc)
		return cli_usage_error(cmd, "unexpected argument '%s' (see --help)", argv[optind]);
	if (!a->method)
		return cli_usage_error(cmd, "--method is required (full, lora or qlora)");
	if (!a->have_active && !a->model)
		return cli_usage_error(cmd, "give --model or --active-params");
	/* A name the catalog does not answer is a model of its own, given by
	 * its size and shape beside it as inference takes it (docs/capacity.md,
	 * "Model names"); a catalog model brings its own. */
	const wc_model_info *m = a->model ? wc_model_lookup(a->model) : NULL;
	if (m && a->have_active)
		return cli_usage_error(cmd, "--active-params: '%s' is the catalog's %s (%g B): give --model or "
		                       "--active-params, not both", a->model, m->name, m->total_params_b);
	if (a->model && !m && !a->have_active)
		return cli_model_unknown(cmd, a->model, "give its --active-params, --layers and --d-model beside it");
	if (m) {
		if (c->layers || c->d_model)
			return cli_usage_error(cmd, "--layers and --d-model go with --active-params, not a catalog --model");
		wc_ft_config_from_model(c, m);
	} else if (!c->layers || !c->d_model) {
		return cli_usage_error(cmd, "--active-params needs --layers and --d-model");
	}
	c->model_name = a->model;
	if (!c->micro_batch || !c->seq_len)
		return cli_usage_error(cmd, "--micro-batch and --seq-len are required");
	if (c->method == WC_FT_FULL && c->lora_rank)
		return cli_usage_error(cmd, "--lora-rank: only for lora and qlora");
	if (c->method != WC_FT_FULL && !c->lora_rank)
		return cli_usage_error(cmd, "--lora-rank is required for %s", a->method);
	if (c->data_parallel && c->gpus % c->data_parallel)
		return cli_usage_error(cmd, "--data-parallel: must divide --gpus (%d), got %d", c->gpus, c->data_parallel);
	/* What one step can hold, and whole steps: the predictor's rules
	 * (models/finetune.c), checked here so that the flag is named and the
	 * exit is a usage error (docs/cli.md). */
	wc_error e;
	int bad = wc_ft_config_check(c, &e) != WC_OK;
	if (bad && strncmp(e.msg, "tokens_per_step:", 16) == 0)
		return cli_usage_error(cmd, "--tokens-per-step:%s", e.msg + 16);
	if (bad && strncmp(e.msg, "d_model:", 8) == 0) /* a shape that cannot hold the parameters */
		return cli_usage_error(cmd, "--d-model:%s", e.msg + 8);
	if (bad && strncmp(e.msg, "micro_batch:", 12) == 0)
		return cli_usage_error(cmd, "--micro-batch:%s", e.msg + 12);
	if (wc_finetune_model_check(c, &e) != WC_OK)
		return cli_usage_error(cmd, "--%s", e.msg);
	if (wc_ft_steps_check(a->q.steps, &e) != WC_OK)
		return cli_usage_error(cmd, "--%s", e.msg);
	if (a->params_path && a->profile)
		return cli_usage_error(cmd, "give at most one of --params and --profile");
	return CLI_OK;
}

/* Which figure is the prediction, and how e0 entered it. */
static void
print_law(const wc_finetune_prediction *p)
{
	if (p->e0_scope == WC_FT_E0_PER_GPU)
		printf("\n  the prediction    compute law E_step = G e0 + kappa F = %g x %.6g J + %.6g J/TFLOP x %.6g TFLOP"
		       " (e0 per GPU)", p->e0_multiplier, p->e0_j, p->kappa_j_per_tflop, p->flops.flops_per_step_tflop);
	else
		printf("\n  the prediction    compute law E_step = e0 + kappa F = %.6g J + %.6g J/TFLOP x %.6g TFLOP"
		       " (e0 for the whole job whatever G: e0_per \"job\", as in files of schema 4 or older)", p->e0_j,
		       p->kappa_j_per_tflop, p->flops.flops_per_step_tflop);
	if (p->calibrated.present)
		printf("\n  calibrated        %s mode, factor %.4g from %d run%s; held: %s",
		       wc_ft_cal_mode_name(p->calibrated.mode), p->calibrated.factor.value, p->calibrated.runs,
		       p->calibrated.runs == 1 ? "" : "s", wc_ft_cal_mode_held(p->calibrated.mode));
}

/* Decimals that show `v` to 4 significant digits, at least `least`: a
 * 2-step job's 0.0076 kWh printed "0.000 kWh" and a 16-token step's
 * 0.0053 TFLOP "0.0 TFLOP". */
static int
decimals(double v, int least)
{
	if (!(v > 0) || !isfinite(v))
		return least;
	int d = 3 - (int)floor(log10(v));
	return d < least ? least : d > 15 ? 15 : d;
}

static void
print_human(const ft_args *a, const wc_finetune_prediction *p, const char *name, const char *version)
{
	const wc_ft_config *c = &a->q.config;
	printf("%s fine-tuning of %s (%g B, %d layers, d_model %d) on %d x %s, %d replica%s: micro-batch %d, "
	       "seq %d, grad-accum %d", wc_ft_method_name(c->method), a->model ? a->model : "a model", c->params_b,
	       c->layers, c->d_model, c->gpus, p->platform, wc_ft_replicas(c), wc_ft_replicas(c) == 1 ? "" : "s",
	       c->micro_batch, c->seq_len, c->grad_accum);
	if (c->method != WC_FT_FULL)
		printf(", rank %d", c->lora_rank);
	printf("%s\n", c->checkpointing ? ", activation checkpointing" : "");
	printf("  tokens per step   %12.0f\n", p->flops.tokens_per_step);
	printf("  FLOPs per step    %12.*f TFLOP\n", decimals(p->flops.flops_per_step_tflop, 1),
	       p->flops.flops_per_step_tflop);
	printf("  energy per step   %12.1f J", p->energy_per_step_j);
	if (p->has_interval) {
		char draws[32] = ""; /* none without draws: "0 draws" read as a fault */
		if (p->n_draws > 0)
			snprintf(draws, sizeof draws, "%d draws; ", p->n_draws);
		printf("   95 %% interval %.1f-%.1f J (%scovers %s)", p->step_lo_j, p->step_hi_j, draws,
		       p->covers ? p->covers : "parameters");
	}
	printf("\n  energy per token  %12.5f J", p->energy_per_token_j);
	if (p->has_interval)
		printf("   95 %% interval %.5f-%.5f J", p->token_lo_j, p->token_hi_j);
	if (isfinite(p->energy_total_kwh)) {
		int k = decimals(p->energy_total_kwh, 3);
		printf("\n  energy, %.0f steps %10.*f kWh", p->steps, k, p->energy_total_kwh);
		if (p->has_interval && isfinite(p->total_lo_kwh))
			printf("   95 %% interval %.*f-%.*f kWh", k, p->total_lo_kwh, k, p->total_hi_kwh);
	}
	print_law(p);
	/* Relations say something only on their own sweep; a published one
	 * whose sweep is unknown is shown for reference. */
	int header = 0;
	for (int k = 0; k < WC_FT_REL_COUNT; k++) {
		const wc_finetune_relation_check *r = &p->relations[k];
		if (!r->present || r->on_sweep == 0)
			continue;
		if (!header++)
			printf("\n  checks, not the prediction (per-factor relations, docs/finetune.md):");
		printf("\n  relation %-15s %7.5f J/token", wc_ft_relation_name((wc_ft_relation_kind)k),
		       r->energy_per_token_j);
		if (r->on_sweep == 1)
			printf(" (on its sweep: %+.1f %% from the compute law)", r->diff_pct);
		else
			printf(" (its sweep's other factors are not known: a reference, not a check)");
	}
	printf("\n  parameters        %s (%s)\n", name, version);
	/* Named in the text as in the JSON (docs/finetune.md: each answer
	 * names its level_source). */
	printf("  level source      %s\n", p->level_source ? p->level_source : "-");
	for (int i = 0; i < p->n_warnings; i++)
		printf("  warning: %s\n", p->warnings[i]);
}

static int
predict_and_print(const char *cmd, const ft_args *a, const wc_params *params)
{
	wc_predictor *pred = NULL;
	wc_finetune_prediction out;
	wc_error err;
	char version[17];
	int rc = CLI_FAIL;
	if (wc_predictor_new(params, &pred, &err) != WC_OK || wc_params_fingerprint(params, version, &err) != WC_OK ||
	    wc_predict_finetune(pred, &a->q, &out, &err) != WC_OK) {
		cli_fail(cmd, "%s", err.msg);
		goto done;
	}
	if (a->json) {
		char *s = wc_render_finetune(&a->q, &out, version, 2, &err);
		if (!s) {
			cli_fail(cmd, "%s", err.msg);
			goto done;
		}
		puts(s);
		free(s);
	} else {
		print_human(a, &out, params->name, version);
	}
	rc = CLI_OK;
done:
	wc_predictor_free(pred);
	return rc;
}

int
cli_predict_finetune(int argc, char **argv)
{
	const char *cmd = "predict finetune";
	ft_args a = { .q = { .config = WC_FT_CONFIG_INIT, .steps = NAN, .want_interval = 1 } };
	wc_params params = WC_PARAMS_INIT;
	int rc;
	if ((rc = parse_flags(argc, argv, &a)) != CLI_OK || a.help)
		return rc;
	if ((rc = check_args(argc, argv, &a)) != CLI_OK)
		return rc;
	if ((rc = cli_load_answer_params(cmd, a.params_path, a.profile, &params)) != CLI_OK)
		return rc;
	/* The law's calibration platform, a level of the set or a catalog
	 * board: a name nothing knows is a typo, not another GPU (answered
	 * under the catalog's name, as the HTTP route does); the message
	 * lists every name accepted (docs/cli.md, predict finetune). */
	const char *asked = a.q.platform;
	char msg[WC_ERROR_MSG_MAX];
	if (asked && !(a.q.platform = wc_finetune_platform(&params, asked))) {
		wc_finetune_unknown_platform(&params, "--platform", '\'', asked, NULL, msg);
		rc = cli_usage_error(cmd, "%s", msg);
	} else
		rc = predict_and_print(cmd, &a, &params);
	wc_params_clear(&params);
	return rc;
}
