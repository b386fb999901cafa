/*
 * The most tokens a level's total may hold: its requests times the most
 * a request has (WC_CAPACITY_MAX_TOKENS, as a request log's counts). One
 * rule for a total beside the level's stated requests (both manifest
 * formats) and beside the requests a request log counts in the level
 * (trace/ingest_stated.c): docs/formats/telemetry.md, "wattcast's own
 * manifest". The fixed bound WC_RUN_MAX_TOTAL_TOKENS only is the most
 * requests' (WC_RUN_MAX_REQUESTS): 1e17 tokens over 10 requests gave
 * 1.4e15 tok/s.
 */
#include "run_manifest_internal.h"
#include "models/limits.h"

#include <math.h>
#include <stdio.h>

const char *const wc_run_level_total_keys[2] = { "total_input_tokens", "total_output_tokens" };

int
wc_run_level_totals_beyond(const wc_run_level *lv, double requests, char *why, size_t cap)
{
	if (!(requests >= 0))
		return 0;
	const double most = ceil(requests) * WC_CAPACITY_MAX_TOKENS;
	const double total[2] = { lv->input_tokens, lv->output_tokens };
	for (int k = 0; k < 2; k++) {
		if (!(total[k] > most))
			continue;
		snprintf(why, cap, "%s is more than %s requests hold (at most %s, %g tokens a request)",
		         WC_NUM_TEXT(total[k]), WC_NUM_TEXT(ceil(requests)), WC_NUM_TEXT(most), WC_CAPACITY_MAX_TOKENS);
		return k + 1;
	}
	return 0;
}

int
wc__run_level_check_totals(wc__json_loader *ld, const wc_run_level *lv)
{
	char why[160], p[WC__JSON_PATH_MAX];
	const int k = wc_run_level_totals_beyond(lv, lv->requests, why, sizeof why);
	if (k == 0)
		return WC_OK;
	wc__json_join(p, lv->at, wc_run_level_total_keys[k - 1]);
	return wc__json_fail(ld, p, "%s", why);
}
