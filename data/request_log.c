/*
 * Per-request logs of a load generator: arrival, first-token and
 * completion times and token counts per request, from which n(t) is
 * rebuilt on a 50 ms grid (docs/formats/telemetry.md) and energy is split into prefill,
 * decode and idle (TokenPowerBench). Two forms: the JSON of parallel arrays
 * that vLLM's benchmark_serving (--save-detailed) and powertrace-sim write
 * (`request_timestamps`, `ttfts`, `itls`, `input_lens`, `output_lens`), and
 * a plain CSV (`arrival_s,completion_s[,first_token_s,input_tokens,
 * output_tokens,errors,success]`) for any other tool, read in
 * data/request_log_csv.c with the checks both forms share, here.
 */
#include "data_internal.h"
#include "json_internal.h"
#include "models/limits.h"
#include "prom.h"
#include "request_log_internal.h"
#include "telemetry_internal.h"

#include <jansson.h>
#include <math.h>
#include "models/grow.h"
#include <stdlib.h>
#include <string.h>

/* The token counts a request of the log may have: whole numbers from 0
 * (a prompt's: the consumer's minimum, when it sets one) to
 * WC_CAPACITY_MAX_TOKENS, or the consumer's own maximum when smaller
 * (docs/formats/telemetry.md, "Request logs"). */
void
wc__request_log_token_range(const wc_telemetry_options *opt, int input, double *lo, double *hi)
{
	*lo = input && opt->min_input_tokens > 0 ? opt->min_input_tokens : 0.0;
	*hi = opt->max_tokens > 0 && opt->max_tokens < WC_CAPACITY_MAX_TOKENS ? opt->max_tokens
	                                                                       : WC_CAPACITY_MAX_TOKENS;
}

/* A token count: a whole number in the range; 12.5 is a cell of another
 * column (a latency mapped to it), not a count. */
int
wc__request_log_is_token_count(const wc_telemetry_options *opt, int input, double v)
{
	double lo, hi;
	wc__request_log_token_range(opt, input, &lo, &hi);
	return wc__json_is_count(v, lo, hi);
}

/* The one reason a token count is refused for, in every reader of a log
 * and in what takes a log's counts as JSON arrays (the HTTP replay's
 * workload.arrivals, docs/http-api.md "Envelopes"): the value in full,
 * since %g rounds 44.0000001 to a whole 44. */
int
wc_request_log_check_token(const wc_telemetry_options *opt, int input, double v, char *why, size_t cap)
{
	double lo, hi;
	char num[32];
	if (wc__request_log_is_token_count(opt, input, v))
		return 1;
	wc__request_log_token_range(opt, input, &lo, &hi);
	snprintf(why, cap, "%s is no token count (a whole number, %g to %g)", wc_num_text(num, v), lo, hi);
	return 0;
}

/* A log whose arrivals are no epoch seconds but of another unit
 * (milliseconds from Date.now(), nanoseconds from time.time_ns()) is
 * refused naming the unit, as engine.csv's first time is, instead of
 * failing the clock check, which blames the UTC offset
 * (docs/formats/telemetry.md, "Clocks and UTC offsets"). The log's unit
 * is its first arrival's `t` only when the next one (`next`, NaN none)
 * agrees: a lone first arrival in milliseconds beside seconds is that
 * entry's slip, judged as any later one (one bad entry or line), not
 * the log's -- "convert them to seconds" was wrong advice for a log
 * whose other arrivals were seconds, and --max-bad could not pass it.
 * `path` then `where` name the cell (":line:column" or ": /JSON/path"),
 * the path by the one rule for quoting it (docs/architecture.md,
 * "Errors"). */
int
wc__request_log_other_unit(double t, double next, const char *path, const char *where, wc_error *err)
{
	char why[160], also[160];
	if (!wc_prom_time_other_unit(t, why, sizeof why))
		return WC_OK;
	if (isfinite(next) && !wc_prom_time_other_unit(next, also, sizeof also))
		return WC_OK;
	return wc_error_set_path(err, WC_EINVAL, path, "%s: the first arrival is not epoch seconds: %s; "
	                         "convert them to seconds", where, why);
}

/* Failed requests generated nothing: not requests served. Left out, said
 * in one warning -- one rule for requests.json's `errors` and
 * requests.csv's `errors` and `success` (docs/formats/telemetry.md,
 * "Request logs"). */
void
wc__request_log_warn_failed(const char *path, const wc_telemetry_options *opt, size_t failed, size_t n)
{
	if (failed)
		wc__warn(opt, path, ": %zu of %zu requests failed (their 'errors' entry says why, or 'success' is "
		         "false); left out", failed, n);
}

void
wc_request_log_free(wc_request_log *log)
{
	if (!log)
		return;
	free(log->arrival);
	free(log->first_token);
	free(log->completion);
	free(log->input_tokens);
	free(log->output_tokens);
	free(log);
}

wc_request_log *
wc__request_log_alloc(size_t cap)
{
	wc_request_log *log = calloc(1, sizeof *log);
	if (!log)
		return NULL;
	if (cap == 0)
		cap = 1;
	log->arrival = wc_alloc_array(cap, sizeof(double));
	log->first_token = wc_alloc_array(cap, sizeof(double));
	log->completion = wc_alloc_array(cap, sizeof(double));
	log->input_tokens = wc_alloc_array(cap, sizeof(double));
	log->output_tokens = wc_alloc_array(cap, sizeof(double));
	if (!log->arrival || !log->first_token || !log->completion || !log->input_tokens ||
	    !log->output_tokens) {
		wc_request_log_free(log);
		return NULL;
	}
	return log;
}

/* ------------------------------------------------------------------ JSON */

/* Array `key` of the object, NULL if absent; a wrong type or length is an
 * error (returns -1). */
static int
get_array(json_t *root, const char *key, size_t n, json_t **out, const char *path, wc_error *err)
{
	json_t *a = json_object_get(root, key);
	*out = NULL;
	if (!a || json_is_null(a))
		return 0;
	if (!json_is_array(a)) {
		wc_error_set_path(err, WC_EPARSE, path, ": /%s: expected an array", key);
		return -1;
	}
	if (n != (size_t)-1 && json_array_size(a) != n) {
		wc_error_set_path(err, WC_EPARSE, path, ": /%s: %zu entries, but %zu arrivals", key,
		             json_array_size(a), n);
		return -1;
	}
	*out = a;
	return 0;
}

static double
num_at(json_t *a, size_t i)
{
	json_t *v = a ? json_array_get(a, i) : NULL;
	return v && json_is_number(v) ? json_number_value(v) : NAN;
}

/* Entry i of a token-count array is a number or null (unknown; Python's
 * NaN reads as null): anything else is no count, refused at its entry, not
 * read as missing (docs/formats/telemetry.md, "Missing token counts"). */
static int
token_entry_ok(json_t *a, const char *key, size_t i, const char *path, wc_error *err)
{
	json_t *v = a ? json_array_get(a, i) : NULL;
	if (!v || json_is_null(v) || json_is_number(v))
		return 1;
	char *text = json_dumps(v, JSON_ENCODE_ANY);
	wc_error_set_path(err, WC_EPARSE, path, ": /%s/%zu: expected a number (tokens; null when unknown), got %.40s",
	             key, i, text ? text : "?");
	free(text);
	return 0;
}

/* The per-request arrays of the JSON (borrowed from its root); any but
 * `arr` may be absent (NULL). */
typedef struct {
	json_t *root, *arr, *ttft, *itl, *olen, *ilen, *e2el, *errors;
	size_t n;
	int start_times; /* `arr` is vLLM's start_times */
	const char *arr_key; /* the key `arr` was read from */
} req_arrays;

/* Find the arrays: arrival times and enough to place each completion. */
static int
find_arrays(json_t *root, const char *path, req_arrays *a, wc_error *err)
{
	if (get_array(root, "request_timestamps", (size_t)-1, &a->arr, path, err) ||
	    (!a->arr && get_array(root, "arrival_s", (size_t)-1, &a->arr, path, err)))
		return WC_EPARSE;
	/* vLLM's `vllm bench serve --save-detailed` writes when each request
	 * was sent as `start_times`, on time.perf_counter's clock. */
	if (!a->arr && get_array(root, "start_times", (size_t)-1, &a->arr, path, err))
		return WC_EPARSE;
	a->start_times = a->arr && !json_object_get(root, "request_timestamps") &&
	                 !json_object_get(root, "arrival_s");
	a->arr_key = a->start_times ? "start_times" : json_object_get(root, "request_timestamps") ? "request_timestamps"
	                                                                                          : "arrival_s";
	if (!a->arr)
		return wc_error_set_path(err, WC_EPARSE, path, ": no 'request_timestamps' (arrival times, epoch s) "
		                    "nor 'start_times' (vLLM's send times)");
	size_t n = a->n = json_array_size(a->arr);
	if (get_array(root, "ttfts", n, &a->ttft, path, err) || get_array(root, "itls", n, &a->itl, path, err) ||
	    get_array(root, "output_lens", n, &a->olen, path, err) ||
	    get_array(root, "input_lens", n, &a->ilen, path, err) || get_array(root, "e2els", n, &a->e2el, path, err))
		return WC_EPARSE;
	/* vLLM lists failed requests too, each with its error text. */
	json_t *e = json_object_get(root, "errors");
	a->errors = e && json_is_array(e) && json_array_size(e) == n ? e : NULL;
	if (!a->e2el && !a->ttft)
		return wc_error_set_path(err, WC_EPARSE, path, ": needs 'e2els' or 'ttfts' (with 'itls') for completion times");
	return WC_OK;
}

/* Why request i has no usable timing, at the entry that fails it (its
 * JSON path and value, as a CSV's bad line names its cell): the arrival,
 * a negative ttft (its own error, whatever the itls add), else the latency
 * the completion was to come from. `a`, `c`: arrival, completion (NaN: none). */
static void
warn_unusable(const req_arrays *ra, size_t i, double a, double c, const char *path,
              const wc_telemetry_options *opt)
{
	const double tt = num_at(ra->ttft, i);
	const char *key = !isfinite(a) ? ra->arr_key : tt < 0 ? "ttfts"
	                  : ra->e2el && (!ra->ttft || isfinite(num_at(ra->e2el, i))) ? "e2els"
	                  : !isfinite(tt) ? "ttfts" : "itls";
	json_t *arr = !isfinite(a) ? ra->arr : json_object_get(ra->root, key);
	char *text = json_dumps(json_array_get(arr, i), JSON_ENCODE_ANY);
	if (isfinite(a) && tt < 0)
		wc__warn(opt, path, ": /ttfts/%zu: %g must be >= 0 (a time to first token)", i, tt);
	else if (isfinite(a) && isfinite(c) && c < a)
		wc__warn(opt, path, ": /%s/%zu: the completion comes %g s before the arrival", key, i, a - c);
	else if (isfinite(a) && isfinite(c)) /* the first token after the completion (ttft > e2el) */
		wc__warn(opt, path, ": /ttfts/%zu: the first token comes %g s after the completion (%s)", i,
		         a + tt - c, key);
	else
		wc__warn(opt, path, ": /%s/%zu: expected a number, got %.40s", key, i, text ? text : "nothing");
	free(text);
}

/* Completion time of request i from its end-to-end latency, else from
 * its first token `f` and inter-token latencies; NAN when unknown.
 * `*count_unknown` is set when only the output count is missing (a mean
 * inter-token latency needs it): such a request is kept with its
 * completion unknown, as a null count is (docs/formats/telemetry.md,
 * "Missing token counts"). */
static double
completion_at(const req_arrays *ra, size_t i, double a, double f, double out_len, int *count_unknown)
{
	double c = NAN;
	*count_unknown = 0;
	if (ra->e2el && isfinite(num_at(ra->e2el, i))) {
		c = a + num_at(ra->e2el, i);
	} else if (isfinite(f)) {
		json_t *g = ra->itl ? json_array_get(ra->itl, i) : NULL;
		if (g && json_is_array(g)) {
			double s = 0.0;
			size_t k;
			json_t *x;
			json_array_foreach(g, k, x) s += json_is_number(x) ? json_number_value(x) : 0.0;
			c = f + s;
		} else if (g && json_is_number(g) && isfinite(out_len)) {
			/* One mean inter-token latency per request. */
			c = f + json_number_value(g) * fmax(out_len - 1.0, 0.0);
		} else if (g && json_is_number(g)) {
			*count_unknown = 1;
		} else if (!ra->itl) {
			c = f; /* no decode information: the request ends at its first token */
		}
	}
	return c;
}

static int
read_json(const char *path, const char *buf, size_t len, const wc_telemetry_options *opt,
          wc_request_log **out, wc_error *err)
{
	json_error_t jerr;
	size_t nonfinite = 0;
	json_t *root = wc__json_load_python(buf, len, JSON_REJECT_DUPLICATES, &jerr, &nonfinite);
	req_arrays ra = { 0 };
	wc_request_log *log = NULL;
	size_t skipped = 0, failed = 0;
	int rc = WC_OK;
	if (!root)
		return wc_json_error_set(err, path, "", &jerr, buf, len);
	if (!json_is_object(root)) {
		rc = wc_error_set_path(err, WC_EPARSE, path, ": expected an object of per-request arrays");
		goto done;
	}
	ra.root = root;
	if ((rc = find_arrays(root, path, &ra, err)) != WC_OK)
		goto done;
	size_t n = ra.n;
	if (!(log = wc__request_log_alloc(n))) {
		rc = wc_error_set_path(err, WC_ENOMEM, path, ": out of memory");
		goto done;
	}
	/* Start times below 1e9 s (September 2001) are not epoch seconds but
	 * a monotonic clock's: no clock correction applies to them. */
	double lowest = INFINITY;
	for (size_t i = 0; ra.start_times && i < n; i++)
		lowest = fmin(lowest, num_at(ra.arr, i));
	log->relative_clock = ra.start_times && lowest < WC_REQUEST_EPOCH_MIN_S;
	double shift = log->relative_clock ? 0.0 : opt->epoch_offset_s;
	size_t first = 0, next;
	while (first < n && !isfinite(num_at(ra.arr, first)))
		first++;
	next = first + 1;
	while (next < n && !isfinite(num_at(ra.arr, next)))
		next++;
	if (first < n && !log->relative_clock) {
		char where[128];
		snprintf(where, sizeof where, ": /%s/%zu", ra.arr_key, first);
		if ((rc = wc__request_log_other_unit(num_at(ra.arr, first), next < n ? num_at(ra.arr, next) : NAN,
		                                     path, where, err)) != WC_OK)
			goto done;
		/* a first arrival of another unit, the next in seconds: the
		 * later ones are judged from the next, the first as they are */
		char unit[160];
		if (wc_prom_time_other_unit(num_at(ra.arr, first), unit, sizeof unit))
			first = next;
	}
	for (size_t i = 0; i < n; i++) {
		json_t *why = ra.errors ? json_array_get(ra.errors, i) : NULL;
		if (why && json_is_string(why) && json_string_length(why) > 0) {
			failed++; /* it generated nothing: not a request served */
			continue;
		}
		/* each later arrival judged on its own, as requests.csv's cells
		 * are: one in milliseconds was replayed months after the run */
		char odd[200];
		if (i != first && isfinite(num_at(ra.arr, i)) &&
		    wc__request_log_time_odd(num_at(ra.arr, i), num_at(ra.arr, first), !log->relative_clock, odd,
		                             sizeof odd)) {
			if ((int)skipped++ < opt->max_warnings)
				wc__warn(opt, path, ": /%s/%zu: %s", ra.arr_key, i, odd);
			continue;
		}
		double a = num_at(ra.arr, i) + shift, c;
		double tt = num_at(ra.ttft, i), out_len = num_at(ra.olen, i), in_len = num_at(ra.ilen, i);
		if (!token_entry_ok(ra.ilen, "input_lens", i, path, err) ||
		    !token_entry_ok(ra.olen, "output_lens", i, path, err)) {
			rc = WC_EPARSE;
			goto done;
		}
		/* a count no request has is named at its entry, not later at an
		 * index of the sorted arrivals */
		char no_count[120];
		int bad_in = !isnan(in_len) && !wc_request_log_check_token(opt, 1, in_len, no_count, sizeof no_count);
		if (bad_in || (!isnan(out_len) && !wc_request_log_check_token(opt, 0, out_len, no_count, sizeof no_count))) {
			rc = wc_error_set_path(err, WC_EPARSE, path, ": /%s/%zu: %s", bad_in ? "input_lens" : "output_lens",
			                       i, no_count);
			goto done;
		}
		double f = isfinite(tt) ? a + tt : NAN;
		int count_unknown;
		c = completion_at(&ra, i, a, f, out_len, &count_unknown);
		if (!isfinite(a) || (!isfinite(c) && !count_unknown) || (count_unknown ? f : c) < a || tt < 0 ||
		    f > c) {
			if ((int)skipped++ < opt->max_warnings)
				warn_unusable(&ra, i, a, c, path, opt);
			continue;
		}
		size_t k = log->n++;
		log->arrival[k] = a;
		log->first_token[k] = f;
		log->completion[k] = c;
		log->input_tokens[k] = in_len;
		log->output_tokens[k] = out_len;
	}
	if (nonfinite)
		wc__warn(opt, path, ": %zu NaN or Infinity values (Python's JSON) read as unknown", nonfinite);
	wc__request_log_warn_failed(path, opt, failed, n);
	if (skipped)
		wc__warn(opt, path, ": %zu of %zu requests have no usable timing; left out", skipped, n);
	if (skipped > 0 && (double)skipped > opt->max_bad_fraction * (double)n) {
		rc = wc_error_set_path(err, WC_EPARSE, path, ": fix the requests%s%s%s: %zu of %zu requests unusable "
		                  "(more than %g %%)", opt->max_bad_option ? " or allow more with " : "",
		                  opt->max_bad_option ? opt->max_bad_option : "",
		                  opt->max_bad_option ? " FRACTION" : "", skipped, n,
		                  100.0 * opt->max_bad_fraction);
		goto done;
	}
	wc__request_log_warn_repeats(log, path, opt);
	wc__request_log_count_missing(log, ra.ilen != NULL, ra.olen != NULL);
	*out = log;
	log = NULL;
done:
	wc_request_log_free(log);
	json_decref(root);
	return rc;
}

int
wc_request_log_read(const char *path, const wc_telemetry_options *opt, wc_request_log **out,
                    wc_error *err)
{
	static const wc_telemetry_options defaults = WC_TELEMETRY_OPTIONS_INIT;
	char *buf = NULL;
	size_t len;
	int rc;
	*out = NULL;
	if (!opt)
		opt = &defaults;
	size_t plen = strlen(path);
	if (plen >= 4 && strcmp(path + plen - 4, ".csv") == 0)
		return wc__request_log_read_csv(path, opt, out, err);
	if ((rc = wc_read_file(path, WC_REQUEST_LOG_MAX_BYTES, &buf, &len, err)) != WC_OK)
		return rc;
	rc = wc_request_log_read_json_buffer(buf, len, path, opt, out, err);
	free(buf);
	return rc;
}

int
wc_request_log_read_json_buffer(const char *buf, size_t len, const char *path,
                                const wc_telemetry_options *opt, wc_request_log **out, wc_error *err)
{
	static const wc_telemetry_options defaults = WC_TELEMETRY_OPTIONS_INIT;
	*out = NULL;
	int rc = read_json(path, buf, len, opt ? opt : &defaults, out, err);
	if (rc == WC_OK && (*out)->n == 0) {
		wc_request_log_free(*out);
		*out = NULL;
		rc = wc_error_set_path(err, WC_EPARSE, path, ": no requests");
	}
	return rc;
}
