/*
 * Private to server/: the counters GET /metrics reports (metrics.c).
 */
#ifndef WC_SERVER_METRICS_INTERNAL_H
#define WC_SERVER_METRICS_INTERNAL_H

#include <stdatomic.h>

/* Statuses counted one by one (metrics.c); the last slot counts the rest. */
enum { WC_METRIC_N_STATUS = 10, WC_METRIC_N_BUCKETS = 15 };
#define WC_ROUTE_MAX 32

/** Counters of one server; all atomic, updated lock-free by handlers. */
typedef struct {
	atomic_ullong requests[WC_ROUTE_MAX][WC_METRIC_N_STATUS];
	atomic_ullong latency_bucket[WC_ROUTE_MAX][WC_METRIC_N_BUCKETS];
	atomic_ullong latency_ns_sum[WC_ROUTE_MAX];
	atomic_ullong reloads_ok, reloads_failed;
} wc_metrics;

/** Count one answer of route `route` (WC_ROUTE_UNMATCHED for none). */
void wc_metrics_record(wc_metrics *m, int route, int status, double seconds);

#endif
