/* wattcast predict inference: mean power of one configuration. */
#include "cli_predict.h"
#include "cli.h"
#include "models/catalog.h"
#include "models/limits.h"
#include "data/data.h"
#include "predict/capacity_predict.h"
#include "predict/predict.h"
#include "server/server.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char predict_about[] =
	"Predicts the mean power of a serving group of G GPUs (tensor parallel) running\n"
	"N requests at a time (N = 0: loaded idle) from a frozen law: the built-in\n"
	"profile 'measured' (fitted on public measurements; --profile paper for the\n"
	"published one, paper-prefill its prefill-aware form) unless --params names a\n"
	"file written by `wattcast fit`.\n"
	"A 95 % interval is printed: the percentiles of the file's bootstrap draws widened\n"
	"by the law's held-out error (its prediction_error section; docs/intervals.md);\n"
	"without either there is none, with a warning. Inputs outside the\n"
	"calibrated range are predicted anyway, with a warning. A model that does not fit\n"
	"in the group's memory is refused (exit 2, with the numbers).\n"
	"With --input-tokens and --output-tokens the capacity model (docs/capacity.md) adds\n"
	"latency, time to first token, throughput, energy per output token / request /\n"
	"hour and, with a price or a carbon intensity (flags or the parameter file's\n"
	"defaults), cost and CO2 per request, per million output tokens and per hour.\n"
	"--rate R answers an open loop of R requests/s instead (--concurrency is then the\n"
	"engine's limit). --running-series FILE (CSV t_s,running) averages the law over\n"
	"that n(t) instead; the token lengths then enter its power where the law uses\n"
	"them, with no capacity answers (a series has no one concurrency; a warning says\n"
	"so). --sm-clock locks the SM clock (within the platform's range);\n"
	"--power-cap W (per GPU) gives the clock the GPU settles at under that cap, from\n"
	"the law itself; both change power, latency, throughput and energy together.\n"
	"Where the law gives more than the board's power limit (catalog), the answer is\n"
	"at the clock a GPU settles at under that limit, with a warning.\n"
	"More requests than the KV cache holds (vLLM's gpu_memory_utilization, default\n"
	"0.9; a request holds its context, without token lengths one 16-token block) are\n"
	"not refused: fewer run, with a warning. Weights that do not fit are, and a cache\n"
	"without room for one request.\n"
	"--expert-parallel: an MoE model's experts are spread over the --tp GPUs and every\n"
	"GPU reads the whole shared (non-expert) part each step (default: tensor parallel).\n"
	"A model the catalog does not have is given by --active-params; --model NAME\n"
	"beside it names it, and the parameter set's model terms for NAME apply\n"
	"(`wattcast calibrate`). The architecture comes from --model's catalog entry; the\n"
	"--layers ... flags give it (or override it) explicitly: --cache-layers F of the\n"
	"layers attend to the whole context, the others within --sliding-window W tokens\n"
	"and cache only those (docs/capacity.md, \"Bytes and FLOPs\").\n"
	"Power flexibility: wattcast predict flexibility takes the same configuration\n"
	"and load (with --input-tokens and --output-tokens) and sweeps clock locks\n"
	"(--sweep clock, default) or power caps (--sweep power_cap) over the platform's\n"
	"range in --steps N (default 12): node power, power shed, throughput, throughput\n"
	"lost, energy per output token and the Power Flexibility Index per step, the knee\n"
	"and the energy-optimal clock; --csv FILE and --svg FILE (power against\n"
	"throughput, knee marked) write them too.\n"
	"--engine NAME names the serving stack (default vllm; case ignored, aliases\n"
	"trtllm, text-generation-inference, mii, hf-transformers): the laws are calibrated\n"
	"on vLLM runs, so another stack's answer is vLLM's numbers with a warning saying\n"
	"so (docs/capacity.md, \"Serving stacks\").\n";

static const cli_subcommands predict_commands;

/* `cap_source`: the capacity answers' level source, NULL without them. */
static int
print_human(const wc_inference_query *q, const wc_inference_prediction *pr, const char *name,
            const char *version, const char *cap_source)
{
	const wc_config *c = &q->config;
	/* the count the answer is at: a series' time-weighted mean (config.running
	 * unset), a concurrency held to what the KV cache holds */
	printf("platform %s, tp %d, active params %g B, running %g%s, weights %s, kv %s, engine %s", c->platform, c->tp,
	       c->active_params_b, pr->mean_running, q->series_len ? " (series mean)" : "",
	       wc_precision_name(c->weights), wc_precision_name(c->kv), wc_config_engine(c));
	/* A series the limit binds on answers at the clocks its steps settle
	 * at, not at a lock it lowered (docs/cli.md, "predict inference") */
	if (pr->series_limit_w > 0 && isfinite(pr->series_clock_mhz))
		printf(", sm clock %.0f MHz", pr->series_clock_mhz);
	else if (pr->series_limit_w > 0 && isfinite(pr->series_clock_range_mhz[1]))
		printf(", sm clock %.0f-%.0f MHz over the series", pr->series_clock_range_mhz[0],
		       pr->series_clock_range_mhz[1]);
	else if (pr->series_limit_w > 0)
		printf(", sm clock %.0f MHz to free over the series", pr->series_clock_range_mhz[0]);
	else if (c->sm_clock_mhz > 0)
		printf(", sm clock %.0f MHz", c->sm_clock_mhz);
	/* Where no clock meets the limit or cap the clock is that of least
	 * power and the answer above it (docs/capacity.md): the header says
	 * so, as the warning does, not "settled under" nor "not reached"
	 * (read as power below the limit). */
	const int met = wc_power_cap_met(q->board_limit_w > 0 ? q->board_limit_w : q->power_cap_w,
	                                 pr->serving_per_gpu_w);
	if (q->board_limit_w > 0)
		printf(met ? " (settled under the board's %g W limit per GPU)"
		           : " (the clock of least power, still above the board's %g W limit per GPU)", q->board_limit_w);
	else if (pr->series_limit_w > 0 && pr->series_limit_board) { /* a series settles step by step */
		char pct[32];
		printf(", board limit %g W per GPU (binds on %s of the series' time%s)", pr->series_limit_w,
		       wc_predict_share_format(pct, sizeof pct, pr->series_limit_share),
		       pr->series_limit_met ? "" : "; no clock meets it on some of it");
	}
	else if (q->power_cap_w > 0 && pr->series_cap_share > 0) { /* a series settles step by step */
		char pct[32];
		printf(", power cap %g W per GPU (binds on %s of the series' time)", q->power_cap_w,
		       wc_predict_share_format(pct, sizeof pct, pr->series_cap_share));
	}
	else if (q->power_cap_w > 0)
		printf(c->sm_clock_mhz <= 0 ? ", power cap %g W per GPU (does not bind)"
		       : met ? " (settled under the %g W cap per GPU)"
		             : " (the clock of least power, still above the %g W cap per GPU)", q->power_cap_w);
	/* a draw above the limit or cap never prints as it (200.03 W over a
	 * 200 W cap, not 200.0: wc_predict_power_text) */
	const double bound_w = q->board_limit_w > 0 ? q->board_limit_w : q->power_cap_w > 0 ? q->power_cap_w : INFINITY;
	char node_s[40], gpu_s[40];
	printf("\n  node power     %8s W", wc_predict_power_text(node_s, sizeof node_s, pr->power.node_power_w,
	                                                          bound_w * c->tp));
	if (pr->has_interval) {
		char draws[32] = ""; /* none without draws (the built-in profiles): "0 draws" read as a fault */
		if (pr->n_draws > 0)
			snprintf(draws, sizeof draws, "%d draws; ", pr->n_draws);
		printf("   95 %% interval %.1f-%.1f W (%scovers %s)", pr->node_lo_w, pr->node_hi_w, draws,
		       wc_predict_power_covers(pr));
	}
	double g = pr->power.per_gpu_power_w / pr->power.node_power_w;
	printf("\n  per-GPU power  %8s W", wc_predict_power_text(gpu_s, sizeof gpu_s, pr->power.per_gpu_power_w, bound_w));
	if (pr->has_interval)
		printf("   95 %% interval %.1f-%.1f W", g * pr->node_lo_w, g * pr->node_hi_w);
	printf("\n  idle power     %8.1f W\n", pr->power.idle_power_w);
	if (isfinite(pr->prefill_share))
		printf("  prefill share  %8.3f of busy time (prefill-aware form)\n", pr->prefill_share);
	printf("  parameters     %s (%s)\n", name, version);
	/* Where the answer comes from, in predict flexibility's words (its
	 * JSON's level_source; docs/cli.md, "predict inference"). */
	printf("  level source   power %s", pr->level_source ? pr->level_source : "-");
	if (cap_source)
		printf(", capacity %s", cap_source);
	putchar('\n');
	for (int i = 0; i < pr->n_warnings; i++)
		printf("  warning: %s\n", pr->warnings[i]);
	return CLI_OK;
}


static int config_error(const char *cmd, const wc_error *err);

/* Explicit architecture flags over the catalog entry (or alone, for a
 * model the catalog does not have). */
static int
apply_architecture(const char *cmd, cli_predict_args *a)
{
	if (!wc_arch_facts_any(&a->facts))
		return CLI_OK;
	wc_model_info_with_facts(a->q.config.arch, a->q.config.model, a->q.config.active_params_b, &a->facts, &a->arch);
	if (!wc_model_info_sizes_kv(&a->arch))
		return cli_usage_error(cmd, "--layers, --kv-heads and --head-dim are all needed for a model the catalog "
		                       "does not have");
	wc_error err;
	if (wc_predict_moe_facts_check(&a->arch, &err) != WC_OK ||
	    wc_arch_facts_shape_check(&a->arch, &a->facts, &err) != WC_OK)
		return config_error(cmd, &err);
	a->q.config.arch = &a->arch;
	return CLI_OK;
}

/* After the flags: no stray arguments, a complete and consistent
 * configuration (--model resolved to its active parameters). */

static int
check_predict_args(int argc, char **argv, cli_predict_args *a)
{
	const char *cmd = a->cmd;
	wc_config *c = &a->q.config;
	if (optind < argc)
		return cli_usage_error(cmd, "unexpected argument '%s' (see --help)", argv[optind]);
	if (!c->platform)
		return cli_usage_error(cmd, "--platform is required (see --help)");
	if (!a->have_active && !a->model)
		return cli_usage_error(cmd, "give --model, or --active-params (with --model NAME to name a model the "
		                       "catalog does not have)");
	if (a->have_active && a->model) {
		/* A model of the user's own: its name finds the set's model
		 * terms (docs/calibration.md), its size is given. */
		wc_error err;
		if (wc_model_name_custom(a->model, c->active_params_b, c, &err) != WC_OK)
			return cli_usage_error(cmd, "--%s", err.msg);
	} else if (a->model) {
		wc_error err; /* a precision suffix sets the weights (docs/capacity.md, "Model names") */
		int mrc = wc_model_name_apply(a->model, a->have_weights, c, &err);
		if (mrc == WC_ENOTFOUND)
			return cli_model_unknown(cmd, a->model,
			                         "give its --active-params beside it");
		if (mrc != WC_OK)
			return cli_usage_error(cmd, "--%s", err.msg);
		a->arch = *wc_model_lookup(a->model);
		c->arch = &a->arch;
	}
	int rc = apply_architecture(cmd, a);
	if (rc != CLI_OK)
		return rc;
	if (a->have_in != a->have_out)
		return cli_usage_error(cmd, "give both --input-tokens and --output-tokens (or neither)");
	if (a->have_rate && !a->have_out)
		return cli_usage_error(cmd, "--rate needs --input-tokens and --output-tokens");
	/* The same limits of price and intensity as the capacity answers',
	 * the sweep's too, which takes the flags but uses neither (docs/cli.md). */
	wc_error err;
	if (wc_predict_money_check(a->price, a->co2, &err) != WC_OK) {
		/* the limit's words, the value quoted as given (docs/cli.md,
		 * "Conventions"): "2e6", not the 2000000 it parses to */
		const int co2 = strncmp(err.msg, "grams_co2_per_kwh:", 18) == 0;
		const char *why = strchr(err.msg, ':'), *got = strstr(err.msg, ", got ");
		if (why && got && a->money_text[co2])
			return cli_usage_error(cmd, "%s%.*s, got '%s'", co2 ? "--grams-co2-per-kwh" : "--price-per-kwh",
			                       (int)(got - why), why, a->money_text[co2]);
		return config_error(cmd, &err);
	}
	if (a->have_out && !c->arch)
		return cli_usage_error(cmd, "--model: the capacity answers need the architecture: a catalog model, or "
		                       "--layers, --kv-heads and --head-dim with --active-params");
	/* One load, as the route takes one (docs/http-api.md, "Errors"). */
	if (a->series_path && a->conc_text)
		return cli_usage_error(cmd, "--running-series: give exactly one of --concurrency and --running-series");
	if (a->series_path && a->have_rate)
		return cli_usage_error(cmd, "--running-series: give at most one of --rate and --running-series (each is "
		                       "the load)");
	/* The sweep's throughput is at one concurrency or rate: it takes no
	 * series and no idle, so it names only the loads it takes, in the
	 * route's words (docs/cli.md, "predict flexibility"). */
	if (a->flex && a->series_path && !a->conc_text && !a->have_rate)
		return cli_usage_error(cmd, "--running-series: the sweep needs throughput at one concurrency or rate; a "
		                       "series has neither");
	if (a->flex && !a->conc_text && !a->have_rate)
		return cli_usage_error(cmd, "--concurrency is required (> 0), or --rate: the sweep needs throughput");
	if (a->flex && a->conc_text && !a->have_rate && !(c->running > 0))
		return cli_usage_error(cmd, "--concurrency: must be > 0 (or give --rate): the sweep needs throughput; "
		                       "got '%s'", a->conc_text);
	if (!a->conc_text && !a->have_rate && !a->series_path)
		return cli_usage_error(cmd, "--concurrency is required (0 = idle), or --rate, or --running-series FILE");
	/* the engine's limit, a whole number (vLLM's max_num_seqs), as the
	 * envelope's --max-running (docs/cli.md, "predict inference") */
	if (a->have_rate && a->conc_text && !(c->running >= 1 && c->running == floor(c->running)))
		return cli_usage_error(cmd, "--concurrency: with --rate it is the engine's limit on running requests: a "
		                       "whole number >= 1, or leave it out for none; got '%s'", a->conc_text);
	if (a->params_path && a->profile)
		return cli_usage_error(cmd, "give at most one of --params and --profile");
	if (a->power_cap > 0 && c->sm_clock_mhz > 0)
		return cli_usage_error(cmd, "give at most one of --sm-clock and --power-cap");
	/* Each refusal names the flag that was wrong, in the route's words
	 * (docs/cli.md, "predict flexibility"; docs/http-api.md). */
	if (a->flex && (a->power_cap > 0 || c->sm_clock_mhz > 0))
		return cli_usage_error(cmd, "%s: the sweep sets the clock itself; leave it out",
		                       c->sm_clock_mhz > 0 ? "--sm-clock" : "--power-cap");
	if (a->flex && !a->have_out)
		return cli_usage_error(cmd, "the sweep needs --input-tokens and --output-tokens");
	c->tp = (int)a->tp;
	const char *flags[] = { "--csv", "--svg" }, *outs[] = { a->fo.csv, a->fo.svg }, *in[] = { a->params_path };
	return cli_check_outputs(cmd, flags, outs, 2, in, 1);
}

int
cli_unknown_platform(const char *cmd, const wc_params *params, const char *platform)
{
	char msg[WC_ERROR_MSG_MAX];
	wc_params_unknown_platform(params, "--platform", '\'', platform, NULL, msg);
	return cli_usage_error(cmd, "%s", msg);
}

/* A refusal of the configuration (field first, as the predictor words
 * it) becomes a usage error naming the flag: exit 2. */
static int
config_error(const char *cmd, const wc_error *err)
{
	static const char *const fields[][2] = {
		{ "tp", "--tp" }, { "concurrency", "--concurrency" }, { "running_series", "--running-series" },
		{ "running", "--concurrency" },
		{ "input_tokens", "--input-tokens" }, { "output_tokens", "--output-tokens" }, { "rate", "--rate" },
		{ "model", "--model" }, { "architecture", "--layers/--kv-heads/--head-dim" },
		{ "active_params_b", "--active-params" }, { "sm_clock_mhz", "--sm-clock" },
		{ "power_cap_w", "--power-cap" }, { "gpu_memory_utilization", "--gpu-memory-utilization" },
		{ "price_per_kwh", "--price-per-kwh" }, { "grams_co2_per_kwh", "--grams-co2-per-kwh" },
	};
	/* The architecture's facts each have a flag: name the one given (or
	 * --model, whose catalog entry holds the facts no flag sets). */
	static const char *const facts[][2] = {
		{ "layers", "--layers" }, { "kv_heads", "--kv-heads" }, { "head_dim", "--head-dim" },
		{ "d_model", "--d-model" }, { "attention_heads", "--attention-heads" }, { "experts", "--experts" },
		{ "experts_per_token", "--experts-per-token" }, { "total_params_b", "--total-params" },
		{ "cache_layers", "--cache-layers" }, { "sliding_window", "--sliding-window" },
		{ "active_params_b", "--active-params" },
	};
	static const char arch[] = "architecture/";
	if (err->code != WC_EINVAL)
		return cli_fail(cmd, "%s", err->msg);
	if (strncmp(err->msg, arch, sizeof arch - 1) == 0) {
		const char *fact = err->msg + sizeof arch - 1;
		size_t n = strcspn(fact, ":");
		for (size_t i = 0; i < sizeof facts / sizeof facts[0]; i++)
			if (strlen(facts[i][0]) == n && strncmp(fact, facts[i][0], n) == 0)
				return cli_usage_error(cmd, "%s%s", facts[i][1], fact + n);
		return cli_usage_error(cmd, "--model: %s", err->msg);
	}
	/* A remedy ending the message, a field and its value ("; or
	 * gpu_memory_utilization 0.94 or more"), names its flag too (docs/capacity.md, "Memory as vLLM does
	 * it"): the text up to it, the flag, and what follows. */
	char msg[2 * WC_ERROR_MSG_MAX];
	snprintf(msg, sizeof msg, "%s", err->msg);
	static const char remedy[] = "; or ";
	char *or = strstr(msg, remedy);
	for (size_t i = 0; or && i < sizeof fields / sizeof fields[0]; i++) {
		const char *at = or + sizeof remedy - 1;
		size_t n = strlen(fields[i][0]);
		if (strncmp(at, fields[i][0], n) == 0 && at[n] == ' ' && isdigit((unsigned char)at[n + 1])) {
			char tail[WC_ERROR_MSG_MAX];
			snprintf(tail, sizeof tail, "%s", at + n);
			snprintf(or, sizeof msg - (size_t)(or - msg), "%s%s%s", remedy, fields[i][1], tail);
			break;
		}
	}
	for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
		size_t n = strlen(fields[i][0]);
		if (strncmp(msg, fields[i][0], n) == 0 && (msg[n] == ':' || msg[n] == '/'))
			return cli_usage_error(cmd, "%s%s", fields[i][1], msg + n);
	}
	return cli_usage_error(cmd, "%s", msg);
}

/* Predict with `params` and print the answer as JSON or for people. */
static int
predict_and_print(const char *cmd, cli_predict_args *a, const wc_params *params)
{
	wc_predictor *pred = NULL;
	wc_inference_prediction out;
	wc_capacity_prediction cap;
	wc_error err;
	char version[17];
	double max_fit = NAN;
	int rc, want_cap = a->have_out;
	if (wc_predictor_new(params, &pred, &err) != WC_OK || wc_params_fingerprint(params, version, &err) != WC_OK) {
		rc = cli_fail(cmd, "%s", err.msg);
		goto done;
	}
	/* A clock the board cannot run at is refused with or without token
	 * lengths, as the server refuses it (docs/http-api.md, "Limits"). */
	a->q.power_cap_w = a->power_cap;
	if (wc_predict_settle_clock(pred, &a->q, &err) != WC_OK) {
		rc = config_error(cmd, &err);
		goto done;
	}
	char no_cap[WC_ERROR_MSG_MAX] = "";
	if (want_cap && wc_predict_capacity_settled(pred, &a->q, a->price, a->co2, &cap, &err) != WC_OK) {
		if (!wc_predict_capacity_absent(&err)) {
			rc = config_error(cmd, &err);
			goto done;
		}
		snprintf(no_cap, sizeof no_cap, "%s", err.msg); /* the power alone, said */
		want_cap = 0;
	}
	if (!want_cap && wc_predict_memory_check(params, &a->q.config, &max_fit, &err)) {
		rc = config_error(cmd, &err);
		goto done;
	}
	if (want_cap) {
		max_fit = cap.max_concurrency_fit;
		wc_predict_take_running(&a->q, &cap); /* the headline's power is the capacity answer's */
	}
	if (wc_predict_inference(pred, &a->q, &out, &err) != WC_OK) {
		rc = config_error(cmd, &err);
		goto done;
	}
	if (no_cap[0])
		wc_predict_note_no_capacity(&out, no_cap, &cap);
	if (want_cap) /* one quantity, one line (docs/capacity.md, "Warnings") */
		wc_predict_join_span_lines(&out, &cap);
	if (!want_cap) /* as the server says it (docs/http-api.md) */
		wc_predict_note_ignored(out.warnings, &out.n_warnings, a->price, a->co2, a->q.config.expert_parallel,
		                        !no_cap[0] ? WC_IGNORED_NO_LENGTHS
		                        : a->q.series_len ? WC_IGNORED_SERIES : WC_IGNORED_NO_LEVEL);
	if (a->json) {
		char *s = wc_render_inference(&a->q, &out, want_cap ? &cap : NULL, max_fit, version, 2, &err);
		if (!s) {
			rc = cli_fail(cmd, "%s", err.msg);
			goto done;
		}
		puts(s);
		free(s);
		rc = CLI_OK;
	} else {
		rc = print_human(&a->q, &out, params->name, version,
		                 want_cap ? (cap.level_source ? cap.level_source : "fitted") : NULL);
		if (want_cap)
			cli_print_capacity(&a->q.config, &cap);
		else if (isfinite(max_fit))
			printf("  max concurrency that fits %.0f\n", max_fit);
	}
done:
	wc_predictor_free(pred);
	return rc;
}

static int
predict_inference(int argc, char **argv, int flex)
{
	const char *cmd = flex ? "predict flexibility" : "predict inference";
	cli_predict_args a = { .cmd = cmd, .flex = flex, .fo = { 0, WC_FLEX_DEFAULT_STEPS, 0, NULL, NULL, config_error }, .q = { .config = WC_CONFIG_INIT, .want_interval = 1 }, .tp = 1, .price = NAN,
		           .co2 = NAN, .power_cap = 0 };
	int rc;
	wc_arch_facts_init(&a.facts); /* every fact "not given" */
	if ((rc = cli_predict_flags(argc, argv, &a)) != CLI_OK)
		return rc;
	if (a.help) {
		cli_subcommands_usage(&predict_commands, stdout);
		return CLI_OK;
	}
	if ((rc = check_predict_args(argc, argv, &a)) != CLI_OK)
		return rc;
	/* The runs table's n(t) file: each sample held until the next, the
	 * last for the median step (docs/inference-law.md, "Averaging over a
	 * load series"), as the server's samples each hold dt_s. */
	wc_error err;
	if (a.series_path) {
		if (wc_series_read(a.series_path, &a.series, &err) != WC_OK) {
			char msg[WC_ERROR_MSG_MAX];
			cli_flag_message(msg, sizeof msg, "--running-series", a.series_path, err.msg);
			return cli_fail(cmd, "%s", msg);
		}
		a.q.running_series = a.series.running;
		a.q.series_hold = a.series.weight;
		a.q.series_len = a.series.len;
	}

	wc_params params = WC_PARAMS_INIT;
	const char *asked = a.q.config.platform;
	if ((rc = cli_load_answer_params(cmd, a.params_path, a.profile, &params)) != CLI_OK) {
		wc_load_histogram_free(&a.series);
		return rc;
	}
	/* Without a level, a catalog platform is answered from its datasheet, under its name (docs/fitting.md). */
	if (!(a.q.config.platform = wc_params_platform(&params, asked)))
		rc = cli_unknown_platform(cmd, &params, asked);
	else if (flex) {
		a.fo.json = a.json;
		a.fo.price_per_kwh = a.price;
		a.fo.grams_co2_per_kwh = a.co2;
		rc = cli_flexibility_run(cmd, &params, &a.q, &a.fo);
	} else
		rc = predict_and_print(cmd, &a, &params);
	wc_params_clear(&params);
	wc_load_histogram_free(&a.series);
	return rc;
}

static int
predict_plain(int argc, char **argv)
{
	return predict_inference(argc, argv, 0);
}

static int
predict_flexibility(int argc, char **argv)
{
	return predict_inference(argc, argv, 1);
}

static const cli_subcommand predict_targets[] = {
	{ "inference", predict_plain,
	  "wattcast predict inference --platform NAME (--model NAME | --active-params B [--model NAME])\n"
	  "                                  (--concurrency N | --running-series FILE) [--tp G]\n"
	  "                                  [--weights bf16|fp8|int4]\n"
	  "                                  [--kv bf16|fp8] [--sm-clock MHZ | --power-cap W]\n"
	  "                                  [--input-tokens N --output-tokens N [--rate R]\n"
	  "                                   [--price-per-kwh X] [--grams-co2-per-kwh Y]\n"
	  "                                   [--gpu-memory-utilization U] [--expert-parallel]]\n"
	  "                                  [--layers L --kv-heads K --head-dim D\n"
	  "                                   [--attention-heads H | --d-model M]\n"
	  "                                   [--total-params B] [--experts E --experts-per-token k]\n"
	  "                                   [--cache-layers F --sliding-window W]]\n"
	  "                                  [--params FILE | --profile measured|paper|paper-prefill] [--json]\n"
	  "                                  [--engine vllm|sglang|tensorrt-llm|tgi|deepspeed-mii|transformers]" },
	{ "flexibility", predict_flexibility,
	  "wattcast predict flexibility (the flags of inference) [--sweep clock|power_cap]\n"
	  "                                    [--steps N] [--csv FILE] [--svg FILE]" },
	{ "finetune", cli_predict_finetune, "wattcast predict finetune --help   (fine-tuning energy)" },
};

static const cli_subcommands predict_commands = {
	.cmd = "predict", .noun = "target", .subs = predict_targets,
	.n = sizeof predict_targets / sizeof predict_targets[0], .about = predict_about,
};

int
cli_cmd_predict(int argc, char **argv)
{
	return cli_subcommands_run(&predict_commands, argc, argv);
}
