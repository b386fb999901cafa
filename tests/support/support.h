/*
 * Helpers for tests: run the wattcast binary and capture its output,
 * temporary folders, and paths from the ctest environment.
 */
#ifndef WC_TEST_SUPPORT_H
#define WC_TEST_SUPPORT_H

#include <jansson.h>
#include <stddef.h>

#include "models/law.h"
#include "models/warnings.h"
#include "tests/support/check.h"

typedef struct {
	int status;     /* exit status, or 128 + signal */
	char *out;      /* captured stdout (malloc'd, NUL-terminated) */
	char *err;      /* captured stderr */
} run_result;

/** Run `argv` (NULL-terminated; argv[0] "wattcast" is replaced by the
 *  built binary) with an optional stdin text; captures both streams. */
int run_wattcast(const char *const *argv, const char *stdin_text, run_result *out);
/** The same with the child's CPU time limited to `cpu_seconds` (0 = no
 *  limit): a run that would loop forever ends with status 128 + SIGXCPU
 *  (or SIGKILL) instead of hanging the test. */
int run_wattcast_limited(const char *const *argv, const char *stdin_text, int cpu_seconds,
                         run_result *out);
void run_result_free(run_result *r);
/** Write `text` to `dir`/`name` (a failed write is a failed CHECK);
 *  the path, malloc'd. */
char *test_fixture(const char *dir, const char *name, const char *text);
/** The value of column `name` in the first data row of CSV text `csv`
 *  (leading `#` comment lines skipped), in `out`; "" when there is none. */
void test_csv_field(const char *csv, const char *name, char *out, size_t cap);
/** The index of column `name` in CSV header line `header` (from 0; the
 *  line ends at its newline), or -1. */
int test_csv_column(const char *header, const char *name);
/** Whether `path` exists (any kind of file). */
int test_exists(const char *path);
/** The whole text of file `path` (malloc'd); a file that cannot be read
 *  is a failed CHECK and "" comes back. */
char *test_slurp(const char *path);
/** The text of docs page `rel` (e.g. "docs/intervals.md", under
 *  WC_SOURCE_DIR) with every run of white space one space (malloc'd):
 *  a phrase the page wraps over lines is found as one. */
char *test_doc_text(const char *rel);
/** Whether docs page `rel` says `phrase` (white space as one space);
 *  says which page does not on stderr. */
int test_doc_says(const char *rel, const char *phrase);
/** The lines of text file `path` (`max` bytes at most) but its comment
 *  lines (a leading `#`) and empty ones, each ended by a newline
 *  (malloc'd): a table's rows. NULL when it cannot be read. */
char *test_uncommented(const char *path, size_t max);
/** The whole texts of files `names[0..n)` of folder `dir` (16 MiB at
 *  most each, malloc'd) into `text`, in order: 0 at the first that cannot
 *  be read (a failed CHECK), 1 when all are. */
int test_read_texts(const char *dir, const char *const *names, size_t n, char **text);
/** Run `argv` and check it succeeds (exit 0; its stderr printed if not). */
void test_run_ok(const char *const *argv);
/** Ingest ../shared's PowerTrace-Sim runs into TMP/pts.csv as
 *  validation/refit-measured.sh does; return that path (malloc'd). */
char *test_ingest_powertrace(const char *shared, const char *tmp);
/** Run `argv`, check it exits 0, and return its stdout then its stderr
 *  as one text (malloc'd). */
char *test_run_said(const char *const *argv);
/** Entries of folder `dir` besides . and .. and, into `holding` when not
 *  NULL, how many of their names hold `part`. 0 when it cannot be read. */
int test_dir_entries(const char *dir, const char *part, int *holding);
/** Run `argv` and check a usage error: exit 2, one line on stderr that
 *  contains `needle`, nothing on stdout. */
void test_usage_error(const char *const *argv, const char *needle);

/** Warnings of a reader, collected as lines of text: pass
 *  test_collect_warning as its `warn` callback and a test_warnings as the
 *  payload. */
typedef struct {
	char text[8192];
	int count;
} test_warnings;
void test_collect_warning(const char *msg, void *payload);
/** How many of an answer's `n` warnings `w` contain `needle`. */
int test_warnings_with(char (*w)[WC_WARNING_LEN], int n, const char *needle);
/** A configuration of catalog model `model` (its architecture and active
 *  size) on `platform` with `tp` GPUs and `running` requests; everything
 *  else as WC_CONFIG_INIT. An unknown model is a failed CHECK (and 8 B
 *  active, no architecture). The strings are borrowed. */
wc_config test_catalog_config(const char *platform, int tp, const char *model, double running);
/** The `paper` profile's law (wc_params_default) with one model term (`model` on `level`,
 *  logit shift `shift`) at `running` on one GPU, over an idle of `idle_w`
 *  (0: the level's P0): the node power the calibration tests draw runs
 *  from. */
double test_term_power(const char *level, const char *model, double shift, double running, double idle_w);
/** Model term k of a parameter file's JSON (borrowed; NULL if none). */
const json_t *test_model_term(const json_t *params, size_t k);
/** Fresh empty folder under WC_TEST_TMP (malloc'd path). */
char *test_tmpdir(const char *name);
/** Join two path parts (malloc'd). */
char *path_join(const char *a, const char *b);
/** printf `fmt` onto the end of growing text `*buf` (`*len` bytes of
 *  `*cap`; NULL, 0, 0 to start), NUL-terminated; grown as it needs. */
void test_appendf(char **buf, size_t *len, size_t *cap, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/** The line of `text` holding `what`, without its newline (malloc'd; ""
 *  when there is none): a printed warning whole, to bound its length. */
char *test_line_with(const char *text, const char *what);
/** `dir` three long folders deep, as a cluster's scratch tree holds a run
 *  ("runs2026-cluster-scratch-filesystem-project-01/.../-03"), made;
 *  malloc'd: a run folder under it puts a warning's path past 200 bytes. */
char *test_deep_dir(const char *dir);
/** `s` (malloc'd, freed) with the first `from` replaced by `to`, as a new
 *  malloc'd string; a CHECK fails and `s` comes back unchanged when `from`
 *  is absent. For editing a dumped file into an older or broken one. */
char *test_replaced(char *s, const char *from, const char *to);
/** The built-in default (`paper`) profile as wc_params_dump writes it,
 *  draws included, parsed (NULL after a failed CHECK); the caller frees it. */
json_t *test_paper_json(void);
/** `s` (malloc'd, freed) with every source "simulated" written
 *  "measured", as a new malloc'd string: a file edited into one before
 *  schema 17, which called a synthetic table's idle measured. */
char *test_simulated_as_measured(char *s);
/** `s` (edited in place, returned) without any `"key": {...}` member of
 *  the items of a dumped parameter file's top-level array `section`
 *  ("\"model_terms\": [", 6 spaces deep; an object without nested
 *  objects): for editing a file into a version that may not carry it. */
char *test_without_object(char *s, const char *section, const char *key);
/** Write a text file (test fixtures). 0 on success. */
int write_text(const char *path, const char *text);
/** 1 when s is valid UTF-8: no character cut in two (a message shortened
 *  to its byte limit must end on a whole character). */
int test_utf8_ok(const char *s);
/** Environment value or a fallback. */
const char *test_env(const char *name, const char *fallback);
/** ../shared (WC_SHARED_DIR) when it exists, else NULL after printing why. */
const char *test_shared_dir(void);

/** True value of a fitted parameter named as a fit names it: the set's,
 *  or the neutral value of a term the truth does not have (0 for a shift,
 *  1 for a KV-cache factor). */
struct wc_params;
double test_truth_of(const struct wc_params *truth, const char *name);

/** The paper profile named "drawn", with 101 bootstrap draws of
 *  theta[A100] (1.50 to 2.50 by 0.01) and no held-out error, so its
 *  intervals are the draws' own: a second set for reload tests. Clear it
 *  with wc_params_clear. */
void test_drawn_params(struct wc_params *p);

/** The "measured" profile loaded into `p` (clear it with wc_params_clear)
 *  and its predictor (free it with wc_predictor_free); a failure is a
 *  failed CHECK and NULL. */
struct wc_predictor;
struct wc_predictor *test_measured_predictor(struct wc_params *p);

/** The paper profile's law bound to `platform` at `active_b` billion
 *  active parameters (its point estimate): the law synthetic power
 *  traces are drawn from. WC_OK or the binding's error. */
int test_paper_law_point(const char *platform, double active_b, wc_law_point *out);

#endif
