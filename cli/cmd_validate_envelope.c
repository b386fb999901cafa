/*
 * wattcast validate envelope: each measured run's own arrivals replayed
 * through the envelope simulation, its predicted trace metrics against the
 * measured ones (docs/envelopes.md, "Validation").
 */
#include "cli_replay.h"
#include "cli_validate.h"
#include "models/grow.h"
#include "data/data.h"
#include "data/table_inputs.h"

#include <gsl/gsl_errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
	"usage: wattcast validate envelope (--params FILE | --profile measured|paper|paper-prefill) RUN_DIR...\n"
	"                                  [--response params|loro] [--replicas R] [--seed S]\n"
	"                                  [--threads T] [--max-running N] [--json] [--per-run FILE]\n"
	"                                  [--platform NAME] [--tp G] [--model NAME]\n"
	"                                  [--active-params B] [--utc-offset SECONDS] [--quiet]\n"
	"                                  [--service auto|capacity|standin]\n"
	"                                  [--level zero-shot|loro] [--linger-bound nested|SECONDS]\n\n"
	"Replays each run's own arrivals (its request log, else rebuilt from its engine\n"
	"counters) through the envelope simulation -- service times from the parameter\n"
	"set's capacity model where it has the run's platform and model (else the\n"
	"stand-in, with a warning; --service forces one), the frozen law plus the\n"
	"prefill increment, the response -- over the run's window, and\n"
	"compares the predicted mean, p5, p95 and max power and ramp rate (mean over R\n"
	"replicas, default 20) with the measured ones (as `wattcast ingest` computes\n"
	"them). --response params (default) takes the response from the parameter set\n"
	"(the assumed one when it has none); loro fits it on the other runs, leaving\n"
	"each run out in turn. Prints per run the errors (then each warning of the\n"
	"predictions -- a load outside the law's span, the engine's bound -- once,\n"
	"with the runs it applies to; JSON runs[].warnings) and overall the median\n"
	"|error| of the mean (median_mean_err_pct) and of p95 (median_p95_err_pct) and\n"
	"the median ratio of ramp rates (median_ramp_ratio), and the share of runs whose\n"
	"measured mean and p95 the 95 % predictive intervals contain (coverage_mean_pct,\n"
	"coverage_p95_pct) with their median width; each JSON run gives its interval as\n"
	"its --per-run rows do (interval_95_lo, interval_95_hi: mean_w, p95_w) and what\n"
	"it covers (interval_95_covers). --per-run FILE writes one\n"
	"CSV row per run and metric, its model the last input column (lo/hi:\n"
	"5th/95th percentile over replicas; blank\n"
	"for a run that draws nothing at random -- arrivals and lengths from its\n"
	"request log, or arrivals rebuilt from its counters and output lengths at\n"
	"their mean -- which is simulated once).\n"
	"--level zero-shot (default) predicts with the set's law as it is; loro first\n"
	"calibrates the run's platform level afresh (P0, S, theta, as `wattcast calibrate\n"
	"--scope platform` does) on the other runs on its platform, leaving the run out\n"
	"-- what an operator with their own telemetry gets; a run with fewer than two\n"
	"such runs stays zero-shot, and every run says which.\n"
	"--linger-bound bounds the fitted hold_s and decay_s (how long power lingers\n"
	"after the engine empties): SECONDS, or nested -- chosen within each fold by\n"
	"leaving each of its runs out in turn (the held-out run never chooses it).\n";

enum { OPT_PARAMS = 1000, OPT_PROFILE, OPT_RESPONSE, OPT_REPLICAS, OPT_SEED, OPT_THREADS,
       OPT_MAXRUN, OPT_JSON, OPT_PER_RUN, OPT_PLATFORM, OPT_TP, OPT_MODEL, OPT_ACTIVE,
       OPT_UTC, OPT_SERVICE, OPT_LEVEL, OPT_LINGER };

typedef struct {
	const char *params, *profile, *per_run;
	wc_envelope_check_options o;
	int max_running, json, first_dir;
	int response_in_sample; /* some runs are the response's own inputs */
	size_t capacity_in_sample; /* runs whose service times were fitted on them */
	wc_run_manifest defaults;
} venv_args;

static int
parse_flag(const char *cmd, int opt, venv_args *a)
{
	long v;
	int rc = CLI_OK;
	static const char *const names[] = { "platform", "tp", "model", "active-params", "utc-offset" };
	switch (opt) {
	case OPT_PARAMS: a->params = optarg; break;
	case OPT_PROFILE: a->profile = optarg; break;
	case OPT_RESPONSE:
		if (strcmp(optarg, "params") && strcmp(optarg, "loro"))
			return cli_usage_error(cmd, "--response: expected params or loro, got '%s'", optarg);
		a->o.loro = strcmp(optarg, "loro") == 0;
		break;
	case OPT_REPLICAS: rc = cli_parse_int(cmd, "--replicas", optarg, 1, 10000, &v); a->o.replicas = (int)v; break;
	case OPT_SEED: rc = cli_parse_u64(cmd, "--seed", optarg, &a->o.seed); break;
	case OPT_THREADS:
		rc = cli_parse_threads(cmd, optarg, &v);
		a->o.threads = a->o.fit.threads = (int)v;
		break;
	case OPT_MAXRUN: rc = cli_parse_int(cmd, "--max-running", optarg, 1, WC_ENVELOPE_MAX_RUNNING, &v); a->max_running = (int)v; break;
	case OPT_JSON: a->json = 1; break;
	case OPT_PER_RUN: a->per_run = optarg; break;
	case OPT_LEVEL:
		if (strcmp(optarg, "zero-shot") && strcmp(optarg, "loro"))
			return cli_usage_error(cmd, "--level: expected zero-shot or loro, got '%s'", optarg);
		a->o.level_loro = strcmp(optarg, "loro") == 0;
		break;
	case OPT_SERVICE:
		if (wc_service_choice_from_name(optarg, &a->o.service) != WC_OK)
			rc = cli_usage_error(cmd, "--service: expected auto, capacity or standin, got '%s'", optarg);
		break;
	case OPT_LINGER: rc = cli_parse_linger(cmd, optarg, &a->o.fit); break;
	default: rc = cli_run_default_flag(cmd, names[opt - OPT_PLATFORM], optarg, &a->defaults);
	}
	return rc;
}

static int
parse(int argc, char **argv, venv_args *a, int *help)
{
	static const struct option opts[] = {
		{ "params", required_argument, NULL, OPT_PARAMS }, { "profile", required_argument, NULL, OPT_PROFILE },
		{ "response", required_argument, NULL, OPT_RESPONSE }, { "replicas", required_argument, NULL, OPT_REPLICAS },
		{ "seed", required_argument, NULL, OPT_SEED }, { "threads", required_argument, NULL, OPT_THREADS },
		{ "max-running", required_argument, NULL, OPT_MAXRUN }, { "json", no_argument, NULL, OPT_JSON },
		{ "per-run", required_argument, NULL, OPT_PER_RUN },
		{ "platform", required_argument, NULL, OPT_PLATFORM }, { "tp", required_argument, NULL, OPT_TP },
		{ "model", required_argument, NULL, OPT_MODEL }, { "active-params", required_argument, NULL, OPT_ACTIVE },
		{ "utc-offset", required_argument, NULL, OPT_UTC }, { "service", required_argument, NULL, OPT_SERVICE },
		{ "level", required_argument, NULL, OPT_LEVEL }, { "linger-bound", required_argument, NULL, OPT_LINGER },
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	const char *cmd = "validate envelope";
	int opt, rc;
	cli_reset_getopt();
	while ((opt = cli_getopt(argc, argv, ":h", opts, NULL)) != -1) {
		if (opt == 'h') {
			fputs(usage, stdout);
			*help = 1;
			return CLI_OK;
		}
		if (opt == ':' || opt == '?' || opt == CLI_OPT_EMPTY || opt == CLI_OPT_NOT_UTF8)
			return cli_validate_bad_option(cmd, CLI_VA_ENVELOPE, opt, argv);
		if ((rc = parse_flag(cmd, opt, a)) != CLI_OK)
			return rc;
	}
	if (!a->params && !a->profile)
		return cli_usage_error(cmd, "--params FILE (or --profile measured|paper|paper-prefill) is required");
	if (a->params && a->profile)
		return cli_usage_error(cmd, "give one of --params and --profile");
	if (optind >= argc)
		return cli_usage_error(cmd, "give at least one RUN_DIR (see --help)");
	a->first_dir = optind;
	const char *in[] = { a->params };
	if (cli_check_output(cmd, "--per-run", a->per_run, in, 1) != CLI_OK)
		return CLI_USAGE;
	return CLI_OK;
}

/* A folder path without its trailing slashes, for comparing. */
static size_t
path_len(const char *p, size_t n)
{
	while (n > 1 && p[n - 1] == '/')
		n--;
	return n;
}

/* Whether folder `dir` is an input of a record's `fitted_on`: the inputs
 * as given, ", "-separated, or the first one and " and N more (M inputs)"
 * when they did not fit (docs/formats/params-file.md, "Provenance"). */
static int
among_inputs(const char *fitted_on, const char *dir)
{
	const char *more = strstr(fitted_on, " more (");
	size_t nd = path_len(dir, strlen(dir)), end = strlen(fitted_on);
	if (more) {
		const char *and = strstr(fitted_on, " and ");
		while (and && strstr(and + 5, " and ") && strstr(and + 5, " and ") < more)
			and = strstr(and + 5, " and ");
		end = and ? (size_t)(and - fitted_on) : 0;
	}
	for (size_t at = 0; at < end;) {
		const char *sep = more ? NULL : strstr(fitted_on + at, ", ");
		size_t stop = sep ? (size_t)(sep - fitted_on) : end;
		if (path_len(fitted_on + at, stop - at) == nd && strncmp(fitted_on + at, dir, nd) == 0)
			return 1;
		at = stop + 2;
	}
	return 0;
}

/* Whether the run is one of those the response was fitted on: by its
 * samples, as `fit response` recorded them (schema 14). */
static int
among_hashes(const wc_params *p, const wc_response_run *run)
{
	uint64_t h = wc_response_run_hash(run);
	for (int i = 0; i < p->n_response_runs; i++)
		if (p->response_runs[i] == h)
			return 1;
	return 0;
}

/* --response params scores the set's response on the runs given: when
 * that response was fitted on them, its scores are in-sample (3.28 % on
 * the PowerTrace-Sim runs against 4.01 % leaving each out), as `validate
 * heldout` warns for a law (docs/validation.md, "Envelopes"). A record
 * that lists its runs' hashes knows each run under any path, folder or
 * subfolder; an older one names the inputs as given, and only the
 * folders given the same way are found: its note says so. */
static void
response_in_sample(const char *cmd, const venv_args *a, const wc_params *p, char *const *dirs, size_t n,
                   const cli_run_set *s, int *in_sample)
{
	const wc_record *rec = &p->response.record;
	char given[WC_INPUTS_LABEL_MAX + 8];
	const int by_run = p->n_response_runs > 0;
	size_t k = 0, first = 0, of = by_run ? s->n : n;
	*in_sample = 0;
	if (a->o.loro || !p->response.present || !p->response.fitted || (!by_run && !rec->fitted_on[0]))
		return;
	wc_inputs_label(dirs, n, given, sizeof given);
	for (size_t i = of; i-- > 0;)
		if (by_run ? among_hashes(p, &s->checks[i].run.response_run)
		           : strcmp(given, rec->fitted_on) == 0 || among_inputs(rec->fitted_on, dirs[i])) {
			k++;
			first = i;
		}
	*in_sample = k > 0;
	/* a path's end names the run; its head would fill the message */
	const char *name = by_run ? s->checks[first].run.response_run.run_id : dirs[first];
	size_t lf = strlen(rec->fitted_on), ld = strlen(name);
	const char *fit_tail = rec->fitted_on + (lf > 70 ? lf - 70 : 0), *dir_tail = name + (ld > 60 ? ld - 60 : 0);
	if (k == of)
		fprintf(stderr, "wattcast %s: warning: the response of the parameter set was fitted on these runs "
		        "(its provenance fitted_on %s%s): its scores are in-sample, not held out; --response loro "
		        "fits it leaving each run out\n", cmd, lf > 70 ? "..." : "", fit_tail);
	else if (k && by_run)
		fprintf(stderr, "wattcast %s: warning: %zu of the %zu runs (first %s%s) are among those the response of "
		        "the parameter set was fitted on: their scores are in-sample, not held out; --response loro "
		        "fits it leaving each run out\n", cmd, k, of, ld > 60 ? "..." : "", dir_tail);
	else if (k) /* by path: the folders given, each holding one run or more */
		fprintf(stderr, "wattcast %s: warning: %zu of the %zu folders given (first %s%s) are among the inputs "
		        "the response was fitted on: their runs' scores are in-sample, not held out; --response loro "
		        "fits it leaving each run out\n", cmd, k, of, ld > 60 ? "..." : "", dir_tail);
	/* Known by path only, by what the record lacks (a /14 file calibrated
	 * from a /13 one lacks the hashes too): the same runs elsewhere are
	 * not found, nor, when `fitted_on` kept the first input only, the
	 * other inputs however given (docs/validation.md, "Envelopes"). */
	else if (!by_run && strstr(rec->fitted_on, " more ("))
		fprintf(stderr, "wattcast %s: note: the response was fitted on %s%s (%d runs); its record has no run "
		        "hashes and names only its first input by path: the others' runs are not recognised, "
		        "however given\n", cmd, lf > 70 ? "..." : "", fit_tail, p->response.runs);
	else if (!by_run)
		fprintf(stderr, "wattcast %s: note: the response was fitted on %s%s (%d runs); its record has no run "
		        "hashes, only its inputs' paths: the same runs under another path are not recognised\n", cmd,
		        lf > 70 ? "..." : "", fit_tail, p->response.runs);
}

/* Service times from a capacity section fitted on the run replayed set
 * its n(t) with the run's own latencies: its scores are in-sample, as a
 * response's are (docs/validation.md, "Envelopes"); the runs are known by
 * the section's run hashes (wc_capacity_fitted_on_run), and each says so
 * in its service_times. */
static size_t
capacity_in_sample(const char *cmd, const cli_run_set *s, const wc_envelope_check_report *r)
{
	size_t k = 0, first = 0, tail = strlen(WC_ENVELOPE_IN_SAMPLE);
	for (size_t i = r->n; i-- > 0;) {
		size_t l = strlen(r->service[i].source);
		if (l >= tail && strcmp(r->service[i].source + l - tail, WC_ENVELOPE_IN_SAMPLE) == 0) {
			k++;
			first = i;
		}
	}
	if (k) {
		const char *name = s->checks[first].run.run_id;
		size_t ln = strlen(name);
		fprintf(stderr, "wattcast %s: warning: give --params a set whose capacity section was fitted without "
		        "them for held-out service times: %zu of the %zu runs (first %s%s) are among those the "
		        "capacity section was fitted on (its run_hashes): their n(t) is in-sample\n", cmd, k, r->n,
		        ln > 40 ? "..." : "", name + (ln > 40 ? ln - 40 : 0));
	}
	return k;
}

/* The service times of every run: one source, or "mixed". */
static const char *
services_used(const wc_envelope_check_report *r)
{
	for (size_t i = 1; i < r->n; i++)
		if (strcmp(r->service[i].source, r->service[0].source) != 0)
			return "mixed";
	return r->n ? r->service[0].source : "none";
}

static json_t *
num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *
metrics_json(const wc_envelope_metrics *m)
{
	return json_pack("{s:o,s:o,s:o,s:o,s:o}", "mean_w", num(m->mean_w), "p5_w", num(m->p5_w),
	                 "p95_w", num(m->p95_w), "max_w", num(m->max_w), "ramp_w_per_s", num(m->ramp_w_per_s));
}

/* The bound on hold_s and decay_s of the run's fold (null: the section's),
 * with the nested choice's scores when it chose it. */
static json_t *
linger_json(const wc_response_linger_choice *c)
{
	if (!(c->chosen_s > 0))
		return json_null();
	json_t *o = json_pack("{s:o,s:i}", "chosen_s", num(c->chosen_s), "folds", c->folds), *sc = json_array();
	for (int k = 0; k < WC_RESPONSE_N_LINGER && isfinite(c->bound_s[k]); k++)
		json_array_append_new(sc, json_pack("{s:o,s:o}", "bound_s", num(c->bound_s[k]), "mse_w2", num(c->score[k])));
	json_object_set_new(o, "scores", sc);
	return o;
}

/* Run's predictive 95 % interval of the mean and p95, under the names
 * and values of its --per-run rows' interval_95_lo / interval_95_hi, so
 * that the JSON's coverage can be recounted from the JSON (null where the
 * set has none), and what it covers. */
static void
interval_json(json_t *run, const wc_envelope_interval *iv, const char *covers)
{
	const int has = isfinite(iv->mean_lo) || isfinite(iv->p95_lo);
	json_object_set_new(run, "interval_95_lo", has ? json_pack("{s:o,s:o}", "mean_w", num(iv->mean_lo), "p95_w",
	                                                           num(iv->p95_lo)) : json_null());
	json_object_set_new(run, "interval_95_hi", has ? json_pack("{s:o,s:o}", "mean_w", num(iv->mean_hi), "p95_w",
	                                                           num(iv->p95_hi)) : json_null());
	json_object_set_new(run, "interval_95_covers", has && covers[0] ? json_string(covers) : json_null());
}

static void
print_json(const venv_args *a, const cli_run_set *s, const wc_envelope_check_report *r)
{
	json_t *o = json_object(), *runs = json_array();
	for (size_t i = 0; i < r->n; i++) {
		const wc_envelope_check_run *c = &s->checks[i].run;
		const wc_response_params *rp = &r->response[i];
		json_t *run = json_pack("{s:s,s:s,s:I,s:o,s:o,s:{s:o,s:o,s:o,s:o},s:o,s:s}", "run_id", c->run_id,
		        "arrivals", c->arrival_source, "requests", (json_int_t)c->workload.n_arrivals,
		        "measured", metrics_json(&c->measured), "predicted", metrics_json(&r->predicted[i]),
		        "response", "tau_s", num(r->tau_s[i]), "hold_s",
		        num(rp->hold_s.value), "decay_s", num(rp->decay_s.value), "prefill_ratio", num(rp->prefill_ratio.value),
		        "law_level", num(r->law_level[i]), "service_times", r->service[i].source);
		if (r->service[i].fallback[0])
			json_object_set_new(run, "service_warning", json_string(r->service[i].fallback));
		char bound[512];
		if (wc_response_bound_note(rp, bound, sizeof bound))
			json_object_set_new(run, "response_warning", json_string(bound));
		json_object_set_new(json_object_get(run, "response"), "dynamic_scale", num(wc_response_dynamic_scale(rp)));
		json_object_set_new(run, "linger_bound", linger_json(&r->linger[i]));
		json_object_set_new(run, "replicas", json_integer(r->replicas[i]));
		interval_json(run, &r->interval[i], r->covers[i].text);
		json_t *said = json_array();
		for (int w = 0; w < r->warnings[i].n_warnings; w++)
			json_array_append_new(said, json_string(r->warnings[i].warnings[w]));
		json_object_set_new(run, "warnings", said);
		const wc_envelope_at_load *al = &r->at_load[i];
		json_t *buckets = json_array();
		for (int b = 0; b < WC_ENVELOPE_LOAD_BUCKETS; b++) {
			const wc_envelope_load_bucket *x = &al->by_load[b];
			if (x->samples)
				json_array_append_new(buckets, json_pack("{s:o,s:o,s:I,s:o,s:o,s:o}", "running_min",
				                      num(x->running_lo), "running_max", num(x->running_hi), "samples",
				                      (json_int_t)x->samples, "running_mean", num(x->running_mean),
				                      "measured_w_per_gpu", num(x->measured_w), "law_w_per_gpu", num(x->law_w)));
		}
		json_object_set_new(run, "at_measured_load", json_pack("{s:o,s:o,s:o,s:o,s:o}", "mean_err_pct",
		                    num(al->mean_err_pct), "p95_err_pct", num(al->p95_err_pct), "running_measured",
		                    num(al->running_measured), "running_simulated", num(al->running_simulated),
		                    "by_load", buckets));
		json_object_set_new(run, "level", json_pack("{s:s,s:i,s:o,s:o,s:o,s:s}", "source",
		                    r->level[i].runs ? "calibrated_on_other_runs" : "zero_shot", "runs", r->level[i].runs,
		                    "p0_w", num(r->level[i].p0_w), "s_w", num(r->level[i].s_w), "theta",
		                    num(r->level[i].theta), "note", r->level[i].note));
		json_array_append_new(runs, run);
	}
	json_object_set_new(o, "runs", runs);
	json_object_set_new(o, "response", json_string(a->o.loro ? "loro" : "params"));
	json_object_set_new(o, "response_in_sample", json_boolean(a->response_in_sample));
	json_object_set_new(o, "capacity_in_sample", json_integer((json_int_t)a->capacity_in_sample));
	json_object_set_new(o, "service_times", json_string(services_used(r)));
	json_object_set_new(o, "level", json_string(a->o.level_loro ? "loro" : "zero_shot"));
	json_object_set_new(o, "replicas", json_integer(a->o.replicas));
	json_object_set_new(o, "runs_simulated_once", json_integer((json_int_t)r->n_no_spread));
	/* a saved report reproduces only with its seed (as envelope's simulation.seed) */
	json_object_set_new(o, "seed", json_integer((json_int_t)a->o.seed));
	json_object_set_new(o, "median_mean_err_pct", num(r->median_mean_err_pct));
	json_object_set_new(o, "median_p5_err_pct", num(r->median_p5_err_pct));
	json_object_set_new(o, "median_p95_err_pct", num(r->median_p95_err_pct));
	json_object_set_new(o, "median_max_err_pct", num(r->median_max_err_pct));
	json_object_set_new(o, "median_ramp_ratio", num(r->median_ramp_ratio));
	json_object_set_new(o, "bias_mean_pct", num(r->bias_mean_pct));
	json_object_set_new(o, "runs_with_interval", json_integer(r->n_with_interval));
	json_object_set_new(o, "coverage_mean_pct", num(r->coverage_mean_pct));
	json_object_set_new(o, "coverage_p95_pct", num(r->coverage_p95_pct));
	json_object_set_new(o, "median_width_mean_pct", num(r->median_width_mean_pct));
	json_object_set_new(o, "median_width_p95_pct", num(r->median_width_p95_pct));
	cli_print_json_report(o);
}

static double
pct(double p, double m)
{
	return 100.0 * (p - m) / m;
}

/* Whether run j said warning `w` of run i. */
static int
says(const wc_envelope_check_report *r, size_t j, const char *w)
{
	for (int k = 0; k < r->warnings[j].n_warnings; k++)
		if (strcmp(r->warnings[j].warnings[k], w) == 0)
			return 1;
	return 0;
}

/* The runs' prediction warnings under the table, each once with the runs
 * it applies to (a line repeated per run would bury the others): the
 * first run that says it lists the others that say it too. */
static void
print_run_warnings(const cli_run_set *s, const wc_envelope_check_report *r)
{
	for (size_t i = 0; i < r->n; i++)
		for (int k = 0; k < r->warnings[i].n_warnings; k++) {
			const char *w = r->warnings[i].warnings[k];
			size_t same = 0, earlier = 0;
			for (size_t j = 0; j < r->n; j++) {
				same += says(r, j, w);
				earlier += j < i && says(r, j, w);
			}
			if (earlier)
				continue;
			if (same == r->n && r->n > 1) {
				printf("warning: all %zu runs: %s\n", r->n, w);
				continue;
			}
			fputs("warning: ", stdout);
			for (size_t j = i, put = 0; j < r->n; j++)
				if (says(r, j, w))
					printf("%s%s", put++ ? ", " : "", s->checks[j].run.run_id);
			printf(": %s\n", w);
		}
}

static void
print_table(const venv_args *a, const cli_run_set *s, const wc_envelope_check_report *r)
{
	/* A replay that draws nothing at random is simulated once: a replica
	 * count and a seed would claim a spread it cannot have. */
	char reps[512];
	if (r->n_no_spread == r->n)
		snprintf(reps, sizeof reps, "each simulated once: the replays draw nothing at random (%s), so --seed "
		         "and --replicas change nothing", r->once_known);
	else if (r->n_no_spread)
		snprintf(reps, sizeof reps, "%d replicas, seed %llu; %zu run(s) drawing nothing at random (%s) "
		         "simulated once", a->o.replicas, (unsigned long long)a->o.seed, r->n_no_spread, r->once_known);
	else
		snprintf(reps, sizeof reps, "%d replicas, seed %llu", a->o.replicas, (unsigned long long)a->o.seed);
	printf("envelopes replayed on %zu run%s (response: %s; service times: %s; %s; law "
	       "level: %s)\n", r->n, r->n == 1 ? "" : "s", a->o.loro ? "fitted leaving each run out" : "from the parameter set",
	       services_used(r), reps,
	       a->o.level_loro ? "calibrated on the other runs of each run's platform, leaving it out"
	                       : "zero-shot, the set's law as it is");
	for (size_t i = 0; a->o.level_loro && i < r->n; i++)
		printf("level: %s: %s\n", s->checks[i].run.run_id, r->level[i].note);
	for (size_t i = 0; i < r->n; i++)
		if (r->service[i].fallback[0])
			printf("warning: %s: %s\n", s->checks[i].run.run_id, r->service[i].fallback);
	for (size_t i = 0; i < r->n; i++) {
		char bound[512];
		if (wc_response_bound_note(&r->response[i], bound, sizeof bound))
			printf("warning: %s: the response %s: %s\n", s->checks[i].run.run_id,
			       a->o.loro ? "fitted on the other runs" : "of the parameter set", bound);
	}
	/* Only folds fit a response (--response loro); a fold with fewer than
	 * two runs to leave out chose nothing and kept the section's bounds. */
	for (size_t i = 0; a->o.loro && a->o.fit.linger_nested && i < r->n; i++)
		if (r->linger[i].chosen_s > 0)
			printf("linger bound: %s: %g s, chosen leaving each of the fold's %d runs out in turn\n",
			       s->checks[i].run.run_id, r->linger[i].chosen_s, r->linger[i].folds);
		else
			printf("linger bound: %s: none chosen (fewer than two of the fold's runs could be left out); "
			       "the section's bounds\n", s->checks[i].run.run_id);
	printf("%-44s %8s %8s %7s %7s %7s %7s %6s %9s\n", "run", "mean_w", "meas_w", "mean%", "p5%", "p95%",
	       "max%", "ramp x", "law_level");
	for (size_t i = 0; i < r->n; i++) {
		const wc_envelope_metrics *p = &r->predicted[i], *m = &s->checks[i].run.measured;
		printf("%-44.44s %8.1f %8.1f %+7.1f %+7.1f %+7.1f %+7.1f %6.2f %9.3f\n", s->checks[i].run.run_id,
		       p->mean_w, m->mean_w, pct(p->mean_w, m->mean_w), pct(p->p5_w, m->p5_w),
		       pct(p->p95_w, m->p95_w), pct(p->max_w, m->max_w), p->ramp_w_per_s / m->ramp_w_per_s,
		       r->law_level[i]);
	}
	print_run_warnings(s, r);
	printf("median |error|: mean %.2f %%, p5 %.2f %%, p95 %.2f %%, max %.2f %%; median ramp ratio %.2f; "
	       "bias of the mean %+.2f %%\n", r->median_mean_err_pct, r->median_p5_err_pct,
	       r->median_p95_err_pct, r->median_max_err_pct, r->median_ramp_ratio, r->bias_mean_pct);
	if (r->n_with_interval)
		printf("95 %% predictive interval (%sthe law's held-out error, not the Monte-Carlo spread): covers the "
		       "measured mean on %.1f %% and p95 on %.1f %% of %d runs; median width %.1f %% / %.1f %% of the "
		       "prediction\n", a->o.level_loro ? "a calibrated level's draws and " : "", r->coverage_mean_pct, r->coverage_p95_pct, r->n_with_interval,
		       r->median_width_mean_pct, r->median_width_p95_pct);
	else
		printf("95 %% predictive interval: none (the parameter set has no held-out error of mean power)\n");
	printf("law_level: the scale of the frozen law's dynamic power that fits each run's measured power\n"
	       "best (1 = the law as frozen); a diagnostic of the law, not used in the predictions\n");
}

int
cli_validate_envelope(int argc, char **argv)
{
	const char *cmd = "validate envelope";
	venv_args a = { .o = { 0, WC_RESPONSE_FIT_OPTIONS_INIT, 20, 1, 1 }, .max_running = 256 };
	wc_params p = WC_PARAMS_INIT;
	cli_run_set s = { 0 };
	wc_envelope_check_report r = { 0 };
	wc_per_run rows = WC_PER_RUN_INIT;
	wc_error err;
	int help = 0, rc;
	a.o.fit.bootstrap = 0; /* the folds need the point estimate only */
	wc_run_manifest_init(&a.defaults);
	if ((rc = parse(argc, argv, &a, &help)) != CLI_OK || help)
		return rc;
	gsl_set_error_handler_off();
	if ((rc = cli_load_params(cmd, a.params, a.profile, &p)) != CLI_OK)
		return rc;
	if ((rc = cli_run_set_load(cmd, argv + a.first_dir, argc - a.first_dir, &a.defaults, cli_quiet(),
	                           "the prediction uses the platform's P0", &s)) != CLI_OK)
		goto done;
	if ((rc = cli_run_set_prepare(cmd, &s, &p, a.max_running, a.o.service)) != CLI_OK)
		goto done;
	wc_envelope_check_run *runs = wc_alloc_array(s.n, sizeof *runs);
	if (!runs) {
		rc = cli_fail(cmd, "out of memory");
		goto done;
	}
	for (size_t i = 0; i < s.n; i++)
		runs[i] = s.checks[i].run;
	rc = wc_validate_envelope(&p, runs, s.n, &a.o, &r, a.per_run ? &rows : NULL, &err);
	free(runs);
	if (rc == WC_OK && a.per_run)
		rc = wc_per_run_write(a.per_run, &rows, &err);
	if (rc != WC_OK) {
		rc = cli_fail(cmd, "%s", err.msg);
		goto done;
	}
	response_in_sample(cmd, &a, &p, argv + a.first_dir, (size_t)(argc - a.first_dir), &s, &a.response_in_sample);
	a.capacity_in_sample = capacity_in_sample(cmd, &s, &r);
	if (a.json)
		print_json(&a, &s, &r);
	else
		print_table(&a, &s, &r);
	rc = CLI_OK;
done:
	wc_envelope_check_report_clear(&r);
	wc_per_run_clear(&rows);
	cli_run_set_free(&s);
	wc_params_clear(&p);
	return rc;
}
