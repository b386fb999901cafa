/*
 * Private to trace/: the uniform grid a fine-tuning trace is analysed on
 * and the marks put on it (finetune_grid.c), shared with the step
 * counting (finetune_steps.c, finetune_bursts.c).
 */
#ifndef WC_TRACE_FINETUNE_INTERNAL_H
#define WC_TRACE_FINETUNE_INTERNAL_H

#include "trace/finetune_trace.h"

/* What a grid bin is. */
enum {
	FT_ACTIVE = 0,   /* training */
	FT_OUTSIDE,      /* before or after the training window */
	FT_SAVE,         /* near-idle pause (checkpoint save) */
	FT_MIDLEVEL,     /* intermediate power (evaluation, warm-up, stall) */
	FT_LOGGED,       /* a save or evaluation the step log states */
	FT_WARMUP,       /* a slow leading step (step times only) */
	FT_UNLOGGED,     /* a step row's time beyond a median step, when far longer */
	FT_GAP           /* a gap of the power log: a line across it, no measured power */
};

typedef struct {
	const double *t, *p;   /* the raw trace */
	size_t n;
	double t0, dt;         /* bin k covers [t0 + k dt, t0 + (k+1) dt) */
	size_t nb;
	double *x;             /* exact mean of the trace over each bin */
	unsigned char *mark;
	size_t k0, k1;         /* the window: bins [k0, k1) */
	double idle_w, train_w, theta;
	int flat;              /* too little contrast to tell pauses apart */
} ft_grid;

/** The grid of the trace, its gaps (wc_ft_steps_info.gaps, may be NULL)
 *  marked FT_GAP and left out of the levels. */
int wc__ft_grid_build(ft_grid *g, const double *t, const double *p, size_t n, const double *gaps, size_t n_gaps,
                      wc_error *err);
void wc__ft_grid_free(ft_grid *g);
/** The next run of bins marked `m` from bin *k within the window: 1 with
 *  it in [*a, *k) (*k its end), 0 when none is left (*k at the window's
 *  end). The one walk over the window's bursts, saves and gaps. */
int wc__ft_next_run(const ft_grid *g, unsigned char m, size_t *k, size_t *a);
/** Bin of time `t`, clamped to the grid. */
size_t wc__ft_bin(const ft_grid *g, double t);
/** Window from the trace: first to last bin above theta, gaps aside (all
 *  when flat). */
void wc__ft_window_from_trace(ft_grid *g);
/** The window's end drawn back to training's end past an evaluation run
 *  after train() (`in->post_eval_s`) that the window holds
 *  (finetune_state_end.c, docs/finetune.md "An evaluation after train()"). */
void wc__ft_window_post_evals(ft_grid *g, const wc_ft_steps_info *in);
/** How the trace shows its power log stopped before the run did: 1
 *  training power at its end with a window short of train_runtime by
 *  more than the period (`out`) is known to, 2 a window more than
 *  WC_FT_COUNT_MAX_DISAGREE short of train_runtime (the log not starting
 *  at training power: one started late); 0 neither (finetune_state_end.c). */
int wc__ft_log_ends_short(const ft_grid *g, const wc_ft_steps_info *in, const wc_ft_steps_result *out);
/** Whether a trainer state's count is refused against what the trace's
 *  period counts with the state's evaluations the log reaches taken out:
 *  a checkpoint's going over by more than WC_FT_COUNT_MAX_DISAGREE (the
 *  run went on after that save), or any going under by more than the
 *  period is known to over a log that ends short (evals_hidden_s set;
 *  finetune_state_end.c). */
int wc__ft_count_refused(const ft_grid *g, const wc_ft_steps_info *in, wc_ft_steps_result *out);
/** Steps in the trace's clear period against the stated count
 *  `in->steps`, each reading with the state's evaluations at training
 *  power out at its own step: k when the count is k >= 2 times the
 *  period's (a period of k steps), -k when a k-th of it (micro-steps), 0
 *  neither (finetune_state_end.c, docs/finetune.md "A stated count
 *  against the trace"). */
int wc__ft_period_steps(const ft_grid *g, const wc_ft_steps_info *in, const wc_ft_steps_result *out);
/** Whether a checkpoint's state is left behind by a run that went on:
 *  the period's count `traced` over WC_FT_COUNT_MAX_DISAGREE more than its
 *  global_step, and not past max_steps (finetune_state_end.c). */
int wc__ft_went_on(const ft_grid *g, const wc_ft_steps_info *in, const wc_ft_steps_result *out, double traced);
/** Whether `times` (a count over another, or a period over a step) is a
 *  whole multiple of 2 or more to what the period is known (`known`);
 *  `told`: one the period can tell from its neighbours
 *  (finetune_state_end.c). */
int wc__ft_is_multiple(double times, double known, int told);
/** The step the trace's period reads: the period over the steps it
 *  holds (out->period_steps), or times the periods a step holds. */
static inline double
wc__ft_period_step_s(const wc_ft_steps_result *out)
{
	return out->period_steps > 1 ? out->period_s / out->period_steps
	       : out->period_steps < -1 ? out->period_s * -out->period_steps : out->period_s;
}
/** Mark the bins outside [k0, k1) FT_OUTSIDE and those inside FT_ACTIVE,
 *  the power log's gaps left FT_GAP. */
void wc__ft_mark_window(ft_grid *g);
/** Mark the bins whose centre lies in [a, b) with `what` (active bins only). */
void wc__ft_mark_interval(ft_grid *g, double a, double b, unsigned char what);
/** Near-idle runs of at least `min_s` inside the window; returns how many. */
int wc__ft_mark_saves(ft_grid *g, double min_s);
/** Time and energy of the stretch of bins [a, b) that is not training:
 *  the trace between its inner readings, and from them to its edges at
 *  its interior's median (`scratch` b - a long). Integrating the
 *  interpolated trace right up to the edges would hand the stretch part
 *  of the steps' energy beside it (the ramp between the last reading at
 *  one level and the first at the other). A near-idle pause beside a
 *  step ends half-way between those two readings, each side taking half
 *  the interval (finetune_grid.c, docs/finetune.md "Steps under three
 *  samples"); other edges lie on the bins'. */
void wc__ft_stretch(const ft_grid *g, size_t a, size_t b, double *scratch, double *time_s, double *energy_j);
/** Intermediate-power stretches of at least `min_s` (the rolling mean,
 *  or every bin's, over `width_s` below the steps'; with `swing`, also
 *  windows that do not swing as the steps'; finetune_midlevel.c);
 *  returns how many. */
int wc__ft_mark_midlevel(ft_grid *g, double width_s, double min_s, int swing, wc_error *err, int *rc);
/** Dominant period of the window's active bins (`active_only`) or of all
 *  of them; a clearly stronger multiple replaces it. NaN none. `strength`
 *  (may be NULL) receives its autocorrelation; `note` (may be NULL) a
 *  second period the samples fit as well (NaN none), a period under
 *  WC_FT_MIN_SAMPLES_PER_STEP samples they fit better (NaN none) and the
 *  longest divisor of the first period left unsearched past
 *  WC_FT_PERIOD_DIVISORS_MAX (NaN none), in s (docs/finetune.md,
 *  "Counting steps"). */
int wc__ft_period(const ft_grid *g, int active_only, double *out, double *strength, double note[3],
                  size_t *repeat, wc_error *err);
/** Whether `period` s is the cycle of the evaluations the trainer state
 *  lists (one every k steps, k >= 2), not a step: longer than they are,
 *  and the window's active bins hold as many of it as its steps hold
 *  intervals of k, to one (finetune_cycle.c, docs/finetune.md
 *  "Evaluations a trainer state lists"). */
int wc__ft_eval_cycle(const ft_grid *g, const wc_ft_steps_info *in, double period);
/** Whether `period` s is longer than two steps of a stated count (the
 *  manifest's, or --steps): over twice the window's active time per step,
 *  a cycle of several steps, not one (finetune_cycle.c, docs/finetune.md
 *  "What is not training"). */
int wc__ft_stated_cycle(const ft_grid *g, const wc_ft_steps_info *in, double period);
/** Whether `period` s, with no count known, is the cycle of `n`
 *  intermediate stretches found at the default step: they number the
 *  window's active time over it, to one (finetune_cycle.c,
 *  docs/finetune.md "What is not training"). */
int wc__ft_midlevel_cycle(const ft_grid *g, const wc_ft_steps_info *in, double period, int n);
/** Whether the clear periods of two quarters of the window's active time
 *  differ beyond what each is known to, no whole multiple of each other:
 *  the step time changed during the run, and no one period counts or
 *  checks its steps; `parts` receives them, the earlier first (NaN else).
 *  0 no, 1 yes, < 0 an error (finetune_period.c, docs/finetune.md
 *  "Counting steps"). */
int wc__ft_period_drift(const ft_grid *g, double parts[2], wc_error *err);
/** The longest multiple of the period that may replace it, and that a
 *  stated count is read as (wc__ft_period_steps). */
#define WC_FT_PERIOD_MULTIPLE_MAX 8
/** Cycles of the period per fold window: enough for steps out of step to
 *  show, few enough to bound the search's work. */
#define WC_FT_FOLD_CYCLES 16.0

/* train_runtime shorter than global_step steps at the trace's period by
 * more than this share: it holds only the last session (a choice of
 * wattcast, the window check's 10 %). */
#define FT_RUNTIME_TOL 0.1
/** How far off its eval_runtime a near-idle pause `pause_s` long may be
 *  and still be that evaluation alone (WC_FT_EVAL_SETUP_SHARE;
 *  finetune_state.c). */
double wc__ft_setup_slack(double pause_s);
/** The steps train_runtime holds at steps of `step_s`: less the listed
 *  evaluations and the saves (at the trace's length, where it shows them
 *  apart) that fall inside the last session, whose first step follows a
 *  checkpoint's save; `shortest`: each evaluation at the shortest pause
 *  its eval_runtime may be (wc__ft_setup_slack), the most steps it may
 *  hold (finetune_session.c, docs/finetune.md "A resumed run in a
 *  trainer state"). */
double wc__ft_session_steps(const ft_grid *g, const wc_ft_steps_info *in, double step_s, int shortest);
/** The greatest common divisor of a and b. */
size_t wc__ft_gcd(size_t a, size_t b);
/** Steps the samples fold into more simply than the counted `period`
 *  (docs/finetune.md, "Counting steps"): the samples repeat every `repeat`
 *  (from wc__ft_period), and steps of repeat / j samples draw them too;
 *  the up to WC_FT_ALIASES whose folds' class means draw a shorter string
 *  than the period's and whose own repeat the samples keep, shortest
 *  first, in s (NaN after); finetune_alias.c. Returns how many, -1 out of
 *  memory. */
int wc__ft_period_aliases(const ft_grid *g, double period, size_t repeat, double alias[WC_FT_ALIASES]);
/** Whether a step (or period) of `step_s` spans at least
 *  WC_FT_MIN_SAMPLES_PER_STEP of the grid's samples. */
static inline int
wc__ft_resolved(const ft_grid *g, double step_s)
{
	return step_s >= WC_FT_MIN_SAMPLES_PER_STEP * g->dt;
}
/** Trapezoidal energy of the raw trace over [a, b], interpolated at the ends. */
double wc__ft_energy_between(const ft_grid *g, double a, double b);

/** Near-idle pauses that recur once per step, put back in the steps or,
 *  by the trace alone, left out as a save after every step
 *  (finetune_pauses.c, docs/finetune.md "Counting steps"). */
typedef struct {
	int n;                 /* such pauses; 0 none */
	int found;             /* the near-idle pauses weighed against the steps */
	int trace_only;        /* judged by the trace alone (no trainer state's save count) */
	int cut;               /* trace alone: left out as saves after every step, and said */
	int each_step;         /* left out as a save after every step (save_steps 1, or by the
	                        * trace alone pauses longer than the bursts between them) */
	double len_s, burst_s, cycle_s; /* median pause, burst between, spacing, s */
	double energy_j;       /* their energy, J */
	double steps, expected; /* the steps run the pauses were weighed against, and the
	                         * trainer state's implied saves */
} ft_recur;

/** A clear period: a strong autocorrelation peak at least
 *  WC_FT_MIN_SAMPLES_PER_STEP samples long. */
int wc__ft_period_clear(const ft_grid *g, double period, double acf, size_t repeat);
/** Mark the pauses (near-idle, intermediate); `hint` is the median step of
 *  step times or NaN; `rec` receives the recurring pauses. */
int wc__ft_mark_pauses(ft_grid *g, double hint, const wc_ft_steps_info *in, wc_ft_steps_result *out, ft_recur *rec,
                       wc_error *err);
/** Say what `rec` decided, with the energy per step the other reading gives. */
void wc__ft_recur_warn(const ft_recur *rec, const wc_ft_steps_info *in, wc_ft_steps_result *out);

/** Whether the gap of bins [a, b) lies between training power on both
 *  sides: the job ran steps while the logger was stopped
 *  (finetune_gaps.c). */
int wc__ft_gap_trained(const ft_grid *g, size_t a, size_t b);
/** The power log's gaps inside the window without step times, said in a
 *  warning; returns the steps a stated count is taken to have run in them
 *  (those between training power on both sides, at a clear period; 0
 *  else), which it does not charge (finetune_gaps.c). */
double wc__ft_gap_steps(const ft_grid *g, const wc_ft_steps_info *in, wc_ft_steps_result *out);

/** The active stretches between pauses of the window (finetune_bursts.c). */
typedef struct {
	size_t n;              /* bursts */
	size_t warm;           /* leading ones over twice the median, at most a quarter */
	double median_s;       /* median length of the others, s; NaN with fewer than 3 */
	double spread;         /* their standard deviation over their mean */
	int regular;           /* the others are one step each: spread under 25 %,
	                        * median at most WC_FT_BURST_MAX_S and under 1.5 periods */
} ft_bursts;

int wc__ft_bursts(ft_grid *g, double period, ft_bursts *b, wc_error *err);
/** Mark the leading `b->warm` bursts as warm-up. */
void wc__ft_bursts_mark_warmup(ft_grid *g, const ft_bursts *b);

/** A trainer state's resume (log_history going back, or train_runtime
 *  too short for global_step steps at the trace's period) and its
 *  evaluations, taken out of the window where the trace shows them
 *  (finetune_state.c, docs/finetune.md "Evaluations a trainer state
 *  lists"). */
int wc__ft_trainer_evals(ft_grid *g, const wc_ft_steps_info *in, wc_ft_steps_result *out, wc_error *err);
/** Whether a save follows the trainer state's evaluation i
 *  (finetune_schedule.c). */
int wc__ft_save_follows(const wc_ft_steps_info *in, size_t i);
/** The saves of a trainer state `st` read from run folder `dir`: its
 *  save_steps where the evaluations log_history lists and the
 *  checkpoint-N/ folders agree with its intervals, else the saves after
 *  evaluations those show (`saved`, n_evals long, becomes eval_saved);
 *  sets save_steps, eval_saved, expected_saves, trailing_save and
 *  trailing_eval_s (docs/finetune.md, "Evaluations a trainer state
 *  lists"). */
void wc__ft_state_schedule(const char *dir, const wc_trainer_state *st, wc_ft_steps_info *in, unsigned char *saved);
/** The warnings of the saves found against the trainer state's, of the
 *  window against train_runtime, and of a window mostly left out. */
void wc__ft_cross_checks(const ft_grid *g, const wc_ft_steps_info *in, wc_ft_steps_result *out);

/** Append the row of one fine-tuning run with its extra columns
 *  (finetune_row.c); warnings also go to opt->warn. */
int wc__ft_make_row(const char *dir, const wc_ft_run *run, const wc_ft_steps_result *r,
                    size_t bad_lines, const wc_ingest_options *opt, wc_ft_table *table,
                    wc_error *err);

/* The steps' clock (finetune_clock.c): the window's active bins, in
 * order, and prefix sums over the grid for the mean power and the active
 * count of a span. */
typedef struct {
	size_t *act, na; /* the clock's bins: active ones and those of gaps the job
	                  * trained through (wc__ft_gap_trained) */
	double *sum_x;   /* sum of x over bins [k0, k) at k - k0 */
	size_t *sum_a;   /* the clock's bins among them */
	size_t *sum_p;   /* active bins among them (a gap's hold no reading to place) */
} ft_clock;

/** Whether the evaluations with a save after them (state 1, shown, not
 *  `first` or `last`) started at training power, the save's pause after
 *  them: then their state becomes 0 (finetune_adjacent.c). */
int wc__ft_start_adjacent(const ft_grid *g, const ft_clock *c, const wc_ft_steps_info *in,
                          const wc_ft_steps_result *out, unsigned char *state, size_t first, size_t last);

int wc__ft_clock_build(const ft_grid *g, ft_clock *c);
void wc__ft_clock_free(ft_clock *c);
/** The grid bin where `tau` s of active time have passed. */
size_t wc__ft_clock_bin(const ft_grid *g, const ft_clock *c, double tau);
/** A pause the trace found of at least half of `len` s starting within
 *  `tol` s of active time of `tau`, not `taken`: its first bin, else
 *  (size_t)-1. */
size_t wc__ft_found_pause(const ft_grid *g, const ft_clock *c, double tau, double len, double tol, size_t taken);
/** The stretch of `nr` active bins starting within `tol` s of bin kb with
 *  the lowest mean power, clear of [prev[0], prev[1]): its first bin, else
 *  (size_t)-1 (`tol` 0: kb itself, when free). */
size_t wc__ft_lowest_stretch(const ft_grid *g, const ft_clock *c, size_t kb, size_t nr, double tol,
                             const size_t prev[2]);
/** Where an evaluation of `len` s placed at `tau` on the steps' clock
 *  starts when its save came first: the end of the pause starting nearer
 *  `tau` than `tau` + `len`, within half of `len`; else (size_t)-1. */
size_t wc__ft_save_before(const ft_grid *g, const ft_clock *c, double tau, double len);
/** Where it starts when its save follows it (the Trainer's order): `nr`
 *  bins before the pause starting nearer `tau` + `len` than `tau`, within
 *  half of `len`; else (size_t)-1. */
size_t wc__ft_save_after(const ft_grid *g, const ft_clock *c, double tau, double len, size_t nr);

/** The averaging window of a fine-tuning trace read from `column` of run
 *  folder `dir`'s power.csv (its GPU name, else `platform`, tells whether
 *  power.draw is averaged): WC_FT_AVERAGE_WINDOW_S, its name for messages
 *  into `what`; 0 and "" for instantaneous readings (finetune_power.c). */
double wc__ft_power_averaged(const char *column, const char *dir, const char *platform, char *what, size_t cap);
/** Say that averaged power smears the steps next to the pauses into them
 *  (when `out->step_s` is under WC_FT_AVERAGE_MIN_WINDOWS windows), with
 *  the share of steps next to a pause -- the window's, plus `recurring`
 *  put back in the steps -- and the error it bounds (finetune_power.c). */
void wc__ft_averaged_warn(const ft_grid *g, const wc_ft_steps_info *in, int recurring, wc_ft_steps_result *out);
/** Say the bound on energy per step of instantaneous samples slower than
 *  100 ms over steps of `step_s` (the step log's median, else the row's),
 *  when it passes WC_FT_SAMPLED_MAX_ERR (finetune_power.c). */
void wc__ft_sampled_warn(const ft_grid *g, const wc_ft_steps_info *in, double step_s, wc_ft_steps_result *out);
/** The averaged column's name for messages: `in`'s, else power.draw.average. */
const char *wc__ft_averaged_what(const wc_ft_steps_info *in);
/** What a refusal of an unresolved trace advises besides a step log, ending
 *  in " or ": the instantaneous column when averaged, faster logging when
 *  slower than 100 ms, else "" (a step log is all that helps). */
const char *wc__ft_faster_advice(const wc_ft_steps_info *in, double dt, char *buf, size_t cap);
/** The step-times remedy a refusal ends in: steps.csv, trainer_state.json
 *  or finetune.steps, saying so when the given steps.csv holds no step row
 *  (static text, finetune_power.c). */
const char *wc__ft_step_times_remedy(const wc_ft_steps_info *in);

/* How the step log's rows became steps, for the warnings
 * (docs/finetune.md, "Counting steps"). */
typedef struct {
	size_t repeats;               /* rows repeating the step before them */
	int repeat_line;              /* the first such */
	double repeat_lag_s;          /* the latest after the step's first row */
	size_t gaps;                  /* rows ending more than one step */
	int gap_line, gap_max;        /* the first such, the largest gap */
	size_t pause_repeats;         /* start, save or eval rows repeating one since the step */
	int pause_repeat_line;        /* the first such */
	size_t resumes;               /* step numbers going back */
	int resume_line, resume_from, resume_to; /* the first such */
	size_t leads;                 /* save or eval rows ending steps after the step row before */
	int lead_line;                /* the first such */
	double lead_step_s;           /* the median step their steps are timed at; NaN none */
} ft_log_notes;

/** Median duration of one optimizer step of the step log's rows, each
 *  from its start (the row before it, or a logged pause's end) over the
 *  steps it ends; `scratch` n_step_end long; NaN with none
 *  (finetune_steps.c). */
double wc__ft_median_step(const wc_ft_steps_info *in, double *scratch);
/** Start of step row i: the end of the row before it or of a logged
 *  pause, else `median` per optimizer step before its end
 *  (finetune_steps.c). */
double wc__ft_step_start(const wc_ft_steps_info *in, size_t i, double median);

/** The step log `l`'s steps and stated pauses into `in` (arrays into
 *  `buf`, 6 n doubles, and `lines`, `resumed`, `restarts`, n each), how
 *  its rows became them into `notes` (finetune_log.c). */
void wc__ft_log_walk(const wc_step_log *l, wc_ft_steps_info *in, double *buf, int *lines, unsigned char *resumed,
                     unsigned char *restarts, ft_log_notes *notes);
/** A row ending several steps, each far shorter than the log's median
 *  step: a mistyped step number, refused at `path`:line:column of `l`'s
 *  step cell; `scratch` in->n_step_end long (finetune_log.c). */
int wc__ft_log_typos(const wc_step_log *l, const char *path, const wc_ft_steps_info *in, double *scratch,
                     wc_error *err);
/** One warning each for rows that are not one step or pause each. */
void wc__ft_log_warnings(const ft_log_notes *n, wc_ft_steps_result *res);

/** A stated count (`in->steps`) against the trace's clear period: refused
 *  where the trace clearly ran other steps than it says, else warned beyond
 *  what the period is known to (finetune_stated.c). */
int wc__ft_stated_vs_period(const ft_grid *g, const wc_ft_steps_info *in, wc_ft_steps_result *out, wc_error *err);
/** Steps (out->steps over out->active_s) shorter than any optimizer step,
 *  WC_FT_MIN_STEP_S: refused at `file`, `what` the count's words before
 *  the step time, `remedy` after (finetune_stated.c). One rule for a
 *  stated count and a step log's. */
int wc__ft_steps_too_short(const wc_ft_steps_result *out, const char *file, const char *what, const char *remedy,
                           wc_error *err);
/** A step log counting a whole multiple (k >= 2) of the steps the
 *  trace's clear period counts: its rows may number micro-steps or
 *  samples, said, with a trainer state beside it that agrees with the
 *  period (finetune_stated.c, docs/finetune.md "A step log against the
 *  trace"). */
void wc__ft_log_vs_period(const ft_grid *g, const wc_ft_steps_info *in, wc_ft_steps_result *out);

#endif
