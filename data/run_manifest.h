/*
 * Run manifests (docs/formats/telemetry.md): the powertrace-sim
 * manifest.json and wattcast's own wattcast-run.json, read into one plain
 * struct (no allocation).
 */
#ifndef WC_DATA_RUN_MANIFEST_H
#define WC_DATA_RUN_MANIFEST_H

#include "data/telemetry.h"
#include "models/catalog.h"
#include "models/law.h"
#include "models/params.h"

#ifdef __cplusplus
extern "C" {
#endif

/** What is known about one run. Unknown: "" / NaN / 0 (tp) / -1. */
typedef struct {
	char run_id[96];
	char platform[WC_NAME_MAX];
	int tp;
	char model[96];
	double active_params_b, total_params_b;
	wc_architecture architecture;
	int weights, kv;                 /* wc_precision, -1 unknown */
	double sm_clock_mhz;             /* NaN unknown, 0 not locked */
	wc_workload workload;
	double request_rate, burstiness; /* open-loop load, NaN unknown */
	double concurrency;              /* closed loop, NaN unknown */
	double utc_offset_s;             /* power clock; NaN unknown */
	double power_epoch_offset_s, engine_epoch_offset_s; /* 0 default */
	double idle_start, idle_end;     /* idle window, epoch s; NaN none */
	double requests;                 /* completed requests, NaN unknown */
	int n_gpu_uuids;
	char gpu_uuids[WC_TELEMETRY_MAX_GPUS][48];
	char format[24];                 /* "powertrace-sim", "wattcast.run/1", "" */
} wc_run_manifest;

#define WC_RUN_MANIFEST_SCHEMA "wattcast.run/1"

/** Everything unknown. */
void wc_run_manifest_init(wc_run_manifest *m);
/** Load a powertrace-sim `manifest.json` or a wattcast `wattcast-run.json`
 *  (`"schema": "wattcast.run/1"`, strict: unknown keys and wrong types are
 *  refused with the JSON path) into `m`; values the file states replace
 *  those in `m`, others are kept. */
int wc_run_manifest_load(const char *path, wc_run_manifest *m, wc_error *err);
/** Copy into `m` each value `defaults` knows and `m` does not. */
void wc_run_manifest_fill(wc_run_manifest *m, const wc_run_manifest *defaults);

#ifdef __cplusplus
}
#endif
#endif
