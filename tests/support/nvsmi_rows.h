/*
 * Rows of a two-GPU nvidia-smi log for the joined-logs tests
 * (docs/formats/telemetry.md, "Samples"): the GPU columns it has, its
 * header for them, and row k of GPU g, 0.1 s apart from 15:00:00 (GPU 1
 * 2 ms after GPU 0), GPU g drawing 100 (g + 1) W, appended to a buffer.
 */
#ifndef WC_TESTS_NVSMI_ROWS_H
#define WC_TESTS_NVSMI_ROWS_H

#include <stddef.h>

/* The GPU columns a log has: index and uuid, uuid alone, neither, index
 * alone (nvidia-smi's common --query-gpu=timestamp,index,...). */
enum { NVSMI_BOTH, NVSMI_UUID_ONLY, NVSMI_NEITHER, NVSMI_INDEX_ONLY, NVSMI_FORMS };

/** The two GPUs' uuids the rows carry (for gpu_uuids). */
extern const char *const test_nvsmi_uuids[2];
/** The header line of `form` ("timestamp, index, uuid, power.draw [W]\n", ...). */
const char *test_nvsmi_header(int form);
/** Appends row k of GPU g (0 or 1) in `form`'s columns, `shift` s added
 *  to its time, to the NUL-terminated `text` of `cap` bytes. */
void test_nvsmi_row(char *text, size_t cap, int form, int k, int g, double shift);

#endif
