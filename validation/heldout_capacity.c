/*
 * The rows of a table whose frozen power the set's capacity section moved,
 * that section fitted on this very table or on those runs (its recorded
 * run hashes), and the runs a replay takes such service times for: their
 * scores are in-sample, as
 * those of the rows the law was fitted on are (docs/validation.md,
 * "Frozen-law accuracy").
 */
#include "validation_internal.h"
#include "predict/capacity_predict.h"

#include <string.h>

/* Does the capacity section enter the frozen power of a run of config `c`?
 * A replayed run is scored at its own running count (its series, or its
 * mean), with no request rate and no memory check (wc__predict_run), so
 * neither an open loop's count nor the KV cache's hold comes from the
 * section. What does: the prefill-aware form's prefill share, from the
 * section's step times, where the run has a catalog model, output tokens,
 * an input length and a capacity level, on a board with a power limit
 * (wc_law_bind); and the prompt-share term's input length, the section's
 * workload estimate, where the run gives none (docs/inference-law.md,
 * "Prefill-aware form"; docs/capacity.md, "What the rows cannot
 * identify"). */
static int
capacity_moves(const wc_params *p, const wc_config *c)
{
	if (wc_form_has_prefill(p->form)) {
		const wc_platform_info *board = wc_predict_board(p, c->platform);
		if (board && board->max_power_w > 0.0 && wc_law_prefill_share(p, c) > 0.0)
			return 1;
	}
	return (p->law_terms & WC_LT_BIT(WC_LT_PROMPT)) && !(c->input_tokens > 0.0) && c->output_tokens > 0.0 &&
	       wc_config_input_tokens(c, &p->capacity) > 0.0;
}

int
wc_capacity_fitted_on_run(const wc_capacity_params *cap, const char *platform, const char *run_id)
{
	if (!cap->present || cap->n_run_hashes <= 0)
		return 0;
	uint64_t h = wc_run_id_hash(platform, run_id);
	for (int i = 0; i < cap->n_run_hashes; i++)
		if (cap->run_hashes[i] == h)
			return 1;
	return 0;
}

size_t
wc__capacity_rows_in(const wc_params *p, const wc_runs_table *t, unsigned char *mark)
{
	const wc_capacity_params *cap = &p->capacity;
	size_t n = 0;
	if (!cap->present)
		return 0;
	/* the very table (one input's bytes), else each row the section
	 * records by its platform and run id (schema 16) */
	const int same = cap->input_sha256[0] && strcmp(cap->input_sha256, t->sha256) == 0;
	for (size_t i = 0; i < t->n_runs; i++) {
		const wc_run *run = &t->runs[i];
		if (!same && !wc_capacity_fitted_on_run(cap, run->platform, run->run_id))
			continue;
		wc_config c;
		wc_run_config(run, &c);
		mark[i] = (unsigned char)capacity_moves(p, &c);
		n += mark[i];
	}
	return n;
}

const char *
wc__capacity_sets(const wc_params *p)
{
	return wc_form_has_prefill(p->form) ? "prefill share" : "input length";
}
