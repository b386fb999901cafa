/*
 * Private to data/: the two readers of run manifests share the level
 * initialiser; run_manifest.c calls the powertrace-sim reader
 * (run_manifest_powertrace.c) on a parsed `manifest.json`.
 */
#ifndef WC_DATA_RUN_MANIFEST_INTERNAL_H
#define WC_DATA_RUN_MANIFEST_INTERNAL_H

#include <jansson.h>

#include "data/run_manifest.h"
#include "json_internal.h"

/** A level with every number unknown (NaN) and no name. */
void wc__run_level_init(wc_run_level *l);
/** Refuse a token total of `lv` more than its stated requests hold
 *  (wc_run_level_totals_beyond), at lv->at's pointer to it. */
int wc__run_level_check_totals(wc__json_loader *ld, const wc_run_level *lv);
/** Refuse a GPU that m->gpu_uuids names twice, at the later entry's
 *  pointer under `at` (the array's, e.g. "/gpu_uuids"): the power reader
 *  gives its rows to one place only, and refused the other as a GPU in
 *  no row of the log, blaming the log for the manifest's slip. Both
 *  manifest formats, one rule (docs/formats/telemetry.md, "Manifests").
 *  WC_OK or the loader's failure. */
int wc__run_manifest_check_uuids(wc__json_loader *ld, const wc_run_manifest *m, const char *at);
/** Refuse two levels of `m` whose labels make one run id part
 *  (wc_run_level_id): the same label, or labels alike once sanitised
 *  (`a/b`, `a_b`). Named at the later level's label under `at` (the
 *  array's pointer, "/levels"), level k of `m` being entry index[k] of
 *  the array (NULL: entry k). Both manifest formats, one rule
 *  (docs/formats/telemetry.md, "Load levels and idle windows"). WC_OK or
 *  the loader's failure. */
int wc__run_manifest_check_labels(wc__json_loader *ld, const wc_run_manifest *m, const char *at,
                                  const size_t *index);
/** Fill `m` from a powertrace-sim manifest `root` (borrowed) read by
 *  `ld` (its file and text: a refusal names file:line:column). Lenient:
 *  keys it does not need are ignored, and a key it reads may be absent
 *  or null; WC_EPARSE for a key it reads holding another
 *  type (named by its JSON pointer) and for a value that would be wrong
 *  to keep (a tp out of range, a bad clock). */
int wc__run_manifest_load_powertrace(wc__json_loader ld, json_t *root, wc_run_manifest *m);

#endif
