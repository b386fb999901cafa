/*
 * wattcast metrics: the grid-facing metrics (docs/trace-metrics.md) of one nvidia-smi
 * power log, per GPU and for the group (the per-sample sum). Streams the
 * file through bounded accumulators (trace/stream_log.h: the reader, a
 * metrics thread and the traces), so a log of any size fits in the same
 * memory.
 */
#include "cli.h"
#include "data/data.h"
#include "fit/fit.h"
#include "models/limits.h"
#include "trace/trace.h"

#include <gsl/gsl_errno.h>
#include <jansson.h>
#include <math.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdlib.h>
#include <string.h>

static const char metrics_usage[] =
	"usage: wattcast metrics POWER.csv [--json] [--utc-offset SECONDS] [--gpus N]\n"
	"                        [--max-bad FRACTION] [--requests N] [--output-tokens N]\n"
	"                        [--iterations N]\n\n"
	"Grid-facing metrics of an nvidia-smi power log (--query-gpu=timestamp,index,\n"
	"power.draw,... --format=csv or csv,nounits; '-' reads stdin), per GPU and for the\n"
	"group: duration, energy (trapezoid), mean, p5/p50/p95/max power, ramp rate (mean\n"
	"and p95 of |dP|/dt on 1-s means), normalised spectral entropy and the dominant\n"
	"period (autocorrelation, 0.5-120 s). --utc-offset converts the local timestamps\n"
	"(seconds east of UTC, e.g. -25200) for the reported start and end; the metrics do\n"
	"not depend on it. --gpus gives the GPUs per sample of a log without index/uuid.\n"
	"Malformed lines are reported and skipped; more than 1 % of them (--max-bad)\n"
	"refuses the file. Logs longer than 262144 samples are summarised in fixed memory\n"
	"(\"exact\": false; docs/trace-metrics.md). With the counts of what the group served in the\n"
	"log's window, the energy per request, output token and iteration is reported.\n";

enum { OPT_JSON = 1000, OPT_UTC, OPT_GPUS, OPT_MAXBAD, OPT_REQUESTS, OPT_TOKENS, OPT_ITERATIONS };

static void
print_warning(const char *msg, void *payload)
{
	(void)payload;
	fprintf(stderr, "wattcast metrics: warning: %s\n", msg);
}

static json_t *
num_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *
metrics_json(const wc_trace_metrics *m)
{
	json_t *o = json_object();
	json_object_set_new(o, "samples", json_integer((json_int_t)m->samples));
	json_object_set_new(o, "duration_s", num_or_null(m->duration_s));
	json_object_set_new(o, "energy_j", num_or_null(m->energy_j));
	json_object_set_new(o, "mean_w", num_or_null(m->mean_w));
	json_object_set_new(o, "p5_w", num_or_null(m->p5_w));
	json_object_set_new(o, "p50_w", num_or_null(m->p50_w));
	json_object_set_new(o, "p95_w", num_or_null(m->p95_w));
	json_object_set_new(o, "max_w", num_or_null(m->max_w));
	json_object_set_new(o, "ramp_w_per_s", num_or_null(m->ramp_w_per_s));
	json_object_set_new(o, "ramp_p95_w_per_s", num_or_null(m->ramp_p95_w_per_s));
	json_object_set_new(o, "spectral_entropy", num_or_null(m->spectral_entropy));
	json_object_set_new(o, "period_s", num_or_null(m->period_s));
	json_object_set_new(o, "grid_s", num_or_null(m->grid_s));
	return o;
}

static void
print_row(const char *label, const wc_trace_metrics *m)
{
	char c[11][32];
	printf("  %-8s %9s %11s %8s %8s %8s %8s %8s %8s %9s %8s %8s\n", label,
	       cli_cell(c[0], 32, m->duration_s, 1), cli_cell(c[1], 32, m->energy_j, 1), cli_cell(c[2], 32, m->mean_w, 1),
	       cli_cell(c[3], 32, m->p5_w, 1), cli_cell(c[4], 32, m->p50_w, 1), cli_cell(c[5], 32, m->p95_w, 1),
	       cli_cell(c[6], 32, m->max_w, 1), cli_cell(c[7], 32, m->ramp_w_per_s, 2),
	       cli_cell(c[8], 32, m->ramp_p95_w_per_s, 2), cli_cell(c[9], 32, m->spectral_entropy, 3),
	       cli_cell(c[10], 32, m->period_s, 2));
}

static const char *const count_flag[3] = { "--requests", "--output-tokens", "--iterations" };
static const char *const count_unit[3] = { "requests", "tokens", "iterations" };
static const char *const count_key[3] = { "energy_per_request_j", "energy_per_token_j",
	                                  "energy_per_iteration_j" };

/* What the command line asked for. */
typedef struct {
	const char *path;
	wc_telemetry_options topt;
	int json, help;
	/* Counts for energy per unit; NaN = not given. */
	double count[3];
} metrics_args;

/* Flags and the one POWER.csv into `a`; a->help after printing --help. */
static int
parse_metrics_args(int argc, char **argv, metrics_args *a)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, OPT_JSON },
		{ "utc-offset", required_argument, NULL, OPT_UTC },
		{ "gpus", required_argument, NULL, OPT_GPUS },
		{ "max-bad", required_argument, NULL, OPT_MAXBAD },
		{ "requests", required_argument, NULL, OPT_REQUESTS },
		{ "output-tokens", required_argument, NULL, OPT_TOKENS },
		{ "iterations", required_argument, NULL, OPT_ITERATIONS },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cmd = "metrics";
	wc_telemetry_options *topt = &a->topt;
	int opt, rc = CLI_OK;
	long gpus = 0;
	cli_reset_getopt();
	while ((opt = cli_getopt(argc, argv, ":h", opts, NULL)) != -1) {
		rc = CLI_OK;
		switch (opt) {
		case OPT_JSON: a->json = 1; break;
		case OPT_UTC:
			rc = cli_parse_double(cmd, "--utc-offset", optarg, -50400, 1, &topt->utc_offset_s);
			if (rc == CLI_OK && topt->utc_offset_s > 50400)
				rc = cli_usage_error(cmd, "--utc-offset: must be within +-50400 s, got '%s'", optarg);
			break;
		case OPT_GPUS: rc = cli_parse_int(cmd, "--gpus", optarg, 1, WC_TELEMETRY_MAX_GPUS, &gpus); break;
		case OPT_MAXBAD:
			rc = cli_parse_max_bad(cmd, optarg, &topt->max_bad_fraction);
			break;
		case OPT_REQUESTS:
		case OPT_TOKENS:
		case OPT_ITERATIONS:
			/* at least WC_METRICS_MIN_COUNT and finite, not whole: ingest
			 * writes a run's counts as sums of shares
			 * (docs/formats/telemetry.md), which are fed back here; the
			 * floor keeps the energy per unit finite (docs/cli.md,
			 * "metrics") */
			rc = cli_parse_load(cmd, count_flag[opt - OPT_REQUESTS], optarg, 0, WC_METRICS_MIN_COUNT, INFINITY,
			                    count_unit[opt - OPT_REQUESTS], &a->count[opt - OPT_REQUESTS]);
			break;
		case 'h': fputs(metrics_usage, stdout); a->help = 1; return CLI_OK;
		default: return cli_bad_option(cmd, opt, argv);
		}
		if (rc != CLI_OK)
			return rc;
	}
	if (optind >= argc)
		return cli_usage_error(cmd, "give one POWER.csv (see --help)");
	if (optind + 1 < argc)
		return cli_usage_error(cmd, "unexpected argument '%s' (see --help)", argv[optind + 1]);
	a->path = argv[optind];
	topt->n_gpus = (int)gpus;
	topt->warn = print_warning;
	return CLI_OK;
}

static int
print_metrics_json(const char *cmd, const metrics_args *a, const wc_trace_log_metrics *m)
{
	const wc_nvsmi_info *info = &m->info;
	json_t *o = json_object(), *arr = json_array();
	json_object_set_new(o, "file", json_string(a->path));
	json_object_set_new(o, "gpus", json_integer(m->n_gpus));
	json_object_set_new(o, "samples", json_integer((json_int_t)info->samples));
	json_object_set_new(o, "data_lines", json_integer((json_int_t)info->data_lines));
	json_object_set_new(o, "bad_lines", json_integer((json_int_t)info->bad_lines));
	json_object_set_new(o, "dropped_samples", json_integer((json_int_t)info->dropped_samples));
	json_object_set_new(o, "start_epoch", num_or_null(info->t_first));
	json_object_set_new(o, "end_epoch", num_or_null(info->t_last));
	json_object_set_new(o, "exact", json_boolean(m->exact));
	json_object_set_new(o, "gpu_count_source", json_string(info->gpu_count_source));
	json_object_set_new(o, "max_sweep_span_s", json_real(info->max_sweep_span_s));
	json_object_set_new(o, "wide_sweeps", json_integer((json_int_t)info->wide_sweeps));
	json_object_set_new(o, "implausible_lines", json_integer((json_int_t)info->implausible_lines));
	json_object_set_new(o, "gaps", json_integer((json_int_t)info->gaps));
	json_object_set_new(o, "gap_s", json_real(info->gap_s));
	json_object_set_new(o, "longest_gap_s", json_real(info->longest_gap_s));
	for (int g = 0; g < m->n_gpus; g++) {
		json_t *e = json_object();
		json_object_set_new(e, "index", info->index[g] >= 0 ? json_integer(info->index[g]) : json_null());
		json_object_set_new(e, "uuid", info->uuid[g][0] ? json_string(info->uuid[g]) : json_null());
		json_object_set_new(e, "metrics", metrics_json(&m->gpu[g]));
		json_array_append_new(arr, e);
	}
	json_object_set_new(o, "per_gpu", arr);
	json_object_set_new(o, "group", metrics_json(&m->group));
	for (int c = 0; c < 3; c++)
		if (!isnan(a->count[c]))
			json_object_set_new(json_object_get(o, "group"), count_key[c],
			                    num_or_null(m->group.energy_j / a->count[c]));
	/* 15 digits: an epoch needs 13 to keep its milliseconds. */
	char *text = json_dumps(o, JSON_INDENT(2) | JSON_REAL_PRECISION(15));
	json_decref(o);
	if (!text)
		return cli_fail(cmd, "out of memory");
	puts(text);
	free(text);
	return CLI_OK;
}

static void
print_metrics_text(const metrics_args *a, const wc_trace_log_metrics *m)
{
	const wc_nvsmi_info *info = &m->info;
	printf("%s: %d GPU%s, %zu samples, %zu data lines (%zu malformed, skipped)%s\n", a->path,
	       m->n_gpus, m->n_gpus == 1 ? "" : "s", info->samples, info->data_lines, info->bad_lines,
	       m->exact ? "" : "; long log: quantiles and spectrum in bounded mode");
	printf("  GPUs told apart by %s; widest sweep %.3f s, %zu sweep%s wider than %.0f ms",
	       info->gpu_count_source, info->max_sweep_span_s, info->wide_sweeps,
	       info->wide_sweeps == 1 ? "" : "s", 1000.0 * WC_NVSMI_SWEEP_TOL_S);
	if (info->gaps > 0) /* bridged by straight lines (docs/formats/telemetry.md, "Time gaps") */
		printf("; %zu gap%s without samples, %.1f s", info->gaps, info->gaps == 1 ? "" : "s", info->gap_s);
	putchar('\n');
	printf("  %-8s %9s %11s %8s %8s %8s %8s %8s %8s %9s %8s %8s\n", "trace", "dur_s", "energy_j",
	       "mean_w", "p5_w", "p50_w", "p95_w", "max_w", "ramp_w/s", "ramp_p95", "entropy",
	       "period_s");
	for (int g = 0; g < m->n_gpus; g++) {
		char label[32];
		if (info->index[g] >= 0)
			snprintf(label, sizeof label, "GPU %d", info->index[g]);
		else
			snprintf(label, sizeof label, "GPU #%d", g);
		print_row(label, &m->gpu[g]);
	}
	print_row("group", &m->group);
	for (int c = 0; c < 3; c++)
		if (!isnan(a->count[c]))
			printf("  %s %.6g (%g counted)\n", count_key[c], m->group.energy_j / a->count[c], a->count[c]);
}

int
cli_cmd_metrics(int argc, char **argv)
{
	const char *cmd = "metrics";
	metrics_args a = { NULL, WC_TELEMETRY_OPTIONS_INIT, 0, 0, { NAN, NAN, NAN } };
	a.topt.max_bad_option = "--max-bad";
	int rc;
	if ((rc = parse_metrics_args(argc, argv, &a)) != CLI_OK || a.help)
		return rc;

	/* GSL's default handler aborts; report its errors as statuses. */
	gsl_set_error_handler_off();
#ifdef __GLIBC__
	/* The histograms and the spectra's FFT buffers are allocated and freed
	 * trace after trace; above glibc's mmap threshold each would be mapped
	 * afresh and fault in page by page every time (7 900 page faults on
	 * the 256 MB log, 3 200 with the heap reused; docs/results.md). */
	mallopt(M_MMAP_THRESHOLD, 64 << 20);
	mallopt(M_TRIM_THRESHOLD, 128 << 20);
#endif
	/* metrics never calls BLAS: its pool's start-up spin only takes CPU
	 * from the reader and metrics threads (docs/results.md). */
	wc_linalg_stop_pool();
	wc_error err = { 0, "" };
	wc_trace_log_metrics *m = malloc(sizeof *m); /* 65 traces' metrics: off the stack */
	if (!m)
		return cli_fail(cmd, "out of memory");
	if (wc_trace_log_measure(a.path, &a.topt, m, &err) != WC_OK) {
		rc = cli_fail(cmd, "%s", err.msg);
		free(m);
		return rc;
	}
	/* A group under 1 W per GPU is a unit slip (kW logged as W), refused
	 * by ingest; metrics describes the log as it is and says so, as it
	 * says readings beyond any board (docs/formats/telemetry.md, "Units
	 * and plausibility"). */
	char why[200], msg[WC_ERROR_MSG_MAX];
	if (wc_power_under_floor(m->group.mean_w, m->n_gpus, why, sizeof why)) {
		wc_error_format_path(msg, sizeof msg, a.path, ": %s: %s", m->info.power_column, why);
		print_warning(msg, NULL);
	}
	if (a.json)
		rc = print_metrics_json(cmd, &a, m);
	else
		print_metrics_text(&a, m);
	free(m);
	return rc;
}
