/*
 * Fine-tuning traces (docs/finetune.md, "Measuring energy per step"):
 * energy per optimizer step from a job's power trace (all its GPUs
 * summed), with checkpoint saves, evaluations and warm-up left out -- from
 * a step log when there is one, else detected in the trace -- and
 * `wattcast ingest` of fine-tuning run folders into fine-tuning runs-table
 * rows. Scratch memory is freed before returning.
 */
#ifndef WC_TRACE_FINETUNE_H
#define WC_TRACE_FINETUNE_H

#include <stddef.h>

#include "models/warnings.h"
#include "data/finetune_runs.h"
#include "data/run_manifest.h"
#include "data/step_log.h"
#include "trace/ingest.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Near-idle stretches shorter than this are part of a step, s (a choice
 *  of wattcast, docs/finetune.md). */
#define WC_FT_PAUSE_MIN_S 2.0
/** Without a step log, a step period counts the steps only when its
 *  autocorrelation peak is at least this high (a choice of wattcast). */
#define WC_FT_PERIOD_MIN_ACF 0.4
/** A step period that repeats fewer times than this over the training
 *  is said to be possibly a longer cycle (a choice of wattcast). */
#define WC_FT_PERIOD_MIN_REPEATS 10.0
/** Without a step log, bursts between regular pauses count as one step
 *  each (a save after every step) only up to this length, s; longer ones
 *  may hold steps the trace does not resolve (a choice of wattcast). */
#define WC_FT_BURST_MAX_S 10.0
/** Without step times, a step period is not counted when the training
 *  comes in bursts between pauses shorter than this many periods: the
 *  period is then not timed inside any burst, only across the pauses (a
 *  choice of wattcast, docs/finetune.md). */
#define WC_FT_BURST_MIN_PERIODS 3.0
/** power.draw.average is a mean over this window, s (nvidia-smi's
 *  documentation of the field: the last second), and so is power.draw on
 *  boards newer than the A100 (NVML's nvmlDeviceGetPowerUsage;
 *  wc_platform_power_draw_averaged). */
#define WC_FT_AVERAGE_WINDOW_S 1.0
/** The cadence `nvidia-smi -lms 100` logs at, s, and the spread of its
 *  spacing taken as that cadence: a log this fast is not told to log
 *  faster (a choice of wattcast, docs/finetune.md). */
#define WC_FT_FAST_LOG_S 0.1
#define WC_FT_FAST_LOG_TOL 1.1
/** The share of energy per step that 2-s steps read from 1-s averaged
 *  power with a step count are within (docs/finetune.md, "Instantaneous
 *  samples"): instantaneous samples whose bound passes it are warned. */
#define WC_FT_SAMPLED_MAX_ERR 0.004
/** Steps shorter than this many averaging windows are not resolved by
 *  averaged power: without step times they are not counted from the
 *  trace, with them the row carries a warning (a choice of wattcast,
 *  docs/finetune.md). */
#define WC_FT_AVERAGE_MIN_WINDOWS 3.0
/** A step period, or a burst between saves counted as one step, shorter
 *  than this many samples is not resolved by the trace: the period is not
 *  clear, and the bursts are not counted without step times -- their edge
 *  samples mix step and save (a choice of wattcast, docs/finetune.md). */
#define WC_FT_MIN_SAMPLES_PER_STEP 3.0
/** Steps an aliased trace's samples fit, named at most (docs/finetune.md,
 *  "Counting steps"). */
#define WC_FT_ALIASES 3
/** Bursts between saves counted as steps of fewer samples than this, but
 *  resolved, have edges that fall somewhere between two readings: warned
 *  (-4 to +3 % energy per step for 3-4-s steps read every second, bursts
 *  of 2.9-4.1 s; a choice of wattcast, docs/finetune.md "Steps under three
 *  samples"). */
#define WC_FT_EDGE_SAMPLES_PER_STEP 4.5
/** A stated step count (trainer_state, manifest) and the count from a
 *  clear trace period disagreeing by more than this share are said --
 *  refused when the count is a checkpoint's, whose run may have gone on
 *  after the save, or a trainer state's over a power log the trace shows
 *  short of the run -- one that ends short, by any share beyond what the
 *  period is known to (a choice of wattcast, docs/finetune.md). */
#define WC_FT_COUNT_MAX_DISAGREE 0.2
/** A window within this many s of the power log's start or end: the log
 *  starts or stops while training runs (docs/finetune.md, "A stated count
 *  against the trace"). */
#define WC_FT_LOG_EDGE_S 1.0
/** With step times, a step row lasting more than this many median steps
 *  per step it ends, not leading, holds an unlogged pause (an evaluation
 *  or save without its row): all but a median step of it is left out (a
 *  choice of wattcast, docs/finetune.md). */
#define WC_FT_LONG_STEP_FACTOR 4.0
/** A trainer state's eval_runtime leaves out an evaluation's setup (the
 *  eval dataloader, the model's switch to eval mode), so the trace's pause
 *  runs a few s longer, or shorter where the power falls late: near-idle
 *  pauses off their evaluations' eval_runtime by about the same, at most
 *  this share of the shortest pause (or WC_FT_PAUSE_MIN_S), are those
 *  evaluations alone; the run's first, which sets up what the others
 *  reuse, may run longer by up to this share of its own pause beyond
 *  them (a choice of wattcast, docs/finetune.md "Evaluations a trainer
 *  state lists"). */
#define WC_FT_EVAL_SETUP_SHARE 0.3
/** A stated step count whose steps would be shorter than this, s, is
 *  refused: no optimizer step of a model wattcast fits runs so fast (a
 *  choice of wattcast, docs/finetune.md "A stated count against the
 *  trace"). */
#define WC_FT_MIN_STEP_S 0.01
/** Stretches of intermediate power (evaluation, warm-up, stalls) shorter
 *  than this are part of training, s. */
#define WC_FT_MIDLEVEL_MIN_S 10.0

/** What is known about the steps besides the trace. Times are epoch s in
 *  the trace's clock. Arrays are borrowed. */
typedef struct {
	const double *step_end;        /* end of each optimizer step, increasing */
	const double *step_count;      /* steps each ends (a log written every k steps);
	                                * NULL = one each */
	size_t n_step_end;
	const int *step_line;          /* steps.csv line of each; NULL = unknown */
	const unsigned char *resumed;  /* 1 where a resumed segment's first timed step is;
	                                * NULL = none */
	double start;                  /* training start; NaN = unknown */
	const double *pause_from, *pause_to; /* logged saves and evaluations */
	size_t n_logged;
	const unsigned char *pause_restart; /* 1 where a logged pause is a resumed run's restart,
	                                     * not step time and no save or evaluation; NULL = none */
	double steps;                  /* a step count without times; NaN = unknown */
	const char *steps_source;      /* its name for the row ("trainer_state", "manifest") */
	const char *steps_file;        /* the file it is from, for messages; NULL = the manifest */
	int steps_at_save;             /* it is a checkpoint-N/ state's: the steps up to that
	                                * save, not necessarily the run's */
	int grad_accum;                /* micro-steps per step; 0 = unknown */
	double expected_saves;         /* cross-checks; NaN = unknown */
	double expected_eval_s;
	double train_runtime_s;
	int trailing_save;             /* a save follows the last step (global_step a
	                                * multiple of save_steps) */
	double trailing_eval_s;        /* an evaluation follows it: its length; 0 none */
	double post_eval_s;            /* evaluations logged after train_runtime (trainer.evaluate()
	                                * after train()), past training's end: their length; 0 none */
	double save_steps;             /* the trainer state's save interval, steps; 0 = none
	                                * or not the Trainer's (finetune_schedule.c) */
	double stray_checkpoint;       /* the step of the one checkpoint-N/ folder off save_steps
	                                * taken as an extra save (finetune_schedule.c); 0 none */
	const unsigned char *eval_saved; /* 1 where a save follows evaluation i; NULL = where
	                                * its step is a multiple of save_steps */
	const double *eval_at;         /* evaluations a trainer state lists, without times: */
	const double *eval_s;          /* the step each follows and its eval_runtime, s; */
	size_t n_evals;                /* placed in the trace (finetune_state.c) */
	double state_steps;            /* the trainer state's global_step; NaN = none */
	double state_max_steps;        /* its max_steps, which the Trainer does not step
	                                * past; NaN = none */
	int state_restarts;            /* its log_history's steps going back (a resumed run) */
	double state_run_steps;        /* the steps it ran: global_step plus those a resume ran
	                                * again (log_history, to a logging interval); NaN = none */
	double averaged_s;             /* readings are means over this many s
	                                * (power.draw.average); 0 = instantaneous */
	char averaged_what[40];        /* the averaged column, for messages ("H100's
	                                * power.draw"); "" = power.draw.average */
	const double *gaps;            /* the power log's gaps, (start, end) pairs
	                                * (wc_power_trace.gaps); NULL = none */
	size_t n_gaps;
	int log_no_steps;              /* a steps.csv was given that holds no step row
	                                * (for the refusals' remedy) */
	double log_state_steps;        /* a trainer state's steps run beside a step log, not the
	                                * count: said when it and the trace's period agree against
	                                * the log; NaN = none */
	const char *log_state_file;    /* its file, for messages */
} wc_ft_steps_info;

void wc_ft_steps_info_init(wc_ft_steps_info *i);

/** Does the Trainer act (save or evaluate) after step `step` when it does so
 *  every `every` steps: a positive interval and a step that is a multiple of
 *  it (steps are whole numbers; the 0.5 absorbs their float reading). */
int wc_ft_step_due(double step, double every);

/** What the analysis found (group power, all GPUs). */
typedef struct {
	double start, end;             /* the training window, epoch s */
	double window_s, window_energy_j;
	double idle_w, train_w;        /* low and training levels of the trace */
	int n_saves;                   /* near-idle pauses detected */
	int n_midlevel;                /* intermediate-power stretches detected */
	int n_logged;                  /* logged saves and evaluations inside the window (not a
	                                * restart; and the evaluations of a trainer state placed
	                                * at training power) */
	int n_evals_placed;            /* a trainer state's evaluations taken out at training power */
	int n_evals_in_saves;          /* ... found as near-idle pauses (not saves) */
	int n_evals_unplaced;          /* ... its step numbers could not place */
	double evals_unfit_s;          /* a trainer state's evaluations not found as pauses, s, when
	                                * more than the window's time left: none placed; 0 none */
	int saves_unseen;              /* saves the state puts after evaluations inside the window
	                                * where the trace shows no near-idle pause: not placed */
	double evals_hidden_s;         /* a trainer state's evaluations the trace's own period finds
	                                * at training power, not taken out: the run went on after
	                                * a checkpoint's save, or the log ended short of the run
	                                * (finetune_state_end.c); 0 none */
	int last_eval_in;              /* the evaluation after the last step is in the window */
	double lead_eval_out_s;        /* the evaluation before the first step (step 0) lies
	                                * before the window: its length, s (train_runtime holds it) */
	double save_s;                 /* the saves' length with the evaluations placed, s
	                                * (near-idle ones merged with their saves taken out);
	                                * 0 = not placed */
	int resumed;                   /* the trainer state shows a resumed run */
	double runtime_steps;          /* steps train_runtime holds at the trace's period; NaN */
	double pause_s, pause_energy_j;
	double active_s, active_energy_j;
	double period_s;               /* the trace's step period over the active time; NaN */
	double period_acf;             /* its autocorrelation peak (how clear it is) */
	int period_clear;              /* a peak of at least WC_FT_PERIOD_MIN_ACF, at least
	                                * three samples long: the only period the row gives */
	double period_alt_s;           /* another period the samples fit as well; NaN */
	double period_under_s;         /* steps under three samples that draw the same samples
	                                * (never counted); NaN */
	double period_unsearched_s;    /* the longest divisor of the first period past
	                                * WC_FT_PERIOD_DIVISORS_MAX, not searched; NaN */
	double period_aliases_s[WC_FT_ALIASES]; /* steps the samples fold into more simply
	                                * than the period (aliasing), shortest string first; NaN */
	double period_repeat_s;        /* where the samples repeat exactly (0 none) */
	double period_halves_s[2];     /* clear periods of two parts of the active time that
	                                * differ, the earlier first: the step time changed
	                                * during the run, and period_clear is 0; NaN else */
	int period_steps;              /* a stated count against the clear period: k >= 2 times
	                                * its count (a period of k steps), -k a k-th of it (a step
	                                * of k periods, micro-steps); 0 neither */
	double steps;                  /* optimizer steps counted */
	int log_rows_per_step;         /* the step log's rows counted this many a step (micro-steps a
	                                * trainer state and the trace's period agree on); 0 = one */
	int warmup_steps;              /* leading slow steps left out (step times only) */
	double energy_per_step_j;      /* active energy / steps */
	double step_s;                 /* active time / steps */
	char step_source[24];          /* step_log, trainer_state, manifest, trace_period, trace_bursts */
	int n_warnings;
	char warnings[WC_WARNINGS_MAX][WC_WARNING_LEN];
} wc_ft_steps_result;

/** Energy per optimizer step of a trace (t increasing, epoch s; p the
 *  group's power, W). WC_EINVAL with a reason when the steps cannot be
 *  counted (no step log, no period in the trace). */
int wc_ft_steps_analyse(const double *t, const double *p, size_t n, const wc_ft_steps_info *info,
                        wc_ft_steps_result *out, wc_error *err);

/* ------------------------------------------------------------ ingest */

/** Is `run_dir` a fine-tuning run folder: its wattcast-run.json has a
 *  "finetune" object, or it holds a step log (steps.csv,
 *  trainer_state.json or checkpoint-N/trainer_state.json)? */
int wc_ft_is_run_dir(const char *run_dir);

/** Ingest one fine-tuning run folder: power.csv (every GPU of the job,
 *  summed), an optional step log and the manifests; `opt->defaults` fills
 *  what the manifests leave unknown. Appends one row to `table` with the
 *  extra columns of docs/formats/finetune-runs.md ("Columns written by
 *  ingest"). Refused, table untouched, when the configuration is
 *  incomplete or the steps cannot be counted. */
int wc_ft_ingest_run(const char *run_dir, const wc_ingest_options *opt, wc_ft_table *table,
                     wc_error *err);

#ifdef __cplusplus
}
#endif
#endif
