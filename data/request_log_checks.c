/*
 * Checks over a whole per-request log once read (data/request_log.c):
 * requests that repeat another exactly, and the requests without a token
 * count (docs/formats/telemetry.md, "Request logs").
 */
#include "prom.h"
#include "request_log_internal.h"
#include "telemetry_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "data/request_log.h"

/* Count the requests without a token count, for the columns the log has. */
void
wc__request_log_count_missing(wc_request_log *log, int has_input, int has_output)
{
	for (size_t i = 0; i < log->n; i++) {
		log->missing_input += has_input && !isfinite(log->input_tokens[i]);
		log->missing_output += has_output && !isfinite(log->output_tokens[i]);
	}
}

typedef struct {
	double v[5]; /* arrival, completion, first token, input, output */
} req_key;

/* Total order on the five values, NaN after every number. */
static int
by_values(const void *pa, const void *pb)
{
	const req_key *a = pa, *b = pb;
	for (int k = 0; k < 5; k++) {
		double x = a->v[k], y = b->v[k];
		if (isnan(x) || isnan(y)) {
			if (isnan(x) != isnan(y))
				return isnan(x) ? 1 : -1;
			continue;
		}
		if (x != y)
			return x < y ? -1 : 1;
	}
	return 0;
}

/* Say how many requests repeat another exactly (arrival, first token,
 * completion and both lengths): a log appended to itself, which would
 * count each request twice. They are kept -- two requests can share
 * times written at a coarse resolution -- and the warning says so. */
void
wc__request_log_warn_repeats(const wc_request_log *log, const char *path, const wc_telemetry_options *opt)
{
	req_key *k = log->n > 1 ? malloc(log->n * sizeof *k) : NULL;
	size_t rep = 0;
	if (!k)
		return;
	for (size_t i = 0; i < log->n; i++)
		k[i] = (req_key){ { log->arrival[i], log->completion[i], log->first_token[i],
			            log->input_tokens[i], log->output_tokens[i] } };
	qsort(k, log->n, sizeof *k, by_values);
	for (size_t i = 1; i < log->n; i++)
		rep += by_values(&k[i - 1], &k[i]) == 0;
	free(k);
	if (rep)
		wc__warn(opt, path, ": %zu of %zu requests repeat another exactly (arrival, first token, completion, "
		         "lengths): a log appended to itself counts each twice; kept", rep, log->n);
}


void
wc__request_log_far(double t, double first, char *why, size_t cap)
{
	snprintf(why, cap, "%.17g is %.3g s from the log's first arrival: another unit than seconds?", t,
	         fabs(t - first));
}

int
wc__request_log_time_odd(double t, double first, int epoch, char *why, size_t cap)
{
	char unit[160];
	if (epoch && wc_prom_time_other_unit(t, unit, sizeof unit)) {
		snprintf(why, cap, "%s: another unit than seconds?", unit);
		return 1;
	}
	if (!(fabs(t - first) > WC__REQ_MAX_SPAN_S))
		return 0;
	wc__request_log_far(t, first, why, cap);
	return 1;
}
