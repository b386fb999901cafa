/*
 * wattcast envelope: the band of the power trace a workload will draw
 * (docs/envelopes.md), for one server or a fleet, or, with --budget, the
 * largest fleet whose aggregate stays under a power budget.
 */
#include "cli_envelope.h"
#include "cli_replay.h"
#include "data/data.h"
#include "server/server.h"

#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

enum {
	OPT_PLATFORM = 1000, OPT_MODEL, OPT_ACTIVE, OPT_TP, OPT_WEIGHTS, OPT_KV, OPT_CLOCK, OPT_IDLE,
	OPT_PARAMS, OPT_PROFILE, OPT_SERVICE, OPT_ENGINE, OPT_CLOSED, OPT_POISSON, OPT_BURSTY, OPT_BURSTINESS, OPT_REPLAY,
	OPT_SERIES, OPT_RATE_PROFILE, OPT_INPUT, OPT_OUTPUT, OPT_THINK, OPT_MAXRUN, OPT_HORIZON,
	OPT_WARMUP, OPT_REPLICAS, OPT_SEED, OPT_THREADS, OPT_BIN, OPT_SAMPLE, OPT_TAU, OPT_HOLD, OPT_DECAY,
	OPT_RATIO, OPT_FLEET, OPT_FLEET_MODE, OPT_BUDGET, OPT_BUDGET_STAT, OPT_MAX_FLEET,
	OPT_BUDGET_BIN, OPT_JSON, OPT_CSV, OPT_SVG, OPT_MEASURED, OPT_UTC
};

typedef struct {
	wc_config c;
	const char *params, *profile, *model;
	wc_service_choice service;
	wc_envelope_workload w;
	int kinds;                      /* workload flags given */
	const char *replay, *series, *input_spec, *output_spec, *rate_profile;
	wc_envelope_options o;
	double tau, hold, decay, ratio; /* NaN: from the parameter set */
	int budget;
	wc_budget_options bo;
	int json;
	const char *csv, *svg, *measured;
	wc_run_manifest defaults;
	cli_measured_window win;        /* --measured: the run replayed */
	int horizon_given, replicas_given, tp_given, once; /* once: a workload drawing nothing */
	int weights_given, active_given; /* --weights, --active-params */
	int bin_given, budget_bin_given, sample_given; /* --bin, --budget-bin, --sample */
	const char *rate_text;          /* --poisson/--bursty RATE as given ("profile": --rate-profile's) */
	char given[OPT_UTC - OPT_PLATFORM + 1];          /* by option: given */
} env_args;

static int
set_kind(const char *cmd, env_args *a, wc_envelope_kind k, const char *flag)
{
	if (a->kinds++)
		return cli_usage_error(cmd, "%s: give exactly one workload (--closed, --poisson, --bursty, "
		                       "--replay, --n-series)", flag);
	a->w.kind = k;
	return CLI_OK;
}

static int
parse_config_flag(const char *cmd, int opt, env_args *a)
{
	long v;
	int rc = CLI_OK;
	switch (opt) {
	case OPT_PLATFORM: a->c.platform = optarg; break;
	case OPT_MODEL: a->model = optarg; break;
	case OPT_ACTIVE:
		rc = cli_parse_double_max(cmd, "--active-params", optarg, WC_MODEL_MIN_PARAMS_B, 1, WC_MODEL_MAX_PARAMS_B, &a->c.active_params_b);
		a->active_given = 1;
		break;
	case OPT_TP: rc = cli_parse_int(cmd, "--tp", optarg, 1, WC_LAW_MAX_TP, &v); a->c.tp = (int)v; a->tp_given = 1; break;
	case OPT_WEIGHTS:
		if (wc_precision_from_name(optarg, &a->c.weights) != WC_OK)
			rc = cli_usage_error(cmd, "--weights: expected bf16, fp8 or int4, got '%s'", optarg);
		a->weights_given = 1;
		break;
	case OPT_KV:
		if (wc_precision_from_name(optarg, &a->c.kv) != WC_OK || a->c.kv == WC_PREC_INT4)
			rc = cli_usage_error(cmd, "--kv: expected bf16 or fp8, got '%s'", optarg);
		break;
	case OPT_CLOCK: rc = cli_parse_double(cmd, "--sm-clock", optarg, 0, 0, &a->c.sm_clock_mhz); break;
	case OPT_IDLE: rc = cli_parse_double(cmd, "--idle-power", optarg, 0, 0, &a->c.idle_power_w); break;
	case OPT_PARAMS: a->params = optarg; break;
	case OPT_PROFILE: a->profile = optarg; break;
	case OPT_ENGINE: rc = cli_parse_engine(cmd, optarg, &a->c.engine); break; /* docs/capacity.md, "Serving stacks" */
	case OPT_SERVICE:
		if (wc_service_choice_from_name(optarg, &a->service) != WC_OK)
			rc = cli_usage_error(cmd, "--service: expected auto, capacity or standin, got '%s'", optarg);
		break;
	}
	return rc;
}

static int
parse_workload_flag(const char *cmd, int opt, env_args *a)
{
	int rc = CLI_OK;
	switch (opt) {
	case OPT_CLOSED:
		if ((rc = set_kind(cmd, a, WC_ENVELOPE_CLOSED, "--closed")) == CLI_OK)
			rc = cli_parse_double(cmd, "--closed", optarg, 1, 1, &a->w.concurrency);
		break;
	case OPT_POISSON:
	case OPT_BURSTY: {
		const char *flag = opt == OPT_POISSON ? "--poisson" : "--bursty";
		a->rate_text = optarg;
		if ((rc = set_kind(cmd, a, opt == OPT_POISSON ? WC_ENVELOPE_POISSON : WC_ENVELOPE_BURSTY, flag)) ==
		            CLI_OK && strcmp(optarg, "profile") != 0)
			rc = cli_parse_double(cmd, flag, optarg, 0, 0, &a->w.rate);
		break;
	}
	case OPT_BURSTINESS:
		rc = cli_parse_range(cmd, "--burstiness", optarg, WC_ENVELOPE_MIN_BURSTINESS, WC_ENVELOPE_MAX_BURSTINESS,
		                     &a->w.burstiness);
		break;
	case OPT_REPLAY:
		if ((rc = set_kind(cmd, a, WC_ENVELOPE_REPLAY, "--replay")) == CLI_OK)
			a->replay = optarg;
		break;
	case OPT_SERIES:
		if ((rc = set_kind(cmd, a, WC_ENVELOPE_SERIES, "--n-series")) == CLI_OK)
			a->series = optarg;
		break;
	case OPT_RATE_PROFILE: a->rate_profile = optarg; break;
	case OPT_INPUT: a->input_spec = optarg; break;
	case OPT_OUTPUT: a->output_spec = optarg; break;
	case OPT_THINK: rc = cli_parse_double(cmd, "--think", optarg, 0, 1, &a->w.think_s); break;
	}
	return rc;
}

static int
parse_run_flag(const char *cmd, int opt, env_args *a)
{
	long v;
	int rc = CLI_OK;
	wc_envelope_options *o = &a->o;
	switch (opt) {
	case OPT_MAXRUN: rc = cli_parse_int(cmd, "--max-running", optarg, 1, WC_ENVELOPE_MAX_RUNNING, &v); o->max_running = (int)v; break;
	case OPT_HORIZON:
		a->horizon_given = 1;
		rc = cli_parse_double(cmd, "--horizon", optarg, 0, 0, &o->horizon_s);
		break;
	case OPT_WARMUP: rc = cli_parse_double(cmd, "--warmup", optarg, 0, 1, &o->warmup_s); break;
	case OPT_REPLICAS:
		a->replicas_given = 1;
		rc = cli_parse_int(cmd, "--replicas", optarg, 1, WC_ENVELOPE_MAX_REPLICAS, &v);
		o->replicas = (int)v;
		break;
	case OPT_SEED: rc = cli_parse_u64(cmd, "--seed", optarg, &o->seed); break;
	case OPT_THREADS: rc = cli_parse_threads(cmd, optarg, &v); o->threads = (int)v; break;
	case OPT_BIN:
		a->bin_given = 1;
		rc = cli_parse_double(cmd, "--bin", optarg, 0, 0, &o->bin_s);
		break;
	case OPT_SAMPLE:
		a->sample_given = 1;
		rc = cli_parse_double(cmd, "--sample", optarg, 0, 0, &o->sample_s);
		break;
	case OPT_TAU: rc = cli_parse_double(cmd, "--tau", optarg, 0, 1, &a->tau); break;
	case OPT_HOLD: rc = cli_parse_double(cmd, "--hold", optarg, 0, 1, &a->hold); break;
	case OPT_DECAY: rc = cli_parse_double(cmd, "--decay", optarg, 0, 1, &a->decay); break;
	case OPT_RATIO: rc = cli_parse_double(cmd, "--prefill-ratio", optarg, 0, 1, &a->ratio); break;
	case OPT_FLEET: rc = cli_parse_int(cmd, "--fleet", optarg, 1, WC_ENVELOPE_MAX_FLEET, &v); o->fleet_size = (int)v; break;
	case OPT_FLEET_MODE:
		if (wc_fleet_mode_from_name(optarg, &o->fleet_mode) != WC_OK)
			rc = cli_usage_error(cmd, "--fleet-mode: expected independent, round_robin or least_loaded, got '%s'",
			                     optarg);
		break;
	case OPT_BUDGET: a->budget = 1; rc = cli_parse_double_max(cmd, "--budget", optarg, 0, 0, WC_BUDGET_MAX_W, &a->bo.budget_w); break;
	case OPT_BUDGET_STAT:
		if (strcmp(optarg, "p95") && strcmp(optarg, "max"))
			return cli_usage_error(cmd, "--budget-stat: expected p95 or max, got '%s'", optarg);
		a->bo.stat = strcmp(optarg, "max") == 0 ? WC_BUDGET_MAX : WC_BUDGET_P95;
		break;
	case OPT_MAX_FLEET: rc = cli_parse_int(cmd, "--max-fleet", optarg, 1, WC_ENVELOPE_MAX_FLEET, &v); a->bo.max_fleet = (int)v; break;
	case OPT_BUDGET_BIN:
		a->budget_bin_given = 1;
		rc = cli_parse_double(cmd, "--budget-bin", optarg, 0, 0, &a->bo.bin_s);
		break;
	case OPT_JSON: a->json = 1; break;
	case OPT_CSV: a->csv = optarg; break;
	case OPT_SVG: a->svg = optarg; break;
	case OPT_MEASURED: a->measured = optarg; break;
	case OPT_UTC: rc = cli_run_default_flag(cmd, "utc-offset", optarg, &a->defaults); break;
	}
	return rc;
}

static const struct option env_opts[] = {
	{ "platform", 1, NULL, OPT_PLATFORM }, { "model", 1, NULL, OPT_MODEL },
	{ "active-params", 1, NULL, OPT_ACTIVE }, { "tp", 1, NULL, OPT_TP }, { "weights", 1, NULL, OPT_WEIGHTS },
	{ "kv", 1, NULL, OPT_KV }, { "sm-clock", 1, NULL, OPT_CLOCK }, { "idle-power", 1, NULL, OPT_IDLE },
	{ "params", 1, NULL, OPT_PARAMS }, { "profile", 1, NULL, OPT_PROFILE }, { "service", 1, NULL, OPT_SERVICE },
	{ "engine", 1, NULL, OPT_ENGINE },
	{ "closed", 1, NULL, OPT_CLOSED },
	{ "poisson", 1, NULL, OPT_POISSON }, { "bursty", 1, NULL, OPT_BURSTY },
	{ "burstiness", 1, NULL, OPT_BURSTINESS }, { "replay", 1, NULL, OPT_REPLAY },
	{ "n-series", 1, NULL, OPT_SERIES }, { "rate-profile", 1, NULL, OPT_RATE_PROFILE },
	{ "input-tokens", 1, NULL, OPT_INPUT }, { "output-tokens", 1, NULL, OPT_OUTPUT },
	{ "think", 1, NULL, OPT_THINK }, { "max-running", 1, NULL, OPT_MAXRUN }, { "horizon", 1, NULL, OPT_HORIZON },
	{ "warmup", 1, NULL, OPT_WARMUP }, { "replicas", 1, NULL, OPT_REPLICAS }, { "seed", 1, NULL, OPT_SEED },
	{ "threads", 1, NULL, OPT_THREADS }, { "bin", 1, NULL, OPT_BIN }, { "sample", 1, NULL, OPT_SAMPLE },
	{ "tau", 1, NULL, OPT_TAU }, { "hold", 1, NULL, OPT_HOLD }, { "decay", 1, NULL, OPT_DECAY }, { "prefill-ratio", 1, NULL, OPT_RATIO },
	{ "fleet", 1, NULL, OPT_FLEET }, { "fleet-mode", 1, NULL, OPT_FLEET_MODE }, { "budget", 1, NULL, OPT_BUDGET },
	{ "budget-stat", 1, NULL, OPT_BUDGET_STAT }, { "max-fleet", 1, NULL, OPT_MAX_FLEET },
	{ "budget-bin", 1, NULL, OPT_BUDGET_BIN }, { "json", 0, NULL, OPT_JSON }, { "csv", 1, NULL, OPT_CSV },
	{ "svg", 1, NULL, OPT_SVG }, { "measured", 1, NULL, OPT_MEASURED }, { "utc-offset", 1, NULL, OPT_UTC },
	{ "help", 0, NULL, 'h' }, { NULL, 0, NULL, 0 },
};

static int
check_args(const char *cmd, env_args *a)
{
	wc_error err;
	if (a->measured && cli_measured_identity(a->measured, &a->defaults, &a->c.platform, &a->model,
	                                         &a->c.active_params_b, &err) != WC_OK)
		return cli_fail(cmd, "%s", err.msg);
	if (!a->c.platform)
		return cli_usage_error(cmd, "--platform is required (see --help)");
	if (!a->model && !(a->c.active_params_b > 0))
		return cli_usage_error(cmd, "--model NAME or --active-params B is required");
	if (a->model && a->c.active_params_b > 0 && !a->active_given)
		return cli_usage_error(cmd, "give one of --model and --active-params");
	if (!a->kinds && !a->measured)
		return cli_usage_error(cmd, "give a workload: --closed, --poisson, --bursty, --replay, --n-series "
		                       "or --measured RUN_DIR");
	if (a->params && a->profile)
		return cli_usage_error(cmd, "give at most one of --params and --profile");
	if (cli_envelope_rate_source(cmd, a->w.kind, a->rate_text, a->rate_profile) != CLI_OK)
		return CLI_USAGE;
	if (cli_envelope_excludes(cmd, a->budget, a->csv || a->svg, a->measured != NULL, a->replicas_given, &a->o))
		return CLI_USAGE;
	/* `--service auto` is the default and chooses nothing for an n(t): it
	 * passes as the routes' "service": "auto" does (docs/cli.md). */
	for (const struct option *op = env_opts; op->name; op++)
		if (op->val >= OPT_PLATFORM && a->given[op->val - OPT_PLATFORM] &&
		    !(op->val == OPT_SERVICE && a->service == WC_SERVICE_AUTO) &&
		    cli_envelope_flag_applies(cmd, op->name, a->measured && !a->kinds ? WC_ENVELOPE_REPLAY : a->w.kind,
		                              a->budget, a->o.fleet_size) != CLI_OK)
			return CLI_USAGE;
	const char *in[] = { a->params, a->replay, a->series,
		a->input_spec && !strncmp(a->input_spec, "empirical:", 10) ? a->input_spec + 10 : NULL,
		a->output_spec && !strncmp(a->output_spec, "empirical:", 10) ? a->output_spec + 10 : NULL };
	const char *flags[] = { "--csv", "--svg" }, *outs[] = { a->csv, a->svg };
	return cli_check_outputs(cmd, flags, outs, 2, in, 5);
}

static int
parse(int argc, char **argv, env_args *a, int *help)
{
	const char *cmd = "envelope";
	int opt, rc = CLI_OK;
	cli_reset_getopt();
	while ((opt = cli_getopt(argc, argv, ":h", env_opts, NULL)) != -1) {
		if (opt == 'h') {
			fputs(cli_envelope_usage, stdout);
			*help = 1;
			return CLI_OK;
		}
		if (opt == ':' || opt == '?' || opt == CLI_OPT_EMPTY || opt == CLI_OPT_NOT_UTF8)
			return cli_bad_option(cmd, opt, argv);
		a->given[opt - OPT_PLATFORM] = 1;
		if (opt < OPT_CLOSED)
			rc = parse_config_flag(cmd, opt, a);
		else if (opt < OPT_MAXRUN)
			rc = parse_workload_flag(cmd, opt, a);
		else
			rc = parse_run_flag(cmd, opt, a);
		if (rc != CLI_OK)
			return rc;
	}
	if (optind < argc)
		return cli_usage_error(cmd, "unexpected argument '%s' (see --help)", argv[optind]);
	return check_args(cmd, a);
}

/* ------------------------------------------------------ the workload */
static int
build_workload(const char *cmd, env_args *a, cli_envelope_inputs *in)
{
	wc_envelope_workload *w = &a->w;
	int rc;
	if ((a->input_spec && (rc = cli_parse_length(cmd, "--input-tokens", a->input_spec, 0, &w->input, in))) ||
	    (a->output_spec && (rc = cli_parse_length(cmd, "--output-tokens", a->output_spec, 1, &w->output, in))))
		return rc;
	if (a->rate_profile) {
		if (cli_parse_rate_profile(cmd, a->rate_profile, in) != CLI_OK)
			return CLI_USAGE;
		w->n_profile = in->n_profile;
		w->profile_until_s = in->profile_until;
		w->profile_rate = in->profile_rate;
	}
	if (a->replay && cli_read_replay(cmd, a->replay, w, a->o.horizon_s, a->input_spec, a->output_spec, in) != CLI_OK)
		return CLI_FAIL;
	if (a->series && cli_read_series(cmd, a->series, in, w) != CLI_OK)
		return CLI_FAIL;
	wc_error err;
	if (a->measured && !a->kinds) {
		w->kind = WC_ENVELOPE_REPLAY; /* the run's own, once the parameters are loaded */
		return CLI_OK;
	}
	if (wc_envelope_workload_check(w, &err) != WC_OK)
		return cli_envelope_usage_from_field(cmd, a->w.kind, err.msg);
	return CLI_OK;
}

/* ------------------------------------------------------ the run:
 * the configuration, power map, service times and response. */
typedef struct {
	wc_params p;
	wc_response_params resp;
	const char *resp_source;
	wc_power_map_law store;
	wc_power_map pm;
	wc_service_store service;
	wc_service_times st;
	char version[17];
} env_setup;

static int
setup(const char *cmd, env_args *a, env_setup *s)
{
	wc_error err;
	int rc;
	if ((rc = cli_load_answer_params(cmd, a->params, a->profile, &s->p)) != CLI_OK)
		return rc;
	const char *level = wc_params_platform(&s->p, a->c.platform); /* as answers spell it */
	if (!level) /* which boards would answer, as predict lists them */
		return cli_unknown_platform(cmd, &s->p, a->c.platform);
	a->c.platform = level;
	if (a->model && a->active_given) { /* a model of the user's own, as predict takes it */
		if (wc_model_name_custom(a->model, a->c.active_params_b, &a->c, &err) != WC_OK)
			return cli_usage_error(cmd, "--%s", err.msg);
	} else if (a->model) {
		/* The name's precision suffix sets the weights (docs/capacity.md, "Model
		 * names"); the set's model term shifts z (docs/calibration.md), as on HTTP. */
		int mrc = wc_model_name_apply(a->model, a->weights_given, &a->c, &err);
		if (mrc == WC_ENOTFOUND)
			return cli_model_unknown(cmd, a->model, "give its --active-params beside it");
		if (mrc != WC_OK)
			return cli_usage_error(cmd, "--%s", err.msg);
	}
	wc_response_effective(&s->p.response, &s->resp);
	s->resp_source = s->p.response.present && s->p.response.fitted ? "fitted" : "assumed";
	if (!isnan(a->tau) || !isnan(a->hold) || !isnan(a->decay) || !isnan(a->ratio))
		s->resp_source = "request";
	s->resp.tau_s.value = wc_response_tau_for(&s->resp, a->c.platform);
	if (!isnan(a->tau))
		s->resp.tau_s.value = a->tau;
	if (!isnan(a->hold))
		s->resp.hold_s.value = a->hold;
	if (!isnan(a->decay))
		s->resp.decay_s.value = a->decay;
	if (!isnan(a->ratio))
		s->resp.prefill_ratio.value = a->ratio;
	if (wc_response_validate(&s->resp, &err) != WC_OK)
		return cli_envelope_usage_from_field(cmd, a->w.kind, err.msg);
	a->o.tau_s = s->resp.tau_s.value;
	a->o.hold_s = s->resp.hold_s.value;
	/* neither fitted nor given: a hold that moves mean_w is said (docs/envelopes.md, "Assumed response") */
	a->o.hold_assumed = !(s->p.response.present && s->p.response.fitted) && isnan(a->hold);
	a->o.decay_s = s->resp.decay_s.value;
	/* 1e999 meets the clock range 1e300 meets, not the law's finite-only rule */
	if ((isinf(a->c.sm_clock_mhz) && wc_predict_clock_check(&s->p, &a->c, &err) != WC_OK) ||
	    wc_power_map_from_law(&s->p, &a->c, &s->resp, &s->store, &s->pm, &err) != WC_OK)
		return cli_envelope_config_error(cmd, a->w.kind, err.msg);
	if ((rc = wc_service_select_workload(&s->p, &a->c, &a->w, a->service, &s->service, &s->st, &err)) != WC_OK)
		return strncmp(err.msg, "service:", 8) == 0 ? cli_usage_error(cmd, "--%s", err.msg)
		                                            : cli_envelope_config_error(cmd, a->w.kind, err.msg);
	if (wc_params_fingerprint(&s->p, s->version, &err) != WC_OK)
		return cli_fail(cmd, "%s", err.msg);
	return CLI_OK;
}

/* --measured: the run's own arrivals, lengths and window replace the
 * workload and the horizon (docs/envelopes.md, "Replaying a measured run"). */
static int
use_measured(const char *cmd, env_args *a, env_setup *s, cli_envelope_inputs *in)
{
	wc_error err;
	int rc;
	if (!a->defaults.platform[0])
		snprintf(a->defaults.platform, sizeof a->defaults.platform, "%s", a->c.platform);
	if (!a->defaults.model[0] && a->model)
		snprintf(a->defaults.model, sizeof a->defaults.model, "%s", a->model);
	cli_measured_unused_note(cmd, a->kinds, a->horizon_given, a->given[OPT_WARMUP - OPT_PLATFORM], a->sample_given);
	if ((rc = cli_load_measured(cmd, a->measured, &a->defaults, &s->p, a->o.max_running, a->service, in, &a->w,
	                            &a->win)) != CLI_OK)
		return rc;
	const cli_measured_given g = { a->tp_given, a->given[OPT_CLOCK - OPT_PLATFORM], a->weights_given,
		                       a->given[OPT_KV - OPT_PLATFORM],
		                       !a->given[OPT_MODEL - OPT_PLATFORM] && !a->active_given };
	int same_board = cli_measured_config(cmd, &a->win, &g, a->model, &a->c, in);
	/* The run's own idle, as `validate envelope` takes it, unless given or
	 * measured on another board than the one predicted. */
	if (same_board && !(a->c.idle_power_w > 0) && isfinite(a->win.idle_w) && a->win.idle_w > 0)
		a->c.idle_power_w = a->win.idle_w;
	/* 1e999 meets the clock range 1e300 meets, not the law's finite-only rule */
	if ((isinf(a->c.sm_clock_mhz) && wc_predict_clock_check(&s->p, &a->c, &err) != WC_OK) ||
	    wc_power_map_from_law(&s->p, &a->c, &s->resp, &s->store, &s->pm, &err) != WC_OK)
		return cli_fail(cmd, "%s", err.msg);
	a->o.horizon_s = a->win.horizon_s;
	a->o.warmup_s = a->win.warmup_s;
	a->o.sample_s = a->win.sample_s;
	a->o.bin_s = wc_envelope_bin_within(a->o.bin_s, a->o.horizon_s); /* the run's window, not the user's */
	wc_envelope_workload_window(&a->w, a->o.horizon_s);
	if (wc_envelope_workload_check(&a->w, &err) != WC_OK)
		return cli_fail_flag_path(cmd, "--measured", a->measured, ": %s", err.msg);
	/* Chosen again: the run's GPU count may have changed the group. */
	if ((rc = wc_service_select(&s->p, &a->c, a->service, &s->service, &s->st, &err)) != WC_OK)
		return cli_fail(cmd, "%s", err.msg);
	return CLI_OK;
}

static void
print_header(const env_args *a, const env_setup *s)
{
	char reps[160];
	cli_envelope_runs_text(&a->w, &a->o, a->budget, a->once, reps, sizeof reps);
	printf("envelope: %s on %d x %s, %s workload, %g s%s\n", a->model ? a->model : "model", a->c.tp, a->c.platform,
	       wc_envelope_kind_name(a->w.kind), a->o.horizon_s, reps);
	const wc_capacity_service_store *cs = &s->service.capacity;
	if (a->w.kind == WC_ENVELOPE_SERIES)
		printf("service times: none (explicit n(t))\n");
	else if (s->service.is_capacity) /* capacity, or capacity_datasheet on a board without a level */
		printf("service times: %s (level %s: eta %.3g, t0 %.3g ms, t1 %.3g ms, eta_c %.3g, tau %.3g us, "
		       "tau_ep %.3g us)\n", s->st.source, cs->level, cs->point.eta, 1e3 * cs->point.t0, 1e3 * cs->point.t1,
		       cs->point.etac, 1e6 * cs->point.tau, 1e6 * cs->point.tau_ep);
	else
		printf("service times: %s (assumed: %g of memory bandwidth, %g of BF16 peak, %g ms per step)\n",
		       s->st.source, WC_STANDIN_BW_EFFICIENCY, WC_STANDIN_FLOPS_EFFICIENCY,
		       1e3 * WC_STANDIN_STEP_OVERHEAD_S);
	const char *notes[WC_ENVELOPE_SETUP_WARNINGS];
	for (int i = 0, n = wc_envelope_setup_warnings(&s->pm, &s->service, &a->w, notes, WC_ENVELOPE_SETUP_WARNINGS); i < n; i++)
		printf("warning: %s\n", notes[i]);
	const int level = s->pm.prefill_level_w > 0; /* a prefill-aware law's level, else an increment */
	printf("power: %s (P0 %.1f W/GPU, prefill %s%.1f W/GPU%s)", s->pm.source, s->pm.idle_w, level ? "up to " : "+",
	       level ? s->pm.prefill_level_w : s->pm.prefill_w, level ? " above it" : "");
	if (s->pm.max_w > 0 && isfinite(s->pm.max_w))
		printf(", no 1-s mean above %.0f W/GPU", s->pm.max_w);
	printf("; response: tau %.3g s, hold %.3g s, decay %.3g s, prefill ratio %.3g", a->o.tau_s, a->o.hold_s,
	       a->o.decay_s, s->resp.prefill_ratio.value);
	if (wc_response_dynamic_scale(&s->resp) != 1.0)
		printf(", dynamic scale %.3g", wc_response_dynamic_scale(&s->resp));
	printf(" (%s); params %s (%s, level %s)\n", s->resp_source, s->version, s->pm.profile,
	       s->pm.level_source[0] ? s->pm.level_source : "-");
}

static wc_envelope_render
render_ctx(const env_args *a, const env_setup *s)
{
	wc_envelope_render r = { &a->c, &a->w, &a->o, &s->resp, s->resp_source, &s->pm, &s->st,
		                 s->version, 1, a->w.kind == WC_ENVELOPE_SERIES ? NULL : &s->service };
	return r;
}

static int
run_budget(const char *cmd, env_args *a, env_setup *s, const cli_envelope_inputs *in)
{
	wc_budget_plan plan;
	wc_error err;
	double t0 = cli_now_s();
	if (wc_envelope_budget(&a->w, &s->st, &s->pm, &a->o, &a->bo, &plan, &err) != WC_OK) {
		/* flags': the plan's memory bound on max_fleet x bins is refused
		 * before any work, as the envelope's is */
		static const char *const own[] = { "budget_w:", "stat:", "max_fleet:", "budget_bin_s:", "fleet_mode:" };
		for (size_t i = 0; i < sizeof own / sizeof own[0]; i++)
			if (strncmp(err.msg, own[i], strlen(own[i])) == 0)
				return cli_envelope_usage_from_field(cmd, a->w.kind, err.msg);
		return cli_envelope_run_refused(cmd, a->measured, a->w.kind, &err);
	}
	cli_envelope_name_warnings(a->measured, plan.warnings, plan.n_warnings);
	wc_envelope_load_notes(&s->p, &a->c, &a->w, &s->service, &s->pm, plan.judged_running);
	double secs = cli_now_s() - t0;
	if (a->json) {
		wc_envelope_render r = render_ctx(a, s);
		char *t = wc_render_budget(&r, &a->bo, &plan, 2, &err);
		if (t && !(t = cli_envelope_json_warnings(t, in)))
			wc_error_set(&err, WC_ENOMEM, "envelope: out of memory");
		if (!t)
			return cli_fail(cmd, "%s", err.msg);
		puts(t);
		free(t);
		return CLI_OK;
	}
	print_header(a, s);
	cli_print_budget_plan(&a->bo, &plan, wc_envelope_fleet_mode_label(plan.lockstep, a->o.fleet_mode), secs,
	                      &s->pm);
	return CLI_OK;
}

static int
run_forecast(const char *cmd, env_args *a, env_setup *s, cli_envelope_inputs *in)
{
	wc_envelope_result res;
	wc_error err;
	int rc = CLI_OK;
	/* validate envelope's rule (docs/validation.md, "Envelopes") */
	if (wc_envelope_run_once_if_fixed(&a->w, &s->st, &s->pm, &a->o, &res, &err) != WC_OK)
		return cli_envelope_run_refused(cmd, a->measured, a->w.kind, &err);
	cli_envelope_name_warnings(a->measured, res.warnings, res.n_warnings);
	wc_envelope_load_notes(&s->p, &a->c, &a->w, &s->service, &s->pm, res.server.mean_running.value);
	if ((a->once = res.replicas < a->o.replicas))
		a->o.replicas = 1; /* as the JSON's config says it */
	if (a->json) {
		wc_envelope_render r = render_ctx(a, s);
		char *t = wc_render_envelope(&r, &res, 2, &err);
		if (t && a->measured) {
			char *m = cli_measured_json(t, &a->win, a->w.n_arrivals);
			free(t);
			if (!(t = m))
				wc_error_set(&err, WC_ENOMEM, "envelope: out of memory");
		}
		if (t && !(t = cli_envelope_json_warnings(t, in)))
			wc_error_set(&err, WC_ENOMEM, "envelope: out of memory");
		if (t)
			puts(t);
		else
			rc = cli_fail(cmd, "%s", err.msg);
		free(t);
	} else {
		print_header(a, s);
		if (a->measured)
			printf("measured: %s, its own %zu arrivals (from %s) over its window of %g s (%g s warm-up "
			       "first)%s\n", a->win.run_id, a->w.n_arrivals, a->win.arrival_source, a->o.horizon_s,
			       a->o.warmup_s,
			       a->win.runs > 1 || a->win.run_folders > 1 ? "; the folder's first window" : "");
		cli_print_envelope_summary("one server", &res.server, res.replicas, &a->o,
		                           a->measured ? &a->win.metrics : NULL);
		cli_print_envelope_interval(&res.server_interval, &s->pm);
		if (res.fleet_size > 1) {
			char title[64];
			snprintf(title, sizeof title, "fleet of %d (%s)", res.fleet_size,
			         wc_envelope_fleet_mode_label(res.lockstep, res.fleet_mode));
			cli_print_envelope_summary(title, &res.fleet, res.replicas, &a->o, NULL);
			cli_print_envelope_interval(&res.fleet_interval, &s->pm);
			printf("  %-28s %12.5g W\n", "peak_w (every replica)", res.fleet_peak_w);
		}
		for (int i = 0; i < res.n_warnings; i++)
			printf("warning: %s\n", res.warnings[i]);
	}
	if (rc == CLI_OK && a->csv)
		rc = cli_write_band_csv(cmd, a->csv, &res, in);
	if (rc == CLI_OK && a->svg) {
		char title[160];
		snprintf(title, sizeof title, "%s on %d x %s, %s: %s band", a->model ? a->model : "model", a->c.tp,
		         a->c.platform, wc_envelope_kind_name(a->w.kind),
		         res.fleet_size > 1 && !a->measured ? "fleet" : "server"); /* cli_write_band_svg */
		rc = cli_write_band_svg(cmd, a->svg, &res, in, a->o.horizon_s, title);
	}
	wc_envelope_result_clear(&res);
	return rc;
}

int
cli_cmd_envelope(int argc, char **argv)
{
	const char *cmd = "envelope";
	env_args a;
	env_setup s = { .p = WC_PARAMS_INIT };
	cli_envelope_inputs in = { 0 };
	int help = 0, rc;
	memset(&a, 0, sizeof a);
	a.c = (wc_config)WC_CONFIG_INIT;
	wc_envelope_workload_init(&a.w);
	wc_envelope_options_init(&a.o);
	a.tau = a.hold = a.decay = a.ratio = NAN;
	a.bo = (wc_budget_options){ 0, WC_BUDGET_P95, 1000, 1.0 };
	wc_run_manifest_init(&a.defaults);
	if ((rc = parse(argc, argv, &a, &help)) != CLI_OK || help)
		return rc;
	gsl_set_error_handler_off();
	if ((rc = build_workload(cmd, &a, &in)) != CLI_OK || (rc = setup(cmd, &a, &s)) != CLI_OK ||
	    (a.measured && (rc = use_measured(cmd, &a, &s, &in)) != CLI_OK))
		goto done;
	/* default bins fit a short horizon (given ones are checked as given) */
	if (!a.bin_given)
		a.o.bin_s = wc_envelope_bin_within(a.o.bin_s, a.o.horizon_s);
	if (!a.budget_bin_given)
		a.bo.bin_s = wc_envelope_bin_within(a.bo.bin_s, a.o.horizon_s);
	if (!a.sample_given)
		a.o.sample_s = wc_envelope_sample_within(a.o.sample_s, a.o.horizon_s);
	wc_error err;
	if (wc_envelope_options_check(&a.o, &err) != WC_OK) {
		rc = cli_envelope_usage_from_field(cmd, a.w.kind, err.msg);
		goto done;
	}
	if ((rc = cli_envelope_memory_check(cmd, &a.w, &a.o, a.json && !a.budget)) != CLI_OK ||
	    (rc = cli_envelope_work_check(cmd, &a.w, &a.o, a.w.kind == WC_ENVELOPE_SERIES ? NULL : &s.st,
	                                  a.budget ? &a.bo : NULL, &s.pm)) != CLI_OK)
		goto done;
	wc_service_calibration_notes(&s.p, &a.c, &a.w, &s.service, &s.pm); /* the workload is final */
	rc = a.budget ? run_budget(cmd, &a, &s, &in) : run_forecast(cmd, &a, &s, &in);
done:
	cli_envelope_inputs_free(&in);
	wc_params_clear(&s.p);
	return rc;
}
