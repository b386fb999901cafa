/*
 * A level's stated token totals (wattcast-run.json schema 4, a
 * PowerTrace-Sim summary) against the ones its row counts: the counted
 * are used where the engine's counters or the request log give them
 * (docs/formats/telemetry.md, "wattcast's own manifest"), and a stated
 * total they contradict was dropped without a word -- one of another
 * run, or ten times the tokens, passed unseen.
 */
#include "ingest_internal.h"
#include "models/limits.h"

#include <math.h>
#include <stdio.h>

void
wc__ingest_warn_stated(const run_ctx *rc, const wc_ingest_options *opt, int w, double in_counted,
                       double out_counted, const char *source)
{
	const int l = rc->windows[w].level;
	if (!opt->warn || l < 0)
		return;
	const wc__ingest_stated given = wc__ingest_stated_of(rc, w);
	const double stated[2] = { given.input_tokens, given.output_tokens };
	const double counted[2] = { in_counted, out_counted };
	static const char *const key[2] = { "total_input_tokens", "total_output_tokens" };
	char said[2][160], msg[WC_ERROR_MSG_MAX];
	int n = 0;
	for (int k = 0; k < 2; k++) {
		const double s = stated[k], c = counted[k], most = fmax(s, c);
		if (!isfinite(s) || !isfinite(c) || !(fabs(s - c) > WC_RUN_TOTALS_TOLERANCE * most))
			continue;
		snprintf(said[n++], sizeof said[0], "%s stated %.0f, counted %.0f (%+.0f %%)", key[k], s, c,
		         100.0 * (c - s) / (s > 0 ? s : c));
	}
	if (n == 0)
		return;
	/* once per level: both totals in one warning */
	wc_error_format_path(msg, sizeof msg, rc->dir, ": level %d ('%.40s'): %s%s%s, more than %.0f %% apart: the "
	                     "counted figure%s (from %s) used", l, rc->m.levels[l].label, said[0], n > 1 ? "; " : "",
	                     n > 1 ? said[1] : "", 100.0 * WC_RUN_TOTALS_TOLERANCE, n > 1 ? "s" : "", source);
	opt->warn(msg, opt->warn_payload);
}
