/*
 * Envelopes replayed on measured runs (docs/envelopes.md, "Validation"):
 * per run, the response (the set's, or fitted on the other runs), the
 * service times (the capacity model's where the set has them, else the
 * stand-in's) and the law-based power map for its configuration, R
 * replicas of its own arrivals, and the predicted trace metrics against
 * the measured ones.
 */
#include "validation/envelope_validate.h"
#include "validation_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/grow.h"
#include "models/interval.h"
#include "models/stats.h"

void
wc_envelope_check_report_clear(wc_envelope_check_report *r)
{
	if (!r)
		return;
	free(r->predicted);
	free(r->warnings);
	free(r->at_load);
	free(r->response);
	free(r->tau_s);
	free(r->linger);
	free(r->service);
	free(r->law_level);
	free(r->level);
	free(r->interval);
	free(r->covers);
	free(r->replicas);
	memset(r, 0, sizeof *r);
}

/* The response for run i: the set's, or fitted without run i -- with
 * the law run i is predicted with (`law`, the set or its calibration on
 * the other runs), so that the fitted dynamic scale is relative to it. */
static int
response_for(const wc_params *p, const wc_params *law, const wc_envelope_check_run *runs, size_t n, size_t i,
             const wc_envelope_check_options *o, wc_response_params *out, wc_response_linger_choice *linger,
             wc_error *err)
{
	memset(linger, 0, sizeof *linger);
	for (int k = 0; k < WC_RESPONSE_N_LINGER; k++)
		linger->bound_s[k] = linger->score[k] = NAN;
	if (!o->loro) {
		wc_response_effective(&p->response, out);
		return WC_OK;
	}
	wc_response_run *others = wc_alloc_array(n, sizeof *others);
	size_t m = 0;
	if (!others)
		return wc_error_set(err, WC_ENOMEM, "validate envelope: out of memory");
	int rc = WC_OK;
	for (size_t j = 0; j < n && rc == WC_OK; j++) {
		if (j == i)
			continue;
		others[m] = runs[j].response_run;
		wc_law_binding b;
		if (law != p && (rc = wc_law_bind(law, &runs[j].config, &b, err)) == WC_OK)
			wc_law_bound_point(&b, NULL, &others[m].law);
		m++;
	}
	if (rc == WC_OK)
		rc = wc_fit_response_nested(others, m, &o->fit, out, linger, err);
	free(others);
	return rc;
}

/* Replay `run` with o->replicas replicas; *replicas says how many the
 * result holds: one for a replay that draws nothing at random
 * (wc_envelope_run_once_if_fixed; docs/validation.md, "Envelopes"). */
static int
predict_run(const wc_params *p, const wc_envelope_check_run *run, const wc_response_params *resp,
            double tau_s, const wc_envelope_check_options *o, wc_envelope_result *res, wc_envelope_check_service *used,
            int *replicas, wc_envelope_check_covers *covers, wc_error *err)
{
	wc_service_store ss;
	wc_service_times st;
	wc_power_map_law store;
	wc_power_map pm;
	wc_envelope_options eo;
	int rc;
	if ((rc = wc_service_select(p, &run->config, o->service, &ss, &st, err)) != WC_OK ||
	    (rc = wc_power_map_from_law(p, &run->config, resp, &store, &pm, err)) != WC_OK)
		return rc;
	/* Service times the section fitted on this very run set its n(t):
	 * labelled so, as the CLI warns (docs/validation.md, "Envelopes"). */
	const int in_sample = ss.is_capacity && wc_capacity_fitted_on_run(&p->capacity, run->config.platform, run->run_id);
	snprintf(used->source, sizeof used->source, "%s%s", st.source, in_sample ? WC_ENVELOPE_IN_SAMPLE : "");
	snprintf(used->fallback, sizeof used->fallback, "%s", ss.fallback);
	wc_envelope_options_init(&eo);
	eo.horizon_s = run->horizon_s;
	eo.warmup_s = run->warmup_s;
	eo.replicas = o->replicas;
	eo.seed = o->seed;
	eo.threads = o->threads;
	eo.bin_s = WC_ENVELOPE_GRID_S;
	eo.sample_s = run->sample_s;
	eo.max_running = run->max_running;
	eo.tau_s = tau_s;
	eo.hold_s = resp->hold_s.value;
	eo.decay_s = resp->decay_s.value;
	if ((rc = wc_envelope_run_once_if_fixed(&run->workload, &st, &pm, &eo, res, err)) != WC_OK)
		return rc;
	/* the load the replay ran, judged as `envelope --measured` judges it
	 * (a level saturating beyond its runs, the span of mean_running):
	 * the row's warnings are the prediction's (docs/validation.md,
	 * "Envelopes"; docs/envelopes.md, "Engine") */
	const int said = pm.n_span_notes;
	wc_envelope_load_notes(p, &run->config, &run->workload, &ss, &pm, res->server.mean_running.value);
	for (int k = said; k < pm.n_span_notes; k++)
		WC_WARN(res, "%s", pm.span_notes[k]);
	*replicas = res->replicas;
	/* what its interval covers, as envelope's answer words it; the
	 * replicas' spread is the --per-run rows' lo/hi */
	covers->text[0] = '\0';
	if (pm.has_pe && (isfinite(res->server_interval.mean_lo) || isfinite(res->server_interval.p95_lo)))
		wc_power_map_interval_covers(&pm, res->server_interval.draws, "over replicas (the --per-run rows' lo/hi)",
		                             covers->text, sizeof covers->text);
	return WC_OK;
}

static void
add_inputs(const wc_envelope_check_run *run, const wc_response_params *r, double tau_s, double linger_s, int loro,
           const wc_envelope_check_service *service, const wc_envelope_level *lv, wc_per_run_row *row)
{
	wc_per_run_row_input(row, "platform", run->config.platform);
	wc_per_run_row_input_number(row, "tp", run->config.tp);
	wc_per_run_row_input_number(row, "active_params_b", run->config.active_params_b);
	wc_per_run_row_input(row, "arrivals", run->arrival_source ? run->arrival_source : "");
	wc_per_run_row_input_number(row, "requests", (double)run->workload.n_arrivals);
	wc_per_run_row_input_number(row, "horizon_s", run->horizon_s);
	wc_per_run_row_input(row, "response", loro ? "fitted_on_other_runs" : r->fitted ? "params" : "assumed");
	wc_per_run_row_input_number(row, "tau_s", tau_s);
	wc_per_run_row_input_number(row, "hold_s", r->hold_s.value);
	wc_per_run_row_input_number(row, "decay_s", r->decay_s.value);
	wc_per_run_row_input_number(row, "linger_bound_s", linger_s > 0 ? linger_s : NAN);
	wc_per_run_row_input_number(row, "prefill_ratio", r->prefill_ratio.value);
	wc_per_run_row_input_number(row, "dynamic_scale", wc_response_dynamic_scale(r));
	wc_per_run_row_input(row, "service_times", service->source);
	wc_per_run_row_input(row, "law_level_source", lv->runs ? "calibrated_on_other_runs" : "zero_shot");
	wc_per_run_row_input_number(row, "idle_power_w", run->config.idle_power_w > 0 ? run->config.idle_power_w : NAN);
}

/* What a replay that draws nothing at random knows, said where it is
 * simulated once (docs/envelopes.md, "Replaying a measured run"): a
 * request log gives each arrival and length; counters give arrivals
 * rebuilt interval by interval -- what the load gauge shows, and those it
 * hides placed by the prompt tokens or the load the interval leaves
 * unexplained, not spread evenly over the window -- and output lengths at
 * their mean; a load gauge without prompt tokens (TGI's) gives the
 * manifest's count and its mean prompt and output; lengths none of these
 * give are a fixed one (a fixed default or the mean of the others). */
enum { KNOWN_LOG, KNOWN_LOG_FILLED, KNOWN_COUNTERS, KNOWN_GAUGE_STATED, KNOWN_COUNTERS_FIXED, KNOWN_KINDS };
static const char *const known_text[KNOWN_KINDS] = {
	"arrivals and lengths from the request log",
	"arrivals and lengths from the request log, those it lacks at the known ones' mean",
	"arrivals rebuilt interval by interval from the engine's counters, output lengths at their mean",
	"arrivals rebuilt interval by interval from the engine's load gauge and the manifest's count, prompts and "
	"output lengths at their stated means",
	"arrivals rebuilt interval by interval from the engine's counters, the lengths they lack a fixed one",
};

static int
known_kind(const wc_envelope_check_run *run)
{
	const wc_envelope_workload *w = &run->workload;
	int log = run->arrival_source && strcmp(run->arrival_source, "requests") == 0, missing = 0;
	for (size_t i = 0; i < w->n_arrivals && !missing; i++)
		missing = (w->arrival_input && isnan(w->arrival_input[i])) ||
		          (w->arrival_output && isnan(w->arrival_output[i]));
	if (log)
		return missing ? KNOWN_LOG_FILLED : KNOWN_LOG;
	return missing ? KNOWN_COUNTERS_FIXED : run->prompts_stated ? KNOWN_GAUGE_STATED : KNOWN_COUNTERS;
}

/* The report's note over the runs simulated once: one kind said as it
 * is, several with their run counts. */
static void
known_note(const wc_envelope_check_run *runs, size_t n, char *buf, size_t cap)
{
	size_t count[KNOWN_KINDS] = { 0 }, kinds = 0, len = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < n; i++)
		if (wc_envelope_draws_nothing(&runs[i].workload))
			count[known_kind(&runs[i])]++;
	for (int k = 0; k < KNOWN_KINDS; k++)
		kinds += count[k] > 0;
	for (int k = 0; k < KNOWN_KINDS && len < cap; k++) {
		if (!count[k])
			continue;
		int w = kinds > 1 ? snprintf(buf + len, cap - len, "%s%zu: %s", len ? "; " : "", count[k], known_text[k])
		                  : snprintf(buf + len, cap - len, "%s", known_text[k]);
		len += w > 0 ? (size_t)w : 0;
	}
}

/* A message on the replay's own arrivals or lengths (the library's
 * arrival_s, arrival_input, arrival_output: no field the user gave) names
 * the run's request log instead, the one rule of the refusals and of the
 * per-run warnings (docs/envelopes.md, "Engine"): `buf` then, else msg. */
static const char *
own_log(const char *msg, char *buf, size_t cap)
{
	if (strncmp(msg, "arrival_", 8) != 0)
		return msg;
	wc_error_format(buf, cap, "its request log%s", msg + strcspn(msg, ":"));
	return buf;
}

static int
add_rows(const wc_envelope_check_run *run, const wc_response_params *r, double tau_s, double linger_s, int loro,
         const wc_envelope_check_service *service, const wc_envelope_level *lv, const wc_envelope_result *res,
         const wc_envelope_check_warnings *said, const wc_params *p, int once, wc_per_run *rows, wc_error *err)
{
	const char *names[5] = { "mean_w", "p5_w", "p95_w", "max_w", "ramp_w_per_s" };
	const wc_envelope_stat *pred[5] = { &res->server.mean_w, &res->server.p5_w, &res->server.p95_w,
		                            &res->server.max_w, &res->server.ramp_w_per_s };
	const double meas[5] = { run->measured.mean_w, run->measured.p5_w, run->measured.p95_w,
		                 run->measured.max_w, run->measured.ramp_w_per_s };
	for (int q = 0; q < 5; q++) {
		wc_per_run_row row;
		wc_per_run_row_init(&row);
		snprintf(row.run_id, sizeof row.run_id, "%s", run->run_id);
		snprintf(row.set, sizeof row.set, "%s", run->config.platform);
		if (loro)
			snprintf(row.fold, sizeof row.fold, "without %s", run->run_id);
		snprintf(row.quantity, sizeof row.quantity, "%s", names[q]);
		add_inputs(run, r, tau_s, linger_s, loro, service, lv, &row);
		row.predicted = pred[q]->value;
		row.measured = meas[q];
		row.error_pct = 100.0 * (pred[q]->value - meas[q]) / meas[q];
		row.lo = once ? NAN : pred[q]->lo;
		row.hi = once ? NAN : pred[q]->hi;
		if (once) {
			char note[WC_WARNING_LEN];
			snprintf(note, sizeof note, "the replay draws nothing at random (%s): simulated once, no "
			         "Monte-Carlo spread (lo/hi blank)", known_text[known_kind(run)]);
			wc_per_run_row_warn(&row, note);
		}
		/* lo/hi are the replicas' Monte-Carlo spread; the predictive 95 %
		 * interval (the law's held-out error) of the mean and p95 is what
		 * the coverage counts, so each row can be checked against it. */
		const wc_envelope_interval *iv = &res->server_interval;
		wc_per_run_row_input_number(&row, "interval_95_lo", q == 0 ? iv->mean_lo : q == 2 ? iv->p95_lo : NAN);
		wc_per_run_row_input_number(&row, "interval_95_hi", q == 0 ? iv->mean_hi : q == 2 ? iv->p95_hi : NAN);
		/* the model, whose term and `moe` structure term the law reads:
		 * the last input column, so every column before it keeps its place
		 * (docs/validation.md, "Envelopes") */
		wc_per_run_row_input(&row, "model", run->config.model ? run->config.model : "");
		wc__p0_source(p, &run->config, "", wc_source_name(WC_SRC_ASSUMED), row.p0_source, sizeof row.p0_source);
		if (service->fallback[0])
			wc_per_run_row_warn(&row, service->fallback);
		char bound[512];
		if (wc_response_bound_note(r, bound, sizeof bound))
			wc_per_run_row_warn(&row, bound);
		for (int w = 0; w < said->n_warnings; w++)
			wc_per_run_row_warn(&row, said->warnings[w]);
		int rc = wc_per_run_add(rows, &row, err);
		if (rc != WC_OK)
			return rc;
	}
	return WC_OK;
}

/* The diagnostic level factor of the law on the run (NaN when the run
 * has no power samples). */
static double
law_level(const wc_response_run *rr, const wc_response_params *r)
{
	double level = NAN, *pred = wc_alloc_array(rr->n_samples ? rr->n_samples : 1, sizeof *pred);
	if (pred && rr->n_samples && wc_response_predict_samples(rr, r, pred, &level, NULL) != WC_OK)
		level = NAN;
	free(pred);
	return level;
}

/* Each power sample by the running count of its grid bin, and the law at
 * each bucket's mean count (the fold's law, unscaled, with the run's P0). */
static void
by_load(const wc_response_run *rr, wc_envelope_load_bucket *b)
{
	static const double edge[WC_ENVELOPE_LOAD_BUCKETS][2] = { { 0, 0 }, { 1, 1 }, { 2, 2 }, { 3, 4 },
		                                                  { 5, 8 }, { 9, 16 }, { 17, INFINITY } };
	double sum_n[WC_ENVELOPE_LOAD_BUCKETS] = { 0 }, sum_w[WC_ENVELOPE_LOAD_BUCKETS] = { 0 };
	for (int j = 0; j < WC_ENVELOPE_LOAD_BUCKETS; j++)
		b[j] = (wc_envelope_load_bucket){ edge[j][0], edge[j][1], 0, NAN, NAN, NAN };
	for (size_t i = 0; rr->dt > 0 && i < rr->n_samples; i++) {
		double k = floor(rr->t_s[i] / rr->dt);
		if (!(k >= 0 && k < (double)rr->n_grid) || !isfinite(rr->power_w[i]))
			continue;
		double n = rr->running[(size_t)k];
		int j = 0; /* counts between buckets (a bin's mean) go to the nearer whole count's */
		while (j + 1 < WC_ENVELOPE_LOAD_BUCKETS && n >= edge[j + 1][0] - 0.5)
			j++;
		b[j].samples++;
		sum_n[j] += n;
		sum_w[j] += rr->power_w[i];
	}
	for (int j = 0; j < WC_ENVELOPE_LOAD_BUCKETS; j++) {
		if (!b[j].samples)
			continue;
		b[j].running_mean = sum_n[j] / (double)b[j].samples;
		b[j].measured_w = sum_w[j] / (double)b[j].samples;
		b[j].law_w = rr->law.p0 + (b[j].running_mean > 0 ? wc_law_point_dynamic(&rr->law, b[j].running_mean) : 0.0);
	}
}

/* The fold's power map and response at the run's measured load, against
 * its measured samples; NaN without samples. */
static void
at_load(const wc_response_run *rr, const wc_response_params *r, double simulated_running, wc_envelope_at_load *out)
{
	size_t n = rr->n_samples;
	double *pred = wc_alloc_array(n ? n : 1, sizeof *pred), *meas = wc_alloc_array(n ? n : 1, sizeof *meas);
	double sum = 0.0;
	*out = (wc_envelope_at_load){ .mean_err_pct = NAN, .p95_err_pct = NAN, .running_measured = NAN,
		                      .running_simulated = simulated_running };
	for (size_t k = 0; k < rr->n_grid; k++)
		sum += rr->running[k];
	out->running_measured = rr->n_grid ? sum / (double)rr->n_grid : NAN;
	by_load(rr, out->by_load);
	if (n && pred && meas && wc_response_predict_scaled(rr, r, pred, NULL) == WC_OK) {
		double pm = 0.0, mm = 0.0;
		for (size_t i = 0; i < n; i++) {
			pm += pred[i];
			mm += rr->power_w[i];
		}
		out->mean_err_pct = 100.0 * (pm / mm - 1.0);
		memcpy(meas, rr->power_w, n * sizeof *meas);
		double p95 = wc_stats_quantile_select(pred, n, 0.95), m95 = wc_stats_quantile_select(meas, n, 0.95);
		out->p95_err_pct = 100.0 * (p95 / m95 - 1.0);
	}
	free(pred);
	free(meas);
}

static double
median_of(double *v, size_t n)
{
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		if (isfinite(v[i]))
			v[m++] = v[i];
	return wc_stats_median(v, m);
}

/* Coverage and median width of the predictive intervals (docs/intervals.md,
 * "Validation"). `v` holds n doubles of scratch. */
static void
coverage(const wc_envelope_check_run *runs, size_t n, wc_envelope_check_report *out, double *v)
{
	int in_mean = 0, in_p95 = 0, m = 0;
	for (size_t i = 0; i < n; i++) {
		const wc_envelope_interval *iv = &out->interval[i];
		if (!(isfinite(iv->mean_lo) && isfinite(iv->p95_lo)))
			continue;
		m++;
		in_mean += wc_interval_includes(iv->mean_lo, iv->mean_hi, runs[i].measured.mean_w);
		in_p95 += wc_interval_includes(iv->p95_lo, iv->p95_hi, runs[i].measured.p95_w);
	}
	out->n_with_interval = m;
	out->coverage_mean_pct = m ? 100.0 * in_mean / m : NAN;
	out->coverage_p95_pct = m ? 100.0 * in_p95 / m : NAN;
	for (size_t i = 0; i < n; i++)
		v[i] = 100.0 * (out->interval[i].mean_hi - out->interval[i].mean_lo) / out->predicted[i].mean_w;
	out->median_width_mean_pct = median_of(v, n);
	for (size_t i = 0; i < n; i++)
		v[i] = 100.0 * (out->interval[i].p95_hi - out->interval[i].p95_lo) / out->predicted[i].p95_w;
	out->median_width_p95_pct = median_of(v, n);
}

static int
summarise(const wc_envelope_check_run *runs, size_t n, wc_envelope_check_report *out)
{
	double *v = wc_alloc_array(n ? n : 1, sizeof *v);
	if (!v)
		return WC_ENOMEM;
#define ERR(f, i) (100.0 * (out->predicted[i].f - runs[i].measured.f) / runs[i].measured.f)
	for (size_t i = 0; i < n; i++)
		v[i] = fabs(ERR(mean_w, i));
	out->median_mean_err_pct = median_of(v, n);
	for (size_t i = 0; i < n; i++)
		v[i] = fabs(ERR(p5_w, i));
	out->median_p5_err_pct = median_of(v, n);
	for (size_t i = 0; i < n; i++)
		v[i] = fabs(ERR(p95_w, i));
	out->median_p95_err_pct = median_of(v, n);
	for (size_t i = 0; i < n; i++)
		v[i] = fabs(ERR(max_w, i));
	out->median_max_err_pct = median_of(v, n);
	for (size_t i = 0; i < n; i++)
		v[i] = out->predicted[i].ramp_w_per_s / runs[i].measured.ramp_w_per_s;
	out->median_ramp_ratio = median_of(v, n);
	double bias = 0.0;
	for (size_t i = 0; i < n; i++)
		bias += ERR(mean_w, i);
	out->bias_mean_pct = n ? bias / (double)n : NAN;
#undef ERR
	coverage(runs, n, out, v);
	free(v);
	return WC_OK;
}

int
wc_validate_envelope(const wc_params *p, const wc_envelope_check_run *runs, size_t n,
                     const wc_envelope_check_options *o, wc_envelope_check_report *out,
                     wc_per_run *rows, wc_error *err)
{
	int rc = WC_OK;
	memset(out, 0, sizeof *out);
	if (n == 0)
		return wc_error_set(err, WC_EINVAL, "runs: nothing to validate");
	if (o->loro && n < 3)
		return wc_error_set(err, WC_EINVAL, "runs: leaving one run out needs at least 3 runs, got %zu", n);
	out->predicted = wc_alloc_array(n, sizeof *out->predicted);
	out->warnings = wc_alloc_zeroed(n, sizeof *out->warnings);
	out->at_load = wc_alloc_array(n, sizeof *out->at_load);
	out->response = wc_alloc_array(n, sizeof *out->response);
	out->tau_s = wc_alloc_array(n, sizeof *out->tau_s);
	out->linger = wc_alloc_array(n, sizeof *out->linger);
	out->service = wc_alloc_array(n, sizeof *out->service);
	out->law_level = wc_alloc_array(n, sizeof *out->law_level);
	out->level = wc_alloc_zeroed(n, sizeof *out->level);
	out->interval = wc_alloc_array(n, sizeof *out->interval);
	out->covers = wc_alloc_zeroed(n, sizeof *out->covers);
	out->replicas = wc_alloc_zeroed(n, sizeof *out->replicas);
	if (!out->predicted || !out->warnings || !out->at_load || !out->response || !out->tau_s || !out->linger || !out->service || !out->law_level || !out->level ||
	    !out->interval || !out->covers || !out->replicas) {
		wc_envelope_check_report_clear(out);
		return wc_error_set(err, WC_ENOMEM, "validate envelope: out of memory");
	}
	out->n = n;
	wc_runs_table *table = NULL;
	if (o->level_loro && (rc = wc_envelope_level_table(runs, n, &table, err)) != WC_OK) {
		wc_envelope_check_report_clear(out);
		return rc;
	}
	for (size_t i = 0; i < n && rc == WC_OK; i++) {
		wc_envelope_result res;
		wc_calibrate_result cal;
		wc_error e2;
		char text[WC_ERROR_MSG_MAX];
		memset(&cal, 0, sizeof cal);
		out->level[i].p0_w = out->level[i].s_w = out->level[i].theta = NAN;
		if (table && (rc = wc_envelope_level_for(p, table, i, o, &cal, &out->level[i], &e2)) != WC_OK) {
			wc_error_set(err, rc, "%s: %s", runs[i].run_id, own_log(e2.msg, text, sizeof text));
			break;
		}
		/* The run's law: calibrated on the other runs, else the set's. */
		const wc_params *law = cal.params.n_levels ? &cal.params : p;
		/* The diagnostics below against the law the run is predicted with
		 * (the calibrated one under level_loro), as its fold's response is
		 * fitted with it. */
		wc_response_run rr = runs[i].response_run;
		wc_law_binding b;
		if (law != p && (rc = wc_law_bind(law, &runs[i].config, &b, &e2)) == WC_OK)
			wc_law_bound_point(&b, NULL, &rr.law);
		if (rc == WC_OK)
			rc = response_for(p, law, runs, n, i, o, &out->response[i], &out->linger[i], &e2);
		/* the platform's time constant where the response has one per
		 * level (docs/envelopes.md, "Fitting the response"), kept so that
		 * --per-run and --json print the one the replay used */
		if (rc == WC_OK)
			out->tau_s[i] = wc_response_tau_for(&out->response[i], runs[i].config.platform);
		if (rc == WC_OK)
			rc = predict_run(law, &runs[i], &out->response[i], out->tau_s[i], o, &res, &out->service[i], &out->replicas[i],
			                 &out->covers[i], &e2);
		wc_calibrate_result_clear(&cal);
		if (rc != WC_OK) {
			wc_error_set(err, rc, "%s: %s", runs[i].run_id, own_log(e2.msg, text, sizeof text));
			break;
		}
		out->predicted[i] = (wc_envelope_metrics){ res.server.mean_w.value, res.server.p5_w.value,
			                                   res.server.p95_w.value, res.server.max_w.value,
			                                   res.server.ramp_w_per_s.value };
		out->law_level[i] = law_level(&rr, &out->response[i]);
		at_load(&rr, &out->response[i], res.server.mean_running.value, &out->at_load[i]);
		out->interval[i] = res.server_interval;
		/* kept for the text and the JSON as for the --per-run rows: the
		 * lines that explain a run's miss were in its rows only */
		for (int w = 0; w < res.n_warnings; w++)
			WC_WARN(&out->warnings[i], "%s", own_log(res.warnings[w], text, sizeof text));
		/* by the workload, not by the replicas it saved: under
		 * --replicas 1 a replay drawing nothing is simulated once too,
		 * and said so (it read as a one-replica Monte-Carlo run) */
		int once = wc_envelope_draws_nothing(&runs[i].workload);
		out->n_no_spread += once;
		if (rows)
			rc = add_rows(&runs[i], &out->response[i], out->tau_s[i], out->linger[i].chosen_s, o->loro, &out->service[i], &out->level[i], &res,
			              &out->warnings[i], p, once, rows, err);
		wc_envelope_result_clear(&res);
	}
	wc_runs_free(table);
	if (rc == WC_OK)
		known_note(runs, n, out->once_known, sizeof out->once_known);
	if (rc == WC_OK && summarise(runs, n, out) != WC_OK)
		rc = wc_error_set(err, WC_ENOMEM, "validate envelope: out of memory");
	if (rc != WC_OK)
		wc_envelope_check_report_clear(out);
	return rc;
}
