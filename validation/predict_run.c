/*
 * One run predicted by a frozen law, as every held-out report needs it:
 * the law at the run's configuration (over its n(t) histogram when it has
 * one), with the run's measured idle power in place of the level's P0
 * when the run has one, the 95 % interval from the set's draws, and the
 * extrapolation warnings -- the same path `wattcast predict` takes, the
 * clock settled under the board's power limit as it settles it.
 */
#include "validation_internal.h"
#include "predict/capacity_predict.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static void
describe_inputs(const wc_run *r, wc_per_run_row *row)
{
	wc_per_run_row_input(row, "platform", r->platform);
	wc_per_run_row_input_number(row, "tp", r->tp);
	wc_per_run_row_input(row, "model", r->model);
	wc_per_run_row_input_number(row, "active_params_b", r->active_params_b);
	wc_per_run_row_input_number(row, "running", r->series.len ? r->series.mean : r->running);
	wc_per_run_row_input(row, "load", r->series.len ? "n_series" : "running");
	wc_per_run_row_input(row, "weights", wc_precision_name(r->weights));
	wc_per_run_row_input(row, "kv_cache", wc_precision_name(r->kv));
	wc_per_run_row_input_number(row, "sm_clock_mhz", r->sm_clock_mhz > 0 ? r->sm_clock_mhz : NAN);
	wc_per_run_row_input_number(row, "idle_power_w", r->idle_power_w);
}

int
wc__predict_run(const wc_predictor *pr, const wc_run *r, double *pred, wc_per_run_row *row, int flags,
                wc_error *err)
{
	const wc_params *p = wc_predictor_params(pr);
	wc_inference_query q = { .config = WC_CONFIG_INIT,
		                 .want_interval = row != NULL && (flags & WC__RUN_INTERVAL) };
	wc_inference_prediction o;
	wc_run_config(r, &q.config);
	/* Validation predicts power: a run that was measured ran, so its
	 * memory is not questioned here (the tokens feed the prefill share). */
	q.skip_memory_check = 1;
	/* A run of a platform without a fitted level is skipped unless asked
	 * for: the held-out scores are the fit's (docs/validation.md). */
	q.no_datasheet = !(flags & WC__RUN_DATASHEET);
	if (r->series.len) {
		q.running_series = r->series.running;
		q.series_hold = r->series.weight;
		q.series_len = r->series.len;
		q.series_gauge = r->n_gauge;
	}
	/* The clock `predict` answers at: above the board's power limit the
	 * GPU lowers its clock until it meets it (docs/capacity.md, "The
	 * board's power limit"), at the run's own load (measured_load). */
	q.measured_load = 1;
	int rc = wc_predict_settle_clock(pr, &q, err);
	if (rc == WC_OK)
		rc = wc_predict_inference(pr, &q, &o, err);
	if (rc != WC_OK)
		return rc;
	*pred = o.power.node_power_w;
	if (!row)
		return WC_OK;
	snprintf(row->run_id, sizeof row->run_id, "%s", r->run_id);
	snprintf(row->quantity, sizeof row->quantity, "mean_power_w");
	describe_inputs(r, row);
	row->predicted = *pred;
	row->measured = r->mean_power_w;
	row->error_pct = 100.0 * (*pred - r->mean_power_w) / r->mean_power_w;
	row->lo = o.has_interval ? o.node_lo_w : NAN;
	row->hi = o.has_interval ? o.node_hi_w : NAN;
	row->ceiling = o.node_ceiling_w;
	row->floor = o.node_floor_w;
	wc__p0_source(p, &q.config, "params:", "datasheet", row->p0_source, sizeof row->p0_source);
	for (int w = 0; w < o.n_warnings; w++)
		wc_per_run_row_warn(row, o.warnings[w]);
	return WC_OK;
}

int
wc_validate_score_runs(void *ctx, const wc_params *p, const wc_run *const *runs, int n, double *node_w,
                       wc_error *err)
{
	(void)ctx;
	wc_predictor *pr = NULL;
	int rc = wc_predictor_new(p, &pr, err);
	for (int i = 0; i < n; i++)
		if (rc != WC_OK || wc__predict_run(pr, runs[i], &node_w[i], NULL, 0, NULL) != WC_OK)
			node_w[i] = NAN;
	wc_predictor_free(pr);
	return rc;
}

void
wc__p0_source(const wc_params *p, const wc_config *c, const char *level_prefix, const char *no_level, char *buf,
              size_t cap)
{
	const wc_level *lvl = c->platform ? wc_params_level(p, c->platform) : NULL;
	const wc_model_term *t = NULL;
	const wc_param *p0 = lvl ? wc_params_find_p0(p, c->model, lvl, &t) : NULL;
	if (c->idle_power_w > 0.0)
		snprintf(buf, cap, "run");
	else if (t) /* the idle the model term was calibrated above (docs/calibration.md) */
		snprintf(buf, cap, "term:%s", wc_source_name(p0->source));
	else
		snprintf(buf, cap, "%s%s", level_prefix, lvl ? wc_source_name(p0->source) : no_level);
}
