/*
 * A runs table of one model for the `validate forms --real` tests
 * (docs/validation.md, "Forms on real runs"): M1 (8 B) on H100 and B200,
 * two workloads (the `set` column: chat, code), four loads each (2, 8, 32
 * and 128 running). Leaving the model out scores nothing; leaving a
 * workload out scores each board. The caller owns the path returned.
 */
#ifndef WC_TESTS_FORMS_ONE_MODEL_H
#define WC_TESTS_FORMS_ONE_MODEL_H

/** Write `dir`/one_model.csv and return its path (malloc'd). */
char *test_forms_one_model(const char *dir);

#endif
