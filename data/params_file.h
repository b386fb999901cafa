/*
 * Parameter files (docs/formats/params-file.md): strict loading with the
 * JSON path of every refusal, canonical dumps, atomic saves, fingerprints,
 * and the built-in profiles by name. A loaded set is released with
 * wc_params_clear; dumps are malloc'd strings the caller frees.
 */
#ifndef WC_DATA_PARAMS_FILE_H
#define WC_DATA_PARAMS_FILE_H

#include <stddef.h>

#include "models/params.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The schema written; files of earlier schemas keep loading
 *  (docs/formats/params-file.md, "Versioning"). Version 2 adds the
 *  capacity and fine-tuning sections, version 3 the model terms and the
 *  fit's residual RMS, version 4 phi and the prefill form, version 5 the
 *  fine-tuning law's e0 per GPU, its residual RMS and its calibration, the
 *  law's held-out error ("prediction_error", docs/intervals.md), and the
 *  parameter sources "bound" and "datasheet", version 6 the held-out
 *  errors of latency, energy per output token and fine-tuning energy
 *  ("prediction_errors"), version 7 the structure terms of the law
 *  ("shared"/"arch_moe", ...; docs/inference-law.md), version 8 the
 *  response's dynamic_scale, version 9 how the fit took quantized runs
 *  ("provenance"/"precision_mode"), version 10 the records of a
 *  calibration and of a fitted response ("provenance"/"calibration",
 *  "response"/"provenance") and the fine-tuning section's own time,
 *  version 11 the fixed share of the fine-tuning runs fitted
 *  ("finetune"/"ranges"/"fixed_share"), version 12 what identifies the
 *  rows a calibration used ("provenance"/"calibration"/"row_hashes"),
 *  version 13 the idle a model term was calibrated above
 *  ("model_terms"/"p0_w"), version 14 what identifies the runs a response
 *  was fitted on ("response"/"provenance"/"run_hashes"), version 15 the
 *  share of each step a fine-tuning relation's runs filled
 *  ("relations"/NAME/"base"/"step_fill"), version 16 what identifies
 *  the runs the capacity section was fitted on
 *  ("capacity"/"provenance"/"run_hashes"), version 17 the parameter
 *  source "simulated" (an idle read from a synthetic runs table), version 18
 *  the capacity section's expert-parallel collective ("capacity"/.../
 *  "tau_ep"; a section without it takes tau), version 19 the span of the
 *  runs a model term was calibrated on ("model_terms"/K/"range") and what
 *  identifies the rows and runs the law was fitted on and the rows a
 *  level's idle came from ("provenance"/"row_hashes", "run_hashes",
 *  "idle_row_hashes"). */
#define WC_PARAMS_SCHEMA WC_PARAMS_SCHEMA_V19
#define WC_PARAMS_SCHEMA_V19 "wattcast.params/19"
#define WC_PARAMS_SCHEMA_V18 "wattcast.params/18"
#define WC_PARAMS_SCHEMA_V17 "wattcast.params/17"
#define WC_PARAMS_SCHEMA_V16 "wattcast.params/16"
#define WC_PARAMS_SCHEMA_V15 "wattcast.params/15"
#define WC_PARAMS_SCHEMA_V14 "wattcast.params/14"
#define WC_PARAMS_SCHEMA_V13 "wattcast.params/13"
#define WC_PARAMS_SCHEMA_V12 "wattcast.params/12"
#define WC_PARAMS_SCHEMA_V11 "wattcast.params/11"
#define WC_PARAMS_SCHEMA_V10 "wattcast.params/10"
#define WC_PARAMS_SCHEMA_V9 "wattcast.params/9"
#define WC_PARAMS_SCHEMA_V8 "wattcast.params/8"
#define WC_PARAMS_SCHEMA_V7 "wattcast.params/7"
#define WC_PARAMS_SCHEMA_V6 "wattcast.params/6"
#define WC_PARAMS_SCHEMA_V5 "wattcast.params/5"
#define WC_PARAMS_SCHEMA_V4 "wattcast.params/4"
#define WC_PARAMS_SCHEMA_V3 "wattcast.params/3"
#define WC_PARAMS_SCHEMA_V2 "wattcast.params/2"
#define WC_PARAMS_SCHEMA_V1 "wattcast.params/1"

/** Parse a parameter file (docs/formats/params-file.md) into `out` (which the caller later
 *  releases with wc_params_clear). Refuses unknown keys, missing required
 *  keys, wrong types, non-finite numbers and structural errors; the message
 *  starts with `source` and names the JSON path ("/levels/1/s_w/value") or,
 *  for malformed JSON, the line and column. `out` is WC_PARAMS_INIT or a
 *  filled set (released first); on failure it is left empty. */
int wc_params_load_buffer(const char *buf, size_t len, const char *source,
                          wc_params *out, wc_error *err);
int wc_params_load_file(const char *path, wc_params *out, wc_error *err);

/** Serialise to JSON (17 significant digits, so a load gives back the same
 *  doubles). `with_draws` = 0 leaves the bootstrap draws out. Returns a
 *  malloc'd string the caller frees, or NULL with `err` set. */
char *wc_params_dump(const wc_params *p, int with_draws, wc_error *err);
/** Dump with draws and write atomically. */
int wc_params_save_file(const char *path, const wc_params *p, wc_error *err);
/** The most bootstrap draws of `k` parameters each that can be added to
 *  `p` -- the set as it will be written but for those draws -- with the
 *  file still within WC_PARAMS_MAX_BYTES, so that a command refuses a
 *  --bootstrap B no file can hold before it draws (docs/fitting.md,
 *  "Bootstrap"). Every value is counted at its longest (24 characters at
 *  17 significant digits) and indented as the deepest draws are, so any
 *  count at or below it fits; the count of the actual file may be some
 *  20 % higher. 0 when no draw fits; -1 with `err` set when `p` cannot be
 *  dumped. */
long wc_params_draws_room(const wc_params *p, int k, wc_error *err);
/** Version tag: first 16 hex digits of the SHA-256 of the full dump. */
int wc_params_fingerprint(const wc_params *p, char out[17], wc_error *err);

/** A set's label (docs/formats/params-file.md, "Top level"): 1 to
 *  WC_NAME_MAX - 1 bytes, no control characters. WC_OK, or WC_EINVAL with
 *  a message starting "name: ". */
int wc_params_check_name(const char *name, wc_error *err);

/** The built-in profiles' names, as error messages list them. */
#define WC_PARAMS_PROFILE_NAMES "measured, paper, paper-prefill"

/** A parameter set by name: "paper" is the built-in default profile.
 *  `out` as for wc_params_load_buffer. */
int wc_params_profile(const char *name, wc_params *out, wc_error *err);

#ifdef __cplusplus
}
#endif
#endif
