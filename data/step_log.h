/*
 * Step logs of fine-tuning runs (docs/formats/finetune-telemetry.md,
 * "Step logs"): a CSV of optimizer-step end times with save and evaluation
 * events (`steps.csv`), and the facts a Hugging Face Trainer
 * `trainer_state.json` holds (steps done, save/eval/logging intervals,
 * runtimes, tokens seen; it has no timestamps).
 *
 * Ownership: wc_step_log owns its arrays (wc_step_log_free), and so does
 * a wc_trainer_state (its evaluations; wc_trainer_state_free).
 */
#ifndef WC_DATA_STEP_LOG_H
#define WC_DATA_STEP_LOG_H

#include <stddef.h>

#include "models/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/** What a row of steps.csv marks the end of; each row's interval starts at
 *  the row before it. */
typedef enum {
	WC_STEP_START = 0,  /* training begins (no interval) */
	WC_STEP_STEP,       /* an optimizer step */
	WC_STEP_SAVE,       /* a checkpoint save */
	WC_STEP_EVAL,       /* an evaluation */
	WC_STEP_EVENT_COUNT
} wc_step_event;

/** "start", "step", "save", "eval". */
const char *wc_step_event_name(wc_step_event e);

typedef struct {
	size_t n;
	double *t;              /* epoch s, strictly increasing */
	int *step;              /* the step number of each row */
	unsigned char *event;   /* wc_step_event */
	int *line;              /* the file line of each row, for messages */
	int *column;            /* ... and the column of its step cell */
	int unfinished_line;    /* an unfinished last line (no newline) that did not read,
	                         * dropped: its line, for the warning; 0 none */
} wc_step_log;

#define WC_STEP_LOG_INIT { .n = 0, .t = NULL, .step = NULL, .event = NULL, .line = NULL, .column = NULL, \
	                   .unfinished_line = 0 }

/** The largest step number or count a step log or trainer state is read
 *  with: past any run's (they are read into an int; a choice of
 *  wattcast). */
#define WC_STEP_LOG_MAX_STEP 1e9

/** Read steps.csv: header row naming `step` and `epoch_s` (Unix seconds)
 *  and optionally `event` (start, step, save or eval; blank = step); `#`
 *  lines are comments. Times increase strictly, except that a row may
 *  repeat the row before it (step number and event) at the same time
 *  (every rank writing its row); step numbers may go back (a resumed
 *  run). Rows are kept as written: how they count as steps is the
 *  reader's choice (docs/finetune.md, "Counting steps"). Refusals name
 *  file:line:column. `out` must be
 *  WC_STEP_LOG_INIT; free with wc_step_log_free. */
int wc_step_log_read(const char *path, wc_step_log *out, wc_error *err);
int wc_step_log_read_buffer(const char *buf, size_t len, const char *path, wc_step_log *out,
                            wc_error *err);
void wc_step_log_free(wc_step_log *l);

/** The facts of a Hugging Face Trainer state. Unknown: 0 / NaN. */
typedef struct {
	int global_step;           /* optimizer steps done */
	int max_steps;
	double logging_steps, save_steps, eval_steps; /* as steps (ratios resolved); 0 = none */
	double train_runtime_s;    /* of train(), from the final log entry */
	double tokens_seen;        /* num_input_tokens_seen: the state's own (top level) when
	                            * above 0, else the last log_history entry's; NaN none */
	double tokens_step;        /* the step it was counted at: global_step, or that entry's */
	double tokens_top_bad;     /* a top-level num_input_tokens_seen not used: below 0, or below
	                            * the last log_history entry's (a running total cannot be); NaN none */
	int n_evals;               /* evaluations: log entries with eval_runtime or eval_<name>_runtime,
	                            * those of one step in a row (one per eval dataset) as one */
	double eval_runtime_s;     /* their sum */
	double *eval_at;           /* each one's step (the step it follows; NaN unknown) */
	double *eval_s;            /* and its eval_runtime, s; both n_evals long, owned */
	int n_post_evals;          /* entries with eval_runtime after the last train_runtime one
	                            * (trainer.evaluate() after train()): not among the above */
	double post_eval_s;        /* their eval_runtime, summed, s */
	int n_log_entries;
	int n_restarts;            /* entries whose step goes back from the entry before:
	                            * a resumed run's log kept with the first session's */
	double rerun_steps;        /* the steps those entries go back, summed: the steps a
	                            * resume ran again, short by up to a logging interval each */
	double back_from, back_to; /* the first such: the step before it and its own */
	int n_evals_long;          /* evaluations during training longer than the power log:
	                            * not among the above, not placed */
	double long_at, long_s;    /* the first such: its step and eval_runtime, s */
	double long_sum_s;         /* their eval_runtime, summed, s */
	double long_span_s;        /* the power log's span they were weighed against, s */
} wc_trainer_state;

/** Read a trainer_state.json (leniently: only the keys above are read;
 *  a key of the wrong type is refused with its JSON path). Free with
 *  wc_trainer_state_free, also after a refusal. */
int wc_trainer_state_read(const char *path, wc_trainer_state *out, wc_error *err);
/** The same, with the seconds from the power log's first sample to its
 *  last (NaN: none): an evaluation during training longer than that is
 *  left out of the list and counted in n_evals_long (not placed); one
 *  below 0 or past WC_FT_MAX_EVAL_S is refused. */
int wc_trainer_state_read_within(const char *path, double span_s, wc_trainer_state *out, wc_error *err);
void wc_trainer_state_free(wc_trainer_state *s);

/** The optimizer steps the run ran: global_step plus those its resumes ran
 *  again (rerun_steps and a logging interval each: the first entry after
 *  a resume is a logging interval past the checkpoint), short by the steps
 *  a session ran past its last logged one (docs/finetune.md, "Counting
 *  steps"). global_step when the log does not go back. */
double wc_trainer_state_run_steps(const wc_trainer_state *s);

#ifdef __cplusplus
}
#endif
#endif
