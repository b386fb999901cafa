/*
 * Prometheus HTTP API responses (query_range, or query of a range vector):
 * `{"status":"success","data":{"resultType":"matrix","result":[...]}}`
 * (docs/formats/prometheus.md; the API is described at
 * https://prometheus.io/docs/prometheus/latest/querying/api/). Parsed
 * with jansson; each refusal names the input and the JSON path.
 */
#include "data/prom.h"
#include "models/limits.h"

#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/fileio.h"
#include "json_internal.h"
#include "data_internal.h"

/* Responses larger than this are refused (paging keeps them far below). */

static int
error_status(json_t *root, const char *origin, wc_error *err)
{
	const char *type = json_string_value(json_object_get(root, "errorType"));
	const char *msg = json_string_value(json_object_get(root, "error"));
	return wc_error_set_path(err, WC_EINVAL, origin, ": Prometheus answered %s: %s",
	                         type ? type : "an error", msg ? msg : "(no message)");
}

/* The labels of result[i] into names/values (borrowed from the JSON). */
static int
series_labels(json_t *labels, const char *origin, size_t i, const char *metric,
              const char **name, size_t *n, const char **names, const char **values, wc_error *err)
{
	const char *k;
	json_t *v;
	*n = 0;
	*name = metric;
	if (!json_is_object(labels))
		return wc_error_set_path(err, WC_EPARSE, origin, ": /data/result/%zu/metric: not an object", i);
	json_object_foreach(labels, k, v) {
		const char *s = json_string_value(v);
		char why[64];
		if (!s)
			return wc_error_set_path(err, WC_EPARSE, origin, ": /data/result/%zu/metric/%s: not a string",
			                         i, k);
		/* a control byte ("\n") would split the runs table's cell it
		 * becomes, as in a scrape (data/prom_text.c); UTF-8 is checked
		 * on the whole text before parsing */
		if (wc__text_refused(s, SIZE_MAX, why, sizeof why))
			return wc_error_set_path(err, WC_EPARSE, origin, ": /data/result/%zu/metric/%s: %s", i, k, why);
		if (strcmp(k, "__name__") == 0) {
			/* No metric is named "": a series under it would match none. */
			if (!metric && !s[0])
				return wc_error_set_path(err, WC_EPARSE, origin,
				                         ": /data/result/%zu/metric/__name__: empty metric name",
				                         i);
			/* The series' own name, even when one metric was queried:
			 * a query of several names (a metric's aliases, each
			 * named back by label_replace) answers each under its
			 * own, and a warning quoting a series' values must name
			 * it (docs/fleet.md, "Queries"). */
			if (s[0])
				*name = s;
			continue;
		}
		if (*n >= WC_PROM_MAX_LABELS)
			return wc_error_set_path(err, WC_EPARSE, origin, ": /data/result/%zu/metric: more than %d labels",
			                         i, WC_PROM_MAX_LABELS);
		names[*n] = k;
		values[*n] = s;
		(*n)++;
	}
	if (!*name)
		return wc_error_set_path(err, WC_EPARSE, origin,
		                         ": /data/result/%zu/metric: no __name__ label (save the responses of "
		                         "the queries `wattcast ingest --prometheus URL --verbose` prints)",
		                         i);
	return WC_OK;
}

static int
parse_series(json_t *r, const char *origin, size_t i, const char *metric, wc_prom_set *set,
             wc_error *err)
{
	const char *names[WC_PROM_MAX_LABELS], *values[WC_PROM_MAX_LABELS], *name;
	size_t n, j;
	int rc = series_labels(json_object_get(r, "metric"), origin, i, metric, &name, &n, names,
	                       values, err);
	if (rc != WC_OK)
		return rc;
	json_t *vals = json_object_get(r, "values"), *pair;
	if (!json_is_array(vals))
		return wc_error_set_path(err, WC_EPARSE, origin, ": /data/result/%zu/values: not an array", i);
	/* One look-up per series, not per sample: a page holds 10 000 of them. */
	long pos = wc_prom_set_find(set, name, n, names, values, err);
	if (pos < 0)
		return err ? err->code : WC_EINVAL;
	set->s[pos].query_range = 1;
	json_array_foreach(vals, j, pair) {
		double t, v;
		json_t *jt = json_array_get(pair, 0);
		/* Prometheus writes a value as a string ("1.5", "NaN", "+Inf"). */
		const char *text = json_string_value(json_array_get(pair, 1));
		if (!json_is_array(pair) || json_array_size(pair) != 2 || !json_is_number(jt) || !text)
			return wc_error_set_path(err, WC_EPARSE, origin,
			                         ": /data/result/%zu/values/%zu: not a [time, \"value\"] pair",
			                         i, j);
		/* A pair whose value is no number says so: "not a pair" sent the
		 * user looking at the pair's shape (docs/formats/prometheus.md). */
		/* A number beyond a double (1e400), which Prometheus never
		 * writes, read as infinity was refused as "= inf ... is not a
		 * count", a text the file never held: refused here as written. */
		if (wc__prom_number(text, &v) != WC_OK || (isinf(v) && !strpbrk(text, "iI")))
			return wc_error_set_path(err, WC_EPARSE, origin, ": /data/result/%zu/values/%zu/1: value '%.40s' is "
			                         "not a number (expected " WC__PROM_NUMBER_EXPECTED ")", i, j, text);
		t = json_number_value(jt);
		char why[200];
		if (wc_prom_time_check(t, 0, why, sizeof why) != WC_OK)
			return wc_error_set_path(err, WC_ERANGE, origin, ": /data/result/%zu/values/%zu: %s", i, j,
			                         why);
		/* The file too: pages out of order and a series twice in one
		 * response said only the series. */
		char where[80];
		snprintf(where, sizeof where, ": /data/result/%zu/values/%zu: ", i, j);
		if ((rc = wc__prom_set_append_at(set, pos, t, v, origin, where, err)) != WC_OK)
			return rc;
	}
	return WC_OK;
}

/* An answer that is no JSON at all: an exporter's /metrics text, or an
 * HTML login or proxy page (--prometheus given another URL than the
 * server's, a scrape saved as --prometheus-json). Jansson's "'[' or '{'
 * expected near '<'" at 1:1 said neither (docs/formats/prometheus.md).
 * Named with its first bytes, controls as blanks; WC_OK when the text
 * starts as JSON does. */
static int
not_json(const char *buf, size_t len, const char *origin, wc_error *err)
{
	size_t i = 0;
	while (i < len && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\n' || buf[i] == '\r'))
		i++;
	if (i < len && (buf[i] == '{' || buf[i] == '['))
		return WC_OK;
	if (i == len)
		return wc_error_set_path(err, WC_EPARSE, origin, ": an empty answer, not a Prometheus "
		                         "query_range answer (JSON)");
	char head[48];
	size_t n = 0;
	for (; i < len && n < 40; i++)
		head[n++] = (unsigned char)buf[i] < 0x20 || buf[i] == 0x7f ? ' ' : buf[i];
	while (n > 0 && head[n - 1] == ' ')
		n--;
	head[n] = '\0';
	return wc_error_set_path(err, WC_EPARSE, origin, ": not JSON, so not a Prometheus query_range "
	                         "answer (an exporter's metrics, which --scrapes reads, or a login or proxy "
	                         "page?); it begins '%s'", head);
}

/* The answer's "warnings" and "infos" (Prometheus 2.x/3.x, Thanos,
 * Cortex/Mimir): a store or remote-read failure is answered "success"
 * with the series it could read and a warning, so a whole host's rows
 * vanished without a word (docs/formats/prometheus.md, "Warnings of an
 * answer"). Each entry said through `warn`, named by the answer's origin;
 * its text cut at SERVER_TEXT bytes, controls as blanks. */
#define SERVER_TEXT 200

static void
server_notes(json_t *root, const char *origin, wc_warn_fn warn, void *payload)
{
	static const char *const key[2] = { "warnings", "infos" };
	static const char *const what[2] = { "the server warns (a partial answer may lack series or samples)",
	                                     "the server notes" };
	for (int k = 0; warn && k < 2; k++) {
		json_t *list = json_object_get(root, key[k]), *e;
		size_t i;
		if (list && !json_is_array(list) && !json_is_null(list)) {
			char msg[WC_PROM_URL_SHOWN + 80];
			snprintf(msg, sizeof msg, "%.*s: /%s is not an array, so not read", WC_PROM_URL_SHOWN, origin,
			         key[k]);
			warn(msg, payload);
			continue;
		}
		json_array_foreach(list, i, e) {
			char *dumped = json_is_string(e) ? NULL : json_dumps(e, JSON_ENCODE_ANY | JSON_COMPACT);
			const char *text = json_is_string(e) ? json_string_value(e) : dumped ? dumped : "";
			char shown[SERVER_TEXT + 4], msg[WC_PROM_URL_SHOWN + SERVER_TEXT + 160];
			size_t n = wc_utf8_keep(text, SERVER_TEXT);
			for (size_t j = 0; j < n; j++)
				shown[j] = (unsigned char)text[j] < 0x20 || text[j] == 0x7f ? ' ' : text[j];
			memcpy(shown + n, text[n] ? "..." : "", text[n] ? 4 : 1);
			snprintf(msg, sizeof msg, "%.*s: /%s/%zu: %s: %s", WC_PROM_URL_SHOWN, origin, key[k], i, what[k],
			         shown);
			warn(msg, payload);
			free(dumped);
		}
	}
}

int
wc_prom_json_parse(const char *buf, size_t len, const char *origin, const char *metric,
                   wc_prom_set *set, wc_warn_fn warn, void *payload, wc_error *err)
{
	json_error_t je;
	int rc = not_json(buf, len, origin, err);
	if (rc != WC_OK)
		return rc;
	/* a label value that is not UTF-8 (a Latin-1 model_name "caf\xe9"),
	 * named at its byte as a scrape's is; jansson counted characters */
	if ((rc = wc__json_refuse_utf8(origin, buf, len, err)) != WC_OK)
		return rc;
	json_t *root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &je);
	if (!root)
		return wc_json_error_set(err, origin, "", &je, buf, len);
	const char *status = json_string_value(json_object_get(root, "status"));
	json_t *data = json_object_get(root, "data"), *result = json_object_get(data, "result");
	const char *type = json_string_value(json_object_get(data, "resultType"));
	/* promtool query range -o json writes the result array alone, without
	 * the API's envelope: it was "/status: missing", no remedy
	 * (docs/formats/prometheus.md). */
	if (json_is_array(root))
		rc = wc_error_set_path(err, WC_EPARSE, origin, ": a bare array of series, not a query_range answer "
		                       "(promtool query range -o json's?): save the API's answer, curl -sG "
		                       "SERVER/api/v1/query_range --data-urlencode query=... (docs/fleet.md)");
	else if (!status || strcmp(status, "success") != 0)
		rc = status ? error_status(root, origin, err)
		            : wc_error_set_path(err, WC_EPARSE, origin, ": /status: missing (not a Prometheus API "
		                                "response)");
	else if (!type || strcmp(type, "matrix") != 0)
		rc = wc_error_set_path(err, WC_EPARSE, origin, ": /data/resultType: '%s', expected 'matrix' with a "
		                       "result array (a query_range response)", type ? type : "");
	/* A matrix whose result is not an array was refused as "resultType:
	 * 'matrix', expected 'matrix'": the member at fault is named, with
	 * what it holds (docs/formats/prometheus.md). */
	else if (!json_is_array(result))
		rc = wc_error_set_path(err, WC_EPARSE, origin, ": /data/result: %s, expected an array of series (a "
		                       "query_range response)", !result ? "missing" : json_is_null(result) ? "null"
		                       : json_is_object(result) ? "an object" : json_is_string(result) ? "a string"
		                       : json_is_boolean(result) ? "a boolean" : "a number");
	for (size_t i = 0; rc == WC_OK && i < json_array_size(result); i++)
		rc = parse_series(json_array_get(result, i), origin, i, metric, set, err);
	if (rc == WC_OK)
		server_notes(root, origin, warn, payload);
	wc__prom_set_say_repeats(set, origin, rc == WC_OK ? warn : NULL, payload);
	json_decref(root);
	return rc;
}

int
wc_prom_json_read(const char *path, wc_prom_set *set, wc_warn_fn warn, void *payload, wc_error *err)
{
	char *buf = NULL;
	size_t len = 0;
	int rc = wc_read_file(path, WC_PROM_JSON_MAX_BYTES, &buf, &len, err);
	if (rc != WC_OK)
		return rc;
	rc = wc_prom_json_parse(buf, len, path, NULL, set, warn, payload, err);
	free(buf);
	return rc;
}
