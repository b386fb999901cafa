/*
 * The fine-tuning runs-table row `wattcast ingest` writes for one run
 * (docs/formats/finetune-runs.md, "Columns written by ingest"): the
 * configuration, energy per step and step time, and extra columns saying
 * how they were measured -- where the step count came from, the window,
 * what was left out, the trace's levels and period.
 */
#include "finetune_trace_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static int
put(wc_ft_table *t, const char *column, double v, const char *fmt, wc_error *err)
{
	char buf[64] = "";
	if (isfinite(v))
		snprintf(buf, sizeof buf, fmt, v);
	return wc_ft_table_set_extra(t, t->n_runs - 1, column, buf, err);
}

int
wc__ft_make_row(const char *dir, const wc_ft_run *run, const wc_ft_steps_result *r, size_t bad_lines,
                const wc_ingest_options *opt, wc_ft_table *table, wc_error *err)
{
	wc_ft_run row = *run;
	wc_ft_flops f;
	char warnings[1024] = "";
	int rc;
	row.energy_per_step_j = r->energy_per_step_j;
	row.step_s = r->step_s;
	if ((rc = wc_ft_flops_compute(&row.config, &f, err)) != WC_OK)
		return rc;
	for (int i = 0; i < r->n_warnings; i++) {
		char msg[WC_ERROR_MSG_MAX];
		wc_error_format_path(msg, sizeof msg, dir, ": %s", r->warnings[i]);
		if (opt->warn)
			opt->warn(msg, opt->warn_payload);
		snprintf(warnings + strlen(warnings), sizeof warnings - strlen(warnings), "%s%s",
		         i ? "; " : "", r->warnings[i]);
	}
	if ((rc = wc_ft_table_append(table, &row, err)) != WC_OK)
		return rc;
	const struct { const char *col; double v; const char *fmt; } cols[] = {
		{ "energy_per_token_j", r->energy_per_step_j / f.tokens_per_step, "%.6g" },
		{ "flops_per_step_tflop", f.flops_per_step_tflop, "%.6g" },
		{ "steps", r->steps, "%.6g" },
		{ "period_s", r->period_clear ? r->period_s : NAN, "%.4f" },
		{ "window_s", r->window_s, "%.3f" },
		{ "window_energy_j", r->window_energy_j, "%.1f" },
		{ "active_s", r->active_s, "%.3f" },
		{ "active_energy_j", r->active_energy_j, "%.1f" },
		{ "excluded_s", r->pause_s, "%.3f" },
		{ "excluded_energy_j", r->pause_energy_j, "%.1f" },
		{ "saves", r->n_saves, "%.0f" },
		{ "midlevel_stretches", r->n_midlevel, "%.0f" },
		{ "logged_pauses", r->n_logged, "%.0f" },
		{ "warmup_steps", r->warmup_steps, "%.0f" },
		{ "low_w", r->idle_w, "%.1f" },
		{ "training_w", r->train_w, "%.1f" },
		{ "bad_lines", (double)bad_lines, "%.0f" },
	};
	rc = wc_ft_table_set_extra(table, table->n_runs - 1, "step_source", r->step_source, err);
	for (size_t i = 0; rc == WC_OK && i < sizeof cols / sizeof cols[0]; i++)
		rc = put(table, cols[i].col, cols[i].v, cols[i].fmt, err);
	if (rc == WC_OK)
		rc = wc_ft_table_set_extra(table, table->n_runs - 1, "warnings", warnings, err);
	return rc;
}
