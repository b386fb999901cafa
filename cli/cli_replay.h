/*
 * cli/: measured runs for the envelope commands (cli/run_replay.c) -- run
 * folders read as replays (trace/replay.h) and prepared as the inputs of
 * the response fit (fit/fit.h) and the envelope validation
 * (validation/envelope_validate.h).
 */
#ifndef WC_CLI_REPLAY_H
#define WC_CLI_REPLAY_H

#include "cli.h"
#include "fit/fit.h"
#include "predict/predict.h"
#include "trace/trace.h"
#include "validation/validation.h"

/** One run prepared: the validation's view of it, and the arrays it
 *  borrows (owned here). */
typedef struct {
	wc_envelope_check_run run;
	double *prefill;            /* prefill seconds per 50 ms bin */
	double *arrival_s;          /* arrivals shifted by the warm-up */
	wc_service_store service;   /* the prefill times of rebuilt arrivals */
} cli_check;

typedef struct {
	wc_trace_replay *replays;   /* n, owned */
	size_t n, cap;
	cli_check *checks;          /* n once prepared, owned */
	/* The readers' warnings (bad lines, gaps, clock jumps), as printed:
	 * for an answer that carries them too (envelope --measured --json). */
	char (*warnings)[WC_WARNING_LEN];
	size_t n_warnings, cap_warnings;
	const char *cmd;
	int quiet;
} cli_run_set;

/** Fill `d` from one of the flags --platform, --tp, --model,
 *  --active-params, --utc-offset, --workload (`flag` without dashes);
 *  usage errors name the flag. */
int cli_run_default_flag(const char *cmd, const char *flag, const char *value, wc_run_manifest *d);
/** CLI_OK when no two of the `n` RUN_DIRs `dirs` are one folder; else
 *  "DIR: given twice (RUN_DIRs 1 and 2): each run counts once" (both named
 *  when written differently), CLI_FAIL: its runs would be read twice.
 *  `ingest`, `fit response` and `validate envelope` check their RUN_DIRs so. */
int cli_run_dirs_distinct(const char *cmd, char *const *dirs, int n);
/** Read every run folder at or under `dirs` (as `ingest` does; `defaults`
 *  fill what manifests leave unknown). Errors are printed; the readers'
 *  warnings are kept in s->warnings and printed unless `quiet`.
 *  `idle_fallback` says what the command does where a run's idle power is
 *  unknown (wc_ingest_options; NULL: the fit's words). */
int cli_run_set_load(const char *cmd, char **dirs, int n_dirs, const wc_run_manifest *defaults,
                     int quiet, const char *idle_fallback, cli_run_set *s);
/** Bind each run to the parameter set and prepare its replay; the prefill
 *  activity of arrivals rebuilt from engine counters takes the prefill
 *  time of the service times `service` chooses (a capacity model forced
 *  where a run has none is a usage error naming --service). */
int cli_run_set_prepare(const char *cmd, cli_run_set *s, const wc_params *p, int max_running,
                        wc_service_choice service);
void cli_run_set_free(cli_run_set *s);
/** --linger-bound nested|SECONDS: the bound on the response's hold_s and
 *  decay_s chosen by leaving each run out inside the fit's runs, or given
 *  (docs/envelopes.md, "Fitting the response"). */
int cli_parse_linger(const char *cmd, const char *text, wc_response_fit_options *fo);

#endif
