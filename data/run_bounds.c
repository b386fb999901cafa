/*
 * The bounds every run row obeys, whichever reader made it: a runs table
 * (data/runs_table.c) or the calibrate route's rows (server/). One place,
 * so a file and a request refuse the same values with the same words
 * (docs/formats/runs-table.md; the limits are models/limits.h).
 */
#include "data/data.h"
#include "data/runs_table.h"
#include "models/limits.h"

#include <stdio.h>
#include <string.h>

const char *
wc_run_out_of_bounds(const wc_run *r, char *why, size_t cap)
{
	if (r->running > WC_RUN_MAX_RUNNING) {
		snprintf(why, cap, "must be at most %g requests at once", (double)WC_RUN_MAX_RUNNING);
		return "running";
	}
	/* A size given (a catalog model's may be left out: NaN here). */
	if (r->active_params_b < WC_MODEL_MIN_PARAMS_B || r->active_params_b > WC_MODEL_MAX_PARAMS_B) {
		snprintf(why, cap, "must be between %g and %g B", WC_MODEL_MIN_PARAMS_B, WC_MODEL_MAX_PARAMS_B);
		return "active_params_b";
	}
	/* The mean power is the whole group's, its bound per GPU. */
	if (r->mean_power_w > r->tp * WC_GPU_MAX_POWER_W) {
		snprintf(why, cap, "must be at most %g W (%g W per GPU of its tp %d, above any GPU board)",
		         r->tp * WC_GPU_MAX_POWER_W, WC_GPU_MAX_POWER_W, r->tp);
		return "mean_power_w";
	}
	/* ... and its low side, the rule ingest refuses a run by
	 * (wc_run_power_under_floor): a table that holds such a row was
	 * written by hand or by an older ingest. */
	if (wc_run_power_under_floor(r, why, cap))
		return "mean_power_w";
	if (r->idle_power_w > WC_GPU_MAX_POWER_W) {
		snprintf(why, cap, "must be at most %g W per GPU (above any GPU board)", WC_GPU_MAX_POWER_W);
		return "idle_power_w";
	}
	/* Blank (NaN) is not measured; 0 is a run that made no tokens. */
	if (r->throughput_tok_s < 0 || r->throughput_tok_s > WC_RUN_MAX_THROUGHPUT_TOK_S) {
		snprintf(why, cap, "must be >= 0 and at most %g tokens/s", WC_RUN_MAX_THROUGHPUT_TOK_S);
		return "throughput_tok_s";
	}
	/* Blank (NaN) is not measured; a token costs energy, and the group
	 * cannot spend more on one than its boards' bound for a day. */
	const double ept_max = r->tp * WC_RUN_MAX_ENERGY_PER_TOKEN_J_PER_GPU;
	if (r->energy_per_token_j <= 0 || r->energy_per_token_j > ept_max) {
		snprintf(why, cap, "must be > 0 and at most %g J (%g W per GPU of its tp %d for a day, %g s, "
		         "on one token)", ept_max, WC_GPU_MAX_POWER_W, r->tp, WC_RUN_MAX_TIME_S);
		return "energy_per_token_j";
	}
	/* A locked clock the board cannot run at is a typo, not a
	 * measurement: the fit would read it through the clock factor far
	 * outside anything measured, as `predict` refuses it. Boards the
	 * catalog does not know keep only the > 0 check. */
	const wc_platform_info *pi = r->sm_clock_mhz > 0 ? wc_platform_board(r->platform, NULL) : NULL;
	if (!wc_platform_clock_in_range(pi, r->sm_clock_mhz)) {
		snprintf(why, cap, "must be within the %s's clock range %g-%g MHz (platform catalog)", pi->name,
		         pi->min_sm_clock_mhz, pi->max_sm_clock_mhz);
		return "sm_clock_mhz";
	}
	return NULL;
}

/* The p95 of a run's power samples may pass the board limit for real:
 * the limiter holds a board's average, not each reading, and genuine A100
 * logs (400 W board) of a few seconds have a p95 of 500 W (1.25x; the
 * trace-replay runs of ../shared). Beyond this multiple it is no
 * transient (docs/formats/telemetry.md, "Units and plausibility"). */
#define P95_OVER_LIMIT 1.5

/* The telemetry readers drop samples beyond WC_TELEMETRY_POWER_LIMIT_FACTOR
 * x the board limit as bad lines; a run whose mean per GPU stays above
 * the limit itself (or its p95 above P95_OVER_LIMIT x it), though every
 * sample is below that bound, is still no measurement of that board.
 * Said, not refused: the table may name the wrong platform or tp, or the
 * board may run a raised limit (docs/formats/telemetry.md, "Units and
 * plausibility"). */
int
wc_run_power_over_board(const wc_run *r, double p95_w, char *why, size_t cap)
{
	const wc_platform_info *pi = r->platform[0] ? wc_platform_board(r->platform, NULL) : NULL;
	if (!pi || !(pi->max_power_w > 0) || r->tp <= 0)
		return 0;
	double mean = r->mean_power_w / r->tp, p95 = p95_w / r->tp;
	if (mean > pi->max_power_w)
		snprintf(why, cap, "mean power %.1f W per GPU is above the %s board limit %.0f W: wrong platform "
		         "or tp?", mean, pi->name, pi->max_power_w);
	else if (p95 > P95_OVER_LIMIT * pi->max_power_w)
		snprintf(why, cap, "p95 power %.1f W per GPU is above %g x the %s board limit %.0f W: wrong "
		         "platform or tp?", p95, P95_OVER_LIMIT, pi->name, pi->max_power_w);
	else
		return 0;
	return 1;
}

/* A GPU at work draws hundreds of watts and an idle one tens: a mean
 * under WC_GPU_MIN_POWER_W per GPU is a unit's slip (kW logged as W: the
 * real A100 4 req/s run read 0.25 W), not a measurement, as a reading
 * beyond WC_GPU_MAX_POWER_W is (docs/formats/telemetry.md, "Units and
 * plausibility"). */
int
wc_power_under_floor(double mean_w, int gpus, char *why, size_t cap)
{
	if (gpus <= 0 || !(mean_w < gpus * WC_GPU_MIN_POWER_W))
		return 0;
	snprintf(why, cap, "mean power %.3g W per GPU is under %g W, below any GPU's idle: a unit slip (kW read as W?)",
	         mean_w / gpus, WC_GPU_MIN_POWER_W);
	return 1;
}

int
wc_run_power_under_floor(const wc_run *r, char *why, size_t cap)
{
	return wc_power_under_floor(r->mean_power_w, r->tp, why, cap);
}

/* The timing extras the capacity fit reads (docs/formats/runs-table.md,
 * "Columns"), with their unit's scale to seconds. */
static const struct {
	const char *name;
	double to_s;
} timing_extras[] = { { "itl_s", 1.0 }, { "ttft_s", 1.0 }, { "median_itl_ms", 1e-3 } };

const char *
wc_run_timing_extra_bad(const char *column, const char *text, char *why, size_t cap)
{
	size_t k = 0, n = sizeof timing_extras / sizeof timing_extras[0];
	while (k < n && strcmp(timing_extras[k].name, column) != 0)
		k++;
	if (k == n || !text || !text[strspn(text, " \t")])
		return NULL;
	double v, max = WC_RUN_MAX_TIME_S / timing_extras[k].to_s;
	if (wc_parse_decimal(text, &v) != 0) {
		snprintf(why, cap, "expected a number, got '%.40s'", text);
		return timing_extras[k].name;
	}
	if (!(v >= 0 && v <= max)) {
		snprintf(why, cap, "must be >= 0 and at most %g (a day), got '%.40s'", max, text);
		return timing_extras[k].name;
	}
	return NULL;
}
