/*
 * Inference predictions from a frozen law: the point value from the
 * parameter set, a 95 % interval from the bootstrap draws (each draw is a
 * full parameter vector; percentiles of the predicted node power), and
 * extrapolation warnings (docs/inference-law.md, "Unseen configurations").
 */
#include "predict/predict.h"
#include "predict_internal.h"
#include "models/grow.h"
#include "predict/capacity_predict.h"
#include "models/warnings.h"
#include "models/catalog.h"
#include "models/limits.h"

#include <gsl/gsl_sort.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct wc_predictor {
	wc_params params;
};

int
wc_predictor_new(const wc_params *p, wc_predictor **out, wc_error *err)
{
	int rc;
	*out = NULL;
	if ((rc = wc_params_validate(p, err)) != WC_OK)
		return rc;
	wc_predictor *pr = calloc(1, sizeof *pr);
	if (!pr)
		return wc_error_set(err, WC_ENOMEM, "predictor: out of memory");
	if ((rc = wc_params_copy(&pr->params, p, err)) != WC_OK) {
		free(pr);
		return rc;
	}
	*out = pr;
	return WC_OK;
}

void
wc_predictor_free(wc_predictor *pr)
{
	if (!pr)
		return;
	wc_params_clear(&pr->params);
	free(pr);
}

const wc_params *
wc_predictor_params(const wc_predictor *pr)
{
	return &pr->params;
}

/* An open loop below capacity: its running count is a queue's, as the
 * capacity answer averages it (wc_predict_take_running). */
static int
open_loop_count(const wc_inference_query *q)
{
	return !q->series_len && q->open_loop_max > 0.0 && q->config.request_rate > 0.0;
}

/* A series' samples above what the KV cache holds each run n_fit
 * (wc_predict_running_held): the histogram of what runs, its mean
 * recomputed by the one builder. */
static int
histogram_hold(wc_load_histogram *h, double n_fit, wc_error *err)
{
	if (!(h->len > 0 && h->running[h->len - 1] > wc_predict_running_held(h->running[h->len - 1], n_fit)))
		return WC_OK;
	wc_load_histogram held;
	for (size_t i = 0; i < h->len; i++)
		h->running[i] = wc_predict_running_held(h->running[i], n_fit);
	int rc = wc_load_histogram_build(h->running, h->weight, 0.0, h->len, &held, NULL);
	wc_load_histogram_free(h);
	*h = held;
	return rc == WC_OK ? WC_OK : wc_error_set(err, rc, "running_series: out of memory");
}

int
wc__predict_load_histogram(const wc_inference_query *q, double n_fit, wc_load_histogram *h, wc_error *err)
{
	size_t bad = 0;
	int rc;
	if (q->series_len == 0) {
		if (!isfinite(q->config.running) || q->config.running < 0.0)
			return wc_error_set(err, WC_EINVAL, "running: must be a finite number >= 0");
		rc = open_loop_count(q) ? wc_load_histogram_open_loop(q->config.running, q->open_loop_max, h)
		             : wc_load_histogram_build(&q->config.running, NULL, 1.0, 1, h, &bad);
	} else {
		if (q->series_len > WC_SERIES_MAX)
			return wc_error_set(err, WC_EINVAL, "running_series: longer than %d samples",
			                    WC_SERIES_MAX);
		if (!q->series_hold && (!isfinite(q->dt_s) || q->dt_s <= 0.0))
			return wc_error_set(err, WC_EINVAL, "dt_s: must be a finite number > 0");
		rc = wc_load_histogram_build(q->running_series, q->series_hold, q->dt_s, q->series_len, h,
		                             &bad);
	}
	if (rc == WC_EINVAL)
		return wc_error_set(err, rc, "running_series/%zu: must be a finite number >= 0", bad);
	if (rc != WC_OK)
		return wc_error_set(err, rc, "running_series: out of memory");
	return q->series_len ? histogram_hold(h, n_fit, err) : WC_OK;
}

/* `clock_field`: what set the clock in `c` (a lock, a cap, the board's
 * limit), which the clock's caveat names; `least`: the share of time no
 * clock meets it (1 a single load, a series' unmet steps' share);
 * `settled`: a series' share settled under it step by step; `clock_said`:
 * the board's limit's own warning says the clock (wc__predict_clock_note). */
static void
range_warnings(const wc_params *p, const wc_level *lvl, const wc_model_term *term, const wc_config *c, const char *field,
               const wc_load_histogram *h, const double (*cap_span)[2], const char *clock_field, double least,
               double settled, int clock_said, wc_inference_prediction *out)
{
	char notes[3][WC_WARNING_LEN];
	for (int i = 0, n = wc__predict_span_notes(p, lvl, c, field, h, NULL, NULL, 0, notes); i < n; i++)
		WC_WARN(out, "%s", notes[i]);
	if ((p->law_terms & (WC_LT_BIT(WC_LT_MOE) | WC_LT_BIT(WC_LT_HYBRID))) &&
	    !(c->arch && c->arch->architecture != WC_ARCH_UNKNOWN))
		WC_WARN(out, "model: architecture unknown (not a catalog model); the law's architecture terms "
		        "count it as dense (docs/inference-law.md)");
	if ((p->law_terms & WC_LT_BIT(WC_LT_PROMPT)) && wc_law_term_covariate(WC_LT_PROMPT, c, &p->capacity) == 0.0)
		WC_WARN(out, "input_tokens: the prompt share is unknown or one half; the law's prompt-share term "
		        "adds nothing (docs/inference-law.md)");
	/* The input length taken from the capacity section's workload (the
	 * query gave none) when the fit left it at a bound of its domain:
	 * the rows never identified it (docs/capacity.md, "What the rows
	 * cannot identify"). */
	char bound[WC_WARNING_LEN / 2];
	if (!(c->input_tokens > 0.0) && c->set && p->capacity.present &&
	    ((p->law_terms & WC_LT_BIT(WC_LT_PROMPT)) || wc_form_has_prefill(p->form)) &&
	    wc_capacity_bound_names(&p->capacity, NULL, c->set, bound, sizeof bound) > 0)
		WC_WARN(out, "input_tokens: not given; workload '%s' gives %s, a bound of the capacity fit's domain "
		        "its rows did not identify (docs/capacity.md)", c->set, bound);
	/* A level transferred from the datasheet has its own note already. */
	wc_range ur;
	char on[WC_WARNING_LEN / 2];
	const wc_range *r = wc__predict_power_span(p, lvl, &ur, on, sizeof on);
	if (p->runs > 0 && r->runs == 0 && lvl->theta.source != WC_SRC_DATASHEET)
		WC_WARN(out, "platform: level '%s' had no runs in the calibration; its parameters are %s",
		        lvl->name, wc_source_name(lvl->theta.source));
	for (int i = 0, n = wc__predict_span_notes(p, lvl, c, field, h, cap_span, out->joined, 1, notes); i < n; i++)
		WC_WARN(out, "%s", notes[i]);
	/* and the span of the runs its model term was calibrated on */
	for (int i = 0, n = wc__predict_term_span_notes(p, lvl, term, c, field, h, notes); i < n; i++)
		WC_WARN(out, "%s", notes[i]);
	/* The clock's caveat wherever the answer runs off the free clock, by
	 * whatever set it (docs/inference-law.md, "Unseen configurations"). */
	char clock[WC_WARNING_LEN];
	if (wc__predict_clock_note(p, lvl, clock_field, c->sm_clock_mhz, h->mean, least, settled, clock_said, clock,
	                           sizeof clock))
		WC_WARN(out, "%s", clock);
	char pnotes[2][WC_WARNING_LEN];
	for (int i = 0, n = wc__predict_precision_notes(p, lvl, c, pnotes); i < n; i++)
		WC_WARN(out, "%s", pnotes[i]);
}

const wc_pe_stratum *
wc_predict_pe_stratum(const wc_params *p, const wc_level *lvl)
{
	return lvl ? wc_pe_find(&p->pred_error, lvl->name, wc_source_name(lvl->theta.source)) : NULL;
}

/* The per-GPU limit a series' steps settle under: the tighter of the
 * user's cap and the board's limit (NaN none). */
static double
series_limit_w(const wc_inference_query *q, const wc_level *lvl)
{
	double board = wc_level_power_limit_w(lvl), cap = q->power_cap_w > 0.0 ? q->power_cap_w : NAN;
	return isfinite(board) && isfinite(cap) ? fmin(board, cap) : isfinite(cap) ? cap : board;
}

/* The law bound at the platform's lowest clock, for
 * wc__predict_series_limited, with an open loop's share over its count
 * `open` (NULL: none); 0 when the catalog has no clock range: the
 * law as it is). */
static int
bind_lowest_clock(const wc_params *p, const wc_config *c, const wc_load_histogram *open, wc_law_binding *b)
{
	const wc_platform_info *info = wc_predict_board(p, c->platform);
	if (!info || !(info->min_sm_clock_mhz > 0.0))
		return 0;
	wc_config low = *c;
	low.sm_clock_mhz = info->min_sm_clock_mhz;
	if (wc_law_bind(p, &low, b, NULL) != WC_OK)
		return 0;
	if (open && b->rho > 0.0) /* an open loop's count: its share (wc_law_prefill_share_open) */
		b->rho = wc_law_prefill_share_open(p, &low, open);
	return 1;
}

/* An idle draw that is known -- measured, published, simulated from a
 * published one (a synthetic table's), or the query's own -- is a floor
 * of a mean power's interval: the dynamic part is never negative and the
 * held-out error was measured on loaded runs (docs/intervals.md). An
 * estimated idle (a datasheet board's) is itself uncertain: NaN, no
 * floor. */
double
wc__predict_idle_floor(const wc_law_binding *b, int tp)
{
	wc_source src = b->level->p0.source;
	if (b->col[0] >= 0 ||
	    !(src == WC_SRC_MEASURED || src == WC_SRC_PUBLISHED || src == WC_SRC_SIMULATED || b->p0_measured))
		return NAN;
	return tp * b->base[0];
}

/* Node power for every draw, through the same bound law as the point
 * estimate, gives the parameters' interval (wc__predict_draw_interval);
 * the law's held-out error, when the set records it, widens it into a
 * predictive interval (docs/intervals.md). */
static int
interval(const wc_law_binding *b, const wc_law_binding *low, double limit_w, const wc_inference_query *q,
         const wc_load_histogram *h, wc_inference_prediction *out, wc_error *err)
{
	const wc_params *p = b->p;
	double point = out->power.node_power_w, lo = NAN, hi = NAN;
	/* At n = 0 the answer is G x P0 exactly (docs/inference-law.md): no
	 * dynamic part to miss, and the held-out error was measured on loaded
	 * runs (docs/intervals.md, "Where it applies"): no interval. The
	 * line names the field that set the load (docs/http-api.md). */
	const int tp = q->config.tp;
	if (!wc_interval_applies(out->mean_running)) {
		WC_WARN(out, "interval_95: none: at %s 0%s the answer is the idle draw, G x P0; "
		             WC_INTERVAL_LOADED_ONLY " (docs/intervals.md)", wc__predict_load_field(q),
		        q->series_len ? " throughout" : "");
		char idle[WC_WARNING_LEN];
		if (wc__predict_idle_estimated_note(b, idle, sizeof idle))
			WC_WARN(out, "%s", idle);
		return WC_OK;
	}
	if (p->n_draws > 0) {
		int rc = wc__predict_draw_interval(b, low, limit_w, tp, h, point, &lo, &hi, &out->n_draws, err);
		if (rc != WC_OK)
			return rc;
		wc_predict_note_few_draws(out->warnings, &out->n_warnings, out->n_draws);
	}
	out->pe_stratum = wc_predict_pe_stratum(p, b->level);
	/* a calibrated term or level adds its draws to the held-out error
	 * (docs/intervals.md, "Calibrated sets") */
	if (!wc__predict_widen_power(b, &p->pred_error, out->pe_stratum, point, &lo, &hi)) {
		out->pe_stratum = NULL;
		WC_WARN(out, "interval_95: none: the parameter set has neither bootstrap draws that vary here "
		             "nor a prediction_error section (docs/intervals.md)");
		return WC_OK;
	}
	wc__predict_pe_notes(b->level, out->pe_stratum, out->warnings, &out->n_warnings);
	/* The upper end is held by the tighter of the board's limit and a
	 * cap the user set: the driver enforces both the same way
	 * (docs/intervals.md, "Physical ceiling"). */
	wc_interval_hold_ceiling(point, out->node_ceiling_w, &hi);
	wc_interval_hold_floor(point, out->node_floor_w, &lo);
	out->has_interval = 1;
	out->node_lo_w = lo;
	out->node_hi_w = hi;
	return WC_OK;
}

/* The platform's level: the set's own, the set's level under the
 * catalog's canonical name ("H100-SXM5-80GB" is "H100"), or one
 * transferred from the datasheet into `*tmp` (wc_params_datasheet_copy;
 * free() it). Unknown everywhere: the caller's refusal. */
int
wc_predict_resolve_platform(const wc_params *p, wc_config *c, wc_params **tmp, wc_error *err)
{
	const wc_platform_info *hw;
	const wc_level *l = NULL;
	*tmp = NULL;
	if (c->platform && (l = wc_params_level(p, c->platform)))
		c->platform = l->name; /* as the set spells it */
	if (!c->platform || l || !(hw = wc_platform_lookup(c->platform)))
		return WC_OK;
	if ((l = wc_params_level(p, hw->name))) {
		c->platform = l->name;
		return WC_OK;
	}
	int rc = wc_params_datasheet_copy(p, hw->name, tmp, err);
	if (rc == WC_OK)
		c->platform = hw->name;
	return rc == WC_ENOTFOUND ? WC_OK : rc;
}

const void *
wc__predict_rebase(const wc_params *p, const wc_params *tmp, const void *ptr)
{
	const char *c = ptr, *t = (const char *)tmp;
	if (!tmp || !c || c < t || c >= t + sizeof *tmp)
		return ptr;
	return (const char *)p + (c - t);
}

/* How the level was obtained, for the answer (predict.h). */
const char *
wc_predict_level_source(const wc_params *p, const wc_level *lvl)
{
	const wc_level *sl = wc_params_scale_level(p, lvl);
	if (lvl->theta.source == WC_SRC_DATASHEET)
		return wc_source_name(WC_SRC_DATASHEET);
	if (lvl->theta.source == WC_SRC_BOUND || (sl && sl->s.source == WC_SRC_BOUND))
		return wc_source_name(WC_SRC_BOUND);
	return wc_source_name(lvl->theta.source);
}

int
wc_predict_inference(const wc_predictor *pr, const wc_inference_query *q,
                     wc_inference_prediction *out, wc_error *err)
{
	const wc_params *p = &pr->params;
	wc_params *tmp = NULL;
	wc_load_histogram h = { NULL, NULL, 0, 0.0 };
	wc_law_binding b;
	wc_law_point lp;
	int rc;
	wc_config c = q->config;
	memset(out, 0, sizeof *out);
	out->node_lo_w = out->node_hi_w = out->prefill_share = NAN;
	snprintf(out->profile, sizeof out->profile, "%s", p->name);
	if (!q->no_datasheet && (rc = wc_predict_resolve_platform(p, &c, &tmp, err)) != WC_OK)
		return rc;
	if (tmp)
		p = tmp;
	/* A closed loop's concurrency and each sample of a series run at most
	 * what the KV cache holds, with token lengths or, without them, one
	 * block a request (docs/capacity.md, "Memory as vLLM does it"; a
	 * count taken from the capacity answer comes held already); a
	 * measured run's series (skip_memory_check) ran as it was. */
	double n_fit = NAN, asked = NAN, waited = 0.0, total = 0.0;
	if ((rc = wc__predict_load_histogram(q, NAN, &h, err)) != WC_OK ||
	    (!q->skip_memory_check && (rc = wc__predict_memory_held(p, &c, &n_fit, err)) != WC_OK))
		goto done;
	if (!open_loop_count(q) && h.running[h.len - 1] > wc_predict_running_held(h.running[h.len - 1], n_fit)) {
		asked = h.running[h.len - 1];
		for (size_t i = 0; i < h.len; i++) {
			total += h.weight[i];
			waited += h.running[i] > n_fit ? h.weight[i] : 0.0;
		}
		if ((rc = histogram_hold(&h, n_fit, err)) != WC_OK)
			goto done;
	}
	/* A series' law is bound at its mean running count (the prefill share
	 * of the prefill-aware form depends on it), a held concurrency at what
	 * runs. */
	if (q->series_len || isfinite(asked))
		c.running = h.mean;
	if ((rc = wc_law_bind(p, &c, &b, err)) != WC_OK)
		goto done;
	/* an open loop prefills in its busy time at its rate, not as a closed
	 * loop of m does (docs/capacity.md, "Closed loop, open loop, energy") */
	if (open_loop_count(q) && b.rho > 0.0)
		b.rho = wc_law_prefill_share_open(p, &c, &h);
	wc_law_bound_point(&b, NULL, &lp);
	if ((rc = wc_law_point_power(&lp, q->config.tp, &h, &out->power, err)) != WC_OK)
		goto done;
	double limit_w = q->series_len ? series_limit_w(q, b.level) : NAN, limited = 0.0, unmet_share = 0.0;
	double unmet_w = NAN; /* the mean draw of a series' steps no clock meets */
	wc_law_binding low;
	int have_low = isfinite(limit_w) && bind_lowest_clock(p, &c, NULL, &low);
	wc_config clocked = q->config; /* the clock the answer runs at, for its caveat */
	wc_law_point lpl;
	wc__series_steps st = { NAN, NAN, 0.0, { NAN, NAN } };
	if (have_low) {
		wc_law_bound_point(&low, NULL, &lpl);
		limited = wc__predict_series_limited(&lp, &lpl, q->config.tp, &h, limit_w, &out->power, &unmet_share,
		                                     &unmet_w);
		out->series_cap_share = wc__predict_limit_is_cap(q, limit_w) ? limited : 0.0;
		/* A step held at the limit draws the limit, whatever kappa; the
		 * top one still over it at the lowest clock answers there. */
		double top = h.running[h.len - 1], one_w = 1.0;
		wc_load_histogram at_top = { &top, &one_w, 1, top };
		wc_power pl;
		if (limited > 0.0 && wc_law_point_power(&lpl, q->config.tp, &at_top, &pl, NULL) == WC_OK &&
		    pl.per_gpu_power_w > limit_w * (1.0 + 1e-9))
			clocked.sm_clock_mhz = wc_predict_board(p, c.platform)->min_sm_clock_mhz;
	}
	/* An open loop keeps its mean count's clock (docs/capacity.md); where
	 * its counts draw past the board's limit, say how often and by how much. */
	double over_share = 0.0;
	wc_power held = out->power;
	if (open_loop_count(q) && !(q->board_limit_w > 0) && !(q->power_cap_w > 0) &&
	    isfinite(wc_level_power_limit_w(b.level)) && bind_lowest_clock(p, &c, &h, &low)) {
		wc_law_bound_point(&low, NULL, &lpl);
		over_share = wc__predict_series_limited(&lp, &lpl, q->config.tp, &h, wc_level_power_limit_w(b.level),
		                                        &held, NULL, NULL);
	}
	/* a queue's count is in service only; a held concurrency's is what runs */
	out->mean_running = q->series_len || isfinite(asked) ? h.mean : q->config.running;
	/* the clock(s) a series' steps run at, for its config and what depends
	 * on them (not a clock search's own evaluation) */
	if (q->series_len && !q->clock_probe &&
	    (rc = wc__predict_series_steps(pr, q, p, &c, &lp, have_low ? &lpl : NULL, &h, limit_w, limited, unmet_share,
	                                   &st, out, err)) != WC_OK)
		goto done;
	/* every loaded step settled at one clock: a single load's caveats there */
	const int one_clock = limited >= WC__SHARE_ALL && !(unmet_share > 0.0) && st.one_mhz > 0.0;
	if (one_clock)
		clocked.sm_clock_mhz = st.one_mhz;
	if (isfinite(asked)) { /* the load held to the KV cache, said once */
		char note[WC_WARNING_LEN];
		wc__predict_kv_wait_note(p, &c, wc__predict_load_field(q), asked, n_fit,
		                         q->series_len ? (total > 0.0 ? waited / total : 0.0) : -1.0, 0, note, sizeof note);
		WC_WARN(out, "%s", note);
	}
	out->open_loop = open_loop_count(q);
	out->serving_per_gpu_w = wc__predict_serving_w(q, &lp, out->mean_running, out->power.per_gpu_power_w);
	out->prefill_share = !wc_form_has_prefill(p->form) ? NAN : b.rho > 0.0 && isfinite(st.rho) ? st.rho : b.rho;
	if (wc_form_has_prefill(p->form) && !(b.rho > 0.0))
		WC_WARN(out, "input_tokens: the prefill-aware set has no prefill share for this request (it needs "
		             "input_tokens and output_tokens, a catalog model and a capacity level for the platform); "
		             "predicted as the published form");
	/* A law without a prefill term gives long prompts the power of
	 * decode at the same running count: say so where prefill takes a
	 * large share of the engine's time (docs/inference-law.md,
	 * "Prefill-aware form"). */
	if (!wc_form_has_prefill(p->form) && !(p->law_terms & WC_LT_BIT(WC_LT_PROMPT)) && c.input_tokens > 0.0) {
		/* an open loop's share is its own, lambda t_pre / P(N >= 1), the
		 * one a prefill-aware set would mix in (docs/capacity.md, "Closed
		 * loop, open loop, energy") */
		const double rho = isfinite(st.rho)      ? st.rho
		                   : open_loop_count(q) ? wc_law_prefill_share_open(p, &c, &h)
		                                        : wc_law_prefill_share(p, &c);
		char note[WC_WARNING_LEN];
		if (wc__predict_prefill_note(p, b.level, c.input_tokens, rho, out->mean_running,
		                             q->prefill_profile, note, sizeof note))
			WC_WARN(out, "%s", note);
	}
	out->level_source = wc_predict_level_source(p, b.level);
	if (tmp) {
		char note[WC_WARNING_LEN];
		wc__predict_datasheet_note(tmp, b.level, note, sizeof note);
		WC_WARN(out, "%s", note);
		if (wc__predict_module_note(b.level, note, sizeof note))
			WC_WARN(out, "%s", note);
	}
	char renamed[WC_WARNING_LEN];
	/* docs/capacity.md, "Model names" */
	wc_model_name_note(q->config.model, (int)q->config.weights, (int)q->config.kv, renamed, sizeof renamed);
	if (renamed[0])
		WC_WARN(out, "%s", renamed);
	if (wc_predict_engine_note(&q->config, renamed, sizeof renamed)) /* docs/capacity.md, "Serving stacks" */
		WC_WARN(out, "%s", renamed);
	/* A catalog window the architecture given turned off changes the
	 * memory and the step times: said (docs/capacity.md, "Bytes and FLOPs"). */
	const int dropped = q->config.arch ? wc_model_window_dropped(q->config.arch) : 0;
	if (dropped)
		WC_WARN(out, "sliding_window: %.64s's %d-token window no longer applies: every layer is charged the whole "
		        "context (KV cache, decode reads, prefill attention), as vLLM holds it with its hybrid KV cache "
		        "manager disabled (docs/capacity.md)", q->config.arch->name, dropped);
	/* A name of the user's own finds the set's model term by its spelling:
	 * a typo, or a set calibrated elsewhere, answers by the size alone. */
	if (q->config.model && !wc_model_lookup(q->config.model) && !b.model_term) {
		char note[WC_WARNING_LEN];
		wc__predict_custom_model_note(&b, &q->config, note, sizeof note);
		WC_WARN(out, "%s", note);
	}
	/* An open loop's spread is no load asked: its span is its mean's
	 * (a held concurrency's, what runs). */
	double m_at = out->mean_running, one = 1.0;
	wc_load_histogram at_mean = { &m_at, &one, 1, m_at };
	/* The board's limit, when it settled the clock, set it (a cap above
	 * the limit did not bind); else a cap, else a lock. A series settles
	 * step by step (wc__predict_series_limited): a lock sets the clock of
	 * the steps the limit leaves at it, so it names the caveat unless the
	 * limit lowers every loaded step; the limit or cap that settles them
	 * names it then, as the one clock settled for a single load does. */
	const double settled = have_low && !one_clock ? limited - unmet_share : 0.0;
	const int lock_holds = q->config.sm_clock_mhz > 0.0 && !(limited >= WC__SHARE_ALL);
	/* a series settled step by step under the cap, not the board's limit */
	const int series_cap = have_low && wc__predict_limit_is_cap(q, limit_w);
	const char *clock_field = q->series_len ? (series_cap ? "power_cap_w"
	                                           : lock_holds || !(q->config.sm_clock_mhz > 0.0 || limited > 0.0)
	                                                   ? "sm_clock_mhz" : "platform")
	                          : q->board_limit_w > 0 ? "platform"
	                          : q->power_cap_w > 0 ? "power_cap_w" : "sm_clock_mhz";
	/* the capacity answer's spans its load, tp and size left (one line
	 * each, docs/capacity.md "Warnings"); a series' loads are not its one */
	double cap_span[WC_SPANS_BOTH][2];
	memcpy(cap_span, q->cap_span, sizeof cap_span);
	if (q->series_len)
		cap_span[WC_SPAN_LOAD][1] = 0.0;
	/* No clock meets the limit or cap that set the clock: the clock of
	 * least power, which the caveat says as the warnings below do; a
	 * series settled step by step runs there only for the share of its
	 * steps no clock meets, not by its mean. */
	const double set_w = q->board_limit_w > 0 ? q->board_limit_w
	                     : strcmp(clock_field, "power_cap_w") == 0 ? q->power_cap_w : 0.0;
	const int by_lock = strcmp(clock_field, "sm_clock_mhz") == 0, series_lock = q->series_len && by_lock;
	if (series_lock) /* the steps at the lock are what its caveat speaks of */
		clocked.sm_clock_mhz = q->config.sm_clock_mhz;
	const double least = have_low ? (series_lock ? 0.0 : unmet_share)
	                     : set_w > 0 && !wc_power_cap_met(set_w, out->serving_per_gpu_w) ? 1.0 : 0.0;
	range_warnings(p, b.level, b.model_term, &clocked, wc__predict_load_field(q), q->series_len ? &h : &at_mean,
	               (const double(*)[2])cap_span, clock_field, least,
	               by_lock ? 0.0 : settled, !q->series_len && q->board_limit_w > 0, out);
	/* A cap below the lowest clock's power settles at that clock
	 * (docs/capacity.md, "Clocks and power caps"): the answer is then
	 * above the cap, which the user must be told. A series settled step
	 * by step is above it only on the steps no clock meets: their share
	 * and their own mean draw, not the series' (idle and settled steps
	 * in it), are said. */
	if (q->power_cap_w > 0 && (series_cap ? unmet_share > 0.0 && isfinite(unmet_w)
	                                      : !wc_power_cap_met(q->power_cap_w, out->serving_per_gpu_w))) {
		char unmet[WC_WARNING_LEN];
		wc_predict_cap_unmet_note(q->power_cap_w, b.level->name,
		                          series_cap ? wc_predict_board(p, c.platform)->min_sm_clock_mhz
		                                     : clocked.sm_clock_mhz,
		                          series_cap ? unmet_share : 1.0, series_cap ? unmet_w : out->serving_per_gpu_w,
		                          unmet, sizeof unmet);
		WC_WARN(out, "%s", unmet);
	}
	char low_note[WC_WARNING_LEN]; /* an idle answer, G x P0, has no clock or bandwidth in it */
	if (out->mean_running > 0.0 &&
	    (q->series_len && !q->clock_probe
	             ? wc__predict_clock_low_steps_note(p, b.level->name, clock_field, &st, low_note, sizeof low_note)
	             : wc__predict_clock_low_note(p, b.level->name, clock_field, q->config.sm_clock_mhz, low_note,
	                                          sizeof low_note)))
		WC_WARN(out, "%s", low_note);
	/* nvidia-smi -pl refuses a limit above the board's (docs/capacity.md,
	 * "Clocks and power caps"): such a cap is no setting a GPU takes. */
	if (q->power_cap_w > wc_level_power_limit_w(b.level))
		WC_WARN(out, "power_cap_w: %s W per GPU is above %.64s's board power limit of %.0f W: it cannot bind (the "
		        "limit holds first) and nvidia-smi would refuse it", WC_NUM_TEXT(q->power_cap_w), b.level->name,
		        wc_level_power_limit_w(b.level));
	/* The board's limit settled the clock (wc_predict_board_limit): say
	 * why the answer is not the law's at the clock asked. */
	if (q->board_limit_w > 0) { /* worded to fit a warning whole (WC_WARNING_LEN) */
		int met = wc_power_cap_met(q->board_limit_w, out->serving_per_gpu_w);
		WC_WARN(out, "platform: the law gives %.1f W per GPU here, above the board's power limit of %.0f W; %s "
		        "%.0f MHz%s (docs/capacity.md)", q->board_free_w, q->board_limit_w,
		        met ? "a GPU holds its mean power under its limit by lowering its clock, so this answers at the "
		              "clock it settles at,"
		            : "no clock meets it, so this answers at the clock of least power,",
		        q->config.sm_clock_mhz, met ? "" : ", still above the limit");
	}
	/* A level of the user's own board: nothing bounds its power or checks
	 * its memory unless the set says, and the user must know that. */
	if (!wc_predict_board(p, b.level->name)) {
		const wc_capacity_level *cl =
		        p->capacity.present ? wc_capacity_level_find(&p->capacity, b.level->name) : NULL;
		char note[160];
		WC_WARN(out, "platform: %s, so nothing holds the answer under a limit%s (docs/capacity.md)",
		        wc_platform_unknown_note(b.level->name, note, sizeof note),
		        cl && cl->memory_gb > 0 ? "" : " and the model's fit in memory is not checked");
	}
	if (limited > 0.0) {
		char note[WC_WARNING_LEN]; /* limited > 0: the board has a clock range (bind_lowest_clock) */
		double least_mhz = wc_predict_board(p, c.platform)->min_sm_clock_mhz;
		wc__predict_series_limit_note(wc__predict_limit_is_cap(q, limit_w) ? "power_cap_w" : "platform",
		                              limit_w, limited, unmet_share, least_mhz, q->config.sm_clock_mhz, note,
		                              sizeof note);
		WC_WARN(out, "%s", note);
	}
	if (over_share > 0.0 && held.node_power_w < (1.0 - WC_OPEN_LOOP_LIMIT_WARN) * out->power.node_power_w) {
		char pct[32];
		WC_WARN(out, "platform: the law gives more than %.0f W per GPU for %s of this open loop's time (its "
		        "count's spread); held under that limit then, a GPU would average %.1f W, not %.1f W (docs/capacity.md)",
		        wc_level_power_limit_w(b.level), wc_predict_share_format(pct, sizeof pct, over_share),
		        held.node_power_w, out->power.node_power_w);
	}
	/* Power no board draws is no answer, not one to warn about: the law
	 * does not hold here -- a series' at any of its steps, whatever its
	 * idle ones average it to (docs/intervals.md, "Physical ceiling"). */
	if (!q->clock_probe) {
		if ((rc = wc__predict_beyond_boards(&lp, have_low ? &lpl : NULL, limit_w, q->config.tp, &h,
		                                    q->series_len > 0, out->power.node_power_w, b.level, err)) != WC_OK)
			goto done;
	}
	out->node_ceiling_w = wc_level_power_ceiling_w(b.level, q->power_cap_w, out->serving_per_gpu_w,
	                                               q->config.tp);
	out->node_floor_w = wc__predict_idle_floor(&b, q->config.tp);
	/* A series', open loop's or fractional count's idle share draws P0
	 * exactly, the rest at most the ceiling (docs/intervals.md, "Physical
	 * ceiling"), as the capacity answer holds it; a series settled step
	 * by step takes, step by step, the ceiling of what each step draws:
	 * a cap no clock meets there holds nothing there. A gauge's 0 steps
	 * are not known idle (BurstGPT on an A100: steps read 0 averaging
	 * 135-162 W at an idle of 87.6 W): they may draw up to the ceiling. */
	const double idle_w = q->series_len && q->series_gauge ? NAN : out->node_floor_w;
	if (have_low) {
		out->node_ceiling_w = wc__predict_series_ceiling_w(&lp, &lpl, b.level, q->power_cap_w, q->config.tp, &h,
		                                                   limit_w, idle_w);
	} else {
		out->node_ceiling_w = wc_load_histogram_ceiling_w(&h, idle_w, out->node_ceiling_w);
	}
	if (q->want_interval)
		rc = interval(&b, have_low ? &low : NULL, limit_w, q, &h, out, err);
done:
	wc_load_histogram_free(&h);
	out->pe_stratum = wc__predict_rebase(&pr->params, tmp, out->pe_stratum);
	free(tmp);
	return rc;
}
