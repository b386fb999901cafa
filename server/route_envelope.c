/*
 * POST /v1/forecast/envelope and POST /v1/plan/budget (docs/http-api.md):
 * the same answers as `wattcast envelope --json` (with --budget for the
 * plan), from the profile the request names (the default without one):
 * its law and response, and its capacity model's service times when it
 * has them for the configuration, else the stand-in's.
 * Work beyond the server's bounds is 413 with the field to lower.
 * Results live on the heap: handlers run on small worker stacks.
 */
#include "render_internal.h"
#include "requests_internal.h"
#include "routes_internal.h"

#include "models/limits.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The library's names of fields the request spells otherwise, for the
 * field `msg` starts with (n bytes), or NULL: the fleet's on the envelope
 * route alone (a plan has no fleet: the first two), a replay's arrivals
 * on both. The one rule of the refusals and of the warnings naming a
 * replay's own lengths (docs/envelopes.md, "Engine"). */
static const char *const renamed[][2] = { { "fleet_size", "fleet/size" }, { "fleet_mode", "fleet/mode" },
	                                  { "arrival_s", "arrivals/t_s" },
	                                  { "arrival_input", "arrivals/input_tokens" },
	                                  { "arrival_output", "arrivals/output_tokens" } };

static const char *
renamed_field(const char *msg, size_t n, int budget)
{
	for (size_t k = budget ? 2 : 0; k < sizeof renamed / sizeof renamed[0]; k++)
		if (strlen(renamed[k][0]) == n && strncmp(msg, renamed[k][0], n) == 0)
			return renamed[k][1];
	return NULL;
}

void
wc_envelope_name_warnings(char (*warnings)[WC_WARNING_LEN], int n, int budget)
{
	char text[WC_WARNING_LEN];
	for (int i = 0; i < n; i++) {
		const size_t k = strcspn(warnings[i], ":");
		const char *name = renamed_field(warnings[i], k, budget);
		if (!name || !strstr(name, "_tokens")) /* a replay's lengths; its arrival_s warnings as docs say them */
			continue;
		wc_error_format(text, sizeof text, "%s%s", name, warnings[i] + k);
		memcpy(warnings[i], text, sizeof text);
	}
}

/* A library refusal, whose message starts with the field, as a pointer:
 * the envelope route takes the fleet as {"fleet": {"size", "mode"}}, the
 * plan route as fleet_mode, so the library's fleet_size / fleet_mode are
 * the envelope's /fleet/size and /fleet/mode. */
void
wc_envelope_library_error(const wc_error *err, int budget, wc_api_error *e)
{
	static const char *const workload_fields[] = { "rate", "rate_profile", "burstiness", "concurrency",
		"think_s", "input_tokens", "output_tokens", "arrival_s", "arrival_input", "arrival_output",
		"series_running", "series_dt_s", NULL };
	char field[sizeof e->field] = "";
	size_t n = strcspn(err->msg, ":/");
	for (const char *const *f = workload_fields; *f; f++)
		if (strlen(*f) == n && strncmp(err->msg, *f, n) == 0)
			snprintf(field, sizeof field, "/workload");
	const char *name = renamed_field(err->msg, n, budget);
	snprintf(field + strlen(field), sizeof field - strlen(field), "/%.*s", name ? (int)strlen(name) : (int)n,
	         name ? name : err->msg);
	wc_api_error_set(e, err->code == WC_ENOMEM ? 500 : 422, err->code == WC_ENOMEM ? "internal" : "invalid_value",
	                 field, "%s%s", name ? name : "", err->msg + (name ? n : 0));
}

/* A replay's lengths its arrivals leave null (or give no array of), drawn
 * from the workload's distribution: said with how many and from what
 * (docs/envelopes.md, "Workloads"), as the CLI says its log's, not in the
 * answer's `workload` alone. Over the requests replayed (the request's
 * workload is windowed when parsed). */
static void
missing_lengths_notes(const json_t *body, const wc_envelope_workload *w, char (*warnings)[WC_WARNING_LEN], int *n)
{
	const json_t *given = json_object_get(body, "workload");
	for (int input = 1; w->kind == WC_ENVELOPE_REPLAY && input >= 0; input--) {
		const double *own = input ? w->arrival_input : w->arrival_output;
		size_t missing = own ? 0 : w->n_arrivals;
		for (size_t i = 0; own && i < w->n_arrivals; i++)
			missing += !isfinite(own[i]);
		if (!missing)
			continue;
		const char *field = input ? "input_tokens" : "output_tokens";
		const wc_length_dist *d = input ? &w->input : &w->output;
		char from[96];
		if (d->kind == WC_LENGTH_LOGNORMAL)
			snprintf(from, sizeof from, "lognormal, mean %g, sd %g", d->mean, d->sd);
		else if (d->kind == WC_LENGTH_EMPIRICAL)
			snprintf(from, sizeof from, "empirical, %zu values", d->n_values);
		else
			snprintf(from, sizeof from, "%g", d->mean);
		wc_warnings_add(warnings, n, "arrivals/%s: %zu of %zu requests replayed %s none (null); drawn from %s%s %s",
		                field, missing, w->n_arrivals, missing == 1 ? "has" : "have",
		                json_object_get(given, field) ? "" : "the default ", field, from);
	}
}

/* The simulated work, counted two ways (wc_envelope_work_check, the
 * CLI's bound too, with this server's tighter limits): grid bins x server
 * runs and requests drawn; beyond either the request is 413, naming the
 * field that sets it: the workload's rate, else what sets the servers. */
static int
work_bound(const wc_envelope_request *r, const wc_service_times *st, int budget, const wc_power_map *pm,
           wc_api_error *e)
{
	wc_error err;
	if (wc_envelope_work_check(&r->w, &r->o, st, budget ? &r->bo : NULL, pm, WC_HTTP_MAX_WORK,
	                           WC_HTTP_MAX_REQUESTS, "this server's limit", &err) == WC_OK)
		return 0;
	char field[sizeof e->field];
	size_t n = strcspn(err.msg, ":");
	if ((n == 4 && strncmp(err.msg, "rate", 4) == 0) || (n == 12 && strncmp(err.msg, "rate_profile", 12) == 0))
		snprintf(field, sizeof field, "/workload/%.*s", (int)n, err.msg);
	else if (n == 10 && strncmp(err.msg, "fleet_size", 10) == 0) /* servers sharing arrivals, each on its grid */
		snprintf(field, sizeof field, "/fleet/size");
	else if (wc_envelope_requests_alone(&r->w, &r->o, st, WC_HTTP_MAX_REQUESTS)) /* no server count helps */
		snprintf(field, sizeof field, "%s", r->w.kind == WC_ENVELOPE_CLOSED ? "/workload/concurrency" : "/horizon_s");
	else { /* what sets the server runs, as the library names it; the fleet's size is an object's field here */
		const char *sf = wc_envelope_servers_field(&r->w, &r->o, budget ? &r->bo : NULL, pm);
		snprintf(field, sizeof field, "/%s", strcmp(sf, "fleet_size") == 0 ? "fleet/size" : sf);
	}
	wc_api_error_set(e, 413, "simulation_too_large", field, "%s%s", field + 1, err.msg + n);
	return -1;
}

/* The per-bin values the answer would carry (docs/http-api.md, "Limits"):
 * bins x WC_ENVELOPE_BAND_ARRAYS x bands (the fleet's band too when the
 * fleet has more than one server), counted as the run bins them (the
 * horizon's grid steps in blocks of bin_s, the last one partial). No work
 * bound sees them: the simulation's cost does not depend on bin_s, the
 * answer's size does. Beyond, 413 on /bin_s naming both ways out. */
static int
bins_bound(const wc_envelope_request *r, wc_api_error *e)
{
	if (!r->include_bins)
		return 0;
	double steps = (double)llround(r->o.horizon_s / WC_ENVELOPE_GRID_S);
	double stride = (double)llround(r->o.bin_s / WC_ENVELOPE_GRID_S);
	int bands = r->o.fleet_size > 1 ? 2 : 1;
	double per_bin = (double)WC_ENVELOPE_BAND_ARRAYS * bands;
	double values = wc_envelope_bin_values(&r->o);
	if (values <= WC_HTTP_MAX_BIN_VALUES)
		return 0;
	/* The shortest grid multiple whose bins fit. */
	double min_bin = ceil(steps / floor(WC_HTTP_MAX_BIN_VALUES / per_bin)) * WC_ENVELOPE_GRID_S;
	wc_api_error_set(e, 413, "simulation_too_large", "/bin_s",
	                 "bin_s: the answer would carry %s per-bin values (%.0f bins of %g s x %d arrays x %d "
	                 "band%s), over this server's limit of %s; ask \"include_bins\": false for the summaries "
	                 "alone, or a bin_s of at least %g s",
	                 WC_NUM_TEXT(values), ceil(steps / stride), stride * WC_ENVELOPE_GRID_S, WC_ENVELOPE_BAND_ARRAYS, bands,
	                 bands > 1 ? "s, server and fleet" : "", WC_NUM_TEXT(WC_HTTP_MAX_BIN_VALUES), min_bin);
	return -1;
}

int
wc_envelope_request_bound(const wc_envelope_request *r, const wc_service_times *st, int budget,
                          const wc_power_map *pm, wc_api_error *e)
{
	return work_bound(r, st, budget, pm, e) < 0 || (!budget && bins_bound(r, e) < 0) ? -1 : 0;
}

typedef struct {
	wc_envelope_request rq;
	wc_power_map_law store;
	wc_power_map pm;
	wc_service_store ss;
	wc_service_times st;
	const wc_state *profile;
	wc_envelope_result res;
	wc_budget_plan plan;
	wc_error err;
	wc_api_error e;
} envelope_job;

/* Parse and bind: 0, or -1 with job->e set. */
static int
prepare(wc_request *req, const json_t *body, int budget, envelope_job *j)
{
	if (!(j->profile = wc_profiles_select(req->profiles, body, &j->e)) ||
	    wc_envelope_request_parse(body, j->profile, budget, &j->rq, &j->e) < 0)
		return -1;
	const wc_params *p = wc_predictor_params(j->profile->pred);
	if (wc_power_map_from_law(p, &j->rq.c, &j->rq.resp, &j->store, &j->pm, &j->err) != WC_OK ||
	    wc_service_select_workload(p, &j->rq.c, &j->rq.w, j->rq.service, &j->ss, &j->st, &j->err) != WC_OK) {
		wc_envelope_library_error(&j->err, budget, &j->e);
		return -1;
	}
	wc_service_calibration_notes(p, &j->rq.c, &j->rq.w, &j->ss, &j->pm); /* none for an n(t) */
	return wc_envelope_request_bound(&j->rq, j->rq.w.kind == WC_ENVELOPE_SERIES ? NULL : &j->st, budget, &j->pm,
	                                 &j->e);
}

static void
answer(wc_request *req, wc_response *res, int budget)
{
	json_t *body = NULL, *out = NULL;
	envelope_job *j = calloc(1, sizeof *j);
	if (!j) {
		wc_api_error e;
		wc_api_error_set(&e, 500, "internal", NULL, "out of memory");
		wc_response_error(res, &e);
		return;
	}
	if (wc_request_read_json(req, req->srv->max_body, &body, res) != 0)
		goto done;
	if (prepare(req, body, budget, j) < 0) {
		wc_response_error(res, &j->e);
		goto done;
	}
	wc_envelope_render ctx = { &j->rq.c, &j->rq.w, &j->rq.o, &j->rq.resp, j->rq.resp_source, &j->pm,
		                   &j->st, j->profile->version, j->rq.include_bins,
		                   j->rq.w.kind == WC_ENVELOPE_SERIES ? NULL : &j->ss };
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	/* a workload that draws nothing is simulated once, as the CLI's
	 * (docs/http-api.md, "Bounds") */
	int rc = budget ? wc_envelope_budget_bounded(&j->rq.w, &j->st, &j->pm, &j->rq.o, &j->rq.bo, WC_HTTP_MAX_WORK,
	                                             WC_HTTP_MAX_REQUESTS, "this server's limit", &j->plan, &j->err)
	                : wc_envelope_run_once_if_fixed(&j->rq.w, &j->st, &j->pm, &j->rq.o, &j->res, &j->err);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (rc == WC_OK && !budget)
		j->rq.o.replicas = j->res.replicas; /* as the answer's simulation says it */
	if (rc == WC_OK && budget) {
		wc_envelope_name_warnings(j->plan.warnings, j->plan.n_warnings, budget);
		missing_lengths_notes(body, &j->rq.w, j->plan.warnings, &j->plan.n_warnings);
	} else if (rc == WC_OK) {
		wc_envelope_name_warnings(j->res.warnings, j->res.n_warnings, budget);
		missing_lengths_notes(body, &j->rq.w, j->res.warnings, &j->res.n_warnings);
	}
	if (rc == WC_OK) /* the load its answer gives, judged as predict's (docs/envelopes.md, "Engine") */
		wc_envelope_load_notes(wc_predictor_params(j->profile->pred), &j->rq.c, &j->rq.w,
		                       j->rq.w.kind == WC_ENVELOPE_SERIES ? NULL : &j->ss, &j->pm,
		                       budget ? j->plan.judged_running : j->res.server.mean_running.value);
	if (rc != WC_OK && budget && j->plan.work_refused) { /* its search met a work bound: 413, as before any work */
		char field[sizeof j->e.field];
		snprintf(field, sizeof field, "/%.*s", (int)strcspn(j->err.msg, ":"), j->err.msg);
		wc_api_error_set(&j->e, 413, "simulation_too_large", field, "%s", j->err.msg);
		wc_response_error(res, &j->e);
		goto done;
	}
	if (rc != WC_OK) {
		wc_envelope_library_error(&j->err, budget, &j->e);
		wc_response_error(res, &j->e);
		goto done;
	}
	/* The time the search took is said in a header, not in the plan: a
	 * request repeated gives the same bytes (docs/http-api.md, "Envelopes"). */
	double secs = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
	if (budget) {
		snprintf(res->timing, sizeof res->timing, "Server-Timing: plan;dur=%.3f\r\n", 1e3 * secs);
		res->extra_headers = res->timing;
	}
	out = budget ? wc_budget_json(&ctx, &j->rq.bo, &j->plan) : wc_envelope_json(&ctx, &j->res);
	if (out)
		wc_response_json(res, 200, out);
	else {
		wc_api_error_set(&j->e, 500, "internal", NULL, "out of memory rendering the answer");
		wc_response_error(res, &j->e);
	}
done:
	wc_envelope_result_clear(&j->res);
	wc_envelope_request_free(&j->rq);
	json_decref(body);
	free(j);
}

void
wc_route_forecast_envelope(wc_request *req, wc_response *res)
{
	answer(req, res, 0);
}

void
wc_route_plan_budget(wc_request *req, wc_response *res)
{
	answer(req, res, 1);
}
