/*
 * The runs a frozen-law score skipped, each with its reason whole: the
 * report's one line holds the first, and the refusal of a table none of
 * whose runs could be scored cut even that at its 255 bytes (validate
 * heldout; docs/validation.md, "Frozen-law accuracy").
 */
#include "cli.h"
#include "cli_validate.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void
cli_skips_add(const char *run_id, const char *why, void *payload)
{
	cli_skips *s = payload;
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 16;
		char **ids = realloc(s->run_id, cap * sizeof *ids);
		if (ids)
			s->run_id = ids;
		char **whys = realloc(s->why, cap * sizeof *whys);
		if (whys)
			s->why = whys;
		if (!ids || !whys) {
			s->lost++;
			return;
		}
		s->cap = cap;
	}
	s->run_id[s->n] = strdup(run_id);
	s->why[s->n] = strdup(why);
	if (!s->run_id[s->n] || !s->why[s->n]) {
		free(s->run_id[s->n]);
		free(s->why[s->n]);
		s->lost++;
		return;
	}
	s->n++;
}

void
cli_skips_warn(const char *cmd, const cli_skips *s)
{
	for (size_t i = 0; i < s->n; i++)
		fprintf(stderr, "wattcast %s: warning: run '%s' skipped: %s\n", cmd, s->run_id[i], s->why[i]);
	if (s->lost)
		fprintf(stderr, "wattcast %s: warning: %zu more run(s) skipped, their reasons lost (out of memory)\n",
		        cmd, s->lost);
}

void
cli_skips_json(struct json_t *o, const cli_skips *s)
{
	json_t *a = json_array();
	for (size_t i = 0; i < s->n; i++)
		json_array_append_new(a, json_pack("{s:s,s:s}", "run_id", s->run_id[i], "reason", s->why[i]));
	json_object_set_new(o, "skipped_runs", a);
}

void
cli_skips_free(cli_skips *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->run_id[i]);
		free(s->why[i]);
	}
	free(s->run_id);
	free(s->why);
	memset(s, 0, sizeof *s);
}

void
cli_law_terms_warn(const char *cmd, const wc_heldout_report *const *reps, int n)
{
	wc_law_terms_notes all;
	memset(&all, 0, sizeof all);
	for (int i = 0; i < n; i++)
		wc_fit_law_terms_merge(&all, &reps[i]->law_terms);
	/* each reason with the refits that gave it: a fold holding out a
	 * term's only model refuses it because its covariate does not vary */
	for (int j = 0; j < WC_LT_COUNT; j++) {
		int worded = 0;
		for (int k = 0; k < all.n_why[j]; k++) {
			fprintf(stderr, "wattcast %s: warning: %s (in %d of %d refits)\n", cmd, all.why[j][k],
			        all.why_count[j][k], all.refits);
			worded += all.why_count[j][k];
		}
		if (all.refused[j] > worded)
			fprintf(stderr, "wattcast %s: warning: structure term %s: not fitted for other reasons (in %d of %d "
			        "refits)\n", cmd, wc_law_term_name((wc_law_term)j), all.refused[j] - worded, all.refits);
	}
}

int
cli_validate_per_run_write(const char *path, const wc_per_run *pr, long scored, wc_error *err)
{
	/* a header-only file would replace the user's with nothing of use */
	if (!path || scored <= 0)
		return WC_OK;
	return wc_per_run_write(path, pr, err);
}
