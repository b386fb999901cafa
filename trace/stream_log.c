/*
 * The metrics of a whole nvidia-smi log through bounded streams, with the
 * reader -> metrics pipeline (trace/stream_log.h states the threading).
 */
#include "trace/stream_log.h"
#include "trace/stream.h"
#include "models/grow.h"
#include "models/parallel.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The samples travel from the reader (the caller's thread) to the traces'
 * metrics (a thread of their own) in blocks, so that parsing and the
 * metrics run side by side; the metrics thread takes the blocks in order,
 * so the result is the one a single thread gives. */
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

/* Read the log into fresh streams: WC_OK, a WC_* error (in s->err), or
 * READ_AGAIN when a trace was bounded too early. */
enum { READ_AGAIN = 1 };
static int
read_log(const char *path, const wc_telemetry_options *opt, streams *s, wc_nvsmi_info *info)
{
	free_streams(s);
	if (!(s->group = wc_trace_stream_new(0)))
		return wc_error_set(s->err, WC_ENOMEM, "out of memory");
	s->info = info;
	int rc = wc_nvsmi_read(path, opt, on_sample, s, info, s->err);
	if (pipe_finish(s, rc == WC_OK) != 0 || rc != WC_OK)
		return s->err->code != 0 ? s->err->code : WC_EINVAL;
	int early = wc_trace_stream_bound_too_early(s->group);
	for (int g = 0; g < s->n_gpus; g++)
		early = early || wc_trace_stream_bound_too_early(s->gpu[g]);
	return early ? READ_AGAIN : WC_OK;
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

/* Stream the log through `s` and finish every trace into `out`. */
static int
measure(const char *path, const wc_telemetry_options *opt, streams *s, wc_trace_log_metrics *out)
{
	struct stat st;
	s->file_bytes = 0;
	if (strcmp(path, "-") != 0 && stat(path, &st) == 0 && S_ISREG(st.st_mode))
		s->file_bytes = (double)st.st_size;
	out->reads = 1;
	int rc = read_log(path, opt, s, &out->info);
	if (rc == READ_AGAIN) {
		wc_telemetry_options quiet = *opt;
		quiet.warn = NULL;
		s->file_bytes = 0;
		out->reads = 2;
		rc = read_log(path, &quiet, s, &out->info);
	}
	if (rc != WC_OK)
		return rc;
	/* The traces are finished two at a time: each is independent of the
	 * others (and the spectra's FFTs are a tenth of the run), so the
	 * result does not depend on which thread finishes which. */
	finish_one items[WC_TELEMETRY_MAX_GPUS + 1];
	int n = s->n_gpus + 1;
	for (int g = 0; g < n; g++) {
		items[g].s = g < s->n_gpus ? s->gpu[g] : s->group;
		items[g].out = g < s->n_gpus ? &out->gpu[g] : &out->group;
		items[g].err.code = 0;
		items[g].err.msg[0] = '\0';
	}
	finish_job jobs[FINISH_THREADS];
	for (int j = 0; j < FINISH_THREADS; j++)
		jobs[j] = (finish_job){ items, n, j };
	wc_run_jobs(jobs, sizeof jobs[0], n > 1 ? FINISH_THREADS : 1, finish_worker);
	for (int g = 0; g < n; g++) {
		if (items[g].rc != WC_OK) {
			*s->err = items[g].err;
			return items[g].rc;
		}
	}
	out->exact = items[s->n_gpus].exact; /* the group's: exact if and only if each GPU's is */
	out->n_gpus = s->n_gpus;
	return WC_OK;
}

int
wc_trace_log_measure(const char *path, const wc_telemetry_options *opt, wc_trace_log_metrics *out,
                     wc_error *err)
{
	static const wc_telemetry_options defaults = WC_TELEMETRY_OPTIONS_INIT;
	streams *s = calloc(1, sizeof *s);
	if (!s)
		return wc_error_set(err, WC_ENOMEM, "out of memory");
	wc_error local = { 0, "" };
	s->err = err ? err : &local;
	s->err->code = 0;
	out->exact = 1;
	out->n_gpus = 0;
	int rc = measure(path, opt ? opt : &defaults, s, out);
	free_streams(s);
	free(s);
	return rc;
}
