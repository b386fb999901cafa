/*
 * How a GPU's power follows its load in time (docs/envelopes.md,
 * "Power"): the parameters of the response -- a first-order time
 * constant, a hold of the busy level over short idle gaps, and the extra
 * power while a prefill runs -- as a section of the parameter file, and
 * the kernel that turns engine activity into power on a regular grid.
 * The kernel is shared by the envelope simulation (predict/) and the
 * response fit (fit/), so a fitted response means the same thing in both.
 *
 * Ownership: the section is a plain value (copy with `=`). The grid
 * functions write into arrays the caller owns; nothing allocates.
 */
#ifndef WC_MODELS_RESPONSE_H
#define WC_MODELS_RESPONSE_H

#include <stddef.h>

#include "models/error.h"
#include "models/law.h"
#include "models/record.h"

#ifdef __cplusplus
extern "C" {
#endif

/* -------------------------------------------------- the section */

/** One value of the section with its 95 % interval (NaN = none). */
typedef struct {
	double value, lo, hi;
} wc_response_value;

#define WC_RESPONSE_MAX_LEVELS 16
#define WC_RESPONSE_NAME_MAX 48

/** The time constant of one platform level where it differs from the
 *  shared one (how a platform's power meter averages: an H100 reports a
 *  smoother power.draw than an A100). */
typedef struct {
	char level[WC_RESPONSE_NAME_MAX];
	wc_response_value tau_s;
	int runs;
} wc_response_level;

/** The response section of a parameter set (docs/formats/params-file.md). */
typedef struct {
	int present;      /* 0: the set states no response (the assumed one applies) */
	int fitted;       /* 1: estimated by `wattcast fit response`; 0: assumed */
	wc_response_value tau_s;         /* first-order time constant, s (shared) */
	wc_response_value hold_s;        /* busy level kept over idle gaps, s */
	wc_response_value decay_s;       /* after the hold, the busy level decays
	                                  * with this time constant, s (0 = drops
	                                  * at once; absent in older files) */
	wc_response_value prefill_ratio; /* prefill increment / dynamic power at n = 32 */
	wc_response_value dynamic_scale; /* share of the law's dynamic power the map keeps
	                                  * beside the prefill increment (pooled over the
	                                  * fit's runs); 1 when absent (older files) */
	int runs;         /* runs behind a fit (0 = none) */
	double rms_w;     /* RMS residual of the fit per GPU sample, W (NaN = none) */
	int n_levels;     /* per-level time constants */
	wc_response_level levels[WC_RESPONSE_MAX_LEVELS];
	/* how `fit response` made it (schema 10): the run folders, seed,
	 * replicates, tool and time (its runs are `runs` above), and the bound
	 * of hold_s and decay_s it used, s (0 = not recorded) */
	wc_record record;
	double linger_bound_s;
} wc_response_params;

/** Load at which the prefill increment is expressed: the law's dynamic
 *  power at its reference load n = 32 (WC_LAW_REF_RUNNING). */
#define WC_RESPONSE_PREFILL_REF_RUNNING WC_LAW_REF_RUNNING

/** Assumed values when a parameter set states no response (docs/envelopes.md,
 *  "Assumed response"): neither published nor fitted. */
#define WC_RESPONSE_ASSUMED_TAU_S 0.05
#define WC_RESPONSE_ASSUMED_HOLD_S 0.1
#define WC_RESPONSE_ASSUMED_PREFILL_RATIO 0.5
#define WC_RESPONSE_ASSUMED_DECAY_S 0.0

/** Bounds a stored or fitted response must respect. */
/** The fit's floor, in log seconds (or log ratio): below it a hold,
 *  decay or ratio behaves as zero on a 50 ms grid (fit/response.c). */
#define WC_RESPONSE_LOG_MIN (-9.0)
#define WC_RESPONSE_MAX_TAU_S 60.0
#define WC_RESPONSE_MAX_HOLD_S 60.0
#define WC_RESPONSE_MAX_DECAY_S 60.0
#define WC_RESPONSE_MAX_PREFILL_RATIO 10.0
#define WC_RESPONSE_MAX_DYNAMIC_SCALE 4.0

/** The assumed response (present = 1, fitted = 0, no intervals). */
void wc_response_assumed(wc_response_params *out);
/** `p` when it is present, else the assumed response. */
void wc_response_effective(const wc_response_params *p, wc_response_params *out);
/** The time constant for platform level `level`: its own when the
 *  section has one, else the shared one. */
double wc_response_tau_for(const wc_response_params *p, const char *level);
/** The dynamic scale to apply: the section's when positive, else 1. */
double wc_response_dynamic_scale(const wc_response_params *p);
/** Values finite and within the bounds above; the message names the key
 *  ("response/tau_s: ..."). */
int wc_response_validate(const wc_response_params *p, wc_error *err);
struct wc_params;
/** Each of the section's levels names a level of `set` or a platform the
 *  catalog knows (an envelope answers a board without a level from its
 *  datasheet); the message names "response/levels/N/level". */
int wc_response_validate_levels(const wc_response_params *p, const struct wc_params *set, wc_error *err);
/** How many of a fitted response's values ended at their upper bound (the
 *  fit clamps there); `buf` gets one note naming them ("decay_s 60 s: ended
 *  at its upper bound, ..."), "" when none or the response is not fitted. */
int wc_response_bound_note(const wc_response_params *p, char *buf, size_t cap);

/* ------------------------------------------------------- the kernel */

/** A regular grid of `len` bins of `dt` seconds from t = 0, accumulating
 *  integrals over each bin: per-GPU power above nothing (W*s), running
 *  requests (requests*s), prefill time (s) and the loaded time (`loaded`,
 *  s): each busy moment's share the boards work (wc_load_busy_share of
 *  its count: all of it from one request on) and the idle time the hold
 *  and the decay keep above P0 (idle by the engine's count, not by the
 *  power). Recorded as the segments come, at their own resolution, not
 *  the bins': a bin where n changes from 32 to 0 halfway is half loaded
 *  though its mean count is 16 (docs/intervals.md, "Physical ceiling").
 *  `running`, `prefill` and `loaded` may be NULL. Several servers may add
 *  into one grid (a fleet). */
typedef struct {
	double dt;
	size_t len;
	double *power;
	double *running;
	double *prefill;
	double *loaded;
} wc_response_grid;

/** One server's state while its activity is added to a grid: the power
 *  mapping's constants and what the hold needs. Start with
 *  wc_response_state_init. */
typedef struct {
	double idle_w;      /* P0 per GPU, W */
	double prefill_w;   /* extra per-GPU power while prefilling, W */
	double hold_s;      /* busy level kept this long after the engine empties */
	double decay_s;     /* then decaying with this time constant (0: none) */
	double t_last;      /* end of the last busy segment added */
	double held_w;      /* dynamic power of that segment, W per GPU */
	double level_w;     /* > 0: a prefill draws this level above P0, the
	                     * increment max(0, level_w - dynamic) replacing
	                     * prefill_w (a prefill-aware law's A); 0: prefill_w */
	double count_from, count_to; /* the hold is counted within [from, to) */
	double held_time_s;   /* idle time the hold kept at a busy level, s */
	double held_energy_ws; /* the dynamic energy it kept there, W*s per GPU */
} wc_response_state;

/** No prefill level (wc_response_state_level sets one). */
void wc_response_state_init(wc_response_state *s, double idle_w, double prefill_w, double hold_s);
/** After the hold, the held level decays as exp(-t / decay_s) instead of
 *  dropping to idle at once (docs/envelopes.md, "Hold and decay"); 0 (the
 *  default of wc_response_state_init) drops at once. */
void wc_response_state_decay(wc_response_state *s, double decay_s);
/** Count the hold's time and dynamic energy (held_time_s, held_energy_ws)
 *  only within [from, to): an envelope's horizon after its warm-up. What
 *  the hold adds over idle gaps is then known from the run itself, with no
 *  second run at hold 0 (docs/envelopes.md, "Assumed response"). The
 *  default of wc_response_state_init counts everything. */
void wc_response_state_count(wc_response_state *s, double from, double to);
/** A state-dependent prefill increment max(0, level_w - dynamic) when
 *  level_w > 0, else the constant prefill_w (docs/envelopes.md, "Power"). */
void wc_response_state_level(wc_response_state *s, double level_w);

/** The board's power limit on a target grid (W per bin, `len` bins of
 *  `dt`): every mean over `window_s` (whole bins) stays <= `limit_w`
 *  (docs/envelopes.md, "Board limit"). A bin at most the limit is kept;
 *  a bin above it -- a short burst -- keeps what the quieter bins of
 *  every window holding it leave, so a sustained overload is held at the
 *  limit and no bin falls below min(target, limit_w). The first-order
 *  response of the result keeps every window mean <= limit_w too (a mean
 *  of window means). A window is at most 64 bins. In place; INFINITY or
 *  NaN limit: unchanged. */
void wc_response_limit(double *target, size_t len, double dt, double window_s, double limit_w);

/** Add a busy segment [t0, t1) of one server: `running` requests in the
 *  engine (> 0), dynamic power `dynamic_w` per GPU above P0, and a share
 *  `prefill_frac` in [0, 1] of the time spent prefilling. A gap since the
 *  previous segment is idle except for its first `hold_s` seconds, which
 *  stay at the previous segment's dynamic power (the hold), and what
 *  follows them, which decays from it with time constant `decay_s`. Segments are
 *  added in time order; parts outside the grid are dropped. Idle power
 *  itself is not added here (wc_response_finish adds it). */
void wc_response_add(const wc_response_grid *g, wc_response_state *s, double t0, double t1,
                     double running, double dynamic_w, double prefill_frac);

/** Close the server's activity at `t_end` (the hold of a last gap), and
 *  add its idle power P0 over the whole grid. */
void wc_response_finish(const wc_response_grid *g, wc_response_state *s, double t_end);

/** The first-order response to a target that is constant within each bin
 *  (`target[k]`, W): out[k] is the exact mean of the response over bin k,
 *  starting from `y0` at t = 0; returns the value at the end of the last
 *  bin. tau = 0 follows the target exactly. `out` may equal `target`. */
double wc_response_filter(const double *target, size_t len, double dt, double tau, double y0,
                          double *out);

#ifdef __cplusplus
}
#endif
#endif
