/*
 * data/ -- the I/O boundary: reads and writes wattcast's files and turns
 * them into the plain structs of models/. Nothing here computes over the
 * data it reads (that is trace/, fit/, predict/). One topic per header:
 *   data/fileio.h        whole-file reads, atomic writes, SHA-256, UTC time
 *   data/params_file.h   parameter files (frozen laws) and profiles
 *   data/runs_table.h    runs tables and n(t) series files
 *   data/finetune_runs.h fine-tuning runs tables
 *   data/extra_columns.h the unknown columns both tables keep verbatim
 *   data/import.h        ML.ENERGY and generic CSV imports
 *   data/telemetry.h     options and limits shared by the three readers:
 *   data/nvsmi.h           nvidia-smi power logs
 *   data/engine_log.h      vLLM engine counters
 *   data/request_log.h     per-request logs
 *   data/run_manifest.h  run manifests
 *   data/step_log.h      fine-tuning step logs (steps.csv, trainer_state.json)
 *   data/per_run.h       per-run validation output (--per-run FILE)
 *   data/periods.h       batch-turnover periods (capacity fit input)
 * Nothing outside data/ and server/ sees jansson. Every writer is atomic:
 * temporary file in the same folder, fsync, rename.
 */
#ifndef WC_DATA_H
#define WC_DATA_H

#include "data/fileio.h"
#include "data/finetune_runs.h"
#include "data/import.h"
#include "data/params_file.h"
#include "data/per_run.h"
#include "data/periods.h"
#include "data/run_manifest.h"
#include "data/runs_table.h"
#include "data/step_log.h"
#include "data/engine_log.h"
#include "data/extra_columns.h"
#include "data/nvsmi.h"
#include "data/request_log.h"
#include "data/telemetry.h"

#endif/** Strict number: the whole text (surrounding blanks allowed) is one
 *  finite plain decimal -- sign, digits, fraction, exponent -- and nothing
 *  else: no units, no trailing text, and none of the hex, "inf" and "nan"
 *  forms strtod also takes (docs/formats/runs-table.md, "File layout"). 0 on
 *  success, -1 otherwise. (Telemetry, where nvidia-smi appends units, has
 *  its own reader in data/line_reader.c, which refuses the same forms.) */
int wc_parse_decimal(const char *text, double *out);
/** Whether `s` is a plain decimal: [+-]digits, and with `real` also a
 *  fraction and an exponent ([.digits][(e|E)[+-]digits], a digit before
 *  the exponent); with `blanks`, spaces and tabs around it. strtod and
 *  strtol take more (hex, "inf", "nan", leading blanks): callers check
 *  this first (docs/cli.md, "Conventions"). */
int wc_decimal_syntax(const char *s, int real, int blanks);


