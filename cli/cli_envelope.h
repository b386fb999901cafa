/*
 * cli/: `wattcast envelope` (cli/cmd_envelope.c) and its files
 * (cli/envelope_io.c: files, flags and the summary table), --measured
 * (cli/envelope_measured.c) and its help and flag words
 * (cli/envelope_usage.c).
 */
#ifndef WC_CLI_ENVELOPE_H
#define WC_CLI_ENVELOPE_H

#include <stddef.h>

#include "cli.h"
#include "data/run_manifest.h"
#include "predict/predict.h"
#include "trace/trace.h"

/** Arrays read from files for one envelope command (owned). */
typedef struct {
	double *arrival_s, *arrival_in, *arrival_out;  /* --replay */
	size_t n_arrivals;
	double *series, *series_hold;                  /* --n-series: samples, seconds each holds */
	double *in_values, *out_values;                /* empirical lengths */
	size_t n_in_values, n_out_values;
	double *profile_until, *profile_rate;          /* --rate-profile */
	size_t n_profile;
	double *measured_t, *measured_w;               /* --measured: group power, s from the window start */
	size_t n_measured;
	/* The readers' warnings, as printed (--replay's and empirical:'s
	 * log: bad lines skipped, failed or repeated requests; --measured's
	 * run: bad lines, gaps): --json lists them in "warnings" too. */
	char (*warnings)[WC_WARNING_LEN];
	size_t n_warnings, cap_warnings;
} cli_envelope_inputs;

void cli_envelope_inputs_free(cli_envelope_inputs *in);
/** Keep a reader's warning in in->warnings (for --json's "warnings"). */
void cli_envelope_keep_warning(cli_envelope_inputs *in, const char *msg);
/** `text` (an envelope's or a plan's JSON answer, taken) with the
 *  readers' warnings in `in` appended to its "warnings", as they were
 *  printed (cli/envelope_measured.c); `text` itself when there are none,
 *  NULL when out of memory. */
char *cli_envelope_json_warnings(char *text, const cli_envelope_inputs *in);
/** --replay FILE into in->arrival_* and `w`'s arrivals, windowed over
 *  `horizon_s` (wc_envelope_workload_window), warning how many requests
 *  replayed lack a token count and the distribution (`w`'s, given by
 *  `*_spec` or the default) that fills them (cli/envelope_logs.c, as
 *  every log read). */
int cli_read_replay(const char *cmd, const char *path, wc_envelope_workload *w, double horizon_s,
                    const char *input_spec, const char *output_spec, cli_envelope_inputs *in);
/** --n-series FILE into in->series and in->series_hold (each sample at
 *  its own time, held as predict's --running-series holds it) and `w`'s
 *  series fields. */
int cli_read_series(const char *cmd, const char *path, cli_envelope_inputs *in, wc_envelope_workload *w);
/** The known lengths of one column of a request log (`output` 1: output
 *  tokens), read as --replay reads it, into in->in_values or out_values. */
int cli_read_lengths(const char *cmd, const char *flag, const char *path, int output, cli_envelope_inputs *in);
/** --input-tokens / --output-tokens: N, lognormal:MEAN:SD (a usage error
 *  when malformed) or empirical:REQUEST_LOG (its known lengths, into
 *  `in`; a refused log is CLI_FAIL). */
int cli_parse_length(const char *cmd, const char *flag, const char *spec, int output, wc_length_dist *d,
                     cli_envelope_inputs *in);
/** --rate-profile UNTIL:RATE,... into in->profile_*. */
int cli_parse_rate_profile(const char *cmd, const char *spec, cli_envelope_inputs *in);
/** The summary table of `wattcast envelope` (values with the replicas'
 *  Monte-Carlo spread, and the measured run's beside them when given);
 *  `o`'s horizon and cadence say why a ramp is undefined. */
void cli_print_envelope_summary(const char *title, const wc_envelope_summary *s, int replicas,
                                const wc_envelope_options *o, const wc_trace_metrics *meas);
/** The predictive 95 % interval of the mean and p95 (the law's held-out
 *  error, docs/intervals.md), apart from the Monte-Carlo spread; or why
 *  there is none. */
void cli_print_envelope_interval(const wc_envelope_interval *iv, const wc_power_map *pm);
/** The band per bin as CSV; with a --measured run (`in` may be NULL), its
 *  power samples' mean per bin in a last column `measured_w`. */
int cli_write_band_csv(const char *cmd, const char *path, const wc_envelope_result *r, const cli_envelope_inputs *in);
/** The band as an SVG chart over [0, horizon_s]: the time axis ends at the
 *  horizon and its ticks are labelled with their exact positions. */
int cli_write_band_svg(const char *cmd, const char *path, const wc_envelope_result *r,
                       const cli_envelope_inputs *in, double horizon_s, const char *title);

/** Refuse `--flag` (its long name, without the dashes) when the run does
 *  not use it: another workload's, a budget's without --budget, the
 *  balancer's of one server, the requests' of an n(t) (exit 2 naming it;
 *  cli/envelope_usage.c). */
int cli_envelope_flag_applies(const char *cmd, const char *flag, wc_envelope_kind kind, int budget, int fleet_size);

/** Exit 2 naming a combination of flags that does not apply: with
 *  --measured, a balancer's fleet (--fleet-mode other than independent);
 *  with --budget (`budget`), what a plan does not take (--csv or --svg
 *  when `outputs`, --measured, --replicas, --fleet above 1). */
int cli_envelope_excludes(const char *cmd, int budget, int outputs, int measured, int replicas_given,
                          const wc_envelope_options *o);

/** What the text header says of the runs after the horizon (cli/envelope_io.c):
 *  ", simulated once: ..." for an envelope run `once` and for a plan of
 *  lockstep servers of a workload that draws nothing (no seed, no
 *  replicas), " x one path per fleet size probed" for another plan (with
 *  the seed only where it draws), else " x N replicas (seed S)". */
void cli_envelope_runs_text(const wc_envelope_workload *w, const wc_envelope_options *o, int budget, int once,
                            char *buf, size_t cap);

/** A budget plan's text lines (cli/envelope_io.c); `mode` as the answer labels it
 *  (wc_envelope_fleet_mode_label of the plan's lockstep). */
void cli_print_budget_plan(const wc_budget_options *bo, const wc_budget_plan *plan, const char *mode, double secs,
                           const wc_power_map *pm);

/** `wattcast envelope --help` (cli/envelope_usage.c). */
extern const char cli_envelope_usage[];
/** A usage error (exit 2) for a library message on an option's or the
 *  workload's field, naming the flag instead (`--poisson` or `--bursty`
 *  for the rate, by `kind`). */
int cli_envelope_usage_from_field(const char *cmd, wc_envelope_kind kind, const char *msg);
/** A library refusal: on the configuration's or the workload's lengths
 *  (platform, sm_clock_mhz, tp, idle_power_w, active_params_b, input_tokens,
 *  output_tokens) a usage error naming the flag, else cli_fail. */
int cli_envelope_config_error(const char *cmd, wc_envelope_kind kind, const char *msg);
/** The engine's refusal of an envelope or plan run: a law with no answer
 *  (WC_ERANGE) exit 1; a --measured run's request lengths named as its
 *  folder's request log, exit 1; the rest by cli_envelope_config_error. */
int cli_envelope_run_refused(const char *cmd, const char *measured, wc_envelope_kind kind, const wc_error *err);
/** The warnings of an envelope or plan naming a replay's own lengths
 *  (arrival_input, arrival_output), renamed in place as its refusals name
 *  them: --measured's request log, else --replay. */
void cli_envelope_name_warnings(const char *measured, char (*warnings)[WC_WARNING_LEN], int n);
/** CLI_OK, or a usage error naming --replicas, --horizon and --bin when the
 *  bands of `o` (replicas simulated, wc_envelope_replicas_simulated, x bins
 *  x traces, two doubles a cell) and, with `json_bins`, the --json answer's
 *  per-bin values (wc_envelope_bin_values x WC_CLI_JSON_BYTES_PER_BIN_VALUE)
 *  would take more than half of the memory this process may use (the
 *  machine's, or its ulimit -v): HTTP bounds the work a request asks for;
 *  on the command line the machine does (docs/envelopes.md). */
int cli_envelope_memory_check(const char *cmd, const wc_envelope_workload *w, const wc_envelope_options *o,
                              int json_bins);

/** Exit 2 when --poisson/--bursty RATE (`rate_text` as given, NULL for
 *  another workload) and --rate-profile both give the rate: RATE must be
 *  `profile` with a profile, and a number without one. */
int cli_envelope_rate_source(const char *cmd, wc_envelope_kind kind, const char *rate_text,
                             const char *rate_profile);

/** Exit 2 naming the flags when the run would step through more grid bins
 *  x servers, or draw more requests, than the library's bounds allow
 *  (wc_envelope_work_check, the HTTP routes' check with their limits):
 *  refused before any work, as the memory bound is. `bo`: a plan's. */
int cli_envelope_work_check(const char *cmd, const wc_envelope_workload *w, const wc_envelope_options *o,
                            const wc_service_times *st, const wc_budget_options *bo, const wc_power_map *pm);

/** What --measured replays: the run's window and its measured metrics. */
typedef struct {
	double horizon_s, warmup_s, sample_s;
	double idle_w;               /* the run's measured idle per GPU (NaN: none) */
	wc_trace_metrics metrics;
	size_t runs;                 /* windows of the run folder replayed (the first is) */
	size_t run_folders;          /* run folders at or under the path (the first is read) */
	char run_id[128];
	char arrival_source[32];
	char platform[64], model[96]; /* the run's, as its manifest or the flags give them ("" unknown) */
	int tp;                       /* the run's GPUs (0 unknown) */
	double active_params_b;       /* as the run states them (NaN unknown) */
	double sm_clock_mhz;          /* the run's SM clock lock, 0 none (as `validate envelope` binds it) */
	int weights, kv;              /* the run's precisions (wc_precision; bf16 unless it states another) */
} cli_measured_window;

/** Which of the run's own settings a flag replaced (--tp, --sm-clock,
 *  --weights, --kv); `own_model`: neither --model nor --active-params. */
typedef struct {
	int tp, sm_clock, weights, kv, own_model;
} cli_measured_given;

/** Read the run folder `dir` as `validate envelope` does and make its
 *  first window the envelope's workload: its arrivals and lengths into
 *  `in` (replacing any) and `w`, its window into `win`, its group trace
 *  into in->measured_*. Errors are printed; the reader's warnings are
 *  printed unless --quiet and kept in in->warnings. */
int cli_load_measured(const char *cmd, const char *dir, const wc_run_manifest *defaults, const wc_params *p,
                      int max_running, wc_service_choice service, cli_envelope_inputs *in,
                      wc_envelope_workload *w, cli_measured_window *win);
/** What the flags leave unnamed, from the run folder's own manifests:
 *  the platform (`*platform`) and the model (`*model` when the catalog
 *  has it, else its active parameters), so `--measured RUN_DIR` needs no
 *  flag the run already states. What the run states is stored in `d`, its
 *  reader's defaults, whatever the flags (they name the prediction's
 *  board and model, not the run's). Nothing is changed
 *  where the folder has no manifest (a folder of run folders). A manifest
 *  that does not parse is WC_EPARSE with its file:line:column in `err`; a
 *  path that is no folder, or holds no run folder, is the reader's error
 *  (wc_ingest_find_runs), in its words. */
int cli_measured_identity(const char *dir, wc_run_manifest *d, const char **platform, const char **model,
                          double *active_params_b, wc_error *err);
/** `text` (an envelope's JSON answer) with a "measured" object added: the
 *  run replayed, its arrivals and window, and its measured metrics, for
 *  --measured --json (what the text puts in its "measured" column).
 *  Returns a new string (free), NULL when out of memory. */
char *cli_measured_json(const char *text, const cli_measured_window *win, size_t arrivals);
/** --measured compares a prediction with the run's measurement, so both
 *  must be of one configuration: the run's GPU count, SM clock (none
 *  locked unless it states one) and weight and KV precisions unless a
 *  flag named others (`g`), and a warning, in one form, wherever a flag
 *  names another board, model, group, clock or precision than the run's
 *  (a what-if replay is allowed, but its "measured" columns are then
 *  another configuration's). Returns 1 when the board predicted is the
 *  run's (or the run does not say). The
 *  warnings are printed and kept in `in` (--json's "warnings"). With
 *  g->own_model (neither --model nor --active-params given), the model is
 *  the run's and its active parameters the ones the run states, as
 *  `validate envelope` predicts it. */
int cli_measured_config(const char *cmd, const cli_measured_window *win, const cli_measured_given *g, const char *model,
                        wc_config *c, cli_envelope_inputs *in);
/** The note on stderr when --measured replaces flags given: a workload
 *  flag, --horizon, --warmup, --sample (the run's window and cadence). */
void cli_measured_unused_note(const char *cmd, int workload, int horizon, int warmup, int sample);

#endif
