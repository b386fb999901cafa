/*
 * SGLang's per-rank series in Prometheus inputs (docs/fleet.md, "Grouping";
 * docs/formats/telemetry.md, "engine.csv"): the ranks of one engine
 * (`tp_rank`, `pp_rank`) report one scheduler's numbers, the lowest rank
 * read; data-parallel ranks (`dp_rank`) count their own requests, added
 * up. engine.csv's reader applied that rule and `ingest --scrapes` refused
 * the same data as "two engines at once ... differ in tp_rank"; then
 * engine.csv refused data-parallel ranks each with their tensor ranks
 * (compared with its first column only) that --scrapes read, and both
 * refused SGLang's `moe_ep_rank` as two servers, and SGLang's `pid` (each
 * rank's process) as two servers too. Each variant is written
 * as text scrapes and as the engine.csv of the same data; both give the
 * known answer of one engine (host a, 2 GPUs drawing 100 + 10 n W each,
 * n = 4 running requests for 120 s then 20, 10 n generated tokens/s).
 * TGI's gauge, read in engine.csv, is read from scrapes too (one table of
 * the stacks' names, data/engine_csv_header.c). The tokens are SGLang's
 * realtime_tokens_total{mode="decode"}, which counts them as generated
 * (its generation_tokens_total counts a request's when it finishes).
 */
#include "data/data.h"
#include "data/engine_log.h"
#include "trace/fleet.h"
#include "tests/support/ingest_run.h"
#include "tests/support/support.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define T0 1767225600L
#define MODEL "model_name=\"Qwen/Qwen3-8B\""

/* One engine series of a variant: its rank labels, its share of the load,
 * or `odd`: another rank's numbers that must be neither read nor added. */
typedef struct {
	const char *labels;
	double share;
	int odd;
} rank_series;

static char *dir;
/* The stack's names: SGLang's, or TGI's running gauge alone (no token
 * counter, no model_name label). */
static int tgi;

/* The load at second s: running requests, and the generation counter. */
static double
running_at(int s, const rank_series *r)
{
	double n = s < 120 ? 4 : 20;
	return r->odd ? 2 * n + 1 : r->share * n;
}

static double
generated_at(int s, const rank_series *r)
{
	double gen = 5000;
	for (int k = 0; k <= s; k++)
		gen += 10.0 * (k < 120 ? 4 : 20);
	return r->odd ? 3 * gen : r->share * gen;
}

/* `name`.prom (scrapes, the series in the order given) and `name`.csv
 * (engine.csv, its columns in that order); the paths in *prom, *csv. */
static void
write_variant(const char *name, const rank_series *r, size_t nr, char **prom, char **csv)
{
	char *buf = NULL, *eng = NULL, file[64];
	size_t len = 0, cap = 0, elen = 0, ecap = 0;
	test_appendf(&eng, &elen, &ecap, "timestamp");
	for (size_t j = 0; j < nr && tgi; j++)
		test_appendf(&eng, &elen, &ecap, ",tgi_batch_current_size%s%s%s", *r[j].labels ? "{" : "", r[j].labels,
		             *r[j].labels ? "}" : "");
	for (size_t j = 0; j < nr && !tgi; j++)
		test_appendf(&eng, &elen, &ecap, ",sglang:num_running_reqs{" MODEL ",%s},sglang:realtime_tokens_total{"
		             MODEL ",%s,mode=\"decode\"}", r[j].labels, r[j].labels);
	test_appendf(&eng, &elen, &ecap, "\n");
	for (int s = 0; s < 240; s++) {
		int n = s < 120 ? 4 : 20;
		test_appendf(&buf, &len, &cap, "# wattcast-scrape %ld a:8000\n", T0 + s);
		test_appendf(&eng, &elen, &ecap, "%ld", T0 + s);
		for (size_t j = 0; j < nr && tgi; j++) {
			test_appendf(&buf, &len, &cap, "tgi_batch_current_size%s%s%s %.1f\n", *r[j].labels ? "{" : "",
			             r[j].labels, *r[j].labels ? "}" : "", running_at(s, &r[j]));
			test_appendf(&eng, &elen, &ecap, ",%.1f", running_at(s, &r[j]));
		}
		for (size_t j = 0; j < nr && !tgi; j++) {
			test_appendf(&buf, &len, &cap, "sglang:num_running_reqs{" MODEL ",%s} %.1f\n"
			             "sglang:realtime_tokens_total{" MODEL ",%s,mode=\"decode\"} %.1f\n", r[j].labels,
			             running_at(s, &r[j]),
			             r[j].labels, generated_at(s, &r[j]));
			test_appendf(&eng, &elen, &ecap, ",%.1f,%.1f", running_at(s, &r[j]), generated_at(s, &r[j]));
		}
		test_appendf(&eng, &elen, &ecap, "\n");
		test_appendf(&buf, &len, &cap, "# wattcast-scrape %ld dcgm:9400\n", T0 + s);
		for (int g = 0; g < 2; g++)
			test_appendf(&buf, &len, &cap, "DCGM_FI_DEV_POWER_USAGE{gpu=\"%d\",Hostname=\"a\",modelName="
			             "\"NVIDIA H100 80GB HBM3\"} %d\n", g, 100 + 10 * n);
	}
	snprintf(file, sizeof file, "%s.prom", name);
	*prom = path_join(dir, file);
	write_text(*prom, buf);
	snprintf(file, sizeof file, "%s.csv", name);
	*csv = path_join(dir, file);
	write_text(*csv, eng);
	free(buf);
	free(eng);
}

/* Row i spans [a, b] s from T0 with 2 GPUs at level n. */
static void
check_row(const wc_runs_table *t, size_t i, int a, int b, int n)
{
	if (!t || i >= t->n_runs) {
		CHECK(0);
		return;
	}
	CHECK_NEAR(test_runs_extra(t, i, "start_epoch"), (double)(T0 + a), 1e-6);
	CHECK_NEAR(test_runs_extra(t, i, "end_epoch"), (double)(T0 + b), 1e-6);
	CHECK_INT(t->runs[i].tp, 2);
	CHECK_NEAR(t->runs[i].mean_power_w, 2 * (100.0 + 10 * n), 1e-9);
	CHECK_NEAR(t->runs[i].running, n, 1e-12);
	if (!tgi)
		CHECK_NEAR(t->runs[i].throughput_tok_s, 10.0 * n, 1e-9);
}

/* ingest --scrapes: accepted, with the known answer's two rows. */
static void
check_scrapes(const char *prom)
{
	char *out = path_join(dir, "out.csv");
	const char *argv[] = { "wattcast", "ingest", "--scrapes", prom, "-o", out, "--min-window", "1",
		               tgi ? "--model" : NULL, "Qwen/Qwen3-8B", NULL };
	run_result r;
	wc_runs_table *t = NULL;
	unlink(out);
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	if (r.status != 0)
		fprintf(stderr, "%s: %s\n", prom, r.err);
	if (r.status == 0 && wc_runs_read(out, &t, NULL) != WC_OK)
		t = NULL;
	CHECK(t && t->n_runs == 2);
	check_row(t, 0, 0, 119, 4);
	check_row(t, 1, 120, 239, 20);
	CHECK(t && strcmp(t->runs[0].model, "Qwen/Qwen3-8B") == 0);
	wc_runs_free(t);
	run_result_free(&r);
	free(out);
}

/* The engine.csv of the same data: read, with the known answer's load. */
static void
check_engine_csv(const char *csv)
{
	wc_telemetry_options opt = WC_TELEMETRY_OPTIONS_INIT;
	wc_engine_log *e = NULL;
	wc_error err = { 0 };
	CHECK_INT(wc_engine_read(csv, &opt, 0, &e, &err), WC_OK);
	if (!e)
		return;
	rank_series one = { "", 1.0, 0 };
	for (int s = 0; s < 240; s += 17) {
		CHECK_NEAR(wc_engine_value_at(e, WC_ENG_RUNNING, (double)(T0 + s)), running_at(s, &one), 1e-12);
		if (!tgi)
			CHECK_NEAR(wc_engine_value_at(e, WC_ENG_GENERATION_TOKENS, (double)(T0 + s)),
			           generated_at(s, &one), 1e-6);
	}
	wc_engine_free(e);
}

int
main(void)
{
	dir = test_tmpdir("prom_ranks");
	/* One engine, its tensor-parallel ranks repeating its numbers; a
	 * rank whose numbers differ (neither read nor added); pipeline
	 * ranks; data-parallel ranks, each with half the load. */
	const rank_series one[] = { { "tp_rank=\"0\"", 1.0, 0 } };
	const rank_series tp2[] = { { "tp_rank=\"0\"", 1.0, 0 }, { "tp_rank=\"1\"", 1.0, 0 } };
	const rank_series tp_odd[] = { { "tp_rank=\"0\"", 1.0, 0 }, { "tp_rank=\"1\"", 1.0, 1 } };
	const rank_series pp2[] = { { "pp_rank=\"0\",tp_rank=\"0\"", 1.0, 0 }, { "pp_rank=\"1\",tp_rank=\"0\"", 1.0, 1 } };
	const rank_series dp2[] = { { "dp_rank=\"0\",tp_rank=\"0\"", 0.5, 0 }, { "dp_rank=\"1\",tp_rank=\"0\"", 0.5, 0 } };
	const struct {
		const char *name;
		const rank_series *r;
		size_t n;
	} v[] = { { "one", one, 1 }, { "tp2", tp2, 2 }, { "tp_odd", tp_odd, 2 }, { "pp2", pp2, 2 }, { "dp2", dp2, 2 } };
	for (size_t k = 0; k < sizeof v / sizeof v[0]; k++) {
		char *prom, *csv;
		write_variant(v[k].name, v[k].r, v[k].n, &prom, &csv);
		check_engine_csv(csv);
		check_scrapes(prom);
		free(prom);
		free(csv);
	}

	/* The lowest rank is read, listed first or not (a server's answer
	 * has its own order of series); data-parallel ranks each with their
	 * tensor ranks: the lowest of each engine, added up, in engine.csv as
	 * from Prometheus (engine.csv refused such columns, compared with its
	 * first one only), in a server's order or SGLang's own; SGLang's
	 * expert-parallel rank (`moe_ep_rank`, on every scheduler series) is a
	 * rank of one engine too, the lowest read. */
	const rank_series tp_last[] = { { "tp_rank=\"1\"", 1.0, 1 }, { "tp_rank=\"10\"", 1.0, 1 },
	                                { "tp_rank=\"0\"", 1.0, 0 } };
	const rank_series dp_tp[] = { { "dp_rank=\"0\",tp_rank=\"1\"", 1.0, 1 },
	                              { "dp_rank=\"1\",tp_rank=\"0\"", 0.5, 0 },
	                              { "dp_rank=\"0\",tp_rank=\"0\"", 0.5, 0 },
	                              { "dp_rank=\"1\",tp_rank=\"1\"", 1.0, 1 } };
	const rank_series dp_tp_sorted[] = { { "dp_rank=\"0\",tp_rank=\"0\"", 0.5, 0 },
	                                     { "dp_rank=\"0\",tp_rank=\"1\"", 1.0, 1 },
	                                     { "dp_rank=\"1\",tp_rank=\"0\"", 0.5, 0 },
	                                     { "dp_rank=\"1\",tp_rank=\"1\"", 1.0, 1 } };
	const rank_series ep2[] = { { "moe_ep_rank=\"1\",pp_rank=\"0\",tp_rank=\"1\"", 1.0, 1 },
	                            { "moe_ep_rank=\"0\",pp_rank=\"0\",tp_rank=\"0\"", 1.0, 0 } };
	const rank_series ep_only[] = { { "moe_ep_rank=\"1\",tp_rank=\"0\"", 1.0, 1 },
	                                { "moe_ep_rank=\"0\",tp_rank=\"0\"", 1.0, 0 } };
	const rank_series dp_ep[] = { { "dp_rank=\"0\",moe_ep_rank=\"0\",tp_rank=\"0\"", 0.5, 0 },
	                              { "dp_rank=\"0\",moe_ep_rank=\"1\",tp_rank=\"1\"", 1.0, 1 },
	                              { "dp_rank=\"1\",moe_ep_rank=\"1\",tp_rank=\"1\"", 1.0, 1 },
	                              { "dp_rank=\"1\",moe_ep_rank=\"0\",tp_rank=\"0\"", 0.5, 0 } };
	/* SGLang's `pid` (prometheus_client's multiprocess mode), a process
	 * of its own per rank: a process label, no engine's. Both readers
	 * refused a TP-2 engine as two servers differing in pid. */
	const rank_series tp_pid[] = { { "moe_ep_rank=\"0\",pid=\"83\",pp_rank=\"0\",tp_rank=\"1\"", 1.0, 1 },
	                               { "moe_ep_rank=\"0\",pid=\"82\",pp_rank=\"0\",tp_rank=\"0\"", 1.0, 0 } };
	const rank_series dp_pid[] = { { "dp_rank=\"0\",pid=\"82\",tp_rank=\"0\"", 0.5, 0 },
	                               { "dp_rank=\"0\",pid=\"83\",tp_rank=\"1\"", 1.0, 1 },
	                               { "dp_rank=\"1\",pid=\"85\",tp_rank=\"1\"", 1.0, 1 },
	                               { "dp_rank=\"1\",pid=\"84\",tp_rank=\"0\"", 0.5, 0 } };
	const struct {
		const char *name;
		const rank_series *r;
		size_t n;
	} w[] = { { "tp_last", tp_last, 3 }, { "dp_tp", dp_tp, 4 }, { "dp_tp_sorted", dp_tp_sorted, 4 },
	          { "ep2", ep2, 2 }, { "ep_only", ep_only, 2 }, { "dp_ep", dp_ep, 4 },
	          { "tp_pid", tp_pid, 2 }, { "dp_pid", dp_pid, 4 } };
	char *prom, *csv;
	for (size_t k = 0; k < sizeof w / sizeof w[0]; k++) {
		write_variant(w[k].name, w[k].r, w[k].n, &prom, &csv);
		check_engine_csv(csv);
		check_scrapes(prom);
		free(prom);
		free(csv);
	}

	/* TGI's running gauge (engine.csv's tgi_batch_current_size, without
	 * labels): read from scrapes as from engine.csv; scrapes refused it
	 * as "no engine load series". */
	const rank_series tgi_one[] = { { "", 1.0, 0 } };
	tgi = 1;
	write_variant("tgi_one", tgi_one, 1, &prom, &csv);
	check_engine_csv(csv);
	check_scrapes(prom);
	free(prom);
	free(csv);
	tgi = 0;

	/* Another label still tells two servers apart, refused. */
	const rank_series servers[] = { { "tp_rank=\"0\",instance=\"a:8001\"", 1.0, 0 },
	                                { "tp_rank=\"1\",instance=\"a:8002\"", 1.0, 0 } };
	write_variant("servers", servers, 2, &prom, &csv);
	char *out = path_join(dir, "out.csv");
	const char *argv[] = { "wattcast", "ingest", "--scrapes", prom, "-o", out, "--min-window", "1", NULL };
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "group 'a' left out: two engines at once, by a label no GPU has (give each "
	               "server's scrape its GPU's gpu label, --group-by host,gpu; or run folders) differ in instance");
	CHECK(strlen(r.err) - strlen("wattcast ingest: \n") <= 255); /* the message, without the prefix */
	run_result_free(&r);
	free(out);
	free(prom);
	free(csv);

	free(dir);
	return check_report("test_prom_ranks");
}
