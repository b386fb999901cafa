/*
 * `wattcast ingest`: one measured run folder -> runs-table rows (SPEC §7)
 * with the grid-facing trace metrics (SPEC §4).
 *
 * The power log fixes the run's window (its first to last sample, epoch
 * after converting local time with the manifest's UTC offset). n(t) comes
 * from the engine's num_requests_running, held between samples, or, when
 * there is no engine log, from the per-request log; either way on a 50 ms
 * grid from the window start (SPEC §1). Idle power is per GPU over the
 * whole run (data/idle_power.c). A row is the whole window, or with
 * segments, consecutive pieces of it cut exactly (the trace is
 * interpolated at the cuts, so segment energies add up to the run's).
 * Cumulative engine counters are interpolated at the window ends. Energy
 * is split into prefill, decode and idle as TokenPowerBench does: per
 * 50 ms cell, prefill when any request awaits its first token, else
 * decode when any is generating, else idle (from request first-token
 * times), or, with engine counters only, idle when nothing runs and the
 * rest in the ratio of the prefill and decode time sums.
 */
#include "data/telemetry_internal.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct {
	const char *dir;
	char power_path[1024], engine_path[1024], req_path[1024];
	wc_run_manifest m;
	wc_power_trace *pt;
	wc_engine_log *eng;
	wc_request_log *req;
	double t0, t1;
	size_t ngrid;
	double *grid_n;            /* n(t) at t0 + k*GRID */
	const char *n_source;
	unsigned char *quiet;      /* per power sample: nothing running */
	double idle_gpu[WC_TELEMETRY_MAX_GPUS];
	const char *idle_source;
	size_t bad_lines;
} run_ctx;

void
wc_ingest_options_init(wc_ingest_options *o)
{
	memset(o, 0, sizeof *o);
	wc_run_manifest_init(&o->defaults);
	o->max_bad_fraction = WC_TELEMETRY_MAX_BAD;
	o->max_warnings = 20;
}

static int
file_exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static void
row_free(wc_ingest_row *r)
{
	free(r->series_t);
	free(r->series_running);
	r->series_t = r->series_running = NULL;
}

void
wc_ingest_result_clear(wc_ingest_result *res)
{
	for (size_t i = 0; i < res->n_rows; i++)
		row_free(&res->rows[i]);
	free(res->rows);
	memset(res, 0, sizeof *res);
}

/* ----------------------------------------------------------- the facts */

static const char *
base_name(const char *path, char *buf, size_t cap)
{
	size_t n = strlen(path);
	while (n > 1 && path[n - 1] == '/')
		n--;
	size_t s = n;
	while (s > 0 && path[s - 1] != '/')
		s--;
	snprintf(buf, cap, "%.*s", (int)(n - s), path + s);
	return buf;
}

static int
load_manifests(run_ctx *rc, const wc_ingest_options *opt, wc_error *err)
{
	char path[1024];
	int r;
	wc_run_manifest_init(&rc->m);
	snprintf(path, sizeof path, "%s/manifest.json", rc->dir);
	if (file_exists(path) && (r = wc_run_manifest_load(path, &rc->m, err)) != WC_OK)
		return r;
	snprintf(path, sizeof path, "%s/wattcast-run.json", rc->dir);
	if (file_exists(path) && (r = wc_run_manifest_load(path, &rc->m, err)) != WC_OK)
		return r;
	wc_run_manifest_fill(&rc->m, &opt->defaults);
	if (!rc->m.run_id[0])
		base_name(rc->dir, rc->m.run_id, sizeof rc->m.run_id);
	if (!rc->m.platform[0])
		return wc_error_set(err, WC_EINVAL, "%s: platform unknown (no manifest states it; give --platform)",
		                    rc->dir);
	const wc_model_info *mi = rc->m.model[0] ? wc_model_lookup(rc->m.model) : NULL;
	if (isnan(rc->m.active_params_b) && mi)
		rc->m.active_params_b = mi->active_params_b;
	if (isnan(rc->m.active_params_b))
		return wc_error_set(err, WC_EINVAL, "%s: active parameters unknown (%s; give --active-params)",
		                    rc->dir, rc->m.model[0] ? "model not in the catalog" : "no model named");
	if (!rc->m.model[0])
		return wc_error_set(err, WC_EINVAL, "%s: model unknown (give --model)", rc->dir);
	if (mi && isnan(rc->m.total_params_b))
		rc->m.total_params_b = mi->total_params_b;
	if (mi && !rc->m.architecture[0])
		snprintf(rc->m.architecture, sizeof rc->m.architecture, "%s", mi->architecture);
	return WC_OK;
}

static void
fwd_warn(const char *msg, void *payload)
{
	const wc_ingest_options *opt = payload;
	if (opt->warn)
		opt->warn(msg, opt->warn_payload);
}

static wc_telemetry_options
reader_options(const wc_ingest_options *opt)
{
	wc_telemetry_options t = WC_TELEMETRY_OPTIONS_INIT;
	t.max_bad_fraction = opt->max_bad_fraction > 0 ? opt->max_bad_fraction : WC_TELEMETRY_MAX_BAD;
	t.max_warnings = opt->max_warnings;
	t.warn = fwd_warn;
	t.warn_payload = (void *)opt;
	return t;
}

static int
read_files(run_ctx *rc, const wc_ingest_options *opt, wc_error *err)
{
	wc_telemetry_options t = reader_options(opt);
	const char *uuids[WC_TELEMETRY_MAX_GPUS];
	int r;
	/* Power first; an unknown UTC offset is refused after it, with the
	 * offset the engine clock suggests. */
	t.utc_offset_s = isnan(rc->m.utc_offset_s) ? 0.0 : rc->m.utc_offset_s;
	t.epoch_offset_s = rc->m.power_epoch_offset_s;
	t.n_gpus = rc->m.tp;
	for (int g = 0; g < rc->m.n_gpu_uuids; g++)
		uuids[g] = rc->m.gpu_uuids[g];
	t.gpu_uuids = rc->m.n_gpu_uuids ? uuids : NULL;
	t.n_gpu_uuids = (size_t)rc->m.n_gpu_uuids;
	if ((r = wc_power_trace_read(rc->power_path, &t, opt->max_samples, &rc->pt, err)) != WC_OK)
		return r;
	rc->bad_lines += rc->pt->info.bad_lines;
	if (rc->pt->n < 2)
		return wc_error_set(err, WC_EPARSE, "%s: fewer than two samples", rc->power_path);
	rc->t0 = rc->pt->t[0];
	rc->t1 = rc->pt->t[rc->pt->n - 1];
	if (rc->m.tp <= 0)
		rc->m.tp = rc->pt->info.n_gpus;
	else if (rc->pt->info.n_gpus != rc->m.tp)
		return wc_error_set(err, WC_EINVAL, "%s: holds %d GPUs, but the run has tp %d", rc->power_path,
		                    rc->pt->info.n_gpus, rc->m.tp);

	t = reader_options(opt);
	t.epoch_offset_s = rc->m.engine_epoch_offset_s;
	if (rc->engine_path[0]) {
		if ((r = wc_engine_read(rc->engine_path, &t, 0, &rc->eng, err)) != WC_OK)
			return r;
		rc->bad_lines += rc->eng->bad_lines;
		if (rc->eng->n == 0)
			return wc_error_set(err, WC_EPARSE, "%s: no rows", rc->engine_path);
	}
	if (rc->req_path[0] && (r = wc_request_log_read(rc->req_path, &t, &rc->req, err)) != WC_OK)
		return r;

	if (isnan(rc->m.utc_offset_s)) {
		if (rc->eng) {
			double guess = round((rc->t0 - rc->eng->t[0]) / 900.0) * 900.0;
			return wc_error_set(err, WC_EINVAL,
			                    "%s: power timestamps are local time and the UTC offset is unknown; "
			                    "give --utc-offset (the engine clock suggests %.0f)", rc->dir, guess);
		}
		return wc_error_set(err, WC_EINVAL, "%s: power timestamps are local time and the UTC offset "
		                    "is unknown; give --utc-offset", rc->dir);
	}
	return WC_OK;
}

/* Power and engine/request clocks must overlap once converted. */
static int
check_alignment(run_ctx *rc, wc_error *err)
{
	if (rc->eng) {
		double a = fmax(rc->t0, rc->eng->t[0]), b = fmin(rc->t1, rc->eng->t[rc->eng->n - 1]);
		if (!(b > a))
			return wc_error_set(err, WC_EINVAL,
			                    "%s: clocks cannot be aligned: power covers epoch %.3f-%.3f, engine "
			                    "%.3f-%.3f (UTC offset %.0f s); check the offset", rc->dir, rc->t0,
			                    rc->t1, rc->eng->t[0], rc->eng->t[rc->eng->n - 1], rc->m.utc_offset_s);
	}
	if (rc->req) {
		double lo = INFINITY, hi = -INFINITY;
		for (size_t i = 0; i < rc->req->n; i++) {
			lo = fmin(lo, rc->req->arrival[i]);
			hi = fmax(hi, rc->req->completion[i]);
		}
		if (!(fmin(rc->t1, hi) > fmax(rc->t0, lo)))
			return wc_error_set(err, WC_EINVAL,
			                    "%s: clocks cannot be aligned: power covers epoch %.3f-%.3f, requests "
			                    "%.3f-%.3f (UTC offset %.0f s); check the offset", rc->dir, rc->t0,
			                    rc->t1, lo, hi, rc->m.utc_offset_s);
	}
	return WC_OK;
}

/* n(t) on the grid, and which power samples are quiet. */
static int
build_load(run_ctx *rc, wc_error *err)
{
	const double dt = WC_INGEST_GRID_S;
	rc->ngrid = (size_t)floor((rc->t1 - rc->t0) / dt + 1e-9) + 1;
	rc->grid_n = malloc(rc->ngrid * sizeof *rc->grid_n);
	rc->quiet = malloc(rc->pt->n);
	if (!rc->grid_n || !rc->quiet)
		return wc_error_set(err, WC_ENOMEM, "%s: out of memory", rc->dir);
	int engine_n = rc->eng && rc->eng->col[WC_ENG_RUNNING];
	if (engine_n) {
		for (size_t k = 0; k < rc->ngrid; k++)
			rc->grid_n[k] = wc_engine_value_at(rc->eng, WC_ENG_RUNNING, rc->t0 + (double)k * dt);
		for (size_t i = 0; i < rc->pt->n; i++)
			rc->quiet[i] = wc_engine_value_at(rc->eng, WC_ENG_RUNNING, rc->pt->t[i]) == 0.0;
		rc->n_source = "engine";
	} else if (rc->req) {
		wc_request_log_running(rc->req, rc->t0, dt, rc->ngrid, rc->grid_n);
		for (size_t i = 0; i < rc->pt->n; i++) {
			size_t k = (size_t)floor((rc->pt->t[i] - rc->t0) / dt);
			rc->quiet[i] = rc->grid_n[k < rc->ngrid ? k : rc->ngrid - 1] == 0.0;
		}
		rc->n_source = "requests";
	} else {
		return wc_error_set(err, WC_EINVAL, "%s: no n(t): needs engine.csv with num_requests_running "
		                    "or a request log (requests.json / requests.csv)", rc->dir);
	}
	for (size_t k = 0; k < rc->ngrid; k++)
		if (isnan(rc->grid_n[k]))
			rc->grid_n[k] = 0.0; /* the engine had not reported yet */
	return WC_OK;
}

/* -------------------------------------------------------------- a window */

/* The group trace cut at [a, b], interpolated at the ends. */
static int
cut_trace(const run_ctx *rc, double a, double b, double **tout, double **pout, size_t *nout,
          wc_error *err)
{
	const double *t = rc->pt->t, *p = rc->pt->group;
	size_t n = rc->pt->n, i = 0, j;
	while (i < n && t[i] < a)
		i++;
	j = i;
	while (j < n && t[j] <= b)
		j++;
	size_t cap = (j - i) + 2, k = 0;
	double *ct = malloc(cap * sizeof *ct), *cp = malloc(cap * sizeof *cp);
	if (!ct || !cp) {
		free(ct);
		free(cp);
		return wc_error_set(err, WC_ENOMEM, "%s: out of memory", rc->dir);
	}
	if (i > 0 && i < n && t[i] > a) {
		ct[k] = a;
		cp[k++] = p[i - 1] + (p[i] - p[i - 1]) * (a - t[i - 1]) / (t[i] - t[i - 1]);
	}
	for (size_t s = i; s < j; s++) {
		ct[k] = t[s];
		cp[k++] = p[s];
	}
	if (j > 0 && j < n && t[j - 1] < b) {
		ct[k] = b;
		cp[k++] = p[j - 1] + (p[j] - p[j - 1]) * (b - t[j - 1]) / (t[j] - t[j - 1]);
	}
	*tout = ct;
	*pout = cp;
	*nout = k;
	return WC_OK;
}

static double
counter_delta(const run_ctx *rc, wc_engine_column c, double a, double b)
{
	if (!rc->eng || !rc->eng->col[c])
		return NAN;
	return wc_engine_value_at(rc->eng, c, b) - wc_engine_value_at(rc->eng, c, a);
}

/* Energy per 50 ms cell of the cut trace: complete cells from the bin
 * means, the remainder in a last partial cell; returns the cell count. */
static size_t
cell_energies(const double *ct, const double *cp, size_t cn, double total, double **out)
{
	const double dt = WC_INGEST_GRID_S;
	size_t full = wc_trace_bin_means(ct, cp, cn, dt, NULL, 0);
	double *e = malloc((full + 1) * sizeof *e);
	if (!e)
		return 0;
	wc_trace_bin_means(ct, cp, cn, dt, e, full);
	double sum = 0.0;
	for (size_t k = 0; k < full; k++) {
		e[k] *= dt;
		sum += e[k];
	}
	e[full] = total - sum;
	*out = e;
	return full + 1;
}

static void
phases(const run_ctx *rc, double a, const double *ct, const double *cp, size_t cn,
       wc_ingest_row *row)
{
	const double dt = WC_INGEST_GRID_S;
	double *cell = NULL, *pre = NULL, *dec = NULL;
	int by_requests = rc->req != NULL;
	for (size_t i = 0; by_requests && i < rc->req->n; i++)
		if (isnan(rc->req->first_token[i]))
			by_requests = 0;
	int by_engine = !by_requests && rc->eng && rc->eng->col[WC_ENG_RUNNING] &&
	                rc->eng->col[WC_ENG_PREFILL_S] && rc->eng->col[WC_ENG_DECODE_S];
	if (!by_requests && !by_engine)
		return;
	size_t nc = cell_energies(ct, cp, cn, row->metrics.energy_j, &cell);
	if (nc == 0)
		return;
	double e_pre = 0.0, e_dec = 0.0, e_idle = 0.0;
	if (by_requests) {
		pre = malloc(nc * sizeof *pre);
		dec = malloc(nc * sizeof *dec);
		if (!pre || !dec)
			goto done;
		/* Counts at cell midpoints (the last, partial cell: its start). */
		wc__interval_counts(rc->req->arrival, rc->req->first_token, rc->req->n, a + 0.5 * dt, dt, nc,
		                    pre);
		wc__interval_counts(rc->req->first_token, rc->req->completion, rc->req->n, a + 0.5 * dt, dt,
		                    nc, dec);
		for (size_t k = 0; k < nc; k++) {
			if (pre[k] > 0)
				e_pre += cell[k];
			else if (dec[k] > 0)
				e_dec += cell[k];
			else
				e_idle += cell[k];
		}
		snprintf(row->phase_source, sizeof row->phase_source, "requests");
	} else {
		double dp = counter_delta(rc, WC_ENG_PREFILL_S, row->start_epoch, row->end_epoch);
		double dd = counter_delta(rc, WC_ENG_DECODE_S, row->start_epoch, row->end_epoch);
		if (!(dp + dd > 0))
			goto done;
		double busy = 0.0;
		for (size_t k = 0; k < nc; k++) {
			double n = wc_engine_value_at(rc->eng, WC_ENG_RUNNING, a + ((double)k + 0.5) * dt);
			if (n > 0)
				busy += cell[k];
			else
				e_idle += cell[k];
		}
		e_pre = busy * dp / (dp + dd);
		e_dec = busy - e_pre;
		snprintf(row->phase_source, sizeof row->phase_source, "engine");
	}
	row->prefill_energy_j = e_pre;
	row->decode_energy_j = e_dec;
	row->idle_energy_j = e_idle;
done:
	free(cell);
	free(pre);
	free(dec);
}

static int
make_row(const run_ctx *rc, const wc_ingest_options *opt, int seg, double a, double b, int last,
         int whole, wc_ingest_row *row, wc_error *err)
{
	double *ct = NULL, *cp = NULL;
	size_t cn = 0;
	int r;
	memset(row, 0, sizeof *row);
	wc_run_init(&row->run);
	wc_trace_metrics_init(&row->metrics);
	row->start_epoch = a;
	row->end_epoch = b;
	row->requests = row->iterations = NAN;
	row->energy_per_request_j = row->energy_per_iteration_j = NAN;
	row->prefill_energy_j = row->decode_energy_j = row->idle_energy_j = NAN;
	row->request_rate = rc->m.request_rate;
	row->burstiness = rc->m.burstiness;
	row->bad_lines = rc->bad_lines;
	row->n_gpus = rc->pt->info.n_gpus;
	memcpy(row->idle_gpu_w, rc->idle_gpu, sizeof row->idle_gpu_w);
	snprintf(row->idle_source, sizeof row->idle_source, "%s", rc->idle_source);
	snprintf(row->n_source, sizeof row->n_source, "%s", rc->n_source);

	wc_run *run = &row->run;
	if (opt->segment_s > 0)
		snprintf(run->run_id, sizeof run->run_id, "%.80s#seg%d", rc->m.run_id, seg);
	else
		snprintf(run->run_id, sizeof run->run_id, "%s", rc->m.run_id);
	snprintf(run->platform, sizeof run->platform, "%s", rc->m.platform);
	run->tp = rc->m.tp;
	snprintf(run->model, sizeof run->model, "%s", rc->m.model);
	run->active_params_b = rc->m.active_params_b;
	run->total_params_b = rc->m.total_params_b;
	snprintf(run->architecture, sizeof run->architecture, "%s", rc->m.architecture);
	run->weights = rc->m.weights >= 0 ? (wc_precision)rc->m.weights : WC_PREC_BF16;
	run->kv = rc->m.kv >= 0 ? (wc_precision)rc->m.kv : WC_PREC_BF16;
	run->sm_clock_mhz = isfinite(rc->m.sm_clock_mhz) ? rc->m.sm_clock_mhz : 0.0;
	snprintf(run->workload, sizeof run->workload, "%s", rc->m.workload);

	/* Power. */
	if ((r = cut_trace(rc, a, b, &ct, &cp, &cn, err)) != WC_OK)
		return r;
	if ((r = wc_trace_metrics_compute(ct, cp, cn, &row->metrics, err)) != WC_OK)
		goto done;
	run->mean_power_w = row->metrics.mean_w;
	if (!isfinite(run->mean_power_w)) {
		r = wc_error_set(err, WC_EINVAL, "%s: the window %.3f-%.3f holds fewer than two power samples "
		                 "(segment too short?)", rc->dir, a, b);
		goto done;
	}
	double idle_sum = 0.0;
	for (int g = 0; g < row->n_gpus; g++)
		idle_sum += rc->idle_gpu[g];
	run->idle_power_w = idle_sum / row->n_gpus; /* NaN if any GPU's is unknown */

	/* n(t) over the window's grid points. */
	const double dt = WC_INGEST_GRID_S;
	size_t k0 = (size_t)ceil((a - rc->t0) / dt - 1e-9), k1 = k0;
	while (k1 < rc->ngrid && rc->t0 + (double)k1 * dt < b - 1e-9)
		k1++;
	if (last && k1 < rc->ngrid && rc->t0 + (double)k1 * dt <= b + 1e-9)
		k1++;
	if (k1 > k0) {
		row->series_len = k1 - k0;
		row->series_t = malloc(row->series_len * sizeof(double));
		row->series_running = malloc(row->series_len * sizeof(double));
		if (!row->series_t || !row->series_running) {
			r = wc_error_set(err, WC_ENOMEM, "%s: out of memory", rc->dir);
			goto done;
		}
		double sum = 0.0;
		for (size_t k = k0; k < k1; k++) {
			row->series_t[k - k0] = rc->t0 + (double)k * dt - a;
			row->series_running[k - k0] = rc->grid_n[k];
			sum += rc->grid_n[k];
		}
		run->running = sum / (double)row->series_len;
	}

	/* Counts: requests completed in the window, tokens and iterations
	 * from the engine's counters. */
	double out_tok = counter_delta(rc, WC_ENG_GENERATION_TOKENS, a, b);
	double in_tok = counter_delta(rc, WC_ENG_PROMPT_TOKENS, a, b);
	row->iterations = counter_delta(rc, WC_ENG_ITERATIONS, a, b);
	if (rc->req) {
		double cnt = 0, in_sum = 0, out_sum = 0, in_n = 0, out_n = 0;
		for (size_t i = 0; i < rc->req->n; i++) {
			double c = rc->req->completion[i];
			if (c < a || c > b || (c == b && !last))
				continue;
			cnt++;
			if (isfinite(rc->req->input_tokens[i])) {
				in_sum += rc->req->input_tokens[i];
				in_n++;
			}
			if (isfinite(rc->req->output_tokens[i])) {
				out_sum += rc->req->output_tokens[i];
				out_n++;
			}
		}
		row->requests = cnt;
		if (in_n > 0)
			run->input_tokens = in_sum / in_n;
		if (out_n > 0)
			run->output_tokens = out_sum / out_n;
		if (isnan(out_tok) && out_n == cnt && cnt > 0)
			out_tok = out_sum;
	} else if (whole && isfinite(rc->m.requests)) {
		/* The load generator's count holds for the whole run only. */
		row->requests = rc->m.requests;
		if (row->requests > 0) {
			run->input_tokens = in_tok / row->requests;
			run->output_tokens = out_tok / row->requests;
		}
	}
	double dur = b - a, e = row->metrics.energy_j;
	if (isfinite(out_tok) && dur > 0)
		run->throughput_tok_s = out_tok / dur;
	if (out_tok > 0)
		run->energy_per_token_j = e / out_tok;
	if (row->requests > 0)
		row->energy_per_request_j = e / row->requests;
	if (row->iterations > 0)
		row->energy_per_iteration_j = e / row->iterations;
	/* Best effort: out of memory here leaves the phases blank. */
	phases(rc, a, ct, cp, cn, row);
	r = WC_OK;
done:
	free(ct);
	free(cp);
	if (r != WC_OK)
		row_free(row);
	return r;
}

static int
reserve(wc_ingest_result *res, size_t more)
{
	if (res->n_rows + more <= res->cap)
		return 0;
	size_t cap = res->cap ? res->cap : 16;
	while (cap < res->n_rows + more)
		cap *= 2;
	wc_ingest_row *nr = realloc(res->rows, cap * sizeof *nr);
	if (!nr)
		return -1;
	res->rows = nr;
	res->cap = cap;
	return 0;
}

int
wc_ingest_run(const char *run_dir, const wc_ingest_options *opt, wc_ingest_result *res,
              wc_error *err)
{
	run_ctx rc;
	wc_ingest_row *rows = NULL;
	size_t nrows = 0;
	int r;
	memset(&rc, 0, sizeof rc);
	rc.dir = run_dir;
	snprintf(rc.power_path, sizeof rc.power_path, "%s/power.csv", run_dir);
	if (!file_exists(rc.power_path))
		return wc_error_set(err, WC_ENOTFOUND, "%s: no power.csv", run_dir);
	snprintf(rc.engine_path, sizeof rc.engine_path, "%s/engine.csv", run_dir);
	if (!file_exists(rc.engine_path))
		rc.engine_path[0] = '\0';
	snprintf(rc.req_path, sizeof rc.req_path, "%s/requests.json", run_dir);
	if (!file_exists(rc.req_path)) {
		snprintf(rc.req_path, sizeof rc.req_path, "%s/requests.csv", run_dir);
		if (!file_exists(rc.req_path))
			rc.req_path[0] = '\0';
	}
	if ((r = load_manifests(&rc, opt, err)) != WC_OK || (r = read_files(&rc, opt, err)) != WC_OK ||
	    (r = check_alignment(&rc, err)) != WC_OK || (r = build_load(&rc, err)) != WC_OK)
		goto done;

	/* Per GPU; the weakest source in the group names the row's. */
	static const char *const rank[] = { "none", "quiet_short", "quiet_stretch", "window" };
	int worst = 3;
	for (int g = 0; g < rc.pt->info.n_gpus; g++) {
		const char *src = wc__idle_power(rc.pt->t, rc.pt->power[g], rc.pt->n, rc.quiet, rc.m.idle_start,
		                                 rc.m.idle_end, &rc.idle_gpu[g]);
		int k = 0;
		while (k < 3 && strcmp(rank[k], src) != 0)
			k++;
		if (k < worst)
			worst = k;
	}
	rc.idle_source = rank[worst];

	/* Windows: the run, or segments (a remainder under half a segment
	 * joins the last one). */
	double span = rc.t1 - rc.t0, seg = opt->segment_s;
	size_t nseg = 1;
	if (seg > 0 && span > seg) {
		nseg = (size_t)floor(span / seg);
		if (span - (double)nseg * seg >= 0.5 * seg)
			nseg++;
	}
	rows = calloc(nseg, sizeof *rows);
	if (!rows || reserve(res, nseg) != 0) {
		r = wc_error_set(err, WC_ENOMEM, "%s: out of memory", run_dir);
		goto done;
	}
	for (size_t s = 0; s < nseg; s++) {
		double a = rc.t0 + (double)s * (seg > 0 ? seg : span);
		double b = s + 1 == nseg ? rc.t1 : rc.t0 + (double)(s + 1) * seg;
		if ((r = make_row(&rc, opt, (int)s + 1, a, b, s + 1 == nseg, nseg == 1, &rows[s], err)) != WC_OK)
			goto done;
		nrows++;
	}
	/* All rows made: hand them over (capacity was reserved). */
	memcpy(res->rows + res->n_rows, rows, nseg * sizeof *rows);
	res->n_rows += nseg;
	nrows = 0;
	r = WC_OK;
done:
	/* Refused: the rows made so far go; `res` never saw them. */
	for (size_t i = 0; i < nrows; i++)
		row_free(&rows[i]);
	free(rows);
	wc_power_trace_free(rc.pt);
	wc_engine_free(rc.eng);
	wc_request_log_free(rc.req);
	free(rc.grid_n);
	free(rc.quiet);
	return r;
}

/* ------------------------------------------------------------ discovery */

typedef struct {
	char **v;
	size_t n, cap;
} path_list;

static int
push_path(path_list *l, const char *p)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 16;
		char **nv = realloc(l->v, cap * sizeof *nv);
		if (!nv)
			return -1;
		l->v = nv;
		l->cap = cap;
	}
	if (!(l->v[l->n] = strdup(p)))
		return -1;
	l->n++;
	return 0;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int
find_under(const char *dir, int depth, path_list *out)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/power.csv", dir);
	if (file_exists(path))
		return push_path(out, dir);
	if (depth == 0)
		return 0;
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	path_list subs = { NULL, 0, 0 };
	struct dirent *e;
	int rc = 0;
	while (rc == 0 && (e = readdir(d)) != NULL) {
		struct stat st;
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
			rc = push_path(&subs, path);
	}
	closedir(d);
	if (subs.n)
		qsort(subs.v, subs.n, sizeof *subs.v, cmp_str);
	for (size_t i = 0; i < subs.n; i++) {
		if (rc == 0)
			rc = find_under(subs.v[i], depth - 1, out);
		free(subs.v[i]);
	}
	free(subs.v);
	return rc;
}

int
wc_ingest_find_runs(const char *dir, char ***out, size_t *n, wc_error *err)
{
	path_list l = { NULL, 0, 0 };
	struct stat st;
	*out = NULL;
	*n = 0;
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
		return wc_error_set(err, WC_ENOTFOUND, "%s: not a folder", dir);
	if (find_under(dir, 4, &l) != 0) {
		for (size_t i = 0; i < l.n; i++)
			free(l.v[i]);
		free(l.v);
		return wc_error_set(err, WC_ENOMEM, "%s: out of memory", dir);
	}
	if (l.n == 0) {
		free(l.v);
		return wc_error_set(err, WC_ENOTFOUND, "%s: no run folder (one holding power.csv) in or under it",
		                    dir);
	}
	*out = l.v;
	*n = l.n;
	return WC_OK;
}
