/*
 * `wattcast envelope`'s help text, and its refusals in the flags' words: a
 * library message names the option's field ("horizon_s: ..."), the
 * command line names the flag (cli/cmd_envelope.c uses both).
 */
#include "cli_envelope.h"

#include "server/server.h"

#include <math.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

const char cli_envelope_usage[] =
	"usage: wattcast envelope --platform NAME (--model NAME | --active-params B [--model NAME]) [--tp G]\n"
	"                         (--closed N | --poisson RATE | --bursty RATE [--burstiness B]\n"
	"                          | --replay REQUESTS_FILE | --n-series FILE | --measured RUN_DIR)\n"
	"                         [--rate-profile UNTIL:RATE,...] [--input-tokens SPEC]\n"
	"                         [--output-tokens SPEC] [--think S] [--max-running N]\n"
	"                         [--horizon S] [--warmup S] [--replicas R] [--seed S] [--threads T]\n"
	"                         [--bin S] [--sample S] [--tau S] [--hold S] [--decay S] [--prefill-ratio X]\n"
	"                         [--fleet K] [--fleet-mode independent|round_robin|least_loaded]\n"
	"                         [--budget W [--budget-stat p95|max] [--max-fleet K] [--budget-bin S]]\n"
	"                         [--weights bf16|fp8|int4] [--kv bf16|fp8] [--sm-clock MHZ]\n"
	"                         [--idle-power W] [--params FILE | --profile NAME]\n"
	"                         [--service auto|capacity|standin]\n"
	"                         [--engine vllm|sglang|tensorrt-llm|tgi|deepspeed-mii|transformers]\n"
	"                         [--json] [--csv FILE] [--svg FILE] [--measured RUN_DIR]\n"
	"                         [--utc-offset SECONDS]\n\n"
	"Simulates the workload on a 50 ms grid (R replicas, replica r on PCG32 stream\n"
	"(seed, r); the same numbers for any --threads): arrivals, admission up to\n"
	"--max-running (default 256), prefill and decode steps from the parameter set's\n"
	"capacity model when it has the platform and the model's architecture is known,\n"
	"else from the stand-in (the capacity model at assumed efficiencies; a\n"
	"warning says why); --service capacity|standin forces one. Per-GPU power\n"
	"from the frozen law plus a prefill increment, through the response of the\n"
	"parameter set (assumed when it has none; --tau/--hold/--decay/--prefill-ratio\n"
	"override).\n"
	"Prints the trace metrics (mean, p5, p50, p95, max, ramp rate on 1-s means,\n"
	"spectral entropy, energy, energy per output token) as the mean over replicas\n"
	"with their 5th-95th percentile (the simulation's Monte-Carlo spread, not an\n"
	"interval). SPEC: N (fixed), lognormal:MEAN:SD, or\n"
	"empirical:FILE (the lengths of a request log). Defaults: 600 s, 20 replicas,\n"
	"1 s bins, metrics on 0.1 s samples, 512 input / 256 output tokens.\n"
	"--rate-profile UNTIL:RATE,... steps the rate (the last step holds after it)\n"
	"and replaces RATE: give it as --poisson profile or --bursty profile.\n"
	"--fleet K sums K servers: independent (each its own arrivals) or one arrival\n"
	"process K times the workload's, split round robin or to the least loaded.\n"
	"--budget W plans the largest fleet (up to --max-fleet, default 1000) whose\n"
	"aggregate p95 (or max) over --budget-bin means (default 1 s) stays <= W.\n"
	"--measured RUN_DIR (a run folder as `wattcast ingest` reads it) replays the\n"
	"run's own arrivals and lengths over its own window, at its cadence, and prints\n"
	"its measured metrics beside the prediction; --csv writes the per-bin band,\n"
	"--svg a chart of one server's band with the measured trace. --platform,\n"
	"--model, --tp, --sm-clock, --weights and --kv default to the run's; naming\n"
	"others predicts a what-if, with a warning.\n"
	"--engine NAME names the serving stack (default vllm): the laws are vLLM's, and\n"
	"another stack's envelope or plan is vLLM's with a warning saying so.\n";

/* A library message names the option's field ("horizon_s: ..."); on the
 * command line the flag is named instead. `config`: a field of the
 * configuration or the workload, whose refusal by the engine (rather than
 * by the options' check) is still the command line's (exit 2). */
static const struct {
	const char *field, *flag;
	int config;
} flag_of[] = {
	{ "horizon_s", "--horizon", 0 }, { "warmup_s", "--warmup", 0 }, { "replicas", "--replicas", 0 },
	{ "threads", "--threads", 0 }, { "bin_s", "--bin", 0 }, { "sample_s", "--sample", 0 },
	{ "max_running", "--max-running", 0 }, { "tau_s", "--tau", 0 }, { "hold_s", "--hold", 0 },
	{ "decay_s", "--decay", 0 }, { "fleet_size", "--fleet", 0 }, { "concurrency", "--closed", 0 },
	{ "think_s", "--think", 0 }, { "burstiness", "--burstiness", 0 }, { "rate_profile", "--rate-profile", 0 },
	{ "input_tokens", "--input-tokens", 1 }, { "output_tokens", "--output-tokens", 1 },
	{ "series_running", "--n-series", 0 }, { "series_dt_s", "--n-series", 0 }, { "arrival_s", "--replay", 0 },
	{ "arrival_input", "--replay", 1 }, { "arrival_output", "--replay", 1 },
	{ "response/prefill_ratio", "--prefill-ratio", 0 }, { "response/tau_s", "--tau", 0 },
	{ "response/hold_s", "--hold", 0 }, { "response/decay_s", "--decay", 0 },
	{ "budget_w", "--budget", 0 }, { "stat", "--budget-stat", 0 }, { "max_fleet", "--max-fleet", 0 },
	{ "budget_bin_s", "--budget-bin", 0 }, { "platform", "--platform", 1 }, { "sm_clock_mhz", "--sm-clock", 1 },
	{ "tp", "--tp", 1 }, { "idle_power_w", "--idle-power", 1 }, { "active_params_b", "--active-params", 1 },
	{ "fleet_mode", "--fleet-mode", 1 },
};

/* The entry whose field msg begins with ("field:" or "field/"), or -1. */
static int
field_entry(const char *msg)
{
	for (size_t i = 0; i < sizeof flag_of / sizeof flag_of[0]; i++) {
		size_t k = strlen(flag_of[i].field);
		if (strncmp(msg, flag_of[i].field, k) == 0 && (msg[k] == ':' || msg[k] == '/'))
			return (int)i;
	}
	return -1;
}

/* The rest of a library message in the flags' words: each field it names
 * further on (a word with an underscore, which no prose has: "lower
 * max_fleet or budget_w") becomes its flag from the one map above. */
static void
fields_as_flags(const char *msg, char *out, size_t cap)
{
	size_t o = 0;
	for (const char *p = msg; *p && o + 1 < cap;) {
		size_t k = strspn(p, "abcdefghijklmnopqrstuvwxyz0123456789_");
		int i = -1;
		for (size_t j = 0; k > 0 && memchr(p, '_', k) && j < sizeof flag_of / sizeof flag_of[0]; j++)
			if (strlen(flag_of[j].field) == k && strncmp(p, flag_of[j].field, k) == 0)
				i = (int)j;
		int w = i >= 0 ? snprintf(out + o, cap - o, "%s", flag_of[i].flag)
		               : snprintf(out + o, cap - o, "%.*s", k ? (int)k : 1, p);
		o = w > 0 && (size_t)w < cap - o ? o + (size_t)w : cap - 1;
		p += k ? k : 1;
	}
	out[o < cap ? o : cap - 1] = '\0';
}

int
cli_envelope_usage_from_field(const char *cmd, wc_envelope_kind kind, const char *msg)
{
	char rest[2 * WC_ERROR_MSG_MAX];
	size_t n = strcspn(msg, ":");
	if (n == strlen("rate") && strncmp(msg, "rate", n) == 0) {
		fields_as_flags(msg + n, rest, sizeof rest);
		return cli_usage_error(cmd, "%s%s", kind == WC_ENVELOPE_BURSTY ? "--bursty" : "--poisson", rest);
	}
	int i = field_entry(msg);
	if (i >= 0) {
		const char *after = msg + strlen(flag_of[i].field);
		size_t path = *after == '/' ? strcspn(after, ":") : 0; /* "/1/until_s": which entry */
		if (path > 0 && after[path] == ':') {
			fields_as_flags(after + path, rest, sizeof rest);
			return cli_usage_error(cmd, "%s (entry %.*s)%s", flag_of[i].flag, (int)path - 1, after + 1, rest);
		}
		fields_as_flags(after, rest, sizeof rest);
		return cli_usage_error(cmd, "%s%s", flag_of[i].flag, rest);
	}
	return cli_usage_error(cmd, "%s", msg);
}

/* The memory this process may take: the machine's, or less when its
 * address space is limited (ulimit -v), which is where it runs out. */
static double
memory_available(void)
{
	double have = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
	struct rlimit rl;
	if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && (double)rl.rlim_cur < have)
		have = (double)rl.rlim_cur;
	return have;
}

/* The engines' waiting queues (wc_envelope_queue_requests): an open loop
 * the servers cannot keep up with queues nearly every arrival, a queue
 * that grows with the horizon, not with the bands the other guard counts
 * (docs/envelopes.md, "Limits and choices, in one place"). Refused before
 * any work, naming what sets the arrivals and the servers run at once. */
static int
queue_memory_check(const char *cmd, const wc_envelope_workload *w, const wc_envelope_options *o,
                   const wc_budget_options *bo, const wc_power_map *pm)
{
	double at_once;
	const double queued = wc_envelope_queue_requests(w, o, bo, pm, &at_once);
	const double need = queued * WC_ENVELOPE_QUEUE_BYTES, have = memory_available();
	if (!(have > 0.0) || need <= 0.5 * have)
		return CLI_OK;
	const char *rate = w->kind == WC_ENVELOPE_CLOSED ? "--closed" : w->kind == WC_ENVELOPE_REPLAY ? "--replay"
	                 : w->n_profile ? "--rate-profile" : w->kind == WC_ENVELOPE_BURSTY ? "--bursty" : "--poisson";
	const int shared = o->fleet_mode != WC_FLEET_INDEPENDENT && (bo || o->fleet_size > 1);
	const char *servers = shared ? (bo ? ", --max-fleet" : ", --fleet") : at_once > 1 ? ", --threads" : "";
	char n_at_once[32]; /* a count, in full (1024, not 1.02e+03) */
	return cli_usage_error(cmd, "%s, --horizon%s: the queues may hold %.3g requests (%s server%s at once) where "
	                       "the servers fall behind, %.1f GB at %.0f bytes each, over half of the %.1f GB this "
	                       "process may use; lower one of them", rate, servers, queued, wc_num_text(n_at_once, at_once),
	                       at_once == 1 ? "" : "s", need / 1e9, WC_ENVELOPE_QUEUE_BYTES, have / 1e9);
}

int
cli_envelope_work_check(const char *cmd, const wc_envelope_workload *w, const wc_envelope_options *o,
                        const wc_service_times *st, const wc_budget_options *bo, const wc_power_map *pm)
{
	wc_error err;
	if (wc_envelope_work_check(w, o, st, bo, pm, WC_ENVELOPE_MAX_WORK, WC_ENVELOPE_MAX_REQUESTS, NULL, &err) !=
	    WC_OK)
		return cli_envelope_usage_from_field(cmd, w->kind, err.msg);
	return queue_memory_check(cmd, w, o, bo, pm);
}

int
cli_envelope_memory_check(const char *cmd, const wc_envelope_workload *w, const wc_envelope_options *o,
                          int json_bins)
{
	/* the replicas simulated, as the work bound charges them: a workload
	 * that draws nothing is simulated once whatever --replicas asks */
	const int replicas = wc_envelope_replicas_simulated(w, o);
	const double bins = ceil(o->horizon_s / o->bin_s), traces = o->fleet_size > 1 ? 2.0 : 1.0;
	const double bands = (double)replicas * bins * traces * 2.0 * sizeof(double);
	/* --json holds every per-bin value as a jansson tree and as text at
	 * once, after the bands (docs/envelopes.md, "Limits and choices, in
	 * one place"): charged here, before the simulation, not found out by
	 * "render: out of memory" after it */
	const double values = json_bins ? wc_envelope_bin_values(o) : 0.0;
	const double need = bands + values * WC_CLI_JSON_BYTES_PER_BIN_VALUE;
	const double have = memory_available();
	if (!(have > 0.0) || need <= 0.5 * have)
		return CLI_OK;
	if (values > 0.0 && bands <= 0.5 * have)
		return cli_usage_error(cmd, "--bin, --horizon: --json would carry %s per-bin values (%.0f bins of %g s), "
		                       "%.1f GB with the bands, more than half of the %.1f GB this process may use; use "
		                       "wider bins, a shorter horizon or the text output", WC_NUM_TEXT(values), bins, o->bin_s,
		                       need / 1e9, have / 1e9);
	if (replicas < o->replicas) /* simulated once: only the horizon and the bins change it */
		return cli_usage_error(cmd, "--horizon, --bin: %.0f bins of %g s need %.1f GB for the bands (simulated "
		                       "once), more than half of this machine's %.1f GB; use a shorter horizon or wider "
		                       "bins", bins, o->bin_s, need / 1e9, have / 1e9);
	return cli_usage_error(cmd, "--replicas, --horizon, --bin: %d replicas x %.0f bins of %g s need %.1f GB for "
	                       "the bands, more than half of this machine's %.1f GB; use fewer replicas, a shorter "
	                       "horizon or wider bins", replicas, bins, o->bin_s, need / 1e9, have / 1e9);
}

int
cli_envelope_config_error(const char *cmd, wc_envelope_kind kind, const char *msg)
{
	/* the configuration's and the workload's fields are the command line's:
	 * exit 2 naming the flag; anything else is the work failing */
	int i = field_entry(msg);
	if (i >= 0 && flag_of[i].config)
		return cli_envelope_usage_from_field(cmd, kind, msg);
	return cli_fail(cmd, "%s", msg);
}

/* A library message on a replay's own lengths (arrival_input,
 * arrival_output: no flag's or field's name) in the command line's words,
 * the one rule of its refusals and its warnings (docs/envelopes.md,
 * "Engine"): a measured run's are its folder's request log, not a
 * --replay the user gave; any other replay's are --replay's. 0 when msg
 * names another field. */
static int
replay_lengths_text(const char *measured, const char *msg, char *out, size_t cap)
{
	int i = field_entry(msg);
	if (i < 0 || !flag_of[i].config || strncmp(flag_of[i].field, "arrival_", 8) != 0)
		return 0;
	const char *after = msg + strlen(flag_of[i].field);
	if (measured) {
		int k = snprintf(out, cap, "--measured: ");
		wc_error_format_path(out + k, cap - (size_t)k, measured, ": its request log%s", after);
		return 1;
	}
	char rest[2 * WC_ERROR_MSG_MAX];
	fields_as_flags(after, rest, sizeof rest);
	wc_error_format(out, cap, "%s%s", flag_of[i].flag, rest);
	return 1;
}

void
cli_envelope_name_warnings(const char *measured, char (*warnings)[WC_WARNING_LEN], int n)
{
	char text[WC_WARNING_LEN];
	for (int i = 0; i < n; i++)
		if (replay_lengths_text(measured, warnings[i], text, sizeof text))
			memcpy(warnings[i], text, sizeof text);
}

int
cli_envelope_run_refused(const char *cmd, const char *measured, wc_envelope_kind kind, const wc_error *err)
{
	/* a law with no answer here (power no board draws: docs/intervals.md,
	 * "Physical ceiling") is not a flag to fix: exit 1, as predict's */
	if (err->code == WC_ERANGE)
		return cli_fail(cmd, "%s", err->msg);
	char text[WC_ERROR_MSG_MAX];
	if (measured && replay_lengths_text(measured, err->msg, text, sizeof text))
		return cli_fail(cmd, "%s", text);
	/* a measured run's arrival times are its folder's too */
	if (measured && strncmp(err->msg, "arrival_", 8) == 0)
		return cli_fail_flag_path(cmd, "--measured", measured, ": its request log%s",
		                          err->msg + strcspn(err->msg, ":"));
	return cli_envelope_config_error(cmd, kind, err->msg);
}

/* What each flag needs to be used (docs/cli.md, "envelope"): a flag the run
 * would not use is refused naming it, as the HTTP route refuses another
 * workload type's field, rather than answering an envelope that looks like
 * the answer to the question asked. A flag with an `option` is refused by
 * the library's rule (wc_envelope_option_unused), the HTTP fields' too. */
enum { NEEDS_CLOSED = 1, NEEDS_OPEN = 2, NEEDS_BURSTY = 4, NEEDS_BUDGET = 8, NEEDS_NO_BUDGET = 16 };
static const struct {
	const char *flag;
	int needs;
	const char *option;
	const char *applies;
} flag_needs[] = {
	{ "think", NEEDS_CLOSED, NULL, "applies to --closed" },
	{ "rate-profile", NEEDS_OPEN, NULL, "applies to --poisson and --bursty" },
	{ "burstiness", NEEDS_BURSTY, NULL, "applies to --bursty" },
	{ "input-tokens", 0, "input_tokens", "does not apply to --n-series" },
	{ "output-tokens", 0, "output_tokens", "does not apply to --n-series" },
	{ "max-running", 0, "max_running", "does not apply to --n-series" },
	{ "service", 0, "service", "does not apply to --n-series" },
	{ "budget-stat", NEEDS_BUDGET, NULL, "applies to --budget" },
	{ "max-fleet", NEEDS_BUDGET, NULL, "applies to --budget" },
	{ "budget-bin", NEEDS_BUDGET, NULL, "applies to --budget" },
	{ "fleet-mode", 0, "fleet_mode", "applies to --fleet K (K > 1) or --budget" },
	/* a plan judges the aggregate on --budget-bin means and computes no
	 * band or trace metrics: the plan route has no bin_s or sample_s */
	{ "bin", NEEDS_NO_BUDGET, NULL, "does not apply to --budget (--budget-bin sets the plan's bins)" },
	{ "sample", NEEDS_NO_BUDGET, NULL, "does not apply to --budget (a plan computes no trace metrics)" },
};

int
cli_envelope_flag_applies(const char *cmd, const char *flag, wc_envelope_kind kind, int budget, int fleet_size)
{
	const int has = (kind == WC_ENVELOPE_CLOSED ? NEEDS_CLOSED : 0) |
	                (kind == WC_ENVELOPE_POISSON || kind == WC_ENVELOPE_BURSTY ? NEEDS_OPEN : 0) |
	                (kind == WC_ENVELOPE_BURSTY ? NEEDS_BURSTY : 0) | (budget ? NEEDS_BUDGET : NEEDS_NO_BUDGET);
	for (size_t i = 0; i < sizeof flag_needs / sizeof flag_needs[0]; i++) {
		if (strcmp(flag, flag_needs[i].flag) != 0)
			continue;
		const char *why = flag_needs[i].option
		                          ? wc_envelope_option_unused(flag_needs[i].option, kind, budget, fleet_size)
		                          : NULL;
		if (why)
			return cli_usage_error(cmd, "--%s %s (%s)", flag, flag_needs[i].applies, why);
		if (!flag_needs[i].option && !(has & flag_needs[i].needs))
			return cli_usage_error(cmd, "--%s %s", flag, flag_needs[i].applies);
	}
	return CLI_OK;
}

int
cli_envelope_rate_source(const char *cmd, wc_envelope_kind kind, const char *rate_text, const char *rate_profile)
{
	/* a profile sets the rate throughout (the last step holds after it): a
	 * RATE beside it would be dropped unsaid, as the routes refuse a rate
	 * beside rate_profile (docs/cli.md, "envelope") */
	const char *flag = kind == WC_ENVELOPE_BURSTY ? "--bursty" : "--poisson";
	const int by_profile = rate_text && strcmp(rate_text, "profile") == 0;
	if (rate_profile && rate_text && !by_profile)
		return cli_usage_error(cmd, "%s %s and --rate-profile: give one of the rate and the profile (%s profile "
		                       "--rate-profile UNTIL:RATE,...)", flag, rate_text, flag);
	if (by_profile && !rate_profile)
		return cli_usage_error(cmd, "%s profile: needs --rate-profile UNTIL:RATE,...", flag);
	return CLI_OK;
}

int
cli_envelope_excludes(const char *cmd, int budget, int outputs, int measured, int replicas_given,
                      const wc_envelope_options *o)
{
	/* --measured compares with the one server the run measured, which
	 * served all its arrivals: a balancer would give each of the fleet's
	 * servers a share of them, and the comparison would be of unlike
	 * loads (docs/envelopes.md, "Replaying a measured run") */
	if (measured && o->fleet_size > 1 && o->fleet_mode != WC_FLEET_INDEPENDENT)
		return cli_usage_error(cmd, "--fleet-mode %s: --measured replays the one server the run measured, which "
		                       "served all its arrivals; a balancer would split them over the %d servers (use "
		                       "independent: each replays them all)", wc_fleet_mode_name(o->fleet_mode),
		                       o->fleet_size);
	if (!budget)
		return CLI_OK;
	if (outputs || measured)
		return cli_usage_error(cmd, "--budget prints a plan: --csv, --svg and --measured do not apply");
	/* A plan sizes the fleet on one simulated path per probe, as the plan
	 * route does (no replicas field): replicas would be ignored unsaid. */
	if (replicas_given)
		return cli_usage_error(cmd, "--budget sizes the fleet on one simulated path per probe: --replicas does "
		                       "not apply (--seed picks the path)");
	if (o->fleet_size > 1)
		return cli_usage_error(cmd, "--budget searches the fleet size itself: --fleet does not apply "
		                       "(--max-fleet bounds the search)");
	return CLI_OK;
}
