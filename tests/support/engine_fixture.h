/*
 * The read of the engine.csv reader tests: a fixture text written to a
 * file and read through wc_engine_read, its warnings kept.
 */
#ifndef WC_TESTS_ENGINE_FIXTURE_H
#define WC_TESTS_ENGINE_FIXTURE_H

#include "data/engine_log.h"
#include "tests/support/support.h"

/** `body` written to `dir`/`name` and read by wc_engine_read with the
 *  default options but `max_bad_fraction` (WC_TELEMETRY_MAX_BAD: the
 *  default), its warnings collected into `w` (cleared first); a failed
 *  read is a failed CHECK and NULL comes back. */
wc_engine_log *test_engine_fixture(const char *dir, const char *name, const char *body, double max_bad_fraction,
                                   test_warnings *w);

#endif
