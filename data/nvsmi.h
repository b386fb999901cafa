/*
 * nvidia-smi power logs (`--query-gpu=... --format=csv[,nounits]`):
 * streamed sample by sample, or read whole into a wc_power_trace (freed
 * with wc_power_trace_free).
 */
#ifndef WC_DATA_NVSMI_H
#define WC_DATA_NVSMI_H

#include <stddef.h>

#include "data/telemetry.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Neighbouring rows of one nvidia-smi sweep (all GPUs at one sample)
 *  usually lie within this of each other (below the 50 ms shortest
 *  logging interval). It is used only to make the GPU count of a log
 *  without index or uuid evident (the typical gap within sweeps must be
 *  this short; docs/formats/telemetry.md, "GPU count from the
 *  timestamps"); a sweep is never cut at a distance from its first row (a
 *  busy host writes its rows up to a second apart). Sweeps wider than this
 *  are counted in wc_nvsmi_info.wide_sweeps. */
#define WC_NVSMI_SWEEP_TOL_S 0.04
/** A row whose time runs back more than this below the latest row above
 *  it, with no header repeated between, is where a second log joined to
 *  the first begins (per-GPU logs joined with `tail -n +2`): the log is
 *  refused there. As much or less is a clock stepped back (NTP steps under a second),
 *  a bad line of the sweep rules (docs/formats/telemetry.md, "Samples"). */
#define WC_NVSMI_JOIN_BACK_S 1.0

/* ---- nvidia-smi --query-gpu=... --format=csv[,nounits] */

/** What a read found. */
typedef struct {
	int n_gpus;
	int index[WC_TELEMETRY_MAX_GPUS];        /* nvidia-smi index (gpu_uuids selecting too), -1 if none */
	char uuid[WC_TELEMETRY_MAX_GPUS][48];    /* "" if no uuid column */
	int has_index, has_uuid, has_units;      /* header facts */
	size_t data_lines;                       /* non-blank lines after the header */
	size_t bad_lines;                        /* malformed, skipped */
	size_t implausible_lines;                /* of them, power beyond the plausibility bound */
	size_t samples;                          /* complete samples delivered */
	size_t dropped_samples;                  /* incomplete: a bad, lost or stray line */
	double t_first, t_last;                  /* epoch s of the first/last sample */
	double max_sweep_span_s;                 /* widest sweep: last row's time - first's */
	size_t wide_sweeps;                      /* sweeps wider than WC_NVSMI_SWEEP_TOL_S */
	char gpu_count_source[16];               /* index, uuid, gpu_uuids, given, timestamps */
	char power_column[24];                   /* the power column read: power.draw,
	                                          * power.draw.instant or power.draw.average */
	int utc_stamps;                          /* timestamps carry their zone (RFC 3339 with
	                                          * Z or an offset, epoch seconds): the UTC
	                                          * offset was not applied */
	size_t gaps;                             /* intervals without samples over 10
	                                          * sampling intervals and 1 s */
	double gap_s, longest_gap_s;             /* their total and the longest, s */
	size_t bytes_read;                       /* of the file so far, kept current while it
	                                          * streams (a caller extrapolates the sample
	                                          * count of a regular file from it) */
} wc_nvsmi_info;

/** Called once per complete sample, in time order (strictly increasing
 *  t): `power_w[g]` is GPU g's power.draw in W. Non-zero stops the read
 *  (the read returns WC_EINVAL unless the callback set `err` itself). */
typedef int (*wc_nvsmi_sample_fn)(double t, const double *power_w, int n_gpus, void *payload);

/** Stream an nvidia-smi CSV ("-" = stdin). The header may carry units
 *  (`power.draw [W]`) or not (nounits); columns in any order and subset
 *  as long as `timestamp` and `power.draw` (or `power.draw.instant` /
 *  `.average`) are there. The power column read is the most preferred
 *  (power.draw.instant, power.draw, .average) with a value on the first
 *  line that has any: a log whose power.draw.instant is all `[N/A]` is read
 *  from the next (info.power_column, docs/formats/telemetry.md). GPUs are told apart by `index`
 *  (another `uuid` under a seen one: another GPU, as in merged nodes, whose
 *  rows are read node by node, the samples at node 0's sweeps with the
 *  others' readings interpolated: docs/formats/telemetry.md, "Nodes of a
 *  merged log"), else `uuid`
 *  (a sample closes when a GPU repeats or the sweep order goes back),
 *  else by position (rows cycle through the GPUs): G = opt->n_gpus, or,
 *  without it, the commonest sweep size of the first sweeps, cut where the
 *  gaps between neighbouring rows jump; sweeps end at such gaps and a
 *  sweep of G rows is a sample. `[N/A]`, `[Not Supported]` and blank
 *  fields are missing values: a line without a power reading is a bad
 *  line, which keeps its GPU's place so that only its sweep is dropped. A
 *  sample lacking a GPU (a line lost) or holding a stray line is dropped
 *  and reported as a bad line unless a bad line explains it; a line
 *  written twice is read once. An unfinished last line (no newline) that
 *  does not parse, or whose reading lacks the unit word every reading
 *  before it had, is dropped with a warning, not counted as bad. The
 *  bad-line share is checked at the end, so a caller must discard what it
 *  received when the read fails. Memory is fixed: one 1 MiB block buffer. */
int wc_nvsmi_read(const char *path, const wc_telemetry_options *opt,
                  wc_nvsmi_sample_fn on_sample, void *payload, wc_nvsmi_info *info,
                  wc_error *err);

/** A whole power trace in memory: per-GPU series and their sum. */
typedef struct {
	wc_nvsmi_info info;
	size_t n;                                /* samples */
	double *t;                               /* n epoch seconds */
	double *power[WC_TELEMETRY_MAX_GPUS];    /* info.n_gpus arrays of n, W */
	double *group;                           /* n sums over the GPUs, W */
	size_t n_gaps;                           /* the gaps in the sampling info.gaps counts */
	double *gaps;                            /* 2 * n_gaps: each one's (start, end), s */
} wc_power_trace;

/** Read a trace into memory (at most `max_samples` samples, 0 = 2^26;
 *  more is WC_ERANGE). Caller frees with wc_power_trace_free. */
int wc_power_trace_read(const char *path, const wc_telemetry_options *opt, size_t max_samples,
                        wc_power_trace **out, wc_error *err);
void wc_power_trace_free(wc_power_trace *pt);
/** Seconds of [a, b] lying in the trace's gaps without samples. */
double wc_power_trace_gap_s(const wc_power_trace *pt, double a, double b);
/** Would [a, b] be more than half interpolated across gaps, the share for
 *  which a whole log is refused (docs/formats/telemetry.md, "Time gaps")?
 *  1 if so: a part of the log (an ingest segment) is judged like the whole. */
int wc_power_trace_gaps_refuse(const wc_power_trace *pt, double a, double b);

/** Parse an nvidia-smi timestamp "YYYY/MM/DD HH:MM:SS[.fff]" (also '-'
 *  for '/' and 'T' for ' ') as UTC seconds since the epoch. */
int wc_nvsmi_parse_time(const char *s, size_t len, double *out);

/** The product name nvidia-smi printed in the `name` column of the CSV at
 *  `path` (`--query-gpu=timestamp,name,...`), from its first data line,
 *  trimmed, into `buf`. WC_ENOTFOUND when the file has no such column or
 *  no data line; reads only the first two lines. */
int wc_nvsmi_product_name(const char *path, char *buf, size_t cap);

#ifdef __cplusplus
}
#endif
#endif
