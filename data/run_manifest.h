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

#define WC_RUN_MAX_LEVELS 64

/** One load level of a run: a window of the measurement with one load
 *  setting (docs/formats/telemetry.md, "Load levels"). Unknown: NaN / "". */
typedef struct {
	char label[48];
	double start_epoch, end_epoch;   /* the level's window */
	double concurrency;              /* closed loop */
	double request_rate, burstiness; /* open loop */
	double requests;                 /* completed, the load generator's count */
	double input_tokens, output_tokens; /* totals over the level */
	char at[40]; /* its totals' JSON pointer, "/levels/0" or "/probe/levels/0/summary" */
} wc_run_level;

/** The fine-tuning facts of a run (wattcast-run.json "finetune",
 *  docs/formats/telemetry.md). Unknown: 0, -1 (method, checkpointing) or
 *  NaN. */
typedef struct {
	int present;           /* a manifest stated a "finetune" object */
	int method;            /* wc_ft_method */
	int micro_batch, seq_len, grad_accum, gpus, data_parallel, lora_rank, layers, d_model;
	int checkpointing;
	double steps;          /* optimizer steps the power log covers */
	double tokens_per_step;
} wc_run_finetune;

/** What is known about one run. Unknown: "" / NaN / 0 (tp) / -1. */
typedef struct {
	char run_id[96];
	char platform[WC_NAME_MAX];
	int tp;
	/* Data-parallel replicas on the run's GPUs, each of tp GPUs (the log
	 * holds tp x data_parallel); 0 unknown, read as one replica
	 * (docs/formats/telemetry.md, "Data-parallel engines"). */
	int data_parallel;
	char model[WC_MODEL_NAME_MAX];
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
	int n_levels;                    /* 0: the run states no load levels */
	wc_run_level levels[WC_RUN_MAX_LEVELS];
	int n_gpu_uuids;
	char gpu_uuids[WC_TELEMETRY_MAX_GPUS][48];
	char format[24];                 /* "powertrace-sim", "wattcast.run/1", "" */
	wc_run_finetune finetune;        /* fine-tuning runs (schema 3) */
} wc_run_manifest;

/** The schema of wattcast's own manifest; "wattcast.run/3" (no level
 *  token totals), "wattcast.run/2" (no fine-tuning facts either) and
 *  "wattcast.run/1" (no levels either) still load. */
#define WC_RUN_MANIFEST_SCHEMA "wattcast.run/4"
#define WC_RUN_MANIFEST_SCHEMA_V3 "wattcast.run/3"
#define WC_RUN_MANIFEST_SCHEMA_V2 "wattcast.run/2"
#define WC_RUN_MANIFEST_SCHEMA_V1 "wattcast.run/1"

/** Everything unknown. */
void wc_run_manifest_init(wc_run_manifest *m);
/** Load a powertrace-sim `manifest.json` or a wattcast `wattcast-run.json`
 *  (`"schema": "wattcast.run/3"`, `/2` or `/1`, strict: unknown keys and wrong
 *  types are refused with the JSON path) into `m`; values the file states
 *  replace those in `m`, others are kept. Load levels must not overlap
 *  each other or the idle window. */
int wc_run_manifest_load(const char *path, wc_run_manifest *m, wc_error *err);
/** Same, from the bytes of the file (`len` of them, any UTF-8 BOM already
 *  skipped, as wc_read_file returns them); `path` names it in messages. */
int wc_run_manifest_load_buffer(const char *buf, size_t len, const char *path, wc_run_manifest *m,
                                wc_error *err);
/** Copy into `m` each value `defaults` knows and `m` does not. */
void wc_run_manifest_fill(wc_run_manifest *m, const wc_run_manifest *defaults);

/** Which of level `lv`'s token totals is more than `requests` requests
 *  hold, at most WC_CAPACITY_MAX_TOKENS each (docs/formats/telemetry.md,
 *  "wattcast's own manifest"): 1 total_input_tokens, 2 total_output_tokens,
 *  0 neither or `requests` unknown (NaN). `requests` is the level's stated
 *  count or the one a request log gives (a share rounds up); `why` gets
 *  "1e+17 is more than 10 requests hold (at most 1e+09, 1e+08 tokens a
 *  request)". The one rule of both manifest readers and of ingest. */
int wc_run_level_totals_beyond(const wc_run_level *lv, double requests, char *why, size_t cap);
/** The totals' keys, "total_input_tokens" and "total_output_tokens": the
 *  one table of every reader and message that names one
 *  (wc_run_level_totals_beyond's k - 1 indexes it). */
extern const char *const wc_run_level_total_keys[2];

/** Bytes of a level's part of a row's run id, its '\0' included. */
#define WC_RUN_LEVEL_ID_MAX 40
/** Level `level`'s label as part of its row's run id (`run_id#<part>`)
 *  into `out` (at most `cap`, and WC_RUN_LEVEL_ID_MAX, bytes): the label's
 *  A-Z a-z 0-9 . - _, each other byte '_', or `L<level>` for none
 *  (docs/formats/telemetry.md, "Load levels and idle windows"). */
void wc_run_level_id(const char *label, int level, char *out, size_t cap);

/** The flags `defaults` holds that name another value than the run `m`
 *  states -- "--platform A100 (the run says H100), --tp 1 (the run says
 *  2)" -- into `list` ("" when none; a list about to outgrow `cap` ends in
 *  "..."): the one rule behind every "not applied" warning of ingest and
 *  the run-folder commands (docs/cli.md, "ingest"). Platforms and models
 *  compare by catalog entry; the UTC offset is listed only `with_utc` (the
 *  serving ingest judges it once the power log is read). */
void wc_run_manifest_overruled(const wc_run_manifest *m, const wc_run_manifest *defaults, int with_utc,
                               char *list, size_t cap);

#ifdef __cplusplus
}
#endif
#endif
