/*
 * `wattcast ingest`: engine counters that count a request's work when it
 * finishes (SGLang's prompt_tokens_total and generation_tokens_total,
 * wc_engine_exported_at_end). Over a window their increase is the work of
 * the requests completed in it -- the work done in it only when no
 * request runs at its ends (docs/formats/telemetry.md, "engine.csv").
 */
#include "ingest_internal.h"

#include <math.h>
#include <stdio.h>

/* Requests running or waiting at t by the engine's gauges (held from
 * each sample); NaN unknown. */
static double
in_flight(const wc_engine_log *e, double t)
{
	double run = wc_engine_value_at(e, WC_ENG_RUNNING, t), wait = wc_engine_value_at(e, WC_ENG_WAITING, t);
	return isfinite(wait) && isfinite(run) ? run + wait : run;
}

int
wc__ingest_at_end_ends(const run_ctx *rc, double a, double b, double *n_a, double *n_b)
{
	const wc_engine_log *e = rc->eng;
	*n_a = *n_b = NAN;
	if (!e || !((e->at_end[WC_ENG_GENERATION_TOKENS] && e->col[WC_ENG_GENERATION_TOKENS]) ||
	            (e->at_end[WC_ENG_PROMPT_TOKENS] && e->col[WC_ENG_PROMPT_TOKENS])))
		return 0;
	*n_a = in_flight(e, a);
	*n_b = in_flight(e, b);
	/* A gauge unknown at an end cannot tell that none ran there. */
	return !(*n_a == 0.0) || !(*n_b == 0.0);
}

/* The reason and its remedy first, the counts after them: with the run id
 * and the counts before it, a run folder's path left no room for the
 * remedy (docs/architecture.md, "Errors"). The path names the run, as the
 * idle-end warning's (trace/ingest_lead.c); a replica is named. */
void
wc__ingest_warn_at_end(const run_ctx *rc, const wc_ingest_options *opt, const wc_ingest_row *row, double n_a,
                       double n_b)
{
	if (!opt->warn)
		return;
	char msg[WC_ERROR_MSG_MAX], share[64] = "", whose[WC__REPLICA_WHOSE];
	double n = row->requests > 0 ? row->requests : rc->m.requests;
	if (n > 0 && isfinite(n_a) && isfinite(n_b))
		snprintf(share, sizeof share, ", %.0f %% of its %.0f", 100.0 * (n_a + n_b) / n, n);
	/* as the replica's other warnings */
	wc__ingest_replica_whose(rc, whose, sizeof whose);
	/* One running at the start is counted whole, one at the end not at
	 * all (a gauge unknown there: NaN, said as such). */
	wc_error_format_path(msg, sizeof msg, rc->dir, ":%s %.40s counts a request's tokens when it finishes: "
	                     "throughput and energy per token are off unless the run starts and ends idle "
	                     "(requests in flight: %.0f at its start, %.0f at its end%s)", whose,
	                     rc->eng->at_end[WC_ENG_GENERATION_TOKENS] ? rc->eng->at_end[WC_ENG_GENERATION_TOKENS]
	                                                               : rc->eng->at_end[WC_ENG_PROMPT_TOKENS],
	                     n_a, n_b, share);
	opt->warn(msg, opt->warn_payload);
}
