/*
 * The ingest call of the Prometheus scrape tests (docs/fleet.md): scrape
 * text written to a file and read by `wattcast ingest --scrapes`. The
 * caller owns the run and the table it returns.
 */
#ifndef WC_TESTS_PROM_INGEST_H
#define WC_TESTS_PROM_INGEST_H

#include "data/runs_table.h"
#include "tests/support/support.h"

/** `text` written to dir/name and read by `wattcast ingest --scrapes FILE
 *  --step 15 -o dir/out.csv` followed by the NULL-terminated `extra`
 *  flags (NULL: none; at most 8): a failed write or run is a failed
 *  CHECK, the exit status is CHECKed 0 and stderr printed. *r: the run
 *  (run_result_free by the caller); *t: the table written, NULL when the
 *  run failed or it was not read (wc_runs_free by the caller). */
void test_prom_ingest(const char *dir, const char *name, const char *text, const char *const *extra,
                      run_result *r, wc_runs_table **t);

/** The rows of the table at `out` read and CHECKed: `n` rows, each at
 *  `running` requests, `power_w` and `tok_s` (a table that cannot be
 *  read is a failed CHECK). Returns the table (NULL when not read; the
 *  caller wc_runs_free's it) for the caller's own checks. */
wc_runs_table *test_prom_rows_each(const char *out, size_t n, double running, double power_w, double tok_s);

#endif
