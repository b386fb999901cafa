/*
 * Per-request logs (requests.json as vLLM's benchmark client writes it,
 * or requests.csv), read into parallel arrays (wc_request_log, freed
 * with wc_request_log_free).
 */
#ifndef WC_DATA_REQUEST_LOG_H
#define WC_DATA_REQUEST_LOG_H

#include <stddef.h>

#include "data/telemetry.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- per-request logs */

/** Times below this (September 2001) are not epoch seconds. */
#define WC_REQUEST_EPOCH_MIN_S 1e9

typedef struct {
	size_t n;
	double *arrival;         /* epoch s */
	double *first_token;     /* epoch s; NaN when unknown */
	double *completion;      /* epoch s; NaN when unknown (JSON: a mean itl with no output count) */
	double *input_tokens;    /* NaN when unknown */
	double *output_tokens;   /* NaN when unknown */
	/* 1 when the times run on a clock of unknown origin: vLLM's own
	 * `start_times` (time.perf_counter, seconds since an arbitrary
	 * point) rather than epoch seconds. Such a log is placed on the epoch
	 * by wc_request_log_align (trace/request_align.h) before use against
	 * power or engine samples; differences between its times are exact. */
	int relative_clock;
	/* Requests without an input or output token count in a log that has
	 * the column (blank, null, NaN): a consumer says how it fills or
	 * leaves them (docs/formats/telemetry.md, "Request logs"). */
	size_t missing_input, missing_output;
	/* When wc_request_log_align placed a relative_clock log by its
	 * tokens: the rms of the engine's generation_tokens_total less the
	 * log's tokens at that offset (tokens); 0 otherwise. What tells a
	 * placement that does not fit (trace/load.h, wc_trace_log_accounts). */
	double align_rms_tokens;
} wc_request_log;

/** Read a per-request log: JSON with parallel arrays (`request_timestamps`
 *  or `arrival_s`, else vLLM's `start_times` (relative_clock when below
 *  1e9 s, i.e. not epoch seconds), `ttfts`, `itls` (a mean per request, or an array of
 *  gaps), `output_lens`, `input_lens`, optional `e2els`), as the
 *  powertrace-sim / vLLM benchmark_serving detail files; or CSV with
 *  columns `arrival_s`, `completion_s`, optional `first_token_s`,
 *  `input_tokens`, `output_tokens` (epoch seconds), `errors`, `success` (a
 *  failed request is left out). Completion = arrival +
 *  e2el, else arrival + ttft + sum(itls) (or itl*(output_len-1)). Caller
 *  frees with wc_request_log_free. */
int wc_request_log_read(const char *path, const wc_telemetry_options *opt,
                        wc_request_log **out, wc_error *err);
/** The JSON form from the bytes of the file (`len` of them, any UTF-8 BOM
 *  already skipped, as wc_read_file returns them); `path` names it in
 *  messages. Caller frees with wc_request_log_free. */
int wc_request_log_read_json_buffer(const char *buf, size_t len, const char *path,
                                    const wc_telemetry_options *opt, wc_request_log **out,
                                    wc_error *err);
void wc_request_log_free(wc_request_log *log);
/** 1 when v is a token count a request of a log read with `opt` may have
 *  (whole, from 0 -- a prompt's from opt's min_input_tokens -- to
 *  opt's max_tokens or WC_CAPACITY_MAX_TOKENS: docs/formats/telemetry.md,
 *  "Request logs"); else 0, with the reason in `why`, "12.5 is no token
 *  count (a whole number, 1 to 1e+07)", as every reader of a log says it. */
int wc_request_log_check_token(const wc_telemetry_options *opt, int input, double v, char *why, size_t cap);

#ifdef __cplusplus
}
#endif
#endif
