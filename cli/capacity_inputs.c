/*
 * The inputs of `fit capacity` and `validate capacity`: any mix of runs
 * tables, periods tables and raw ML.ENERGY configuration tables, merged
 * by data/table_inputs.h, and the capacity evidence drawn from both; and
 * the lines naming the rows that evidence leaves out, which both print.
 */
#include "cli.h"
#include "cli_capacity.h"
#include "data/table_inputs.h"

#include <stdio.h>
#include <string.h>

int
cli_capacity_inputs_load(const char *cmd, char **paths, int n, cli_capacity_inputs *in)
{
	wc_error err;
	memset(in, 0, sizeof *in);
	if (wc_table_inputs_read(paths, n > 0 ? (size_t)n : 0, &in->runs, &in->periods, &err) != WC_OK)
		return cli_fail(cmd, "%s", err.msg);
	if (wc_capacity_data_add_runs(&in->data, in->runs, &err) != WC_OK ||
	    wc_capacity_data_add_periods(&in->data, in->periods, &err) != WC_OK)
		return cli_fail(cmd, "%s", err.msg);
	if (n > 1)
		wc_table_inputs_fingerprint(paths, (size_t)n, in->data.sha256);
	return CLI_OK;
}

void
cli_capacity_inputs_free(cli_capacity_inputs *in)
{
	wc_runs_free(in->runs);
	if (in->periods)
		wc_periods_free(in->periods);
	wc_capacity_data_clear(&in->data);
	memset(in, 0, sizeof *in);
}

/* Rows of the tables the capacity model cannot describe (a model without
 * architecture facts in the catalog, a platform without a datasheet, a run
 * without timing): fit capacity fits none and no fold of validate capacity
 * scores them, so a reader must be told why the counts fall short of the
 * tables' (docs/capacity.md, docs/validation.md). */

/* One line per reason: the reason, the count and the run ids, as many as
 * fit a message (255 bytes, with room kept for the reason, the counts and
 * " and 9999 more"). add_id appends one row's id while there is room and
 * counts it either way; reason_line writes the line. */
static void
add_id(char *ids, size_t room, int *listed, int *n, const char *id)
{
	size_t used = strlen(ids);
	if (*listed == *n && used + strlen(id) + 2 < room) {
		snprintf(ids + used, room - used, "%s%s", *listed ? ", " : "", id);
		(*listed)++;
	}
	(*n)++;
}

static size_t
id_room(const char *reason)
{
	return 256 - strlen(reason) - 48;
}

static void
reason_line(char *buf, size_t cap, const char *reason, int n, int listed, const char *ids)
{
	if (listed < n)
		snprintf(buf, cap, "%s; %d row(s) skipped: %s and %d more", reason, n, ids, n - listed);
	else
		snprintf(buf, cap, "%s; %d row(s) skipped: %s", reason, n, ids);
}

/* The untimed rows of one reason; the number of rows it names in *n. */
void
cli_capacity_untimed_line(const wc_runs_table *t, int why, char *buf, size_t cap, int *n)
{
	char ids[256] = "";
	const char *reason = wc_capacity_untimed_reason(why);
	int listed = 0;
	*n = 0;
	for (size_t i = 0; t && i < t->n_runs; i++)
		if (wc_capacity_run_untimed(t, i) == why)
			add_id(ids, id_room(reason), &listed, n, t->runs[i].run_id);
	reason_line(buf, cap, reason, *n, listed, ids);
}

static const wc_run *
run_by_id(const wc_runs_table *t, const char *id, size_t len)
{
	for (size_t i = 0; t && i < t->n_runs; i++)
		if (strlen(t->runs[i].run_id) == len && !strncmp(t->runs[i].run_id, id, len))
			return &t->runs[i];
	return NULL;
}

static int
same_lookup(const wc_run *a, const wc_run *b)
{
	return a && b && !strcmp(a->platform, b->platform) && !strcmp(a->model, b->model) &&
	       a->weights == b->weights && a->kv == b->kv;
}

/* Is run i of `t` a row the data kept? */
static int
kept(const wc_capacity_data *d, size_t i)
{
	for (size_t k = 0; k < d->n_rows; k++)
		if (!d->rows[k].from_periods && d->rows[k].source_index == i)
			return 1;
	return 0;
}

/* The rows the capacity data skipped with a note (a platform without a
 * datasheet, a model without architecture): one line per reason, as for
 * the untimed rows (docs/validation.md). A note reads "<id>: <reason>;
 * row skipped" and there are at most WC_WARNINGS_MAX of them, so a
 * skipped run row past them is counted with the note of a row of the same
 * platform, model and precisions -- what the catalog look-ups that skip a
 * row read (fit/capacity_data.c) -- and any other under a reason of its
 * own. Returns the lines; `*named` the rows they count. */
int
cli_capacity_noted_lines(const wc_capacity_data *d, const wc_runs_table *t, char lines[][256], int *named)
{
	char reason[CLI_CAPACITY_REASONS_MAX][256], ids[CLI_CAPACITY_REASONS_MAX][256];
	int n_reasons = 0, count[CLI_CAPACITY_REASONS_MAX] = { 0 }, listed[CLI_CAPACITY_REASONS_MAX] = { 0 }, group[WC_WARNINGS_MAX];
	const wc_run *noted[WC_WARNINGS_MAX];
	for (int k = 0; k < d->n_notes; k++) {
		const char *note = d->notes[k], *sep = strstr(note, ": ");
		const char *why = sep ? sep + 2 : note, *tail = strstr(why, "; row skipped");
		int len = tail ? (int)(tail - why) : (int)strlen(why), g = 0;
		noted[k] = sep ? run_by_id(t, note, (size_t)(sep - note)) : NULL;
		while (g < n_reasons && (strncmp(reason[g], why, (size_t)len) || reason[g][len]))
			g++;
		if (g == n_reasons) {
			snprintf(reason[g], sizeof reason[g], "%.*s", len, why);
			ids[g][0] = '\0';
			n_reasons++;
		}
		group[k] = g;
		if (!noted[k]) { /* a periods row: named by its note */
			char id[96];
			snprintf(id, sizeof id, "%.*s", sep ? (int)(sep - note) : 1, sep ? note : "?");
			add_id(ids[g], id_room(reason[g]), &listed[g], &count[g], id);
		}
	}
	int other = -1;
	for (size_t i = 0; t && i < t->n_runs; i++) {
		if (wc_capacity_run_untimed(t, i) >= 0 || kept(d, i))
			continue;
		int g = -1;
		for (int k = 0; k < d->n_notes && g < 0; k++)
			if (noted[k] == &t->runs[i])
				g = group[k];
		for (int k = 0; k < d->n_notes && g < 0; k++)
			if (same_lookup(noted[k], &t->runs[i]))
				g = group[k];
		if (g < 0 && other < 0) { /* notes <= WC_WARNINGS_MAX: there is room */
			other = n_reasons++;
			snprintf(reason[other], sizeof reason[other], "a platform, model or precision the capacity "
			         "model cannot describe");
			ids[other][0] = '\0';
		}
		if (g < 0)
			g = other;
		add_id(ids[g], id_room(reason[g]), &listed[g], &count[g], t->runs[i].run_id);
	}
	*named = 0;
	for (int g = 0; g < n_reasons; g++) {
		reason_line(lines[g], 256, reason[g], count[g], listed[g], ids[g]);
		*named += count[g];
	}
	return n_reasons;
}
