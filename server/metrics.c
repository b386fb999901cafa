/*
 * GET /metrics in the Prometheus text exposition format (version 0.0.4):
 * requests by route and status, a latency histogram per route, requests
 * in flight, parameter reloads, and the loaded parameters' version and
 * load time. Handlers update plain atomic counters (relaxed: each counter
 * is independent); rendering reads them without locks.
 */
#include "routes_internal.h"

#include "data/data.h"

#include <stdio.h>
#include <stdlib.h>

static const int statuses[WC_METRIC_N_STATUS - 1] = { 200, 400, 404, 405, 413, 415, 422, 500, 503 };
/* Upper bounds (seconds) of the latency buckets; the last one is +Inf. */
static const double bounds[WC_METRIC_N_BUCKETS - 1] = {
	0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5,
};

void
wc_metrics_record(wc_metrics *m, int route, int status, double seconds)
{
	int s = WC_METRIC_N_STATUS - 1, b = WC_METRIC_N_BUCKETS - 1;
	for (int i = 0; i < WC_METRIC_N_STATUS - 1; i++)
		if (statuses[i] == status) {
			s = i;
			break;
		}
	for (int i = 0; i < WC_METRIC_N_BUCKETS - 1; i++)
		if (seconds <= bounds[i]) {
			b = i;
			break;
		}
	atomic_fetch_add_explicit(&m->requests[route][s], 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&m->latency_bucket[route][b], 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&m->latency_ns_sum[route], (unsigned long long)(seconds * 1e9),
	                          memory_order_relaxed);
}

static const char *
route_label(int r)
{
	return r == WC_ROUTE_UNMATCHED ? "unmatched" : wc_route_at((size_t)r)->path;
}

static void
render_requests(wc_buf *b, wc_metrics *m)
{
	wc_buf_printf(b, "# HELP wattcast_http_requests_total HTTP requests answered, by route and status.\n"
	                 "# TYPE wattcast_http_requests_total counter\n");
	for (int r = 0; r < WC_ROUTE_MAX; r++) {
		if (r >= (int)wc_route_count() && r != WC_ROUTE_UNMATCHED)
			continue;
		for (int s = 0; s < WC_METRIC_N_STATUS; s++) {
			unsigned long long v = atomic_load_explicit(&m->requests[r][s], memory_order_relaxed);
			if (v == 0)
				continue;
			if (s == WC_METRIC_N_STATUS - 1)
				wc_buf_printf(b, "wattcast_http_requests_total{route=\"%s\",status=\"other\"} %llu\n",
				              route_label(r), v);
			else
				wc_buf_printf(b, "wattcast_http_requests_total{route=\"%s\",status=\"%d\"} %llu\n",
				              route_label(r), statuses[s], v);
		}
	}
}

static void
render_latency(wc_buf *b, wc_metrics *m)
{
	wc_buf_printf(b, "# HELP wattcast_http_request_duration_seconds Time from request dispatch to the answer ready to write.\n"
	                 "# TYPE wattcast_http_request_duration_seconds histogram\n");
	for (int r = 0; r < WC_ROUTE_MAX; r++) {
		if (r >= (int)wc_route_count() && r != WC_ROUTE_UNMATCHED)
			continue;
		unsigned long long cum = 0, counts[WC_METRIC_N_BUCKETS];
		for (int i = 0; i < WC_METRIC_N_BUCKETS; i++) {
			counts[i] = atomic_load_explicit(&m->latency_bucket[r][i], memory_order_relaxed);
			cum += counts[i];
		}
		if (cum == 0)
			continue;
		cum = 0;
		for (int i = 0; i < WC_METRIC_N_BUCKETS; i++) {
			cum += counts[i];
			if (i < WC_METRIC_N_BUCKETS - 1)
				wc_buf_printf(b, "wattcast_http_request_duration_seconds_bucket{route=\"%s\",le=\"%g\"} %llu\n",
				              route_label(r), bounds[i], cum);
			else
				wc_buf_printf(b, "wattcast_http_request_duration_seconds_bucket{route=\"%s\",le=\"+Inf\"} %llu\n",
				              route_label(r), cum);
		}
		wc_buf_printf(b, "wattcast_http_request_duration_seconds_sum{route=\"%s\"} %.9f\n"
		                 "wattcast_http_request_duration_seconds_count{route=\"%s\"} %llu\n",
		              route_label(r),
		              1e-9 * (double)atomic_load_explicit(&m->latency_ns_sum[r], memory_order_relaxed),
		              route_label(r), cum);
	}
}

/* Label values escape backslash, double quote and newline. */
static void
label_escape(const char *in, char *out, size_t cap)
{
	size_t n = 0;
	for (; *in && n + 3 < cap; in++) {
		if (*in == '\\' || *in == '"' || *in == '\n') {
			out[n++] = '\\';
			out[n++] = *in == '\n' ? 'n' : *in;
		} else {
			out[n++] = *in;
		}
	}
	out[n] = '\0';
}

void
wc_route_metrics(wc_request *req, wc_response *res)
{
	wc_buf b = { 0 };
	wc_server *srv = req->srv;
	const wc_state *st = req->state;
	char name[2 * WC_NAME_MAX + 4];

	label_escape(wc_predictor_params(st->pred)->name, name, sizeof name);

	render_requests(&b, &srv->metrics);
	render_latency(&b, &srv->metrics);
	wc_buf_printf(&b,
	              "# HELP wattcast_http_requests_in_flight Requests being answered now.\n"
	              "# TYPE wattcast_http_requests_in_flight gauge\n"
	              "wattcast_http_requests_in_flight %d\n"
	              "# HELP wattcast_params_reloads_total Parameter reloads (SIGHUP), by result.\n"
	              "# TYPE wattcast_params_reloads_total counter\n"
	              "wattcast_params_reloads_total{result=\"ok\"} %llu\n"
	              "wattcast_params_reloads_total{result=\"failed\"} %llu\n"
	              "# HELP wattcast_params_info The parameter set new requests see.\n"
	              "# TYPE wattcast_params_info gauge\n"
	              "wattcast_params_info{version=\"%s\",name=\"%s\"} 1\n"
	              "# HELP wattcast_params_loaded_timestamp_seconds When that set was loaded (Unix time).\n"
	              "# TYPE wattcast_params_loaded_timestamp_seconds gauge\n"
	              "wattcast_params_loaded_timestamp_seconds %.3f\n",
	              atomic_load(&srv->in_flight),
	              atomic_load(&srv->metrics.reloads_ok), atomic_load(&srv->metrics.reloads_failed),
	              st->version, name, st->loaded_unix);
	unsigned long long hits, misses;
	wc_answer_cache_counts(req->profiles->answers, &hits, &misses);
	wc_buf_printf(&b,
	              "# HELP wattcast_answer_cache_lookups_total POST /v1/predict/inference bodies "
	              "looked up in the answer memo since the last reload, by result.\n"
	              "# TYPE wattcast_answer_cache_lookups_total counter\n"
	              "wattcast_answer_cache_lookups_total{result=\"hit\"} %llu\n"
	              "wattcast_answer_cache_lookups_total{result=\"miss\"} %llu\n",
	              hits, misses);
	if (b.failed) {
		wc_buf_free(&b);
		wc_response_text(res, 500, NULL, 0);
		return;
	}
	wc_response_text(res, 200, b.data, b.len);
	res->content_type = "text/plain; version=0.0.4; charset=utf-8";
}
