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
#include <string.h>

const char *
wc__ingest_req_name(const run_ctx *rc)
{
	const char *slash = strrchr(rc->req_path, '/');
	return slash ? slash + 1 : rc->req_path;
}

/* The level's totals name the requests they sum: where the request log
 * counts the level's, its count bounds them as a stated one does
 * (data/run_level_totals.c, the one rule). */
int
wc__ingest_check_stated(const run_ctx *rc, int w, double counted, wc_error *err)
{
	const int l = rc->windows[w].level;
	char why[160];
	int k;
	if (l < 0 || !(k = wc_run_level_totals_beyond(&rc->m.levels[l], counted, why, sizeof why)))
		return WC_OK;
	const wc_run_level *lv = &rc->m.levels[l];
	return wc_error_set_path(err, WC_EPARSE, rc->dir, "/%s: %s/%s: %s, as many as %s counts",
	                         strncmp(lv->at, "/probe/", 7) == 0 ? "manifest.json" : "wattcast-run.json", lv->at,
	                         wc_run_level_total_keys[k - 1], why, wc__ingest_req_name(rc));
}

size_t
wc__ingest_counters_dropped(const run_ctx *rc)
{
	/* past the share the reader refuses by default, counted as the
	 * refusal counts (a clock glitch's run once): read only under a
	 * raised --max-bad, such a log may have lost the rows at its ends.
	 * Bad rows and glitches mid-log, between kept rows (bad_inside),
	 * lose none of the counters' work, however many (they are
	 * cumulative: the next kept row counts it); a log that lost rows at
	 * its ends while work ran is cut there (ingest_windows.c), no whole
	 * level. */
	const wc_engine_log *e = rc->eng;
	if (!e || e->bad_inside || !wc_telemetry_bad_over(e->bad_counted, e->data_lines, WC_TELEMETRY_MAX_BAD))
		return 0;
	return e->bad_lines;
}

void
wc__ingest_warn_stated(const run_ctx *rc, const wc_ingest_options *opt, int w, double in_counted,
                       double out_counted, const char *in_from, const char *out_from)
{
	const int l = rc->windows[w].level;
	if (!opt->warn || l < 0)
		return;
	const wc__ingest_stated given = wc__ingest_stated_of(rc, w);
	const double stated[2] = { given.input_tokens, given.output_tokens };
	const double counted[2] = { in_counted, out_counted };
	const char *from[2] = { in_from, out_from };
	char said[2][160], msg[WC_ERROR_MSG_MAX], source[120];
	int n = 0, far = 0, which[2];
	/* engine.csv's counters, from a log that dropped rows, give way to
	 * a stated total (the real A100 run with four rows an hour ahead
	 * counted 2259 of 42672 output tokens, 19x too few per second) */
	const size_t dropped = wc__ingest_counters_dropped(rc);
	/* as the row takes them (ingest_row.c): said however near the counted
	 * (331.78 input tokens a request stood for 335.575 without a word) */
	const int stated_used = dropped > 0 && !rc->req && isfinite(given.requests);
	for (int k = 0; k < 2; k++) {
		const double s = stated[k], c = counted[k];
		const int apart = fabs(s - c) > WC_RUN_TOTALS_TOLERANCE * fmax(s, c);
		if (!isfinite(s) || !isfinite(c) || !(stated_used || apart))
			continue;
		far += apart;
		which[n] = k;
		snprintf(said[n++], sizeof said[0], "%s stated %.0f, counted %.0f (%+.0f %%)",
		         wc_run_level_total_keys[k], s, c, 100.0 * (c - s) / (s > 0 ? s : c));
	}
	if (n == 0)
		return;
	/* what counted each total named: engine.csv only where it gave it */
	if (n == 1 || strcmp(from[0], from[1]) == 0)
		snprintf(source, sizeof source, "%s", from[which[0]]);
	else
		snprintf(source, sizeof source, "%s for input, %s for output", from[0], from[1]);
	char used[160], apart[48] = "";
	if (far == n)
		snprintf(apart, sizeof apart, ", more than %.0f %% apart", 100.0 * WC_RUN_TOTALS_TOLERANCE);
	if (stated_used)
		snprintf(used, sizeof used, "the stated figure%s used (engine.csv dropped %zu bad line%s: its counters "
		         "may miss work)", n > 1 ? "s" : "", dropped, dropped == 1 ? "" : "s");
	else
		snprintf(used, sizeof used, "the counted figure%s (from %s) used", n > 1 ? "s" : "", source);
	/* once per level: both totals in one warning */
	wc_error_format_path(msg, sizeof msg, rc->dir, ": level %d ('%.40s'): %s%s%s%s: %s", l, rc->m.levels[l].label,
	                     said[0], n > 1 ? "; " : "", n > 1 ? said[1] : "", apart, used);
	opt->warn(msg, opt->warn_payload);
}
