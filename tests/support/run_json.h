/*
 * A wattcast command's JSON answer and its numbers by path, for tests that
 * compare answers (the open-loop, capacity-docs and envelope tests).
 * The caller owns the json_t returned (json_decref) and the stderr text
 * given back in *err (free).
 */
#ifndef WC_TESTS_RUN_JSON_H
#define WC_TESTS_RUN_JSON_H

#include <jansson.h>

/** Run `argv` (checked to exit 0) and parse its stdout as JSON; when
 *  `err` is not NULL, *err gets a copy of its stderr ("" when none). */
json_t *test_run_json(const char *const *argv, char **err);
/** The number at "a/b/c" through objects of `j`; NaN when absent. */
double test_json_num(const json_t *j, const char *path);

#endif
