/*
 * Trace envelopes (docs/envelopes.md): options, the law-based power map,
 * and the replicas -- run by worker threads, replica r writing only its
 * own slot, reduced by the calling thread in replica order, so results
 * are bit-identical for any number of threads.
 */
#include "envelope_internal.h"
#include "predict_internal.h"

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/grow.h"
#include "predict/predict.h"

static const char *const fleet_names[WC_FLEET_MODE_COUNT] = {
	"independent", "round_robin", "least_loaded",
};

const char *
wc_fleet_mode_name(wc_fleet_mode m)
{
	return (unsigned)m < WC_FLEET_MODE_COUNT ? fleet_names[m] : "";
}

int
wc_fleet_mode_from_name(const char *name, wc_fleet_mode *out)
{
	for (int i = 0; name && i < WC_FLEET_MODE_COUNT; i++)
		if (strcmp(name, fleet_names[i]) == 0) {
			*out = (wc_fleet_mode)i;
			return WC_OK;
		}
	return WC_ENOTFOUND;
}

void
wc_envelope_options_init(wc_envelope_options *o)
{
	memset(o, 0, sizeof *o);
	o->horizon_s = 600.0;
	o->replicas = 20;
	o->seed = 1;
	o->threads = 1;
	o->bin_s = 1.0;
	o->sample_s = 0.1;
	o->max_running = 256;
	o->tau_s = WC_RESPONSE_ASSUMED_TAU_S;
	o->hold_s = WC_RESPONSE_ASSUMED_HOLD_S;
	o->decay_s = WC_RESPONSE_ASSUMED_DECAY_S;
	o->fleet_size = 1;
	o->fleet_mode = WC_FLEET_INDEPENDENT;
}

double
wc_envelope_bin_within(double bin_s, double horizon_s)
{
	if (!(bin_s > horizon_s))
		return bin_s;
	return WC_ENVELOPE_GRID_S * fmax(1.0, floor(horizon_s / WC_ENVELOPE_GRID_S + 1e-9));
}

size_t
wc_envelope_samples(double horizon_s, double sample_s)
{
	const double len = round(horizon_s / WC_ENVELOPE_GRID_S), stride = round(sample_s / WC_ENVELOPE_GRID_S);
	if (!(len >= 1.0) || !(stride >= 1.0) || !isfinite(len) || !isfinite(stride))
		return 0;
	return wc__sample_count((size_t)len, (size_t)stride);
}

double
wc_envelope_sample_max(double horizon_s)
{
	return WC_ENVELOPE_GRID_S * fmax(1.0, floor(horizon_s / WC_ENVELOPE_GRID_S + 1e-9) - 1.0);
}

double
wc_envelope_sample_within(double sample_s, double horizon_s)
{
	const double most = wc_envelope_sample_max(horizon_s);
	return sample_s > most ? most : sample_s;
}

int
wc_envelope_on_grid(double x)
{
	/* To 1e-6 of a step, whatever the count: a decimal's rounding moves
	 * x / 0.05 by about 1e-16 of itself, some 1e-9 steps at the longest
	 * horizon. A tolerance of 1e-6 of the count let 86399.9136 s (0.27 of
	 * a step off at 1.7e6 steps) pass as on the grid, counted as
	 * 34559965.44 bins (docs/envelopes.md). */
	double k = x / WC_ENVELOPE_GRID_S;
	return isfinite(k) && k >= 1.0 - 1e-6 && fabs(k - round(k)) <= 1e-6;
}

int
wc_envelope_options_check(const wc_envelope_options *o, wc_error *err)
{
	/* Both are simulated on the grid: one off it was run at another
	 * length than the answer echoed (10.03 s ran 10.05 s, 0.07 s 0.05 s,
	 * energy_j then not mean_w x horizon_s), so they are refused as
	 * bin_s is (docs/envelopes.md). */
	/* the range and the grid said apart: the HTTP route's own bound is
	 * shorter than this one, and a value in range needs only the grid */
	if (!isfinite(o->horizon_s) || !(o->horizon_s >= WC_ENVELOPE_GRID_S) || o->horizon_s > WC_ENVELOPE_MAX_HORIZON_S)
		return wc_error_set(err, WC_EINVAL, "horizon_s: must be between %g and %g s, got %s",
		                    WC_ENVELOPE_GRID_S, WC_ENVELOPE_MAX_HORIZON_S, WC_NUM_TEXT(o->horizon_s));
	if (!wc_envelope_on_grid(o->horizon_s))
		return wc_error_set(err, WC_EINVAL, "horizon_s: must be a multiple of %g s, got %s", WC_ENVELOPE_GRID_S,
		                    WC_NUM_TEXT(o->horizon_s));
	if (!isfinite(o->warmup_s) || o->warmup_s < 0 || o->warmup_s > WC_ENVELOPE_MAX_HORIZON_S)
		return wc_error_set(err, WC_EINVAL, "warmup_s: must be between 0 and %g s, got %s",
		                    WC_ENVELOPE_MAX_HORIZON_S, WC_NUM_TEXT(o->warmup_s));
	if (o->warmup_s > 0 && !wc_envelope_on_grid(o->warmup_s))
		return wc_error_set(err, WC_EINVAL, "warmup_s: must be 0 or a multiple of %g s, got %s",
		                    WC_ENVELOPE_GRID_S, WC_NUM_TEXT(o->warmup_s));
	if (o->replicas < 1 || o->replicas > WC_ENVELOPE_MAX_REPLICAS)
		return wc_error_set(err, WC_EINVAL, "replicas: must be between 1 and %d, got %d",
		                    WC_ENVELOPE_MAX_REPLICAS, o->replicas);
	if (o->threads < 1 || o->threads > WC_ENVELOPE_MAX_THREADS)
		return wc_error_set(err, WC_EINVAL, "threads: must be between 1 and %d, got %d",
		                    WC_ENVELOPE_MAX_THREADS, o->threads);
	if (!wc_envelope_on_grid(o->bin_s) || o->bin_s > o->horizon_s + 1e-9)
		return wc_error_set(err, WC_EINVAL, "bin_s: must be a multiple of %g s up to the horizon, got %s",
		                    WC_ENVELOPE_GRID_S, WC_NUM_TEXT(o->bin_s));
	if (!wc_envelope_on_grid(o->sample_s) || o->sample_s > 60.0)
		return wc_error_set(err, WC_EINVAL, "sample_s: must be a multiple of %g s up to 60 s, got %s",
		                    WC_ENVELOPE_GRID_S, WC_NUM_TEXT(o->sample_s));
	/* A cadence as long as the horizon, or longer, samples t = 0 alone:
	 * every percentile and the max the start's idle, below the mean
	 * (docs/envelopes.md, "Outputs"). */
	if (o->sample_s > wc_envelope_sample_max(o->horizon_s) + 1e-9)
		return wc_error_set(err, WC_EINVAL, "sample_s: %g s would sample the horizon of %g s at t = 0 alone; "
		                    "at most %g s samples it twice", o->sample_s, o->horizon_s,
		                    wc_envelope_sample_max(o->horizon_s));
	if (o->max_running < 1 || o->max_running > WC_ENVELOPE_MAX_RUNNING)
		return wc_error_set(err, WC_EINVAL, "max_running: must be between 1 and %d, got %d",
		                    WC_ENVELOPE_MAX_RUNNING, o->max_running);
	if (!isfinite(o->tau_s) || o->tau_s < 0 || o->tau_s > WC_RESPONSE_MAX_TAU_S)
		return wc_error_set(err, WC_EINVAL, "tau_s: must be between 0 and %g s, got %s",
		                    WC_RESPONSE_MAX_TAU_S, WC_NUM_TEXT(o->tau_s));
	if (!isfinite(o->hold_s) || o->hold_s < 0 || o->hold_s > WC_RESPONSE_MAX_HOLD_S)
		return wc_error_set(err, WC_EINVAL, "hold_s: must be between 0 and %g s, got %s",
		                    WC_RESPONSE_MAX_HOLD_S, WC_NUM_TEXT(o->hold_s));
	if (!isfinite(o->decay_s) || o->decay_s < 0 || o->decay_s > WC_RESPONSE_MAX_DECAY_S)
		return wc_error_set(err, WC_EINVAL, "decay_s: must be between 0 and %g s, got %s",
		                    WC_RESPONSE_MAX_DECAY_S, WC_NUM_TEXT(o->decay_s));
	if (o->fleet_size < 1 || o->fleet_size > WC_ENVELOPE_MAX_FLEET)
		return wc_error_set(err, WC_EINVAL, "fleet_size: must be between 1 and %d, got %d",
		                    WC_ENVELOPE_MAX_FLEET, o->fleet_size);
	if ((unsigned)o->fleet_mode >= WC_FLEET_MODE_COUNT)
		return wc_error_set(err, WC_EINVAL, "fleet_mode: unknown");
	return WC_OK;
}

int
wc_envelope_fleet_check(const wc_envelope_workload *w, const wc_envelope_options *o, int budget, wc_error *err)
{
	if (w->kind == WC_ENVELOPE_SERIES && o->fleet_mode != WC_FLEET_INDEPENDENT && (budget || o->fleet_size > 1))
		return wc_error_set(err, WC_EINVAL, "fleet_mode: an explicit n(t) cannot be split by a balancer "
		                    "(use independent)");
	return WC_OK;
}

const char *
wc_envelope_option_unused(const char *field, wc_envelope_kind kind, int budget, int fleet_size)
{
	static const char *const series[][2] = {
		{ "input_tokens", "an explicit n(t) has no requests" },
		{ "output_tokens", "an explicit n(t) has no requests" },
		{ "max_running", "an explicit n(t) has no engine" },
		{ "service", "an explicit n(t) has no service times" },
	};
	for (size_t i = 0; kind == WC_ENVELOPE_SERIES && i < sizeof series / sizeof series[0]; i++)
		if (strcmp(field, series[i][0]) == 0)
			return series[i][1];
	/* a mode says how a balancer splits the load; one server has none,
	 * and a mode given there would be dropped unsaid */
	if (!budget && fleet_size <= 1 && strcmp(field, "fleet_mode") == 0)
		return "one server has no balancer";
	return NULL;
}

double
wc__envelope_request_life(const wc_service_times *st, double input, double output)
{
	if (!st || !st->decode_step_s || !st->prefill_s)
		return NAN;
	double in = fmax(input, 0.0), out = fmax(output, 1.0);
	return st->prefill_s(st->ctx, in) + out * st->decode_step_s(st->ctx, 1.0, in);
}

/* Requests a closed loop's clients can have served at most: each request
 * lives at least its prefill and its output's decode steps alone in the
 * engine (wc__envelope_request_life), so the served rate is at most
 * min(clients / (think + that), max_running / that). Its clients alone,
 * as before, without service times. */
static double
closed_requests(const wc_envelope_workload *w, const wc_envelope_options *o, const wc_service_times *st)
{
	double n = w->concurrency;
	double life = wc__envelope_request_life(st, w->input.mean, w->output.mean);
	if (!(life > 0.0) || !isfinite(life))
		return n;
	double rate = fmin(n / (fmax(w->think_s, 0.0) + life), fmin(n, (double)o->max_running) / life);
	return n + rate * (o->warmup_s + o->horizon_s);
}

static const char *servers_advice(const wc_envelope_workload *w, const wc_envelope_options *o, int budget);

/* The expected arrivals of one server run (a closed loop's at most). */
double
wc__envelope_requests_per_server(const wc_envelope_workload *w, const wc_envelope_options *o,
                                 const wc_service_times *st)
{
	return w->kind == WC_ENVELOPE_CLOSED ? closed_requests(w, o, st)
	                                     : wc_envelope_workload_requests(w, o->warmup_s, o->horizon_s);
}

int
wc_envelope_requests_alone(const wc_envelope_workload *w, const wc_envelope_options *o, const wc_service_times *st,
                           double max_requests)
{
	return w->kind != WC_ENVELOPE_SERIES && wc__envelope_requests_per_server(w, o, st) > max_requests;
}

/* Requests drawn: the expected arrivals per server (a closed loop's at
 * most) x server runs. */
static int
requests_check(const wc_envelope_workload *w, const wc_envelope_options *o, const wc_service_times *st,
               double servers, double max_requests, int budget, const char *limit, wc_error *err)
{
	double per = wc__envelope_requests_per_server(w, o, st);
	double n = per * servers;
	if (!(n > max_requests))
		return WC_OK;
	const char *field = w->kind == WC_ENVELOPE_REPLAY ? "arrival_s"
	                  : w->kind == WC_ENVELOPE_CLOSED ? "concurrency"
	                  : w->n_profile ? "rate_profile" : "rate";
	/* What sets the server runs differs: a plan has no replicas or fleet
	 * of its own, its servers are what max_fleet and the budget allow
	 * (docs/http-api.md, "Bounds"), so it names only what it takes. A
	 * replayed log's rate is its own: the horizon and the servers remain. */
	/* the count (whole requests) and the bound in full: rounded alike
	 * they read equal */
	char nt[32], bt[32], sv[32];
	/* one server's over the bound alone: fewer servers cannot help */
	const char *lower = per > max_requests ? NULL : servers_advice(w, o, budget);
	const char *what = w->kind == WC_ENVELOPE_CLOSED ? "the clients" : w->kind == WC_ENVELOPE_REPLAY ? NULL
	                                                                                                 : "the rate";
	char tail[96];
	if (lower)
		snprintf(tail, sizeof tail, "%s%sthe horizon, %s", what ? what : "", what ? ", " : "", lower);
	else
		snprintf(tail, sizeof tail, "%s%sthe horizon", what ? what : "", what ? " or " : "");
	return wc_error_set(err, WC_EINVAL, "%s: the simulation would draw %s requests (%.3g per server x %s "
	                    "server runs over %g s), over %s of %s; lower %s", field,
	                    wc_num_text(nt, ceil(n)), n / servers, wc_num_text(sv, servers), o->warmup_s + o->horizon_s, limit,
	                    wc_num_text(bt, max_requests), tail);
}

/* What lowers the server runs a bound charges: only a knob above its
 * minimum that the runs count (docs/http-api.md, "Bounds"), the replicas
 * simulated over 1 and a fleet over 1 not in lockstep; NULL where none
 * does: one replica of one server, a workload that draws nothing is
 * simulated once whatever the replicas, and a lockstep fleet or plan
 * simulates one server (docs/envelopes.md, "Lockstep fleets"). */
static const char *
servers_advice(const wc_envelope_workload *w, const wc_envelope_options *o, int budget)
{
	const int lockstep = wc_envelope_fleet_lockstep(w, o->fleet_mode);
	if (budget)
		return lockstep ? NULL : "max_fleet or budget_w";
	const int replicas = wc_envelope_replicas_simulated(w, o) > 1, fleet = o->fleet_size > 1 && !lockstep;
	return replicas && fleet ? "the replicas or the fleet" : replicas ? "the replicas" : fleet ? "the fleet" : NULL;
}

/* The server runs a bound charges: replicas x the servers simulated. */
static double
servers_charged(const wc_envelope_workload *w, const wc_envelope_options *o)
{
	const int replicas = wc_envelope_replicas_simulated(w, o);
	const int fleet = wc_envelope_fleet_lockstep(w, o->fleet_mode) ? 1 : o->fleet_size;
	return (double)replicas * fleet;
}

double
wc_envelope_queue_requests(const wc_envelope_workload *w, const wc_envelope_options *o, const wc_budget_options *bo,
                           const wc_power_map *pm, double *at_once)
{
	const int lockstep = wc_envelope_fleet_lockstep(w, o->fleet_mode);
	const int shared = o->fleet_mode != WC_FLEET_INDEPENDENT && (bo || o->fleet_size > 1);
	/* runs in flight: replicas (or a plan's independent servers) are
	 * dealt to the threads, each run's queues freed before the next */
	double runs = bo ? (lockstep || shared ? 1.0 : wc_envelope_budget_servers(bo, pm, WC_FLEET_INDEPENDENT))
	                 : (double)wc_envelope_replicas_simulated(w, o);
	runs = fmin(runs, (double)(o->threads > 1 ? o->threads : 1));
	/* a shared arrival process runs all its servers at once */
	const double sharing = !shared ? 1.0 : bo ? wc_envelope_budget_servers(bo, pm, WC_FLEET_INDEPENDENT)
	                                          : (double)o->fleet_size;
	*at_once = runs * sharing;
	const double per = w->kind == WC_ENVELOPE_SERIES   ? 0.0
	                 : w->kind == WC_ENVELOPE_CLOSED ? w->concurrency
	                                                 : wc_envelope_workload_requests(w, o->warmup_s, o->horizon_s);
	return per * *at_once;
}

const char *
wc_envelope_servers_field(const wc_envelope_workload *w, const wc_envelope_options *o,
                          const wc_budget_options *bo, const wc_power_map *pm)
{
	if (!servers_advice(w, o, bo != NULL))
		return "horizon_s"; /* only the horizon changes the work */
	/* a plan names what sets its servers (docs/http-api.md, "Bounds"):
	 * the budget where its idle-power bound is under max_fleet */
	if (bo)
		return wc_envelope_budget_sets_servers(bo, pm) ? "budget_w" : "max_fleet";
	/* the larger of the knobs servers_advice names (both over 1, or one) */
	const int replicas = wc_envelope_replicas_simulated(w, o);
	return o->fleet_size > replicas && !wc_envelope_fleet_lockstep(w, o->fleet_mode) ? "fleet_size" : "replicas";
}

int
wc_envelope_work_check(const wc_envelope_workload *w, const wc_envelope_options *o, const wc_service_times *st,
                       const wc_budget_options *bo, const wc_power_map *pm, double max_work,
                       double max_requests, const char *limit, wc_error *err)
{
	const int budget = bo != NULL;
	/* a workload that draws nothing is simulated once, whatever the
	 * replicas (wc_envelope_run_once_if_fixed), a lockstep fleet as one
	 * server, and so charged once */
	const size_t len = (size_t)(llround(o->warmup_s / WC_ENVELOPE_GRID_S) + llround(o->horizon_s / WC_ENVELOPE_GRID_S));
	double servers = budget ? wc__envelope_plan_servers(w, bo, pm, o->fleet_mode, len) : servers_charged(w, o);
	if (!limit)
		limit = "the bound";
	/* A shared arrival process's worst case, the largest sum of probes
	 * over every fleet that may fit, is several times what its plans
	 * simulate (5 kW of A100 servers: 395 runs charged, 72 simulated at
	 * Poisson 2/s). Over the grid bound it is not refused before any work:
	 * its search meters the probes it really runs (wc__plan_meter,
	 * docs/http-api.md "Bounds"), and only its first, one server, is
	 * charged here. */
	if (budget && servers > 1.0 && o->fleet_mode != WC_FLEET_INDEPENDENT &&
	    wc__plan_over(w, o, st, servers, max_work, INFINITY) && !wc__plan_over(w, o, st, servers, INFINITY, max_requests))
		servers = 1.0;
	/* One server's arrivals over the requests bound alone refuse the work
	 * whatever the replicas, fleet or budget (docs/http-api.md, "Bounds"):
	 * checked first, so the refusal names the workload, not the servers. */
	if (wc_envelope_requests_alone(w, o, st, max_requests))
		return requests_check(w, o, st, servers, max_requests, budget, limit, err);
	/* The grid's steps cost even where no request runs: a near-idle week
	 * for a large fleet draws few requests but steps every server through
	 * 12 million bins. */
	const double bins = (o->horizon_s + o->warmup_s) / WC_ENVELOPE_GRID_S;
	const int shared = o->fleet_mode != WC_FLEET_INDEPENDENT && (budget || o->fleet_size > 1);
	const double work = bins * servers * (shared ? WC_ENVELOPE_SHARED_WORK_COST : 1.0);
	if (work > max_work) {
		/* in full: rounded alike they read equal; the server runs, a
		 * count, too (1024 read 1.02e+03) */
		char wt[32], lt[32], sv[32], how[64] = "";
		if (shared)
			snprintf(how, sizeof how, ", x %g for a shared arrival process", WC_ENVELOPE_SHARED_WORK_COST);
		const char *lower = servers_advice(w, o, budget);
		char within[64];
		/* a plan names the one field that sets its servers and how far
		 * down it answers (docs/http-api.md, "Bounds") */
		const double ok = floor(max_work / (work / servers)); /* the server runs the bound allows */
		if (budget && lower)
			lower = ok >= 1.0 ? wc__plan_within_text(bo, pm, o->fleet_mode, len, ok, within, sizeof within) : NULL;
		return wc_error_set(err, WC_EINVAL, "%s: the simulation would take %s grid bins x servers (%g s on the "
		                    "%g s grid, %s server runs%s), over %s of %s; shorten the horizon%s%s",
		                    wc_envelope_servers_field(w, o, bo, pm), wc_num_text(wt, work), o->horizon_s + o->warmup_s,
		                    WC_ENVELOPE_GRID_S, wc_num_text(sv, servers),
		                    how, limit, wc_num_text(lt, max_work), lower ? ", or lower " : "", lower ? lower : "");
	}
	/* servers sharing one arrival process run at once, each on a grid of
	 * its own under its own limit (envelope_sim.c): refused here, before
	 * any work, as the other bounds are; a plan stops its search there */
	const size_t grids_max = wc__envelope_fleet_grids_max(len);
	if (!budget && shared && pm && pm->max_w > 0 && isfinite(pm->max_w) && (size_t)o->fleet_size > grids_max)
		return wc_error_set(err, WC_EINVAL, "fleet_size: %d servers sharing arrivals, each on a grid of its own of "
		                    "%zu bins (its board's limit), exceed the %zu such grids %zu bins hold; lower the fleet "
		                    "or shorten horizon_s%s", o->fleet_size, len, grids_max, (size_t)WC_ENVELOPE_FLEET_BINS,
		                    o->warmup_s > 0 ? " or warmup_s" : "");
	return requests_check(w, o, st, servers, max_requests, budget, limit, err);
}

/* ------------------------------------------------------- power map */

static double
law_dynamic(const void *ctx, double running)
{
	const wc_power_map_law *s = ctx;
	return s->scale * wc_law_point_dynamic(&s->law, running);
}

static int power_map_bind(const wc_params *p, const wc_config *c, const wc_response_params *response,
                          wc_power_map_law *store, wc_power_map *out, wc_error *err);

/* The law's span caveats, the power answer's words with the load not
 * judged (a trace's load moves): beyond the span, a level at a bound or
 * saturating, then the model size and tp outside it, each naming the
 * capacity calibration's span `cap_span` (NULL: none) too where the
 * capacity service times left it as well (joined[k] then 1; docs/capacity.md,
 * "Warnings"). */
static void
map_span_notes(const wc_params *p, const wc_level *lv, const wc_config *at, const double (*cap_span)[2],
               int *joined, wc_power_map *out)
{
	out->n_span_notes = 0;
	for (int part = 0; part < 2; part++)
		out->n_span_notes += wc__predict_span_notes(p, lv, at, "concurrency", NULL, cap_span, joined, part,
		                                            out->span_notes + out->n_span_notes);
}

void
wc__power_map_join_spans(wc_power_map *pm, const double (*cap_span)[2], int joined[WC_SPANS_BOTH])
{
	wc_params *tmp = NULL;
	wc_config at = pm->config;
	wc_error why;
	int left = 0;
	for (int k = 0; cap_span && k < WC_SPANS_BOTH; k++)
		left |= cap_span[k][1] > 0;
	/* no span left: the notes as bound stand (the same words again) */
	if (!left)
		return;
	/* the level the map was bound on, a datasheet transfer's as before */
	if (!pm->params || wc_predict_resolve_platform(pm->params, &at, &tmp, &why) != WC_OK)
		return;
	const wc_level *lv = wc_params_level(tmp ? tmp : pm->params, at.platform);
	if (lv)
		map_span_notes(tmp ? tmp : pm->params, lv, &at, cap_span, joined, pm);
	free(tmp);
}

int
wc_power_map_from_law(const wc_params *p, const wc_config *c, const wc_response_params *response,
                      wc_power_map_law *store, wc_power_map *out, wc_error *err)
{
	return wc__power_map_from_law_by(p, c, "sm_clock_mhz", response, store, out, err);
}

int
wc__power_map_from_law_by(const wc_params *p, const wc_config *c, const char *clock_field,
                          const wc_response_params *response, wc_power_map_law *store, wc_power_map *out,
                          wc_error *err)
{
	/* A catalog board without a level of the set: its datasheet transfer,
	 * as a point answer takes it (docs/fitting.md). The map copies the
	 * law's numbers, so the transferred copy of the set is freed here. */
	wc_params *tmp = NULL;
	wc_config at = *c;
	int rc = wc_predict_resolve_platform(p, &at, &tmp, err);
	if (rc == WC_OK)
		rc = power_map_bind(tmp ? tmp : p, &at, response, store, out, err);
	if (rc == WC_OK && tmp) {
		const wc_level *l = wc_params_level(tmp, at.platform);
		if (l)
			wc__predict_datasheet_note(tmp, l, out->level_note, sizeof out->level_note);
		if (!l || !wc__predict_module_note(l, out->module_note, sizeof out->module_note))
			out->module_note[0] = '\0';
	}
	const wc_level *lv = rc == WC_OK ? wc_params_level(tmp ? tmp : p, at.platform) : NULL;
	char notes[2][WC_WARNING_LEN];
	int n = lv ? wc__predict_precision_notes(tmp ? tmp : p, lv, &at, notes) : 0;
	out->precision_note[0] = '\0';
	for (int i = 0; i < n; i++) /* weights and KV: one line */
		snprintf(out->precision_note + strlen(out->precision_note), sizeof out->precision_note -
		         strlen(out->precision_note), "%s%s", i ? "; " : "", notes[i]);
	/* a locked clock moves the power through kappa as in a point answer,
	 * with the same caveat (docs/envelopes.md, "From the capacity model");
	 * a clock the board's limit settled names what set it, as predict's
	 * answer at that clock does (docs/envelopes.md, "Board limit") */
	out->clock_note[0] = out->clock_low_note[0] = '\0';
	wc_predict_engine_note(c, out->engine_note, sizeof out->engine_note); /* docs/capacity.md, "Serving stacks" */
	/* docs/capacity.md, "Model names" */
	wc_model_name_note(c->model, (int)c->weights, (int)c->kv, out->model_note, sizeof out->model_note);
	out->n_span_notes = 0;
	if (lv) {
		wc__predict_clock_note(tmp ? tmp : p, lv, clock_field, at.sm_clock_mhz, 1.0, 0, 0, 0, out->clock_note,
		                       sizeof out->clock_note);
		wc__predict_clock_low_note(tmp ? tmp : p, lv->name, clock_field, at.sm_clock_mhz, out->clock_low_note,
		                           sizeof out->clock_low_note);
		map_span_notes(tmp ? tmp : p, lv, &at, NULL, NULL, out);
	}
	free(tmp);
	if (rc == WC_OK) { /* to bind again at the clock the board's limit settles at (envelope_settle.c) */
		out->params = p;
		out->config = *c;
		if ((out->has_response = response != NULL))
			out->response = *response;
	}
	return rc;
}

static int
power_map_bind(const wc_params *p, const wc_config *c, const wc_response_params *response,
               wc_power_map_law *store, wc_power_map *out, wc_error *err)
{
	wc_law_binding b;
	wc_response_params r;
	int rc = wc_law_bind(p, c, &b, err);
	if (rc != WC_OK)
		return rc;
	wc_law_bound_point(&b, NULL, &store->law);
	wc_response_effective(response, &r);
	store->scale = wc_response_dynamic_scale(&r);
	memset(out, 0, sizeof *out);
	out->dynamic_w = law_dynamic;
	out->ctx = store;
	out->idle_w = store->law.p0;
	wc__predict_idle_estimated_note(&b, out->idle_note, sizeof out->idle_note);
	out->tp = c->tp;
	snprintf(out->profile, sizeof out->profile, "%s", p->name);
	snprintf(out->level, sizeof out->level, "%s", b.level->name);
	snprintf(out->level_source, sizeof out->level_source, "%s", wc_predict_level_source(p, b.level));
	out->prefill_w = r.prefill_ratio.value *
	                 wc_law_point_dynamic(&store->law, WC_RESPONSE_PREFILL_REF_RUNNING);
	const wc_pe_stratum *pe = wc_predict_pe_stratum(p, b.level);
	/* never narrower than a fitted level's, as every answer (docs/intervals.md, "Strata") */
	if ((out->has_pe = pe != NULL))
		wc_pe_transfer_stratum(&p->pred_error, pe, &out->pe);
	out->pe_calibrated = out->has_pe && p->n_draws > 1 && wc__predict_calibrated(&b);
	double limit = wc_level_power_limit_w(b.level);
	out->max_w = isfinite(limit) ? limit : INFINITY;
	if (wc_form_has_prefill(p->form) && isfinite(b.headroom)) {
		/* The prefill-aware law's own prefill level (docs/inference-law.md,
		 * "Prefill-aware form"), whatever the configuration's lengths. */
		double clock = b.clock_ratio > 0.0 ? pow(b.clock_ratio, p->kappa.value) : 1.0;
		out->prefill_level_w = p->phi.value * b.headroom * clock;
		snprintf(out->source, sizeof out->source, "law+prefill_level");
	} else {
		snprintf(out->source, sizeof out->source, "law+prefill");
	}
	if (!isfinite(out->idle_w) || !isfinite(out->prefill_w) ||
	    !isfinite(law_dynamic(store, WC_RESPONSE_PREFILL_REF_RUNNING)))
		return wc_error_set(err, WC_ERANGE, "law: non-finite power for this configuration");
	return WC_OK;
}

const char *
wc_power_map_covers(const wc_power_map *pm)
{
	return wc_predict_pe_covers(&pm->pe, 0, "mean power"); /* said only where has_pe */
}

const char *
wc_power_map_draws_covered(int draws)
{
	return draws > 0 ? "the calibration's draws and " : "";
}

void
wc_power_map_interval_covers(const wc_power_map *pm, int draws, const char *spread, char *buf, size_t cap)
{
	snprintf(buf, cap, "%sthe law's %s (prediction_error); not the Monte-Carlo spread%s%s nor the service times' "
	         "error", wc_power_map_draws_covered(draws), wc_power_map_covers(pm), spread[0] ? " " : "", spread);
}

int
wc_power_map_pe(const wc_power_map *pm, double running, wc_pe_stratum *out, int *n_draws)
{
	*out = pm->pe;
	if (n_draws)
		*n_draws = 0;
	if (!pm->has_pe)
		return 0;
	/* a calibrated level's draws add to the held-out error, as in the
	 * power answer (docs/intervals.md, "Calibrated sets") */
	if (pm->pe_calibrated && pm->params)
		wc__predict_calibrated_pe(pm->params, &pm->config, running, &pm->pe, out, n_draws);
	return 1;
}
