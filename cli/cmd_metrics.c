/*
 * wattcast metrics: the grid-facing metrics (docs/trace-metrics.md) of one nvidia-smi
 * power log, per GPU and for the group (the per-sample sum). Streams the
 * file through bounded accumulators (data/trace_stream.c), so a log of any
 * size fits in the same memory.
 */
#include "cli.h"
#include "data/data.h"
#include "trace/trace.h"
#include "models/parallel.h"
#include "models/grow.h"

#include <gsl/gsl_errno.h>
#include <jansson.h>
#include <math.h>
#include <pthread.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

/* The samples travel from the reader (this thread) to the traces' metrics
 * (a thread of their own) in blocks, so that parsing and the metrics run
 * side by side; the metrics thread takes the blocks in order, so the
 * result is the one a single thread gives. */
#define PIPE_BLOCK 4096  /* samples per block */
#define PIPE_BLOCKS 3    /* blocks in flight: memory is fixed, whatever the log */

typedef struct {
	double t[PIPE_BLOCK];
	double *w;           /* PIPE_BLOCK x n_gpus powers (owned) */
	int n, n_gpus;
	int bound_after;     /* bound every trace after this sample (-1 = no) */
} pipe_block;

typedef struct {
	wc_trace_stream *gpu[WC_TELEMETRY_MAX_GPUS];
	wc_trace_stream *group;
	int n_gpus;
	wc_error *err;
	/* Bounding early (trace/stream.h): the log's size when it is a
	 * regular file (0 = never bound early), and the read's progress. */
	double file_bytes;
	const wc_nvsmi_info *info;
	/* the pipeline: blk[fill] is being filled; `ready` blocks from
	 * blk[take] on wait for (or are in) the metrics thread */
	pipe_block blk[PIPE_BLOCKS];
	int fill, take, ready, done, failed, started;
	wc_error worker_err;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_t worker;
} streams;

/* Whether the file will outrun the exact limit (trace/stream.h). */
static int
bound_early_now(const streams *s)
{
	return wc_trace_stream_bound_early(s->info->samples, s->info->bytes_read, s->file_bytes);
}

/* Metrics thread: one block into every trace. */
static int
push_block(streams *s, const pipe_block *b, wc_error *err)
{
	for (int i = 0; i < b->n; i++) {
		const double *w = b->w + (size_t)i * (size_t)b->n_gpus;
		double sum = 0.0;
		for (int g = 0; g < b->n_gpus; g++) {
			if (wc_trace_stream_push(s->gpu[g], b->t[i], w[g], err) != WC_OK)
				return -1;
			sum += w[g];
		}
		if (wc_trace_stream_push(s->group, b->t[i], sum, err) != WC_OK)
			return -1;
		if (i == b->bound_after) {
			for (int g = 0; g < b->n_gpus; g++)
				if (wc_trace_stream_bound(s->gpu[g], err) != WC_OK)
					return -1;
			if (wc_trace_stream_bound(s->group, err) != WC_OK)
				return -1;
		}
	}
	return 0;
}

static void *
pipe_worker(void *payload)
{
	streams *s = payload;
	pthread_mutex_lock(&s->mu);
	for (;;) {
		while (s->ready == 0 && !s->done)
			pthread_cond_wait(&s->cv, &s->mu);
		if (s->ready == 0)
			break;
		pipe_block *b = &s->blk[s->take];
		int skip = s->failed; /* after a failure, drain without work */
		pthread_mutex_unlock(&s->mu);
		int rc = skip ? 0 : push_block(s, b, &s->worker_err);
		pthread_mutex_lock(&s->mu);
		if (rc != 0)
			s->failed = 1;
		s->take = (s->take + 1) % PIPE_BLOCKS;
		s->ready--;
		pthread_cond_broadcast(&s->cv);
	}
	pthread_mutex_unlock(&s->mu);
	return NULL;
}

/* Reader thread: hand the block being filled over and wait for a free
 * one. -1 when the metrics thread failed (its error into s->err). */
static int
pipe_publish(streams *s)
{
	pthread_mutex_lock(&s->mu);
	s->ready++;
	s->fill = (s->fill + 1) % PIPE_BLOCKS;
	pthread_cond_broadcast(&s->cv);
	while (s->ready == PIPE_BLOCKS)
		pthread_cond_wait(&s->cv, &s->mu);
	int failed = s->failed;
	pthread_mutex_unlock(&s->mu);
	s->blk[s->fill].n = 0;
	s->blk[s->fill].bound_after = -1;
	if (failed)
		*s->err = s->worker_err;
	return failed ? -1 : 0;
}

/* Reader thread, at the first sample: the traces, the blocks and the
 * metrics thread. */
static int
pipe_start(streams *s, int n_gpus)
{
	for (int g = 0; g < n_gpus; g++)
		if (!(s->gpu[g] = wc_trace_stream_new(0)))
			return wc_error_set(s->err, WC_ENOMEM, "out of memory");
	s->n_gpus = n_gpus;
	for (int k = 0; k < PIPE_BLOCKS; k++) {
		s->blk[k] = (pipe_block){ .n_gpus = n_gpus, .bound_after = -1 };
		if (!(s->blk[k].w = wc_alloc_array((size_t)PIPE_BLOCK * (size_t)n_gpus, sizeof(double))))
			return wc_error_set(s->err, WC_ENOMEM, "out of memory");
	}
	s->fill = s->take = s->ready = s->done = s->failed = 0;
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->cv, NULL);
	s->started = 1;
	if (pthread_create(&s->worker, NULL, pipe_worker, s) != 0) {
		s->started = 0;
		pthread_cond_destroy(&s->cv);
		pthread_mutex_destroy(&s->mu);
		return wc_error_set(s->err, WC_ENOMEM, "cannot start a thread");
	}
	return WC_OK;
}

/* Reader thread, at the end: the last block (when `flush`), then wait for
 * the metrics thread. -1 when it failed (its error into s->err). */
static int
pipe_finish(streams *s, int flush)
{
	if (!s->started)
		return 0;
	int rc = 0;
	if (flush && s->blk[s->fill].n > 0)
		rc = pipe_publish(s);
	pthread_mutex_lock(&s->mu);
	s->done = 1;
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
	pthread_join(s->worker, NULL);
	pthread_cond_destroy(&s->cv);
	pthread_mutex_destroy(&s->mu);
	s->started = 0;
	if (rc == 0 && flush && s->failed) {
		*s->err = s->worker_err;
		rc = -1;
	}
	return rc;
}

static int
on_sample(double t, const double *w, int n_gpus, void *payload)
{
	streams *s = payload;
	if (!s->started && pipe_start(s, n_gpus) != WC_OK)
		return -1;
	if (n_gpus != s->n_gpus) /* the reader fixes the GPUs at the first sample */
		return wc_error_set(s->err, WC_EINVAL, "the GPU count changed from %d to %d", s->n_gpus, n_gpus);
	pipe_block *b = &s->blk[s->fill];
	b->t[b->n] = t;
	memcpy(b->w + (size_t)b->n * (size_t)n_gpus, w, (size_t)n_gpus * sizeof *w);
	if (bound_early_now(s))
		b->bound_after = b->n;
	return ++b->n == PIPE_BLOCK ? pipe_publish(s) : 0;
}

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
	printf("  %-8s %9.1f %11.1f %8.1f %8.1f %8.1f %8.1f %8.1f %8.2f %9.2f %8.3f %8.2f\n", label,
	       m->duration_s, m->energy_j, m->mean_w, m->p5_w, m->p50_w, m->p95_w, m->max_w,
	       m->ramp_w_per_s, m->ramp_p95_w_per_s, m->spectral_entropy, m->period_s);
}

static const char *const count_flag[3] = { "--requests", "--output-tokens", "--iterations" };
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

/* What the log measured. */
typedef struct {
	wc_nvsmi_info info;
	wc_trace_metrics gm[WC_TELEMETRY_MAX_GPUS], total;
	int n_gpus, exact;
} metrics_result;

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
	while ((opt = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
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
			rc = cli_parse_double(cmd, "--max-bad", optarg, 0, 1, &topt->max_bad_fraction);
			if (rc == CLI_OK && topt->max_bad_fraction > 1)
				rc = cli_usage_error(cmd, "--max-bad: must be a fraction in [0, 1], got '%s'", optarg);
			break;
		case OPT_REQUESTS:
		case OPT_TOKENS:
		case OPT_ITERATIONS:
			rc = cli_parse_double(cmd, count_flag[opt - OPT_REQUESTS], optarg, 0, 0,
			                      &a->count[opt - OPT_REQUESTS]);
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

static void
free_streams(streams *s)
{
	pipe_finish(s, 0);
	for (int k = 0; k < PIPE_BLOCKS; k++) {
		free(s->blk[k].w);
		s->blk[k].w = NULL;
	}
	for (int g = 0; g < WC_TELEMETRY_MAX_GPUS; g++) {
		wc_trace_stream_free(s->gpu[g]);
		s->gpu[g] = NULL;
	}
	wc_trace_stream_free(s->group);
	s->group = NULL;
	s->n_gpus = 0;
}

/* Read the log into fresh streams: CLI_OK, CLI_FAIL (printed), or READ_AGAIN
 * when a trace was bounded too early. */
enum { READ_AGAIN = 100 };
static int
read_log(const char *cmd, const wc_telemetry_options *topt, const char *path, streams *s,
         metrics_result *m)
{
	free_streams(s);
	if (!(s->group = wc_trace_stream_new(0)))
		return cli_fail(cmd, "out of memory");
	s->info = &m->info;
	int rc = wc_nvsmi_read(path, topt, on_sample, s, &m->info, s->err);
	if (pipe_finish(s, rc == WC_OK) != 0 || rc != WC_OK)
		return cli_fail(cmd, "%s", s->err->msg);
	int early = wc_trace_stream_bound_too_early(s->group);
	for (int g = 0; g < s->n_gpus; g++)
		early = early || wc_trace_stream_bound_too_early(s->gpu[g]);
	return early ? READ_AGAIN : CLI_OK;
}

/* Finishing the traces (wc_trace_stream_finish) on threads: items k with
 * k % FINISH_THREADS == first. */
#define FINISH_THREADS 2
typedef struct {
	wc_trace_stream *s;
	wc_trace_metrics *out;
	int exact, rc;
	wc_error err;
} finish_one;

typedef struct {
	finish_one *items;
	int n, first;
} finish_job;

static void *
finish_worker(void *payload)
{
	finish_job *j = payload;
	for (int k = j->first; k < j->n; k += FINISH_THREADS)
		j->items[k].rc = wc_trace_stream_finish(j->items[k].s, j->items[k].out, &j->items[k].exact,
		                                        &j->items[k].err);
	return NULL;
}

/* Stream the log through the per-GPU and group accumulators of `s` and
 * finish them (the caller frees the streams). Errors are printed. A
 * regular file that turned out shorter than its size promised is read a
 * second time without bounding early, its warnings already shown. */
static int
measure(const char *cmd, const metrics_args *a, streams *s, metrics_result *m)
{
	wc_error *err = s->err;
	struct stat st;
	s->file_bytes = 0;
	if (strcmp(a->path, "-") != 0 && stat(a->path, &st) == 0 && S_ISREG(st.st_mode))
		s->file_bytes = (double)st.st_size;
	int rc = read_log(cmd, &a->topt, a->path, s, m);
	if (rc == READ_AGAIN) {
		wc_telemetry_options quiet = a->topt;
		quiet.warn = NULL;
		s->file_bytes = 0;
		rc = read_log(cmd, &quiet, a->path, s, m);
	}
	if (rc != CLI_OK)
		return rc;
	/* The traces are finished two at a time: each is independent of the
	 * others (and the spectra's FFTs are a tenth of the run), so the
	 * result does not depend on which thread finishes which. */
	finish_one items[WC_TELEMETRY_MAX_GPUS + 1];
	int n = s->n_gpus + 1;
	for (int g = 0; g < n; g++) {
		items[g].s = g < s->n_gpus ? s->gpu[g] : s->group;
		items[g].out = g < s->n_gpus ? &m->gm[g] : &m->total;
		items[g].err.code = 0;
		items[g].err.msg[0] = '\0';
	}
	finish_job jobs[FINISH_THREADS];
	for (int j = 0; j < FINISH_THREADS; j++)
		jobs[j] = (finish_job){ items, n, j };
	wc_run_jobs(jobs, sizeof jobs[0], n > 1 ? FINISH_THREADS : 1, finish_worker);
	for (int g = 0; g < n; g++) {
		if (items[g].rc != WC_OK) {
			*err = items[g].err;
			return cli_fail(cmd, "%s", err->msg);
		}
	}
	m->exact = items[s->n_gpus].exact; /* the group's: exact if and only if each GPU's is */
	m->n_gpus = s->n_gpus;
	return CLI_OK;
}

static int
print_metrics_json(const char *cmd, const metrics_args *a, const metrics_result *m)
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
	for (int g = 0; g < m->n_gpus; g++) {
		json_t *e = json_object();
		json_object_set_new(e, "index", info->index[g] >= 0 ? json_integer(info->index[g]) : json_null());
		json_object_set_new(e, "uuid", info->uuid[g][0] ? json_string(info->uuid[g]) : json_null());
		json_object_set_new(e, "metrics", metrics_json(&m->gm[g]));
		json_array_append_new(arr, e);
	}
	json_object_set_new(o, "per_gpu", arr);
	json_object_set_new(o, "group", metrics_json(&m->total));
	for (int c = 0; c < 3; c++)
		if (!isnan(a->count[c]))
			json_object_set_new(json_object_get(o, "group"), count_key[c],
			                    num_or_null(m->total.energy_j / a->count[c]));
	char *text = json_dumps(o, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
	json_decref(o);
	if (!text)
		return cli_fail(cmd, "out of memory");
	puts(text);
	free(text);
	return CLI_OK;
}

static void
print_metrics_text(const metrics_args *a, const metrics_result *m)
{
	const wc_nvsmi_info *info = &m->info;
	printf("%s: %d GPU%s, %zu samples, %zu data lines (%zu malformed, skipped)%s\n", a->path,
	       m->n_gpus, m->n_gpus == 1 ? "" : "s", info->samples, info->data_lines, info->bad_lines,
	       m->exact ? "" : "; long log: quantiles and spectrum in bounded mode");
	printf("  GPUs told apart by %s; widest sweep %.3f s, %zu sweep%s wider than %.0f ms\n",
	       info->gpu_count_source, info->max_sweep_span_s, info->wide_sweeps,
	       info->wide_sweeps == 1 ? "" : "s", 1000.0 * WC_NVSMI_SWEEP_TOL_S);
	printf("  %-8s %9s %11s %8s %8s %8s %8s %8s %8s %9s %8s %8s\n", "trace", "dur_s", "energy_j",
	       "mean_w", "p5_w", "p50_w", "p95_w", "max_w", "ramp_w/s", "ramp_p95", "entropy",
	       "period_s");
	for (int g = 0; g < m->n_gpus; g++) {
		char label[32];
		if (info->index[g] >= 0)
			snprintf(label, sizeof label, "GPU %d", info->index[g]);
		else
			snprintf(label, sizeof label, "GPU #%d", g);
		print_row(label, &m->gm[g]);
	}
	print_row("group", &m->total);
	for (int c = 0; c < 3; c++)
		if (!isnan(a->count[c]))
			printf("  %s %.6g (%g counted)\n", count_key[c], m->total.energy_j / a->count[c], a->count[c]);
}

int
cli_cmd_metrics(int argc, char **argv)
{
	const char *cmd = "metrics";
	metrics_args a = { NULL, WC_TELEMETRY_OPTIONS_INIT, 0, 0, { NAN, NAN, NAN } };
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
	streams s;
	wc_error err = { 0, "" };
	metrics_result m;
	memset(&s, 0, sizeof s);
	s.err = &err;
	m.exact = 1;
	if ((rc = measure(cmd, &a, &s, &m)) == CLI_OK) {
		if (a.json)
			rc = print_metrics_json(cmd, &a, &m);
		else
			print_metrics_text(&a, &m);
	}
	free_streams(&s);
	return rc;
}
