/*
 * Private to data/: the runs table's documented columns
 * (docs/formats/runs-table.md), shared by its reader (runs_table.c) and
 * its writer (runs_write.c).
 */
#ifndef WC_DATA_RUNS_TABLE_INTERNAL_H
#define WC_DATA_RUNS_TABLE_INTERNAL_H

#include "data/runs_table.h"

typedef enum {
	COL_RUN_ID, COL_PLATFORM, COL_TP, COL_MODEL, COL_ACTIVE, COL_TOTAL, COL_ARCH,
	COL_RUNNING, COL_SERIES, COL_POWER, COL_IDLE, COL_WEIGHTS, COL_KV, COL_CLOCK,
	COL_WORKLOAD, COL_INPUT, COL_OUTPUT, COL_TPUT, COL_EPT, COL_SET, COL_EXCLUDE,
	COL_COUNT
} column_id;

_Static_assert(COL_COUNT == WC_RUN_COLUMNS, "wc_run.column holds a position per documented column");

/** Column names in file order (docs/formats/runs-table.md). */
extern const char *const wc__runs_column_names[COL_COUNT];

/** Set run `row`'s n_gauge from its n_source extra (runs_extra.c). */
void wc__run_note_gauge(wc_runs_table *t, size_t row);

#endif
