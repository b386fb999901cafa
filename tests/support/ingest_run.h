/*
 * The ingest call of the synthetic-folder ingest tests: a run folder
 * through wc_ingest_run with the default options, its warnings kept.
 */
#ifndef WC_TESTS_INGEST_RUN_H
#define WC_TESTS_INGEST_RUN_H

#include "data/runs_table.h"
#include "tests/support/support.h"
#include "trace/ingest.h"

/** wc_ingest_run of `dir` with options `o` (the caller's), its warnings
 *  collected into `w` (cleared first). */
int test_ingest_with(const char *dir, wc_ingest_options *o, wc_ingest_result *res, test_warnings *w,
                     wc_error *err);
/** wc_ingest_run of `dir` with the default options but `segment_s` (0:
 *  one row a window), its warnings collected into `w` (cleared first). */
int test_ingest_run(const char *dir, double segment_s, wc_ingest_result *res, test_warnings *w, wc_error *err);
/** test_ingest_run with the defaults a run's manifest may leave
 *  unstated set to A100, Qwen3-8B, tp 1 and UTC offset 0; a failure's
 *  message printed to stderr. */
int test_ingest_a100(const char *dir, double segment_s, wc_ingest_result *res, test_warnings *w);
/** wc_ingest_run of `dir` with the default options but `segment_s`,
 *  its warnings left to the default; a failure is a failed CHECK. */
void test_ingest_ok(const char *dir, double segment_s, wc_ingest_result *res);
/** Column `col` of row i of a runs table as a number, NaN when empty or
 *  absent. */
double test_runs_extra(const wc_runs_table *t, size_t i, const char *col);
/** The rows of `res` that carry a series (two points or more). */
size_t test_series_count(const wc_ingest_result *res);

#endif
