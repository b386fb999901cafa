/*
 * Writing a runs table (docs/formats/runs-table.md): the documented
 * columns some row uses, in their order, then the extra columns verbatim;
 * atomically (data/fileio.h).
 */
#include "data/runs_table.h"

#include "data_internal.h"
#include "runs_table_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const wc__runs_column_names[COL_COUNT] = {
	"run_id", "platform", "tp", "model", "active_params_b", "total_params_b",
	"architecture", "running", "n_series", "mean_power_w", "idle_power_w", "weights",
	"kv_cache", "sm_clock_mhz", "workload", "input_tokens", "output_tokens",
	"throughput_tok_s", "energy_per_token_j", "set", "exclude",
};

static void
put_number(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, "%.12g", v);
}

/* Is an optional column worth writing (some row has a non-default value)? */
static int
column_used(const wc_runs_table *t, column_id c)
{
	for (size_t i = 0; i < t->n_runs; i++) {
		const wc_run *r = &t->runs[i];
		switch (c) {
		case COL_TOTAL: if (isfinite(r->total_params_b)) return 1; break;
		case COL_ARCH: if (r->architecture != WC_ARCH_UNKNOWN) return 1; break;
		case COL_RUNNING: if (isfinite(r->running)) return 1; break;
		case COL_SERIES: if (r->n_series[0]) return 1; break;
		case COL_IDLE: if (isfinite(r->idle_power_w)) return 1; break;
		case COL_WEIGHTS: if (r->weights != WC_PREC_BF16) return 1; break;
		case COL_KV: if (r->kv != WC_PREC_BF16) return 1; break;
		case COL_CLOCK: if (r->sm_clock_mhz > 0) return 1; break;
		case COL_WORKLOAD: if (r->workload != WC_WORKLOAD_UNKNOWN) return 1; break;
		case COL_INPUT: if (isfinite(r->input_tokens)) return 1; break;
		case COL_OUTPUT: if (isfinite(r->output_tokens)) return 1; break;
		case COL_TPUT: if (isfinite(r->throughput_tok_s)) return 1; break;
		case COL_EPT: if (isfinite(r->energy_per_token_j)) return 1; break;
		case COL_SET: if (r->set[0]) return 1; break;
		case COL_EXCLUDE: if (r->exclude[0]) return 1; break;
		default: return 1;
		}
	}
	return 0;
}

static void
put_cell(FILE *f, const wc_run *r, column_id c)
{
	switch (c) {
	case COL_RUN_ID: wc__csv_put(f, r->run_id); break;
	case COL_PLATFORM: wc__csv_put(f, r->platform); break;
	case COL_TP: fprintf(f, "%d", r->tp); break;
	case COL_MODEL: wc__csv_put(f, r->model); break;
	case COL_ACTIVE: put_number(f, r->active_params_b); break;
	case COL_TOTAL: put_number(f, r->total_params_b); break;
	case COL_ARCH: wc__csv_put(f, wc_architecture_name(r->architecture)); break;
	case COL_RUNNING: put_number(f, r->running); break;
	case COL_SERIES: wc__csv_put(f, r->n_series); break;
	case COL_POWER: put_number(f, r->mean_power_w); break;
	case COL_IDLE: put_number(f, r->idle_power_w); break;
	case COL_WEIGHTS: fputs(wc_precision_name(r->weights), f); break;
	case COL_KV: fputs(wc_precision_name(r->kv), f); break;
	case COL_CLOCK: if (r->sm_clock_mhz > 0) put_number(f, r->sm_clock_mhz); break;
	case COL_WORKLOAD: wc__csv_put(f, wc_workload_name(r->workload)); break;
	case COL_INPUT: put_number(f, r->input_tokens); break;
	case COL_OUTPUT: put_number(f, r->output_tokens); break;
	case COL_TPUT: put_number(f, r->throughput_tok_s); break;
	case COL_EPT: put_number(f, r->energy_per_token_j); break;
	case COL_SET: wc__csv_put(f, r->set); break;
	case COL_EXCLUDE: wc__csv_put(f, r->exclude); break;
	case COL_COUNT: break;
	}
}

int
wc_runs_write(const char *path, const wc_runs_table *t, const char *comment, wc_error *err)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return wc_error_set_path(err, WC_ENOMEM, path, ": out of memory");
	if (comment) {
		const char *p = comment;
		while (*p) {
			size_t n = strcspn(p, "\n");
			fprintf(f, "# %.*s\n", (int)n, p);
			p += n + (p[n] == '\n');
		}
	}
	int used[COL_COUNT], first = 1;
	for (int c = 0; c < COL_COUNT; c++) {
		used[c] = column_used(t, (column_id)c);
		if (used[c]) {
			fprintf(f, "%s%s", first ? "" : ",", wc__runs_column_names[c]);
			first = 0;
		}
	}
	wc__extra_write_names(f, &t->extra);
	fputc('\n', f);
	for (size_t i = 0; i < t->n_runs; i++) {
		first = 1;
		for (int c = 0; c < COL_COUNT; c++) {
			if (!used[c])
				continue;
			if (!first)
				fputc(',', f);
			first = 0;
			put_cell(f, &t->runs[i], (column_id)c);
		}
		wc__extra_write_row(f, &t->extra, i);
		fputc('\n', f);
	}
	return wc__memstream_write_atomic(path, f, &buf, &len, err);
}
