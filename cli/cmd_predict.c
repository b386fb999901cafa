/* wattcast predict inference: mean power of one configuration. */
#include "cli.h"
#include "data/data.h"
#include "predict/predict.h"
#include "server/server.h"

#include <stdlib.h>
#include <string.h>

static const char predict_usage[] =
	"usage: wattcast predict inference --platform NAME (--active-params B | --model NAME)\n"
	"                                  --concurrency N [--tp G] [--weights bf16|fp8|int4]\n"
	"                                  [--kv bf16|fp8] [--sm-clock MHZ]\n"
	"                                  [--params FILE | --profile paper] [--json]\n\n"
	"Predicts the mean power of a serving group of G GPUs (tensor parallel) running\n"
	"N requests at a time (N = 0: loaded idle) from a frozen law: the built-in\n"
	"published profile 'paper' unless --params names a file written by `wattcast fit`.\n"
	"With bootstrap draws in the file, a 95 % interval is printed. Inputs outside the\n"
	"calibrated range are predicted anyway, with a warning.\n"
	"Fine-tuning energy: wattcast predict finetune --help.\n";

enum { OPT_PLATFORM = 1000, OPT_ACTIVE, OPT_MODEL, OPT_TP, OPT_CONC, OPT_WEIGHTS, OPT_KV,
       OPT_CLOCK, OPT_PARAMS, OPT_PROFILE, OPT_JSON };

static int
print_human(const wc_inference_query *q, const wc_inference_prediction *pr, const char *name,
            const char *version)
{
	const wc_config *c = &q->config;
	printf("platform %s, tp %d, active params %g B, running %g, weights %s, kv %s",
	       c->platform, c->tp, c->active_params_b, c->running, wc_precision_name(c->weights),
	       wc_precision_name(c->kv));
	if (c->sm_clock_mhz > 0)
		printf(", sm clock %g MHz", c->sm_clock_mhz);
	printf("\n  node power     %8.1f W", pr->power.node_power_w);
	if (pr->has_interval)
		printf("   95 %% interval %.1f-%.1f W (%d draws)", pr->node_lo_w, pr->node_hi_w, pr->n_draws);
	printf("\n  per-GPU power  %8.1f W\n  idle power     %8.1f W\n  parameters     %s (%s)\n",
	       pr->power.per_gpu_power_w, pr->power.idle_power_w, name, version);
	for (int i = 0; i < pr->n_warnings; i++)
		printf("  warning: %s\n", pr->warnings[i]);
	return CLI_OK;
}

/* What the command line asked for. */
typedef struct {
	const char *params_path, *profile, *model;
	wc_inference_query q;
	int json, have_active, have_conc, help;
	long tp;
} predict_args;

/* The flags into `a`; a->help after printing --help. */
static int
parse_predict_flags(int argc, char **argv, predict_args *a)
{
	static const struct option opts[] = {
		{ "platform", required_argument, NULL, OPT_PLATFORM },
		{ "active-params", required_argument, NULL, OPT_ACTIVE },
		{ "model", required_argument, NULL, OPT_MODEL },
		{ "tp", required_argument, NULL, OPT_TP },
		{ "concurrency", required_argument, NULL, OPT_CONC },
		{ "weights", required_argument, NULL, OPT_WEIGHTS },
		{ "kv", required_argument, NULL, OPT_KV },
		{ "sm-clock", required_argument, NULL, OPT_CLOCK },
		{ "params", required_argument, NULL, OPT_PARAMS },
		{ "profile", required_argument, NULL, OPT_PROFILE },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cmd = "predict inference";
	wc_config *c = &a->q.config;
	int opt, rc;
	cli_reset_getopt();
	while ((opt = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		rc = CLI_OK;
		switch (opt) {
		case OPT_PLATFORM: c->platform = optarg; break;
		case OPT_ACTIVE:
			rc = cli_parse_double(cmd, "--active-params", optarg, 0, 0, &c->active_params_b);
			a->have_active = 1;
			break;
		case OPT_MODEL: a->model = optarg; break;
		case OPT_TP: rc = cli_parse_int(cmd, "--tp", optarg, 1, 4096, &a->tp); break;
		case OPT_CONC:
			rc = cli_parse_double(cmd, "--concurrency", optarg, 0, 1, &c->running);
			a->have_conc = 1;
			break;
		case OPT_WEIGHTS:
			if (wc_precision_from_name(optarg, &c->weights) != WC_OK)
				rc = cli_usage_error(cmd, "--weights: expected bf16, fp8 or int4, got '%s'", optarg);
			break;
		case OPT_KV:
			if (wc_precision_from_name(optarg, &c->kv) != WC_OK || c->kv == WC_PREC_INT4)
				rc = cli_usage_error(cmd, "--kv: expected bf16 or fp8, got '%s'", optarg);
			break;
		case OPT_CLOCK: rc = cli_parse_double(cmd, "--sm-clock", optarg, 0, 0, &c->sm_clock_mhz); break;
		case OPT_PARAMS: a->params_path = optarg; break;
		case OPT_PROFILE: a->profile = optarg; break;
		case OPT_JSON: a->json = 1; break;
		case 'h': fputs(predict_usage, stdout); a->help = 1; return CLI_OK;
		default: return cli_bad_option(cmd, opt, argv);
		}
		if (rc != CLI_OK)
			return rc;
	}
	return CLI_OK;
}

/* After the flags: no stray arguments, a complete and consistent
 * configuration (--model resolved to its active parameters). */
static int
check_predict_args(int argc, char **argv, predict_args *a)
{
	const char *cmd = "predict inference";
	wc_config *c = &a->q.config;
	if (optind < argc)
		return cli_usage_error(cmd, "unexpected argument '%s' (see --help)", argv[optind]);
	if (!c->platform)
		return cli_usage_error(cmd, "--platform is required (see --help)");
	if (a->have_active == (a->model != NULL))
		return cli_usage_error(cmd, "give exactly one of --active-params and --model");
	if (a->model) {
		const wc_model_info *m = wc_model_lookup(a->model);
		if (!m)
			return cli_usage_error(cmd, "--model: unknown model '%s' (give --active-params)", a->model);
		c->active_params_b = m->active_params_b;
	}
	if (!a->have_conc)
		return cli_usage_error(cmd, "--concurrency is required (0 = idle)");
	if (a->params_path && a->profile)
		return cli_usage_error(cmd, "give at most one of --params and --profile");
	c->tp = (int)a->tp;
	return CLI_OK;
}

/* A usage error listing the platforms the parameters know. */
static int
unknown_platform(const char *cmd, const wc_params *params, const char *platform)
{
	char known[256] = "";
	for (int i = 0; i < params->n_levels; i++) {
		strncat(known, i ? ", " : "", sizeof known - strlen(known) - 1);
		strncat(known, params->levels[i].name, sizeof known - strlen(known) - 1);
	}
	return cli_usage_error(cmd, "--platform: unknown platform '%s' (known: %s)", platform, known);
}

/* Predict with `params` and print the answer as JSON or for people. */
static int
predict_and_print(const char *cmd, const predict_args *a, const wc_params *params)
{
	wc_predictor *pred = NULL;
	wc_inference_prediction out;
	wc_error err;
	char version[17];
	int rc;
	if (wc_predictor_new(params, &pred, &err) != WC_OK ||
	    wc_params_fingerprint(params, version, &err) != WC_OK ||
	    wc_predict_inference(pred, &a->q, &out, &err) != WC_OK) {
		rc = cli_fail(cmd, "%s", err.msg);
		goto done;
	}
	if (a->json) {
		char *s = wc_render_inference(&a->q, &out, version, 2, &err);
		if (!s) {
			rc = cli_fail(cmd, "%s", err.msg);
			goto done;
		}
		puts(s);
		free(s);
		rc = CLI_OK;
	} else {
		rc = print_human(&a->q, &out, params->name, version);
	}
done:
	wc_predictor_free(pred);
	return rc;
}

static int
predict_inference(int argc, char **argv)
{
	const char *cmd = "predict inference";
	predict_args a = { .q = { .config = WC_CONFIG_INIT, .want_interval = 1 }, .tp = 1 };
	int rc;
	if ((rc = parse_predict_flags(argc, argv, &a)) != CLI_OK || a.help)
		return rc;
	if ((rc = check_predict_args(argc, argv, &a)) != CLI_OK)
		return rc;

	wc_params params = WC_PARAMS_INIT;
	if ((rc = cli_load_params(cmd, a.params_path, a.profile, &params)) != CLI_OK)
		return rc;
	if (!wc_params_level(&params, a.q.config.platform))
		rc = unknown_platform(cmd, &params, a.q.config.platform);
	else
		rc = predict_and_print(cmd, &a, &params);
	wc_params_clear(&params);
	return rc;
}

int
cli_cmd_predict(int argc, char **argv)
{
	if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		fputs(predict_usage, argc < 2 ? stderr : stdout);
		return argc < 2 ? CLI_USAGE : CLI_OK;
	}
	if (strcmp(argv[1], "inference") == 0)
		return predict_inference(argc - 1, argv + 1);
	if (strcmp(argv[1], "finetune") == 0)
		return cli_predict_finetune(argc - 1, argv + 1);
	return cli_usage_error("predict", "unknown target '%s' (available: inference, finetune)", argv[1]);
}
