/* Private to data/: the engine.csv reader's passes over the rows once
 * all are read (data/engine_log_rows.c). */
#ifndef WC_DATA_ENGINE_LOG_INTERNAL_H
#define WC_DATA_ENGINE_LOG_INTERNAL_H

#include <stddef.h>

#include "data/engine_log.h"
#include "telemetry_internal.h"

/** Drop the rows whose counters are out of line with the rows around
 *  them (bad lines of `bad`), then continue counters across server
 *  restarts with one warning per restart; line[i] is row i's line,
 *  compacted with the rows (docs/formats/telemetry.md, "engine.csv"). */
void wc__engine_settle(wc_engine_log *e, size_t *line, const char *path, const wc_telemetry_options *opt,
                       wc__bad_lines *bad);

/** Warn of each hole between two rows longer than WC_TELEMETRY_GAP_CADENCES
 *  times the log's median spacing, naming the line after it and its
 *  length (docs/formats/telemetry.md, "engine.csv"). */
void wc__engine_warn_gaps(const wc_engine_log *e, const size_t *line, const char *path,
                          const wc_telemetry_options *opt);

#endif
