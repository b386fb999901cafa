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
#include "fit/fit.h"
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
	wc_envelope_metrics measured;   /* of its group trace over the window */
} wc_envelope_check_run;

typedef struct {
	int loro;                       /* 1: fit the response on the other runs */
	wc_response_fit_options fit;    /* for those fits */
	int replicas;
	uint64_t seed;
	int threads;
	wc_service_choice service;      /* auto: the capacity model where the set has it */
} wc_envelope_check_options;

/** The service times one run was replayed with. */
typedef struct {
	char source[48];                      /* "capacity" or "roofline_standin" */
	char fallback[WC_WARNING_LEN];  /* why not the capacity model (auto), else "" */
} wc_envelope_check_service;

typedef struct {
	size_t n;
	wc_envelope_metrics *predicted; /* n, owned (wc_envelope_check_report_clear) */
	wc_response_params *response;   /* n: the response each run was predicted with */
	wc_envelope_check_service *service; /* n: its service times */
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
	int n_with_interval;
	double coverage_mean_pct, coverage_p95_pct, median_width_mean_pct, median_width_p95_pct;
} wc_envelope_check_report;

/** Replay every run and compare. `rows` (may be NULL) receives one row
 *  per run and metric (quantity mean_w, p5_w, p95_w, max_w,
 *  ramp_w_per_s; lo/hi = the 5th/95th percentile over replicas). Service
 *  times as o->service chooses (wc_service_select); capacity forced where
 *  a run's configuration has none is refused ("<run>: service: ..."). */
int wc_validate_envelope(const wc_params *p, const wc_envelope_check_run *runs, size_t n,
                         const wc_envelope_check_options *o, wc_envelope_check_report *out,
                         wc_per_run *rows, wc_error *err);
void wc_envelope_check_report_clear(wc_envelope_check_report *r);

#ifdef __cplusplus
}
#endif
#endif
