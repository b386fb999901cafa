/*
 * A real Prometheus for tests of `wattcast ingest --prometheus` (Debian's
 * `prometheus` package, installed when missing): started on a TSDB that
 * `promtool tsdb create-blocks-from openmetrics` built, always stopped.
 */
#ifndef WC_TEST_PROM_SERVER_H
#define WC_TEST_PROM_SERVER_H

#include <stddef.h>

/** Run argv (no shell, found on PATH); stdout into `out` (NULL:
 *  /dev/null), stderr to /dev/null. Its exit status. */
int test_prom_run(const char *const *argv, const char *out);
/** 1 when /usr/bin/prometheus and promtool are there (installed if they
 *  were missing); else 0, after printing a SKIP line for the caller's
 *  TEST_SKIP. */
int test_prom_ensure(void);
/** A free TCP port on the loopback (0: none found). */
int test_prom_free_port(void);
/** Prometheus on `dir`/tsdb at 127.0.0.1:port, its URL into `url`; 1
 *  when ready. The server is stopped at exit and on SIGTERM/SIGINT. */
int test_prom_start(const char *dir, int port, char *url, size_t size);
/** `om` (OpenMetrics text) built into `dir`/tsdb by `promtool tsdb
 *  create-blocks-from openmetrics` (a failure is a failed CHECK), then
 *  test_prom_start on `dir` at a free port: 1 when ready. */
int test_prom_serve(const char *dir, const char *om, char *url, size_t size);
/** Stop the server started, if any. */
void test_prom_stop(void);

#endif
