/* wattcast predict inference / flexibility: the flags (docs/cli.md,
 * "predict inference"), read into a cli_predict_args for cmd_predict.c. */
#include "cli_predict.h"
#include "models/limits.h"
#include "predict/flexibility.h"

#include <math.h>
#include <string.h>

enum { OPT_PLATFORM = 1000, OPT_ACTIVE, OPT_MODEL, OPT_TP, OPT_CONC, OPT_WEIGHTS, OPT_KV,
       OPT_CLOCK, OPT_PARAMS, OPT_PROFILE, OPT_JSON, OPT_IN, OPT_OUT, OPT_RATE, OPT_PRICE, OPT_CO2,
       OPT_LAYERS, OPT_KV_HEADS, OPT_HEAD_DIM, OPT_D_MODEL, OPT_HEADS, OPT_EXPERTS, OPT_TOPK, OPT_CACHE_LAYERS,
       OPT_WINDOW, OPT_TOTAL, OPT_CAP,
       OPT_GMU, OPT_SWEEP, OPT_STEPS, OPT_CSV, OPT_SVG, OPT_EP, OPT_SERIES, OPT_ENGINE };
/* The architecture flags index wc_arch_facts.ints by their offset from
 * OPT_LAYERS, so their order must be the facts' order. */
_Static_assert(OPT_D_MODEL - OPT_LAYERS == WC_ARCH_FACT_D_MODEL &&
                   OPT_HEADS - OPT_LAYERS == WC_ARCH_FACT_ATTENTION_HEADS &&
                   OPT_TOPK - OPT_LAYERS == WC_ARCH_FACT_EXPERTS_PER_TOKEN &&
                   OPT_WINDOW - OPT_LAYERS == WC_ARCH_FACT_SLIDING_WINDOW,
               "architecture flags out of step with wc_arch_facts");

/* A flag of predict flexibility given to predict inference: getopt has
 * taken its value, so cli_bad_option would name the value as the flag. */
static int
flexibility_only(const char *cmd, const char *flag)
{
	return cli_usage_error(cmd, "%s belongs to predict flexibility, not %s (see --help)", flag, cmd);
}

/* The capacity and architecture flags; -1 for any other option. */
static int
parse_capacity_flag(const char *cmd, int opt, cli_predict_args *a)
{
	wc_config *c = &a->q.config;
	int rc = CLI_OK;
	switch (opt) {
	case OPT_IN:
		/* at least one token: vLLM serves no empty prompt (as a request
		 * log's input count, docs/formats/telemetry.md) */
		rc = cli_parse_double_max(cmd, "--input-tokens", optarg, 1, 1, WC_CAPACITY_MAX_TOKENS, &c->input_tokens);
		a->have_in = 1;
		break;
	case OPT_OUT:
		rc = cli_parse_double_max(cmd, "--output-tokens", optarg, 1, 1, WC_CAPACITY_MAX_TOKENS, &c->output_tokens);
		a->have_out = 1;
		break;
	case OPT_RATE:
		rc = cli_parse_load(cmd, "--rate", optarg, 0, WC_CAPACITY_MIN_RATE, WC_CAPACITY_MAX_RATE, "requests/s",
		                    &c->request_rate);
		a->have_rate = 1;
		break;
	/* both ends by wc_predict_money_check, in one message (cmd_predict.c) */
	case OPT_PRICE:
		rc = cli_parse_double(cmd, "--price-per-kwh", a->money_text[0] = optarg, -INFINITY, 1, &a->price);
		break;
	case OPT_CO2:
		rc = cli_parse_double(cmd, "--grams-co2-per-kwh", a->money_text[1] = optarg, -INFINITY, 1, &a->co2);
		break;
	case OPT_TOTAL:
		rc = cli_parse_double_max(cmd, "--total-params", optarg, WC_MODEL_MIN_PARAMS_B, 1, WC_MODEL_MAX_PARAMS_B, &a->facts.total_params_b);
		break;
	/* a power per GPU: above any board is a typo or a unit slip (models/limits.h) */
	case OPT_CAP: rc = cli_parse_double_max(cmd, "--power-cap", optarg, 0, 0, WC_GPU_MAX_POWER_W, &a->power_cap); break;
	case OPT_SWEEP:
		if (!a->flex)
			return flexibility_only(cmd, "--sweep");
		if (strcmp(optarg, "clock") != 0 && strcmp(optarg, "power_cap") != 0)
			return cli_usage_error(cmd, "--sweep: expected clock or power_cap, got '%s'", optarg);
		a->fo.by_cap = strcmp(optarg, "power_cap") == 0;
		break;
	case OPT_STEPS: {
		long v;
		if (!a->flex)
			return flexibility_only(cmd, "--steps");
		rc = cli_parse_int(cmd, "--steps", optarg, 2, WC_FLEX_MAX_STEPS, &v);
		a->fo.steps = (int)v;
		break;
	}
	case OPT_CSV:
	case OPT_SVG:
		if (!a->flex)
			return flexibility_only(cmd, opt == OPT_CSV ? "--csv" : "--svg");
		*(opt == OPT_CSV ? &a->fo.csv : &a->fo.svg) = optarg;
		break;
	case OPT_GMU: /* the one range and its words (WC_GMU_IN_RANGE): 0 too */
		rc = cli_parse_range(cmd, "--gpu-memory-utilization", optarg, WC_GMU_MIN, WC_GMU_MAX, &c->gpu_memory_utilization);
		break;
	case OPT_EP: c->expert_parallel = 1; break;
	case OPT_ENGINE: rc = cli_parse_engine(cmd, optarg, &c->engine); break; /* docs/capacity.md, "Serving stacks" */
	case OPT_LAYERS:
	case OPT_KV_HEADS:
	case OPT_HEAD_DIM:
	case OPT_D_MODEL:
	case OPT_HEADS:
	case OPT_EXPERTS:
	case OPT_TOPK:
	case OPT_CACHE_LAYERS:
	case OPT_WINDOW: {
		static const char *const flags[] = { "--layers", "--kv-heads", "--head-dim", "--d-model",
		                                     "--attention-heads", "--experts", "--experts-per-token", "--cache-layers",
		                                     "--sliding-window" };
		int i = opt - OPT_LAYERS;
		rc = cli_parse_int(cmd, flags[i], optarg, wc_arch_fact_min(i), WC_MODEL_MAX_ARCH_INT, &a->facts.ints[i]);
		break;
	}
	default: return -1;
	}
	return rc;
}


int
cli_predict_flags(int argc, char **argv, cli_predict_args *a)
{
	static const struct option opts[] = {
		{ "platform", required_argument, NULL, OPT_PLATFORM },
		{ "active-params", required_argument, NULL, OPT_ACTIVE },
		{ "model", required_argument, NULL, OPT_MODEL },
		{ "tp", required_argument, NULL, OPT_TP },
		{ "concurrency", required_argument, NULL, OPT_CONC },
		{ "running-series", required_argument, NULL, OPT_SERIES },
		{ "weights", required_argument, NULL, OPT_WEIGHTS },
		{ "kv", required_argument, NULL, OPT_KV },
		{ "sm-clock", required_argument, NULL, OPT_CLOCK },
		{ "params", required_argument, NULL, OPT_PARAMS },
		{ "profile", required_argument, NULL, OPT_PROFILE },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "input-tokens", required_argument, NULL, OPT_IN },
		{ "output-tokens", required_argument, NULL, OPT_OUT },
		{ "rate", required_argument, NULL, OPT_RATE },
		{ "price-per-kwh", required_argument, NULL, OPT_PRICE },
		{ "grams-co2-per-kwh", required_argument, NULL, OPT_CO2 },
		{ "layers", required_argument, NULL, OPT_LAYERS },
		{ "kv-heads", required_argument, NULL, OPT_KV_HEADS },
		{ "head-dim", required_argument, NULL, OPT_HEAD_DIM },
		{ "d-model", required_argument, NULL, OPT_D_MODEL },
		{ "attention-heads", required_argument, NULL, OPT_HEADS },
		{ "total-params", required_argument, NULL, OPT_TOTAL },
		{ "experts", required_argument, NULL, OPT_EXPERTS },
		{ "experts-per-token", required_argument, NULL, OPT_TOPK },
		{ "cache-layers", required_argument, NULL, OPT_CACHE_LAYERS },
		{ "sliding-window", required_argument, NULL, OPT_WINDOW },
		{ "power-cap", required_argument, NULL, OPT_CAP },
		{ "gpu-memory-utilization", required_argument, NULL, OPT_GMU },
		{ "expert-parallel", no_argument, NULL, OPT_EP },
		{ "sweep", required_argument, NULL, OPT_SWEEP },
		{ "steps", required_argument, NULL, OPT_STEPS },
		{ "csv", required_argument, NULL, OPT_CSV },
		{ "svg", required_argument, NULL, OPT_SVG },
		{ "engine", required_argument, NULL, OPT_ENGINE },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cmd = a->cmd;
	wc_config *c = &a->q.config;
	int opt, rc, idx;
	/* A flag given twice is refused rather than the last one kept: a
	 * repeated --concurrency in a script is a mistake whichever value
	 * it meant (docs/cli.md, "Conventions"). */
	unsigned char seen[OPT_ENGINE - OPT_PLATFORM + 1] = { 0 };
	cli_reset_getopt();
	while ((idx = -1, opt = cli_getopt(argc, argv, ":h", opts, &idx)) != -1) {
		rc = CLI_OK;
		if (opt >= OPT_PLATFORM && opt <= OPT_ENGINE && idx >= 0 && seen[opt - OPT_PLATFORM]++)
			return cli_usage_error(cmd, "--%s given twice (each flag at most once)", opts[idx].name);
		switch (opt) {
		case OPT_PLATFORM: c->platform = optarg; break;
		case OPT_ACTIVE:
			rc = cli_parse_double_max(cmd, "--active-params", optarg, WC_MODEL_MIN_PARAMS_B, 1, WC_MODEL_MAX_PARAMS_B,
			                          &c->active_params_b);
			a->have_active = 1;
			break;
		case OPT_MODEL: a->model = optarg; break;
		case OPT_TP: rc = cli_parse_int(cmd, "--tp", optarg, 1, WC_LAW_MAX_TP, &a->tp); break;
		case OPT_CONC:
			/* a positive concurrency below the bound gave null energies; one
			 * range whatever other flags come with it (models/limits.h) */
			rc = cli_parse_load(cmd, "--concurrency", optarg, 1, WC_CAPACITY_MIN_CONCURRENCY, WC_CAPACITY_MAX_CONCURRENCY,
			                    "requests at once", &c->running);
			a->conc_text = optarg;
			break;
		case OPT_SERIES: a->series_path = optarg; break; /* read once the flags are checked */
		case OPT_WEIGHTS:
			if (wc_precision_from_name(optarg, &c->weights) != WC_OK)
				rc = cli_usage_error(cmd, "--weights: expected bf16, fp8 or int4, got '%s'", optarg);
			a->have_weights = 1;
			break;
		case OPT_KV:
			if (wc_precision_from_name(optarg, &c->kv) != WC_OK || c->kv == WC_PREC_INT4)
				rc = cli_usage_error(cmd, "--kv: expected bf16 or fp8, got '%s'", optarg);
			break;
		case OPT_CLOCK: rc = cli_parse_double(cmd, "--sm-clock", optarg, 0, 0, &c->sm_clock_mhz); break;
		case OPT_PARAMS: a->params_path = optarg; break;
		case OPT_PROFILE: a->profile = optarg; break;
		case OPT_JSON: a->json = 1; break;
		case 'h': a->help = 1; return CLI_OK; /* the caller prints the usage */
		default:
			if ((rc = parse_capacity_flag(cmd, opt, a)) < 0)
				return cli_bad_option(cmd, opt, argv);
		}
		if (rc != CLI_OK)
			return rc;
	}
	return CLI_OK;
}
