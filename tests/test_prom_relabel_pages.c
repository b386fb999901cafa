/*
 * One engine relabelled mid-range is said once per group in one text,
 * whether the old and new series meet within one page (files, a page of
 * a server's answer: wc__fleet_join_relabelled) or across pages (the new
 * series takes over the old one's slot: wc__fleet_relabelled_slot);
 * docs/fleet.md, "Grouping". Host h1, one GPU at 140 W, 4 running, the
 * generation counter from 0 at the relabel at 00:02:00. The two places
 * had a format each: within a page the first metric in name order was
 * named (vllm:generation_tokens_total{...}), across pages the running
 * count's; a dropped label read "labels dropped" within a page and
 * "labels changed" across; a label other than `engine` added across
 * pages was not said at all; and with long labels the message passed
 * 255 bytes. Each case is ingested once as one page and once in two
 * pages split at the relabel: the same line, whole, within 255 bytes.
 */
#include "data/data.h"
#include "trace/fleet.h"
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T0 1767225600L
#define N_STEPS 240
#define RELABEL 120

static char *dir;
static char said[16384];

static void
keep_line(const char *msg, void *payload)
{
	(void)payload;
	snprintf(said + strlen(said), sizeof said - strlen(said), "%s\n", msg);
}

/* The line of `text` holding `what` into out ("" none). */
static void
line_with(const char *text, const char *what, char *out, size_t size)
{
	const char *p = strstr(text, what);
	out[0] = '\0';
	if (!p)
		return;
	while (p > text && p[-1] != '\n')
		p--;
	size_t n = strcspn(p, "\n");
	snprintf(out, size, "%.*s", (int)n, p);
}

typedef struct {
	const char *name;
	size_t n_old, n_new;
	const char *old_names[4], *old_values[4], *new_names[4], *new_values[4];
	const char *shown; /* what the line must say of the labels */
} relabel_case;

static void
options(wc_fleet_options *o)
{
	wc_fleet_options_init(o);
	o->start = (double)T0;
	o->end = (double)(T0 + N_STEPS - 1);
	o->step = 1.0;
	o->min_window_s = 1.0;
	o->warn = keep_line;
	o->max_warnings = 1000;
}

/* The samples of step s into set (one page's, or all). */
static void
add_step(const relabel_case *c, wc_prom_set *set, int s)
{
	wc_error err = { 0 };
	const char *pn[] = { "gpu", "UUID", "Hostname", "modelName" };
	const char *pv[] = { "0", "GPU-0", "h1", "NVIDIA H100 80GB HBM3" };
	int after = s >= RELABEL;
	size_t n = after ? c->n_new : c->n_old;
	const char *const *names = after ? c->new_names : c->old_names;
	const char *const *values = after ? c->new_values : c->old_values;
	double gen = 40.0 * (after ? s - RELABEL + 1 : s + 1);
	CHECK_INT(wc_prom_set_add(set, "DCGM_FI_DEV_POWER_USAGE", 4, pn, pv, (double)(T0 + s), 140, &err), WC_OK);
	CHECK_INT(wc_prom_set_add(set, "vllm:num_requests_running", n, names, values, (double)(T0 + s), 4, &err), WC_OK);
	CHECK_INT(wc_prom_set_add(set, "vllm:generation_tokens_total", n, names, values, (double)(T0 + s), gen, &err),
	          WC_OK);
}

/* The same samples as text scrapes, read as files are: one page. */
static void
one_page(const relabel_case *c, char *line, size_t size)
{
	wc_prom_set all = { 0 };
	char *buf = NULL, *in = path_join(dir, "relabel.prom");
	size_t len = 0, cap = 0;
	for (int s = 0; s < N_STEPS; s++)
		add_step(c, &all, s);
	for (size_t i = 0; i < all.n; i++)
		for (size_t j = 0; j < all.s[i].n; j++)
			test_appendf(&buf, &len, &cap, "%s %.17g %.0f\n", all.s[i].key, all.s[i].v[j], all.s[i].t[j] * 1000.0);
	wc_prom_set_clear(&all);
	CHECK(write_text(in, buf) == 0);
	free(buf);
	wc_fleet_options o;
	wc_runs_table *t = NULL;
	wc_error err = { 0 };
	const char *scrapes[] = { in };
	options(&o);
	said[0] = '\0';
	CHECK_INT(wc_fleet_ingest_files(NULL, 0, scrapes, 1, NULL, &o, &t, &err), WC_OK);
	fprintf(stderr, "%s, one page:\n%s%s\n", c->name, said, err.msg);
	CHECK(t && t->n_runs == 2);
	line_with(said, "under new labels", line, size);
	wc_runs_free(t);
	free(in);
}

/* Two pages split at the relabel, as a server's are: the new series
 * first appears on the second page. */
static void
two_pages(const relabel_case *c, char *line, size_t size)
{
	wc_fleet_options o;
	wc_fleet *f = NULL;
	wc_runs_table *t = NULL;
	wc_error err = { 0 };
	options(&o);
	said[0] = '\0';
	CHECK_INT(wc_fleet_new(&o, &f, &err), WC_OK);
	int rc = WC_OK;
	for (int page = 0; rc == WC_OK && page < 2; page++) {
		wc_prom_set set = { 0 };
		for (int s = page * RELABEL; s < (page + 1) * RELABEL; s++)
			add_step(c, &set, s);
		rc = wc_fleet_feed(f, &set, (size_t)(page * RELABEL), (size_t)((page + 1) * RELABEL), &err);
		wc_prom_set_clear(&set);
	}
	if (rc == WC_OK)
		rc = wc_fleet_finish(f, &t, &err);
	fprintf(stderr, "%s, two pages:\n%s%s\n", c->name, said, err.msg);
	CHECK_INT(rc, WC_OK);
	CHECK(t && t->n_runs == 2);
	line_with(said, "under new labels", line, size);
	wc_runs_free(t);
	wc_fleet_free(f);
}

static void
check(const relabel_case *c)
{
	char one[1024], two[1024];
	one_page(c, one, sizeof one);
	two_pages(c, two, sizeof two);
	CHECK_CONTAINS(one, c->shown);
	CHECK_CONTAINS(two, c->shown);
	if (strcmp(one, two) != 0) {
		fprintf(stderr, "%s: the two lines differ:\n  %s\n  %s\n", c->name, one, two);
		CHECK(0);
	}
	/* Whole, within 255 bytes: its last words arrive. */
	static const char tail[] = "read as one series; a counter that drops is its restart";
	size_t n = strlen(one);
	CHECK(n <= 255);
	CHECK(n >= sizeof tail - 1 && strcmp(one + n - (sizeof tail - 1), tail) == 0);
}

int
main(void)
{
	dir = test_tmpdir("prom_relabel_pages");
	static const relabel_case cases[] = {
		{ "engine added", 2, 3, { "instance", "model_name" }, { "h1:8000", "Qwen/Qwen3-8B" },
		  { "engine", "instance", "model_name" }, { "0", "h1:8000", "Qwen/Qwen3-8B" },
		  "{instance=\"h1:8000\",model_name=\"Qwen/Qwen3-8B\"}: under new labels from 2026-01-01T00:02:00.000Z "
		  "(engine=\"0\"), never beside the old series: one engine relabelled (vLLM V1's engine label?), read as "
		  "one series; a counter that drops is its restart" },
		{ "version added", 2, 3, { "instance", "model_name" }, { "h1:8000", "Qwen/Qwen3-8B" },
		  { "instance", "model_name", "version" }, { "h1:8000", "Qwen/Qwen3-8B", "v1" },
		  "(version=\"v1\"), never beside the old series: one engine relabelled, read as one series" },
		{ "engine dropped", 3, 2, { "engine", "instance", "model_name" }, { "0", "h1:8000", "Qwen/Qwen3-8B" },
		  { "instance", "model_name" }, { "h1:8000", "Qwen/Qwen3-8B" },
		  "(engine=\"0\" dropped), never beside the old series: one engine relabelled (vLLM V1's engine label?)" },
		{ "long labels", 3, 4, { "instance", "job", "model_name" },
		  { "h1:8000", "kubernetes-pods-inference-vllm-qwen3-coder-480b", "Qwen/Qwen3-Coder-480B-A35B-Instruct-FP8" },
		  { "deployment_revision", "instance", "job", "model_name" },
		  { "2026-01-01-rollout-7f9c6d5b8", "h1:8000", "kubernetes-pods-inference-vllm-qwen3-coder-480b",
		    "Qwen/Qwen3-Coder-480B-A35B-Instruct-FP8" },
		  "(deployment_revision=\"2026-01-01-rollout-7f9c6d5b8\"), never beside the old series" },
	};
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
		check(&cases[k]);
	free(dir);
	return check_report("test_prom_relabel_pages");
}
