/*
 * `wattcast ingest --scrapes` checks its samples as the other telemetry
 * readers check theirs (docs/fleet.md, "Problems in the data"). A smoke
 * test found none checked: a power sample of 1e12 W made mean_power_w
 * 8.3e9 with exit 0 and no warning, -50 W was averaged in, +Inf left
 * mean_power_w blank in a row not excluded, and a running count of -3
 * was written as running -3. Now a negative, infinite or implausible
 * power sample is not averaged, with a line naming the series, the value
 * and the time (as the nvidia-smi reader drops a bad line), and a running
 * or waiting count that is no count refuses the ingest, naming the same
 * (as an engine log's does), with nothing written. A NaN as the very
 * first power sample was dropped silently (a later one is reported as
 * "NaN sample at T"); it is reported the same way.
 */
#include "data/data.h"
#include "tests/support/support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define T0 1767225600
#define SECONDS 180
#define AT 90 /* the bad sample's second */

static char *dir;
static const char *level = "190"; /* both GPUs' power at every other second */

/* Three minutes at 1 s of 2 GPUs at 190 W and one engine running 4;
 * GPU 0's power at second AT is `power`, the running count `running`,
 * the generated tokens `gen` (NULL: the count so far). */
static char *
scrapes_at(const char *name, int at, const char *power, const char *running, const char *gen)
{
	size_t cap = 1 << 20, len = 0;
	char *buf = malloc(cap);
	for (int s = 0; s < SECONDS; s++) {
		len += (size_t)snprintf(buf + len, cap - len,
		                        "# wattcast-scrape %d h1:9400\n"
		                        "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\",UUID=\"GPU-0\",modelName=\"NVIDIA H100 80GB HBM3\","
		                        "Hostname=\"h1\"} %s\n"
		                        "DCGM_FI_DEV_POWER_USAGE{gpu=\"1\",UUID=\"GPU-1\",modelName=\"NVIDIA H100 80GB HBM3\","
		                        "Hostname=\"h1\"} %s\n"
		                        "# wattcast-scrape %d h1:8000\n"
		                        "vllm:num_requests_running{model_name=\"Qwen/Qwen3-8B\",engine=\"0\"} %s\n"
		                        "vllm:num_requests_waiting{model_name=\"Qwen/Qwen3-8B\",engine=\"0\"} 0\n"
		                        "vllm:generation_tokens_total{model_name=\"Qwen/Qwen3-8B\",engine=\"0\"} ",
		                        T0 + s, s == at ? power : level, level, T0 + s, s == at ? running : "4");
		if (s == at && gen)
			len += (size_t)snprintf(buf + len, cap - len, "%s\n", gen);
		else
			len += (size_t)snprintf(buf + len, cap - len, "%d\n", 200 * (s + 1));
	}
	char *path = path_join(dir, name);
	CHECK(write_text(path, buf) == 0);
	free(buf);
	return path;
}

static char *
scrapes(const char *name, const char *power, const char *running)
{
	return scrapes_at(name, AT, power, running, NULL);
}

static wc_runs_table *
ingest(const char *in, run_result *r)
{
	char *out = path_join(dir, "out.csv");
	const char *argv[] = { "wattcast", "ingest", "--scrapes", in, "-o", out, NULL };
	wc_runs_table *t = NULL;
	unlink(out);
	CHECK(run_wattcast(argv, NULL, r) == 0);
	if (r->status == 0 && wc_runs_read(out, &t, NULL) != WC_OK)
		t = NULL;
	if (r->status != 0)
		CHECK(access(out, F_OK) != 0); /* nothing written */
	free(out);
	return t;
}

/* A bad power sample: reported once, naming value, time and series, and
 * every row not excluded has the true 380 W (2 x 190). */
static void
dropped(const char *name, const char *power, const char *shown)
{
	run_result r;
	char *in = scrapes(name, power, "4");
	wc_runs_table *t = ingest(in, &r);
	const char *e = r.err ? r.err : "";
	fprintf(stderr, "%s: %s", name, e);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(e, "power sample ");
	CHECK_CONTAINS(e, shown);
	CHECK_CONTAINS(e, " at 2026-01-01T00:01:30.000Z not averaged");
	CHECK_CONTAINS(e, "DCGM_FI_DEV_POWER_USAGE{Hostname=\"h1\",UUID=\"GPU-0\"");
	const char *w = strstr(e, "power sample");
	CHECK(w && !strstr(w + 1, "power sample")); /* once */
	for (const char *l = e; *l; l = strchr(l, '\n') + 1) {
		CHECK(strcspn(l, "\n") <= 255 + strlen("wattcast ingest: warning: "));
		if (!strchr(l, '\n'))
			break;
	}
	size_t usable = 0;
	for (size_t i = 0; t && i < t->n_runs; i++) {
		const wc_run *run = &t->runs[i];
		CHECK(isfinite(run->mean_power_w) || run->exclude[0]);
		if (run->exclude[0])
			continue;
		usable++;
		CHECK_NEAR(run->mean_power_w, 380.0, 1e-6);
		CHECK_NEAR(run->running, 4.0, 1e-9);
	}
	CHECK(usable >= 1);
	wc_runs_free(t);
	run_result_free(&r);
	free(in);
}

/* A running count that is no count: refused, naming it. */
static void
refused(const char *name, const char *running, const char *shown)
{
	run_result r;
	char *in = scrapes(name, "190", running);
	wc_runs_table *t = ingest(in, &r);
	const char *e = r.err ? r.err : "";
	fprintf(stderr, "%s: %s", name, e);
	CHECK_INT(r.status, 1);
	CHECK(t == NULL);
	CHECK_CONTAINS(e, "vllm:num_requests_running = ");
	CHECK_CONTAINS(e, shown);
	CHECK_CONTAINS(e, " at 2026-01-01T00:01:30.000Z is not a count: expected 0 to 1000000");
	CHECK_CONTAINS(e, "nothing was written");
	CHECK(strlen(e) <= 255 + strlen("wattcast ingest: \n"));
	run_result_free(&r);
	free(in);
}

int
main(void)
{
	dir = test_tmpdir("prom_plausible");
	dropped("huge.prom", "1e12", "1e+12 W");
	dropped("negative.prom", "-50", "-50 W");
	dropped("inf.prom", "1e400", "inf W");
	dropped("over.prom", "5000.5", "5000.5 W"); /* just past WC_TELEMETRY_MAX_POWER_W */
	refused("neg_running.prom", "-3", "-3");
	refused("inf_running.prom", "+Inf", "inf");
	refused("huge_running.prom", "1000001", "1000001");

	/* The bound itself is a reading: 5000 W is averaged in. */
	run_result r;
	char *in = scrapes("bound.prom", "5000", "4");
	wc_runs_table *t = ingest(in, &r);
	CHECK_INT(r.status, 0);
	CHECK(r.err == NULL || !strstr(r.err, "power sample"));
	CHECK(t && t->n_runs >= 1);
	wc_runs_free(t);
	run_result_free(&r);
	free(in);

	/* Windows at 900 W per GPU on an H100 (700 W board) are said as
	 * folder ingest and import say them, by the one rule
	 * (docs/formats/telemetry.md, "Units and plausibility"): they were
	 * written silently. */
	level = "900";
	in = scrapes("hot.prom", "900", "4");
	t = ingest(in, &r);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.err, "mean power 900.0 W per GPU is above the H100 board limit 700 W: wrong platform or tp?");
	CHECK(t && t->n_runs >= 1);
	wc_runs_free(t);
	run_result_free(&r);
	free(in);
	level = "190";

	/* An infinite counter is not a count either; its increase is left
	 * out of the rates (and the fall after it is a reset), so no row
	 * carries an inf. */
	in = scrapes_at("inf_counter.prom", AT, "190", "4", "+Inf");
	t = ingest(in, &r);
	CHECK_INT(r.status, 0);
	size_t usable = 0;
	for (size_t i = 0; t && i < t->n_runs; i++) {
		const wc_run *run = &t->runs[i];
		if (run->exclude[0])
			continue;
		usable++;
		CHECK_NEAR(run->throughput_tok_s, 200.0, 1e-6);
		CHECK(isfinite(run->mean_power_w) && isfinite(run->running));
		CHECK(!isinf(run->throughput_tok_s) && !isinf(run->energy_per_token_j));
		const char *cols[] = { "waiting", "prompt_tok_s", "generation_tok_s", "ttft_s", "itl_s" };
		for (size_t c = 0; c < sizeof cols / sizeof cols[0]; c++) {
			const char *v = wc_runs_get_extra(t, i, cols[c]);
			CHECK(!v || (!strstr(v, "inf") && !strstr(v, "nan")));
		}
	}
	CHECK(usable >= 1);
	wc_runs_free(t);
	run_result_free(&r);
	free(in);

	/* The first sample NaN (or implausible): reported like a later one. */
	const char *first[][2] = { { "NaN", "NaN sample at 2026-01-01T00:00:00.000Z" },
	                           { "-1", "no plausible power reading at 2026-01-01T00:00:00.000Z" } };
	for (int k = 0; k < 2; k++) {
		in = scrapes_at("first.prom", 0, first[k][0], "4", NULL);
		t = ingest(in, &r);
		fprintf(stderr, "first %s: %s", first[k][0], r.err ? r.err : "");
		CHECK_INT(r.status, 0);
		CHECK_CONTAINS(r.err, "DCGM_FI_DEV_POWER_USAGE{Hostname=\"h1\",UUID=\"GPU-0\"");
		CHECK_CONTAINS(r.err, first[k][1]);
		CHECK_CONTAINS(r.err, "resumes at 2026-01-01T00:00:01.000Z; 1 s left out of group 'h1'");
		CHECK(t && t->n_runs == 1 && fabs(t->runs[0].mean_power_w - 380.0) < 1e-6);
		wc_runs_free(t);
		run_result_free(&r);
		free(in);
	}
	/* A fleet exporting milliwatts: every sample implausible. One line
	 * names the first (one per sample spent the 50 warnings in a step),
	 * one counts them, and the refusal says why no row is left (it said
	 * only "no window with both GPU power and engine load"). */
	level = "190000";
	in = scrapes("mw.prom", "190000", "4");
	t = ingest(in, &r);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "group 'h1': 360 power samples in all not averaged");
	CHECK_CONTAINS(r.err, "none of the 360 power samples is plausible (up to 190000 W per GPU, beyond 5000 W): "
	               "about 1000 times a GPU's power, milliwatts?");
	const char *e = r.err ? r.err : "";
	int lines = 0;
	for (const char *p = e; (p = strstr(p, "not averaged: beyond")) != NULL; p++)
		lines++;
	CHECK_INT(lines, 1);
	CHECK(!strstr(e, "further warnings suppressed"));
	wc_runs_free(t);
	run_result_free(&r);
	free(in);
	free(dir);
	return check_report("test_prom_plausible");
}
