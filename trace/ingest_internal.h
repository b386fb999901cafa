/*
 * Private to trace/: the state of one run folder while `wattcast ingest`
 * turns it into rows, and the steps that share it (ingest.c drives them).
 */
#ifndef WC_TRACE_INGEST_INTERNAL_H
#define WC_TRACE_INGEST_INTERNAL_H

#include <stddef.h>

#include "trace/ingest.h"

typedef struct {
	const char *dir;
	char power_path[1024], engine_path[1024], req_path[1024];
	wc_run_manifest m;
	const char *platform_source; /* what named m.platform: "manifest.json",
	                              * "wattcast-run.json", "power.csv's name",
	                              * "--platform" */
	wc_power_trace *pt;
	wc_engine_log *eng;
	wc_request_log *req;
	int log_accounts;          /* wc_trace_log_accounts of req, once placed:
	                            * 1 whole, 0 leaving out work, -1 unknown */
	double t0, t1;
	size_t ngrid;
	double *grid_n;            /* n(t) at t0 + k*GRID */
	const char *n_source;      /* "engine", "requests", or "" (power only) */
	int power_only;
	int replica;               /* 1 + the data-parallel replica read alone
	                            * (its GPUs and its engine's series); 0 the
	                            * whole run (trace/ingest_replica.c) */
	int offset_overruled;      /* --utc-offset differs from the manifests' (said
	                            * once the power log shows whether it applies) */
	const char *offset_source; /* what set m.utc_offset_s: "manifest.json",
	                            * "wattcast-run.json", "--utc-offset"; NULL */
	unsigned char *quiet;      /* per power sample: no request runs or waits */
	double idle_gpu[WC_TELEMETRY_MAX_GPUS];
	const char *idle_source;
	size_t bad_lines;
	/* the rows' windows: one per load level, or the whole log (level -1) */
	int n_windows;
	struct {
		double a, b;
		int level;             /* index into m.levels, -1 = the whole log */
		int cut;               /* the ends a log covering part of it cut
		                        * short: WC__CUT_START | WC__CUT_END, 0 none */
	} windows[WC_RUN_MAX_LEVELS];
} run_ctx;

/* The ends of a window a log cut short (run_ctx.windows[].cut). */
#define WC__CUT_START 1
#define WC__CUT_END 2

/** Does the row [a, b] of window `w` reach an end of it that a log cut
 *  short? Its requests then ran past the cut, their energy partly
 *  unmeasured: only such rows leave the request counts blank
 *  (docs/formats/telemetry.md, "What ingest derives", Requests). */
int wc__ingest_row_reaches_cut(const run_ctx *rc, int w, double a, double b);

/** The telemetry readers' options of an ingest: its bad-line share and
 *  warning cap, its warnings forwarded to opt->warn. */
wc_telemetry_options wc__ingest_reader_options(const wc_ingest_options *opt);
/** The power reader's plausibility bound from `platform`'s board limit
 *  (0 when the catalog lacks it) into t->max_power_w, with the platform
 *  and `source`, what named it, into `buf` for t->platform_origin. */
void wc__ingest_power_bound(wc_telemetry_options *t, const char *platform, const char *source, char *buf,
                            size_t cap);
/** Is `path` a regular file? */
int wc__file_exists(const char *path);
/** Bytes of `dir` without its trailing '/'s (one kept for "/"): a file
 *  in it is "%.*s/name". */
int wc__ingest_dir_len(const char *dir);
/** The run's files: power.csv, engine.csv, requests.json or requests.csv
 *  (paths left empty when absent). */
void wc__ingest_locate_files(run_ctx *rc, const char *run_dir);

/* ingest_files.c: what the run is and what it measured. */
int wc__ingest_load_manifests(run_ctx *rc, const wc_ingest_options *opt, wc_error *err);
/** The platform a run states (docs/formats/telemetry.md, "The platform"):
 *  the manifests' (`m->platform`), else nvidia-smi's product name in the
 *  power log at `power_path` when the catalog knows it, as its catalog
 *  entry. A manifest's platform that another catalog board's product name
 *  contradicts is kept, and `note` (`cap` bytes, WC_WARNING_LEN) says so,
 *  without the run's folder; "" otherwise. Shared by the serving and
 *  fine-tuning ingests; flags fill what it leaves unknown. */
void wc__ingest_platform_from_log(wc_run_manifest *m, const char *power_path, char *note, size_t cap);
/** The run's id when no manifest gives one: the name of the folder `dir`
 *  (its real one for "." and ".."), into out[0..cap). A name longer than
 *  cap - 1 bytes is refused naming the limit and the remedy (a run_id in
 *  wattcast-run.json), never cut. Shared by the serving and fine-tuning
 *  ingests. */
int wc__ingest_dir_run_id(const char *dir, char *out, size_t cap, wc_error *err);
int wc__ingest_read_files(run_ctx *rc, const wc_ingest_options *opt, wc_error *err);
/** The GPUs the run's log holds: tp x data_parallel (tp alone when the
 *  run states no replicas); 0 when neither is known. */
int wc__ingest_run_gpus(const run_ctx *rc);
/** Refuses GPU uuids of another count than the run's tp x
 *  data_parallel, once both manifests are read; `manifests` is how many
 *  manifest.json named (0 none). */
int wc__ingest_check_uuids(const run_ctx *rc, int manifests, wc_error *err);
/** Refuses a power log of another GPU count than the run's, naming
 *  tp and, for replicas, data_parallel and the GPUs it makes. */
int wc__ingest_check_run_gpus(const run_ctx *rc, wc_error *err);
/** A run of data-parallel replicas read one replica at a time
 *  (rc->replica): its row ids take `-replica<d>`, the power trace keeps
 *  its tp GPUs (d x tp on by index, vLLM's placement) and the request log is not
 *  read (it does not say which engine served a request), nor the
 *  manifest's request and token counts (the whole server's). */
int wc__ingest_replica_setup(run_ctx *rc, const wc_ingest_options *opt, wc_error *err);
int wc__ingest_replica_power(run_ctx *rc, const wc_ingest_options *opt, wc_error *err);
/** The one name of a replica in a message about it: " replica d:" after
 *  the path (rc->replica), "" for a whole run; `buf` returned, at least
 *  WC__REPLICA_WHOSE bytes (docs/formats/telemetry.md, "Data-parallel
 *  engines"). */
#define WC__REPLICA_WHOSE 24
const char *wc__ingest_replica_whose(const run_ctx *rc, char *buf, size_t cap);
/** After the engine log is read: a replica's log must name the stated
 *  engines and hold a running count of its own; a whole run's whose
 *  running count adds up several engines is warned ambiguous. */
int wc__ingest_replica_engines(run_ctx *rc, const wc_ingest_options *opt, wc_error *err);
int wc__ingest_check_alignment(run_ctx *rc, wc_error *err);
/* ingest_platform.c: a board the platform catalog lacks. */
/** "; power.csv's 'NAME' is not in the platform catalog" into `buf` when
 *  the power log at `power_path` names a product the catalog lacks, else
 *  "": the refusal of a run whose platform is unknown says what the log
 *  names. Serving and fine-tuning ingests alike. */
const char *wc__ingest_platform_unnamed(const char *power_path, char *buf, size_t cap);
/** "platform NAME is not in the platform catalog: ..., so no power
 *  reading is checked against the board's limit" into `buf` (cap
 *  WC_WARNING_LEN) when `platform` (manifest or --platform) is one the
 *  catalog lacks, with the note `predict` gives (wc_platform_unknown_note);
 *  "" otherwise. Serving and fine-tuning ingests alike. */
const char *wc__ingest_platform_note(const char *platform, char *buf, size_t cap);
/** The note above as a warning, "DIR: ...". */
void wc__ingest_warn_platform(const run_ctx *rc, const wc_ingest_options *opt);
/** ingest_clock.c: a warning when the engine's running count matches the
 *  power trace best at an offset a few sampling intervals or more from
 *  the one used (docs/formats/telemetry.md, "Clocks and UTC offsets"). */
void wc__ingest_check_offset(const run_ctx *rc, const wc_ingest_options *opt);
/** n(t) on the grid, and which power samples are quiet. */
int wc__ingest_build_load(run_ctx *rc, wc_error *err);

/* ingest_windows.c: the rows' windows and the idle power. */
/** One window per load level the manifests state (clipped to the power
 *  log; a level outside it is refused), else the whole log. */
int wc__ingest_windows(run_ctx *rc, const wc_ingest_options *opt, wc_error *err);
/** Does the point b, the end of a row of window w, belong to that row too
 *  (wc_trace_in_window's `last`)? 1 unless another window holds it: of
 *  two levels back to back the later one has their shared edge, a level
 *  no other starts at the end of, and the run's last, keep their end
 *  (docs/formats/telemetry.md, "What ingest derives", Requests). */
int wc__ingest_end_included(const run_ctx *rc, int w, double b);
/** An idle window that overlaps load (a request running or waiting in
 *  it, or a load level) is refused with the reason. */
int wc__ingest_check_idle_window(const run_ctx *rc, wc_error *err);
/** Idle power per GPU from the idle window or quiet stretches, kept only
 *  when it is consistent with the trace (docs/trace-metrics.md, "Idle
 *  power"); otherwise NaN, source "none", and a warning naming the run
 *  and the reason. */
void wc__ingest_idle(run_ctx *rc, const wc_ingest_options *opt);

/* ingest_write.c: the refusal of a series path of `bytes` bytes, over the
 * 255 of an n_series cell, plain or (`tagged`) with its '@' and 8 hex
 * digits: the run id whole, the byte counts, "(shorten -o)", the -o `path`
 * in the room left (docs/cli.md, "ingest"). Returns WC_EINVAL. */
int wc__ingest_series_too_long(wc_error *err, const char *path, const char *run_id, size_t bytes, int tagged);

/* ingest_commit.c: an ingested table's commit (docs/architecture.md,
 * "Files"). Under an exclusive flock of `series_dir`: each row's pending
 * series (`pending[i]` for row i of `t`, NULL for none; its name is the
 * series' with `cut` bytes more) renamed into place -- under
 * `<name>@<8 hex digits>.csv`, the row's n_series following, when a file
 * of other bytes holds its name -- then the table written at `path`, then
 * the files named as series it does not name removed. Each pending
 * renamed is freed and set NULL; the caller removes the rest. On failure
 * before the table's rename the old table and the series it names are as
 * they were. */
int wc__ingest_commit(const char *path, const char *series_dir, wc_runs_table *t, char **pending, size_t cut,
                      const char *comment, wc_error *err);

/* ingest_reqs.c: which requests a row can see. A row's request loops
 * (counts, latencies, tokens, phases) visit only these, in log order, so
 * that a segment costs its own requests, not the run's, and sums add in
 * the order they always did (docs/formats/telemetry.md, "What ingest
 * derives"). */
typedef struct {
	const size_t *idx;   /* request indices in log order; NULL: all of rc->req */
	size_t n;
	int tokens_from_log; /* wc__ingest_tokens_from_log, judged once a run */
	int times_whole;     /* every request has its first token and completion */
	int placed;          /* every request has its arrival and completion
	                      * (wc_trace_requests_placed): rows count shares */
} wc__ingest_reqs;

/** Request k of the row's set. */
static inline size_t
wc__ingest_req_at(const wc__ingest_reqs *r, size_t k)
{
	return r->idx ? r->idx[k] : k;
}

/** Every request of the run (a row over a whole window). */
void wc__ingest_reqs_all(const run_ctx *rc, wc__ingest_reqs *out);

/** The requests of each segment of a window cut as make_rows cuts it
 *  (segment s: [a0 + s*seg, a0 + (s+1)*seg), the last to the window's
 *  end): those whose times lie within a second of it, and those with a
 *  time that places them nowhere (every segment). */
typedef struct {
	size_t *idx, *first; /* segment s: idx[first[s] .. first[s + 1]) */
	size_t nseg;
	wc__ingest_reqs all;
} wc__ingest_seg_reqs;

int wc__ingest_seg_reqs_build(const run_ctx *rc, double a0, double b0, double seg, size_t nseg,
                              wc__ingest_seg_reqs *x);
/** The set of segment s, into *out. */
void wc__ingest_seg_reqs_of(const wc__ingest_seg_reqs *x, size_t s, wc__ingest_reqs *out);
void wc__ingest_seg_reqs_free(wc__ingest_seg_reqs *x);

/** What the load generator states of window `w` (docs/formats/telemetry.md,
 *  "What ingest derives", Requests): its level's completed requests and
 *  the input and output tokens over them, or a run's without levels its
 *  completed requests alone (no totals); NaN unknown. The count is the
 *  window's only when the window is whole (no log cut it short, one
 *  segment): `ingest`'s rows and the replay's arrivals (trace/replay.c)
 *  read it here, one rule. */
typedef struct {
	double requests, input_tokens, output_tokens;
} wc__ingest_stated;
wc__ingest_stated wc__ingest_stated_of(const run_ctx *rc, int w);
/** Warn, once for level window `w`'s whole row, when a stated token total
 *  and the counted one (`in_counted`, `out_counted`, the row's, NaN
 *  unknown) differ by more than WC_RUN_TOTALS_TOLERANCE of the larger,
 *  naming both and what gave the counted figures the row uses (`in_from`,
 *  `out_from`: "requests.json", "engine.csv's counters";
 *  trace/ingest_stated.c). */
void wc__ingest_warn_stated(const run_ctx *rc, const wc_ingest_options *opt, int w, double in_counted,
                            double out_counted, const char *in_from, const char *out_from);
/** engine.csv's rows dropped as bad lines when more than the default
 *  share by the refusal's own count (wc_telemetry_bad_over of its
 *  bad_counted, a clock glitch's run once, against WC_TELEMETRY_MAX_BAD;
 *  0 otherwise, or without the log): its counters may then miss work
 *  (rows lost at the log's end), so a level's
 *  stated totals stand over theirs (docs/formats/telemetry.md,
 *  "wattcast's own manifest"). */
size_t wc__ingest_counters_dropped(const run_ctx *rc);
/** Refuse level window `w`'s stated token totals when the `counted`
 *  requests the request log gives its whole row cannot hold them
 *  (wc_run_level_totals_beyond, the manifests' rule), naming the
 *  manifest's pointer and the bound. WC_OK or WC_EPARSE. */
int wc__ingest_check_stated(const run_ctx *rc, int w, double counted, wc_error *err);
/** The request log's file name (rc->req_path's last part). */
const char *wc__ingest_req_name(const run_ctx *rc);

/* ingest_row.c: one row over [a, b] inside window `w` (segment `seg` of
 * it when segmenting), its request loops over `reqs` (NULL: all). */
int wc__ingest_make_row(const run_ctx *rc, const wc_ingest_options *opt, int w, int seg,
                        double a, double b, int last, int whole, const wc__ingest_reqs *reqs,
                        wc_ingest_row *row, wc_error *err);
void wc__ingest_row_free(wc_ingest_row *r);
/* Once per window w, with or without segments: how many requests its ends
 * cut, counted by their share (docs/formats/telemetry.md, "What ingest
 * derives", Requests). */
void wc__ingest_warn_crossing(const run_ctx *rc, const wc_ingest_options *opt, int w);

/* phases.c: prefill/decode/idle energy of a row (best effort; out of
 * memory leaves them blank). */
void wc__ingest_phases(const run_ctx *rc, const wc__ingest_reqs *reqs, double a, const double *ct,
                       const double *cp, size_t cn, wc_ingest_row *row);
/** Place rc->req on the engine's clock when its clock is relative
 *  (wc_request_log_align, said in a warning), judge once whether it
 *  accounts for the engine's work (rc->log_accounts,
 *  wc_trace_log_accounts), and warn when it does not. */
int wc__ingest_place_requests(run_ctx *rc, const wc_ingest_options *opt, wc_error *err);
/** Does the request log give every request's token ramp (first token,
 *  completion and output length, wc_trace_token_ramp_of) and account for
 *  the engine's work? Then a window's output tokens are the log's
 *  (docs/formats/telemetry.md, "What ingest derives"), not the engine
 *  counter's. */
int wc__ingest_tokens_from_log(const run_ctx *rc);
/** Do a window's output tokens come from the engine's
 *  generation_tokens_total (it has one, and the request log does not
 *  give them)? Only then is a window cut where the engine log's end
 *  sample shows work running (docs/formats/telemetry.md, "Clocks and UTC
 *  offsets"): TGI's engine.csv has no such counter. */
int wc__ingest_tokens_from_counter(const run_ctx *rc);
/** Does [a, b] reach past the engine log's first or last sample while
 *  that sample shows a request running or waiting? Its counters then
 *  miss work done in the window (docs/formats/telemetry.md, "Clocks and
 *  UTC offsets"). */
int wc__ingest_engine_misses_work(const run_ctx *rc, double a, double b);
/** Does [a, b] read an engine token counter that counts a request's
 *  tokens when it finishes (e->at_end: SGLang's) while a request runs or
 *  waits at either end (*n_a, *n_b: the gauges there, NaN unknown)? Then
 *  its increase is not the tokens generated in the window
 *  (docs/formats/telemetry.md, "engine.csv"; trace/ingest_at_end.c). */
int wc__ingest_at_end_ends(const run_ctx *rc, double a, double b, double *n_a, double *n_b);
/** Say that the run's row keeps such a counter's count with n_a and n_b
 *  requests in flight at its ends, and their share of its requests. */
void wc__ingest_warn_at_end(const run_ctx *rc, const wc_ingest_options *opt, const wc_ingest_row *row, double n_a,
                            double n_b);
/** Engine counter `c` advanced over [a, b]; NaN without it. */
/* The group's mean power over [a, b] as a row over it reads it (NaN when
 * no sample lies there or out of memory). */
double wc__ingest_mean_power(const run_ctx *rc, double a, double b);
/* ingest_lead.c: once per window w (a level's, or the whole log's), an idle stretch at its ends
 * longer than WC__IDLE_END_SHARE of it, before the engine's first prompt
 * tokens or after its last output tokens (its running and waiting gauges
 * at 0 when it counts none) (docs/formats/telemetry.md, "Load levels and
 * idle windows"); `row` the window's whole row, NULL with segments. */
void wc__ingest_warn_idle_ends(const run_ctx *rc, const wc_ingest_options *opt, int w, const wc_ingest_row *row);
double wc__ingest_counter_delta(const run_ctx *rc, wc_engine_column c, double a, double b);

/** The UTC offset that would put power samples read with `used_offset_s`
 *  (first at epoch `power_t0`) on the clock of another log starting at
 *  `other_t0`: used + their difference rounded to a quarter hour (time
 *  zones differ by whole, half or quarter hours; the logs start within
 *  minutes of each other). Shared by the serving and fine-tuning ingests. */
double wc__ingest_suggest_offset(double used_offset_s, double power_t0, double other_t0);

/** The power reader's options of run `rc`: the ingest's (see
 *  wc__ingest_reader_options), the run's GPUs (tp, gpu_uuids, pointed to
 *  from `uuids`, WC_TELEMETRY_MAX_GPUS of them) and clock (its UTC offset,
 *  0 when unknown, and power_epoch_offset_s); no power bound. */
wc_telemetry_options wc__ingest_power_options(const run_ctx *rc, const wc_ingest_options *opt, const char **uuids);
/** " (the engine clock suggests N)" for a run without a UTC offset, N by
 *  wc__ingest_suggest_offset from the first power and engine times,
 *  into `buf` (returned); "" without an engine log, for power times
 *  stamped with their zone, or when a log does not read. Reads the logs
 *  (silently) where rc holds none yet: a run refused before them. */
const char *wc__ingest_offset_hint(const run_ctx *rc, const wc_ingest_options *opt, char *buf, size_t cap);

/** What a power log whose timestamps carry their zone says of the UTC
 *  offsets given it (docs/formats/telemetry.md, "Timestamps"): none
 *  applies; `offset` is the run's (the flag's when the run gives none),
 *  `overruled` set when the run's and --utc-offset `flag` differ. ""
 *  when there is nothing to say. Shared by the serving and fine-tuning
 *  ingests. */
void wc__ingest_zoned_offset_note(const char *power_path, int overruled, double offset, double flag, char *msg,
                                  size_t cap);

#endif
