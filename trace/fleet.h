/*
 * Fleet telemetry -> runs-table rows (docs/fleet.md): GPU power from the
 * DCGM exporter and load from vLLM's metrics, as Prometheus keeps them
 * (data/prom.h), grouped into one engine and its GPUs and cut into
 * windows of steady load. A wc_fleet is created with wc_fleet_new, fed
 * the series of successive pages of its time grid, and turned into a
 * runs table by wc_fleet_finish; wc_fleet_free releases it.
 */
#ifndef WC_TRACE_FLEET_H
#define WC_TRACE_FLEET_H

#include <stddef.h>

#include "data/prom.h"
#include "data/runs_table.h"
#include "data/telemetry.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The metrics read, in query order (docs/fleet.md, "Metrics"). */
typedef enum {
	WC_FLEET_POWER,        /* DCGM_FI_DEV_POWER_USAGE (or _INSTANT), W per GPU (gauge) */
	WC_FLEET_FB_USED,      /* DCGM_FI_DEV_FB_USED, MiB per GPU (gauge): which of a host's
	                        * GPUs an engine holds (docs/fleet.md, "Grouping") */
	WC_FLEET_RUNNING,      /* vllm:num_requests_running (gauge) */
	WC_FLEET_WAITING,      /* vllm:num_requests_waiting (gauge) */
	WC_FLEET_PROMPT,       /* vllm:prompt_tokens_total (counter) */
	WC_FLEET_GENERATION,   /* vllm:generation_tokens_total (counter) */
	WC_FLEET_TTFT_SUM,     /* vllm:time_to_first_token_seconds_sum (counter) */
	WC_FLEET_TTFT_COUNT,
	WC_FLEET_ITL_SUM,      /* vllm:time_per_output_token_seconds_sum (counter), or its
	                        * successor vllm:inter_token_latency_seconds_sum
	                        * (SGLang's engine names: wc_fleet_metric_alias) */
	WC_FLEET_ITL_COUNT,
	WC_FLEET_N_METRICS
} wc_fleet_metric;

#define WC_FLEET_FIRST_COUNTER WC_FLEET_PROMPT
#define WC_FLEET_N_COUNTERS (WC_FLEET_N_METRICS - WC_FLEET_FIRST_COUNTER)
/** Steps per query_range page at most: below Prometheus's 11 000 points
 *  per series. */
#define WC_FLEET_PAGE_STEPS 10000
/** ... and by default: smaller pages parse faster and keep the peak RSS
 *  low (docs/results.md, "Fleet ingest from Prometheus"). */
#define WC_FLEET_DEFAULT_PAGE_STEPS 2000

/** The shortest step, s: a query's range is one millisecond short of the
 *  step, so that no sample counts in two steps (docs/fleet.md, "Queries"),
 *  and 1 ms is the shortest range PromQL expresses. A 1 ms step queried
 *  [1ms], each sample counted twice. */
#define WC_FLEET_MIN_STEP 0.002

/** Other names a metric may have, at most. */
#define WC_FLEET_MAX_ALIASES 3
/** Bytes a query needs at most: every name of a metric with the longest
 *  selector (1023 characters). */
#define WC_FLEET_QUERY_MAX 8192

const char *wc_fleet_metric_name(int m);
/** The k-th other name of metric `m` (k from 0), or NULL past the last:
 *  vLLM's newer names (0.11 renamed time_per_output_token to
 *  inter_token_latency; 0.13 removed the old name), SGLang's
 *  (`sglang:num_running_reqs`, ...) and DCGM's instantaneous power
 *  (docs/fleet.md, "Metrics"). Where a group has two names of an engine
 *  metric, or a GPU two of its power, the preferred one is read. */
const char *wc_fleet_metric_alias(int m, int k);
/** Preference of `name` for metric `m` (0 = most preferred): the engines'
 *  aliases before the name itself (they are its successors or another
 *  engine's), the power's name before its alias (a fallback); -1 when it
 *  is none of them. */
int wc_fleet_metric_rank(int m, const char *name);
/** The name of metric `m` of preference `r` (wc_fleet_metric_rank's
 *  inverse), or NULL past the last. */
const char *wc_fleet_metric_ranked(int m, int r);
/** -1 when `name` is none of the metrics nor their aliases. */
int wc_fleet_metric_from_name(const char *name);
/** The PromQL of metric `m` for a step of `step` s, restricted by
 *  `selector` (`{a="b"}`, `a="b"` or "" / NULL): the gauge's mean, or the
 *  counter's last value, over each step (t - step, t], renamed to the
 *  metric so that saved responses say what they hold; a metric with
 *  aliases takes each label set from the first name, in order of
 *  preference, that has it. */
int wc_fleet_query(int m, const char *selector, double step, char *buf, size_t size,
                   wc_error *err);

/** `selector` (`{a="b",c=~"d"}`, braces optional; "" / NULL none) is a
 *  list of PromQL label matchers; an error names --selector and the
 *  column (docs/fleet.md, "Queries"). */
int wc_fleet_selector_check(const char *selector, wc_error *err);

typedef struct {
	double start, end, step;   /* grid start + k*step <= end; NaN = from the data (files) */
	const char *group_by;      /* comma-separated labels; NULL = "host,namespace,pod" */
	double hold_s;             /* a load change must last this long to cut (NaN: max(10, 3 x step)) */
	double rel_tol, abs_tol;   /* ... and differ by more than max(abs, rel*mean) (0.25, 2) */
	double min_window_s;       /* shorter windows get an `exclude` reason (60) */
	const char *platform;      /* when modelName is missing or unknown */
	const char *model;         /* when the engine's model_name is missing */
	double active_params_b;    /* when the model is not in the catalog (NaN) */
	wc_warn_fn warn;           /* NULL = silent */
	void *warn_payload;
	int max_warnings;          /* then one "further warnings suppressed" (50) */
	wc_warn_fn verbose;        /* queries, pages, a first or last step left out; NULL = quiet */
	size_t page_steps;         /* steps per query; 0 = WC_FLEET_DEFAULT_PAGE_STEPS */
	double timeout_s;          /* a request's wait; 0 = WC_PROM_HTTP_TIMEOUT_S */
} wc_fleet_options;

void wc_fleet_options_init(wc_fleet_options *o);

typedef struct wc_fleet wc_fleet;

/** `o` is copied (its strings are borrowed and must outlive the fleet);
 *  the grid must be known (start, end, step finite, step >= 1 ms). */
int wc_fleet_new(const wc_fleet_options *o, wc_fleet **out, wc_error *err);
/** The series of `set` over grid steps k0 <= k < k1 (samples outside are
 *  ignored); pages must come in order. */
int wc_fleet_feed(wc_fleet *f, const wc_prom_set *set, size_t k0, size_t k1, wc_error *err);
/** Close every window and hand the rows over as a runs table (sorted by
 *  group and start; extras in docs/fleet.md). A GPU group that never had
 *  an engine series is an error naming its series. */
int wc_fleet_finish(wc_fleet *f, wc_runs_table **out, wc_error *err);
void wc_fleet_free(wc_fleet *f);

/** Query the server at `url` page by page and build the table. */
int wc_fleet_ingest_http(const char *url, const char *selector, const wc_fleet_options *o,
                         wc_runs_table **out, wc_error *err);
/** The same from saved query_range responses and text scrapes, of
 *  which the series `selector` matches are read; a grid left NaN in `o`
 *  is taken from the power samples (step: their smallest spacing). */
int wc_fleet_ingest_files(const char *const *json, size_t n_json, const char *const *scrapes,
                          size_t n_scrapes, const char *selector, const wc_fleet_options *o,
                          wc_runs_table **out, wc_error *err);

#ifdef __cplusplus
}
#endif
#endif
