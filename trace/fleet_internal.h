/*
 * Private to trace/: the state of a fleet ingest (trace/fleet.h) shared by
 * fleet_groups.c (metrics, queries, which series belong together),
 * fleet_steps.c (the grid, gaps, counters, load changes),
 * fleet_window.c (the open window's steps) and fleet_rows.c (windows
 * into runs-table rows).
 */
#ifndef WC_TRACE_FLEET_INTERNAL_H
#define WC_TRACE_FLEET_INTERNAL_H

#include <stddef.h>

#include "models/strmap.h"
#include "trace/fleet.h"

#define FLEET_TEXT 128

/* The labels a fleet is grouped by when --group-by is not given (docs/fleet.md,
 * "Grouping"); trace/fleet.h says the same of wc_fleet_opts.group_by. */
#define FLEET_DEFAULT_GROUP_BY "host,namespace,pod"
/* A window whose mean running count is below WC_IDLE_RUNNING is idle: no
 * energy per token, and excluded with a reason starting WC_IDLE_REASON
 * (trace/idle.h, docs/fleet.md "Rows"), the rule `ingest --segment` applies. */

/* Tolerance on the scrape interval, one rule for the step check and the
 * gaps (docs/fleet.md, "Choose the step"): scrape times jitter and a
 * missed scrape lengthens the mean spacing, so a step within 10 % of the
 * measured interval is accepted (fleet_interval.c); and a step without a
 * sample of a series whose samples either side are at most this many
 * steps apart is no gap (fleet_samples.c): a cadence of about the step
 * with jitter leaves such steps although no scrape was missed. */
#define FLEET_INTERVAL_SLACK 1.1

/* A counter's samples in one step (wc__fleet_value_at): the first one's
 * value, the increase from it to the last, a reset between them counted
 * from 0 as Prometheus's increase() counts it (reset 1: the last such,
 * from `from` to `to`); the series' sample before the first, at prev_t
 * (NaN: none); alt 1: read under the metric's less preferred name
 * (fleet_steps.c, engines_at). */
typedef struct {
	double first, within, from, to, prev, prev_t;
	int reset, alt;
} fleet_count;

/* One grid step of a group. */
typedef struct {
	size_t k;                               /* its index in the grid */
	double t, power, running, waiting;      /* waiting NaN = unknown */
	double inc[WC_FLEET_N_COUNTERS];        /* counter increase since its last value; NaN unknown */
	size_t span[WC_FLEET_N_COUNTERS];       /* ... over this many steps */
	double dt[WC_FLEET_N_COUNTERS];         /* ... and this many seconds between its samples */
	int n_gpus;
	/* Seconds of the step's power samples after the engine's load's
	 * last sample there and its spacing (> 0: the engine's samples cover
	 * the step in part, fleet_steps.c) */
	double trail;
	/* Seconds of the step its samples cover up to their end (every
	 * GPU's and the engine's last sample and its spacing), and 1 when
	 * that is part of the step by the rule of a group's first step: the
	 * step is left out when no sample follows it (docs/fleet.md,
	 * "Windows"; fleet_steps.c) */
	double end_cover;
	int part_end;
} fleet_step;

/* The open window of a group. */
typedef struct {
	int open;
	size_t n, n_waiting, k1;       /* k1: the grid index of its last step */
	double t0, t1, power, running, waiting;
	double inc[WC_FLEET_N_COUNTERS];
	size_t n_inc[WC_FLEET_N_COUNTERS];     /* steps the counted increases span */
	double dt_inc[WC_FLEET_N_COUNTERS];    /* ... and seconds between their samples */
	/* the sums before the last step's increases, to withdraw them
	 * (docs/fleet.md, "Rows"); last_span 0: it added nothing */
	double inc_before_last[WC_FLEET_N_COUNTERS];
	size_t last_span[WC_FLEET_N_COUNTERS];
	double last_dt[WC_FLEET_N_COUNTERS];
	int n_gpus;
	int idle;                      /* opened by an idle step (fleet_steps.c) */
	fleet_step last;               /* its last step, to take it out again (wc__fleet_drop_last) */
} fleet_window;

/* Engines summed per group: vLLM's data-parallel engines on one host
 * export one series each, told apart by their `engine` label only, and
 * SGLang's by `dp_rank` (docs/fleet.md, "Grouping"). */
#define FLEET_MAX_ENGINES 16

typedef struct {
	char key[512];                 /* the group-by values joined by '|' */
	char name[80];                 /* run_id stem: the non-empty values joined by '/' */
	char host[FLEET_TEXT], ns[FLEET_TEXT], pod[FLEET_TEXT];
	char platform[48], model[96];
	int model_labelled;            /* model is its engine's model_name, not --model (fleet_rows.c) */
	char gpu_series[256];          /* a power series of the group, for messages */
	char engine_series[256];       /* its running series, "" until seen */
	int ever_gpu, ever_engine;
	int interval_checked;          /* its scrape interval was measured (fleet_interval.c) */
	int two_jobs_said;             /* a GPU in two power series was said (fleet_groups.c) */
	int shared_said;               /* its GPUs serve an engine --selector left out too: said (fleet_shared.c) */
	int bad_count_said;            /* bit m: metric m's value that is no count (or a NaN waiting) said (fleet_samples.c) */
	/* Why the group is left out, "" read: two engines no --group-by
	 * parts (fleet_groups.c), said once; the others keep their rows. */
	char left_out[256];
	int left_gpu;                  /* a group left out held a GPU's power series */
	/* Across pages (fleet_interval.c), per power [0] and running [1]: the
	 * last sample time of the page before (0 none) and the shortest
	 * spacing from it to a page's first (0 none), with its series. */
	double prev_last[2], iv_seen[2];
	char iv_series[2][256];
	/* across pages */
	char **members;                /* power series present at the last step */
	char **member_uuid;            /* ... and their GPUs' `UUID` ("" none) */
	size_t n_members;
	/* The most GPUs present so far; windows with fewer are partial
	 * power, excluded (docs/fleet.md, "Problems in the data"). */
	int full_gpus;
	size_t n_power_dropped;        /* implausible power samples, the first said */
	double engine_since;           /* the group's first step, or its engine's last restart */
	char missing[256];             /* a GPU series missing since missing_since, "" none */
	double missing_since;
	int had_step, in_gap;
	char gap_series[256];          /* what the current gap lacks */
	int gap_all;                   /* ... with every GPU's power too (fleet_gaps.c) */
	int gap_kind;                  /* ... an engine metric, or a GPU's or every GPU's power */
	/* ... the engine's load without a sample while its GPUs report: the
	 * steps either side, which its samples cover in part, are left out
	 * too (fleet_gaps.c; docs/fleet.md, "Problems in the data") */
	int gap_absent;
	/* ... a series without a sample yet while others of the group have
	 * some, before the group's first step (fleet_gaps.c) */
	int gap_first;
	int part_step;                 /* this step is such a step: not added (fleet_steps.c) */
	double gap_start;              /* when it began to lack that */
	double gap_began;              /* when the gap began, whatever it lacked */
	double last[WC_FLEET_N_COUNTERS][FLEET_MAX_ENGINES]; /* per engine slot */
	double last_t[WC_FLEET_N_COUNTERS][FLEET_MAX_ENGINES]; /* ... and its sample's time */
	int last_alt[WC_FLEET_N_COUNTERS][FLEET_MAX_ENGINES];  /* ... under the less preferred name */
	/* Grid index + 1 of the step of each counter's last values (0:
	 * none), and of the step its next increase counts from (0: that
	 * increase is not counted; docs/fleet.md, "Rows"). */
	size_t seen_k[WC_FLEET_N_COUNTERS], from_k[WC_FLEET_N_COUNTERS];
	/* A counter without a sample while the engine's load has one: since
	 * when, reported (docs/fleet.md, "Problems in the data"). */
	int stale[WC_FLEET_N_COUNTERS];
	double stale_since[WC_FLEET_N_COUNTERS];
	char stale_series[WC_FLEET_N_COUNTERS][256]; /* ... the series said to lack it, named again at its resumption */
	char counter_series[WC_FLEET_N_COUNTERS][256]; /* a series of each counter, for messages */
	/* The token counter read (prompt [0], generation [1]) counts a
	 * request's tokens when it finishes (wc_engine_exported_at_end):
	 * its name, "" none; each said once (fleet_rows.c; bit k of
	 * at_end_said for at_end[k]). */
	char at_end[2][48];
	int at_end_said;
	int dp_said;                   /* its data-parallel engines warned read as one replica */
	int stall_said;                /* a row of it stalled was said (fleet_rows.c) */
	char engine_label[FLEET_MAX_ENGINES][64]; /* slot k's `engine`/`dp_rank` labels, kept across pages */
	int n_engine_slots;
	/* Slot k's last series of metric m, across pages (NULL: never seen):
	 * a slot a page's answer lacks has no sample there, a gap, not an
	 * engine summed as absent (fleet_steps.c; docs/fleet.md, "Grouping"). */
	char *slot_key[WC_FLEET_N_METRICS][FLEET_MAX_ENGINES];
	fleet_window win;
	size_t n_mixed;                /* steps left out where the load changed within them (fleet_window.c) */
	fleet_step *pending;           /* steps off the window's load, not yet a change */
	size_t n_pending, cap_pending;
	/* this page: positions in the set */
	size_t *gpus, n_gpus, cap_gpus;
	/* ... each GPU's framebuffer-used series (-1 none; parallel to
	 * gpus, cap_fb long) and the group's such series, for which of the
	 * host's GPUs its engine holds (fleet_in_use.c) */
	long *fb;
	size_t cap_fb;
	size_t *fbs, n_fbs, cap_fbs;
	int fb_seen;                   /* a GPU of the group had one, on some page */
	double in_use_mib;             /* ... and the framebuffer an engine holds of each (0:
	                                * not known yet; NaN: a board the catalog lacks) */
	int idle_said;                 /* GPUs no engine holds were said */
	long engine[WC_FLEET_N_METRICS][FLEET_MAX_ENGINES]; /* series per engine slot, -1 none */
	/* ... and its series under a less preferred name of the metric (-1
	 * none), read at a step the preferred one has no sample: an engine
	 * upgraded mid-range exports one name, then the other (fleet_steps.c). */
	long engine_alt[WC_FLEET_N_METRICS][FLEET_MAX_ENGINES];
} fleet_group;

typedef struct {
	char group[512];
	double start, end, duration, waiting, prompt_tok_s, generation_tok_s, ttft_s, itl_s;
	wc_run run;
	char host[FLEET_TEXT], ns[FLEET_TEXT], pod[FLEET_TEXT];
} fleet_row;

struct wc_fleet {
	wc_fleet_options o;
	size_t n_steps;
	fleet_group *g;
	size_t n_groups, cap_groups;
	/* group key -> index: every series of every page looks its group up,
	 * and a scan of the groups was quadratic in the hosts (docs/fleet.md,
	 * "Paging") */
	wc_strmap group_index;
	wc_strmap server_said;         /* a server's warnings said (wc__fleet_query) */
	fleet_row *rows;
	size_t n_rows, cap_rows;
	size_t n_idle_rows;            /* rows excluded as idle (docs/fleet.md, "Rows") */
	int n_warnings;
	int group_by_checked;          /* --group-by's labels checked (fleet_groups.c) */
	/* power samples averaged, and not (implausible; the largest), for
	 * the counts and the cause when no row is left (fleet_samples.c) */
	size_t n_power_ok, n_power_dropped;
	double max_power_dropped;
	size_t *cursor;                /* per series of the page */
	int *metric;                   /* per series: wc_fleet_metric or -1 */
	long *group;                   /* per series: its group or -1 */
	double sample_t;               /* wc__fleet_value_at: a counter's last sample's time */
	/* ... and the first sample's in the step, the spacing from it to the
	 * series' next and from its previous to the last (the step when
	 * unknown): how much of the step a series' samples cover */
	double sample_t0, sample_iv0, sample_iv1;
	fleet_count count;             /* ... and a counter's samples in the step */
	/* This group step: seconds of its power samples before the engine's
	 * load's first sample less its spacing (> 0: resumed within it) */
	double lead;
	/* ... and 1 when its samples begin within it, covering part of it
	 * (fleet_steps.c, in_part): after a gap, left out with it */
	int part_first;
	int saved;                     /* series read from files: saved answers keep their grid */
	char sel_engines[128];         /* --selector's first engines-only label ("": none; fleet_selector.c) */
	size_t n_unselected, n_unselected_gpus; /* groups of GPUs no selected engine uses, and their GPUs */
	char unselected_first[64];     /* ... the first one's name */
	char sel_gpus[128];            /* --selector's first GPU-only label (Hostname, UUID, ...; "": none) */
	const char *selector;          /* --selector (borrowed; NULL none) */
	size_t n_unselected_engines;   /* groups of engines that use no selected GPU */
	char unselected_engines_first[64]; /* ... the first one's name */
	int unfetched;                 /* the step fed is a page's not fetched: no power, engines unknown */
	int step_live;                 /* wc__fleet_value_at found a sample (or a stand-in) at this step */
	size_t n_walked;               /* steps walked: those after an empty step are skipped (fleet_steps.c) */
};

/* A --selector matcher (fleet_selector.c): label, operator, quoted value. */
#define FLEET_MAX_MATCHERS 32
typedef struct {
	char name[128], op[3], value[1024];
} fleet_matcher;

/* fleet_selector.c: the selector checked and split (none: n = 0); an
 * error names --selector and the column. */
int wc__fleet_selector_parse(const char *selector, fleet_matcher *m, size_t *n, wc_error *err);
/* The matchers comma-separated; exported 1: `namespace`/`pod` as the
 * DCGM series of a Kubernetes fleet carry them (exported_*, present),
 * -1: as they are with exported_* absent, 0: as they are. */
int wc__fleet_selector_text(const fleet_matcher *m, size_t n, int metric, int exported, char *out, size_t size);
/* The series of `set` that the selector's matchers select, as a server's
 * queries would (=~ and !~ as POSIX extended expressions on the whole
 * value); the others removed (docs/fleet.md, "Queries"). */
int wc__fleet_selector_apply(const char *selector, wc_prom_set *set, wc_error *err);
/* One warning when a saved answer's series (those it added samples to:
 * set->s[i].n past before[i]) hold no metric read (fleet_unread.c). */
void wc__fleet_say_unread(const char *file, const wc_prom_set *set, const size_t *before, size_t n_before,
                          const wc_fleet_options *o);
/* fleet_overlap.c: err, the refusal of files[failed] (saved answers:
 * json 1; scrapes of the metrics in keep) as a sample not after the
 * one before, rewritten to name the earlier file it overlaps in time
 * and the window both hold, when one does. */
void wc__fleet_name_overlap(const char *const *files, size_t n, size_t failed, int json, const char *const *keep,
                            wc_error *err);
/* Engines selected by label (docs/fleet.md, "Queries"): into
 * f->sel_engines the first matcher's label that only engines' series
 * carry (model_name, engine, ...), which the GPU queries leave out; into
 * f->sel_gpus the first that only GPUs' series carry (Hostname, UUID,
 * ...), which the engine queries leave out. */
void wc__fleet_selector_engines(wc_fleet *f, const char *selector);
/* A group of GPUs and no engine when the selector selects engines by
 * such a label: the GPUs of engines not selected, counted and 1 (said
 * once by wc__fleet_say_unselected); 0 without such a label. */
int wc__fleet_unselected_gpus(wc_fleet *f, const fleet_group *g);
/* The same of a group of engines and no GPU when the selector selects
 * GPUs by such a label: the engines of GPUs not selected, counted and 1;
 * 0 without such a label. Both said once by wc__fleet_say_unselected. */
int wc__fleet_unselected_engines(wc_fleet *f, const fleet_group *g);
/* The selector's matchers but those on labels only engines carry, as
 * selector text into out ("" none), their count into *removed (NULL:
 * not wanted); WC_EINVAL when it does not fit or parse. */
int wc__fleet_selector_without_engines(const char *selector, char *out, size_t size, int *removed);
/* fleet_shared.c: with an engines-only --selector, the engine load
 * series of `all` (a whole file's set, before the selector) that the
 * selector's other matchers select, one sample each, into *others. */
int wc__fleet_shared_others(const char *selector, const wc_prom_set *all, wc_prom_set *others, wc_error *err);
/* fleet_shared.c: after `set` is fed, the groups read whose GPUs also
 * serve an engine of `others` the selector left out, which the grouping
 * cannot tell apart: said once per group, naming the engine and the
 * GPUs (docs/fleet.md, "Queries"). From a server (url), *others are
 * queried over the page [a, b] first; from files, given. */
int wc__fleet_shared_page(wc_fleet *f, const char *url, const wc_prom_set *set, double a, double b,
                          wc_prom_set *others, wc_error *err);
void wc__fleet_say_unselected(wc_fleet *f);
/* Does a matcher name `namespace` or `pod`? */
int wc__fleet_selector_k8s(const fleet_matcher *m, size_t n);

/* fleet.c */
/* wc_prom_http_query_range with the ingest's timeout, each distinct
 * warning or info of the server's answers said once (a partial answer
 * repeats it in every query of every page). */
int wc__fleet_query(wc_fleet *f, const char *url, const char *query, double start, double end, double step,
                    const char *metric, wc_prom_set *set, wc_error *err);
/* The engine load's names read, every stack's, for the refusals that ask
 * for it: "vllm:num_requests_running, sglang:num_running_reqs or
 * tgi_batch_current_size" (wc_fleet_metric_ranked's names). */
void wc__fleet_load_names(char *buf, size_t size);
/* fleet_verdict.c: every fleet warning, at most 255 bytes (WC_WARNING_LEN)
 * by wc_error_vformat's rule, a series marked WC_QUOTE_OPEN/CLOSE giving
 * way first so the end arrives whole (docs/fleet.md, "Problems in the data"). */
void wc__fleet_warn(wc_fleet *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A verdict on a group (left out, free GPUs, an engine without GPUs) or
 * a server's note of a partial answer: a warning said past the 50
 * warnings' budget too (--quiet still silences it), since a group left
 * out otherwise vanished from the table without a word, as said_no_rows
 * (fleet_rows.c) says of groups without rows (docs/fleet.md, "Problems
 * in the data"). */
void wc__fleet_verdict(wc_fleet *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* An error "SERIES: <fmt ...>" whose text after the series is kept whole:
 * the series is shortened to what the message buffer leaves. */
int wc__fleet_error(wc_error *err, int code, const char *series, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* fleet_groups.c: the group of series s of metric m under --group-by
 * (NULL: the default): its key (the values joined by '|') and name. */
void wc__fleet_group_key(const char *group_by, const wc_prom_series *s, int metric, char *key, size_t ksize,
                         char *name, size_t nsize);
/* Is metric m read per GPU (DCGM's series: power, framebuffer used)? They
 * are grouped alike (fleet_groups.c: `Hostname`, `exported_pod`). */
static inline int
wc__fleet_gpu_metric(int m)
{
	return m == WC_FLEET_POWER || m == WC_FLEET_FB_USED;
}
/* fleet_in_use.c: each GPU power series of the page's groups paired with
 * its framebuffer-used series (the same labels, else the same `UUID`). */
int wc__fleet_pair_fb(wc_fleet *f, const wc_prom_set *set, wc_error *err);
/* fleet_in_use.c: idle[j] = 1 for the group's GPUs j at step t that hold
 * no more framebuffer than an engine holds at least
 * (WC_FLEET_GPU_IN_USE_SHARE of the board's memory): no engine uses them,
 * and they are left out of its TP and power, said once per group. None
 * when every GPU read is so (no engine holds any: one restarting) or the
 * board's memory is unknown (docs/fleet.md, "Grouping"). */
void wc__fleet_idle_gpus(wc_fleet *f, fleet_group *g, const wc_prom_set *set, double t, unsigned char *idle);
/* fleet_in_use.c: at the end, groups of several GPUs whose TP is their
 * host's GPU count (no framebuffer-used series, or a board the catalog
 * lacks) said once. */
void wc__fleet_say_in_use(wc_fleet *f);
/* fleet_groups.c: the host of series s of metric m: DCGM's Hostname for
 * a power series, else its instance without the port. */
void wc__fleet_series_host(const wc_prom_series *s, int metric, char *out, size_t size);
/* fleet_groups.c: every series of the page to its group (created when
 * new); a group with two engines no --group-by parts is left out
 * (fleet_group.left_out). */
int wc__fleet_assign(wc_fleet *f, const wc_prom_set *set, wc_error *err);

/* fleet_keys.c: 1 when the grouping reads `host`. */
int wc__fleet_by_host(const wc_fleet *f);
/* fleet_keys.c: the --group-by label (into label, its values into vg and
 * ve, each of `size`) whose values tell GPU group g from engines-only group
 * e on one host; 0 when none but host does or the hosts differ. */
int wc__fleet_label_apart(const wc_fleet *f, const fleet_group *g, const fleet_group *e, char *label, char *vg,
                          char *ve, size_t size);
/* fleet_keys.c: 1 when g and e differ in their host alone, every other
 * label carried by both and equal; into rest the --group-by without host. */
int wc__fleet_host_apart(const wc_fleet *f, const fleet_group *g, const fleet_group *e, char *rest, size_t size);

/* fleet_processes.c: series of one engine metric differing in process
 * labels alone (`pid`), one after the other, joined into the first: one
 * engine restarted (docs/fleet.md, "Grouping"). */
int wc__fleet_join_processes(wc_prom_set *set, wc_error *err);
/* fleet_processes.c: 1 when series s carries the labels of `key` (a
 * series' key of its metric) that it has at all with their values, and
 * another label is on one side alone (process labels aside): one
 * engine's series relabelled (vLLM V1's `engine` label added). */
int wc__fleet_relabel_of(const char *key, const wc_prom_series *s);
/* fleet_processes.c: series of one engine metric and group, each
 * relabelled from the one before (wc__fleet_relabel_of) and never beside
 * it, joined into the first and said once per group: one engine, not
 * engines to add up (docs/fleet.md, "Grouping"). */
int wc__fleet_join_relabelled(wc_fleet *f, wc_prom_set *set, wc_error *err);
/* fleet_processes.c: the engine slot of group g whose series of metric m
 * on earlier pages s relabels (wc__fleet_relabel_of) and which has none
 * on this page: taken over under s's summed label `label` (said once per
 * group); -1 when none (fleet_groups.c, add_engine). */
int wc__fleet_relabelled_slot(wc_fleet *f, fleet_group *g, const wc_prom_set *set, int m, const wc_prom_series *s,
                              const char *label);

/* fleet_gpus.c: the present power series of group g at t (np of them,
 * power pw) with one series per GPU (its `UUID`, or without one its host
 * and `gpu` index): a GPU scraped by two jobs counts once (the series
 * present at the last step kept, else the first; said once per group).
 * The count kept. */
size_t wc__fleet_one_per_gpu(wc_fleet *f, fleet_group *g, const wc_prom_set *set, size_t *present,
                             double *pw, size_t np, double t);

/* fleet_groups.c: do a and b carry the same labels (one GPU's series
 * under two metric names)? */
int wc__fleet_same_labels(const wc_prom_series *a, const wc_prom_series *b);

/* fleet_groups.c: the labels of b that a lacks or holds otherwise,
 * `name="value"` comma-separated, into out. */
void wc__fleet_label_diff(const wc_prom_series *a, const wc_prom_series *b, char *out, size_t size);

/* fleet_samples.c: series i over (t - step, t] into *v: FLEET_VALUE, or
 * FLEET_ABSENT (no sample; a waiting count with NaN samples alone), FLEET_NAN
 * (a NaN sample of power or running), FLEET_DROPPED (only implausible power
 * samples, each reported; a counter with a negative, infinite or NaN sample
 * in the step, its increases unknown); a WC_* error (< 0)
 * for a running or waiting count that is no count. A counter's value is
 * its last sample in the step, whose time goes to f->sample_t, and its
 * samples' increase to f->count. */
enum { FLEET_ABSENT, FLEET_VALUE, FLEET_NAN, FLEET_DROPPED };
int wc__fleet_value_at(wc_fleet *f, const wc_prom_set *set, size_t i, double t, double *v, wc_error *err);

/* fleet_samples.c: the first step >= k at which a series of a group with
 * GPU power may have a value (a sample in the step, or a stand-in for
 * one); f->n_steps when none. Early by a step rather than late. */
size_t wc__fleet_next_live(const wc_fleet *f, const wc_prom_set *set, size_t k);

/* A scratch of doubles as long as the set's longest series (at least 1),
 * for the spacings or values of one series at a time; NULL when out of
 * memory. The caller frees it. */
double *wc__fleet_series_scratch(const wc_prom_set *set);

/* fleet_interval.c: a step shorter than a group's scrape interval
 * measured on the page refused, naming the group, the interval and a
 * step; a group once measured passes on later pages. */
int wc__fleet_check_interval(wc_fleet *f, const wc_prom_set *set, wc_error *err);
/* At the end: a group never measured on one page is checked on the
 * spacings measured across pages. */
int wc__fleet_check_interval_end(wc_fleet *f, wc_error *err);
/* fleet_interval.c: a server's scrape times (timestamp() of the power
 * and running series of queries q, over the default page's steps from k0)
 * against --step: any step shorter than a group's scrape interval is
 * refused (docs/fleet.md, "Queries"). */
int wc__fleet_check_scrape_times(wc_fleet *f, const char *url, char (*q)[WC_FLEET_QUERY_MAX], size_t k0,
                                 wc_error *err);
/* The step that series s's scrape interval suggests (the check's measure
 * and rounding; a query_range answer's: its grid's step, or the least
 * multiple of it the check accepts; tmp holds s->n values); 0 below two
 * samples. */
double wc__fleet_series_step(const wc_prom_series *s, double *tmp);
/* The step of a query_range answer's grid in ms (the greatest common
 * divisor of its spacings; tmp holds s->n values); 0 when it holds none
 * (a query's raw samples, most steps without a value, one sample). */
long long wc__fleet_grid_ms(const wc_prom_series *s, double *tmp);

/* fleet_window.c: counter c has no sample at step k: the increase up to
 * its sample in step k - 1 withdrawn, and the next not counted. */
void wc__fleet_withdraw(fleet_group *g, int c, size_t k);
/* fleet_window.c: the step into the open window, or held back while the
 * load differs from the window's (a difference that lasts --hold starts
 * a new window). */
int wc__fleet_add_step(wc_fleet *f, fleet_group *g, const fleet_step *st, wc_error *err);

/* fleet_steps.c: steps k0 <= k < k1 of every group. */
/* Was the power series `key` present at the group's last step? */
int wc__fleet_is_member(const fleet_group *g, const char *key);
/* The group's members and their UUIDs freed, none left. */
void wc__fleet_members_free(fleet_group *g);
int wc__fleet_steps(wc_fleet *f, const wc_prom_set *set, size_t k0, size_t k1, wc_error *err);
/* fleet_window.c: step k - 1 taken out of the window or the held steps when it was the
 * last added and its samples cover it in part at its end (part_end), or,
 * with `trail`, the engine's do (trail > 0, before a gap of them); 1 when
 * it was. */
int wc__fleet_drop_last(const wc_fleet *f, fleet_group *g, size_t k, int trail);
/* fleet_window.c: close the group's window and its pending steps into rows. */
int wc__fleet_close(wc_fleet *f, fleet_group *g, wc_error *err);
/* fleet_window.c: at the range's end, each counter's increase at the
 * last step withdrawn as before a step without a sample, and that step
 * left out when its samples cover it in part (said under --verbose). */
void wc__fleet_range_end(wc_fleet *f, fleet_group *g);


/* fleet_gaps.c: is step t a gap (1: left out) for what the group lacks
 * there (state: per metric, bad: its series' key, NULL none; present: np GPUs; nan_gpu,
 * dropped_gpu: a GPU with a NaN or no plausible reading, -1 none)? Said
 * when a gap begins, when what it lacks changes, and when it ends. */
int wc__fleet_gap_step(wc_fleet *f, fleet_group *g, const wc_prom_set *set, const int *state, const char *const *bad,
                       const size_t *present, size_t np, long nan_gpu, long dropped_gpu, double t);
/* fleet_gaps.c: at the range's end (t: its last step), a gap still open
 * and a GPU still missing, reported with the span left out. */
void wc__fleet_partial_end(wc_fleet *f, fleet_group *g, double t);

/* fleet_rows.c */
/* At the end: a --model that names another model than the groups'
 * model_name labels is not applied there, said once. */
void wc__fleet_say_model_unused(wc_fleet *f);
int wc__fleet_emit(wc_fleet *f, fleet_group *g, const fleet_window *w, wc_error *err);
int wc__fleet_table(wc_fleet *f, wc_runs_table **out, wc_error *err);

/* The grid's step count within WC_FLEET_MAX_STEPS (models/limits.h),
 * else refused naming --start/--end/--step. */
int wc__fleet_count_check(const wc_fleet *f, wc_error *err);

#endif
