/* cli/: what `wattcast calibrate` (cmd_calibrate.c) and its HTTP worker
 * (calibrate_worker.c, POST /v1/calibrate) both add to a calibration, so
 * that the command and the route say the same. */
#ifndef WC_CLI_CALIBRATE_H
#define WC_CLI_CALIBRATE_H

#include "cli.h"
#include "data/data.h"
#include "fit/fit.h"

/** A warning in `r` for each model name of `t` (once a name) that the
 *  calibration reads as a catalog entry though it has a word the catalog
 *  does not read ("Qwen3-8B-Banana" as Qwen3-8B): the note predict,
 *  envelope and plan give (wc_model_name_note; docs/capacity.md, "Model
 *  names"). `json_fields`: the note names the run's field as the route's
 *  body spells it (runs/I/model); else the runs table's column, model. */
void cli_calibrate_model_notes(const wc_runs_table *t, int json_fields, wc_calibrate_result *r);

#endif
