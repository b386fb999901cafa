/*
 * Private to data/: the pieces of the parameter-file reader and writer
 * that the sections of the file share (params_read.c, params_write.c,
 * params_sections.c). Each section has a reader (null is handled by the
 * caller) and a writer returning a new jansson reference.
 */
#ifndef WC_DATA_PARAMS_INTERNAL_H
#define WC_DATA_PARAMS_INTERNAL_H

#include <jansson.h>

#include "data/params_file.h"
#include "json_internal.h"
#include "models/draws.h"

/** {"names": [...], "values": [[...], ...]} into `out` (released first). */
int wc__params_read_draws(wc__json_loader *ld, json_t *v, const char *path, wc_draws *out);
/** The same object from a matrix (new reference). */
json_t *wc__params_draws_json(const wc_draws *d);
/** Read {"value", "ci95"?, "source"} into `out`; null (or absent) gives
 *  NaN with source "assumed" when `nullable`. */
int wc__params_read_param(wc__json_loader *ld, json_t *v, const char *path, int nullable, wc_param *out);
/** {"value", "ci95"?, "source"}, or null for NaN (new reference). */
json_t *wc__params_param_json(const wc_param *p);

/** {"value", "ci95"?, "source"} into `out`; null or absent allowed when
 *  `nullable` (NaN). */
int wc__params_read_param(wc__json_loader *ld, json_t *v, const char *path, int nullable,
                          wc_param *out);

/* Model terms (params_sections.c): `v` is the array; appended to `out`. */
int wc__params_read_model_terms(wc__json_loader *ld, json_t *v, const char *path, wc_params *out);
json_t *wc__params_model_terms_json(const wc_params *p);

/* Sections (params_sections.c): `v` is the section's object. */
int wc__params_read_capacity(wc__json_loader *ld, json_t *v, const char *path, wc_capacity_params *out);
json_t *wc__params_capacity_json(const wc_capacity_params *c, int with_draws);
/* params_finetune.c */
int wc__params_read_finetune(wc__json_loader *ld, json_t *v, const char *path, wc_finetune_params *out);
json_t *wc__params_finetune_json(const wc_finetune_params *f, int with_draws);
/** The optional "tp": [min, max] of a range object (whole numbers 1 to
 *  WC_LAW_MAX_TP), and an optional count key ("runs", "rows"): absent
 *  leaves the outputs as they are. */
int wc__params_read_tp_span(wc__json_loader *ld, json_t *obj, const char *path, int *tp_min, int *tp_max);
int wc__params_read_count(wc__json_loader *ld, json_t *obj, const char *path, const char *key, int *out);
/* params_pred_error.c: the law's held-out error (schema 5). */
int wc__params_read_pred_error(wc__json_loader *ld, json_t *v, const char *path, wc_pred_error *out);
json_t *wc__params_pred_error_json(const wc_pred_error *pe);
/* The "prediction_errors" array (schema 6) into out[WC_PEQ_COUNT], and
 * back (only the sections present). */
int wc__params_read_quantity_errors(wc__json_loader *ld, json_t *v, const char *path, wc_pred_error *out);
json_t *wc__params_quantity_errors_json(const wc_pred_error *pe);
/** The documented range of every law parameter (params_ranges.c;
 *  docs/formats/params-file.md, "Ranges"): WC_OK, or WC_ERANGE with a
 *  message starting with the key's path ("shared/delta/value: ..."). */
int wc__params_check_ranges(const wc_params *p, wc_error *err);
/** Every {"value", "ci95"} object in the file's JSON `root` has
 *  lo <= value <= hi; the loader and the writer both check it, naming the
 *  first one that does not (its path without the leading '/'). */
int wc__params_check_intervals(json_t *root, wc_error *err);
/** A level's `range` object (a model term's, schema 19): every key
 *  optional, null or absent unknown (params_read.c); and as JSON
 *  (params_write.c). */
int wc__params_read_range(wc__json_loader *ld, json_t *v, const char *path, wc_range *r);
json_t *wc__params_range_json(const wc_range *r);
/** YYYY-MM-DDTHH:MM:SSZ with months, days, hours, minutes and seconds in
 *  range (params_ranges.c). */
int wc__params_utc_stamp_ok(const char *s);
/* params_record.c: a part's record (models/record.h), schema 10; `keys`
 * lists the keys the part allows (NULL-terminated). */
int wc__params_read_record(wc__json_loader *ld, json_t *v, const char *path, const char *const *keys,
                           wc_record *out);
json_t *wc__params_record_json(const wc_record *r, int with_runs);
/** The calibration record's `row_hashes` (schema 12) into the set, and
 *  the set's as JSON. */
int wc__params_read_row_hashes(wc__json_loader *ld, json_t *record, const char *path, wc_params *out);
json_t *wc__params_row_hashes_json(const wc_params *p);
/** `provenance.row_hashes`, `run_hashes` and `idle_row_hashes` (schema
 *  19): the fit's rows and runs and the rows a level's idle came from,
 *  each hash once, read into the set; and written into `prov` when the
 *  set records them. */
int wc__params_read_fit_hashes(wc__json_loader *ld, json_t *prov, const char *path, wc_params *out);
void wc__params_fit_hashes_json(const wc_params *p, json_t *prov);
/** The response record's `run_hashes` (schema 14) likewise. */
int wc__params_read_run_hashes(wc__json_loader *ld, json_t *record, const char *path, int runs_known,
                               wc_params *out);
json_t *wc__params_run_hashes_json(const wc_params *p);
/** The capacity record's `run_hashes` (schema 16) likewise. */
int wc__params_read_capacity_runs(wc__json_loader *ld, json_t *record, const char *path, wc_capacity_params *out);
json_t *wc__params_capacity_runs_json(const wc_capacity_params *c);
/** obj's optional "seed" (0 to 2^63 - 1; absent, or null when
 *  `nullable`, leaves `*out`). */
int wc__params_read_seed(wc__json_loader *ld, json_t *obj, const char *path, int nullable, uint64_t *out);
int wc__params_read_response(wc__json_loader *ld, json_t *v, const char *path, wc_params *set);
json_t *wc__params_response_json(const wc_response_params *r);

#endif
