/*
 * Windows into runs-table rows (docs/fleet.md, "Rows"): means over the
 * window's steps, token rates from the counters' increases, mean TTFT and
 * inter-token latency from the histograms' sums and counts, and the
 * platform and model the group's labels name.
 */
#include "fleet_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/catalog.h"
#include "models/law.h"
#include "models/grow.h"
#include "trace/idle.h"

/* The mean increase per second of counter c over the window: its counted
 * increases over the time between the samples they run between
 * (docs/fleet.md, "Rows"); NaN unknown. Over the steps they span, an
 * engine scrape outage of 9 s put 20 s of tokens in one 15 s step: +37 %. */
static double
rate(const fleet_window *w, int m)
{
	int c = m - WC_FLEET_FIRST_COUNTER;
	return w->n_inc[c] && w->dt_inc[c] > 0 ? w->inc[c] / w->dt_inc[c] : NAN;
}

static double
ratio(const fleet_window *w, int sum, int count)
{
	double n = w->inc[count - WC_FLEET_FIRST_COUNTER];
	return w->n_inc[count - WC_FLEET_FIRST_COUNTER] && n > 0
	       ? w->inc[sum - WC_FLEET_FIRST_COUNTER] / n : NAN;
}

static int
row_model(const wc_fleet *f, const fleet_group *g, wc_run *run, wc_error *err)
{
	if (!g->model[0])
		return wc__fleet_error(err, WC_EINVAL, g->engine_series, "no model_name label: give --model NAME (it "
		                       "names the model of series without model_name)");
	const wc_model_info *info = wc_model_lookup(g->model);
	snprintf(run->model, sizeof run->model, "%s", g->model);
	run->weights = wc_model_name_run_weights(g->model, run->weights); /* "-AWQ": as ingest_row's */
	run->active_params_b = info ? info->active_params_b : f->o.active_params_b;
	if (info) {
		run->total_params_b = info->total_params_b;
		run->architecture = info->architecture;
	}
	if (!(run->active_params_b > 0))
		return wc__fleet_error(err, WC_EINVAL, g->engine_series, "model '%.60s' is not in the model "
		                       "catalog; --active-params B gives its active parameters", g->model);
	return WC_OK;
}

/* --model names the model of an engine whose series carry no
 * model_name (TGI's; docs/fleet.md, "Grouping"): where they do, the
 * label wins, as --platform gives way to the GPUs' modelName (fleet.c).
 * `--model Llama-3.1-8B` over series of model_name="Qwen/Qwen3-8B" was
 * ignored without a word. */
void
wc__fleet_say_model_unused(wc_fleet *f)
{
	const char *first = NULL, *names = NULL;
	size_t n = 0;
	if (!f->o.model || !f->o.model[0])
		return;
	for (size_t i = 0; i < f->n_groups; i++) {
		const fleet_group *g = &f->g[i];
		if (g->ever_engine && g->model_labelled && strcmp(g->model, f->o.model) != 0) {
			first = first ? first : g->name;
			names = names ? names : g->model;
			n++;
		}
	}
	if (n)
		wc__fleet_warn(f, "--model %.64s: not applied to %zu group%s ('%.40s' first): their engines' "
		               "model_name names %.60s, and what the data states wins; --model names the model of "
		               "series without model_name", f->o.model, n, n == 1 ? "" : "s", first, names);
}

int
wc__fleet_emit(wc_fleet *f, fleet_group *g, const fleet_window *w, wc_error *err)
{
	fleet_row r;
	char at[40];
	memset(&r, 0, sizeof r);
	wc_run_init(&r.run);
	int rc = row_model(f, g, &r.run, err);
	if (rc != WC_OK)
		return rc;
	snprintf(r.group, sizeof r.group, "%s", g->key);
	snprintf(r.host, sizeof r.host, "%s", g->host);
	snprintf(r.ns, sizeof r.ns, "%s", g->ns);
	snprintf(r.pod, sizeof r.pod, "%s", g->pod);
	r.start = w->t0;
	r.end = w->t1;
	r.duration = (double)w->n * f->o.step;
	wc_prom_format_time(w->t0, at, sizeof at);
	snprintf(r.run.run_id, sizeof r.run.run_id, "%.70s#%.24s", g->name, at);
	snprintf(r.run.platform, sizeof r.run.platform, "%s", g->platform);
	/* The engine's TP, not the GPUs that reported (partial power). */
	r.run.tp = w->n_gpus < g->full_gpus ? g->full_gpus : w->n_gpus;
	r.run.running = w->running / (double)w->n;
	r.run.mean_power_w = w->power / (double)w->n;
	r.waiting = w->n_waiting ? w->waiting / (double)w->n_waiting : NAN;
	r.prompt_tok_s = rate(w, WC_FLEET_PROMPT);
	r.generation_tok_s = rate(w, WC_FLEET_GENERATION);
	r.ttft_s = ratio(w, WC_FLEET_TTFT_SUM, WC_FLEET_TTFT_COUNT);
	r.itl_s = ratio(w, WC_FLEET_ITL_SUM, WC_FLEET_ITL_COUNT);
	/* A token counter that counts a request's tokens when it finishes
	 * (SGLang's) is no rate over a window (docs/fleet.md, "Metrics"):
	 * each such counter's blank said once for the group, naming it. The
	 * way out is named where there is one: realtime_tokens_total's decode
	 * mode counts generated tokens as they are; its prefill modes are not
	 * read (docs/formats/telemetry.md, "SGLang's token counters count at
	 * completion"), so the prompt rate has none. */
	static const char *const blank_cols[2] = { "prompt_tok_s is",
	                                           "generation_tok_s, throughput_tok_s and energy_per_token_j are" };
	static const char *const way_out[2] = { "", " (sglang:realtime_tokens_total{mode=\"decode\"} counts them as "
	                                            "generated)" };
	for (int k = 1; k >= 0; k--) {
		if (!g->at_end[k][0])
			continue;
		if (k == 0)
			r.prompt_tok_s = NAN;
		else
			r.generation_tok_s = NAN;
		if (g->at_end_said >> k & 1)
			continue;
		g->at_end_said |= 1 << k;
		wc__fleet_warn(f, "group '%.60s': %.48s counts a request's tokens when it finishes: no rate, so %s blank%s",
		               g->name, g->at_end[k], blank_cols[k], way_out[k]);
	}
	int engines = 0;
	for (int k = 0; k < g->n_engine_slots; k++)
		engines += g->engine_label[k][0] != '\0';
	/* The law models one tensor-parallel replica (docs/formats/telemetry.md,
	 * "Data-parallel engines"): a group of several is not one, say so. */
	if (engines >= 2 && !g->dp_said) {
		g->dp_said = 1;
		wc__fleet_warn(f, "group '%.60s': running adds up %d data-parallel engines on %d GPUs, read as one "
		               "replica of tp %d; for a row per replica ingest a run folder stating \"tp\" and "
		               "\"data_parallel\"", g->name, engines, r.run.tp, r.run.tp);
	}
	r.run.throughput_tok_s = r.generation_tok_s;
	if (r.generation_tok_s > 0)
		r.run.energy_per_token_j = r.run.mean_power_w / r.generation_tok_s;
	const int partial = w->n_gpus < g->full_gpus;
	if (partial)
		snprintf(r.run.exclude, sizeof r.run.exclude, "partial power: %d of %d GPUs reported",
		         w->n_gpus, g->full_gpus);
	/* An idle window's power over a few stray tokens is idle power, not
	 * the cost of a token (58 J where the engine ran 0 requests): its
	 * energy per token is blank. A stated idle window is never a load
	 * row (docs/formats/telemetry.md, "Load levels and idle windows"); a
	 * found one is excluded the same way: at running 0.06 it weighed as
	 * much as a loaded window in the log-dynamic-power calibration and
	 * pulled it 19 % low (docs/fleet.md, "Rows"). One rule with
	 * `ingest --segment` (trace/idle.h); partial power says so first. */
	if (wc_trace_idle_row(r.run.running, &r.run.energy_per_token_j, NULL, NULL, r.run.exclude,
	                      sizeof r.run.exclude)) {
		if (!partial)
			f->n_idle_rows++;
	} else if (!partial && r.generation_tok_s == 0) {
		/* Requests running and not one token generated over the window's
		 * counted steps: a hung engine (a stuck NCCL collective, a
		 * deadlocked scheduler) that still draws power, no load the law
		 * describes. As an ordinary row it went into fits at its running
		 * count with a throughput of 0 (docs/fleet.md, "Rows"). Said
		 * once per group. */
		double span = w->dt_inc[WC_FLEET_GENERATION - WC_FLEET_FIRST_COUNTER];
		snprintf(r.run.exclude, sizeof r.run.exclude, "stalled: %.3g running requests on average and no token "
		         "generated over %.10g s (a hung engine?)", r.run.running, span);
		if (!g->stall_said) {
			g->stall_said = 1;
			wc__fleet_warn(f, "group '%.60s': the row at %s ran %.3g requests on average and generated no "
			               "token over %.10g s (%.48s flat): a stalled engine, excluded as 'stalled'", g->name,
			               at, r.run.running, span, g->counter_series[WC_FLEET_GENERATION - WC_FLEET_FIRST_COUNTER][0]
			               ? wc_fleet_metric_name(WC_FLEET_GENERATION) : "its counter");
		}
	} else if (!partial && r.duration < f->o.min_window_s) {
		/* To the ms, as the summary prints it, or every digit when that
		 * rounds up to the bound: "%.0f" said a 9.728 s window was "10 s
		 * of steady load (< 10 s)" (docs/fleet.md, "Windows"). */
		char dur[32];
		snprintf(dur, sizeof dur, "%.3f", r.duration);
		if (!(strtod(dur, NULL) < f->o.min_window_s))
			wc_num_text(dur, r.duration);
		snprintf(r.run.exclude, sizeof r.run.exclude, "short window: %s s of steady load (< %s s)", dur,
		         WC_NUM_TEXT(f->o.min_window_s));
	}
	fleet_row *nr = wc_grow(f->rows, &f->cap_rows, f->n_rows + 1, sizeof *nr, 64);
	if (!nr)
		return wc_error_set(err, WC_ENOMEM, "out of memory");
	f->rows = nr;
	f->rows[f->n_rows++] = r;
	return WC_OK;
}

static int
by_group_start(const void *a, const void *b)
{
	const fleet_row *x = a, *y = b;
	int c = strcmp(x->group, y->group);
	return c ? c : (x->start > y->start) - (x->start < y->start);
}

static void
put(char *buf, size_t size, const char *fmt, double v)
{
	if (isfinite(v))
		snprintf(buf, size, fmt, v);
	else
		buf[0] = '\0';
}

/* The extra columns of row i (docs/fleet.md, "Rows"). */
static int
row_extras(wc_runs_table *t, size_t i, const fleet_row *r, wc_error *err)
{
	const char *cols[] = { "start_epoch", "end_epoch", "duration_s", "waiting", "prompt_tok_s",
	                       "generation_tok_s", "ttft_s", "itl_s" };
	const double vals[] = { r->start, r->end, r->duration, r->waiting, r->prompt_tok_s,
	                        r->generation_tok_s, r->ttft_s, r->itl_s };
	char buf[64];
	int rc = WC_OK;
	for (size_t c = 0; rc == WC_OK && c < sizeof vals / sizeof vals[0]; c++) {
		put(buf, sizeof buf, c < 3 ? "%.3f" : "%.9g", vals[c]);
		rc = wc_runs_set_extra(t, i, cols[c], buf, err);
	}
	if (rc == WC_OK)
		rc = wc_runs_set_extra(t, i, "host", r->host, err);
	if (rc == WC_OK)
		rc = wc_runs_set_extra(t, i, "namespace", r->ns, err);
	if (rc == WC_OK)
		rc = wc_runs_set_extra(t, i, "pod", r->pod, err);
	if (rc == WC_OK)
		rc = wc_runs_set_extra(t, i, "source", "prometheus", err);
	return rc;
}

/* Why no row is left, as far as the fleet can tell: no series at all
 * (a --selector or range that matches nothing), no power series, or no
 * plausible power sample (a fleet exporting milliwatts) -- each said
 * only "no window with both" before (docs/fleet.md, "Problems in the
 * data"). */
static int
no_rows(const wc_fleet *f, wc_error *err)
{
	int gpu = 0, engine = 0;
	const char *left = NULL;
	for (size_t i = 0; i < f->n_groups; i++) {
		gpu |= f->g[i].ever_gpu;
		engine |= f->g[i].ever_engine;
		left = left ? left : f->g[i].left_out[0] ? f->g[i].left_out : NULL;
	}
	/* Groups left out and none other to read: the first one's reason. */
	if (left && !(gpu && engine))
		return wc_error_set(err, WC_EINVAL, "%s", left);
	char load[128];
	wc__fleet_load_names(load, sizeof load);
	if (!gpu && !engine)
		return wc_error_set(err, WC_EINVAL, "no series of GPU power (DCGM_FI_DEV_POWER_USAGE) or engine load "
		                    "(%s) in the range: do --selector, --start and --end match any?", load);
	if (!gpu)
		return wc_error_set(err, WC_EINVAL, "no GPU power series (DCGM_FI_DEV_POWER_USAGE or _INSTANT) in "
		                    "the range, only engines': does --selector match the DCGM exporter's series?");
	if (f->n_power_ok == 0 && f->n_power_dropped > 0) {
		double k = f->max_power_dropped / WC_TELEMETRY_MAX_POWER_W;
		return wc_error_set(err, WC_EINVAL, "none of the %zu power samples is plausible (up to %.6g W per GPU, "
		                    "beyond %.0f W)%s", f->n_power_dropped, f->max_power_dropped,
		                    WC_TELEMETRY_MAX_POWER_W, k > 1 && k <= 1000 ? ": about 1000 times a GPU's power, "
		                    "milliwatts?" : "");
	}
	return wc_error_set(err, WC_EINVAL, "no window with both GPU power (DCGM_FI_DEV_POWER_USAGE)"
	                    " and engine load (%s) in the range", load);
}

/* The loaded idle power per GPU of the group whose rows are
 * rows[0..n): the time-weighted mean power of its windows in which the
 * engine ran and queued nothing at any step, with every GPU reporting,
 * written as idle_power_w of all its rows (docs/fleet.md, "Idle power").
 * A value the plausibility rule of folder ingest refuses is said and not
 * written (docs/trace-metrics.md, "Idle power"). */
static void
group_idle(wc_fleet *f, fleet_row *rows, size_t n)
{
	double idle_s = 0.0, idle_e = 0.0, load_s = 0.0, load_e = 0.0, published, limit;
	for (size_t i = 0; i < n; i++) {
		const fleet_row *r = &rows[i];
		double per_gpu = r->run.mean_power_w / r->run.tp;
		if (strncmp(r->run.exclude, "partial power", 13) == 0)
			continue;
		if (r->run.running == 0.0 && !(r->waiting > 0) && r->duration >= WC_IDLE_QUIET_S) {
			idle_s += r->duration;
			idle_e += per_gpu * r->duration;
		} else if (r->run.exclude[0] == '\0') {
			load_s += r->duration;
			load_e += per_gpu * r->duration;
		}
	}
	if (!(idle_s > 0))
		return;
	double idle = idle_e / idle_s;
	char why[200];
	wc_trace_idle_reference(rows[0].run.platform, &published, &limit);
	if (wc_trace_idle_implausible(idle, NAN, load_s > 0 ? load_e / load_s : NAN, published, limit, why,
	                              sizeof why)) {
		wc__fleet_warn(f, "group '%.*s': idle power %.1f W per GPU over %.0f s at 0 running not written: %s",
		               (int)strcspn(rows[0].run.run_id, "#"), rows[0].run.run_id, idle, idle_s, why);
		return;
	}
	for (size_t i = 0; i < n; i++)
		rows[i].run.idle_power_w = idle;
}

/* Groups with GPU power and engine load that gave no row, named in one
 * line past the warnings' budget: under a step shorter than the scrape
 * interval, h2's and h3's steps never held both, their warnings were past
 * the 50 and the table lacked them without a word (docs/fleet.md,
 * "Problems in the data"). */
static void
said_no_rows(wc_fleet *f)
{
	unsigned char *has = f->o.warn ? calloc(f->n_groups ? f->n_groups : 1, 1) : NULL;
	char names[160] = "";
	size_t n = 0, shown = 0, both = 0;
	int gi;
	if (!has)
		return;
	for (size_t i = 0; i < f->n_rows; i++)
		if (wc_strmap_get(&f->group_index, f->rows[i].group, &gi))
			has[gi] = 1;
	for (size_t i = 0; i < f->n_groups; i++) {
		const fleet_group *g = &f->g[i];
		both += g->ever_gpu && g->ever_engine;
		if (!g->ever_gpu || !g->ever_engine || has[i])
			continue;
		n++;
		if (strlen(names) + strlen(g->name) + 5 < sizeof names) {
			snprintf(names + strlen(names), sizeof names - strlen(names), "%s'%s'", shown ? ", " : "", g->name);
			shown++;
		}
	}
	free(has);
	if (n) {
		char msg[WC_ERROR_MSG_MAX], more[40] = "";
		if (n > shown)
			snprintf(more, sizeof more, " and %zu more", n - shown);
		snprintf(msg, sizeof msg, "no row of group %s%s (%zu of %zu with GPU power and engine load): no step "
		         "held both", names, more, n, both);
		f->o.warn(msg, f->o.warn_payload);
	}
}

int
wc__fleet_table(wc_fleet *f, wc_runs_table **out, wc_error *err)
{
	/* The rows a group left out on a later page had given (docs/fleet.md,
	 * "Grouping"): none of it is read. */
	size_t kept = 0;
	for (size_t i = 0; i < f->n_rows; i++) {
		int gi;
		if (wc_strmap_get(&f->group_index, f->rows[i].group, &gi) && f->g[gi].left_out[0]) {
			f->n_idle_rows -= strncmp(f->rows[i].run.exclude, WC_IDLE_REASON, strlen(WC_IDLE_REASON)) == 0 &&
			                  f->n_idle_rows > 0;
			continue;
		}
		f->rows[kept++] = f->rows[i];
	}
	f->n_rows = kept;
	if (f->n_rows == 0)
		return no_rows(f, err);
	qsort(f->rows, f->n_rows, sizeof *f->rows, by_group_start);
	wc_runs_table *t = wc_runs_new();
	if (!t)
		return wc_error_set(err, WC_ENOMEM, "out of memory");
	for (size_t i = 0, j; i < f->n_rows; i = j) {
		for (j = i + 1; j < f->n_rows && strcmp(f->rows[j].group, f->rows[i].group) == 0; j++)
			;
		group_idle(f, &f->rows[i], j - i);
	}
	int rc = WC_OK;
	for (size_t i = 0; rc == WC_OK && i < f->n_rows; i++) {
		rc = wc_runs_append(t, &f->rows[i].run, err);
		if (rc == WC_OK)
			rc = row_extras(t, i, &f->rows[i], err);
		/* The rule folder ingest and import apply to every row: a window
		 * has no sample quantiles, so its mean alone is held to the board
		 * (docs/formats/telemetry.md, "Units and plausibility"). */
		char why[200];
		int gi;
		if (rc == WC_OK && wc_run_power_under_floor(&f->rows[i].run, why, sizeof why))
			rc = wc__fleet_error(err, WC_EINVAL,
			                     wc_strmap_get(&f->group_index, f->rows[i].group, &gi) ? f->g[gi].gpu_series
			                                                                            : f->rows[i].group,
			                     "row %s: %s", f->rows[i].run.run_id, why);
		if (rc == WC_OK && wc_run_power_over_board(&f->rows[i].run, NAN, why, sizeof why))
			wc__fleet_warn(f, "row %s: %s", f->rows[i].run.run_id, why);
	}
	if (rc != WC_OK) {
		wc_runs_free(t);
		return rc;
	}
	said_no_rows(f);
	/* One count, past the warnings' budget: how much of the table is
	 * idle is what an operator checks before fitting it. */
	if (f->n_idle_rows && f->o.warn) {
		char msg[200];
		snprintf(msg, sizeof msg, "%zu of %zu windows idle (mean running below %.1f): excluded "
		         "as 'idle', their power is the engines' idle power, not a load to fit",
		         f->n_idle_rows, f->n_rows, WC_IDLE_RUNNING);
		f->o.warn(msg, f->o.warn_payload);
	}
	*out = t;
	return WC_OK;
}
