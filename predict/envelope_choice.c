/*
 * Which service times an envelope uses (docs/envelopes.md, "Service
 * times"): the capacity model when the parameter set can give it for the
 * configuration, else the stand-in with the reason said; either can be
 * forced, and forcing the capacity model where it cannot answer is refused
 * with the reason.
 */
#include "envelope_internal.h"
#include "predict/capacity_predict.h"
#include "predict_internal.h"
#include "models/grow.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const choice_names[] = { "auto", "capacity", "standin" };

const char *
wc_service_choice_name(wc_service_choice c)
{
	return c >= WC_SERVICE_AUTO && c <= WC_SERVICE_STANDIN ? choice_names[c] : "?";
}

int
wc_service_choice_from_name(const char *name, wc_service_choice *out)
{
	for (int i = 0; name && i <= WC_SERVICE_STANDIN; i++)
		if (strcmp(name, choice_names[i]) == 0) {
			*out = (wc_service_choice)i;
			return WC_OK;
		}
	return WC_EINVAL;
}

/* Why the capacity model cannot give this configuration's service times,
 * from its refusal ("platform: the capacity model has no level 'X'"). */
static void
reason_of(const wc_params *p, const wc_config *c, const char *msg, char *buf, size_t cap)
{
	if (!p->capacity.present)
		snprintf(buf, cap, "the parameter set has no capacity section");
	else if (strncmp(msg, "platform:", 9) == 0)
		snprintf(buf, cap, "its capacity section has no level '%.40s'", c->platform ? c->platform : "");
	else if (!c->arch)
		/* envelopes take no architecture facts (docs/envelopes.md): an
		 * "Other" model's cannot be given, so the way out is named */
		snprintf(buf, cap, "the model's architecture is unknown (envelopes take none: give a catalog model)");
	else
		snprintf(buf, cap, "%.150s", msg);
}

int
wc_service_select(const wc_params *p, const wc_config *c, wc_service_choice choice,
                  wc_service_store *store, wc_service_times *out, wc_error *err)
{
	wc_error why;
	char reason[160];
	memset(store, 0, sizeof *store);
	/* What cannot load cannot be served, whichever service times: the
	 * same refusal as `predict` (docs/capacity.md, "Memory as vLLM does
	 * it"); more requests than the cache holds are the engine's to queue. */
	int mrc = wc_predict_memory_check_fixed(p, c, err);
	if (mrc != WC_OK)
		return mrc;
	if (choice != WC_SERVICE_STANDIN) {
		int rc = wc_capacity_service(p, c, &store->capacity, out, &why);
		if (rc == WC_OK) {
			store->is_capacity = 1;
			snprintf(store->fallback, sizeof store->fallback, "%s", store->capacity.transfer_note);
			return WC_OK;
		}
		if (rc == WC_ENOMEM || strncmp(why.msg, "tp:", 3) == 0)
			return wc_error_set(err, rc, "%s", why.msg);
		reason_of(p, c, why.msg, reason, sizeof reason);
		if (choice == WC_SERVICE_CAPACITY)
			return wc_error_set(err, WC_EINVAL, "service: the capacity model cannot give the service "
			                    "times: %s", reason);
		snprintf(store->fallback, sizeof store->fallback,
		         "service times: the roofline stand-in (assumed efficiencies), not the capacity model: %s",
		         reason);
	}
	int rc = wc_roofline_standin_init(&store->standin, c, err);
	if (rc != WC_OK)
		return rc;
	store->standin.reserve = wc_predict_memory_reserve(p, c);
	wc_roofline_standin_service(&store->standin, out);
	return WC_OK;
}

int
wc_service_select_workload(const wc_params *p, const wc_config *c, const wc_envelope_workload *w,
                           wc_service_choice choice, wc_service_store *store, wc_service_times *out,
                           wc_error *err)
{
	if (w->kind != WC_ENVELOPE_SERIES)
		return wc_service_select(p, c, choice, store, out, err);
	/* no service times, but nothing that cannot load serves an n(t):
	 * predict's refusal, the one rule (docs/envelopes.md, "Which one");
	 * nor a clock the board cannot run at, which the service times check
	 * for every other workload (the capacity model and the stand-in) */
	memset(store, 0, sizeof *store);
	int rc = wc_predict_clock_check(p, c, err);
	if (rc == WC_OK)
		rc = wc_predict_memory_check_fixed(p, c, err);
	if (rc == WC_OK)
		snprintf(out->source, sizeof out->source, "none");
	return rc;
}

void
wc_service_calibration_notes(const wc_params *p, const wc_config *c, const wc_envelope_workload *w,
                             wc_service_store *store, wc_power_map *pm)
{
	store->n_warnings = 0;
	wc_capacity_binding b;
	if (!store->is_capacity || w->kind == WC_ENVELOPE_SERIES || wc_capacity_bind_any(&p->capacity, c->platform, &b, NULL) != WC_OK)
		return;
	wc_capacity_prediction *tmp = calloc(1, sizeof *tmp);
	if (!tmp)
		return;
	wc_config at = *c;
	at.input_tokens = wc_envelope_mean_length(w, 1);
	at.output_tokens = wc_envelope_mean_length(w, 0);
	/* the load is NaN: no span judges it (a trace's load moves) */
	wc__capacity_span_warnings(&b, &at, "concurrency", NAN, tmp);
	if (pm) { /* a tp or size outside both calibrations: the map's one line names both */
		double span[WC_SPANS_BOTH][2];
		int joined[WC_SPANS_BOTH] = { 0 };
		wc__capacity_both_spans(tmp, span);
		wc__power_map_join_spans(pm, (const double(*)[2])span, joined);
		wc__capacity_drop_joined(tmp, joined);
	}
	for (int i = 0; i < tmp->n_warnings; i++)
		WC_WARN(store, "%s", tmp->warnings[i]);
	free(tmp);
}

void
wc_envelope_load_notes(const wc_params *p, const wc_config *c, const wc_envelope_workload *w,
                       const wc_service_store *store, wc_power_map *pm, double mean_running)
{
	const int room = (int)(sizeof pm->span_notes / sizeof pm->span_notes[0]);
	wc_params *tmp = NULL;
	wc_config at = *c;
	wc_error why;
	/* the level the map was bound on, a datasheet transfer's as before */
	if (!(mean_running > 0.0) || wc_predict_resolve_platform(p, &at, &tmp, &why) != WC_OK)
		return;
	const wc_params *q = tmp ? tmp : p;
	const wc_level *lv = wc_params_level(q, at.platform);
	/* The load as predict judges the same workload (docs/envelopes.md,
	 * "Engine"): an n(t) at its own values, each held its time, as
	 * predict's running_series (idle samples are no load); a drawn
	 * workload at its mean, as predict's rate or concurrency, below one
	 * too: the law is evaluated there, below a span that starts at one. */
	const int series = w->kind == WC_ENVELOPE_SERIES && w->series_len > 0;
	const double judged = mean_running;
	wc_load_histogram h = { 0 };
	double *holds = series ? wc_alloc_array(w->series_len, sizeof *holds) : NULL;
	for (size_t i = 0; holds && i < w->series_len; i++)
		holds[i] = wc_envelope_series_hold(w, i);
	const int built = holds && wc_load_histogram_build(w->series_running, holds, 0.0, w->series_len, &h, NULL) ==
	                                   WC_OK;
	free(holds);
	if (series && !built) { /* out of memory: no line rather than a wrong one */
		wc_load_histogram_free(&h);
		free(tmp);
		return;
	}
	double span[WC_SPANS_BOTH][2] = { { 0.0, 0.0 } };
	wc_capacity_prediction *cap = NULL;
	wc_capacity_binding b;
	/* the capacity calibration's span of the load, where its service
	 * times ran the envelope (at the workload's mean lengths) */
	if (store && store->is_capacity && w->kind != WC_ENVELOPE_SERIES &&
	    wc_capacity_bind_any(&p->capacity, c->platform, &b, NULL) == WC_OK && (cap = calloc(1, sizeof *cap))) {
		wc_config lengths = at;
		lengths.input_tokens = wc_envelope_mean_length(w, 1);
		lengths.output_tokens = wc_envelope_mean_length(w, 0);
		wc__capacity_span_warnings(&b, &lengths, "mean_running", judged, cap);
		wc__capacity_both_spans(cap, span);
	}
	/* predict's rule at one load, the mean (docs/envelopes.md, "Engine"):
	 * beyond the runs, a level at a bound or saturating (part 0), then the
	 * load's line, naming both spans when it leaves both */
	double one = judged, weight = 1.0;
	const wc_load_histogram mean = { &one, &weight, 1, judged };
	const char *field = series ? "running_series" : "mean_running", *head = series ? "running_series:" : "mean_running:";
	char notes[2][3][WC_WARNING_LEN];
	int n[2] = { 0, 0 }, joined[WC_SPANS_BOTH] = { 0 };
	for (int part = 0; lv && part < 2; part++)
		n[part] = wc__predict_span_notes(q, lv, &at, field, series ? &h : &mean, (const double(*)[2])span, joined,
		                                 part, notes[part]);
	wc_load_histogram_free(&h);
	const char *lines[4];
	int k = 0;
	for (int i = 0; i < n[0]; i++)
		lines[k++] = notes[0][i];
	for (int i = 0; i < n[1]; i++)
		if (strncmp(notes[1][i], head, strlen(head)) == 0)
			lines[k++] = notes[1][i];
	if (k == n[0] && cap && cap->both_line[WC_SPAN_LOAD] > 0) /* outside the capacity span alone */
		lines[k++] = cap->warnings[cap->both_line[WC_SPAN_LOAD] - 1];
	for (int i = 0; i < k && pm->n_span_notes < room; i++) {
		int said = 0; /* a caveat the map's notes give already (a tp beyond the runs) */
		for (int j = 0; j < pm->n_span_notes; j++)
			said |= strcmp(pm->span_notes[j], lines[i]) == 0;
		if (!said)
			snprintf(pm->span_notes[pm->n_span_notes++], sizeof pm->span_notes[0], "%s", lines[i]);
	}
	free(cap);
	free(tmp);
}

int
wc_envelope_setup_warnings(const wc_power_map *pm, const wc_service_store *ss, const wc_envelope_workload *w,
                           const char **out, int max)
{
	int n = 0;
	const char *one[] = { pm->level_note,    pm->module_note,    pm->precision_note,
		              pm->clock_note,    pm->clock_low_note, pm->engine_note, pm->model_note };
	for (size_t i = 0; i < sizeof one / sizeof one[0] && n < max; i++)
		if (one[i][0])
			out[n++] = one[i];
	for (int i = 0; i < pm->n_span_notes && n < max; i++)
		out[n++] = pm->span_notes[i];
	/* a null interval says why, as the power answer's does */
	if (!pm->has_pe && n < max)
		out[n++] = WC_ENVELOPE_NO_INTERVAL_NOTE;
	/* an n(t) has no service times: their caveats do not apply */
	if (!ss || w->kind == WC_ENVELOPE_SERIES)
		return n;
	if (ss->fallback[0] && n < max)
		out[n++] = ss->fallback;
	for (int i = 0; i < ss->n_warnings && n < max; i++)
		out[n++] = ss->warnings[i];
	return n;
}
