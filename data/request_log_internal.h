/* Private to data/: the per-request logs' readers, the JSON form and what
 * both forms share (data/request_log.c) and requests.csv
 * (data/request_log_csv.c). */
#ifndef WC_DATA_REQUEST_LOG_INTERNAL_H
#define WC_DATA_REQUEST_LOG_INTERNAL_H

#include <stddef.h>

#include "data/request_log.h"
#include "telemetry_internal.h"

/** The token counts a request may have, [*lo, *hi]: whole numbers from 0
 *  (a prompt's: the consumer's minimum) to WC_CAPACITY_MAX_TOKENS or the
 *  consumer's own maximum (docs/formats/telemetry.md, "Request logs"). */
void wc__request_log_token_range(const wc_telemetry_options *opt, int input, double *lo, double *hi);
/** 1 when v is a token count of that range: a whole number in it. */
int wc__request_log_is_token_count(const wc_telemetry_options *opt, int input, double v);
/** WC_EINVAL naming the unit when the first arrival t is no epoch second
 *  and neither is the next one, `next` (NaN none): the log's unit, one
 *  rule for both forms; a first arrival alone in another unit is judged
 *  as any later one (`path` then `where`, ":line:column" or
 *  ": /JSON/path", name the cell). */
int wc__request_log_other_unit(double t, double next, const char *path, const char *where, wc_error *err);
/** A request log spans one run: a time this far from the log's first
 *  arrival (about four months) is in another unit or corrupt, not a
 *  request of the run. */
#define WC__REQ_MAX_SPAN_S 1e7

/** Why a later time `t` of a log whose first arrival is `first` is in
 *  another unit than seconds, or corrupt (docs/formats/telemetry.md,
 *  "Times in another unit"): its own unit (an epoch log's), else its
 *  distance from the first arrival beyond a run's span (about four
 *  months), in `why`. 0 when it is a time of the run. */
int wc__request_log_time_odd(double t, double first, int epoch, char *why, size_t cap);
/** The second reason alone, for a time known to lie beyond the span. */
void wc__request_log_far(double t, double first, char *why, size_t cap);
/** Say, once, how many of n requests failed and are left out. */
void wc__request_log_warn_failed(const char *path, const wc_telemetry_options *opt, size_t failed, size_t n);
/** A log with room for `cap` requests in every array; NULL out of memory. */
wc_request_log *wc__request_log_alloc(size_t cap);
/** Read requests.csv (data/request_log_csv.c). */
int wc__request_log_read_csv(const char *path, const wc_telemetry_options *opt, wc_request_log **out, wc_error *err);

#endif
