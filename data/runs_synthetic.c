/*
 * Synthetic runs tables (docs/formats/runs-table.md, "File layout"): how a
 * table says it is one, and what an idle read from its rows is called
 * (docs/fitting.md, "Where P0 comes from"). A simulated idle is the
 * simulation's input plus its noise, not a board's reading: calling it
 * "measured" made the published design's A100 idle (72.9 W) pass for a
 * measurement, where the PowerTrace-Sim A100 runs' quiet stretches read
 * 82-88 W.
 */
#include "data/runs_table.h"

#include <string.h>

#include "data/fileio.h"

int
wc_runs_text_synthetic(const char *buf, size_t len)
{
	size_t bom = wc_text_bom_len(buf, len), n = strlen(WC_RUNS_SYNTHETIC_MARK);
	return len - bom >= n && memcmp(buf + bom, WC_RUNS_SYNTHETIC_MARK, n) == 0;
}

wc_source
wc_runs_idle_source(int any_synthetic)
{
	return any_synthetic ? WC_SRC_SIMULATED : WC_SRC_MEASURED;
}
