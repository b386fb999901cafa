/*
 * The capacity answer's calibrated-span warnings (docs/capacity.md,
 * "Warnings"): a warning per field that leaves a span the calibration
 * has, and one caveat line for what a level calibrated at one point
 * covered, with the parameters its fit left at a bound.
 */
#include "predict/capacity_predict.h"
#include "predict_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "models/catalog.h"
#include "models/warnings.h"

/* A level's decode contexts (input + output / 2), the span an output
 * length is checked against: from its least prompt and output to its
 * largest; 0 where its rows identify no input length, whose output span
 * then stands alone (docs/capacity.md, "Warnings"). */
static int
context_span(const wc_capacity_range *r, double *lo, double *hi)
{
	if (!(r->input_max > 0 && r->output_max > 0))
		return 0;
	*lo = r->input_min + 0.5 * r->output_min;
	*hi = r->input_max + 0.5 * r->output_max;
	return 1;
}

/* A datasheet level (models/capacity_transfer.c) has no rows of its own:
 * what its answer rests on is the rows of the fitted levels its numbers
 * are the median of -- its die's when it has any, else every level's
 * (wc_capacity_bind_any's sources, each level once over the kinds) -- so
 * their spans, joined, are what a question is checked against, and they
 * are named (docs/capacity.md, "Platforms without a capacity level"). The
 * decode context's span is the join of each level's own (`ctx`, 0 when
 * none has one), never one level's least prompt with another's least
 * output: that would be a context no level's rows had. 0 when the level
 * bound is no transfer. */
static int
transfer_span(const wc_capacity_binding *b, wc_capacity_range *u, double ctx[2], char *names, size_t cap)
{
	const wc_capacity_params *cp = b->c;
	const wc_capacity_level *l = b->level;
	int ds = 0;
	for (int k = 0; k < WC_CAP_KINDS; k++)
		ds |= !cp->shared[k] && l->p[k].source == WC_SRC_DATASHEET;
	if (!ds || l->range.rows > 0)
		return 0;
	/* the levels the transfer takes its numbers from; a level stored as a
	 * datasheet one (no binding's sources) rests on every level */
	unsigned char from[WC_CAPACITY_MAX_LEVELS] = { 0 };
	int any = 0;
	for (int k = 0; b->datasheet && k < WC_CAP_KINDS; k++)
		for (int i = 0; !cp->shared[k] && i < b->n_src[k]; i++)
			any = from[b->src[k][i]] = 1;
	memset(u, 0, sizeof *u);
	ctx[0] = ctx[1] = 0.0;
	names[0] = '\0';
	int n = 0;
	for (int i = 0; i < cp->n_levels; i++) {
		const wc_capacity_range *r = &cp->levels[i].range;
		if (r->rows <= 0 || (any && !from[i]))
			continue;
		const double *lo[] = { &r->running_min, &r->input_min, &r->output_min, &r->active_b_min };
		double *ulo[] = { &u->running_min, &u->input_min, &u->output_min, &u->active_b_min };
		for (size_t j = 0; j < sizeof lo / sizeof lo[0]; j++) { /* min over those that record one; max */
			if (lo[j][1] > 0)
				*ulo[j] = *ulo[j] > 0 ? fmin(*ulo[j], *lo[j]) : *lo[j];
			ulo[j][1] = fmax(ulo[j][1], lo[j][1]);
		}
		double c_lo, c_hi;
		if (context_span(r, &c_lo, &c_hi)) {
			ctx[0] = ctx[1] > 0 ? fmin(ctx[0], c_lo) : c_lo;
			ctx[1] = fmax(ctx[1], c_hi);
		}
		if (r->tp_max > 0) {
			u->tp_min = u->tp_min > 0 && u->tp_min < r->tp_min ? u->tp_min : r->tp_min;
			u->tp_max = u->tp_max > r->tp_max ? u->tp_max : r->tp_max;
		}
		u->rows += r->rows;
		size_t used = strlen(names);
		snprintf(names + used, cap - used, "%s%s", n++ ? ", " : "", cp->levels[i].name);
	}
	return n > 0;
}

/* The one sentence of an efficiency above 1 (fit capacity's warning,
 * fit/capacity_fit.c): the answer reads the weights faster than the
 * board's datasheet bandwidth, i.e. carries its rows' engine's speed,
 * not the board's (docs/capacity.md, "Step time"); "" when at most 1. */
static void
eta_note(const wc_capacity_params *cp, const wc_capacity_level *l, char *buf, size_t cap)
{
	const double eta = cp->shared[WC_CAP_ETA] ? cp->shared_p[WC_CAP_ETA].value : l->p[WC_CAP_ETA].value;
	buf[0] = '\0';
	if (eta > 1.0)
		snprintf(buf, cap, "eta[%s] = %.3g is above 1: its rows run faster than the board's datasheet allows, so "
		         "its answers carry their engine's speed, not the board's (docs/capacity.md)", l->name, eta);
}

/* Whether `v` is the fitted input length of one of the section's
 * workloads (a length the fit estimated, not one a row stated). */
static int
workload_length(const wc_capacity_params *cp, double v)
{
	for (int i = 0; i < cp->n_workloads; i++)
		if (fabs(cp->workloads[i].input_tokens.value - v) <= 1e-9 * fabs(v))
			return 1;
	return 0;
}

/* The caveat of a shared eta_c no row of a known prompt length fitted
 * (the built-in `paper` section, fitted on the published periods): every
 * level's input span is its workloads' fitted lengths, so eta_c lies along
 * one flat direction with them and only prefill times identify it
 * (docs/capacity.md, "The built-in profile"); "" otherwise, or with no
 * prompt asked. As an eta above 1 is said (eta_note). */
static void
etac_note(const wc_capacity_params *cp, const wc_config *c, char *buf, size_t cap)
{
	int levels = 0, known = 0;
	buf[0] = '\0';
	for (int i = 0; cp->shared[WC_CAP_ETAC] && i < cp->n_levels; i++) {
		const wc_capacity_range *r = &cp->levels[i].range;
		levels += r->rows > 0;
		known |= r->rows > 0 && ((r->input_min > 0 && !workload_length(cp, r->input_min)) ||
		                         (r->input_max > 0 && !workload_length(cp, r->input_max)));
	}
	if (levels && !known && c->input_tokens > 0)
		wc_error_format(buf, cap, "eta_c = %.3g was fitted with no prompt length known, so its rows do not "
		                "identify it: on real TTFTs it makes prefill 3-5x too slow, so TTFT, latency and the prefill "
		                "share are overstated; fit capacity on runs with TTFT (docs/capacity.md)",
		                cp->shared_p[WC_CAP_ETAC].value);
}

/* What a TP group larger than the GPUs the board's link joins crosses,
 * from the catalog alone (wc_platform_tp_crossing): PCIe on a board with
 * no link (L40S) or bridged pairs (H100 NVL), the network past a
 * baseboard's 8 (H100, B200, MI300X), slower either way; "" when the
 * group stays on the link (docs/capacity.md, "Warnings"). One clause for
 * the fitted boards and the transferred ones. */
static int
tp_crossing_text(const wc_platform_info *me, int tp, char *buf, size_t cap)
{
	const char *beyond = wc_platform_tp_crossing(me, tp);
	buf[0] = '\0';
	if (beyond && !me->link)
		snprintf(buf, cap, "its GPUs talk over %s only, so this likely understates it", beyond);
	else if (beyond)
		snprintf(buf, cap, "its %s joins at most %d GPUs, so a group of %d crosses %s and this likely "
		         "understates it", me->link, me->link_domain, tp, beyond);
	return buf[0] != '\0';
}

/* tp > 1 on a transferred level: the communication per layer is the
 * fitted levels' (boards whose groups stay on NVLink unless the set says
 * other), never measured on this board, and may cross what lies beyond
 * its link (tp_crossing_text). */
static void
tp_transfer_note(const wc_capacity_level *l, const wc_config *c, const char *from, wc_capacity_prediction *out)
{
	if (c->tp <= 1)
		return;
	char cross[160];
	const int crosses = tp_crossing_text(wc_platform_lookup(l->name), c->tp, cross, sizeof cross);
	WC_WARN(out, "tp: %d on %s was never measured: its communication per layer is the fitted levels' (%s)%s%s "
	        "(docs/capacity.md)", c->tp, l->name, from, crosses ? "; " : "", cross);
}

/* A fitted level's communication per layer is its rows', groups within
 * its link when none of them was larger: a group past the link crosses
 * what the catalog says lies beyond it, by the transferred boards' rule
 * (tp_crossing_text), and the caveat says so; no cost of that crossing is
 * modelled (docs/capacity.md, "Warnings"). */
static void
tp_fitted_note(const wc_capacity_level *l, const wc_config *c, wc_capacity_prediction *out)
{
	const wc_platform_info *me = wc_platform_lookup(l->name);
	char cross[160];
	if (!tp_crossing_text(me, c->tp, cross, sizeof cross) || l->range.tp_max > me->link_domain)
		return;
	char rows[48] = "";
	if (l->range.tp_max > 0)
		snprintf(rows, sizeof rows, " (tp %d-%d)", l->range.tp_min, l->range.tp_max);
	WC_WARN(out, "tp: %d on %s: its communication per layer is fitted on its rows' groups%s; %s (docs/capacity.md)",
	        c->tp, l->name, rows, cross);
}

/* Is `v` outside [lo, hi] (relative slack for the values a file rounds)? */
static int
outside(double v, double lo, double hi)
{
	return v < lo * (1 - 1e-9) || v > hi * (1 + 1e-9);
}

const char *
wc__predict_load_field(const wc_inference_query *q)
{
	return q->series_len ? "running_series" : q->config.request_rate > 0 ? "rate" : "concurrency";
}

/* Per-field warnings only where the calibration has a span (min < max)
 * and the value leaves it; a field calibrated at one point is not a span,
 * so what the calibration covered is said once, in one caveat line, when
 * the question differs from it in any such field (docs/capacity.md,
 * "Warnings"). */
void
wc__capacity_span_warnings(const wc_capacity_binding *b, const wc_config *c, const char *load, double n,
                           wc_capacity_prediction *out)
{
	const wc_capacity_params *cp = b->c;
	const wc_capacity_level *l = b->level;
	/* What the answer leans on that the fit left at a bound of its domain
	 * joins the coverage caveat: one capacity caveat line per answer
	 * (docs/capacity.md, "Warnings"). */
	char bound[WC_WARNING_LEN / 2], held[WC_WARNING_LEN / 2], lean[WC_WARNING_LEN];
	int n_bound = wc_capacity_bound_names(cp, l->name, NULL, bound, sizeof bound);
	/* a value the fit held at the other levels' median, its own rows
	 * having run it to an edge (docs/capacity.md, "What the rows cannot
	 * identify"), is named as what it is, in the same one line */
	int n_held = wc_capacity_held_names(cp, l->name, held, sizeof held);
	/* both kinds in one line of at most WC_WARNING_LEN: "them" names both */
	wc_error_format(lean, sizeof lean, "%s%s%s held at the other levels' median: its rows do not identify %s",
	         n_bound ? bound : "", n_bound ? " at a bound and " : "", held, n_held + n_bound > 1 ? "them" : "it");
	const wc_capacity_range *r = &l->range;
	char eta[WC_WARNING_LEN], from[WC_WARNING_LEN / 4], where[WC_WARNING_LEN / 2];
	eta_note(cp, l, eta, sizeof eta);
	wc_capacity_range u;
	double ctx_span[2] = { 0.0, 0.0 };
	const int ds = transfer_span(b, &u, ctx_span, from, sizeof from);
	if (ds) {
		r = &u;
		wc_error_format(where, sizeof where, "of the levels it is transferred from (%s)", from);
		tp_transfer_note(l, c, from, out);
	} else {
		tp_fitted_note(l, c, out);
	}
	if (r->rows == 0) {
		if (eta[0])
			WC_WARN(out, "capacity: %s", eta);
		if (n_held > 0)
			WC_WARN(out, "capacity: %s", lean);
		else if (n_bound > 0)
			WC_WARN(out, "capacity: %s at a bound of the fit's domain, not identified by its rows", bound);
		return;
	}
	/* A prompt's cost is its prefill, whose compute efficiency eta_c is
	 * shared by every level and fitted on all their rows, scaled by each
	 * board's datasheet FLOPs: its span is the prompts of every level's
	 * rows, not this level's alone (docs/capacity.md, "Warnings"). */
	double in_lo = INFINITY, in_hi = -INFINITY;
	for (int k = 0; k < cp->n_levels; k++) {
		const wc_capacity_range *rk = &cp->levels[k].range;
		if (rk->rows > 0 && rk->input_max > 0) {
			in_lo = fmin(in_lo, rk->input_min);
			in_hi = fmax(in_hi, rk->input_max);
		}
	}
	if (!(in_hi > 0)) {
		in_lo = r->input_min;
		in_hi = r->input_max;
	}
	/* The output length acts through the decode's context read: its span
	 * is the level's decode contexts (input + output / 2), joined over the
	 * levels a transfer rests on, or the output span where the rows
	 * identify no input length. */
	if (!ds)
		(void)context_span(r, &ctx_span[0], &ctx_span[1]);
	const int ctx = ctx_span[1] > 0;
	const char *on = ds ? "" : "on ", *shared = "over all platforms' rows (prefill is shared)";
	const char *lname = ds ? where : l->name;
	const struct {
		const char *field, *fmt, *what, *unit, *where, *level; /* the warning: "field: what v unit ... where level" */
		double v, lo, hi;
		int both; /* the power law's span of it too (wc_span_both), or -1 */
		const char *span_unit; /* after the span's ends, as the power law's line has it */
	} f[] = {
		{ load, "running %g", "load ", "", on, lname, n, r->running_min, r->running_max, WC_SPAN_LOAD, "" },
		{ "input_tokens", "input %.0f tokens", "", "", shared, "", c->input_tokens, in_lo, in_hi, -1, "" },
		{ "output_tokens", ctx ? "decode context %.0f tokens" : "output %g tokens",
		  ctx ? "the decode context, input + output / 2 = " : "", ctx ? " tokens," : "", on, lname,
		  ctx ? c->input_tokens + 0.5 * c->output_tokens : c->output_tokens,
		  ctx ? ctx_span[0] : r->output_min, ctx ? ctx_span[1] : r->output_max, -1, "" },
		{ "tp", "tp %g", "", "", on, lname, c->tp, r->tp_min, r->tp_max, WC_SPAN_TP, "" },
		/* the step times scale with the bytes and FLOPs of the active
		 * parameters, fitted only on the sizes of the level's rows */
		{ "active_params_b", "%g B active parameters", "", " B", on, lname, c->active_params_b, r->active_b_min,
		  r->active_b_max, WC_SPAN_ACTIVE, " B" },
	};
	char covered[160] = "";
	int off = 0;
	for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
		if (!(f[i].hi > 0))
			continue;
		if (f[i].hi > f[i].lo * (1 + 1e-9)) {
			char lo[40], hi[40];
			/* The span's ends at the digits the asked value needs and
			 * those the whole numbers just outside them need: a count
			 * (tokens, requests, GPUs) shown outside is visibly outside,
			 * and the span prints alike whichever end is left
			 * (predict/span_text.c; docs/capacity.md, "Warnings"). */
			const int dv = wc__predict_span_digits(f[i].v, f[i].v, f[i].lo, f[i].hi),
			          dw = wc__predict_span_digits(floor(f[i].lo), ceil(f[i].hi), f[i].lo, f[i].hi),
			          dg = dv > dw ? dv : dw;
			if (outside(f[i].v, f[i].lo, f[i].hi) && f[i].both >= 0) { /* a power answer may join it */
				out->both_line[f[i].both] = out->n_warnings + 1;
				out->both_span[f[i].both][0] = f[i].lo;
				out->both_span[f[i].both][1] = f[i].hi;
			}
			/* the asked value's whole digits at least: %g's six printed
			 * 1234567 tokens as 1.23457e+06 */
			const int dx = fabs(f[i].v) >= 1.0 ? (int)floor(log10(fabs(f[i].v))) + 1 : 0,
			          dd = dg > 6 ? dg : 6;
			if (outside(f[i].v, f[i].lo, f[i].hi))
				WC_WARN(out, "%s: %s%.*g%s is outside the capacity calibration's span %s-%s%s %s%s", f[i].field,
				        f[i].what, dd > dx ? dd : dx, f[i].v, f[i].unit, wc__predict_sig(lo, sizeof lo, f[i].lo, dg),
				        wc__predict_sig(hi, sizeof hi, f[i].hi, dg), f[i].span_unit,
				        f[i].where, f[i].level);
			continue;
		}
		size_t used = strlen(covered);
		snprintf(covered + used, sizeof covered - used, used ? ", " : "");
		used = strlen(covered);
		snprintf(covered + used, sizeof covered - used, f[i].fmt, f[i].lo);
		off |= outside(f[i].v, f[i].lo, f[i].hi);
	}
	/* Rows on the level but no input length among them: every one came
	 * from a workload whose fitted length sat at a bound (not a span, not
	 * a point: unknown). */
	if (!(in_hi > 0)) {
		size_t used = strlen(covered);
		snprintf(covered + used, sizeof covered - used, "%sno input length its rows identify", used ? ", " : "");
		off = 1;
	}
	/* One coverage line; an efficiency above 1 is a line of its own
	 * beside it, once per answer: together they overrun one warning's
	 * length, which would cut one of them (docs/capacity.md, "Warnings"). */
	char line[WC_WARNING_LEN] = "", rows[WC_WARNING_LEN / 2];
	wc_error_format(rows, sizeof rows, "%s%s (%s %d rows)", on, lname, ds ? "their" : "its", r->rows);
	if (off && n_held > 0)
		wc_error_format(line, sizeof line, "calibrated only at %s %s, with %s; other loads and lengths are extrapolated",
		         covered, rows, lean);
	else if (n_held > 0)
		wc_error_format(line, sizeof line, "%s; this answer leans on %s (docs/capacity.md)", lean,
		         n_held + n_bound > 1 ? "them" : "it");
	else if (off && n_bound > 0)
		wc_error_format(line, sizeof line, "calibrated only at %s %s, with %s at a bound (not identified); other loads and "
		         "lengths are extrapolated by the roofline", covered, rows, bound);
	else if (off)
		wc_error_format(line, sizeof line, "calibrated only at %s %s; other loads and lengths are extrapolated by the "
		         "roofline", covered, rows);
	else if (n_bound > 0)
		wc_error_format(line, sizeof line, "%s at a bound of the fit's domain, not identified by its rows; this answer "
		         "leans on the bound (docs/capacity.md)", bound);
	if (eta[0])
		WC_WARN(out, "capacity: %s", eta);
	etac_note(cp, c, eta, sizeof eta);
	if (eta[0])
		WC_WARN(out, "capacity: %s", eta);
	if (line[0])
		WC_WARN(out, "capacity: %s", line);
}

void
wc__capacity_both_spans(const wc_capacity_prediction *cap, double span[WC_SPANS_BOTH][2])
{
	for (int k = 0; k < WC_SPANS_BOTH; k++) {
		span[k][0] = cap->both_line[k] ? cap->both_span[k][0] : 0.0;
		span[k][1] = cap->both_line[k] ? cap->both_span[k][1] : 0.0;
	}
}

void
wc__capacity_drop_joined(wc_capacity_prediction *cap, const int joined[WC_SPANS_BOTH])
{
	/* the joined lines, dropped from the last up so each index still holds */
	for (int i = cap->n_warnings - 1; i >= 0; i--)
		for (int k = 0; k < WC_SPANS_BOTH; k++)
			if (joined[k] && cap->both_line[k] == i + 1) {
				memmove(cap->warnings[i], cap->warnings[i + 1],
				        (size_t)(cap->n_warnings - i - 1) * sizeof cap->warnings[0]);
				cap->n_warnings--;
				cap->both_line[k] = 0;
				for (int j = 0; j < WC_SPANS_BOTH; j++) /* the lines after it move up one */
					cap->both_line[j] -= cap->both_line[j] > i + 1;
				break;
			}
}
