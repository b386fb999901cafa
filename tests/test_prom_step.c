/*
 * `wattcast ingest --scrapes` and the grid: the step against the scrape
 * interval (docs/fleet.md, "Queries"). A smoke test found --step 0.5 on
 * 1 s scrapes warned "resumes at ...00:01.000Z; 0 s left out" (0.5 s
 * were) and then wrote 360 rows, all excluded. Now a step shorter than
 * the scrape interval is refused naming the interval and a step, and a
 * gap of half a second is reported as 0.5 s. --step 1e9 wrote one row
 * of duration_s 1e9 from the first scrape alone, not excluded, exit 0; a
 * step longer than the range is now refused naming the range. A --start
 * after the last sample (no --end) said "end: before start"; it now says
 * the start is after the data and gives the data's span. Without --step,
 * files take the spacing of the sparser of power and running.
 */
#include "data/data.h"
#include "trace/fleet.h"
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define T0 1767225600

static char *dir;

/* `n` scrapes `dt` s apart of one GPU at 300 W and an engine running 8;
 * the engine misses scrape `skip` (-1: none) and is scraped only every
 * `engine_every`-th time. */
static char *
scrapes_every(const char *name, int n, double dt, int skip, int engine_every)
{
	size_t cap = 1 << 20, len = 0;
	char *buf = malloc(cap);
	for (int s = 0; s < n; s++) {
		double t = T0 + s * dt;
		len += (size_t)snprintf(buf + len, cap - len,
		                        "# wattcast-scrape %.3f h1:9400\nDCGM_FI_DEV_POWER_USAGE{gpu=\"0\",UUID=\"GPU-0\","
		                        "modelName=\"NVIDIA H100 80GB HBM3\",Hostname=\"h1\"} 300\n", t);
		if (s != skip && s % engine_every == 0)
			len += (size_t)snprintf(buf + len, cap - len,
			                        "# wattcast-scrape %.3f h1:8000\n"
			                        "vllm:num_requests_running{model_name=\"Qwen/Qwen3-8B\"} 8\n", t);
	}
	char *path = path_join(dir, name);
	CHECK(write_text(path, buf) == 0);
	free(buf);
	return path;
}

/* Host h1 scraped every second, h2 every 15 s (its DCGM exporter and
 * its engine alike), 300 s each. */
static char *
mixed_hosts(const char *name)
{
	size_t cap = 1 << 20, len = 0;
	char *buf = malloc(cap);
	for (int h = 1; h <= 2; h++)
		for (int s = 0; s < 300; s += h == 1 ? 1 : 15)
			len += (size_t)snprintf(buf + len, cap - len,
			                        "# wattcast-scrape %d h%d:9400\nDCGM_FI_DEV_POWER_USAGE{gpu=\"0\","
			                        "UUID=\"GPU-%d\",modelName=\"NVIDIA H100 80GB HBM3\",Hostname=\"h%d\"} 300\n"
			                        "# wattcast-scrape %d.2 h%d:8000\n"
			                        "vllm:num_requests_running{model_name=\"Qwen/Qwen3-8B\"} 8\n",
			                        T0 + s, h, h, h, T0 + s, h);
	char *path = path_join(dir, name);
	CHECK(write_text(path, buf) == 0);
	free(buf);
	return path;
}

static char *
scrapes(const char *name, int n, double dt, int skip)
{
	return scrapes_every(name, n, dt, skip, 1);
}

/* ingest IN with extra flags; the result in `r`. */
static void
ingest(const char *in, const char *flag, const char *value, run_result *r)
{
	char *out = path_join(dir, "out.csv");
	const char *argv[] = { "wattcast", "ingest", "--scrapes", in, "-o", out, flag, value, NULL };
	unlink(out);
	CHECK(run_wattcast(argv, NULL, r) == 0);
	if (r->status != 0)
		CHECK(access(out, F_OK) != 0); /* nothing written */
	free(out);
}

/* Pages of 3 steps of 1 s over 10 s scrapes, as a server pages them: no
 * page holds two samples of a series, so the interval was never measured
 * and the step never refused (a server said "no window" or "GPU with no
 * engine series"). Pages without power are fed as one empty step, as
 * wc_fleet_ingest_http does. */
static void
check_pages_of_one_sample(void)
{
	wc_fleet_options o;
	wc_fleet *f = NULL;
	wc_runs_table *t = NULL;
	wc_error err = { 0 };
	wc_fleet_options_init(&o);
	o.start = T0;
	o.end = T0 + 299;
	o.step = 1.0;
	CHECK_INT(wc_fleet_new(&o, &f, &err), WC_OK);
	const char *pn[] = { "gpu", "Hostname", "modelName" }, *pv[] = { "0", "h1", "NVIDIA H100 80GB HBM3" };
	const char *en[] = { "instance", "model_name" }, *ev[] = { "h1:8000", "Qwen/Qwen3-8B" };
	int rc = WC_OK;
	for (size_t k0 = 0; rc == WC_OK && k0 < 300; k0 += 3) {
		wc_prom_set set = { 0 };
		size_t k = (k0 + 9) / 10 * 10; /* the page's scrape, every 10th step */
		if (k < k0 + 3) {
			CHECK_INT(wc_prom_set_add(&set, "DCGM_FI_DEV_POWER_USAGE", 3, pn, pv, T0 + (double)k, 300, &err), WC_OK);
			CHECK_INT(wc_prom_set_add(&set, "vllm:num_requests_running", 2, en, ev, T0 + (double)k, 8, &err), WC_OK);
		}
		rc = wc_fleet_feed(f, &set, k0, k < k0 + 3 ? k0 + 3 : k0 + 1, &err);
		wc_prom_set_clear(&set);
	}
	if (rc == WC_OK)
		rc = wc_fleet_finish(f, &t, &err);
	CHECK_INT(rc, WC_EINVAL);
	CHECK_CONTAINS(err.msg, "--step 1 s is shorter than the scrape interval: --step 10 or longer (group 'h1'");
	wc_runs_free(t);
	wc_fleet_free(f);
}

int
main(void)
{
	dir = test_tmpdir("prom_step");
	run_result r;
	check_pages_of_one_sample();

	/* 1 s scrapes, --step 0.5: refused, the interval and a step named. */
	char *in = scrapes("1s.prom", 360, 1.0, -1);
	ingest(in, "--step", "0.5", &r);
	fprintf(stderr, "%s", r.err ? r.err : "");
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "wattcast ingest: --step 0.5 s is shorter than the scrape interval: --step 1 or "
	               "longer (group 'h1': a step without a sample is a gap; 1 s measured between the samples of ");
	CHECK(strlen(r.err) <= 255 + strlen("wattcast ingest: \n"));
	run_result_free(&r);
	/* 15 s scrapes under a 10 s step leave a third of the steps empty. */
	free(in);
	in = scrapes("15s.prom", 40, 15.0, -1);
	ingest(in, "--step", "10", &r);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "--step 10 s is shorter than the scrape interval: --step 15 or longer");
	run_result_free(&r);
	/* The interval itself, and the default step, are accepted. */
	ingest(in, "--step", "15", &r);
	CHECK_INT(r.status, 0);
	run_result_free(&r);
	ingest(in, "--quiet", NULL, &r);
	CHECK_INT(r.status, 0);
	run_result_free(&r);
	free(in);

	/* A gap of one 0.5 s step is 0.5 s, not "0 s". */
	in = scrapes("half.prom", 240, 0.5, 100);
	ingest(in, "--step", "0.5", &r);
	fprintf(stderr, "%s", r.err ? r.err : "");
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.err, "no sample at 2026-01-01T00:00:50.000Z");
	CHECK_CONTAINS(r.err, "resumes at 2026-01-01T00:00:50.500Z; 0.5 s left out of group 'h1'");
	run_result_free(&r);
	free(in);

	/* A step longer than the data: refused, the range and a step named. */
	in = scrapes("6min.prom", 360, 1.0, -1);
	ingest(in, "--step", "1e9", &r);
	fprintf(stderr, "%s", r.err ? r.err : "");
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "wattcast ingest: --step 1e+09 s is longer than the range: --step 359 or shorter "
	               "(2026-01-01T00:00:00.000Z to 2026-01-01T00:05:59.000Z, 359 s)");
	run_result_free(&r);
	ingest(in, "--step", "359.001", &r);
	CHECK_INT(r.status, 1);
	run_result_free(&r);
	ingest(in, "--step", "359", &r);
	CHECK_INT(r.status, 0);
	run_result_free(&r);
	/* A range outside the data names the data's span. */
	ingest(in, "--start", "2027-01-01T00:00:00Z", &r);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "wattcast ingest: --start 2027-01-01T00:00:00.000Z is after the last power sample: "
	               "give one within the files' span, 2026-01-01T00:00:00.000Z to 2026-01-01T00:05:59.000Z");
	CHECK(!strstr(r.err, "before start"));
	run_result_free(&r);
	ingest(in, "--end", "2025-01-01T00:00:00Z", &r);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "--end 2025-01-01T00:00:00.000Z is before the first power sample: give one within "
	               "the files' span, 2026-01-01T00:00:00.000Z to 2026-01-01T00:05:59.000Z");
	run_result_free(&r);
	free(in);
	/* Power every 1 s, the engine every 5 s, no --step: the default step
	 * is the sparser series' spacing (it was the power's, then refused). */
	in = scrapes_every("mixed.prom", 300, 1.0, -1, 5);
	ingest(in, "--quiet", NULL, &r);
	fprintf(stderr, "%s", r.err ? r.err : "");
	CHECK_INT(r.status, 0);
	CHECK(!r.err || !strstr(r.err, "shorter than the scrape interval"));
	run_result_free(&r);
	ingest(in, "--step", "1", &r);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "--step 1 s is shorter than the scrape interval: --step 5 or longer");
	run_result_free(&r);
	free(in);
	/* A host scraped every 15 s beside one scraped every second: the
	 * default step was the smallest spacing (1 s), which left h2 with no
	 * row and no warning, then was refused naming h2; the default is now
	 * the sparsest series' interval, and both hosts have rows. A step
	 * given shorter than h2's interval is still refused, naming h2. */
	in = mixed_hosts("mixiv.prom");
	ingest(in, "--min-window", "1", &r);
	fprintf(stderr, "%s", r.err ? r.err : "");
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, "h1#");
	CHECK_CONTAINS(r.out, "h2#");
	run_result_free(&r);
	ingest(in, "--step", "1", &r);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "--step 1 s is shorter than the scrape interval: --step 15 or longer "
	               "(group 'h2': a step without a sample is a gap; 15 s measured between the samples of ");
	run_result_free(&r);
	ingest(in, "--step", "15", &r);
	fprintf(stderr, "%s", r.err ? r.err : "");
	CHECK_INT(r.status, 0);
	CHECK(!r.err || !strstr(r.err, "shorter than the scrape interval"));
	CHECK_CONTAINS(r.out, "h1#");
	CHECK_CONTAINS(r.out, "h2#");
	run_result_free(&r);
	free(in);
	/* Scrapes every 15 s, one of them repeated 0.2 s later (a manual
	 * scrape): the smallest spacing made the default 0.2 s, refused; the
	 * default is the interval, 15 s, and the run has its rows. */
	{
		size_t cap = 1 << 16, len = 0;
		char *buf = malloc(cap);
		for (int s = 0; s < 40; s++)
			for (int k = 0; k < (s == 7 ? 2 : 1); k++)
				len += (size_t)snprintf(buf + len, cap - len,
				                        "# wattcast-scrape %.1f h1:9400\nDCGM_FI_DEV_POWER_USAGE{gpu=\"0\","
				                        "UUID=\"GPU-0\",modelName=\"NVIDIA H100 80GB HBM3\",Hostname=\"h1\"} 300\n"
				                        "# wattcast-scrape %.1f h1:8000\n"
				                        "vllm:num_requests_running{model_name=\"Qwen/Qwen3-8B\"} 8\n",
				                        T0 + s * 15.0 + k * 0.2, T0 + s * 15.0 + k * 0.2 + 0.1);
		in = path_join(dir, "early.prom");
		CHECK(write_text(in, buf) == 0);
		free(buf);
	}
	ingest(in, "--quiet", NULL, &r);
	fprintf(stderr, "%s", r.err ? r.err : "");
	CHECK_INT(r.status, 0);
	CHECK(!r.err || !strstr(r.err, "shorter than the scrape interval"));
	CHECK_CONTAINS(r.out, "h1#");
	run_result_free(&r);
	free(in);
	/* Steps are whole milliseconds: 1.0005 gave rows of 300.150 s. */
	in = scrapes("ms.prom", 360, 1.0, -1);
	ingest(in, "--step", "1.0005", &r);
	CHECK_INT(r.status, 2);
	CHECK_CONTAINS(r.err, "--step: whole milliseconds, got '1.0005'");
	run_result_free(&r);
	free(in);
	/* 15 s scrapes with one outage of two missed scrapes (a 45 s gap, 3 x
	 * the interval): it stayed in the mean and the default became 16 s. */
	in = scrapes_every("outage.prom", 40, 15.0, -1, 1);
	{
		char *text = test_slurp(in), *cut = text ? strstr(text, "# wattcast-scrape 1767225900.000") : NULL;
		char *end = cut ? strstr(cut, "# wattcast-scrape 1767225930.000") : NULL;
		CHECK(cut && end);
		if (cut && end) {
			memmove(cut, end, strlen(end) + 1);
			CHECK(write_text(in, text) == 0);
		}
		free(text);
	}
	ingest(in, "--quiet", NULL, &r);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, "  300.000\n"); /* 20 steps of 15 s before the outage (16 s steps: 288) */
	run_result_free(&r);
	free(in);
	/* Power stamped an hour ahead of the engine (a skewed exporter clock):
	 * the spans are named, not "no window with both ... in the range". */
	{
		size_t cap = 1 << 16, len = 0;
		char *buf = malloc(cap);
		for (int k = 0; k < 40; k++)
			len += (size_t)snprintf(buf + len, cap - len,
			                        "# wattcast-scrape %d h1:9400\nDCGM_FI_DEV_POWER_USAGE{gpu=\"0\",UUID=\"GPU-0\","
			                        "modelName=\"NVIDIA H100 80GB HBM3\",Hostname=\"h1\"} 300\n"
			                        "# wattcast-scrape %d h1:8000\nvllm:num_requests_running{model_name=\"Qwen/Qwen3-8B\"} 8\n",
			                        T0 + 3600 + 15 * k, T0 + 15 * k);
		in = path_join(dir, "skew.prom");
		CHECK(write_text(in, buf) == 0);
		free(buf);
	}
	ingest(in, "--quiet", NULL, &r);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "the power samples (2026-01-01T01:00:00.000Z to 2026-01-01T01:09:45.000Z) and the engine's "
	                      "running counts (2026-01-01T00:00:00.000Z to 2026-01-01T00:09:45.000Z) do not overlap");
	run_result_free(&r);
	free(in);
	/* The exporter of a two-GPU host down for 30 s: the warning named
	 * GPU 0 alone, as if GPU 1 were still reporting. */
	{
		size_t cap = 1 << 16, len = 0;
		char *buf = malloc(cap);
		for (int k = 0; k < 60; k++) {
			if (k < 20 || k >= 26)
				for (int gpu = 0; gpu < 2; gpu++)
					len += (size_t)snprintf(buf + len, cap - len,
					                        "# wattcast-scrape %d h1:9400\nDCGM_FI_DEV_POWER_USAGE{gpu=\"%d\","
					                        "UUID=\"GPU-%d\",modelName=\"NVIDIA H100 80GB HBM3\",Hostname=\"h1\"}"
					                        " 300\n", T0 + 5 * k, gpu, gpu);
			len += (size_t)snprintf(buf + len, cap - len, "# wattcast-scrape %d h1:8000\n"
			                        "vllm:num_requests_running{model_name=\"Qwen/Qwen3-8B\"} 8\n", T0 + 5 * k);
		}
		in = path_join(dir, "down.prom");
		CHECK(write_text(in, buf) == 0);
		free(buf);
	}
	ingest(in, "--min-window", "1", &r);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.err, "no sample, nor of the group's other 1 GPU series (its exporter down?), at ");
	run_result_free(&r);
	free(in);
	/* Spacings 10 s (five), 30 s (four) and one 60 s outage: ten, an even
	 * count. The median is the mean of the two middle ones, 20 s, so the
	 * outage (3 x) is left out and the interval is 170 / 9 = 18.9 s. The
	 * upper middle value (30 s) kept it: 23 s and "--step 23 or longer". */
	{
		static const int at[] = { 0, 10, 40, 50, 80, 90, 120, 130, 160, 170, 230 };
		size_t cap = 1 << 14, len = 0;
		char *buf = malloc(cap);
		for (size_t k = 0; k < sizeof at / sizeof *at; k++)
			len += (size_t)snprintf(buf + len, cap - len,
			                        "# wattcast-scrape %d h1:9400\nDCGM_FI_DEV_POWER_USAGE{gpu=\"0\",UUID=\"GPU-0\","
			                        "modelName=\"NVIDIA H100 80GB HBM3\",Hostname=\"h1\"} 300\n"
			                        "# wattcast-scrape %d h1:8000\nvllm:num_requests_running{model_name=\"Qwen/Qwen3-8B\"} 8\n",
			                        T0 + at[k], T0 + at[k]);
		in = path_join(dir, "median.prom");
		CHECK(write_text(in, buf) == 0);
		free(buf);
	}
	ingest(in, "--step", "5", &r);
	fprintf(stderr, "%s", r.err ? r.err : "");
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "--step 5 s is shorter than the scrape interval: --step 19 or longer "
	               "(group 'h1': a step without a sample is a gap; 18.89 s measured between the samples of ");
	run_result_free(&r);
	free(in);
	/* Scrapes every 10 s whose times jitter by 2 ms (as Prometheus's own
	 * do): the default step (10 s) fell on the power's own phase, a step
	 * after a late and before an early sample took none, and a steady
	 * run came out as fragments between false "exporter down?" gaps. A
	 * missed scrape (20 s apart) is still a gap. */
	{
		/* one exporter's scrape dates all its GPUs */
		static const double jit[] = { 0.0, 0.002, -0.002, 0.001, 0.002, -0.001 };
		size_t cap = 1 << 16, len = 0;
		char *buf = malloc(cap);
		for (int k = 0; k < 60; k++) {
			for (int gpu = 0; gpu < 2 && k != 43; gpu++)
				len += (size_t)snprintf(buf + len, cap - len,
				                        "# wattcast-scrape %.3f h1:9400\nDCGM_FI_DEV_POWER_USAGE{gpu=\"%d\","
				                        "UUID=\"GPU-%d\",modelName=\"NVIDIA H100 80GB HBM3\",Hostname=\"h1\"}"
				                        " 300\n", T0 + 10.0 * k + jit[k % 6], gpu, gpu);
			len += (size_t)snprintf(buf + len, cap - len, "# wattcast-scrape %.3f h1:8000\n"
			                        "vllm:num_requests_running{model_name=\"Qwen/Qwen3-8B\"} 8\n",
			                        T0 + 10.0 * k + jit[(k + 3) % 6]);
		}
		in = path_join(dir, "jitter.prom");
		CHECK(write_text(in, buf) == 0);
		free(buf);
	}
	ingest(in, "--min-window", "1", &r);
	fprintf(stderr, "%s", r.err ? r.err : "");
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.err, "no sample, nor of the group's other 1 GPU series (its exporter down?), at "
	               "2026-01-01T00:07:10.000Z");
	CHECK_CONTAINS(r.err, "resumes at 2026-01-01T00:07:20.000Z; 10 s left out of group 'h1'");
	CHECK(!strstr(r.err, "no sample at"));
	/* the engine's first sample is 1 ms late: from step 1 */
	CHECK_CONTAINS(r.out, "h1#2026-01-01T00:00:10.000Z");
	CHECK_CONTAINS(r.out, "  420.000\n"); /* steps 1 to 42 */
	CHECK_CONTAINS(r.out, "h1#2026-01-01T00:07:20.000Z");
	CHECK_CONTAINS(r.out, "wrote 2 rows");
	run_result_free(&r);
	free(in);
	/* docs/fleet.md's `while sleep 1` loop drifts to 1.03 s apart: --step
	 * 1 is within 10 % and accepted, and left every 33rd step without a
	 * sample, each a false gap that cut the window. */
	in = scrapes("drift.prom", 300, 1.03, -1);
	ingest(in, "--step", "1", &r);
	CHECK_INT(r.status, 0);
	CHECK(!r.err || !strstr(r.err, "no sample"));
	CHECK_CONTAINS(r.out, "wrote 1 row");
	run_result_free(&r);
	free(in);
	/* A steady load of 8 scraped every 15 s, one scrape in 7 at 12 (a
	 * single step off by more than max(2, 25 %)): the default hold was
	 * 10 s, shorter than the default step (15 s), so each such step cut
	 * the window, 12 rows; the default is now three steps, 45 s. */
	{
		size_t cap = 1 << 16, len = 0;
		char *buf = malloc(cap);
		for (int k = 0; k < 80; k++)
			len += (size_t)snprintf(buf + len, cap - len,
			                        "# wattcast-scrape %d h1:9400\nDCGM_FI_DEV_POWER_USAGE{gpu=\"0\",UUID=\"GPU-0\","
			                        "modelName=\"NVIDIA H100 80GB HBM3\",Hostname=\"h1\"} 300\n"
			                        "# wattcast-scrape %d h1:8000\nvllm:num_requests_running{model_name=\"Qwen/Qwen3-8B\"} %d\n",
			                        T0 + 15 * k, T0 + 15 * k, k % 7 == 3 ? 12 : 8);
		in = path_join(dir, "excursion.prom");
		CHECK(write_text(in, buf) == 0);
		free(buf);
	}
	ingest(in, "--quiet", NULL, &r);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, "wrote 1 row");
	CHECK_CONTAINS(r.out, " 1200.000\n");
	run_result_free(&r);
	ingest(in, "--hold", "10", &r); /* a hold given is kept */
	CHECK_INT(r.status, 0);
	CHECK(!strstr(r.out, "wrote 1 row"));
	run_result_free(&r);
	free(in);
	/* One instant has no length for any step. */
	in = scrapes("one.prom", 1, 1.0, -1);
	ingest(in, "--step", "1", &r);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "the range is one instant (2026-01-01T00:00:00.000Z)");
	run_result_free(&r);
	free(in);
	free(dir);
	return check_report("test_prom_step");
}
