/*
 * The record of a part of a parameter set (models/record.h): read and
 * written the same way wherever a part carries one -- the inference law's
 * calibration (`provenance.calibration`) and the fitted response
 * (`response.provenance`), schema 10 (docs/formats/params-file.md,
 * "Provenance"). The shapes of the hash and the time are checked here, as
 * the top-level record's are at load. A calibration's record also names
 * the rows it used by their content hashes (schema 12).
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/fileio.h"
#include "models/grow.h"
#include "params_internal.h"

/* The keys a record may carry; a part that keeps a count elsewhere (the
 * response's `runs`) passes a list without it. */
static int
allowed_key(const char *const *keys, const char *key)
{
	for (size_t i = 0; keys[i]; i++)
		if (strcmp(keys[i], key) == 0)
			return 1;
	return 0;
}

int
wc__params_read_record(wc__json_loader *ld, json_t *v, const char *path, const char *const *keys,
                       wc_record *out)
{
	static const char *const none[] = { NULL };
	char p[WC__JSON_PATH_MAX];
	int rc;
	memset(out, 0, sizeof *out);
	if (!json_is_object(v))
		return wc__json_fail(ld, path, "expected an object, got %s", wc_json_type_name(v));
	if (ld->version && ld->version < 10)
		return wc__json_fail(ld, path, "needs \"%s\" or later", WC_PARAMS_SCHEMA_V10);
	if ((rc = wc__json_check_keys(ld, v, path, keys, none)) ||
	    (rc = wc__json_optional_string(ld, v, path, "fitted_on", out->fitted_on, sizeof out->fitted_on)) ||
	    (rc = wc__json_optional_string(ld, v, path, "input_sha256", out->input_sha256, sizeof out->input_sha256)) ||
	    (rc = wc__json_optional_string(ld, v, path, "tool_version", out->tool_version, sizeof out->tool_version)) ||
	    (rc = wc__json_optional_string(ld, v, path, "created_utc", out->created_utc, sizeof out->created_utc)))
		return rc;
	size_t h = strlen(out->input_sha256);
	if (h && (h != 64 || strspn(out->input_sha256, "0123456789abcdef") != 64)) {
		wc__json_join(p, path, "input_sha256");
		return wc__json_fail(ld, p, "'%.64s' is not a SHA-256 (64 lowercase hex digits) or null", out->input_sha256);
	}
	if (out->created_utc[0] && !wc__params_utc_stamp_ok(out->created_utc)) {
		wc__json_join(p, path, "created_utc");
		return wc__json_fail(ld, p, "'%s' is not YYYY-MM-DDTHH:MM:SSZ or null", out->created_utc);
	}
	if ((allowed_key(keys, "runs") && (rc = wc__params_read_count(ld, v, path, "runs", &out->runs))) ||
	    (rc = wc__params_read_count(ld, v, path, "bootstrap", &out->bootstrap)))
		return rc;
	return wc__params_read_seed(ld, v, path, 0, &out->seed);
}

int
wc__params_read_seed(wc__json_loader *ld, json_t *obj, const char *path, int nullable, uint64_t *out)
{
	char p[WC__JSON_PATH_MAX];
	long long n;
	json_t *x = json_object_get(obj, "seed");
	int rc;
	if (!x || (nullable && json_is_null(x)))
		return WC_OK;
	wc__json_join(p, path, "seed");
	/* a seed is written as a JSON integer, which jansson holds signed */
	if ((rc = wc__json_int(ld, x, p, 0, INT64_MAX, &n)))
		return rc;
	*out = (uint64_t)n;
	return WC_OK;
}

json_t *
wc__params_record_json(const wc_record *r, int with_runs)
{
	json_t *o = json_object();
	json_object_set_new(o, "fitted_on", r->fitted_on[0] ? wc__json_text(r->fitted_on) : json_null());
	json_object_set_new(o, "input_sha256", r->input_sha256[0] ? wc__json_text(r->input_sha256) : json_null());
	if (with_runs)
		json_object_set_new(o, "runs", json_integer(r->runs));
	json_object_set_new(o, "seed", json_integer((json_int_t)r->seed));
	json_object_set_new(o, "bootstrap", json_integer(r->bootstrap));
	json_object_set_new(o, "tool_version", r->tool_version[0] ? wc__json_text(r->tool_version) : json_null());
	json_object_set_new(o, "created_utc", r->created_utc[0] ? wc__json_text(r->created_utc) : json_null());
	return o;
}

/* A record's list of 16-digit hashes under `key`, needing schema `since`
 * (`since_tag`): the calibration's `row_hashes` (schema 12), the
 * response's `run_hashes` (schema 14), the capacity section's
 * `run_hashes` (schema 16). `runs` is the count the list must
 * hold, one per run (-1: the count the record ties it to is missing), or
 * -2: any count, each hash once (a /14 calibration's rows accumulate over
 * every calibration the set went through). A hash given twice is refused
 * where the list is checked for repeats. `what` names one hash in a
 * message, `hash_of` what it hashes; `set` stores them in the set. */
static int
read_hashes(wc__json_loader *ld, json_t *record, const char *path, const char *key, int since,
            const char *since_tag, int runs, int distinct, const char *what, const char *hash_of, void *out,
            int (*set)(void *, const uint64_t *, int, wc_error *))
{
	char p[WC__JSON_PATH_MAX], q[WC__JSON_PATH_MAX];
	json_t *v = json_object_get(record, key);
	wc_error err;
	if (!v || json_is_null(v))
		return WC_OK;
	wc__json_join(p, path, key);
	if (ld->version && ld->version < since)
		return wc__json_fail(ld, p, "needs \"%s\" or later", since_tag);
	if (!json_is_array(v))
		return wc__json_fail(ld, p, "expected an array, got %s", wc_json_type_name(v));
	size_t n = json_array_size(v);
	if (runs == -1)
		return wc__json_fail(ld, p, "holds %zu %s hash(es), one per run, but the section's `runs` they "
		                     "count is missing: give `runs`", n, what);
	if (runs >= 0 && n != (size_t)runs)
		return wc__json_fail(ld, p, "holds %zu %s hash(es) for the record's %d runs: one per run used", n,
		                     what, runs);
	uint64_t *rows = wc_alloc_zeroed(n ? n : 1, sizeof *rows);
	if (!rows)
		return wc__json_fail(ld, p, "out of memory");
	for (size_t i = 0; i < n; i++) {
		const char *h = json_string_value(json_array_get(v, i));
		wc__json_join_index(q, p, i);
		if (!h || strlen(h) != 16 || strspn(h, "0123456789abcdef") != 16) {
			free(rows);
			return wc__json_fail(ld, q, "expected 16 lowercase hex digits (the hash of a %s's %s)", what,
			                     hash_of);
		}
		rows[i] = strtoull(h, NULL, 16);
		for (size_t j = 0; distinct && j < i; j++)
			if (rows[j] == rows[i]) {
				free(rows);
				return wc__json_fail(ld, q, "'%s' repeats entry %zu: each %s is listed once", h, j, what);
			}
	}
	int rc = set(out, rows, (int)n, &err);
	free(rows);
	return rc == WC_OK ? WC_OK : wc__json_fail(ld, p, "%s", err.msg);
}

/* `provenance.calibration.row_hashes` (schema 12): one 16-digit hash per
 * run the calibration used, as many as its `runs`, into the set; from
 * schema 14, the rows of every calibration the set went through, each
 * once (docs/formats/params-file.md, "Provenance"). */
static int
set_calibration_rows(void *p, const uint64_t *h, int n, wc_error *err)
{
	return wc_params_set_calibration_rows(p, h, n, err);
}

static int
set_response_runs(void *p, const uint64_t *h, int n, wc_error *err)
{
	return wc_params_set_response_runs(p, h, n, err);
}

static int
set_capacity_runs(void *c, const uint64_t *h, int n, wc_error *err)
{
	return wc_capacity_params_set_runs(c, h, n, err);
}

int
wc__params_read_row_hashes(wc__json_loader *ld, json_t *record, const char *path, wc_params *out)
{
	int accumulated = !ld->version || ld->version >= 14;
	return read_hashes(ld, record, path, "row_hashes", 12, WC_PARAMS_SCHEMA_V12,
	                   accumulated ? -2 : out->calibration.runs, accumulated, "row", "content", out,
	                   set_calibration_rows);
}

/* `response.provenance.run_hashes` (schema 14): one per run the response
 * was fitted on, as many as the section's `runs` (`runs_known` 0: the
 * section has none), each once. */
int
wc__params_read_run_hashes(wc__json_loader *ld, json_t *record, const char *path, int runs_known, wc_params *out)
{
	return read_hashes(ld, record, path, "run_hashes", 14, WC_PARAMS_SCHEMA_V14, runs_known ? out->response.runs : -1, 1,
	                   "run", "power samples", out, set_response_runs);
}

/* `capacity.provenance.run_hashes` (schema 16): one per run among the
 * runs-table rows the capacity fit used (wc_run_id_hash: platform and run
 * id, a segment's as its run's), each once, so no more than the record's
 * `rows` (read before; periods rows have no run) when it gives them. */
int
wc__params_read_capacity_runs(wc__json_loader *ld, json_t *record, const char *path, wc_capacity_params *out)
{
	int rc = read_hashes(ld, record, path, "run_hashes", 16, WC_PARAMS_SCHEMA_V16, -2, 1, "run",
	                     "platform and run id", out, set_capacity_runs);
	if (rc == WC_OK && json_object_get(record, "rows") && out->n_run_hashes > out->rows) {
		char p[WC__JSON_PATH_MAX];
		wc__json_join(p, path, "run_hashes");
		return wc__json_fail(ld, p, "holds %d run hash(es) for the record's %d rows: at most one per row "
		                     "the fit used", out->n_run_hashes, out->rows);
	}
	return rc;
}

static int
set_fit_rows(void *p, const uint64_t *h, int n, wc_error *err)
{
	return wc_params_set_fit_hashes(p, 'r', h, n, err);
}

static int
set_fit_runs(void *p, const uint64_t *h, int n, wc_error *err)
{
	return wc_params_set_fit_hashes(p, 'u', h, n, err);
}

static int
set_idle_rows(void *p, const uint64_t *h, int n, wc_error *err)
{
	return wc_params_set_fit_hashes(p, 'i', h, n, err);
}

/* Read after `runs`: no more run hashes than the record's runs. */
int
wc__params_read_fit_hashes(wc__json_loader *ld, json_t *prov, const char *path, wc_params *out)
{
	int rc = read_hashes(ld, prov, path, "row_hashes", 19, WC_PARAMS_SCHEMA_V19, -2, 1, "row", "content", out,
	                     set_fit_rows);
	if (!rc)
		rc = read_hashes(ld, prov, path, "run_hashes", 19, WC_PARAMS_SCHEMA_V19, -2, 1, "run",
		                 "platform and run id", out, set_fit_runs);
	if (!rc)
		rc = read_hashes(ld, prov, path, "idle_row_hashes", 19, WC_PARAMS_SCHEMA_V19, -2, 1, "row", "content",
		                 out, set_idle_rows);
	if (!rc && out->n_fit_runs > out->n_fit_rows) {
		char p[WC__JSON_PATH_MAX];
		wc__json_join(p, path, "run_hashes");
		return wc__json_fail(ld, p, "holds %d run hash(es) for %d row hash(es): at most one per row the fit "
		                     "used", out->n_fit_runs, out->n_fit_rows);
	}
	return rc;
}

static json_t *
hashes_json(const uint64_t *h, int n)
{
	json_t *a = json_array();
	for (int i = 0; a && i < n; i++) {
		char x[17];
		snprintf(x, sizeof x, "%016" PRIx64, h[i]);
		json_array_append_new(a, json_string(x));
	}
	return a;
}

json_t *
wc__params_row_hashes_json(const wc_params *p)
{
	return hashes_json(p->calibration_rows, p->n_calibration_rows);
}

json_t *
wc__params_run_hashes_json(const wc_params *p)
{
	return hashes_json(p->response_runs, p->n_response_runs);
}

json_t *
wc__params_capacity_runs_json(const wc_capacity_params *c)
{
	return hashes_json(c->run_hashes, c->n_run_hashes);
}

void
wc__params_fit_hashes_json(const wc_params *p, json_t *prov)
{
	if (p->n_fit_rows > 0)
		json_object_set_new(prov, "row_hashes", hashes_json(p->fit_rows, p->n_fit_rows));
	if (p->n_fit_runs > 0)
		json_object_set_new(prov, "run_hashes", hashes_json(p->fit_runs, p->n_fit_runs));
	if (p->n_idle_rows > 0)
		json_object_set_new(prov, "idle_row_hashes", hashes_json(p->idle_rows, p->n_idle_rows));
}
