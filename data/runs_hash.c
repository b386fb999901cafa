/*
 * A run's content hash (data/runs_table.h, wc_run_content_hash): what a
 * calibration records of each row it used, so that the rows are known
 * again in any table holding them (docs/validation.md, "Frozen-law
 * accuracy").
 */
#include "data/fileio.h"
#include "data/runs_table.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* One field after another, each ended by a unit separator, so that no
 * two runs' fields run together into the same text. Numbers are written
 * with 17 digits: a run read twice from the same decimal text gives the
 * same double, and so the same hash. */
typedef struct {
	char *buf;
	size_t len, cap;
	int ok;
} text;

static void
put(text *t, const char *fmt, double x, const char *s)
{
	char cell[128];
	int n = s ? snprintf(cell, sizeof cell, "%s\x1f", s) : snprintf(cell, sizeof cell, fmt, x);
	if (!t->ok || n < 0)
		return;
	if (t->len + (size_t)n + 1 > t->cap) {
		size_t cap = 2 * t->cap + (size_t)n + 1;
		char *b = realloc(t->buf, cap);
		if (!b) {
			t->ok = 0;
			return;
		}
		t->buf = b;
		t->cap = cap;
	}
	memcpy(t->buf + t->len, cell, (size_t)n);
	t->len += (size_t)n;
}

static void
num(text *t, double x)
{
	/* an unknown is one text, whatever the sign bit of its NaN */
	if (isnan(x))
		put(t, NULL, 0, "nan");
	else
		put(t, "%.17g\x1f", x, NULL);
}

/* The first 64 bits of the SHA-256 of `t`'s text, which it frees; out of
 * memory 0, which no recorded row is but by a 2^-64 chance. */
static uint64_t
text_hash(text *t)
{
	char hex[65] = "";
	if (t->ok)
		wc_sha256_hex(t->buf, t->len, hex);
	free(t->buf);
	hex[16] = '\0';
	return t->ok ? strtoull(hex, NULL, 16) : 0;
}

uint64_t
wc_run_content_hash(const wc_run *r)
{
	text t = { NULL, 0, 0, 1 };
	/* What the power calibration reads of a run (fit/calibrate.c) and
	 * both a runs table's row and a POST /v1/calibrate item carry, so a
	 * calibration over HTTP records the hashes the CLI records of the same
	 * runs (docs/formats/params-file.md, "Provenance"). The active size is
	 * the one the run is calibrated at: the stated one, else the catalog's
	 * for its model name (both readers resolve it so before this). The load
	 * is what the calibration reads: the n(t) series' load levels and the
	 * share of time at each when the run has a series (its `running` is
	 * then not read), else the stated mean `running`. The shares are
	 * written to 9 digits: a series held dt_s per sample (an HTTP item) and
	 * the same samples at times dt_s apart (a series file) differ in the
	 * last bits of their steps, not in the run. */
	put(&t, NULL, 0, r->platform);
	num(&t, r->tp);
	put(&t, NULL, 0, r->model);
	num(&t, r->active_params_b);
	if (r->series.len) {
		double total = 0.0;
		for (size_t i = 0; i < r->series.len; i++)
			total += r->series.weight[i];
		put(&t, NULL, 0, "series");
		for (size_t i = 0; i < r->series.len; i++) {
			num(&t, r->series.running[i]);
			put(&t, "%.9g\x1f", total > 0 ? r->series.weight[i] / total : 0.0, NULL);
		}
	} else {
		num(&t, r->running);
	}
	num(&t, r->mean_power_w);
	num(&t, r->idle_power_w);
	num(&t, (double)r->weights);
	num(&t, (double)r->kv);
	/* not locked: blank in a table, absent or 0 in an item */
	num(&t, isfinite(r->sm_clock_mhz) && r->sm_clock_mhz > 0 ? r->sm_clock_mhz : 0.0);
	return text_hash(&t);
}

size_t
wc_run_id_segment_cut(const char *run_id)
{
	const size_t n = strlen(run_id), tag = strlen(WC_RUN_SEGMENT_TAG);
	size_t d = n;
	while (d > 0 && run_id[d - 1] >= '0' && run_id[d - 1] <= '9')
		d--;
	if (d == n || d < tag || strncmp(run_id + d - tag, WC_RUN_SEGMENT_TAG, tag) != 0)
		return n;
	return d - tag;
}

int
wc_run_same_run(const wc_run *a, const wc_run *b)
{
	const size_t cut = wc_run_id_segment_cut(a->run_id);
	return strcasecmp(a->platform, b->platform) == 0 && wc_run_id_segment_cut(b->run_id) == cut &&
	       strncmp(a->run_id, b->run_id, cut) == 0;
}

size_t
wc_runs_units(const wc_runs_table *t, const size_t *at, size_t n, size_t *unit)
{
	size_t runs = 0;
	for (size_t k = 0; k < n; k++) {
		const wc_run *r = &t->runs[at ? at[k] : k];
		size_t u = 0;
		while (u < k && !wc_run_same_run(&t->runs[at ? at[u] : u], r))
			u++;
		if (unit)
			unit[k] = u == k ? runs : unit[u];
		runs += u == k;
	}
	return runs;
}

uint64_t
wc_run_id_hash(const char *platform, const char *run_id)
{
	text t = { NULL, 0, 0, 1 };
	char id[WC_RUN_ID_HASHED + 1];
	/* the bytes a capacity row keeps of its id (fit/capacity_fit.h), a
	 * segment's without its suffix: the segments and the whole run are
	 * one run (docs/validation.md, "Envelopes") */
	const size_t cut = wc_run_id_segment_cut(run_id);
	snprintf(id, sizeof id, "%.*s", cut < WC_RUN_ID_HASHED ? (int)cut : WC_RUN_ID_HASHED, run_id);
	put(&t, NULL, 0, platform);
	put(&t, NULL, 0, id);
	return text_hash(&t);
}
