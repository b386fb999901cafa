/*
 * The notes an inference answer carries about what it covers and what it
 * could not answer (docs/intervals.md, docs/capacity.md).
 */
#include "predict/predict.h"
#include "predict/capacity_predict.h"
#include "predict_internal.h"
#include "models/catalog.h"
#include "models/limits.h"
#include "models/warnings.h"

#include <math.h>

#include <stdio.h>
#include <string.h>

int
wc_predict_capacity_absent(const wc_error *err)
{
	if (err->code == WC_EINVAL && strcmp(err->msg, WC_CAPACITY_SERIES_NONE) == 0)
		return 1;
	return err->code == WC_ENOTFOUND && (strncmp(err->msg, "platform: the capacity model has no level", 41) == 0 ||
	                                    strncmp(err->msg, "capacity: the parameter set has no capacity", 43) == 0);
}

void
wc_predict_note_no_capacity(wc_inference_prediction *out, const char *why, const wc_capacity_prediction *cap)
{
	/* A series: the lengths still enter its power where the law uses
	 * them (docs/inference-law.md, "Averaging over a load series"); its
	 * mean is a concurrency to ask the capacity answers at. */
	if (strcmp(why, WC_CAPACITY_SERIES_NONE) != 0) {
		WC_WARN(out, "capacity: none: %s; the mean power is answered, latency, throughput and energy are not (fit "
		        "capacity on the platform's runs, docs/capacity.md)", why);
		return;
	}
	WC_WARN(out, "capacity: none: %s; its power averages the law over it, token lengths where the law uses them; "
	        "ask latency, throughput, energy at a concurrency (its mean %.4g)", WC_CAPACITY_SERIES_NONE,
	        out->mean_running);
	/* ... and the warnings on its lengths that apply to that power (the
	 * context's, the capacity level's span, expert_parallel's), which
	 * wc_predict_capacity gave with its refusal: the one place they are
	 * carried over. */
	for (int i = 0; cap && i < cap->n_warnings; i++)
		WC_WARN(out, "%s", cap->warnings[i]);
}

/* A stratum's covers: a transferred level's says so in every answer it
 * widens (docs/intervals.md, "Capacity levels from a datasheet"), and an
 * open loop's caveat follows either (wc_interval_covers_loop). */
static const char *
pe_covers(const wc_pe_stratum *s, int draws, const char *what, int open_loop)
{
	const int ds = s && strcmp(s->source, "datasheet") == 0;
	return wc_interval_covers_loop(draws, s != NULL, ds ? "mean power of datasheet transfers" : what, open_loop);
}

const char *
wc_predict_pe_covers(const wc_pe_stratum *s, int draws, const char *what)
{
	return pe_covers(s, draws, what, 0);
}

const char *
wc_predict_power_covers(const wc_inference_prediction *pred)
{
	return pe_covers(pred->pe_stratum, pred->n_draws, pred->open_loop ? "mean power" : NULL, pred->open_loop);
}

int
wc_predict_money_check(double price_per_kwh, double grams_co2_per_kwh, wc_error *err)
{
	char got[32];
	if (!isnan(price_per_kwh) && !(price_per_kwh >= 0 && price_per_kwh <= WC_CAPACITY_MAX_PRICE))
		return wc_error_set(err, WC_EINVAL, "price_per_kwh: must be from 0 to %g per kWh, got %s",
		                    WC_CAPACITY_MAX_PRICE, wc_num_text(got, price_per_kwh));
	if (!isnan(grams_co2_per_kwh) && !(grams_co2_per_kwh >= 0 && grams_co2_per_kwh <= WC_CAPACITY_MAX_CO2))
		return wc_error_set(err, WC_EINVAL, "grams_co2_per_kwh: must be from 0 to %g g/kWh, got %s",
		                    WC_CAPACITY_MAX_CO2, wc_num_text(got, grams_co2_per_kwh));
	return WC_OK;
}

void
wc_predict_note_few_draws(char (*list)[WC_WARNING_LEN], int *n, int n_draws)
{
	if (n_draws > 0 && n_draws < WC_BOOTSTRAP_MIN_95)
		wc_warnings_add(list, n, "interval_95: %d bootstrap draws, fewer than %d: the 2.5 %% tails hold no draw "
		                "of their own, so the parameters' part is the draws' range, too narrow (docs/intervals.md)",
		                n_draws, WC_BOOTSTRAP_MIN_95);
}

void
wc_predict_note_params_only(char (*list)[WC_WARNING_LEN], int *n)
{
	wc_warnings_add(list, n, "interval_95: covers the parameters' uncertainty only: the parameter set has no "
	                "prediction_error section (docs/intervals.md)");
}

int
wc__predict_idle_estimated_note(const wc_law_binding *b, char *buf, size_t cap)
{
	/* The estimate is the board's limit times the built-in levels' mean
	 * idle-to-limit ratio (models/transfer.c): three boards, no held-out
	 * idle to take a 95 % quantile from, so no interval; the answer says
	 * it is an estimate (docs/intervals.md, "Where it applies"). */
	if (b->p0_measured || b->level->p0.source != WC_SRC_ESTIMATED)
		return 0;
	snprintf(buf, cap, "p0: %s's idle power, %.2f W a GPU, is estimated from the board's power limit, not "
	         "measured: the idle draw answered is that estimate, whose miss no held-out run measures "
	         "(docs/intervals.md)", b->level->name, b->level->p0.value);
	return 1;
}

void
wc__predict_pe_notes(const wc_level *lvl, const wc_pe_stratum *s, char (*list)[WC_WARNING_LEN], int *n)
{
	if (!s)
		wc_predict_note_params_only(list, n);
	else if (lvl && lvl->theta.source == WC_SRC_DATASHEET && strcmp(s->source, "datasheet") != 0)
		wc_predict_note_no_transfer(list, n, "power", "mean power");
}

void
wc_predict_note_no_transfer(char (*list)[WC_WARNING_LEN], int *n, const char *levels, const char *what)
{
	wc_warnings_add(list, n, "interval_95: the parameter set has no held-out error of datasheet %s levels; the "
	                "intervals of %s cover held-out models on fitted levels, not this transfer (docs/intervals.md)",
	                levels, what);
}

void
wc_predict_cap_unmet_note(double cap_w, const char *board, double mhz, double share, double per_gpu_w, char *buf,
                          size_t cap)
{
	/* A series' idle and settled steps are not at that clock: the draw
	 * said is the mean of the steps that are, with their share
	 * (docs/capacity.md, "The board's power limit"). */
	char pct[32], draw[40];
	wc_predict_power_text(draw, sizeof draw, per_gpu_w, cap_w); /* never read as the cap */
	if (share < WC__SHARE_ALL)
		snprintf(buf, cap, "power_cap_w: %g W per GPU is not reached for %s of the series' time: no clock of "
		         "%.64s's range meets it there; at the clock of least power (%g MHz) those steps draw %s W per "
		         "GPU on average (docs/capacity.md)", cap_w, wc_predict_share_format(pct, sizeof pct, share), board,
		         mhz, draw);
	else
		snprintf(buf, cap, "power_cap_w: %g W per GPU is not reached: no clock of %.64s's range meets it; at the clock "
		         "of least power (%g MHz) it draws %s W per GPU while serving (docs/capacity.md)", cap_w, board,
		         mhz, draw);
}

void
wc__predict_series_limit_note(const char *field, double limit_w, double limited, double unmet, double mhz,
                              double locked, char *buf, size_t cap)
{
	char pct[32];
	int n = snprintf(buf, cap, "%s: the law gives more than %.0f W per GPU for %s of the series' time; ", field,
	                 limit_w, wc_predict_share_format(pct, sizeof pct, limited));
	/* The limit holds before a lock (docs/capacity.md, "The board's
	 * power limit"): those steps are not at the clock locked. */
	if (n > 0 && (size_t)n < cap && locked > 0.0)
		n += snprintf(buf + n, cap - (size_t)n, "the limit lowers the %.0f MHz locked there; ", locked);
	if (n < 0 || (size_t)n >= cap)
		return;
	/* "settles" only where a clock meets the limit: a step no clock
	 * brings under it runs at the clock of least power, above it. */
	if (!(unmet > 0.0))
		snprintf(buf + n, cap - (size_t)n, "those steps answer at the clock a GPU settles at under that limit "
		         "(docs/capacity.md)");
	else if (unmet >= limited * WC__SHARE_ALL)
		snprintf(buf + n, cap - (size_t)n, "no clock meets it there: those steps answer at the clock of least "
		         "power, %.0f MHz, still above it (docs/capacity.md)", mhz);
	else
		snprintf(buf + n, cap - (size_t)n, "no clock meets it for %s (at the clock of least power, %.0f MHz, "
		         "above it), the rest settle under it (docs/capacity.md)", wc_predict_share_format(pct, sizeof pct, unmet),
		         mhz);
}

int
wc__predict_module_note(const wc_level *lvl, char *buf, size_t cap)
{
	/* S and P0 scale with the limit (docs/fitting.md): a module's limit
	 * counts its CPU's share as the GPU's headroom. */
	const wc_platform_info *mod = wc_platform_board(lvl->name, NULL);
	if (!mod || !mod->module_limit)
		return 0;
	snprintf(buf, cap, "platform: %s's %.0f W is the module's limit (CPU and its memory included), which "
	         "nvidia-smi shows as the GPU's; the transfer scales the GPU's P0 and S from it, so its power is likely "
	         "overstated (docs/fitting.md)", mod->name, mod->max_power_w);
	return 1;
}

void
wc__predict_queue_note(double m, double n_max, double latency_s, char (*list)[WC_WARNING_LEN], int *n)
{
	wc_load_histogram h;
	const double c = fmax(1.0, floor(n_max));
	/* the last count of the distribution in service is c when the window
	 * reaches it: its weight is every count from c on, the arrivals that
	 * find no slot free (PASTA) */
	if (isfinite(c) && wc_load_histogram_open_loop(m, n_max, &h) == WC_OK && h.len > 1 && h.running[h.len - 1] == c &&
	    h.weight[h.len - 1] >= WC__QUEUE_WAIT_WARN)
		wc_warnings_add(list, n, "rate: %.0f %% of arrivals find all %g slots busy and wait, %.3g s on average "
		                "for those (M/M/c), which latency_s and ttft_s leave out (docs/capacity.md)",
		                100.0 * h.weight[h.len - 1], c, latency_s / (c - m));
	wc_load_histogram_free(&h);
}

void
wc_predict_note_ignored(char (*list)[WC_WARNING_LEN], int *n, double price_per_kwh, double grams_co2_per_kwh,
                        int expert_parallel, wc_ignored_why why)
{
	static const char *const whys[] = {
		[WC_IGNORED_NO_LENGTHS] = "it enters only the capacity answers, which need input_tokens and output_tokens",
		[WC_IGNORED_NO_LEVEL] = "it enters only the capacity answers, which this platform has none of (the "
		                        "capacity warning says why)",
		[WC_IGNORED_SWEEP] = "the sweep answers no cost or CO2 (docs/capacity.md, \"Power flexibility\")",
		[WC_IGNORED_SERIES] = "it enters only the capacity answers, which a running_series has none of (the "
		                      "capacity warning says why)",
	};
	const struct {
		const char *field;
		int given;
	} in[] = { { "price_per_kwh", !isnan(price_per_kwh) }, { "grams_co2_per_kwh", !isnan(grams_co2_per_kwh) },
	           /* a series' lengths place the experts for its memory and
	            * prefill share: used by its power, not ignored */
	           { "expert_parallel", expert_parallel != 0 && why != WC_IGNORED_SERIES } };
	for (size_t i = 0; i < sizeof in / sizeof in[0]; i++)
		if (in[i].given)
			wc_warnings_add(list, n, "%s: ignored: %s", in[i].field, whys[why]);
}

int
wc_predict_moe_facts_check(const wc_model_info *m, wc_error *err)
{
	/* a total below the active count is the model check's own refusal
	 * (models/capacity_model.c), which quotes it; each refusal here names
	 * the fact missing, as given (docs/capacity.md, "Bytes and FLOPs") */
	if (m->experts <= 0 && m->experts_per_token > 0)
		return wc_error_set(err, WC_EINVAL, "architecture/experts: required with experts per token (%d): "
		                    "the share of the experts a token reads needs their number", m->experts_per_token);
	if (m->experts <= 0 && m->total_params_b > m->active_params_b)
		return wc_error_set(err, WC_EINVAL, "architecture/experts: required with a total (%g B) above "
		                    "the active %g B: a dense model reads every weight each step, total = active",
		                    m->total_params_b, m->active_params_b);
	if (m->experts > 0 && m->experts_per_token <= 0)
		return wc_error_set(err, WC_EINVAL, "architecture/experts_per_token: required with experts (%d): the "
		                    "experts a token reads", m->experts);
	if (m->experts > 0 && (!(m->total_params_b > 0) || m->total_params_b == m->active_params_b))
		return wc_error_set(err, WC_EINVAL, "architecture/total_params_b: required with experts, above the "
		                    "active %g B: the experts hold the parameters beyond the active ones (without it, "
		                    "none)", m->active_params_b);
	return WC_OK;
}

int
wc_predict_prefill_facts_check(const wc_model_info *m, double input_tokens, wc_error *err)
{
	/* Without the width the attention term was 0: H100, 13 B, 40 layers,
	 * 32000 tokens in, answered 1.022 s to the first token for 1.527 s.
	 * The heads (or d_model standing in for them) give it; without them
	 * it is asked for, not guessed. */
	if (!m || wc_model_attention_width(m) > 0 || !(input_tokens > 0))
		return WC_OK;
	return wc_error_set(err, WC_EINVAL, "architecture/attention_heads: required for a prompt of %s tokens: the "
	                    "prefill's attention costs 2 x layers x heads x head_dim x L_in^2 FLOPs (docs/capacity.md); "
	                    "give config.json's num_attention_heads (or d_model, if heads x head_dim)",
	                    WC_NUM_TEXT(input_tokens));
}

void
wc__predict_custom_model_note(const wc_law_binding *b, const wc_config *c, char *buf, size_t cap)
{
	const wc_model_info *m = c->arch;
	const char *lvl = b->level->name;
	if (m && m->experts > 0) {
		/* The experts given move the answer (the MoE term, the bytes read),
		 * and MoE models scatter most around the law: said, not "by its
		 * size alone" (docs/inference-law.md, "Structure terms"); kept within one warning
		 * for a 64-byte name. */
		const int term = b->lt_x[WC_LT_MOE] != 0.0 && b->base[12 + WC_LT_MOE] != 0.0;
		snprintf(buf, cap, "model: '%.48s' is not in the catalog, no model term on %s: answered by the "
		         "architecture given (%d experts, %d per token, %g of %g B)%s; MoE models scatter most "
		         "(docs/inference-law.md)", c->model, lvl, m->experts, m->experts_per_token, m->active_params_b,
		         m->total_params_b, term ? " through the law's MoE term" : "");
	} else if (m) {
		snprintf(buf, cap, "model: '%.64s' is not in the catalog and the set has no model term for it on %s: "
		         "answered by its size and the architecture given (docs/calibration.md)", c->model, lvl);
	} else {
		snprintf(buf, cap, "model: '%.64s' is not in the catalog and the set has no model term for it on %s: "
		         "answered by its size alone (docs/calibration.md)", c->model, lvl);
	}
}

const wc_range *
wc__predict_power_span(const wc_params *p, const wc_level *lvl, wc_range *buf, char *on, size_t cap)
{
	snprintf(on, cap, "on %s", lvl->name);
	if (lvl->theta.source != WC_SRC_DATASHEET)
		return &lvl->range;
	/* A transferred level's S and theta come from the fitted levels: a
	 * size, load or tp outside all of their spans is an extrapolation on
	 * top of the transfer, and is said as on those levels. */
	memset(buf, 0, sizeof *buf);
	char names[WC_WARNING_LEN / 4] = "";
	int n = 0;
	for (int i = 0; i < p->n_levels; i++) {
		const wc_level *l = &p->levels[i];
		const wc_range *r = &l->range;
		if (!wc_params_transfer_source(p, l, lvl->name) || !(r->active_b_max > 0 || r->running_max > 0 || r->tp_max > 0))
			continue;
		buf->active_b_min = n && buf->active_b_min > 0 ? fmin(buf->active_b_min, r->active_b_min) : r->active_b_min;
		buf->active_b_max = fmax(buf->active_b_max, r->active_b_max);
		buf->running_min = n && buf->running_min > 0 ? fmin(buf->running_min, r->running_min) : r->running_min;
		buf->running_max = fmax(buf->running_max, r->running_max);
		buf->tp_min = n && buf->tp_min > 0 ? (r->tp_min < buf->tp_min ? r->tp_min : buf->tp_min) : r->tp_min;
		buf->tp_max = r->tp_max > buf->tp_max ? r->tp_max : buf->tp_max;
		size_t used = strlen(names);
		snprintf(names + used, sizeof names - used, "%s%s", n ? ", " : "", l->name);
		n++;
	}
	snprintf(on, cap, "of the levels %s is transferred from (%s)", lvl->name, names);
	return buf;
}

int
wc_predict_engine_note(const wc_config *c, char *buf, size_t cap)
{
	buf[0] = '\0';
	const wc_engine_info *asked = wc_engine_lookup(wc_config_engine(c));
	const wc_engine_info *fitted = wc_engine_lookup(WC_CALIBRATED_ENGINE);
	if (!asked || asked == fitted)
		return 0;
	/* What docs/capacity.md ("Serving stacks") documents, nothing more:
	 * a stack measured to draw differently says so (with its fact); one
	 * never measured says what the measured ones showed. */
	if (asked->measured)
		snprintf(buf, cap, "engine: laws calibrated on %s runs; %s draws differently at the same batch%s%s%s: the "
		         "answer is %s's; run wattcast calibrate on your own %s runs (docs/calibration.md)", fitted->label,
		         asked->label, asked->fact ? " (" : "", asked->fact ? asked->fact : "", asked->fact ? ")" : "",
		         fitted->label, asked->label);
	else
		snprintf(buf, cap, "engine: laws calibrated on %s runs; %s is unmeasured and stacks draw differently at the "
		         "same batch (TensorRT-LLM flat with batch on H100, eager Transformers far slower per token): the "
		         "answer is %s's; see wattcast calibrate (docs/calibration.md)", fitted->label, asked->label,
		         fitted->label);
	return 1;
}
/* Where the query leaves the level's calibrated spans, worked out once
 * for the per-field warnings and for the bound and ceiling caveats, which
 * hold only beyond the runs. */
typedef struct {
	int active, running, tp; /* outside that span */
	int beyond;              /* outside any, or the level records no span of its runs */
	int upward;              /* beyond toward saturation: a load above the span, a
	                          * model larger than its sizes, or another group size */
	double lo, hi;           /* the loaded steps' least and greatest running count */
	/* the part of the load outside the running span: the greatest
	 * count below it and the least above it (0: none), and the share
	 * of the time (of a series; 1 for one load) spent there */
	double below_hi, above_lo, outside_share;
} span_check;

/* A loaded count below the running span, or above it: the one test of
 * the whole load's ends and of each series step. */
static int
below_span(const wc_range *r, double n)
{
	return n < r->running_min * (1 - 1e-9);
}

int
wc__predict_below_power_span(const wc_params *p, const wc_level *lvl, double n)
{
	wc_range ur;
	char on[WC_WARNING_LEN / 2];
	const wc_range *r = wc__predict_power_span(p, lvl, &ur, on, sizeof on);
	return r->running_max > 0 && n > 0.0 && below_span(r, n);
}

static int
above_span(const wc_range *r, double n)
{
	return n > r->running_max * (1 + 1e-9);
}

static span_check
span_check_of(const wc_range *r, const wc_config *c, const wc_load_histogram *h)
{
	span_check k = { 0, 0, 0, 0, 0, 0.0, h->len ? h->running[h->len - 1] : 0.0, 0.0, 0.0, 1.0 };
	/* n = 0 is idle, which the law gives exactly; only loaded steps count. */
	for (size_t i = 0; i < h->len && k.lo <= 0.0; i++)
		k.lo = h->running[i];
	/* A series mostly inside the span is not "outside": the part that is
	 * and its share of the series' time are said (the values increase). */
	double all = 0.0, out = 0.0;
	for (size_t i = 0; i < h->len; i++) {
		const double n = h->running[i], w = h->weight ? h->weight[i] : 0.0;
		const int below = r->running_max > 0 && n > 0.0 && below_span(r, n);
		const int above = r->running_max > 0 && above_span(r, n);
		all += w;
		if (below)
			k.below_hi = n;
		if (above && !(k.above_lo > 0.0))
			k.above_lo = n;
		out += below || above ? w : 0.0;
	}
	if (h->len > 1 && all > 0.0)
		k.outside_share = out / all;
	/* Publishers round parameter counts (Llama-3.1-70B is 70 B in the
	 * ML.ENERGY tables the span comes from, 70.6 B in the catalog an answer
	 * uses): sizes within that rounding of the span's ends are inside it
	 * (docs/inference-law.md, "Unseen configurations"). */
	const double rounding = 0.05;
	k.active = r->active_b_max > 0 && (c->active_params_b < r->active_b_min * (1 - rounding) ||
	                                   c->active_params_b > r->active_b_max * (1 + rounding));
	k.running = r->running_max > 0 && k.lo > 0.0 && (below_span(r, k.lo) || above_span(r, k.hi));
	k.tp = r->tp_max > 0 && (c->tp < r->tp_min || c->tp > r->tp_max);
	/* an unknown span (a file without range) is no evidence of "beyond"
	 * (docs/formats/params-file.md: unknown, no warning) */
	k.beyond = k.active || k.running || k.tp;
	k.upward = (r->running_max > 0 && k.lo > 0.0 && above_span(r, k.hi)) ||
	           (r->active_b_max > 0 && c->active_params_b > r->active_b_max * (1 + rounding)) || k.tp;
	return k;
}

/* The capacity calibration's span of quantity `k` beside the power law's
 * (lo-hi) for values v_lo-v_hi outside both: " and the capacity
 * calibration's span c0-c1<unit>" into `both` ("" when the capacity
 * answer's value is inside its span), and the digits both spans print at
 * (the span rule at the digits both need), so one quantity outside both is
 * one line in one number format, not two lines quoting it twice
 * (docs/capacity.md, "Warnings"). */
static int
both_spans(double v_lo, double v_hi, double lo, double hi, const double (*cap_span)[2], wc_span_both k,
           const char *unit, int *joined, char *both, size_t cap)
{
	int dg = wc__predict_span_digits(v_lo, v_hi, lo, hi);
	both[0] = '\0';
	if (!(cap_span && cap_span[k][1] > 0))
		return dg;
	const int dc = wc__predict_span_digits(v_lo, v_hi, cap_span[k][0], cap_span[k][1]);
	dg = dc > dg ? dc : dg;
	char c0[40], c1[40];
	snprintf(both, cap, " and the capacity calibration's span %s-%s%s", wc__predict_sig(c0, sizeof c0, cap_span[k][0], dg),
	         wc__predict_sig(c1, sizeof c1, cap_span[k][1], dg), unit);
	if (joined)
		joined[k] = 1;
	return dg;
}

/* The notes of the fields `span` finds outside `r`, each saying where
 * the span is (`on`): a level's, or a model term's runs'. */
static int
field_notes(const wc_range *r, const span_check *sp, const wc_config *c, const char *field,
            const double (*cap_span)[2], int *joined, const char *on, char notes[3][WC_WARNING_LEN])
{
	const span_check span = *sp;
	int n = 0;
	char a[40], b[40], d[40], both[96];
	if (span.active) {
		const int dg = both_spans(c->active_params_b, c->active_params_b, r->active_b_min, r->active_b_max, cap_span,
		                          WC_SPAN_ACTIVE, " B", joined, both, sizeof both);
		wc_error_format(notes[n++], WC_WARNING_LEN, "active_params_b: %s B is outside the calibrated span %s-%s B%s %s",
		         wc__predict_sig(d, sizeof d, c->active_params_b, dg > 6 ? dg : 6),
		         wc__predict_sig(a, sizeof a, r->active_b_min, dg), wc__predict_sig(b, sizeof b, r->active_b_max, dg),
		         both, on);
	}
	if (span.running) {
		char load[96];
		const int dg = both_spans(span.lo, span.hi, r->running_min, r->running_max, cap_span, WC_SPAN_LOAD, "",
		                          joined, both, sizeof both);
		/* the loads outside, below the span and above it */
		const double outside[2][2] = { { span.lo, span.below_hi }, { span.above_lo, span.hi } };
		load[0] = '\0';
		for (int k = 0; k < 2; k++) {
			if (!(outside[k][0] > 0.0 && outside[k][1] > 0.0))
				continue;
			size_t used = strlen(load);
			if (outside[k][0] == outside[k][1])
				snprintf(load + used, sizeof load - used, "%s%s", used ? " and " : "",
				         wc__predict_sig(d, sizeof d, outside[k][0], dg));
			else
				snprintf(load + used, sizeof load - used, "%s%s-%s", used ? " and " : "",
				         wc__predict_sig(a, sizeof a, outside[k][0], dg), wc__predict_sig(b, sizeof b, outside[k][1], dg));
		}
		char share[48] = "";
		wc__predict_series_share(share, sizeof share, span.outside_share);
		const int two = strstr(load, " and ") != NULL;
		wc_error_format(notes[n++], WC_WARNING_LEN, "%s: load%s %s %s outside the calibrated span %s-%s%s %s%s", field,
		         two ? "s" : "", load, two ? "are" : "is", wc__predict_sig(a, sizeof a, r->running_min, dg),
		         wc__predict_sig(b, sizeof b, r->running_max, dg), both, on, share);
	}
	if (span.tp) {
		const int dg = both_spans(c->tp, c->tp, r->tp_min, r->tp_max, cap_span, WC_SPAN_TP, "", joined, both,
		                          sizeof both);
		wc_error_format(notes[n++], WC_WARNING_LEN, "tp: %d is outside the calibrated span %s-%s%s %s", c->tp,
		         wc__predict_sig(a, sizeof a, r->tp_min, dg), wc__predict_sig(b, sizeof b, r->tp_max, dg), both, on);
	}
	return n;
}

int
wc__predict_span_notes(const wc_params *p, const wc_level *lvl, const wc_config *c, const char *field,
                       const wc_load_histogram *h, const double (*cap_span)[2], int *joined, int part,
                       char notes[3][WC_WARNING_LEN])
{
	wc_range ur;
	char on[WC_WARNING_LEN / 2];
	const wc_range *r = wc__predict_power_span(p, lvl, &ur, on, sizeof on);
	const wc_load_histogram none = { 0 };
	const span_check span = span_check_of(r, c, h ? h : &none);
	int n = 0;
	if (part == 0) {
		const wc_level *sl = wc_params_scale_level(p, lvl);
		int s_bound = sl && sl->s.source == WC_SRC_BOUND, t_bound = lvl->theta.source == WC_SRC_BOUND;
		/* A bound level still passes through its runs; only an answer beyond
		 * them leans on the bound's split of S and theta (docs/fitting.md,
		 * "Physical bounds"). */
		if ((s_bound || t_bound) && span.beyond)
			snprintf(notes[n++], WC_WARNING_LEN, "platform: the fit of level '%s' ended at a physical bound (%s%s%s "
			         "held there): its runs could not identify it, and this answer lies beyond their loads or "
			         "sizes, so it leans on the bound (docs/fitting.md)", lvl->name, s_bound ? "S" : "",
			         s_bound && t_bound ? " and " : "", t_bound ? "theta" : "");
		/* A level calibrated without the bound (platform scope, or a file
		 * from elsewhere) may saturate above what the board can draw; as for
		 * a held level, only an answer beyond its runs leans on that, and
		 * only one beyond them toward saturation: below their loads or
		 * sizes the law is far from P0 + S, and there it has understated
		 * real runs (A100 at 1 running, docs/fitting.md "Physical bounds"). */
		double ceiling = sl && !s_bound ? lvl->p0.value + sl->s.value : NAN,
		       limit = isfinite(ceiling) ? wc_level_power_limit_w(lvl) : NAN;
		if (ceiling > WC_LEVEL_LIMIT_FACTOR * limit && span.upward && r == &lvl->range) /* a transfer's own note */
			snprintf(notes[n++], WC_WARNING_LEN, "platform: level '%s' saturates at P0 + S = %.0f W per GPU, above "
			         "%.1f x its board limit (%.0f W): its S is not bounded, so answers near saturation may "
			         "overstate power (docs/fitting.md)", lvl->name, ceiling, WC_LEVEL_LIMIT_FACTOR, limit);
		return n;
	}
	return field_notes(r, &span, c, field, cap_span, joined, on, notes);
}

int
wc__predict_term_span_notes(const wc_params *p, const wc_level *lvl, const wc_model_term *t, const wc_config *c,
                            const char *field, const wc_load_histogram *h, char notes[3][WC_WARNING_LEN])
{
	if (!t)
		return 0;
	wc_range ur;
	char on[WC_WARNING_LEN / 2], of[WC_WARNING_LEN];
	const wc_load_histogram none = { 0 };
	const span_check level = span_check_of(wc__predict_power_span(p, lvl, &ur, on, sizeof on), c, h ? h : &none);
	span_check span = span_check_of(&t->range, c, h ? h : &none);
	/* a field the level's span already warns of is said once, there */
	span.active &= !level.active;
	span.running &= !level.running;
	span.tp &= !level.tp;
	snprintf(of, sizeof of, "of the runs of model term %s on %s", t->model, t->level);
	return field_notes(&t->range, &span, c, field, NULL, NULL, of, notes);
}

void
wc_predict_join_span_lines(const wc_inference_prediction *pred, wc_capacity_prediction *cap)
{
	if (pred && cap)
		wc__capacity_drop_joined(cap, pred->joined);
}

int
wc_predict_both_line(const wc_capacity_prediction *cap, int i)
{
	for (int k = 0; k < WC_SPANS_BOTH; k++)
		if (cap->both_line[k] == i + 1)
			return 1;
	return 0;
}
