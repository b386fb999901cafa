/*
 * JSON form of envelopes and budget plans (docs/http-api.md), one format
 * for `POST /v1/forecast/envelope`, `POST /v1/plan/budget` and
 * `wattcast envelope --json`. Every answer names the source of its service
 * times, response and power mapping: the capacity level's values, or the
 * stand-in's assumed efficiencies (and why, when the capacity model was
 * wanted but could not answer).
 */
#include "server/server.h"
#include "render_internal.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static json_t *
num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* A plan's statistic beside its budget (wc_budget_stat_text); NaN as null. */
static json_t *
beside(double v, double budget)
{
	char buf[32];
	return isfinite(v) ? wc__render_digits(wc_budget_stat_text(buf, v, budget)) : json_null();
}

static json_t *
config_json(const wc_config *c)
{
	/* engine: the stack asked for, as every answer names it; another than
	 * the calibrated one is warned (docs/capacity.md, "Serving stacks") */
	return json_pack("{s:s,s:i,s:f,s:s,s:s,s:o,s:o,s:s}", "platform", c->platform, "tp", c->tp,
	                 "active_params_b", c->active_params_b, "weights", wc_precision_name(c->weights),
	                 "kv_cache", wc_precision_name(c->kv),
	                 "sm_clock_mhz", c->sm_clock_mhz > 0 ? json_real(c->sm_clock_mhz) : json_null(),
	                 "idle_power_w", c->idle_power_w > 0 ? json_real(c->idle_power_w) : json_null(),
	                 "engine", wc_config_engine(c));
}

static json_t *
length_json(const wc_length_dist *d)
{
	if (d->kind == WC_LENGTH_LOGNORMAL)
		return json_pack("{s:s,s:f,s:f}", "distribution", "lognormal", "mean", d->mean, "sd", d->sd);
	if (d->kind == WC_LENGTH_EMPIRICAL)
		return json_pack("{s:s,s:I}", "distribution", "empirical", "values", (json_int_t)d->n_values);
	return json_pack("{s:s,s:f}", "distribution", "fixed", "mean", d->mean);
}

/* A replay's lengths as replayed (docs/envelopes.md, "replay"): the log's,
 * their mean, and what fills those it lacks -- the distribution echoed
 * alone described a workload never simulated -- over the requests
 * replayed (wc_envelope_workload_window), not the log. */
static json_t *
replay_length_json(const wc_envelope_workload *w, int input)
{
	const double *own = input ? w->arrival_input : w->arrival_output;
	size_t missing = own ? 0 : w->n_arrivals;
	for (size_t i = 0; own && i < w->n_arrivals; i++)
		missing += !isfinite(own[i]);
	/* none replayed: no mean (the distribution's would describe requests
	 * never simulated; docs/envelopes.md, "replay") */
	json_t *o = json_pack("{s:s,s:o,s:I}", "distribution", "log", "mean",
	                      w->n_arrivals ? json_real(wc_envelope_mean_length(w, input)) : json_null(),
	                      "missing", (json_int_t)missing);
	if (o && missing)
		json_object_set_new(o, "missing_drawn_from", length_json(input ? &w->input : &w->output));
	return o;
}

static json_t *
workload_json(const wc_envelope_workload *w, const wc_envelope_options *opt)
{
	json_t *o = json_pack("{s:s}", "type", wc_envelope_kind_name(w->kind));
	switch (w->kind) {
	case WC_ENVELOPE_CLOSED:
		json_object_set_new(o, "concurrency", json_real(w->concurrency));
		json_object_set_new(o, "think_s", json_real(w->think_s));
		break;
	case WC_ENVELOPE_POISSON:
	case WC_ENVELOPE_BURSTY:
		json_object_set_new(o, "rate", w->n_profile ? json_null() : json_real(w->rate));
		json_object_set_new(o, "rate_profile_steps", json_integer((json_int_t)w->n_profile));
		if (w->n_profile) { /* the steps themselves, as the request gives them: a saved answer
		                     * says what load produced it (docs/http-api.md) */
			json_t *steps = json_array();
			for (size_t i = 0; i < w->n_profile; i++)
				json_array_append_new(steps, json_pack("{s:f,s:f}", "until_s", w->profile_until_s[i], "rate",
				                                       w->profile_rate[i]));
			json_object_set_new(o, "rate_profile", steps);
		}
		if (w->kind == WC_ENVELOPE_BURSTY)
			json_object_set_new(o, "burstiness", json_real(w->burstiness));
		break;
	case WC_ENVELOPE_REPLAY: { /* the log's own lengths are replayed */
		/* those arriving within the horizon, and their lengths: the rest
		 * are left out, said in a warning (docs/envelopes.md, "Engine") */
		wc_envelope_workload in = *w;
		wc_envelope_workload_window(&in, opt->horizon_s);
		json_object_set_new(o, "requests", json_integer((json_int_t)wc_envelope_workload_logged(w)));
		json_object_set_new(o, "requests_replayed", json_integer((json_int_t)in.n_arrivals));
		json_object_set_new(o, "input_tokens", replay_length_json(&in, 1));
		json_object_set_new(o, "output_tokens", replay_length_json(&in, 0));
		return o;
	}
	default:
		json_object_set_new(o, "samples", json_integer((json_int_t)w->series_len));
		/* a file's samples at their own times have no one step (docs/envelopes.md, "Workloads") */
		json_object_set_new(o, "dt_s", w->series_hold ? json_null() : json_real(w->series_dt_s));
		json_object_set_new(o, "span_s", json_real(wc_envelope_series_span(w)));
		return o;
	}
	json_object_set_new(o, "input_tokens", length_json(&w->input));
	json_object_set_new(o, "output_tokens", length_json(&w->output));
	return o;
}

/* The capacity level's values the service times were computed with. */
static json_t *
capacity_json(const wc_capacity_service_store *cs)
{
	return json_pack("{s:s,s:f,s:f,s:f,s:f,s:f,s:f}", "level", cs->level, "bandwidth_efficiency", cs->point.eta,
	                 "step_overhead_s", cs->point.t0, "per_request_overhead_s", cs->point.t1,
	                 "flops_efficiency", cs->point.etac, "tp_comm_per_layer_s", cs->point.tau,
	                 "ep_comm_per_layer_s", cs->point.tau_ep);
}

static json_t *
sources_json(const wc_envelope_render *c, json_t *o)
{
	json_t *st;
	const wc_service_store *ss = c->service_store;
	if (c->workload->kind == WC_ENVELOPE_SERIES)
		st = json_pack("{s:s}", "source", "none (explicit n(t))");
	else if (ss && ss->is_capacity)
		st = json_pack("{s:s,s:o}", "source", c->service->source, "capacity", capacity_json(&ss->capacity));
	else if (strcmp(c->service->source, "roofline_standin") == 0)
		st = json_pack("{s:s,s:{s:f,s:f,s:f}}", "source", c->service->source, "assumed",
		               "bandwidth_efficiency", WC_STANDIN_BW_EFFICIENCY, "flops_efficiency",
		               WC_STANDIN_FLOPS_EFFICIENCY, "step_overhead_s", WC_STANDIN_STEP_OVERHEAD_S);
	else
		st = json_pack("{s:s}", "source", c->service->source);
	if (ss && ss->fallback[0] && c->workload->kind != WC_ENVELOPE_SERIES)
		json_object_set_new(st, "warning", json_string(ss->fallback));
	json_object_set_new(o, "service_times", st);
	/* the share of the law's dynamic power the map keeps, as the text
	 * says it (docs/envelopes.md, "Power"): 1 unless a fit set it */
	json_object_set_new(o, "response", json_pack("{s:f,s:f,s:f,s:f,s:f,s:s}", "tau_s", c->options->tau_s,
	                    "hold_s", c->options->hold_s, "decay_s", c->options->decay_s, "prefill_ratio", c->response->prefill_ratio.value,
	                    "dynamic_scale", wc_response_dynamic_scale(c->response), "source", c->response_source));
	/* The prefill level (a prefill-aware law) and the board limit: null when none. */
	const wc_power_map *pm = c->power;
	/* Every answer names its profile and where its level comes from. */
	json_object_set_new(o, "profile", json_string(pm->profile));
	json_object_set_new(o, "level_source", pm->level_source[0] ? json_string(pm->level_source) : json_null());
	json_object_set_new(o, "power_mapping", json_pack("{s:s,s:f,s:f,s:o,s:o}", "source", pm->source,
	                    "idle_w_per_gpu", pm->idle_w, "prefill_w_per_gpu", pm->prefill_w,
	                    "prefill_level_w_per_gpu", num(pm->prefill_level_w > 0 ? pm->prefill_level_w : NAN),
	                    "board_limit_w_per_gpu", num(pm->max_w > 0 && isfinite(pm->max_w) ? pm->max_w : NAN)));
	return o;
}

static json_t *
stat_json(const wc_envelope_stat *s)
{
	return json_pack("{s:o,s:o,s:o}", "value", num(s->value), "p5", num(s->lo), "p95", num(s->hi));
}

static json_t *
pair_json(double lo, double hi)
{
	return isfinite(lo) && isfinite(hi) ? json_pack("[ff]", lo, hi) : json_null();
}

/* The predictive interval (docs/intervals.md), apart from the Monte-Carlo
 * spread that each metric's p5 / p95 give: null without prediction_error. */
/* What an envelope's or a plan's interval covers, and the stratum of the
 * held-out error it is (docs/envelopes.md, "Outputs"): one wording for both. */
static void
interval_covers(json_t *o, const wc_power_map *pm, int draws, const char *spread)
{
	char covers[256];
	/* a calibration's draws that vary this answer are added to it
	 * (docs/intervals.md, "Calibrated sets") */
	wc_power_map_interval_covers(pm, draws, spread, covers, sizeof covers);
	json_object_set_new(o, "covers", json_string(covers));
	json_object_set_new(o, "stratum", json_pack("{s:s,s:s,s:i}", "platform",
	                    pm->pe.platform[0] ? pm->pe.platform : "pooled", "source",
	                    pm->pe.source[0] ? pm->pe.source : "any", "runs", pm->pe.n));
}

static json_t *
interval_json(const wc_envelope_interval *iv, const wc_power_map *pm)
{
	if (!pm || !pm->has_pe || (!isfinite(iv->mean_lo) && !isfinite(iv->p95_lo)))
		return json_null();
	json_t *o = json_pack("{s:o,s:o}", "mean_w", pair_json(iv->mean_lo, iv->mean_hi), "p95_w",
	                      pair_json(iv->p95_lo, iv->p95_hi));
	interval_covers(o, pm, iv->draws, "over replicas (each metric's p5/p95)");
	return o;
}

static json_t *
summary_json(const wc_envelope_summary *s)
{
	return json_pack("{s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o}",
	                 "mean_w", stat_json(&s->mean_w), "p5_w", stat_json(&s->p5_w),
	                 "p50_w", stat_json(&s->p50_w), "p95_w", stat_json(&s->p95_w),
	                 "max_w", stat_json(&s->max_w), "ramp_w_per_s", stat_json(&s->ramp_w_per_s),
	                 "ramp_p95_w_per_s", stat_json(&s->ramp_p95_w_per_s),
	                 "spectral_entropy", stat_json(&s->spectral_entropy),
	                 "energy_j", stat_json(&s->energy_j),
	                 "energy_per_output_token_j", stat_json(&s->energy_per_token_j),
	                 "mean_running", stat_json(&s->mean_running),
	                 "output_tokens", stat_json(&s->output_tokens));
}

static json_t *
array_of(const double *v, size_t n)
{
	json_t *a = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, num(v[i]));
	return a;
}

/* WC_ENVELOPE_BAND_ARRAYS arrays: the answer's bound counts them
 * (server/route_envelope.c). */
static json_t *
band_json(const wc_envelope_band *b)
{
	return json_pack("{s:f,s:o,s:o,s:o,s:o,s:o}", "bin_s", b->bin_s, "t_s", array_of(b->t_s, b->n_bins),
	                 "mean_w", array_of(b->mean_w, b->n_bins), "p5_w", array_of(b->p5_w, b->n_bins),
	                 "p95_w", array_of(b->p95_w, b->n_bins), "mean_running",
	                 array_of(b->mean_running, b->n_bins));
}

/* The power map's and the service times' warnings (one list for the
 * CLI's text and these: wc_envelope_setup_warnings). */
static void
append_setup_warnings(const wc_envelope_render *c, json_t *warnings)
{
	const char *list[WC_ENVELOPE_SETUP_WARNINGS];
	int n = wc_envelope_setup_warnings(c->power, c->service_store, c->workload, list, WC_ENVELOPE_SETUP_WARNINGS);
	for (int i = 0; i < n; i++)
		json_array_append_new(warnings, json_string(list[i]));
}

json_t *
wc_envelope_json(const wc_envelope_render *c, const wc_envelope_result *res)
{
	const wc_envelope_options *o = c->options;
	json_t *root = json_object(), *warnings = json_array();
	json_object_set_new(root, "params_version", json_string(c->params_version ? c->params_version : ""));
	json_object_set_new(root, "config", config_json(c->config));
	json_object_set_new(root, "workload", workload_json(c->workload, c->options));
	json_object_set_new(root, "simulation", json_pack("{s:f,s:f,s:f,s:i,s:I,s:f,s:f,s:i}",
	                    "grid_s", WC_ENVELOPE_GRID_S, "horizon_s", o->horizon_s, "warmup_s", o->warmup_s,
	                    "replicas", o->replicas, "seed", (json_int_t)o->seed, "bin_s", o->bin_s,
	                    "sample_s", o->sample_s, "max_running", o->max_running));
	/* the clock the board's limit settled the service at (null: the clock asked) */
	json_object_set_new(json_object_get(root, "simulation"), "service_clock_mhz",
	                    num(res->service_clock_mhz > 0 ? res->service_clock_mhz : NAN));
	sources_json(c, root);
	json_t *server = json_pack("{s:o,s:o}", "summary", summary_json(&res->server), "interval_95",
	                           interval_json(&res->server_interval, c->power));
	if (c->include_bins)
		json_object_set_new(server, "bins", band_json(&res->server_band));
	json_object_set_new(root, "server", server);
	if (res->fleet_size > 1) {
		json_t *fleet = json_pack("{s:i,s:s,s:f,s:o,s:o}", "size", res->fleet_size, "mode",
		                          wc_envelope_fleet_mode_label(res->lockstep, res->fleet_mode), "peak_w",
		                          res->fleet_peak_w,
		                          "summary", summary_json(&res->fleet), "interval_95",
		                          interval_json(&res->fleet_interval, c->power));
		if (c->include_bins)
			json_object_set_new(fleet, "bins", band_json(&res->fleet_band));
		json_object_set_new(root, "fleet", fleet);
	} else {
		json_object_set_new(root, "fleet", json_null());
	}
	append_setup_warnings(c, warnings);
	for (int i = 0; i < res->n_warnings; i++)
		json_array_append_new(warnings, json_string(res->warnings[i]));
	json_object_set_new(root, "warnings", warnings);
	return root;
}

json_t *
wc_budget_json(const wc_envelope_render *c, const wc_budget_options *bo, const wc_budget_plan *plan)
{
	const wc_envelope_options *o = c->options;
	json_t *root = json_object();
	json_object_set_new(root, "params_version", json_string(c->params_version ? c->params_version : ""));
	json_object_set_new(root, "config", config_json(c->config));
	json_object_set_new(root, "workload", workload_json(c->workload, c->options));
	json_object_set_new(root, "simulation", json_pack("{s:f,s:f,s:f,s:I,s:f,s:i}", "grid_s", WC_ENVELOPE_GRID_S,
	                    "horizon_s", o->horizon_s, "warmup_s", o->warmup_s, "seed", (json_int_t)o->seed,
	                    "budget_bin_s", bo->bin_s, "max_running", o->max_running));
	sources_json(c, root);
	/* which bound stopped the search, when one did: max_fleet, or the
	 * simulation's limit for a shared arrival process below it */
	const char *stopped = !plan->at_bound ? "budget" : plan->simulation_bound ? "simulation_limit" : "max_fleet";
	/* the budget as sent (the shortest text that reads back as it) and the
	 * statistics to the digit that puts each on its side of it, as the
	 * text plan (docs/http-api.md, "POST /v1/plan/budget") */
	char bt[32];
	json_object_set_new(root, "plan", json_pack("{s:o,s:s,s:s,s:i,s:i,s:o,s:o,s:b,s:s,s:i,s:i,s:i}",
	                    "budget_w", wc__render_digits(wc_num_text(bt, bo->budget_w)),
	                    "stat", bo->stat == WC_BUDGET_MAX ? "max" : "p95",
	                    "fleet_mode", wc_envelope_fleet_mode_label(plan->lockstep, o->fleet_mode),
	                    "max_fleet", bo->max_fleet,
	                    "fleet_size", plan->fleet_size, "stat_w", beside(plan->stat_w, bo->budget_w),
	                    "next_stat_w", beside(plan->next_stat_w, bo->budget_w), "at_bound", plan->at_bound,
	                    "stopped_by", stopped, "search_bound", plan->search_bound,
	                    "probes", plan->probes, "servers_simulated", plan->servers_simulated));
	json_t *iv = json_null();
	if (isfinite(plan->stat_lo_w)) {
		iv = json_pack("{s:o,s:o}", "lo", beside(plan->stat_lo_w, bo->budget_w), "hi",
		               beside(plan->stat_hi_w, bo->budget_w));
		interval_covers(iv, c->power, plan->stat_draws, ""); /* one path per probe: no replicas' spread */
	}
	json_object_set_new(json_object_get(root, "plan"), "stat_interval_95", iv);
	json_t *warnings = json_array();
	append_setup_warnings(c, warnings);
	for (int i = 0; i < plan->n_warnings; i++)
		json_array_append_new(warnings, json_string(plan->warnings[i]));
	json_object_set_new(root, "warnings", warnings);
	return root;
}

char *
wc_render_envelope(const wc_envelope_render *ctx, const wc_envelope_result *res, int indent,
                   wc_error *err)
{
	return wc__render_dump(wc_envelope_json(ctx, res), indent, err);
}

char *
wc_render_budget(const wc_envelope_render *ctx, const wc_budget_options *bo, const wc_budget_plan *plan,
                 int indent, wc_error *err)
{
	return wc__render_dump(wc_budget_json(ctx, bo, plan), indent, err);
}

double
wc_envelope_bin_values(const wc_envelope_options *o)
{
	double steps = (double)llround(o->horizon_s / WC_ENVELOPE_GRID_S);
	double stride = (double)llround(o->bin_s / WC_ENVELOPE_GRID_S);
	return ceil(steps / stride) * WC_ENVELOPE_BAND_ARRAYS * (o->fleet_size > 1 ? 2 : 1);
}
