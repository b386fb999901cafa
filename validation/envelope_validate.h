/*
 * Envelopes checked against measured runs (docs/envelopes.md,
 * "Validation"): each run's own arrivals replayed through the envelope
 * simulation and its predicted trace metrics compared with the measured
 * ones -- mean, p5, p95, max power and ramp rate -- with the response
 * taken from the parameter set, or fitted on the other runs (leave one
 * run out).
 */
#ifndef WC_VALIDATION_ENVELOPE_H
#define WC_VALIDATION_ENVELOPE_H

#include <stddef.h>
#include <stdint.h>

#include "data/per_run.h"
#include "data/runs_table.h"
#include "fit/calibrate.h"
#include "fit/fit.h"
#include "models/warnings.h"
#include "predict/predict.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The metrics compared (a measured run's, or a prediction's mean over replicas). */
typedef struct {
	double mean_w, p5_w, p95_w, max_w, ramp_w_per_s;
} wc_envelope_metrics;

/** One measured run, ready to replay. Arrays are borrowed. */
typedef struct {
	const char *run_id;
	wc_config config;               /* the run's configuration (measured idle in idle_power_w) */
	wc_response_run response_run;   /* its load and power, for response fits */
	wc_envelope_workload workload;  /* its own arrivals */
	double horizon_s, warmup_s;     /* simulated: the warm-up (requests sent before the
	                                 * window), then the window */
	double sample_s;                /* its meter's cadence (a multiple of the grid) */
	int max_running;
	const char *arrival_source;
	int prompts_stated;             /* 1: no prompt tokens counted, every prompt the
	                                 * manifest's stated mean (a TGI engine log) */
	wc_envelope_metrics measured;   /* of its group trace over the window */
} wc_envelope_check_run;

typedef struct {
	int loro;                       /* 1: fit the response on the other runs */
	wc_response_fit_options fit;    /* for those fits */
	int replicas;
	uint64_t seed;
	int threads;
	wc_service_choice service;      /* auto: the capacity model where the set has it */
	int level_loro;                 /* 1: calibrate the law's level on the other runs of the
	                                 * run's model and platform (wc_envelope_level_for) */
} wc_envelope_check_options;

/** How the law's level was set for one run. */
typedef struct {
	int runs;                       /* other runs calibrated on; 0: the set's law (zero-shot) */
	double p0_w, s_w, theta;        /* the calibrated level (NaN: none) */
	char note[WC_WARNING_LEN];      /* "calibrated on ..." or "zero-shot: <why>"; "" without
	                                 * level_loro */
} wc_envelope_level;

/** What the source of service times a capacity section fitted on the run
 *  itself gave ends with (wc_capacity_fitted_on_run): "capacity (in-sample)". */
#define WC_ENVELOPE_IN_SAMPLE " (in-sample)"

/** The service times one run was replayed with. */
typedef struct {
	char source[48];                      /* "capacity", "capacity_datasheet" or "roofline_standin",
	                                       * + WC_ENVELOPE_IN_SAMPLE */
	char fallback[WC_WARNING_LEN];  /* why not the capacity model (auto), else "" */
} wc_envelope_check_service;

/** Where a run's error comes from (docs/envelopes.md, "Where the
 *  calibrated errors come from"): the power map and response of its fold
 *  at the run's *measured* load -- its n(t) and prefill activity, no
 *  engine, no service times -- against its measured samples, and the
 *  running count the simulation gives against the measured one. */
/** Measured power per GPU by the running count at each sample, beside the
 *  frozen law of the run's fold at the bucket's mean count: the law's load
 *  shape where the run has samples (docs/envelopes.md, "The law's shape at
 *  low load"). Buckets 0, 1, 2, 3-4, 5-8, 9-16, 17 or more running. */
#define WC_ENVELOPE_LOAD_BUCKETS 7
typedef struct {
	double running_lo, running_hi;  /* the bucket's counts (hi INFINITY: open) */
	size_t samples;                 /* power samples in it; 0: none (NaNs) */
	double running_mean, measured_w, law_w; /* W per GPU */
} wc_envelope_load_bucket;

typedef struct {
	double mean_err_pct, p95_err_pct; /* per-GPU mean and p95 of the samples */
	double running_measured, running_simulated; /* mean requests running */
	wc_envelope_load_bucket by_load[WC_ENVELOPE_LOAD_BUCKETS];
} wc_envelope_at_load;

/** The warnings of one run's prediction (the replay's load against the
 *  law's span, the engine's bound, ...; docs/validation.md, "Envelopes"):
 *  what `envelope --measured` says of it, each as the --per-run rows,
 *  the text and the JSON give it (its request log named for the
 *  library's arrival_ fields). */
typedef struct {
	int n_warnings;
	char warnings[WC_WARNINGS_MAX][WC_WARNING_LEN];
} wc_envelope_check_warnings;

/** What one run's predictive interval covers (its fold's power map). */
typedef struct {
	char text[256];
} wc_envelope_check_covers;

typedef struct {
	size_t n;
	wc_envelope_check_warnings *warnings; /* n, owned */
	wc_envelope_at_load *at_load;   /* n, owned */
	wc_envelope_metrics *predicted; /* n, owned (wc_envelope_check_report_clear) */
	wc_response_params *response;   /* n: the response each run was predicted with */
	double *tau_s;                  /* n: the time constant its replay used (its platform's,
	                                 * wc_response_tau_for): what --per-run and --json print */
	wc_response_linger_choice *linger; /* n: the bound on its hold_s and decay_s (chosen_s 0:
	                                 * the section's; scores NaN unless chosen nested) */
	wc_envelope_check_service *service; /* n: its service times */
	wc_envelope_level *level;       /* n: how the law's level was set (all zero-shot
	                                 * without level_loro) */
	double *law_level;              /* n: the scale of the law's dynamic power that fits the
	                                 * run's measured power best (1 = the law as frozen; a
	                                 * diagnostic, not used in the prediction) */
	double median_mean_err_pct;     /* median |error| of the mean, % */
	double median_p5_err_pct, median_p95_err_pct, median_max_err_pct;
	double median_ramp_ratio;       /* median of predicted / measured ramp rate */
	double bias_mean_pct;           /* mean signed error of the mean, % */
	/* The predictive 95 % intervals of the mean and p95 (the law's held-out
	 * error, docs/intervals.md; not the Monte-Carlo spread): per run (n,
	 * owned; NaN pairs where the set has none), the share of runs whose
	 * measured value they contain (%, over the runs with one; NaN: none)
	 * and their median width (% of the prediction). */
	wc_envelope_interval *interval;
	/* n: what each run's interval covers, in envelope's words
	 * (wc_power_map_interval_covers; "" where it has none) */
	wc_envelope_check_covers *covers;
	/* n: the replicas each run was simulated with -- 1 when two replicas
	 * came out identical, so that the replay draws nothing at random
	 * (every arrival and length set: from a request log, or rebuilt from
	 * counters with output lengths at their mean) and more would only
	 * repeat it;
	 * its lo/hi are then blank (no spread; docs/validation.md) */
	int *replicas;
	size_t n_no_spread;             /* runs simulated once so */
	char once_known[WC_WARNING_LEN]; /* what those runs' replays know: "arrivals and lengths
	                                 * from the request log", "arrivals rebuilt from the
	                                 * engine's counters ..." or each kind with its count
	                                 * ("2: ...; 6: ..."); "" when none */
	int n_with_interval;
	double coverage_mean_pct, coverage_p95_pct, median_width_mean_pct, median_width_p95_pct;
} wc_envelope_check_report;

/** Replay every run and compare. `rows` (may be NULL) receives one row
 *  per run and metric (quantity mean_w, p5_w, p95_w, max_w,
 *  ramp_w_per_s; lo/hi = the 5th/95th percentile over replicas, blank
 *  for a run that draws nothing at random). Service
 *  times as o->service chooses (wc_service_select); capacity forced where
 *  a run's configuration has none is refused ("<run>: service: ..."). */
int wc_validate_envelope(const wc_params *p, const wc_envelope_check_run *runs, size_t n,
                         const wc_envelope_check_options *o, wc_envelope_check_report *out,
                         wc_per_run *rows, wc_error *err);
void wc_envelope_check_report_clear(wc_envelope_check_report *r);

/** The runs as rows of a runs table (docs/formats/runs-table.md): each
 *  one's configuration, its n(t) as the load series, its measured group
 *  mean power and idle. `*out` is the caller's (wc_runs_free). */
int wc_envelope_level_table(const wc_envelope_check_run *runs, size_t n, wc_runs_table **out,
                            wc_error *err);
/** The law's level for held-out row i of `t` (docs/envelopes.md, "Level
 *  calibrated on the other runs"): the run's platform level of `p`
 *  calibrated afresh as `wattcast calibrate --scope platform` does (its
 *  draws too, by that command's defaults, so that the run's intervals are
 *  the calibrated answer's) on the other rows of the same platform. When there is none, or the calibration is refused,
 *  `cal` is left empty (cal->params.n_levels == 0: use `p`) and the note
 *  says why. `cal` is the caller's to clear. */
int wc_envelope_level_for(const wc_params *p, const wc_runs_table *t, size_t i,
                          const wc_envelope_check_options *o, wc_calibrate_result *cal,
                          wc_envelope_level *info, wc_error *err);

#ifdef __cplusplus
}
#endif
#endif
