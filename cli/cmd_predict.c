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
	"With bootstrap draws in the file, a 95 %% interval is printed. Inputs outside the\n"
	"calibrated range are predicted anyway, with a warning.\n";

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

static int
predict_inference(int argc, char **argv)
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
	const char *cmd = "predict inference", *params_path = NULL, *profile = NULL;
	const char *model = NULL;
	wc_inference_query q = { .config = WC_CONFIG_INIT, .want_interval = 1 };
	int json = 0, have_active = 0, have_conc = 0, opt, rc;
	long tp = 1;
	cli_reset_getopt();
	while ((opt = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		rc = CLI_OK;
		switch (opt) {
		case OPT_PLATFORM: q.config.platform = optarg; break;
		case OPT_ACTIVE:
			rc = cli_parse_double(cmd, "--active-params", optarg, 0, 0, &q.config.active_params_b);
			have_active = 1;
			break;
		case OPT_MODEL: model = optarg; break;
		case OPT_TP: rc = cli_parse_int(cmd, "--tp", optarg, 1, 4096, &tp); break;
		case OPT_CONC:
			rc = cli_parse_double(cmd, "--concurrency", optarg, 0, 1, &q.config.running);
			have_conc = 1;
			break;
		case OPT_WEIGHTS:
			if (wc_precision_from_name(optarg, &q.config.weights) != WC_OK)
				rc = cli_usage_error(cmd, "--weights: expected bf16, fp8 or int4, got '%s'", optarg);
			break;
		case OPT_KV:
			if (wc_precision_from_name(optarg, &q.config.kv) != WC_OK || q.config.kv == WC_PREC_INT4)
				rc = cli_usage_error(cmd, "--kv: expected bf16 or fp8, got '%s'", optarg);
			break;
		case OPT_CLOCK: rc = cli_parse_double(cmd, "--sm-clock", optarg, 0, 0, &q.config.sm_clock_mhz); break;
		case OPT_PARAMS: params_path = optarg; break;
		case OPT_PROFILE: profile = optarg; break;
		case OPT_JSON: json = 1; break;
		case 'h': fputs(predict_usage, stdout); return CLI_OK;
		default: return cli_bad_option(cmd, opt, argv);
		}
		if (rc != CLI_OK)
			return rc;
	}
	if (optind < argc)
		return cli_usage_error(cmd, "unexpected argument '%s' (see --help)", argv[optind]);
	if (!q.config.platform)
		return cli_usage_error(cmd, "--platform is required (see --help)");
	if (have_active == (model != NULL))
		return cli_usage_error(cmd, "give exactly one of --active-params and --model");
	if (model) {
		const wc_model_info *m = wc_model_lookup(model);
		if (!m)
			return cli_usage_error(cmd, "--model: unknown model '%s' (give --active-params)", model);
		q.config.active_params_b = m->active_params_b;
	}
	if (!have_conc)
		return cli_usage_error(cmd, "--concurrency is required (0 = idle)");
	if (params_path && profile)
		return cli_usage_error(cmd, "give at most one of --params and --profile");
	q.config.tp = (int)tp;

	wc_params params = WC_PARAMS_INIT;
	wc_predictor *pred = NULL;
	wc_inference_prediction out;
	wc_error err;
	char version[17];
	if ((rc = cli_load_params(cmd, params_path, profile, &params)) != CLI_OK)
		return rc;
	if (!wc_params_level(&params, q.config.platform)) {
		char known[256] = "";
		for (int i = 0; i < params.n_levels; i++) {
			strncat(known, i ? ", " : "", sizeof known - strlen(known) - 1);
			strncat(known, params.levels[i].name, sizeof known - strlen(known) - 1);
		}
		rc = cli_usage_error(cmd, "--platform: unknown platform '%s' (known: %s)", q.config.platform, known);
		goto done;
	}
	if (wc_predictor_new(&params, &pred, &err) != WC_OK ||
	    wc_params_fingerprint(&params, version, &err) != WC_OK ||
	    wc_predict_inference(pred, &q, &out, &err) != WC_OK) {
		rc = cli_fail(cmd, "%s", err.msg);
		goto done;
	}
	if (json) {
		char *s = wc_render_inference(&q, &out, version, 2, &err);
		if (!s) {
			rc = cli_fail(cmd, "%s", err.msg);
			goto done;
		}
		puts(s);
		free(s);
		rc = CLI_OK;
	} else {
		rc = print_human(&q, &out, params.name, version);
	}
done:
	wc_predictor_free(pred);
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
	return cli_usage_error("predict", "unknown target '%s' (available: inference)", argv[1]);
}
