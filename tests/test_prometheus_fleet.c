/*
 * `wattcast ingest --prometheus` against a real Prometheus (Debian's
 * `prometheus` package, installed here when missing): a TSDB built by
 * `promtool tsdb create-blocks-from openmetrics` from
 * tests/support/fleet_openmetrics.sh (3 hosts x 8 GPUs x 1 h at 1 s, load
 * steps every 300 s, host 1's engine restarting, host 3's last GPU
 * dropping out, host 2 exporting the inter-token latency under both of
 * vLLM's names, host 3's engine SGLang) and its known truth per window. Every window's mean power,
 * mean running requests, token rates and inter-token latency must be
 * within 0.5 % of the truth; the same data from saved query_range responses and from text
 * scrapes must give the same table; the restart, the dropout, the gap, an
 * HTTP error and an unreachable server are reported by series, time and
 * label. The server started here is always stopped.
 */
#include "data/data.h"
#include "tests/support/prom_server.h"
#include "tests/support/support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define T0 1767225600L /* 2026-01-01T00:00:00Z: in the past, kept by a 100-year retention */
#define SECONDS 3600

static double
extra_num(const wc_runs_table *t, size_t i, const char *col)
{
	const char *v = wc_runs_get_extra(t, i, col);
	return v && *v ? atof(v) : NAN;
}

static void
check_rel(double got, double want, const char *what, const char *id)
{
	double rel = fabs(got - want) / fabs(want);
	check_count++;
	if (!(rel <= 0.005)) {
		fprintf(stderr, "%s %s: %.9g, truth %.9g (%.3f %% off)\n", id, what, got, want, 100 * rel);
		check_failures++;
	}
}

/* Every truth window has its row, within 0.5 %; no other rows. */
static void
check_truth(const char *dir, const char *table)
{
	char *truth = path_join(dir, "truth.csv"), line[512];
	wc_runs_table *t = NULL;
	wc_error err;
	FILE *f = fopen(truth, "r");
	int rc = wc_runs_read(table, &t, &err), n = 0;
	CHECK(rc == WC_OK && f);
	if (rc != WC_OK || !f) {
		fprintf(stderr, "%s\n", rc != WC_OK ? err.msg : truth);
		goto done;
	}
	if (!fgets(line, sizeof line, f))
		goto done;
	while (fgets(line, sizeof line, f)) {
		char host[32];
		long a, b;
		int tp;
		double p, r, pr, gen, itl;
		if (sscanf(line, "%31[^,],%ld,%ld,%d,%lf,%lf,%lf,%lf,%lf", host, &a, &b, &tp, &p, &r, &pr,
		           &gen, &itl) != 9)
			continue;
		n++;
		size_t i = 0;
		while (i < t->n_runs && !(strcmp(wc_runs_get_extra(t, i, "host"), host) == 0 &&
		                          extra_num(t, i, "start_epoch") == (double)a))
			i++;
		CHECK(i < t->n_runs);
		if (i == t->n_runs) {
			fprintf(stderr, "no row for the truth window %s %ld-%ld\n", host, a, b);
			continue;
		}
		const wc_run *row = &t->runs[i];
		/* Windows after h3's last GPU drops out keep the engine's TP 8
		 * and are excluded: their power is 7 GPUs' (docs/fleet.md). */
		int partial = tp < 8;
		CHECK_INT(row->tp, partial ? 8 : tp);
		CHECK_INT((long)extra_num(t, i, "end_epoch"), b);
		if (partial)
			CHECK(strncmp(row->exclude, "partial power: 7 of 8 GPUs reported", 35) == 0);
		else
			CHECK(row->exclude[0] == '\0');
		CHECK(strcmp(row->platform, "H100") == 0);
		check_rel(row->mean_power_w, p, "mean power", row->run_id);
		check_rel(row->running, r, "running", row->run_id);
		/* h3's (SGLang's) prompt_tokens_total counts a request's tokens
		 * when it finishes: no rate over a window (docs/fleet.md). */
		if (isnan(pr))
			CHECK(isnan(extra_num(t, i, "prompt_tok_s")));
		else
			check_rel(extra_num(t, i, "prompt_tok_s"), pr, "prompt tokens/s", row->run_id);
		check_rel(extra_num(t, i, "generation_tok_s"), gen, "generation tokens/s", row->run_id);
		check_rel(row->throughput_tok_s, gen, "throughput", row->run_id);
		/* h2 exports both ITL names: the new one (half) must be read. */
		check_rel(extra_num(t, i, "itl_s"), itl, "inter-token latency", row->run_id);
	}
	CHECK_INT(n, 38); /* 12 levels per host, one more cut on h1 (restart) and h3 (dropout) */
	CHECK_INT((long)t->n_runs, n);
done:
	if (f)
		fclose(f);
	wc_runs_free(t);
	free(truth);
}

/* Save the responses of the queries --verbose printed, as a user would. */
static void
check_saved_json(const char *dir, const char *url, const char *verbose, const char *http_csv)
{
	const char *argv[40] = { "wattcast", "ingest", "--quiet" };
	char *paths[16] = { NULL }, endpoint[128], start[32], end[32];
	int n = 0, argc = 3;
	snprintf(endpoint, sizeof endpoint, "%s/api/v1/query_range", url);
	snprintf(start, sizeof start, "start=%ld", T0);
	snprintf(end, sizeof end, "end=%ld", T0 + SECONDS - 1);
	for (const char *p = verbose; (p = strstr(p, "query: ")) && n < 16; n++) {
		p += 7;
		size_t len = strcspn(p, "\n");
		char q[2100], file[32];
		snprintf(q, sizeof q, "query=%.*s", (int)len, p);
		snprintf(file, sizeof file, "q%d.json", n);
		paths[n] = path_join(dir, file);
		const char *curl[] = { "curl", "-sfG", endpoint, "--data-urlencode", q, "--data-urlencode",
		                       start, "--data-urlencode", end, "--data-urlencode", "step=1", NULL };
		CHECK_INT(test_prom_run(curl, paths[n]), 0);
		argv[argc++] = "--prometheus-json";
		argv[argc++] = paths[n];
	}
	CHECK_INT(n, 10); /* the nine metrics and the GPUs' framebuffer used */
	/* Each series keeps the name it was read under: h2 exports both ITL
	 * names and its new one is read, h1 the old one alone. One name for
	 * all called h2's values by the old name, and a warning quoting them
	 * named the series it did not quote. */
	int new_sum = 0, new_count = 0, old_sum = 0;
	for (int i = 0; i < n; i++) {
		char *text = test_slurp(paths[i]);
		new_sum += text && strstr(text, "\"__name__\":\"vllm:inter_token_latency_seconds_sum\"") != NULL;
		new_count += text && strstr(text, "\"__name__\":\"vllm:inter_token_latency_seconds_count\"") != NULL;
		old_sum += text && strstr(text, "\"__name__\":\"vllm:time_per_output_token_seconds_sum\"") != NULL;
		free(text);
	}
	CHECK_INT(new_sum, 1);
	CHECK_INT(new_count, 1);
	CHECK_INT(old_sum, 1);
	char *out = path_join(dir, "json.csv");
	argv[argc++] = "-o";
	argv[argc++] = out;
	argv[argc] = NULL;
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0 && r.status == 0);
	char *a = test_uncommented(http_csv, 1 << 26), *b = test_uncommented(out, 1 << 26);
	CHECK(a && b && strcmp(a, b) == 0);
	run_result_free(&r);
	free(a);
	free(b);
	free(out);
	for (int i = 0; i < n; i++)
		free(paths[i]);
}

static void
check_scrapes(const char *dir, const char *http_csv)
{
	char *in = path_join(dir, "scrapes.prom"), *out = path_join(dir, "scrapes.csv");
	const char *argv[] = { "wattcast", "ingest", "--scrapes", in, "-o", out, "--quiet", NULL };
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0 && r.status == 0);
	char *a = test_uncommented(http_csv, 1 << 26), *b = test_uncommented(out, 1 << 26);
	CHECK(a && b && strcmp(a, b) == 0);
	run_result_free(&r);
	free(a);
	free(b);
	free(in);
	free(out);
}

/* Pages of 1000 steps (four queries per metric) give the same table. */
static void
check_pages(const char *dir, const char *url, const char *http_csv)
{
	char *out = path_join(dir, "paged.csv"), start[32], end[32];
	snprintf(start, sizeof start, "%ld", T0);
	snprintf(end, sizeof end, "%ld", T0 + SECONDS - 1);
	const char *argv[] = { "wattcast", "ingest", "--prometheus", url, "--start", start, "--end", end,
	                       "--step", "1", "--page-steps", "1000", "--verbose", "--quiet", "-o", out,
	                       NULL };
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0 && r.status == 0);
	CHECK_CONTAINS(r.err, "page 2026-01-01T00:50:00.000Z .. 2026-01-01T00:59:59.000Z");
	char *a = test_uncommented(http_csv, 1 << 26), *b = test_uncommented(out, 1 << 26);
	CHECK(a && b && strcmp(a, b) == 0);
	run_result_free(&r);
	free(a);
	free(b);
	free(out);
}

/* A range of a year ending with the hour of data: the pages without a
 * power sample are not fetched (one probe query says which), so the
 * work follows the data, not the range; the same table. Every page was
 * queried: 15 800 pages x 9 queries, minutes against a local server. */
static void
check_sparse_range(const char *dir, const char *url, const char *http_csv)
{
	char *out = path_join(dir, "year.csv"), start[32], end[32];
	snprintf(start, sizeof start, "%ld", T0 - 365L * 86400L);
	snprintf(end, sizeof end, "%ld", T0 + SECONDS - 1);
	const char *argv[] = { "wattcast", "ingest", "--prometheus", url, "--start", start, "--end", end,
	                       "--step", "1", "--verbose", "--quiet", "-o", out, NULL };
	run_result r;
	CHECK(run_wattcast_limited(argv, NULL, 60, &r) == 0 && r.status == 0);
	CHECK_CONTAINS(r.err, "15768 of 15770 pages hold no power sample: not fetched");
	char *a = test_uncommented(http_csv, 1 << 26), *b = test_uncommented(out, 1 << 26);
	CHECK(a && b && strcmp(a, b) == 0);
	run_result_free(&r);
	free(b);
	/* A day past the data: the last page holds no power sample either,
	 * and is not fetched as the others are (it was: "15810 of 15813",
	 * its page said); the same table. */
	snprintf(end, sizeof end, "%ld", T0 + SECONDS - 1 + 86400L);
	CHECK(run_wattcast_limited(argv, NULL, 60, &r) == 0 && r.status == 0);
	CHECK_CONTAINS(r.err, "15811 of 15813 pages hold no power sample: not fetched");
	CHECK(r.err && !strstr(r.err, ".. 2026-01-02T00:59:59.000Z: "));
	b = test_uncommented(out, 1 << 26);
	CHECK(a && b && strcmp(a, b) == 0);
	run_result_free(&r);
	free(a);
	free(b);
	free(out);
}

static void
check_http_errors(const char *dir, const char *url)
{
	char *out = path_join(dir, "bad.csv");
	/* A regular expression Prometheus refuses: a malformed --selector is
	 * now refused before any request (test_prom_inputs.c). */
	const char *bad[] = { "wattcast", "ingest", "--prometheus", url, "--start", "1767225600",
	                      "--end", "2026-01-01T01:00:00Z", "--selector", "{job=~\"(\"}", "-o", out,
	                      NULL };
	run_result r;
	CHECK(run_wattcast(bad, NULL, &r) == 0 && r.status == 1);
	CHECK_CONTAINS(r.err, "HTTP 400");
	CHECK_CONTAINS(r.err, "bad_data");
	CHECK_CONTAINS(r.err, url);
	run_result_free(&r);
	/* A selector that matches nothing says so (it said only "no window
	 * with both GPU power and engine load"). */
	const char *none[] = { "wattcast", "ingest", "--prometheus", url, "--start", "1767225600",
	                       "--end", "2026-01-01T01:00:00Z", "--selector", "{job=\"nosuch\"}", "-o", out, NULL };
	CHECK(run_wattcast(none, NULL, &r) == 0 && r.status == 1);
	CHECK_CONTAINS(r.err, "no series of GPU power (DCGM_FI_DEV_POWER_USAGE) or engine load");
	CHECK_CONTAINS(r.err, "do --selector, --start and --end match any?");
	run_result_free(&r);
	const char *down[] = { "wattcast", "ingest", "--prometheus", "http://127.0.0.1:1", "--start",
	                       "1767225600", "--end", "1767229199", "-o", out, NULL };
	CHECK(run_wattcast(down, NULL, &r) == 0 && r.status == 1);
	CHECK_CONTAINS(r.err, "http://127.0.0.1:1");
	CHECK_CONTAINS(r.err, "onnect");
	CHECK(access(out, F_OK) != 0);
	run_result_free(&r);
	free(out);
}

/* A step shorter than the 1 s scrape interval: every other step had no
 * sample, and the ingest failed with "no window with both GPU power ..."
 * and nothing on the step. Now it names the interval and a step. */
static void
check_short_step(const char *dir, const char *url)
{
	char *out = path_join(dir, "short.csv"), start[32], end[32];
	snprintf(start, sizeof start, "%ld", T0);
	snprintf(end, sizeof end, "%ld", T0 + 600);
	const char *argv[] = { "wattcast", "ingest", "--prometheus", url, "--start", start, "--end", end,
	                       "--step", "0.5", "-o", out, NULL };
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0 && r.status == 1);
	CHECK_CONTAINS(r.err, "wattcast ingest: --step 0.5 s is shorter than the scrape interval: --step 1 "
	               "or longer (group 'h1': a step without a sample is a gap; 1 s measured between the samples of ");
	CHECK(!strstr(r.err, "no window"));
	CHECK(access(out, F_OK) != 0);
	run_result_free(&r);
	free(out);
}

/* An engine exporting both ITL names, the old at 100 x, whose new name
 * resets (an engine restart) at +300 s: the live server's answer names
 * each series, and the warning names the series whose values it quotes
 * (7.5 per 2 s scrape, 1117.5 before the reset). Every series was named
 * by the table's name: 'vllm:time_per_output_token_seconds_sum{...}:
 * counter reset ... (from 1117.5 to 0)', the old name that never reset. */
static void
check_alias_reset(const char *dir)
{
	char *sub = path_join(dir, "alias"), *om = path_join(sub, "alias.om");
	char url[64], start[32], end[32], line[256];
	CHECK_INT(mkdir(sub, 0755) == 0 || access(sub, F_OK) == 0, 1);
	FILE *f = fopen(om, "w");
	CHECK(f != NULL);
	if (!f)
		goto done;
	static const char *const gpu[] = { "Hostname=\"h1\",gpu=\"0\",UUID=\"GPU-0\"",
		                                   "Hostname=\"h1\",gpu=\"1\",UUID=\"GPU-1\"" };
	const char *eng = "instance=\"h1:8000\",model_name=\"Qwen/Qwen3-8B\"";
	fprintf(f, "# TYPE DCGM_FI_DEV_POWER_USAGE gauge\n");
	for (int g = 0; g < 2; g++)
		for (int k = 0; k < 300; k++)
			fprintf(f, "DCGM_FI_DEV_POWER_USAGE{%s,modelName=\"NVIDIA H100 80GB HBM3\"} %d %ld\n", gpu[g],
			        300 + 10 * g, T0 + 2L * k);
	fprintf(f, "# TYPE vllm:num_requests_running gauge\n");
	for (int k = 0; k < 300; k++)
		fprintf(f, "vllm:num_requests_running{%s} 4 %ld\n", eng, T0 + 2L * k);
	fprintf(f, "# TYPE vllm:generation_tokens counter\n");
	for (int k = 0; k < 300; k++)
		fprintf(f, "vllm:generation_tokens_total{%s} %d %ld\n", eng, 500 * k, T0 + 2L * k);
	static const char *const itl[] = { "inter_token_latency_seconds", "time_per_output_token_seconds" };
	for (int n = 0; n < 2; n++) {
		fprintf(f, "# TYPE vllm:%s_sum unknown\n", itl[n]);
		for (int k = 0; k < 300; k++) /* the new name resets at k = 150 */
			fprintf(f, "vllm:%s_sum{%s} %.1f %ld\n", itl[n], eng, n ? 750.0 * k : 7.5 * (k % 150), T0 + 2L * k);
		fprintf(f, "# TYPE vllm:%s_count unknown\n", itl[n]);
		for (int k = 0; k < 300; k++)
			fprintf(f, "vllm:%s_count{%s} %d %ld\n", itl[n], eng, 500 * (n ? k : k % 150), T0 + 2L * k);
	}
	fprintf(f, "# EOF\n");
	fclose(f);
	if (!test_prom_serve(sub, om, url, sizeof url)) {
		CHECK(0);
		goto done;
	}
	snprintf(start, sizeof start, "%ld", T0);
	snprintf(end, sizeof end, "%ld", T0 + 598);
	char *out = path_join(sub, "alias.csv");
	const char *argv[] = { "wattcast", "ingest", "--prometheus", url, "--start", start, "--end", end,
	                       "--step", "2", "-o", out, NULL };
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0 && r.status == 0);
	snprintf(line, sizeof line, "vllm:inter_token_latency_seconds_sum{%s}: counter reset at "
	         "2026-01-01T00:05:00.000Z (from 1117.5 to 0)", eng);
	CHECK_CONTAINS(r.err, line);
	snprintf(line, sizeof line, "vllm:inter_token_latency_seconds_count{%s}: counter reset at "
	         "2026-01-01T00:05:00.000Z (from 74500 to 0)", eng);
	CHECK_CONTAINS(r.err, line);
	CHECK(!strstr(r.err, "time_per_output_token_seconds"));
	run_result_free(&r);
	free(out);
	test_prom_stop();
done:
	free(sub);
	free(om);
}

int
main(void)
{
	if (!test_prom_ensure())
		return TEST_SKIP;
	char *dir = test_tmpdir("prometheus_fleet"), cmd[2048], url[64];
	char *csv = path_join(dir, "http.csv"), *om = path_join(dir, "fleet.om");
	char start[32], end[32];
	snprintf(cmd, sizeof cmd, "sh '%s/tests/support/fleet_openmetrics.sh' 3 8 %d %ld '%s'",
	         test_env("WC_SOURCE_DIR", "."), SECONDS, T0, dir);
	CHECK_INT(system(cmd), 0);
	if (!test_prom_serve(dir, om, url, sizeof url)) {
		CHECK(0);
		return check_report("test_prometheus_fleet");
	}
	snprintf(start, sizeof start, "%ld", T0);
	snprintf(end, sizeof end, "%ld", T0 + SECONDS - 1);
	const char *argv[] = { "wattcast", "ingest", "--prometheus", url, "--start", start, "--end", end,
	                       "--step", "1", "--verbose", "-o", csv, NULL };
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0 && r.status == 0);
	/* what happened, by series, time and label */
	CHECK_CONTAINS(r.err, "vllm:generation_tokens_total{engine=\"0\",instance=\"h1:8000\"");
	CHECK_CONTAINS(r.err, "counter reset at 2026-01-01T00:28:00.000Z");
	CHECK_CONTAINS(r.err, "UUID=\"GPU-0003-0007\"");
	CHECK_CONTAINS(r.err, "vanishes at 2026-01-01T00:42:30.000Z; group 'h3' keeps TP 8 and its windows "
	               "until the GPU returns are excluded (partial power: 7 of 8 GPUs)");
	CHECK_CONTAINS(r.err, "missing to the end of the range (2026-01-01T00:59:59.000Z); 1050 s of group 'h3' "
	               "excluded as partial power");
	CHECK_CONTAINS(r.err, "no sample at 2026-01-01T00:27:30.000Z");
	CHECK_CONTAINS(r.err, "resumes at 2026-01-01T00:28:00.000Z; 30 s left out");
	CHECK_CONTAINS(r.err, "query: label_replace(avg_over_time(DCGM_FI_DEV_POWER_USAGE{}[999ms])");
	check_truth(dir, csv);
	check_pages(dir, url, csv);
	check_sparse_range(dir, url, csv);
	check_saved_json(dir, url, r.err, csv);
	check_scrapes(dir, csv);
	check_http_errors(dir, url);
	check_short_step(dir, url);
	run_result_free(&r);
	test_prom_stop();
	check_alias_reset(dir);
	free(csv);
	free(om);
	free(dir);
	return check_report("test_prometheus_fleet");
}
