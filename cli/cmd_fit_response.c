/*
 * wattcast fit response: the power response of envelopes (time constant,
 * hold over idle gaps, prefill ratio) fitted on measured run folders and
 * frozen into a parameter file (docs/envelopes.md, "Fitting the
 * response").
 */
#include "cli_replay.h"
#include "models/grow.h"
#include "data/data.h"
#include "data/table_inputs.h"

#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
	"usage: wattcast fit response RUN_DIR... -o PARAMS.json\n"
	"                             [--params FILE | --profile measured|paper|paper-prefill]\n"
	"                             [--bootstrap B] [--seed S] [--threads T] [--max-running N]\n"
	"                             [--platform NAME] [--tp G] [--model NAME] [--active-params B]\n"
	"                             [--utc-offset SECONDS] [--service auto|capacity|standin]\n"
	"                             [--linger-bound nested|SECONDS] [--quiet]\n\n"
	"Fits how power follows load in time -- the first-order time constant tau_s, the\n"
	"hold of the busy level over short idle gaps hold_s, its decay after the hold\n"
	"decay_s, and the extra power while a\n"
	"prefill runs (prefill_ratio, a share of the law's dynamic power at 32 running),\n"
	"with the share of the law's dynamic power kept beside it (dynamic_scale, one for\n"
	"all runs: the law's mean power already holds its prefills) --\n"
	"on measured runs (folders as `wattcast ingest` reads them): each run's n(t) and\n"
	"prefill activity (from its request log, else its engine counters) go through\n"
	"the frozen law of --params (default: the built-in 'paper' profile) and the\n"
	"response, and least squares match its power samples, every run weighted the\n"
	"same. 95 % intervals from B run resamples (default 200; 0 = none; 1 is refused:\n"
	"one resample has no spread). Writes the parameter set with its `response`\n"
	"section atomically to PARAMS.json.\n"
	"The --platform ... --utc-offset flags fill what a run's manifests leave unknown.\n"
	"Arrivals rebuilt from engine counters are busy prefilling for the prefill time\n"
	"of the capacity model where the parameter set has it for the run (else the\n"
	"stand-in's); --service forces one.\n"
	"--linger-bound bounds hold_s and decay_s (how long power lingers after the\n"
	"engine empties): nested (default) chooses the bound among 0.05, 0.2, 0.8, 3.2,\n"
	"12.8 and 60 s by leaving each run out in turn and scoring it with the response\n"
	"fitted on the others; SECONDS gives it.\n";

enum { OPT_PARAMS = 1000, OPT_PROFILE, OPT_BOOT, OPT_SEED, OPT_THREADS, OPT_MAXRUN,
       OPT_PLATFORM, OPT_TP, OPT_MODEL, OPT_ACTIVE, OPT_UTC, OPT_SERVICE, OPT_LINGER };

typedef struct {
	const char *out, *params, *profile;
	wc_response_fit_options fo;
	int max_running, first_dir;
	wc_service_choice service;
	wc_run_manifest defaults;
} fit_args;

static int
parse(int argc, char **argv, fit_args *a, int *help)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' }, { "params", required_argument, NULL, OPT_PARAMS },
		{ "profile", required_argument, NULL, OPT_PROFILE }, { "bootstrap", required_argument, NULL, OPT_BOOT },
		{ "seed", required_argument, NULL, OPT_SEED }, { "threads", required_argument, NULL, OPT_THREADS },
		{ "max-running", required_argument, NULL, OPT_MAXRUN },
		{ "platform", required_argument, NULL, OPT_PLATFORM }, { "tp", required_argument, NULL, OPT_TP },
		{ "model", required_argument, NULL, OPT_MODEL },
		{ "active-params", required_argument, NULL, OPT_ACTIVE },
		{ "utc-offset", required_argument, NULL, OPT_UTC }, { "service", required_argument, NULL, OPT_SERVICE },
		{ "linger-bound", required_argument, NULL, OPT_LINGER },
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	const char *cmd = "fit response";
	long v;
	int opt, rc = CLI_OK;
	cli_reset_getopt();
	while (rc == CLI_OK && (opt = cli_getopt(argc, argv, ":ho:", opts, NULL)) != -1) {
		switch (opt) {
		case 'o': a->out = optarg; break;
		case OPT_PARAMS: a->params = optarg; break;
		case OPT_PROFILE: a->profile = optarg; break;
		case OPT_BOOT: rc = cli_parse_bootstrap(cmd, optarg, &v); a->fo.bootstrap = (int)v; break;
		case OPT_SEED: rc = cli_parse_u64(cmd, "--seed", optarg, &a->fo.seed); break;
		case OPT_THREADS: rc = cli_parse_threads(cmd, optarg, &v); a->fo.threads = (int)v; break;
		case OPT_MAXRUN: rc = cli_parse_int(cmd, "--max-running", optarg, 1, WC_ENVELOPE_MAX_RUNNING, &v); a->max_running = (int)v; break;
		case OPT_PLATFORM: rc = cli_run_default_flag(cmd, "platform", optarg, &a->defaults); break;
		case OPT_TP: rc = cli_run_default_flag(cmd, "tp", optarg, &a->defaults); break;
		case OPT_MODEL: rc = cli_run_default_flag(cmd, "model", optarg, &a->defaults); break;
		case OPT_ACTIVE: rc = cli_run_default_flag(cmd, "active-params", optarg, &a->defaults); break;
		case OPT_UTC: rc = cli_run_default_flag(cmd, "utc-offset", optarg, &a->defaults); break;
		case OPT_SERVICE:
			if (wc_service_choice_from_name(optarg, &a->service) != WC_OK)
				rc = cli_usage_error(cmd, "--service: expected auto, capacity or standin, got '%s'", optarg);
			break;
		case OPT_LINGER: rc = cli_parse_linger(cmd, optarg, &a->fo); break;
		case 'h': fputs(usage, stdout); *help = 1; return CLI_OK;
		default: return cli_bad_option(cmd, opt, argv);
		}
	}
	if (rc != CLI_OK)
		return rc;
	if (!a->out)
		return cli_usage_error(cmd, "-o PARAMS.json is required (see --help)");
	/* --params may be the output, its response replaced (docs/cli.md,
	 * "Conventions"). */
	if (cli_check_output(cmd, "-o", a->out, NULL, 0) != CLI_OK)
		return CLI_USAGE;
	if (a->params && a->profile)
		return cli_usage_error(cmd, "give at most one of --params and --profile");
	if (optind >= argc)
		return cli_usage_error(cmd, "give at least one RUN_DIR (see --help)");
	a->first_dir = optind;
	return CLI_OK;
}

/* `bound`: hold_s's or decay_s's upper bound (0 for the others). */
static void
print_value(const char *name, const wc_response_value *v, const char *unit, double bound)
{
	printf("  %-14s %10.4g %-2s", name, v->value, unit);
	if (isfinite(v->lo))
		printf("  [%.4g, %.4g]", v->lo, v->hi);
	else if (v->value <= exp(WC_RESPONSE_LOG_MIN) * (1.0 + 1e-9))
		printf("  (the fit's floor: 0 on the 50 ms grid)");
	else if (wc_response_at_bound(v->value, bound))
		printf("  (at the bound above: the bound, not an estimate; no interval)");
	putchar('\n');
}

static void
print_fit(const cli_run_set *s, const wc_response_params *r, const wc_response_linger_choice *c, const char *out,
          const char *version)
{
	printf("response fitted on %zu run%s (RMS %.1f W per GPU sample):\n", s->n, s->n == 1 ? "" : "s", r->rms_w);
	if (isfinite(c->score[0])) {
		printf("  bound of hold_s and decay_s: %g s, chosen leaving each of %d runs out (held-out mean square "
		       "error per sample, W^2:", c->chosen_s, c->folds);
		for (int k = 0; k < WC_RESPONSE_N_LINGER; k++)
			printf(" %g s %.1f%s", c->bound_s[k], c->score[k], k + 1 < WC_RESPONSE_N_LINGER ? "," : ")\n");
	} else if (c->chosen_s > 0)
		printf("  bound of hold_s and decay_s: %g s (given)\n", c->chosen_s);
	else /* the nested choice needs two runs left when one is out */
		printf("  bound of hold_s and decay_s: not chosen (leaving one run out needs 3 runs or more); the "
		       "section's own, %g s\n", WC_RESPONSE_MAX_HOLD_S);
	double bound = c->chosen_s > 0 ? c->chosen_s : WC_RESPONSE_MAX_HOLD_S;
	print_value("tau_s", &r->tau_s, "s", 0.0);
	print_value("hold_s", &r->hold_s, "s", fmin(bound, WC_RESPONSE_MAX_HOLD_S));
	print_value("decay_s", &r->decay_s, "s", c->chosen_s > 0 ? fmin(bound, WC_RESPONSE_MAX_DECAY_S)
	                                                         : WC_RESPONSE_MAX_DECAY_S);
	print_value("prefill_ratio", &r->prefill_ratio, "", 0.0);
	print_value("dynamic_scale", &r->dynamic_scale, "", 0.0);
	for (int i = 0; i < r->n_levels; i++) {
		char name[80];
		snprintf(name, sizeof name, "tau_s[%s]", r->levels[i].level);
		print_value(name, &r->levels[i].tau_s, "s", 0.0);
	}
	/* Intervals come from resampling runs: with one or two behind a value
	 * the resamples repeat them and the interval says little. */
	if (s->n < 3 && isfinite(r->dynamic_scale.lo))
		printf("  warning: the intervals resample %zu run%s: they describe %s, not the next run\n", s->n,
		       s->n == 1 ? "" : "s", s->n == 1 ? "that run" : "those runs");
	for (int i = 0; i < r->n_levels && s->n >= 3; i++)
		if (r->levels[i].runs == 1 && isfinite(r->levels[i].tau_s.lo))
			printf("  warning: tau_s[%s] rests on 1 run: its interval is that run's resampling, not the "
			       "level's\n", r->levels[i].level);
	printf("  %-48s %8s %8s %9s %-21s\n", "run", "samples", "rms_w", "law_level", "arrivals");
	for (size_t i = 0; i < s->n; i++) {
		const wc_response_run *rr = &s->checks[i].run.response_run;
		double rms, level;
		wc_response_run_rms(rr, r, &rms, &level, NULL); /* NaN when it cannot be computed */
		printf("  %-48.48s %8zu %8.1f %9.3f %-21s\n", rr->run_id, rr->n_samples, rms, level,
		       s->checks[i].run.arrival_source);
	}
	printf("wrote %s (params_version %s)\n", out, version);
}

/* What the section was made from (docs/formats/params-file.md,
 * "response"): the folders as given, the seed and replicates, the bound
 * of hold_s and decay_s it used, the tool and the time (pinned by
 * SOURCE_DATE_EPOCH). The set's top-level record stays its law's. */
static void
record_fit(const fit_args *a, char *const *dirs, size_t n, const wc_response_linger_choice *c,
           wc_response_params *r)
{
	wc_record *rec = &r->record;
	memset(rec, 0, sizeof *rec);
	wc_inputs_label(dirs, n, rec->fitted_on, sizeof rec->fitted_on);
	rec->seed = a->fo.seed;
	rec->bootstrap = a->fo.bootstrap;
	snprintf(rec->tool_version, sizeof rec->tool_version, "%s", WC_VERSION);
	cli_created_time(rec->created_utc);
	r->linger_bound_s = c->chosen_s > 0 ? c->chosen_s : WC_RESPONSE_MAX_HOLD_S;
}

int
cli_fit_response(int argc, char **argv)
{
	const char *cmd = "fit response";
	fit_args a = { .fo = WC_RESPONSE_FIT_OPTIONS_INIT, .max_running = 256 };
	wc_params p = WC_PARAMS_INIT;
	cli_run_set s = { 0 };
	wc_error err;
	int help = 0, rc;
	wc_run_manifest_init(&a.defaults);
	if ((rc = parse(argc, argv, &a, &help)) != CLI_OK || help)
		return rc;
	gsl_set_error_handler_off();
	if ((rc = cli_load_params_rewritable(cmd, a.params, a.profile, &p)) != CLI_OK)
		return rc;
	if ((rc = cli_run_set_load(cmd, argv + a.first_dir, argc - a.first_dir, &a.defaults, cli_quiet(), NULL,
	                           &s)) != CLI_OK ||
	    (rc = cli_run_set_prepare(cmd, &s, &p, a.max_running, a.service)) != CLI_OK)
		goto done;
	for (size_t i = 0; i < s.n && !cli_quiet(); i++)
		if (s.checks[i].service.fallback[0])
			fprintf(stderr, "wattcast %s: warning: %s: %s\n", cmd, s.replays[i].run_id, s.checks[i].service.fallback);
	wc_response_run *runs = wc_alloc_array(s.n, sizeof *runs);
	uint64_t *ids = wc_alloc_array(s.n, sizeof *ids);
	if (!runs || !ids) {
		free(runs);
		free(ids);
		rc = cli_fail(cmd, "out of memory");
		goto done;
	}
	for (size_t i = 0; i < s.n; i++) {
		runs[i] = s.checks[i].run.response_run;
		ids[i] = wc_response_run_hash(&runs[i]);
	}
	wc_response_linger_choice linger;
	rc = wc_fit_response_nested(runs, s.n, &a.fo, &p.response, &linger, &err);
	free(runs);
	if (rc == WC_OK)
		record_fit(&a, argv + a.first_dir, (size_t)(argc - a.first_dir), &linger, &p.response);
	/* each run by its samples, not its path: `validate envelope` knows
	 * them under any path (docs/validation.md, "Envelopes") */
	/* A run given twice (a copy beside its folder) would list its hash
	 * twice, which the loader refuses: such a fit records none. */
	int distinct = 1;
	for (size_t i = 0; i < s.n && distinct; i++)
		for (size_t j = 0; j < i && distinct; j++)
			distinct = ids[i] != ids[j];
	if (rc == WC_OK)
		rc = wc_params_set_response_runs(&p, ids, p.response.runs == (int)s.n && distinct ? (int)s.n : 0, &err);
	free(ids);
	char version[17];
	if (rc != WC_OK || wc_params_save_file(a.out, &p, &err) != WC_OK ||
	    wc_params_fingerprint(&p, version, &err) != WC_OK) {
		rc = cli_fail(cmd, "%s", err.msg);
		goto done;
	}
	print_fit(&s, &p.response, &linger, a.out, version);
	char bound[512];
	if (wc_response_bound_note(&p.response, bound, sizeof bound))
		fprintf(stderr, "wattcast %s: warning: %s\n", cmd, bound);
	rc = CLI_OK;
done:
	cli_run_set_free(&s);
	wc_params_clear(&p);
	return rc;
}
