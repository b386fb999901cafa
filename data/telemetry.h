/*
 * Readers of what users measure with (docs/formats/telemetry.md), one
 * header each: data/nvsmi.h (nvidia-smi power logs), data/engine_log.h
 * (vLLM engine counters), data/request_log.h (per-request logs). This
 * header holds what they share: limits and options. The CSV readers
 * stream through one fixed line buffer; lines longer than
 * WC_TELEMETRY_LINE_MAX are malformed. A malformed line is reported as
 * "file:line: reason" through the warn callback and skipped; more than
 * `max_bad_fraction` of bad data lines refuses the file. Times are Unix
 * epoch seconds after conversion.
 */
#ifndef WC_DATA_TELEMETRY_H
#define WC_DATA_TELEMETRY_H

#include <stddef.h>

#include "models/error.h"
#include "models/limits.h"

#ifdef __cplusplus
extern "C" {
#endif

#define WC_TELEMETRY_MAX_GPUS 64
#define WC_TELEMETRY_LINE_MAX 4096
/** Columns a telemetry file's header may have, per reader
 *  (docs/formats/telemetry.md, "Bad lines"): the readers hold a field per
 *  column and read a few of them. A wider header is refused with the
 *  advice of an over-long one (drop the columns wattcast does not read).
 *  Raising them buys little for real exports: the WC_TELEMETRY_LINE_MAX
 *  bytes of a line end a header of real series names first (a vLLM
 *  export's histogram buckets, a --query-gpu of every field), as 256
 *  columns fit in it only at 15 bytes a name or less. */
#define WC_POWER_COLUMNS_MAX 128   /* power.csv (nvidia-smi) */
#define WC_ENGINE_COLUMNS_MAX 256  /* engine.csv (Prometheus counters) */
#define WC_REQUESTS_COLUMNS_MAX 64 /* requests.csv */
#define WC_STEPS_COLUMNS_MAX 64    /* steps.csv (fine-tuning step log) */
/** What a reader says after "file:line: " of an unfinished last line (no
 *  newline) it drops: one text for power.csv, engine.csv and steps.csv
 *  (docs/formats/telemetry.md, "A log still being written"). */
#define WC_UNFINISHED_LINE_DROPPED "unfinished last line (no newline: the log was still being written); dropped"
/** Longest gap between consecutive power samples, s. A sample further
 *  from the one before is a bad line (a clock jump or a corrupt
 *  timestamp), so no reader or metric ever spans a grid over the gap; a
 *  log that really pauses for longer must be split there
 *  (docs/formats/telemetry.md). */
#define WC_TELEMETRY_MAX_GAP_S 3600.0
/** A hole between two consecutive samples of a log longer than this many
 *  times the log's median spacing is lost data, not jitter: warned at its
 *  line with its length (docs/formats/telemetry.md). */
#define WC_TELEMETRY_GAP_CADENCES 10.0
/** Power per GPU beyond which a reading is a bad line when the platform's
 *  board limit is not known, W: above any GPU board made (a choice of
 *  wattcast, docs/formats/telemetry.md), the bound of every measured power
 *  per GPU (models/limits.h). */
#define WC_TELEMETRY_MAX_POWER_W WC_GPU_MAX_POWER_W
/** With the board limit known, readings beyond this multiple of it are
 *  bad lines (transients overshoot the limit for milliseconds, not 2x). */
#define WC_TELEMETRY_POWER_LIMIT_FACTOR WC_BOARD_LIMIT_MULTIPLE_MAX

/** Default share of malformed data lines above which a file is refused. */
#define WC_TELEMETRY_MAX_BAD 0.01

/** Receives one warning line (no newline), e.g. "power.csv:17: ...". */
typedef void (*wc_warn_fn)(const char *msg, void *payload);

/** Options shared by the telemetry readers. */
typedef struct {
	/* nvidia-smi timestamps are local wall time: epoch = local time read
	 * as UTC - utc_offset_s (e.g. -25200 for UTC-7). 0 = already UTC. */
	double utc_offset_s;
	/* Added to every converted timestamp (a manifest's clock correction:
	 * power_epoch_offset_s / engine_epoch_offset_s). */
	double epoch_offset_s;
	/* nvidia-smi: GPUs expected per sample; 0 = as found. Needed only when
	 * the file has neither `index` nor `uuid` and the rows of one sample
	 * do not share a timestamp. */
	int n_gpus;
	/* nvidia-smi: keep only these GPUs, in this order (needs a `uuid`
	 * column; ignored without one). Borrowed. NULL = every GPU. */
	const char *const *gpu_uuids;
	size_t n_gpu_uuids;
	double max_bad_fraction;   /* WC_TELEMETRY_MAX_BAD */
	int max_warnings;          /* per file; the rest are only counted */
	wc_warn_fn warn;           /* NULL = silent */
	void *warn_payload;
	/* nvidia-smi: a power reading above this, W per GPU, is a bad line
	 * (WC_TELEMETRY_POWER_LIMIT_FACTOR x the platform's board limit);
	 * 0 = WC_TELEMETRY_MAX_POWER_W. */
	double max_power_w;
	/* nvidia-smi: the platform whose board limit set max_power_w and
	 * where it came from ("L4 (from manifest.json)"), named when most of
	 * a refused log's bad lines are readings beyond it; NULL = the bound
	 * is no platform's. Borrowed. */
	const char *platform_origin;
	/* The command's option that raises max_bad_fraction ("--max-bad"),
	 * named by the refusal; NULL when the command has none. */
	const char *max_bad_option;
	/* Request logs: the token counts the consumer takes, a count outside
	 * them a bad cell named with its column and value (an envelope
	 * simulates at most WC_ENVELOPE_MAX_TOKENS and a prompt of at least
	 * one). 0 = WC_CAPACITY_MAX_TOKENS and 0. */
	double max_tokens, min_input_tokens;
	/* engine.csv: read only the series of data-parallel engine
	 * engine_only - 1 (its `engine` or `dp_rank` label's value), one
	 * replica of the run (docs/formats/telemetry.md, "Data-parallel
	 * engines"); 0 = every engine, added up. */
	int engine_only;
} wc_telemetry_options;

/** Do the GPU UUIDs `a` (NUL-terminated) and `b` (`blen` bytes) name the
 *  same GPU? Compared ignoring ASCII case: NVIDIA's UUIDs are hex, lower
 *  case from nvidia-smi and upper case in some manifests and exporters.
 *  The one comparison wherever UUIDs are matched (a log's rows, gpu_uuids,
 *  a manifest's repeats, Prometheus' UUID label). */
int wc_telemetry_uuid_same(const char *a, const char *b, size_t blen);

/** Are `counted` bad lines more than `share` of `data_lines`? `counted`
 *  as the refusal counts them, a clock glitch's run once (wc_engine_log's
 *  bad_counted): the one test of the refusal (data/bad_lines.c) and of
 *  ingest's rule on a level's stated totals (trace/ingest_stated.c;
 *  docs/formats/telemetry.md, "Bad lines"). */
int wc_telemetry_bad_over(size_t counted, size_t data_lines, double share);

/** "GPU " to put before a GPU's name in a message, or "" when the name
 *  says it itself (a uuid "GPU-e268...", "MIG-..."): "GPU GPU-e268..."
 *  said it twice. An index or an exporter's other label gets the word. */
const char *wc_telemetry_gpu_word(const char *name);

#define WC_TELEMETRY_OPTIONS_INIT                                                \
	{ .utc_offset_s = 0.0, .epoch_offset_s = 0.0, .n_gpus = 0,                \
	  .gpu_uuids = NULL, .n_gpu_uuids = 0,                                    \
	  .max_bad_fraction = WC_TELEMETRY_MAX_BAD, .max_warnings = 20,           \
	  .warn = NULL, .warn_payload = NULL, .max_power_w = 0.0,                 \
	  .platform_origin = NULL,                                                \
	  .max_bad_option = NULL, .max_tokens = 0.0, .min_input_tokens = 0.0,       \
	  .engine_only = 0 }

#ifdef __cplusplus
}
#endif
#endif
