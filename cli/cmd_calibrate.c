/*
 * wattcast calibrate: adapt a frozen law to a few of the user's own runs
 * (docs/calibration.md) -- a model term per model and level, or a new
 * platform level -- and write the calibrated parameter file.
 */
#include "cli_calibrate.h"
#include "data/data.h"
#include "models/limits.h"
#include "fit/fit.h"
#include "validation/accuracy.h"

#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char calibrate_usage[] =
	"usage: wattcast calibrate (--params BASE.json | --profile NAME) RUNS.csv -o NEW.json\n"
	"                          [--scope model|platform] [--model NAME] [--platform NAME]\n"
	"                          [--idle-power W] [--relative-to LEVEL] [--run-scatter X] [--name LABEL]\n"
	"                          [--bootstrap B] [--seed S] [--threads T]\n\n"
	"Keeps the base law's shared parameters (and their draws) and estimates only what\n"
	"a few runs can identify (docs/calibration.md):\n"
	"  --scope model     (default) a shift in z for each model (variants included) on\n"
	"                    each level the runs name, from 1 run or more; the level must\n"
	"                    exist in the base; fitted above the runs' idle_power_w (else\n"
	"                    --idle-power, else the level's P0), which the term records\n"
	"  --scope platform  a new level: P0 from the runs' idle_power_w (else --idle-power),\n"
	"                    S and theta from 2 or more runs at different loads, the shared\n"
	"                    slopes held at the base's values\n"
	"  --relative-to LEVEL  (platform scope) the new level is the base's LEVEL plus the\n"
	"                    new platform's offsets from LEVEL (log S, theta) on the runs of both\n"
	"--model/--platform keep only the runs of that model / platform. Draws: B replicates\n"
	"(default: as many as the base has draws, else 1000; 0 = none), each combining one\n"
	"base draw with the scatter of single runs (--run-scatter, default the base's\n"
	"residual RMS). Bit-identical for a seed, whatever --threads.\n\n"
	"The fine-tuning law: `wattcast calibrate finetune --help`.\n";

enum { OPT_PARAMS = 1000, OPT_PROFILE, OPT_SCOPE, OPT_MODEL, OPT_PLATFORM, OPT_IDLE, OPT_SCATTER,
       OPT_NAME, OPT_BOOT, OPT_SEED, OPT_THREADS, OPT_RELATIVE };

typedef struct {
	const char *params, *profile, *output, *input, *label;
	wc_calibrate_options co;
	long boot, threads;
	int have_boot, help;
} calibrate_args;

static int
parse_flags(const char *cmd, int argc, char **argv, calibrate_args *a)
{
	static const struct option opts[] = {
		{ "params", required_argument, NULL, OPT_PARAMS }, { "profile", required_argument, NULL, OPT_PROFILE },
		{ "scope", required_argument, NULL, OPT_SCOPE }, { "model", required_argument, NULL, OPT_MODEL },
		{ "platform", required_argument, NULL, OPT_PLATFORM }, { "idle-power", required_argument, NULL, OPT_IDLE },
		{ "run-scatter", required_argument, NULL, OPT_SCATTER }, { "name", required_argument, NULL, OPT_NAME },
		{ "bootstrap", required_argument, NULL, OPT_BOOT }, { "seed", required_argument, NULL, OPT_SEED },
		{ "threads", required_argument, NULL, OPT_THREADS }, { "relative-to", required_argument, NULL, OPT_RELATIVE },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	int opt, rc;
	cli_reset_getopt();
	while ((opt = cli_getopt(argc, argv, ":ho:", opts, NULL)) != -1) {
		rc = CLI_OK;
		switch (opt) {
		case OPT_PARAMS: a->params = optarg; break;
		case OPT_PROFILE: a->profile = optarg; break;
		case OPT_SCOPE:
			if (wc_calibrate_scope_from_name(optarg, &a->co.scope) != WC_OK)
				rc = cli_usage_error(cmd, "--scope: expected model or platform, got '%s'", optarg);
			break;
		case OPT_MODEL: a->co.model = optarg; break;
		case OPT_PLATFORM: a->co.platform = optarg; break;
		case OPT_IDLE:
			rc = cli_parse_double_max(cmd, "--idle-power", optarg, 0, 0, WC_GPU_MAX_POWER_W, &a->co.idle_power_w);
			break;
		case OPT_SCATTER:
			rc = cli_parse_range(cmd, "--run-scatter", optarg, WC_RUN_SCATTER_MIN, WC_RUN_SCATTER_MAX,
			                     &a->co.run_scatter);
			break;
		case OPT_NAME: rc = cli_parse_set_name(cmd, optarg); a->label = optarg; break;
		case OPT_RELATIVE: a->co.relative_to = optarg; break;
		case OPT_BOOT:
			rc = cli_parse_bootstrap(cmd, optarg, &a->boot);
			a->have_boot = 1;
			break;
		case OPT_SEED: rc = cli_parse_u64(cmd, "--seed", optarg, &a->co.seed); break;
		case OPT_THREADS: rc = cli_parse_threads(cmd, optarg, &a->threads); break;
		case 'o': a->output = optarg; break;
		case 'h': fputs(calibrate_usage, stdout); a->help = 1; return CLI_OK;
		default: return cli_bad_option(cmd, opt, argv);
		}
		if (rc != CLI_OK)
			return rc;
	}
	if (cli_expect_one_operand(cmd, argc, "RUNS.csv") != CLI_OK)
		return CLI_USAGE;
	if (!a->output)
		return cli_usage_error(cmd, "-o NEW.json is required");
	if ((a->params != NULL) == (a->profile != NULL))
		return cli_usage_error(cmd, "give exactly one of --params and --profile");
	/* A missing flag is the command line's fault: said here (exit 2), not
	 * by the calibration after the runs are read. */
	if (a->co.relative_to && (!a->co.platform || strcmp(a->co.platform, a->co.relative_to) == 0))
		return cli_usage_error(cmd, "--relative-to needs the new platform named (--platform), other than '%s'",
		                       a->co.relative_to);
	a->input = argv[optind];
	const char *in[] = { a->input, a->params };
	if (cli_check_output(cmd, "-o", a->output, in, 2) != CLI_OK)
		return CLI_USAGE;
	a->co.replicates = !a->have_boot ? 0 : a->boot == 0 ? -1 : (int)a->boot;
	a->co.threads = (int)a->threads;
	return CLI_OK;
}

void
cli_calibrate_model_notes(const wc_runs_table *t, int json_fields, wc_calibrate_result *r)
{
	char note[WC_WARNING_LEN];
	for (size_t i = 0; i < t->n_runs; i++) {
		size_t j = 0;
		while (j < i && strcmp(t->runs[j].model, t->runs[i].model) != 0)
			j++;
		if (j < i)
			continue;
		wc_model_name_note(t->runs[i].model, -1, -1, note, sizeof note);
		if (note[0] && json_fields)
			WC_WARN(r, "runs/%zu/%s", i, note);
		else if (note[0])
			WC_WARN(r, "%s", note);
	}
}

/* "1 run", or "1 run (10 pieces)" ("1 run, 10 pieces" within brackets)
 * when segments of a run are its rows: they count once
 * (docs/calibration.md, "Segments"). */
static const char *
runs_words(int runs, int pieces, int bracketed, char *buf, size_t cap)
{
	int k = snprintf(buf, cap, "%d run%s", runs, runs == 1 ? "" : "s");
	if (pieces != runs && k > 0 && (size_t)k < cap)
		snprintf(buf + k, cap - (size_t)k, bracketed ? ", %d pieces" : " (%d pieces)", pieces);
	return buf;
}

static void
print_summary(const calibrate_args *a, const wc_calibrate_result *r)
{
	char words[64];
	printf("calibrate (%s scope) on %s: %s; run scatter %.3g (log dynamic power)\n",
	       wc_calibrate_scope_name(a->co.scope), a->input, runs_words(r->n_runs, r->n_pieces, 0, words, sizeof words),
	       r->run_scatter);
	printf("  %-32s %12s   %s\n", "parameter", "value", "95 % interval");
	for (int i = 0; i < r->n_estimates; i++) {
		const wc_calibrate_estimate *e = &r->estimates[i];
		printf("  %-32s %12.5g", e->label, e->value.value);
		if (isfinite(e->value.lo))
			printf("   [%.5g, %.5g]", e->value.lo, e->value.hi);
		printf("   (%s)\n", runs_words(e->runs, e->pieces, 1, words, sizeof words));
	}
	if (a->co.scope == WC_CALIBRATE_PLATFORM) {
		const wc_level *l = &r->params.levels[r->params.n_levels - 1];
		printf("  %-32s %12.5g   %s\n", "P0 (W/GPU)", l->p0.value, wc_source_name(l->p0.source));
	}
	for (int i = 0; i < r->n_warnings; i++)
		printf("  warning: %s\n", r->warnings[i]);
}

int
cli_cmd_calibrate(int argc, char **argv)
{
	const char *cmd = "calibrate";
	calibrate_args a = { .co = WC_CALIBRATE_OPTIONS_INIT, .threads = 1 };
	/* The runs named as missed are missed by the set's answers, the clock
	 * settled under the board's limit, as validate heldout scores them
	 * (docs/calibration.md, "Runs the result misses"). */
	a.co.score = wc_validate_score_runs;
	wc_params base = WC_PARAMS_INIT;
	wc_runs_table *t = NULL;
	wc_calibrate_result r;
	wc_error err;
	char fingerprint[17];
	int rc;
	memset(&r, 0, sizeof r);
	if (argc > 1 && strcmp(argv[1], "finetune") == 0)
		return cli_calibrate_finetune(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "--http-worker") == 0)
		return cli_calibrate_http_worker(argc, argv);
	if ((rc = parse_flags(cmd, argc, argv, &a)) != CLI_OK || a.help)
		return rc;
	gsl_set_error_handler_off();
	if ((rc = cli_load_params(cmd, a.params, a.profile, &base)) != CLI_OK)
		return rc;
	rc = CLI_FAIL;
	if (wc_runs_read(a.input, &t, &err) != WC_OK || wc_calibrate(&base, t, &a.co, &r, &err) != WC_OK) {
		/* A --bootstrap no file can hold is the command line's fault, as
		 * fit's (docs/cli.md, "Conventions": exit 2). */
		if (err.code == WC_ERANGE && a.have_boot && strncmp(err.msg, "--bootstrap:", 12) == 0)
			rc = cli_usage_error(cmd, "%s", err.msg);
		else
			cli_fail(cmd, "%s", err.msg);
		goto done;
	}
	cli_calibrate_model_notes(t, 0, &r);
	if (a.label)
		snprintf(r.params.name, sizeof r.params.name, "%s", a.label);
	/* The base fit's record stays whole; the calibration's own names its
	 * input and time, pinned by SOURCE_DATE_EPOCH as fit's
	 * (docs/calibration.md, "Provenance"). */
	snprintf(r.params.calibration.fitted_on, sizeof r.params.calibration.fitted_on, "%s", a.input);
	cli_created_time(r.params.calibration.created_utc);
	print_summary(&a, &r);
	if (wc_params_save_file(a.output, &r.params, &err) != WC_OK ||
	    wc_params_fingerprint(&r.params, fingerprint, &err) != WC_OK) {
		cli_fail(cmd, "%s", err.msg);
		goto done;
	}
	printf("wrote %s (params_version %s, %d draws)\n", a.output, fingerprint, r.params.n_draws);
	rc = CLI_OK;
done:
	wc_calibrate_result_clear(&r);
	wc_runs_free(t);
	wc_params_clear(&base);
	return rc;
}
