/*
 * wattcast ingest: measured run folders (nvidia-smi power log, vLLM
 * engine counters, per-request log, manifest) -> a runs table
 * (docs/formats/runs-table.md) with the trace metrics as extra columns. Every run is read
 * and checked before anything is written; one refused run means exit 1
 * and no output.
 */
#include "cli.h"
#include "cli_replay.h"
#include "data/data.h"
#include "models/grow.h"
#include "trace/trace.h"

#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char ingest_usage[] =
	"usage: wattcast ingest RUN_DIR... -o RUNS.csv [--segment SECONDS]\n"
	"                       [--platform NAME] [--tp G] [--model NAME] [--active-params B]\n"
	"                       [--utc-offset SECONDS] [--workload closed|poisson|bursty|replay]\n"
	"                       [--max-bad FRACTION] [--power-only] [--quiet]\n"
	"       fine-tuning runs: [--method full|lora|qlora] [--micro-batch B] [--seq-len S]\n"
	"                       [--grad-accum A] [--gpus G] [--data-parallel R] [--lora-rank R]\n"
	"                       [--checkpointing true|false] [--steps N]\n\n"
	"Turns measured runs into a runs table. A RUN_DIR holds power.csv (nvidia-smi\n"
	"--format=csv) and optionally engine.csv (vLLM counters), requests.json or\n"
	"requests.csv (per-request log), manifest.json (powertrace-sim) and\n"
	"wattcast-run.json (docs/formats/telemetry.md); a folder of run folders is searched. One row per\n"
	"run, or per segment of --segment seconds (run_id '<run>#seg<k>'). The n(t)\n"
	"series go to '<RUNS>.series/' beside the table. Flags fill what a run's\n"
	"manifests leave unknown (a manifest's value wins). Malformed lines are reported\n"
	"as file:line:column -- file:line for a reason of the whole line, as a sample\n"
	"missing a GPU, and for power.csv's GPU index or uuid -- and skipped (a sample\n"
	"missing a GPU is dropped and counts as a bad line); a run is refused (exit 1,\n"
	"nothing written) when more than 1 % of a file's lines are bad (--max-bad) or\n"
	"the power and engine clocks do not overlap.\n"
	"--power-only reads power.csv and the manifests alone: the power metrics, with\n"
	"n(t), running and the per-request and per-iteration columns left empty (as\n"
	"`wattcast metrics` does); such rows cannot be fitted.\n"
	"A fine-tuning run folder -- its wattcast-run.json has a \"finetune\" object, or it\n"
	"holds steps.csv or trainer_state.json; --method makes every folder one -- gives one\n"
	"row of a fine-tuning runs table (docs/formats/finetune-runs.md): energy per\n"
	"optimizer step over all GPUs of power.csv, checkpoint saves, evaluations and\n"
	"warm-up excluded, steps counted from the step log or else from the trace\n"
	"(step_source says which; docs/finetune.md). Fine-tuning and inference folders\n"
	"cannot be mixed in one table.\n"
	"Fleet telemetry from Prometheus (DCGM exporter, vLLM metrics): wattcast ingest\n"
	"--prometheus URL ... or --prometheus-json / --scrapes FILE; --prometheus --help\n"
	"lists their flags (docs/fleet.md).\n";

enum { OPT_SEGMENT = 1000, OPT_PLATFORM, OPT_TP, OPT_MODEL, OPT_ACTIVE, OPT_UTC, OPT_WORKLOAD,
       OPT_MAXBAD, OPT_FINETUNE, OPT_POWER_ONLY };

static void
print_warning(const char *msg, void *payload)
{
	(void)payload;
	fprintf(stderr, "wattcast ingest: warning: %s\n", msg);
}

/* The run_id column is as wide as the longest id up to this many bytes;
 * a longer id loses its middle (cli_fit_id). */
#define SUMMARY_ID_MAX 64

static void
print_summary(const wc_ingest_result *res, const char *path)
{
	int width = 6, pw = 6; /* "run_id"; the platform column as it was for the short names */
	for (size_t i = 0; i < res->n_rows; i++) {
		size_t n = strlen(res->rows[i].run.run_id);
		width = n > (size_t)width ? (n < SUMMARY_ID_MAX ? (int)n : SUMMARY_ID_MAX) : width;
		pw = cli_column_width(pw, res->rows[i].run.platform);
	}
	printf("%-*s %-*s %3s %9s %9s %-13s %7s %8s\n", width, "run_id", pw, "plat", "tp", "power_w", "idle_w",
	       "idle_source", "n_mean", "dur_s");
	for (size_t i = 0; i < res->n_rows; i++) {
		const wc_ingest_row *r = &res->rows[i];
		char idle[32]; /* "-" unknown: the fit uses the platform's P0 (a warning says why) */
		char n_mean[32]; /* "-" unknown: no n(t) with --power-only */
		char id[SUMMARY_ID_MAX + 8];
		/* "(excluded)" as fleet ingest marks a row with an exclude reason
		 * (an idle --segment segment, docs/cli.md) */
		printf("%-*s %-*s %3d %9.1f %9s %-13s %7s %8.1f%s\n", width,
		       cli_fit_id(r->run.run_id, (size_t)width, id, sizeof id), pw, r->run.platform,
		       r->run.tp, r->run.mean_power_w, cli_cell(idle, sizeof idle, r->run.idle_power_w, 1),
		       r->idle_source, cli_cell(n_mean, sizeof n_mean, r->run.running, 2), r->metrics.duration_s,
		       r->run.exclude[0] ? " (excluded)" : "");
	}
	printf("wrote %zu row%s to %s\n", res->n_rows, res->n_rows == 1 ? "" : "s", path);
}

/* What the command line asked for. */
typedef struct {
	const char *out;
	wc_ingest_options o;
	int help;
	int first_dir; /* argv index of the first RUN_DIR */
} ingest_args;

/* One of the flags that fill what a run's manifests leave unknown. */
static int
parse_default_flag(const char *cmd, int opt, wc_run_manifest *d)
{
	static const char *const names[] = { "platform", "tp", "model", "active-params", "utc-offset",
	                                      "workload" };
	return cli_run_default_flag(cmd, names[opt - OPT_PLATFORM], optarg, d);
}

/* Flags and RUN_DIRs into `a`; a->help after printing --help. */
static int
parse_ingest_args(int argc, char **argv, ingest_args *a)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "segment", required_argument, NULL, OPT_SEGMENT },
		{ "platform", required_argument, NULL, OPT_PLATFORM },
		{ "tp", required_argument, NULL, OPT_TP },
		{ "model", required_argument, NULL, OPT_MODEL },
		{ "active-params", required_argument, NULL, OPT_ACTIVE },
		{ "utc-offset", required_argument, NULL, OPT_UTC },
		{ "workload", required_argument, NULL, OPT_WORKLOAD },
		{ "max-bad", required_argument, NULL, OPT_MAXBAD },
		{ "power-only", no_argument, NULL, OPT_POWER_ONLY },
		/* fine-tuning facts (cli/cmd_ingest_finetune.c) */
		{ "method", required_argument, NULL, OPT_FINETUNE },
		{ "micro-batch", required_argument, NULL, OPT_FINETUNE },
		{ "seq-len", required_argument, NULL, OPT_FINETUNE },
		{ "grad-accum", required_argument, NULL, OPT_FINETUNE },
		{ "gpus", required_argument, NULL, OPT_FINETUNE },
		{ "data-parallel", required_argument, NULL, OPT_FINETUNE },
		{ "lora-rank", required_argument, NULL, OPT_FINETUNE },
		{ "checkpointing", required_argument, NULL, OPT_FINETUNE },
		{ "steps", required_argument, NULL, OPT_FINETUNE },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cmd = "ingest";
	wc_ingest_options *o = &a->o;
	wc_run_manifest *d = &o->defaults;
	int opt, rc = CLI_OK;
	cli_reset_getopt();
	int index = 0;
	while ((opt = cli_getopt(argc, argv, ":ho:", opts, &index)) != -1) {
		rc = CLI_OK;
		switch (opt) {
		case 'o': a->out = optarg; break;
		case OPT_FINETUNE: rc = cli_ingest_finetune_flag(cmd, opts[index].name, optarg, d); break;
		case OPT_SEGMENT: rc = cli_parse_double_unbounded(cmd, "--segment", optarg, 1, 1, &o->segment_s); break;
		case OPT_PLATFORM:
		case OPT_TP:
		case OPT_MODEL:
		case OPT_ACTIVE:
		case OPT_UTC:
		case OPT_WORKLOAD: rc = parse_default_flag(cmd, opt, d); break;
		case OPT_MAXBAD:
			rc = cli_parse_max_bad(cmd, optarg, &o->max_bad_fraction);
			break;
		case OPT_POWER_ONLY: o->power_only = 1; break;
		case 'h': fputs(ingest_usage, stdout); a->help = 1; return CLI_OK;
		default: return cli_bad_option(cmd, opt, argv);
		}
		if (rc != CLI_OK)
			return rc;
	}
	if (!a->out)
		return cli_usage_error(cmd, "-o RUNS.csv is required (see --help)");
	if (optind >= argc)
		return cli_usage_error(cmd, "give at least one RUN_DIR (see --help)");
	if (!isnan(d->active_params_b) && !d->model[0])
		return cli_usage_error(cmd, "--active-params needs --model (the runs table names the model)");
	o->warn = cli_quiet() ? NULL : print_warning; /* --quiet stands anywhere (cli/main.c) */
	a->first_dir = optind;
	return CLI_OK;
}

/* Ingest every run found under the RUN_DIRs into `res`, reporting each
 * refusal; returns how many were refused, the first in *refused (malloc'd). */
static int
ingest_dirs(const char *cmd, int argc, char **argv, const ingest_args *a, wc_ingest_result *res, char **refused)
{
	wc_error err;
	int failed = 0;
	for (int i_arg = a->first_dir; i_arg < argc; i_arg++) {
		char **runs = NULL;
		size_t n = 0;
		if (wc_ingest_find_runs(argv[i_arg], &runs, &n, &err) != WC_OK) {
			cli_fail(cmd, "%s", err.msg);
			if (failed++ == 0)
				*refused = strdup(argv[i_arg]);
			continue;
		}
		/* A run left out of a fleet tree changes every aggregate
		 * downstream: said, with where to look (docs/cli.md). */
		char first[512], msg[WC_ERROR_MSG_MAX];
		size_t deep = a->o.warn ? wc_ingest_runs_too_deep(argv[i_arg], first, sizeof first) : 0;
		if (deep > 0) {
			wc_error_format_path(msg, sizeof msg, argv[i_arg], ": %zu run folder%s below the %d levels searched, not ingested "
			         "(first: %.120s); name a folder nearer to %s", deep, deep == 1 ? "" : "s",
			         WC_INGEST_SEARCH_DEPTH, first, deep == 1 ? "it" : "them");
			a->o.warn(msg, a->o.warn_payload);
		}
		for (size_t i = 0; i < n; i++) {
			if (wc_ingest_run(runs[i], &a->o, res, &err) != WC_OK) {
				cli_fail(cmd, "%s", err.msg);
				if (failed++ == 0)
					*refused = strdup(runs[i]);
			}
			free(runs[i]);
		}
		free(runs);
	}
	return failed;
}

/* The run folders under the RUN_DIRs and how many are fine-tuning runs
 * (all of them with --method). Errors are printed; CLI_FAIL when a
 * RUN_DIR holds none or the two kinds are mixed. The caller frees. */
static int
find_runs(const char *cmd, int argc, char **argv, const ingest_args *a, char ***all, size_t *n,
          size_t *n_ft)
{
	wc_error err;
	size_t cap = 0;
	*all = NULL;
	*n = *n_ft = 0;
	for (int i_arg = a->first_dir; i_arg < argc; i_arg++) {
		char **runs = NULL;
		size_t k = 0;
		if (wc_ingest_find_runs(argv[i_arg], &runs, &k, &err) != WC_OK)
			return cli_fail(cmd, "%s", err.msg);
		for (size_t i = 0; i < k; i++) {
			char **grown = wc_grow(*all, &cap, *n + 1, sizeof *grown, 16);
			if (!grown) {
				for (; i < k; i++)
					free(runs[i]);
				free(runs);
				return cli_fail(cmd, "out of memory");
			}
			*all = grown;
			(*all)[(*n)++] = runs[i];
			*n_ft += a->o.defaults.finetune.method >= 0 || wc_ft_is_run_dir(runs[i]);
		}
		free(runs);
	}
	if (*n_ft > 0 && *n_ft < *n)
		return cli_fail(cmd, "%zu of the %zu run folders are fine-tuning runs and the others are not; "
		                "ingest them into separate tables", *n_ft, *n);
	return CLI_OK;
}

/* Fine-tuning folders go to their own table. Returns -1 when they are
 * not fine-tuning runs (the caller ingests them as inference runs). */
static int
maybe_finetune(const char *cmd, int argc, char **argv, const ingest_args *a)
{
	char **runs = NULL;
	size_t n = 0, n_ft = 0;
	int rc = find_runs(cmd, argc, argv, a, &runs, &n, &n_ft);
	if (rc == CLI_OK && n_ft == 0)
		rc = -1;
	else if (rc == CLI_OK && a->o.segment_s > 0)
		rc = cli_usage_error(cmd, "--segment: not for fine-tuning runs (one row per run)");
	else if (rc == CLI_OK)
		rc = cli_ingest_finetune(cmd, runs, n, &a->o, a->out);
	for (size_t i = 0; i < n; i++)
		free(runs[i]);
	free(runs);
	return rc;
}

int
cli_cmd_ingest(int argc, char **argv)
{
	const char *cmd = "ingest";
	ingest_args a = { NULL };
	int rc;
	if (cli_ingest_is_prometheus(argc, argv))
		return cli_cmd_ingest_prometheus(argc, argv);
	wc_ingest_options_init(&a.o);
	a.o.max_bad_option = "--max-bad";
	if ((rc = parse_ingest_args(argc, argv, &a)) != CLI_OK || a.help)
		return rc;
	if (cli_check_output(cmd, "-o", a.out, (const char *const *)argv + a.first_dir,
	                     (size_t)(argc - a.first_dir)) != CLI_OK)
		return CLI_USAGE;
	if (cli_run_dirs_distinct(cmd, argv + a.first_dir, argc - a.first_dir) != CLI_OK)
		return CLI_FAIL;
	wc_error out_err;
	if (wc_ingest_check_output(a.out, &out_err) != WC_OK)
		return cli_fail(cmd, "%s", out_err.msg);

	gsl_set_error_handler_off();
	if ((rc = maybe_finetune(cmd, argc, argv, &a)) != -1)
		return rc;
	wc_ingest_result res = { NULL, 0, 0 };
	wc_error err;
	char *first = NULL;
	int failed = ingest_dirs(cmd, argc, argv, &a, &res, &first);
	if (failed) {
		rc = cli_fail_refused(cmd, failed, first);
		free(first);
		goto done;
	}
	char comment[256], now[24];
	cli_created_time(now); /* SOURCE_DATE_EPOCH pins it, so a re-ingest hashes the same */
	snprintf(comment, sizeof comment,
	         "wattcast ingest %s, %s: %zu rows; trace metrics of the group trace (docs/trace-metrics.md)",
	         WC_VERSION, now, res.n_rows);
	if (wc_ingest_write(a.out, &res, comment, &err) != WC_OK) {
		rc = cli_fail(cmd, "%s", err.msg);
		goto done;
	}
	print_summary(&res, a.out);
	rc = CLI_OK;
done:
	wc_ingest_result_clear(&res);
	return rc;
}
