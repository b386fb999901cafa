/*
 * A power cap as the clock the GPU settles at under it (docs/capacity.md,
 * "Clocks and power caps"): the highest clock in the platform's range at
 * which the per-GPU power the answer would give at that locked clock meets
 * the cap, found by a scan of the range and GSL's Brent solver inside the
 * first cell that meets it. The law's clock term phi(f) = (f / f_ref)^kappa makes
 * the power rise with f at a fixed load, but with the capacity answers
 * asked for, the running count of an open loop (and the prefill share)
 * follow the clock too, and a slower service can draw more: P(f) need not
 * be monotone. The board's power limit is settled by the same rule.
 */
#include "predict/capacity_predict.h"
#include "capacity_root_internal.h"
#include "predict_internal.h"
#include "models/limits.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The headline's power (wc_predict_inference), so a platform answered
 * from its datasheet (no level of the set: docs/fitting.md) is capped as
 * it is answered; `serving_w` (may be NULL) its per-GPU draw while it
 * serves, which a cap or the board's limit is met by. On the heap:
 * server handler stacks are small. */
static int
headline_power(const wc_predictor *pr, const wc_inference_query *q, wc_power *pw, double *serving_w, wc_error *err)
{
	wc_inference_prediction *o = malloc(sizeof *o);
	int rc;
	if (!o)
		return wc_error_set(err, WC_ENOMEM, "power_cap_w: out of memory");
	if ((rc = wc_predict_inference(pr, q, o, err)) == WC_OK) {
		*pw = o->power;
		if (serving_w)
			*serving_w = o->serving_per_gpu_w;
	}
	free(o);
	return rc;
}

/* Per-GPU power of `q` at clock `f` (0 = unlocked): the capacity answer's
 * when token lengths are given (it is the headline's), else the headline's own;
 * a replayed run's load is its own (q->measured_load), so the headline's too.
 * Either is its draw while it serves (steady_power_w, serving_per_gpu_w):
 * an open loop's or a count below one running is not averaged over its
 * idle share, since a GPU's power management acts on what it draws while
 * it is busy (wc_load_serving_count; docs/capacity.md, "Clocks and power
 * caps"). */
static int
power_at(const wc_predictor *pr, const wc_inference_query *q, double f, wc_capacity_prediction *cap,
         double *out, wc_error *err)
{
	wc_inference_query at = *q;
	int rc;
	at.config.sm_clock_mhz = f;
	at.want_interval = 0;
	at.clock_probe = 1;
	at.power_cap_w = 0.0;
	at.open_loop_max = at.serving_w = 0.0;
	if (!q->measured_load && at.config.arch && at.config.output_tokens > 0) {
		if ((rc = wc_predict_capacity(pr, &at, NAN, NAN, cap, err)) != WC_OK)
			return rc;
		*out = cap->steady_power_w / at.config.tp;
		return WC_OK;
	}
	wc_power pw = { NAN, NAN, NAN, NAN };
	*out = NAN;
	return headline_power(pr, &at, &pw, out, err);
}

/* P0 per GPU as the answer gives it (the set's level or the datasheet's). */
static int
idle_per_gpu(const wc_predictor *pr, const wc_inference_query *q, double *p0, wc_error *err)
{
	wc_inference_query at = *q;
	at.config.running = 0.0;
	at.config.request_rate = 0.0;
	at.running_series = NULL;
	at.series_len = 0;
	at.want_interval = 0;
	at.power_cap_w = 0.0;
	wc_power pw = { NAN, NAN, NAN, NAN };
	int rc;
	if ((rc = headline_power(pr, &at, &pw, NULL, err)) == WC_OK)
		*p0 = pw.idle_power_w / at.config.tp;
	return rc;
}

/* Grid point j of [lo, hi], j = 0 the top: both ends exact. */
static double
grid_clock(double lo, double hi, int j)
{
	return j == 0 ? hi : lo + (hi - lo) * (double)(WC_CLOCK_GRID - j) / WC_CLOCK_GRID;
}

/* P(f) - target for the root solvers: <= 0 where the clock meets the
 * target, a clock above f_top counting as not meeting it (never asked); an
 * error in the answer stops the search (capacity_root_internal.h). */
typedef struct {
	const wc_predictor *pr;
	const wc_inference_query *q;
	wc_capacity_prediction *cap;
	double target_w, f_top;
	int rc;
	wc_error *err;
} cap_gap;

static double
power_gap(double f, void *arg)
{
	cap_gap *g = arg;
	double p = NAN;
	if (g->rc == WC_OK && f <= g->f_top)
		g->rc = power_at(g->pr, g->q, f, g->cap, &p, g->err);
	return g->rc == WC_OK && f <= g->f_top ? p - g->target_w : 1.0;
}

/* The crossing in the cell [*a, b], P(*a) = *pa <= target_w < P(b) = pb
 * (1 W over it when b is above f_top): bisected to 0.01 MHz
 * (gsl_root_fsolver_bisection), the first point that meets taken at every
 * halving, so the crossing found is the one plain halving finds when P
 * dips more than once in the cell. Bisection alone left the power up to a
 * few mW under the target, so answers at a binding limit read 699.999 W
 * and fell by mW as the load rose: Brent's method (P is smooth over so
 * short a cell) then brings it onto the target within about 1e-12 of it,
 * *a still meeting it (docs/capacity.md, "Clocks and power caps"). */
static int
settle(const wc_predictor *pr, const wc_inference_query *q, double target_w, double f_top, double *a, double *pa,
       double b, double pb, wc_capacity_prediction *cap, wc_error *err)
{
	cap_gap g = { pr, q, cap, target_w, f_top, WC_OK, err };
	double ga = *pa - target_w, gb = b <= f_top ? pb - target_w : 1.0;
	wc__root_bracket(gsl_root_fsolver_bisection, power_gap, &g, a, &ga, &b, &gb, WC_CLOCK_BISECT_MHZ, 0.0, &g.rc);
	if (g.rc == WC_OK)
		wc__root_bracket(gsl_root_fsolver_brent, power_gap, &g, a, &ga, &b, &gb, 0.0, WC_CLOCK_BRENT_REL,
		                 &g.rc);
	*pa = ga + target_w;
	return g.rc;
}

/* The highest clock in [f_min, f_top] at which the per-GPU power is at
 * most `target_w`: the grid of the board's range scanned from the top (f_top
 * itself first, then the grid points below it), and the crossing in the
 * first cell whose lower end meets the target solved (settle), a clock
 * above f_top counting as not meeting it (so every f_top above the answer
 * gives the same one). None meets it: the clock of least power among those
 * scanned (the higher on a tie). `*p_out` (may be NULL)
 * gets the power at the clock returned. */
static int
scan(const wc_predictor *pr, const wc_inference_query *q, const wc_platform_info *info, double target_w,
     double f_top, double *clock_mhz, double *p_out, wc_capacity_prediction *cap, wc_error *err)
{
	const double lo = info->min_sm_clock_mhz, hi = info->max_sm_clock_mhz;
	double p, f_best = f_top, p_best;
	int rc;
	if ((rc = power_at(pr, q, f_top, cap, &p_best, err)) != WC_OK)
		return rc;
	double p_prev = p_best; /* the power at the last grid point scanned */
	if (p_best <= target_w) {
		*clock_mhz = f_top;
		if (p_out)
			*p_out = p_best;
		return WC_OK;
	}
	for (int j = 1; j <= WC_CLOCK_GRID; j++) {
		double f = grid_clock(lo, hi, j);
		if (f >= f_top)
			continue;
		if ((rc = power_at(pr, q, f, cap, &p, err)) != WC_OK)
			return rc;
		if (p <= target_w) {
			/* P(f) meets it, P(f_top) and every scanned clock above do
			 * not: settle in the cell (f, its upper grid point). */
			double a = f, pa = p;
			if ((rc = settle(pr, q, target_w, f_top, &a, &pa, grid_clock(lo, hi, j - 1), p_prev, cap, err)) != WC_OK)
				return rc;
			*clock_mhz = a;
			if (p_out)
				*p_out = pa;
			return WC_OK;
		}
		if (p < p_best) {
			p_best = p;
			f_best = f;
		}
		p_prev = p;
	}
	*clock_mhz = f_best;
	if (p_out)
		*p_out = p_best;
	return WC_OK;
}

int
wc_predict_power_cap(const wc_predictor *pr, const wc_inference_query *q, double cap_w, double *clock_mhz,
                     wc_error *err)
{
	const wc_config *c = &q->config;
	const wc_platform_info *info = wc_predict_board(wc_predictor_params(pr), c->platform);
	double p0 = NAN;
	int rc;
	/* Checked before *clock_mhz is written: it may be q's own clock. */
	if (c->sm_clock_mhz > 0.0)
		return wc_error_set(err, WC_EINVAL, "power_cap_w: give either a power cap or sm_clock_mhz, not both");
	*clock_mhz = 0.0;
	/* a power per GPU above any board is a typo or a unit slip, not a cap
	 * (models/limits.h; docs/capacity.md, "Clocks and power caps") */
	if (!(cap_w > 0.0 && cap_w <= WC_GPU_MAX_POWER_W))
		return wc_error_set(err, WC_EINVAL, "power_cap_w: must be > 0 and at most %g W per GPU, got %s",
		                    WC_GPU_MAX_POWER_W, WC_NUM_TEXT(cap_w));
	if (!info || !(info->max_sm_clock_mhz > info->min_sm_clock_mhz))
		return wc_error_set(err, WC_EINVAL, "power_cap_w: the catalog has no clock range for platform '%s'",
		                    c->platform ? c->platform : "");
	if ((rc = idle_per_gpu(pr, q, &p0, err)) != WC_OK)
		return rc;
	if (cap_w <= p0)
		return wc_error_set(err, WC_EINVAL,
		                    "power_cap_w: %s W is at or below the idle power of %s, %s W per GPU: no clock "
		                    "settles under it", WC_NUM_TEXT(cap_w), c->platform, WC_NUM_AGAINST(p0, cap_w));
	/* A series settles step by step, in wc_predict_inference: each load
	 * level at the clock meeting the cap (docs/capacity.md). */
	if (q->series_len > 0)
		return WC_OK;
	/* On the heap: server handler stacks are small. */
	wc_capacity_prediction *cap = malloc(sizeof *cap);
	if (!cap)
		return wc_error_set(err, WC_ENOMEM, "power_cap_w: out of memory");
	double p_free;
	/* A cap above the free power does not bind: the clock stays free. */
	if ((rc = power_at(pr, q, 0.0, cap, &p_free, err)) == WC_OK && p_free > cap_w)
		rc = scan(pr, q, info, cap_w, info->max_sm_clock_mhz, clock_mhz, NULL, cap, err);
	free(cap);
	return rc;
}

int
wc_predict_power_floor(const wc_predictor *pr, const wc_inference_query *q, double f_top, double *clock_mhz,
                       double *power_w, wc_error *err)
{
	const wc_platform_info *info = wc_predict_board(wc_predictor_params(pr), q->config.platform);
	int rc;
	if (!info || !(info->max_sm_clock_mhz > info->min_sm_clock_mhz))
		return wc_error_set(err, WC_EINVAL, "platform: the catalog has no clock range for '%s'",
		                    q->config.platform ? q->config.platform : "");
	wc_capacity_prediction *cap = malloc(sizeof *cap); /* on the heap: small handler stacks */
	if (!cap)
		return wc_error_set(err, WC_ENOMEM, "platform: out of memory");
	/* No power meets -inf: the scan ends at the clock of least power. */
	rc = scan(pr, q, info, -INFINITY, f_top > 0.0 ? fmin(f_top, info->max_sm_clock_mhz) : info->max_sm_clock_mhz,
	          clock_mhz, power_w, cap, err);
	free(cap);
	return rc;
}

/* A per-GPU power the board's limit binds on: above it by more than
 * rounding, so an answer settled onto the limit is not settled again. */
static int
over_limit(double per_gpu_w, const wc_platform_info *info)
{
	return per_gpu_w > info->max_power_w * (1.0 + 1e-9);
}

int
wc_predict_board_limit(const wc_predictor *pr, wc_inference_query *q, wc_error *err)
{
	const wc_config *c = &q->config;
	const wc_platform_info *info = wc_predict_board(wc_predictor_params(pr), c->platform);
	double mhz = 0.0;
	int rc;
	q->board_limit_w = 0.0;
	q->board_free_w = NAN;
	if (!info || !(info->max_power_w > 0.0) || !(info->max_sm_clock_mhz > info->min_sm_clock_mhz))
		return WC_OK; /* no limit or no clocks to settle at: answered as the law gives it */
	if (q->power_cap_w > 0.0 && q->power_cap_w <= info->max_power_w)
		return WC_OK; /* a tighter cap already set the clock */
	if (q->series_len > 0)
		return WC_OK; /* step by step, in wc_predict_inference */
	wc_capacity_prediction *cap = malloc(sizeof *cap); /* on the heap: small handler stacks */
	if (!cap)
		return wc_error_set(err, WC_ENOMEM, "platform: out of memory");
	/* The highest clock at or below the one asked that meets the limit
	 * (the same rule as a cap): every clock asked above it gets the same
	 * answer, and a clock whose power rises again as it falls (an open
	 * loop's running count grows) is not taken for one that meets it. */
	double f_top = c->sm_clock_mhz > 0.0 ? c->sm_clock_mhz : info->max_sm_clock_mhz;
	if ((rc = power_at(pr, q, c->sm_clock_mhz, cap, &q->board_free_w, err)) == WC_OK &&
	    over_limit(q->board_free_w, info) &&
	    (rc = scan(pr, q, info, info->max_power_w, f_top, &mhz, NULL, cap, err)) == WC_OK) {
		q->config.sm_clock_mhz = mhz;
		q->board_limit_w = info->max_power_w;
	}
	free(cap);
	return rc;
}

int
wc_predict_limit_may_bind(const wc_predictor *pr, const wc_inference_query *q, double running, int *may,
                          wc_error *err)
{
	const wc_platform_info *info = wc_predict_board(wc_predictor_params(pr), q->config.platform);
	wc_inference_query at = *q;
	double p = NAN;
	*may = 0;
	if (!info || !(info->max_power_w > 0.0) || !(info->max_sm_clock_mhz > info->min_sm_clock_mhz) ||
	    (q->power_cap_w > 0.0 && q->power_cap_w <= info->max_power_w))
		return WC_OK; /* as wc_predict_board_limit: nothing it settles */
	at.config.running = running;
	at.config.request_rate = 0.0;
	at.running_series = NULL;
	at.series_hold = NULL;
	at.series_len = 0;
	at.measured_load = 1; /* the law at `running` itself */
	at.skip_memory_check = 1; /* `running` is held to the KV cache by the caller */
	at.want_interval = 0;
	at.power_cap_w = 0.0;
	at.open_loop_max = at.serving_w = 0.0;
	memset(at.cap_span, 0, sizeof at.cap_span);
	wc_power pw = { NAN, NAN, NAN, NAN };
	int rc = headline_power(pr, &at, &pw, &p, err); /* its draw while serving, as the limit judges it */
	*may = rc == WC_OK && over_limit(p, info);
	return rc;
}

/* Full load for q's open-loop answer `out`: q over what any clock serves,
 * so the engine's or the KV cache's limit runs (docs/capacity.md, "The
 * board's power limit"), its clock left to the caller. */
static wc_inference_query
full_load(const wc_inference_query *q, const wc_capacity_prediction *out)
{
	wc_inference_query full = *q;
	full.config.request_rate = fmin(2.0 * out->capacity_rate, WC_CAPACITY_MAX_RATE);
	full.want_interval = 0;
	full.board_limit_w = 0.0;
	return full;
}

int
wc_predict_cap_unbound(const wc_predictor *pr, const wc_inference_query *q, const wc_capacity_prediction *top,
                       double *cap_w, wc_error *err)
{
	const wc_platform_info *info = wc_predict_board(wc_predictor_params(pr), q->config.platform);
	int rc = WC_OK;
	*cap_w = top->steady_power_w / q->config.tp;
	/* An open loop's cap is held at full load too
	 * (wc_predict_capacity_sustained), against full load's draw at the
	 * free clock: a cap under it settles full load lower and can leave
	 * the rate over capacity. */
	if (top->open_loop && isfinite(top->capacity_rate) && top->capacity_rate > 0.0) {
		wc_inference_query full = full_load(q, top);
		wc_capacity_prediction *cap = malloc(sizeof *cap); /* on the heap: small handler stacks */
		double p_full = NAN;
		if (!cap)
			return wc_error_set(err, WC_ENOMEM, "power_cap_w: out of memory");
		if ((rc = power_at(pr, &full, 0.0, cap, &p_full, err)) == WC_OK)
			*cap_w = fmax(*cap_w, p_full);
		free(cap);
	}
	/* Above the board's limit a cap is answered as none: the limit holds
	 * first, and binds as a cap at it does. */
	if (rc == WC_OK && info && info->max_power_w > 0.0)
		*cap_w = fmin(*cap_w, info->max_power_w);
	return rc;
}

/* A cap that leaves an open loop over capacity answers it at capacity,
 * busy all the time, which can draw more than the loop does with no cap
 * (docs/capacity.md, "Clocks and power caps": the cap is held at the
 * clock full load's draw meets it, where the rate asked is not served).
 * Said in `out`, naming power_cap_w, against the answer with no cap (the
 * board's limit alone settling the clock), when that serves the rate. */
static int
note_cap_saturates(const wc_predictor *pr, const wc_inference_query *q, wc_capacity_prediction *out, wc_error *err)
{
	if (!(q->power_cap_w > 0.0) || !out->open_loop || !out->over_capacity || !(q->config.sm_clock_mhz > 0.0))
		return WC_OK;
	wc_inference_query free_q = *q;
	free_q.power_cap_w = 0.0;
	free_q.config.sm_clock_mhz = 0.0; /* a cap excludes a lock: the clock asked was free */
	free_q.want_interval = 0;
	wc_capacity_prediction *free_cap = malloc(sizeof *free_cap); /* on the heap: small handler stacks */
	if (!free_cap)
		return wc_error_set(err, WC_ENOMEM, "power_cap_w: out of memory");
	int rc = wc_predict_settle_clock(pr, &free_q, err);
	if (rc == WC_OK)
		rc = wc_predict_capacity_settled(pr, &free_q, NAN, NAN, free_cap, err);
	const double p_cap = out->value[WC_CAPQ_POWER], p_free = rc == WC_OK ? free_cap->value[WC_CAPQ_POWER] : NAN;
	if (rc == WC_OK && !free_cap->over_capacity && p_cap > p_free * (1.0 + 1e-9))
		/* kept short: a flexibility step prefixes its clock, and a run of
		 * steps gives each number as a range */
		WC_WARN(out, "power_cap_w: under the cap the loop draws %.1f W per node, %.1f W more than with none "
		        "(%.1f W): at %.0f MHz, its clock at full load, %.4g of the %g requests/s are served; it "
		        "saturates (docs/capacity.md)", p_cap, p_cap - p_free, p_free, q->config.sm_clock_mhz,
		        out->capacity_rate, q->config.request_rate);
	free(free_cap);
	return rc;
}

/* The clock q's answer was asked at, before a cap or the board's limit
 * settled it: a clock the user locked stays, a settled one is free again
 * (a cap excludes a lock; a lock the limit lowered is taken as free, the
 * limit holding first). */
static double
asked_clock(const wc_inference_query *q)
{
	const int locked = q->config.sm_clock_mhz > 0.0 && !(q->power_cap_w > 0.0) && !(q->board_limit_w > 0.0);
	return locked ? q->config.sm_clock_mhz : 0.0;
}

int
wc_predict_capacity_sustained(const wc_predictor *pr, wc_inference_query *q, wc_capacity_prediction *out,
                              wc_error *err)
{
	/* A clock settled under a cap or the board's limit, or the free
	 * clock, is settled again at full load; a clock the user locked stays
	 * unless the board's limit at full load lowers it, since the limit
	 * holds first (a lock at the top clock is the free clock). */
	if (!out->open_loop || !isfinite(out->capacity_rate) || !(out->capacity_rate > 0.0))
		return WC_OK;
	wc_inference_query full = full_load(q, out);
	wc_capacity_prediction *cap = malloc(sizeof *cap); /* on the heap: small handler stacks */
	int rc;
	if (!cap)
		return wc_error_set(err, WC_ENOMEM, "rate: out of memory");
	full.config.sm_clock_mhz = asked_clock(q);
	rc = q->power_cap_w > 0.0 ? wc_predict_power_cap(pr, &full, q->power_cap_w, &full.config.sm_clock_mhz, err)
	                          : WC_OK;
	if (rc == WC_OK)
		rc = wc_predict_board_limit(pr, &full, err);
	if (rc == WC_OK && full.config.sm_clock_mhz != q->config.sm_clock_mhz &&
	    (rc = wc_predict_capacity(pr, &full, NAN, NAN, cap, err)) == WC_OK && isfinite(cap->capacity_rate)) {
		out->capacity_rate = cap->capacity_rate;
		/* A rate over that capacity is over capacity, though the lighter
		 * load's higher clock would serve it: queued, the load becomes
		 * the full one and the clock settles at full load's. Its answers
		 * are those at capacity there, as at any rate over capacity
		 * (docs/capacity.md, "The board's power limit"). */
		if (!out->over_capacity && q->config.request_rate > cap->capacity_rate) {
			q->config.sm_clock_mhz = full.config.sm_clock_mhz;
			q->board_limit_w = full.board_limit_w;
			q->board_free_w = full.board_free_w;
			rc = wc_predict_capacity(pr, q, out->price_per_kwh, out->grams_co2_per_kwh, out, err);
		}
	}
	free(cap);
	return rc == WC_OK ? note_cap_saturates(pr, q, out, err) : rc;
}

int
wc_predict_settle_clock(const wc_predictor *pr, wc_inference_query *q, wc_error *err)
{
	int rc = wc_predict_clock_check(wc_predictor_params(pr), &q->config, err);
	if (rc == WC_OK && q->power_cap_w > 0.0)
		rc = wc_predict_power_cap(pr, q, q->power_cap_w, &q->config.sm_clock_mhz, err);
	return rc == WC_OK ? wc_predict_board_limit(pr, q, err) : rc;
}

int
wc_predict_capacity_settled(const wc_predictor *pr, wc_inference_query *q, double price_per_kwh,
                            double grams_co2_per_kwh, wc_capacity_prediction *out, wc_error *err)
{
	int rc = wc_predict_capacity(pr, q, price_per_kwh, grams_co2_per_kwh, out, err);
	return rc == WC_OK ? wc_predict_capacity_sustained(pr, q, out, err) : rc;
}

int
wc_predict_capacity_at_rate(const wc_predictor *pr, const wc_inference_query *q, double rate,
                            wc_capacity_prediction *out, wc_error *err)
{
	wc_inference_query *at = malloc(sizeof *at); /* on the heap: small handler stacks */
	int rc;
	if (!at)
		return wc_error_set(err, WC_ENOMEM, "rate: out of memory");
	*at = *q;
	at->config.request_rate = rate;
	at->config.sm_clock_mhz = asked_clock(q);
	at->board_limit_w = 0.0;
	at->board_free_w = NAN;
	at->want_interval = 0;
	if ((rc = wc_predict_settle_clock(pr, at, err)) == WC_OK)
		rc = wc_predict_capacity_settled(pr, at, NAN, NAN, out, err);
	free(at);
	return rc;
}

void
wc_predict_take_running(wc_inference_query *q, const wc_capacity_prediction *cap)
{
	q->config.running = cap->value[WC_CAPQ_RUNNING];
	const int arrivals = cap->open_loop && !cap->over_capacity;
	const double n = cap->value[WC_CAPQ_RUNNING];
	q->open_loop_max = arrivals ? cap->running_max : 0.0;
	/* a closed loop below one running serves a share of its time too */
	q->serving_w = arrivals || wc_load_serving_count(n) != n ? cap->steady_power_w : 0.0;
	wc__capacity_both_spans(cap, q->cap_span);
}

const wc_platform_info *
wc_predict_board(const wc_params *p, const char *platform)
{
	const wc_level *lvl = p && platform ? wc_params_level(p, platform) : NULL;
	return platform ? wc_platform_board(platform, lvl && lvl->s_shared_with[0] ? lvl->s_shared_with : NULL) : NULL;
}
