/*
 * Calibration from a few runs (docs/calibration.md): keep a frozen law's
 * shared parameters, with their draws, and estimate only what a handful
 * of the user's own runs can identify --
 *   model scope:    a shift in z for each model on each (known) level the
 *                   runs name, from one run or more;
 *   platform scope: a new level (P0 measured or given, S and theta) from
 *                   two or more runs at different loads, the shared slopes
 *                   held at the base's values.
 * Each estimate is a small weighted least-squares problem solved by GSL's
 * Levenberg-Marquardt (residuals in log dynamic power, as the fit's, plus
 * weak Gaussian priors that only keep it finite when the runs cannot pin
 * it down). Its draws combine the base law's draws with the scatter of a
 * single run: replicate r refits with the base parameters of draw r and
 * each run's measurement perturbed by a normal deviate of the run scatter
 * (PCG32 stream (seed, r)), so results are bit-identical for any thread
 * count.
 *
 * Ownership: a wc_calibrate_result holds a wc_params released by
 * wc_calibrate_result_clear. Inputs are borrowed and not modified.
 */
#ifndef WC_FIT_CALIBRATE_H
#define WC_FIT_CALIBRATE_H

#include <stdint.h>

#include "models/warnings.h"
#include "data/runs_table.h"
#include "models/models.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { WC_CALIBRATE_MODEL = 0, WC_CALIBRATE_PLATFORM } wc_calibrate_scope;
/** "model" / "platform". */
const char *wc_calibrate_scope_name(wc_calibrate_scope s);
int wc_calibrate_scope_from_name(const char *name, wc_calibrate_scope *out);

/** How refusals and warnings name the caller's options: in its own
 *  words, so that each says what its user can give (docs/calibration.md,
 *  "Refusals"): the CLI's flags ("--idle-power W"), the HTTP body's
 *  fields ("idle_power_w"). */
typedef struct {
	const char *scope_model;     /* "--scope model" */
	const char *scope_platform;  /* "--scope platform" */
	const char *platform;        /* "--platform" */
	const char *idle_power;      /* "--idle-power W" */
	const char *run_scatter;     /* "--run-scatter" */
	const char *relative_to;     /* "--relative-to" */
	const char *bootstrap;       /* "--bootstrap" */
	const char *leave_out;       /* how runs are left out: "an exclude column leaves runs out" */
} wc_calibrate_words;

/** Scores runs against a calibrated set as its answers give them: writes
 *  node_w[i], run i's mean power (W, all its GPUs) under `result`, NaN when
 *  it has none. The CLI and the server pass wc_validate_score_runs
 *  (validation/accuracy.h), predict's answer with the clock settled under
 *  the board's limit; fit/ does not call predict/ (docs/calibration.md). */
typedef int (*wc_calibrate_score_fn)(void *ctx, const wc_params *result, const wc_run *const *runs, int n,
                                     double *node_w, wc_error *err);

/** What to calibrate. Start from WC_CALIBRATE_OPTIONS_INIT. */
typedef struct {
	wc_calibrate_scope scope;
	/** Only runs of this model (any variant) / on this platform; NULL =
	 *  every run. Platform scope needs the runs on one platform. */
	const char *model;
	const char *platform;
	/** Platform scope: idle power per GPU (W) when the runs carry no
	 *  idle_power_w; 0 = none (then the calibration is refused). */
	double idle_power_w;
	/** Optional mask over the table's rows (0 = not a calibration run);
	 *  excluded rows never are. */
	const unsigned char *use;
	/** Replicates of the draws: 0 = as many as the base has draws (1000
	 *  when it has none); -1 = no draws (point estimate only). */
	int replicates;
	uint64_t seed;
	int threads;             /* >= 1 */
	/** Scatter of one run around the law, sd of log dynamic power; 0 =
	 *  the base's residual RMS (0.1, assumed, when it records none). */
	double run_scatter;
	/** Platform scope: NULL, or a level of the base whose runs are also in
	 *  the table. The new level is then the base's level plus the new
	 *  platform's offset from it on these runs (log S and theta each
	 *  calibrated on the runs of both, slopes held; fit/calibrate_relative.c,
	 *  docs/calibration.md "Relative to a level"). */
	const char *relative_to;
	/** The options' names in messages; NULL = the CLI's flags. */
	const wc_calibrate_words *words;
	/** How the runs the result misses are scored (docs/calibration.md):
	 *  NULL = the fitted law's own power, uncapped, as the shift is fitted;
	 *  else this function, with `score_ctx`. */
	wc_calibrate_score_fn score;
	void *score_ctx;
} wc_calibrate_options;

#define WC_CALIBRATE_OPTIONS_INIT                                                \
	{ .scope = WC_CALIBRATE_MODEL, .model = NULL, .platform = NULL,           \
	  .idle_power_w = 0.0, .use = NULL, .replicates = 0, .seed = 0,           \
	  .threads = 1, .run_scatter = 0.0, .relative_to = NULL, .words = NULL,   \
	  .score = NULL, .score_ctx = NULL }

#define WC_CALIBRATE_ESTIMATES_MAX 64

/** One calibrated parameter, for reports. */
typedef struct {
	char label[WC_LABEL_MAX];  /* "shift[Qwen3-8B@H100]", "S[H200]", ... */
	wc_param value;            /* with its 95 % interval from the draws */
	int runs;                  /* runs behind it, its segments one run */
	int pieces;                /* rows behind it (> runs when segmented) */
} wc_calibrate_estimate;

typedef struct {
	wc_params params;          /* the base plus the calibrated term(s) or level */
	int n_runs;                /* calibration runs used, a run's segments one */
	int n_pieces;              /* calibration rows used (segments each one) */
	double run_scatter;        /* the scatter the draws used */
	int n_estimates;
	wc_calibrate_estimate estimates[WC_CALIBRATE_ESTIMATES_MAX];
	int n_warnings;
	char warnings[WC_WARNINGS_MAX][WC_WARNING_LEN];
	/** Set on a refusal of the idle given (o->idle_power_w not below the
	 *  board limit of a level that takes it, wc_params_check_idle): the
	 *  option is at fault, not a run (docs/cli.md "calibrate"). */
	int idle_refused;
} wc_calibrate_result;

/** Calibrate `base` on the runs of `t` (docs/calibration.md). Refusals
 *  (WC_EINVAL, message with the reason): no calibration run, a run
 *  without measured power, a model-scope run on a level the base lacks,
 *  platform scope with one run, with all runs at one load and size, on a
 *  level the base already has, on several platforms, or without an idle
 *  power. `out` is the caller's to clear (also on failure). */
int wc_calibrate(const wc_params *base, const wc_runs_table *t, const wc_calibrate_options *o,
                 wc_calibrate_result *out, wc_error *err);
void wc_calibrate_result_clear(wc_calibrate_result *r);

#ifdef __cplusplus
}
#endif
#endif
