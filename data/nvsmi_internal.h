/*
 * Private to data/'s nvidia-smi reader: the reader's state, shared by the
 * line side (nvsmi_columns.c: the header; nvsmi_row.c: a line's fields;
 * nvsmi_csv.c: the read loop) and the sweep side (nvsmi_sweep.c: rows
 * grouped into samples, one value per GPU).
 */
#ifndef WC_DATA_NVSMI_INTERNAL_H
#define WC_DATA_NVSMI_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "data/nvsmi.h"
#include "telemetry_internal.h"

#define NV_MAX_FIELDS WC_POWER_COLUMNS_MAX
/* What a power.csv header too long or too wide should drop. */
#define NV_HEADER_HINT ", such as extra --query-gpu fields (timestamp,index,uuid,power.draw are enough)"
#define NV_POWER_COLUMNS 3
#define NV_MAX_INDEX 1024
/* Rows held back while the GPU count of a log without index or uuid is
 * read off its timestamps (nvsmi_sweep.c), and the sweeps looked at. */
#define NV_GUESS_ROWS 2048
/* Samples lacking a GPU held until a whole one comes (nvsmi_first.c). */
#define NV_TAIL_HELD 256
#define NV_GUESS_SWEEPS 32
/* Reading the count: gaps are taken as at least half a millisecond (the
 * timestamps print milliseconds, so a sweep's rows often share one); a
 * jump of NV_GAP_RATIO or more between the sorted gaps separates the gaps
 * within sweeps from those between them; the NV_GAP_CUTS largest such
 * jumps are tried; a count is taken when its sweeps hold at least
 * NV_GAP_SHARE of the rows. */
#define NV_GAP_FLOOR_S 0.0005
#define NV_GAP_RATIO 3.0
#define NV_GAP_CUTS 3
#define NV_GAP_SHARE 0.5

/* Gaps in the sampling (nvsmi_gaps.c, docs/formats/telemetry.md "Time
 * gaps"): an interval over NV_GAP_FACTOR sampling intervals (the median of
 * the last NV_CADENCE_N) and over NV_GAP_MIN_S is a gap, warned for the
 * first NV_GAP_SHOWN; gaps over NV_GAP_REFUSE_SHARE of the log's span
 * refuse it. A long interval is judged at the next one: when that is as
 * long (over half of it), the logger's cadence changed (nvidia-smi
 * restarted with a slower -lms) and neither is a gap. */
#define NV_CADENCE_N 32
#define NV_GAP_FACTOR WC_TELEMETRY_GAP_CADENCES /* the engine log's holes, one rule */
#define NV_GAP_MIN_S 1.0
#define NV_GAP_SHOWN 5
#define NV_GAP_REFUSE_SHARE 0.5
/* Is a span `span` s long with `gap_s` s of it in gaps too interpolated
 * to be read as measured? The one test of the whole log and of a part of
 * it (wc_power_trace_gaps_refuse). */
#define NV_MOSTLY_GAPS(gap_s, span) ((gap_s) > 0 && (gap_s) > NV_GAP_REFUSE_SHARE * (span))

/** Told of each gap judged (nvsmi_gaps.c): no sample in (t0, t1). */
typedef int (*wc__nv_gap_fn)(double t0, double t1, void *payload);

/** wc_nvsmi_read, telling `on_gap` (when not NULL) of each gap in the
 *  sampling as it is judged (wc_power_trace keeps them, to judge a part of
 *  the log as the whole is judged). */
int wc__nvsmi_read_gaps(const char *path, const wc_telemetry_options *opt, wc_nvsmi_sample_fn on_sample,
                        void *payload, wc__nv_gap_fn on_gap, void *gap_payload, wc_nvsmi_info *info,
                        wc_error *err);

/* The sampling intervals seen, between the reader and the caller's
 * callback. */
typedef struct {
	wc_nvsmi_sample_fn user;  /* the caller's callback and payload */
	void *user_payload;
	int have;
	double last_t;
	double ring[NV_CADENCE_N];  /* the last intervals, and their lines */
	size_t ring_line[NV_CADENCE_N];
	size_t n_iv;              /* intervals seen */
	double cadence;           /* their median, 0 before NV_CADENCE_N */
	size_t longest_line;      /* line after the longest gap */
	double pending;           /* a long interval awaiting the next, or 0 */
	size_t pending_line;
	double ring_t[NV_CADENCE_N]; /* the time each interval ends at */
	double pending_t;
	wc__nv_gap_fn on_gap;     /* told of each gap judged, or NULL */
	void *gap_payload;
	int gap_failed;           /* on_gap ran out of memory */
} nv_gaps;

enum { NV_KEY_INDEX, NV_KEY_UUID, NV_KEY_POSITION };
/* Timestamp forms: nvidia-smi's local wall time, or one carrying its zone. */
enum { NV_STAMP_LOCAL = 1, NV_STAMP_ZONED = 2 };

/* One data row's readings; idx and uuid point into the line (NULL when
 * the log has no such column, or for a bad line whose GPU could not be
 * read). `ok` = 0 for a bad line (already reported), which still holds
 * its GPU's place in a sweep. */
typedef struct {
	double t, watts;
	const char *idx, *uuid;
	size_t il, ul;
	int ok;
} nv_row;

/* The columns a header names (nvsmi_columns.c). */
typedef struct {
	int n_cols, col_time, col_index, col_uuid, has_units;
	int power_col[NV_POWER_COLUMNS];
	double power_col_scale[NV_POWER_COLUMNS];
} nv_columns;

typedef struct {
	double t, watts;
	size_t line;
	int ok;
} nv_held_row;

/* The nodes of a merged multi-node log (nvsmi_nodes.c): each node's
 * logger keeps its own cadence, so its sweeps are read on their own and
 * the other nodes' readings interpolated at node 0's sweeps. At most
 * NV_MAX_NODES nodes; NV_NODE_QUEUE node-0 sweeps wait for the others
 * (6.4 s at 0.1 s), each node's last NV_NODE_HIST sweeps are kept to
 * interpolate from, and the times of its last NV_NODE_RING for the tail. */
#define NV_MAX_NODES 8
#define NV_NODE_QUEUE 64
#define NV_NODE_HIST 16
#define NV_NODE_RING 64

typedef struct {
	int open, rows, tainted, last;  /* the open sweep: rows, bad ones, last GPU */
	uint64_t mask;
	double t, t_max;                /* its first readable row's time, its last */
	size_t line;
	int gpus, first_gpu;            /* the node's GPUs, the first in the sweep order */
	double h_t[NV_NODE_HIST];       /* its last whole sweeps' times (h_n of them) */
	size_t h_n;
	double r_t[NV_NODE_RING];       /* the same, with their lines, for the tail */
	size_t r_line[NV_NODE_RING], r_n;
	size_t beyond;                  /* its sweeps after node 0's last */
} nv_node;

typedef struct {
	int n;                                    /* nodes; > 1: read per node */
	unsigned char of[WC_TELEMETRY_MAX_GPUS];  /* each GPU's node */
	short index1[WC_TELEMETRY_MAX_GPUS];      /* with gpu_uuids: each GPU's index + 1, 0 unread */
	/* with gpu_uuids, until the first sample: the uuids (hashed) the log
	 * shows under each index, in the order first seen, and each selected
	 * GPU's place among them + 1 (its node, nvsmi_nodes.c) */
	uint64_t heard[WC_TELEMETRY_MAX_GPUS][NV_MAX_NODES];
	unsigned char n_heard[WC_TELEMETRY_MAX_GPUS], place1[WC_TELEMETRY_MAX_GPUS];
	nv_node node[NV_MAX_NODES];
	double o_v[WC_TELEMETRY_MAX_GPUS], o_t[WC_TELEMETRY_MAX_GPUS]; /* the open sweeps' rows */
	double h_v[NV_NODE_HIST][WC_TELEMETRY_MAX_GPUS];               /* by h_n % NV_NODE_HIST */
	double ref_t;                             /* node 0's last whole sweep */
	/* node 0's sweeps awaiting the other nodes' readings: `got` and
	 * `lost` (a gap of that node across the sweep) a bit a node */
	size_t q_head, q_n;
	struct {
		double t;
		size_t line;
		unsigned got, lost;
	} q[NV_NODE_QUEUE];
	double q_v[NV_NODE_QUEUE][WC_TELEMETRY_MAX_GPUS];
} nv_nodes;

typedef struct {
	const char *path;
	const wc_telemetry_options *opt;
	wc__bad_lines bad;
	wc_nvsmi_info *info;
	wc_nvsmi_sample_fn on_sample;
	void *payload;
	wc_error *err;
	int n_cols, col_time, col_index, col_uuid, col_power;
	size_t header_line;       /* the first header's line number */
	double power_scale;       /* W per unit of the header's power unit */
	/* power columns by preference (.instant, power.draw, .average; -1
	 * absent) and their units; `power_rank` is the one read, `power_settled`
	 * once a line gave it a value (nvsmi_columns.c, wc__nv_choose_power) */
	int power_col[NV_POWER_COLUMNS], power_rank, power_settled;
	double power_col_scale[NV_POWER_COLUMNS];
	/* readings taken with a unit word ("250.31 W") and without: a last
	 * line without one in a log whose every reading had one was cut
	 * (nvsmi_csv.c, drop_unfinished) */
	size_t power_worded, power_bare;
	double max_power_w;       /* plausibility bound per GPU */
	size_t beyond_board;      /* readings beyond it that some board draws
	                           * (up to WC_TELEMETRY_MAX_POWER_W) */
	int mode, selecting, frozen, n_gpus;
	short slot_of_index[NV_MAX_INDEX];
	/* the sample being assembled */
	int open, rows, tainted;  /* tainted: bad rows in the sample */
	int last_slot;            /* GPU of the sample's last row (keyed rows) */
	uint64_t presumed;        /* GPUs whose place a bad line of unknown GPU took */
	double t, t_min, t_max;
	size_t first_line;
	uint64_t mask;
	double vals[WC_TELEMETRY_MAX_GPUS];
	double times[WC_TELEMETRY_MAX_GPUS];     /* of each GPU's row, NAN for a bad one */
	/* keyed rows: each GPU's place in the sweep order, read off the first
	 * sample delivered (`ranked`); `place` is its place in the open one */
	unsigned char rank[WC_TELEMETRY_MAX_GPUS], place[WC_TELEMETRY_MAX_GPUS];
	int ranked;
	/* keyed rows: GPUs a row (good or bad) named so far; sweeps read in another GPU order
	 * than the first sample's (order_flips, once a sweep however many of
	 * its rows come out of order: flipped says the open one was counted;
	 * the first at flip_line, GPU flip_gpu flip_after s after flip_before) */
	uint64_t seen;
	size_t order_flips, flip_line;
	int flip_gpu, flip_before, flipped;
	double flip_after;
	/* ordering and bad-line context */
	int have_last;
	double last_t;
	double last_gap;          /* seconds between the last two samples delivered */
	double clock_shift;       /* added to every later sample: the local
	                           * clock's daylight-saving jumps taken out */
	size_t last_bad_line;
	/* samples over WC_TELEMETRY_MAX_GAP_S after the last kept one, and the
	 * line of the first: more than one is a pause, not one corrupt time */
	size_t pause_bad, pause_line;
	/* the pause's length, and the first and last samples skipped after
	 * it: what an accepted log (--max-bad) lost, said once */
	double pause_s, pause_t0, pause_t1;
	size_t pause_last_line;
	/* the log's ends that bad lines take (--max-bad): the first data
	 * line's time (ends_t0, once have_t0), the latest within
	 * WC_TELEMETRY_MAX_GAP_S after the last sample (ends_t1), both with
	 * the daylight-saving shift taken out so far as the samples' are, and
	 * the first and last samples' lines (nvsmi_gaps.c, wc__nv_ends_finish) */
	int have_t0;
	double ends_t0, ends_t1;
	size_t first_sample_line, last_sample_line;
	/* each GPU a row names (by index, else uuid): its lines without a
	 * power reading and with one, to name a GPU that never reports power
	 * when the log is refused (nvsmi_row.c, hear_gpu; nvsmi_csv.c,
	 * name_silent_gpu) */
	struct {
		char key[48];
		size_t missing, read;
	} heard[WC_TELEMETRY_MAX_GPUS];
	int n_heard;
	/* keyed rows with uuids and a count given or gpu_uuids: the samples
	 * skipped while they held fewer GPUs than the count, their rows, and the first one's
	 * line, GPUs and time; without a count: rows of GPUs the first sample
	 * lacks, the first at late_line of GPU late_gpu (nvsmi_first.c) */
	size_t lead_samples, lead_rows, lead_line, late_rows, late_line;
	int lead_gpus;
	double lead_t;
	char late_gpu[64];
	/* keyed rows with uuids: samples dropped for a missing GPU (the same
	 * one) since the last whole sample, held to be said as bad lines when
	 * a whole one comes, or as the log's tail at its end (nvsmi_first.c):
	 * n_tail of them, the first NV_TAIL_HELD kept, the last at tail_last */
	struct {
		size_t line, first;
	} tail[NV_TAIL_HELD];
	size_t n_tail, tail_last;
	int tail_slot;
	/* with gpu_uuids: lines without a uuid before
	 * any with one (the first at uuids_blank_line), lines with one; a
	 * log whose every uuid cell is empty is read again by index
	 * (uuid_empty: that reading, whose refusals name the empty column) */
	size_t uuids_blank, uuids_blank_line, uuids_named;
	/* with gpu_uuids: every line without a uuid, the first at
	 * uuids_empty_line, where only some lack one */
	size_t uuids_empty, uuids_empty_line;
	int uuid_empty;
	/* with gpu_uuids: lines of GPUs outside the selection, which the
	 * run does not use (left out of the bad-line share), and those of
	 * them whose power was missing or unreadable, the first at
	 * other_bad_line (counted in nvsmi_row.c, said once at the end and
	 * never refused: nvsmi_csv.c) */
	size_t other_lines, other_bad, other_bad_line;
	/* rows with a sub-second time; rows of a GPU again at its time with
	 * another reading (whole-second stamps at a faster cadence) */
	size_t frac_rows, again_rows;
	/* the form of the log's timestamps, fixed by the first read (0 = none yet) */
	int stamp_kind;
	/* timestamp cache: rows of one sweep repeat the same text */
	char ts_text[64];
	size_t ts_len;
	double ts_val;
	nv_gaps gaps;
	/* position mode: rows held while the GPU count is guessed; once it
	 * is (`counted`), the rows of the sweeps not yet delivered: held[0,
	 * run_len) sweeps whose row count was off, then the sweep being read,
	 * which ends at a gap over `cut` after the last readable row (prev_t;
	 * nvsmi_sweep_pos.c) */
	nv_held_row *held;
	size_t n_held, run_len;
	int counted, have_prev;
	double cut, prev_t;
	/* a count given: the refusal of a count the timestamps do not show
	 * (position mode) or the first keyed sample misses (wc__nv_fix_set),
	 * made before the log's end, waits for it (refusal_held, the error
	 * code; its message is in err; later rows are not taken), as two logs
	 * joined one after another are the truer cause (wc__nv_joined_logs) */
	int refusal_held;
	/* logs joined one after another (nvsmi_sweep_time.c): the latest
	 * readable row's time (t_seen, once seen_any) and its line, and the
	 * line of a header repeated whose first readable row is still to come
	 * (0 none) */
	int seen_any;
	double t_seen;
	size_t t_seen_line;
	size_t reheader_line;
	/* the offset of a header glued after a row on the line just read
	 * (parse_row), 0 none; glued_whole when the row before it has all its
	 * fields (wc__nv_glued_row) */
	size_t glued_at;
	int glued_whole;
	/* a merged multi-node log, read node by node once the first sample
	 * is delivered (nvsmi_nodes.c) */
	nv_nodes nodes;
} nv_reader;

/** The power columns nvidia-smi can write, in order of preference
 *  (power.draw.instant, power.draw, power.draw.average). */
extern const char *const wc__nv_power_names[NV_POWER_COLUMNS];
/** The header line: columns, the power column, how GPUs are told apart
 *  (nvsmi_columns.c). */
int wc__nv_parse_header(nv_reader *rd, char *line, size_t len, size_t line_no);
/** Whether a line after the header is another header (a field named
 *  `timestamp`; data lines begin with a time or a GPU key). */
int wc__nv_is_header(const char *line, size_t len);
/** Where a header begins inside a data line, after a row cut short (the
 *  logger killed mid-line, restarted appending): the offset (> 0) of the
 *  first of its names the reader knows (timestamp, index, uuid, a power
 *  column) from which on the line is a header whose other fields are
 *  names; 0 when none does. */
size_t wc__nv_glued_header(const char *line, size_t len);
/** A header glued after a row on a data line whose last field (`last`,
 *  NULL when the split stopped before it) begins with a letter: NV_GLUED_NONE
 *  when there is none; NV_GLUED_CUT when the row before it lacks fields or
 *  ends in an empty one (cut short: one bad line, reported at the header);
 *  NV_GLUED_WHOLE when it has them all (rd->glued_whole: read as a row,
 *  ending where the header begins). rd->glued_at is the header's offset. */
enum { NV_GLUED_NONE, NV_GLUED_CUT, NV_GLUED_WHOLE };
int wc__nv_glued_row(nv_reader *rd, const char *line, size_t len, size_t line_no, const char *last, size_t last_len);
/** Such a line: same columns read, nothing happens; other places, the
 *  columns are re-mapped (warned); lacking what was read, refused. */
int wc__nv_reheader(nv_reader *rd, char *line, size_t len, size_t line_no);
/** Why `line` is not a header naming column `missing` (compressed, binary,
 *  quoted, another separator, no header), into `why`; the column (1-based)
 *  the message is of. */
int wc__nv_not_a_header(const char *line, size_t len, const char *missing, char *why, size_t cap);
/** Fields of a data line into `row` (nvsmi_row.c); -1 = bad line
 *  (reported), or a WC_* error that ends the read. */
int wc__nv_parse_row(nv_reader *rd, char *line, size_t len, size_t line_no, nv_row *row);
/* What a power cell holds (wc__nv_parse_power): a reading (w, in W),
 * none readable, a negative one, one beyond the plausibility bound (w), or
 * a unit word that is no power unit (at unit_at in the cell); `worded`:
 * it carries a unit word. */
enum { NV_POWER_OK, NV_POWER_UNREADABLE, NV_POWER_NEGATIVE, NV_POWER_BEYOND, NV_POWER_UNIT };
typedef struct {
	int kind, worded;
	double w;
	size_t unit_at;
} nv_power;
/** A power reading of the column read into `p`; its kind returned.
 *  Nothing is counted or said (nvsmi_columns.c). */
int wc__nv_parse_power(const nv_reader *rd, const char *pw, size_t pl, nv_power *p);
/** Such a reading taken as the run's, at line:col: the watts into *out and
 *  0; -1 = bad line (reported and counted: implausible_lines,
 *  beyond_board); or the refusal of a unit that is not a power unit (a
 *  WC_* error). Readings with and without a unit word are counted. */
int wc__nv_power_take(nv_reader *rd, const nv_power *p, const char *pw, size_t pl, size_t line_no, size_t col,
                      double *out);
/** A refused log (its bad lines' share; with gap_s > 0, that many seconds
 *  of gaps) whose refusal is mostly readings beyond the platform's bound:
 *  the refusal names the platform as likely wrong instead (rd->err). 1
 *  when it did. */
int wc__nv_name_wrong_platform(const nv_reader *rd, double gap_s);
/** Before any line gave the power column a value: move to the next
 *  preferred one that has a value on this line (fields `start`, `flen`);
 *  1 when it moved. */
int wc__nv_choose_power(nv_reader *rd, char **start, size_t *flen, size_t line_no);
/** The sample callback the reader calls: sampling gaps noted, then the
 *  caller's (nvsmi_gaps.c); `payload` is the reader. */
int wc__nv_gap_sample(double t, const double *power_w, int n_gpus, void *payload);
/** At the end: intervals held for the first cadence judged, the gaps
 *  counted; WC_EPARSE when they are over half the log's span. */
int wc__nv_gaps_finish(nv_reader *rd);
/** A data line of the run's GPUs whose time `t` read (its power read or
 *  not), for the log's ends that bad lines take (nvsmi_gaps.c). */
void wc__nv_note_line_time(nv_reader *rd, double t);
/** At the end, after the gaps: bad lines at the log's start and end
 *  count as the gaps do; WC_EPARSE when gaps and ends together are over
 *  half the log's span (docs/formats/telemetry.md, "Time gaps"). */
int wc__nv_ends_finish(nv_reader *rd);
/** Hand the assembled sample to the caller, after the order and gap
 *  checks (nvsmi_sweep.c). */
int wc__nv_deliver(nv_reader *rd);
/** GPU `slot`'s reading into the assembled sample. */
void wc__nv_put_value(nv_reader *rd, int slot, double t, double watts);
/** Keyed rows (nvsmi_sweep_time.c): whether `row`, of GPU `slot` earlier
 *  in the sweep order than the open sample's last, is of the same sweep
 *  (the order changed, counted); and, for a row whose time is before the
 *  open sample's by more than a sweep spreads, the refusal (WC_EPARSE;
 *  WC_OK when it is a daylight-saving hour, the row taken in; NV_ROW_BAD
 *  when the clock stepped back a second or less). */
int wc__nv_order_changed(nv_reader *rd, const nv_row *row, int slot, size_t line_no);
/* wc__nv_time_backward: the row is a bad line (reported) of its sweep,
 * not a second log: the clock stepped back WC_NVSMI_JOIN_BACK_S or less. */
#define NV_ROW_BAD 1
int wc__nv_time_backward(nv_reader *rd, const nv_row *row, int slot, size_t line_no);
/** Any log, whether a header repeats or not: a readable row whose time
 *  is before the latest row's above it by more than a sweep spreads (not
 *  a daylight-saving hour; a row more than a bridged gap ahead does not
 *  set the latest) is where a second log joined to the first begins:
 *  WC_EPARSE naming the line (and the header repeated, if one is); else
 *  WC_OK. wc__nv_runs_back says whether a row is such, changing nothing. */
int wc__nv_runs_back(const nv_reader *rd, const nv_row *row);
int wc__nv_joined_logs(nv_reader *rd, const nv_row *row, size_t line_no);
/** A row of a log without index or uuid (nvsmi_sweep_pos.c). */
int wc__nv_take_positional(nv_reader *rd, const nv_held_row *row);
/** At the end of such a log: rows still held, and the last sweep. */
int wc__nv_finish_positional(nv_reader *rd);
/** A data row (parsed or bad) into the sample being assembled; closes
 *  samples as they complete. WC_OK, or an error that ends the read. */
int wc__nv_take_row(nv_reader *rd, const nv_row *row, size_t line_no);
/** Slot of the GPU a row names (nvsmi_sweep.c); -1 = bad line (reported
 *  when `report`), -2 = a GPU outside the selection, -3 = no readable key. */
int wc__nv_find_slot(nv_reader *rd, const nv_row *row, size_t line, int report);
/** After the first sample is delivered: a log whose indices repeat under
 *  other uuids is the nodes of a job merged by time; from here on each
 *  node's sweeps are read on their own (nvsmi_nodes.c). */
void wc__nv_nodes_start(nv_reader *rd);
/** With gpu_uuids, before the first sample: a row's index and uuid (any
 *  GPU's, selected or not; `g` its slot or -1), so that the nodes are
 *  found from the whole log, not only from the GPUs selected. */
void wc__nv_nodes_hear(nv_reader *rd, int g, const char *idx, size_t idx_len, const char *uuid, size_t uuid_len);
/** A row of such a log; at its end, the open sweeps and waiting samples. */
int wc__nv_nodes_row(nv_reader *rd, const nv_row *row, size_t line_no);
int wc__nv_nodes_finish(nv_reader *rd);
/** At the end of the file: rows still held, and the open sample. */
int wc__nv_finish(nv_reader *rd);
/** The open keyed sample closing before the set of GPUs is fixed (the
 *  line that closed it, its row and GPU; 0, NULL, -1 at the end): fix the
 *  set (WC_OK), skip the sample while uuids are still coming
 *  (NV_SET_PENDING), or refuse the log (an error; nvsmi_first.c). */
#define NV_SET_PENDING 1
int wc__nv_fix_set(nv_reader *rd, size_t line, const nv_row *row, int slot);
/** A keyed sample closing at `line` (0 at the end) short of the `want`
 *  GPUs before the first whole one, in a log with uuids (the count given,
 *  or gpu_uuids): skipped while the rows of a later-starting logger are
 *  still to come (NV_SET_PENDING), at the end the refusal (an error); 0
 *  for any other sample (nvsmi_first.c). */
int wc__nv_skip_leading(nv_reader *rd, size_t line, int want);
/** At the first whole sample: the samples skipped before it, one warning. */
void wc__nv_say_lead(const nv_reader *rd);
/** A GPU of gpu_uuids in no row of the log: the refusal naming it, else
 *  WC_OK. */
int wc__nv_unseen_selected(const nv_reader *rd);
/* The refusal of whole-second stamps at a sub-second cadence, or WC_OK. */
int wc__nv_whole_seconds(const nv_reader *rd);
/** A row of a GPU the fixed set lacks (index -1 when none), noted for
 *  wc__nv_name_late_gpus. */
void wc__nv_note_late(nv_reader *rd, size_t line, int index, const char *uuid, size_t uuid_len);
/** A log refused for bad lines that are mostly rows of GPUs the first
 *  sample lacks: the refusal says so and names the remedy (rd->err). 1
 *  when it did. */
int wc__nv_name_late_gpus(const nv_reader *rd);
/** A keyed sample closed at `line` lacking GPU `slot` (a log with uuids):
 *  dropped, held (after those lacking another GPU are said). */
void wc__nv_hold_missing(nv_reader *rd, size_t line, int slot);
/** A whole sample after such samples: each is a bad line (a row lost). */
void wc__nv_flush_missing(nv_reader *rd);
/** At the end of the log: such samples are its tail, one warning. */
void wc__nv_tail_missing(nv_reader *rd);
/** GPU `g`'s index (read from the log under gpu_uuids), -1 unknown. */
int wc__nv_gpu_index(const nv_reader *rd, int g);
/** GPU `g`'s name in messages, "GPU " included: "GPU 1", its uuid
 *  ("GPU-e268..."), "GPU 0 GPU-..." where an index repeats, or "GPU #g". */
void wc__nv_gpu_label(const nv_reader *rd, int g, char *buf, size_t cap);
/** Forget the GPUs seen (before the set is fixed). */
void wc__nv_forget_gpus(nv_reader *rd);
/** Whole-field decimal digits into *out; -1 if any is not a digit. */
int wc__nv_digits(const char *s, int n, int *out);

#endif
