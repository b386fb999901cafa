/*
 * The capacity fit's evidence from every source (docs/capacity.md,
 * "Observations"): a runs table row gives the latency by Little's law
 * (running x output tokens / throughput, true for closed and open loops),
 * its median inter-token latency and time to first token when it carries
 * them; a periods table row gives the batch-turnover period, which is the
 * latency of a closed loop.
 */
#include "fit/capacity_fit.h"

#include "data/data.h"
#include "data/fileio.h"
#include "models/grow.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void
note(wc_capacity_data *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
note(wc_capacity_data *d, const char *fmt, ...)
{
	if (d->n_notes >= WC_WARNINGS_MAX)
		return;
	va_list ap;
	va_start(ap, fmt);
	wc_error_vformat(d->notes[d->n_notes++], WC_ERROR_MSG_MAX, fmt, ap);
	va_end(ap);
}

static int
append(wc_capacity_data *d, const wc_capacity_row *r, wc_error *err)
{
	wc_capacity_row *nr = wc_grow(d->rows, &d->cap_rows, d->n_rows + 1, sizeof *d->rows, 64);
	if (!nr)
		return wc_error_set(err, WC_ENOMEM, "capacity data: out of memory");
	d->rows = nr;
	d->rows[d->n_rows++] = *r;
	return WC_OK;
}

/* Fold a table's SHA-256 into the data's fingerprint. A table read from
 * no file (the empty periods table beside one runs table) has none and
 * adds nothing: one input's fingerprint is its file's SHA-256
 * (docs/formats/params-file.md, "capacity"), not the hash of that hash. */
static void
fold_sha(wc_capacity_data *d, const char *sha)
{
	char buf[130];
	if (!sha[0])
		return;
	snprintf(buf, sizeof buf, "%s%s", d->sha256, sha);
	if (!d->sha256[0])
		snprintf(d->sha256, sizeof d->sha256, "%s", sha);
	else
		wc_sha256_hex(buf, strlen(buf), d->sha256);
}

/* Architecture and platform of a row; 0 (with a note) when unknown. */
static int
resolve(wc_capacity_data *d, wc_capacity_row *r)
{
	const wc_model_info *m = wc_model_lookup(r->model);
	wc_error err;
	if (!wc_platform_lookup(r->platform)) {
		note(d, "%s: platform '%s' has no datasheet facts in the catalog; row skipped", r->id, r->platform);
		return 0;
	}
	if (!m) {
		note(d, "%s: model '%s' is not in the catalog (no architecture); row skipped", r->id, r->model);
		return 0;
	}
	if (wc_capacity_arch_make(m, r->weights, r->kv, &r->arch, &err) != WC_OK) {
		note(d, "%s: %s; row skipped", r->id, err.msg);
		return 0;
	}
	wc_capacity_arch_place(&r->arch, r->tp, r->expert_parallel > 1);
	snprintf(r->model_key, sizeof r->model_key, "%s", m->name);
	r->active_params_b = m->active_params_b;
	return 1;
}

static double
extra_number(const wc_runs_table *t, size_t i, const char *column)
{
	const char *v = wc_runs_get_extra(t, i, column);
	double x;
	if (!v || !*v || wc_parse_decimal(v, &x) != 0)
		return NAN;
	return x > 0 ? x : NAN;
}

static void
run_observations(const wc_runs_table *t, size_t i, wc_capacity_row *r)
{
	const wc_run *run = &t->runs[i];
	r->throughput_tok_s = run->throughput_tok_s > 0 ? run->throughput_tok_s : NAN;
	r->energy_per_token_j = run->energy_per_token_j > 0 ? run->energy_per_token_j : NAN;
	r->mean_power_w = run->mean_power_w;
	r->latency_s = wc_capacity_little_latency(r->running, r->output_tokens, r->throughput_tok_s);
	r->itl_s = extra_number(t, i, "itl_s");
	if (!isfinite(r->itl_s))
		r->itl_s = extra_number(t, i, "median_itl_ms") / 1000.0;
	r->ttft_s = extra_number(t, i, "ttft_s");
}

/* Keep `r` when its platform and architecture resolve; else count it
 * as skipped. */
static int
keep_row(wc_capacity_data *d, wc_capacity_row *r, wc_error *err)
{
	if (!resolve(d, r)) {
		d->n_skipped++;
		return WC_OK;
	}
	return append(d, r, err);
}

/* A zeroed row with the names of its source row. */
static void
row_names(wc_capacity_row *r, const char *id, const char *platform, const char *model, const char *set,
          const char *exclude)
{
	memset(r, 0, sizeof *r);
	snprintf(r->id, sizeof r->id, "%s", id);
	snprintf(r->platform, sizeof r->platform, "%s", platform);
	snprintf(r->model, sizeof r->model, "%s", model);
	snprintf(r->set, sizeof r->set, "%s", set);
	snprintf(r->exclude, sizeof r->exclude, "%s", exclude);
}

/* Row `r` from run i of `t`, with its observations. */
static void
run_row(const wc_runs_table *t, size_t i, wc_capacity_row *r)
{
	const wc_run *run = &t->runs[i];
	row_names(r, run->run_id, run->platform, run->model, run->set, run->exclude);
	r->tp = run->tp;
	r->running = run->series.len ? run->series.mean : run->running;
	r->input_tokens = run->input_tokens >= 0 ? run->input_tokens : NAN;
	r->output_tokens = run->output_tokens;
	r->weights = run->weights;
	r->kv = run->kv;
	r->source_index = i;
	r->expert_parallel = extra_number(t, i, "expert_parallel");
	run_observations(t, i, r);
}

/* Why a row is no evidence about time (WC_CAPACITY_UNTIMED_*), or -1. */
static int
untimed(const wc_capacity_row *r)
{
	if (!(r->running > 0))
		return WC_CAPACITY_UNTIMED_RUNNING;
	if (!(r->output_tokens > 0))
		return WC_CAPACITY_UNTIMED_OUTPUT;
	if (!(isfinite(r->latency_s) || isfinite(r->itl_s) || isfinite(r->ttft_s)))
		return WC_CAPACITY_UNTIMED_OBSERVED;
	return -1;
}

int
wc_capacity_run_untimed(const wc_runs_table *t, size_t i)
{
	wc_capacity_row r;
	run_row(t, i, &r);
	return untimed(&r);
}

const char *
wc_capacity_untimed_reason(int why)
{
	static const char *const reasons[WC_CAPACITY_UNTIMED_COUNT] = {
		"no running requests (running blank or 0)",
		"output_tokens blank (no tokens per request to turn throughput into time)",
		"a power-only run (no positive throughput_tok_s, itl_s, median_itl_ms or ttft_s)",
	};
	return why >= 0 && why < WC_CAPACITY_UNTIMED_COUNT ? reasons[why] : "?";
}

int
wc_capacity_data_add_runs(wc_capacity_data *d, const wc_runs_table *t, wc_error *err)
{
	int rc;
	fold_sha(d, t->sha256);
	for (size_t i = 0; i < t->n_runs; i++) {
		wc_capacity_row r;
		run_row(t, i, &r);
		if (untimed(&r) >= 0) {
			d->n_skipped++;
			continue; /* not evidence about time: a power-only run; no note (callers name them) */
		}
		if ((rc = keep_row(d, &r, err)) != WC_OK)
			return rc;
	}
	return WC_OK;
}

int
wc_capacity_data_add_periods(wc_capacity_data *d, const wc_periods_table *t, wc_error *err)
{
	int rc;
	fold_sha(d, t->sha256);
	for (size_t i = 0; i < t->n_rows; i++) {
		const wc_period_row *p = &t->rows[i];
		wc_capacity_row r;
		row_names(&r, p->run_id, p->platform, p->model, p->set, p->exclude);
		r.tp = p->tp;
		r.running = p->running;
		r.input_tokens = p->input_tokens;
		r.output_tokens = p->output_tokens;
		r.weights = p->weights;
		r.kv = p->kv;
		r.from_periods = 1;
		r.source_index = i;
		r.latency_s = p->period_s;
		r.itl_s = r.ttft_s = r.throughput_tok_s = r.energy_per_token_j = r.mean_power_w = NAN;
		if ((rc = keep_row(d, &r, err)) != WC_OK)
			return rc;
	}
	return WC_OK;
}

void
wc_capacity_data_clear(wc_capacity_data *d)
{
	if (!d)
		return;
	free(d->rows);
	memset(d, 0, sizeof *d);
}
