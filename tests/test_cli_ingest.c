/*
 * `wattcast ingest` and `wattcast metrics` end to end on synthetic run
 * folders written here, whose answers are known in closed form: a 2-GPU
 * run idling at 80 + 85 W for 10 s, ramping in 1 s to 300 + 305 W, busy
 * for 38 s, back down and idle for 10 s (energy 27060 J), with engine
 * counters growing at known rates. Refusals (bad lines, missing GPU,
 * clocks that do not overlap, unknown facts) exit 1 and write nothing;
 * usage errors exit 2 with one line naming the flag. A run folder below
 * the search depth is said to be left out.
 */
#include "data/data.h"
#include "trace/trace.h"
#include "tests/support/support.h"

#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define T0 1700000000.0 /* epoch of the first sample */

static char *root;

#define METRICS(...) ((const char *const[]){ "wattcast", "metrics", __VA_ARGS__, NULL })

typedef struct {
	char *buf;
	size_t len, cap;
} text;

static void put(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
put(text *t, const char *fmt, ...)
{
	va_list ap;
	for (;;) {
		va_start(ap, fmt);
		int n = vsnprintf(t->buf ? t->buf + t->len : NULL, t->buf ? t->cap - t->len : 0, fmt, ap);
		va_end(ap);
		if (t->buf && t->len + (size_t)n < t->cap) {
			t->len += (size_t)n;
			return;
		}
		t->cap = (t->cap ? 2 * t->cap : 65536) + (size_t)n;
		t->buf = realloc(t->buf, t->cap);
	}
}

/* GPU g's power at t seconds into the run. */
static double
power_at(int g, double s)
{
	double busy = s < 10 ? 0 : s < 11 ? s - 10 : s < 49 ? 1 : s < 50 ? 50 - s : 0;
	return 80.0 + 5.0 * g + 220.0 * busy;
}

/* nvidia-smi log: `gpus` GPUs, 100 ms, 60 s, local time = epoch + offset.
 * style 0: nvidia-smi's spacing and value units; 1: nounits, index only. */
static char *
power_csv(int gpus, double utc_offset, int style)
{
	text t = { NULL, 0, 0 };
	put(&t, style == 0 ? "timestamp, index, uuid, power.draw [W], utilization.gpu [%%]\n"
	                   : "index,timestamp,power.draw\n");
	for (int i = 0; i <= 600; i++) {
		long ms = 100L * i;
		time_t sec = (time_t)(T0 + utc_offset) + ms / 1000;
		struct tm tm;
		char ts[40];
		gmtime_r(&sec, &tm);
		strftime(ts, sizeof ts, "%Y/%m/%d %H:%M:%S", &tm);
		for (int g = 0; g < gpus; g++) {
			double w = power_at(g, 0.1 * i);
			if (style == 0)
				put(&t, "%s.%03ld, %d, GPU-%04d, %.2f W, %s\n", ts, ms % 1000, g, g, w,
				    i % 7 ? "50 %" : "[N/A]");
			else
				put(&t, "%d,%s.%03ld,%.2f\n", g, ts, ms % 1000, w);
		}
	}
	return t.buf;
}

static char *
engine_csv(void)
{
	text t = { NULL, 0, 0 };
	put(&t, "timestamp,num_requests_running,num_requests_waiting,prompt_tokens_total,"
	        "generation_tokens_total,iteration_tokens_total_count,request_prefill_time_seconds_sum,"
	        "request_decode_time_seconds_sum\r\n");
	for (int k = 0; k <= 240; k++) {
		double s = 0.25 * k, busy = s < 10 ? 0 : s > 50 ? 40 : s - 10;
		put(&t, "%.3f,%d,0,%.4f,%.4f,%.4f,%.4f,%.4f\r\n", T0 + s, s >= 10 && s < 50 ? 8 : 0,
		    10 * busy, 100 * busy, 20 * busy, 0.5 * busy, 7.5 * busy);
	}
	return t.buf;
}

static char *
make_run(const char *name, const char *power, const char *engine, const char *manifest,
         const char *requests_csv)
{
	char *d = path_join(root, name), *p;
	mkdir(d, 0755);
	p = path_join(d, "power.csv");
	CHECK(write_text(p, power) == 0);
	free(p);
	if (engine) {
		p = path_join(d, "engine.csv");
		CHECK(write_text(p, engine) == 0);
		free(p);
	}
	if (manifest) {
		p = path_join(d, "wattcast-run.json");
		CHECK(write_text(p, manifest) == 0);
		free(p);
	}
	if (requests_csv) {
		p = path_join(d, "requests.csv");
		CHECK(write_text(p, requests_csv) == 0);
		free(p);
	}
	return d;
}

static double
extra_num(const wc_runs_table *t, size_t row, const char *col)
{
	const char *v = wc_runs_get_extra(t, row, col);
	return v && v[0] ? strtod(v, NULL) : NAN;
}

static const char manifest_a[] =
	"{\"schema\": \"wattcast.run/1\", \"run_id\": \"fixture-a\", \"platform\": \"A100\", \"tp\": 2,"
	" \"model\": \"Qwen/Qwen3-8B\", \"utc_offset_s\": 3600, \"workload\": \"closed\","
	" \"concurrency\": 8, \"requests\": 40}";

static void
test_ingest_ok(const char *run_a, const char *run_b)
{
	char *out = path_join(root, "out/runs.csv"), *outdir = path_join(root, "out");
	mkdir(outdir, 0755);
	const char *argv[] = { "wattcast", "ingest", run_a, run_b, "-o", out, "--platform", "H100",
		               "--model", "Llama-3.1-8B", "--utc-offset", "-18000", NULL };
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	if (r.status != 0)
		fprintf(stderr, "%s", r.err);
	CHECK_CONTAINS(r.out, "wrote 2 rows to");
	CHECK_CONTAINS(r.out, "fixture-a");
	run_result_free(&r);

	wc_runs_table *t = NULL;
	wc_error err;
	CHECK_INT(wc_runs_read(out, &t, &err), WC_OK);
	if (!t) {
		fprintf(stderr, "%s\n", err.msg);
		goto done;
	}
	CHECK_INT(t->n_runs, 2);
	const wc_run *a = &t->runs[0], *b = &t->runs[1];
	/* Run A: its own manifest wins over the flags. */
	CHECK(strcmp(a->run_id, "fixture-a") == 0);
	CHECK(strcmp(a->platform, "A100") == 0 && a->tp == 2);
	CHECK(strcmp(a->model, "Qwen/Qwen3-8B") == 0);
	CHECK_NEAR(a->active_params_b, 8.19, 1e-9); /* from the catalog */
	CHECK(a->workload == WC_WORKLOAD_CLOSED);
	CHECK_NEAR(a->mean_power_w, 27060.0 / 60.0, 1e-6);
	CHECK_NEAR(a->idle_power_w, 82.5, 1e-9);
	CHECK_NEAR(a->running, 8.0 * 800.0 / 1201.0, 1e-9);
	CHECK(a->series.len == 2 && a->series.running[0] == 0 && a->series.running[1] == 8);
	CHECK_NEAR(a->series.weight[1], 40.0, 1e-6);
	CHECK_NEAR(a->throughput_tok_s, 4000.0 / 60.0, 1e-6);
	CHECK_NEAR(a->energy_per_token_j, 27060.0 / 4000.0, 1e-6);
	CHECK_NEAR(a->input_tokens, 10.0, 1e-6);
	CHECK_NEAR(a->output_tokens, 100.0, 1e-6);
	CHECK_NEAR(extra_num(t, 0, "energy_j"), 27060.0, 1e-3);
	CHECK_NEAR(extra_num(t, 0, "duration_s"), 60.0, 1e-6);
	CHECK_NEAR(extra_num(t, 0, "p5_w"), 165.0, 1e-9);
	CHECK_NEAR(extra_num(t, 0, "max_w"), 605.0, 1e-9);
	CHECK_NEAR(extra_num(t, 0, "ramp_w_per_s"), 4 * 220.0 / 59.0, 1e-6);
	CHECK_NEAR(extra_num(t, 0, "requests"), 40, 0);
	CHECK_NEAR(extra_num(t, 0, "energy_per_request_j"), 27060.0 / 40.0, 1e-6);
	CHECK_NEAR(extra_num(t, 0, "iterations"), 800, 1e-6);
	CHECK_NEAR(extra_num(t, 0, "idle_energy_j"), 3300.0, 1e-3);
	CHECK_NEAR(extra_num(t, 0, "prefill_energy_j"), 23760.0 / 16.0, 1e-3);
	CHECK_NEAR(extra_num(t, 0, "decode_energy_j"), 23760.0 * 15.0 / 16.0, 1e-3);
	CHECK(strcmp(wc_runs_get_extra(t, 0, "idle_source"), "quiet_stretch") == 0);
	CHECK(strcmp(wc_runs_get_extra(t, 0, "idle_power_gpus_w"), "80;85") == 0);
	CHECK(strcmp(wc_runs_get_extra(t, 0, "n_source"), "engine") == 0);
	CHECK(strcmp(wc_runs_get_extra(t, 0, "phase_source"), "engine") == 0);
	/* Run B: no manifest, so the flags; n(t) from its request log. */
	CHECK(strcmp(b->platform, "H100") == 0 && b->tp == 1);
	CHECK(strcmp(b->model, "Llama-3.1-8B") == 0);
	CHECK_NEAR(b->active_params_b, 8.03, 1e-9);
	CHECK_NEAR(b->mean_power_w, 13380.0 / 60.0, 1e-6);
	CHECK(strcmp(wc_runs_get_extra(t, 1, "n_source"), "requests") == 0);
	CHECK(strcmp(wc_runs_get_extra(t, 1, "phase_source"), "requests") == 0);
	CHECK_NEAR(extra_num(t, 1, "requests"), 2, 0);
	CHECK_NEAR(b->output_tokens, 150, 1e-9);
	/* Prefill [12, 13) and [30, 30.5), decode [13, 20) and [30.5, 40):
	 * 1.5 s and 16.5 s at 300 W; the rest idle. */
	CHECK_NEAR(extra_num(t, 1, "prefill_energy_j"), 1.5 * 300.0, 1e-3);
	CHECK_NEAR(extra_num(t, 1, "decode_energy_j"), 16.5 * 300.0, 1e-3);
	CHECK_NEAR(extra_num(t, 1, "idle_energy_j"), 13380.0 - 18 * 300.0, 1e-3);
	wc_runs_free(t);
	t = NULL;

	/* Segments of 20 s: three rows whose energies add up. */
	char *seg = path_join(root, "out/seg.csv");
	const char *argv2[] = { "wattcast", "ingest", run_a, "-o", seg, "--segment", "20", "--quiet", NULL };
	/* SOURCE_DATE_EPOCH pins the table's stamp, as fit's created_utc, so
	 * a re-ingest hashes the same (it stamped the wall clock) */
	setenv("SOURCE_DATE_EPOCH", "1780000000", 1);
	CHECK(run_wattcast(argv2, NULL, &r) == 0);
	unsetenv("SOURCE_DATE_EPOCH");
	CHECK_INT(r.status, 0);
	run_result_free(&r);
	char *seg_text = test_slurp(seg);
	CHECK(seg_text && strncmp(seg_text, "# wattcast ingest ", 18) == 0 && strstr(seg_text, ", 2026-05-28T20:26:40Z: "));
	free(seg_text);
	CHECK_INT(wc_runs_read(seg, &t, &err), WC_OK);
	if (t) {
		CHECK_INT(t->n_runs, 3);
		CHECK(strcmp(t->runs[1].run_id, "fixture-a#seg2") == 0);
		CHECK_NEAR(extra_num(t, 0, "energy_j"), 7480.0, 1e-3);
		CHECK_NEAR(extra_num(t, 1, "energy_j"), 12100.0, 1e-3);
		CHECK_NEAR(extra_num(t, 2, "energy_j"), 7480.0, 1e-3);
		CHECK_NEAR(t->runs[1].running, 8.0, 1e-12);
		CHECK_NEAR(t->runs[1].idle_power_w, 82.5, 1e-9); /* the run's, in every segment */
		CHECK(isnan(extra_num(t, 1, "requests"))); /* the manifest's count is for the whole run */
		wc_runs_free(t);
		t = NULL;
	}
	free(seg);
done:
	wc_runs_free(t);
	free(out);
	free(outdir);
}

/* A refused ingest: exit 1, the reason on stderr, no table, no series. */
static void
refused(const char *name, const char *const *argv, const char *needle)
{
	run_result r;
	char *out = path_join(root, name), *series = NULL;
	size_t n = strlen(out);
	series = malloc(n + 16);
	snprintf(series, n + 16, "%.*s.series", (int)(n - 4), out);
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, needle);
	CHECK_CONTAINS(r.err, "nothing written");
	CHECK(!test_exists(out));
	CHECK(!test_exists(series));
	run_result_free(&r);
	free(out);
	free(series);
}

/* The power log with each line `hit` picks (1-based) replaced by
 * `with`, or left out when `with` is NULL; the caller frees it. */
static char *
edit_lines(const char *src, int (*hit)(int line), const char *with)
{
	text t = { NULL, 0, 0 };
	int line = 1;
	for (const char *p = src; *p; line++) {
		const char *nl = strchr(p, '\n');
		size_t len = (size_t)(nl - p) + 1;
		if (!hit(line))
			put(&t, "%.*s", (int)len, p);
		else if (with)
			put(&t, "%s", with);
		p += len;
	}
	return t.buf;
}

static int every_50th(int line) { return line % 50 == 7; }
static int line_301(int line) { return line == 301; }
static int every_20th(int line) { return line >= 3 && line % 20 == 1; }

static void
test_refusals(const char *run_a, const char *run_b)
{
	char out[1024];
	snprintf(out, sizeof out, "%s/refused.csv", root);
	/* Run B without flags: nothing says which platform, nor the rest,
	 * all named at once. */
	refused("refused.csv", (const char *const[]){ "wattcast", "ingest", run_b, "-o", out, NULL },
	        "give --platform");
	refused("refused.csv",
	        (const char *const[]){ "wattcast", "ingest", run_a, run_b, "-o", out, "--platform", "H100",
	                               "--model", "Llama-3.1-8B", NULL },
	        "give --utc-offset");

	/* A wrong offset moves the power log an hour away from the engine. */
	char *pw = power_csv(2, 3600, 0), *eng = engine_csv();
	char *c = make_run("run_c", pw, eng, "{\"schema\": \"wattcast.run/1\", \"platform\": \"A100\","
	                                     " \"model\": \"Qwen3-8B\", \"utc_offset_s\": 0}", NULL);
	refused("refused.csv", (const char *const[]){ "wattcast", "ingest", c, "-o", out, NULL },
	        "clocks cannot be aligned");
	/* Without the offset in any manifest, the engine clock suggests it. */
	char *c2 = make_run("run_c2", pw, eng, "{\"schema\": \"wattcast.run/1\", \"platform\": \"A100\","
	                                      " \"model\": \"Qwen3-8B\"}", NULL);
	refused("refused.csv", (const char *const[]){ "wattcast", "ingest", c2, "-o", out, NULL },
	        "(the engine clock suggests 3600)");
	/* ... and where platform and model are unknown too (the combined
	 * refusal dropped it; docs/formats/telemetry.md, "Clocks and UTC offsets") */
	char *c3 = make_run("run_c3", pw, eng, "{\"schema\": \"wattcast.run/1\"}", NULL);
	refused("refused.csv", (const char *const[]){ "wattcast", "ingest", c3, "-o", out, NULL },
	        "give --platform, --model and --utc-offset (the engine clock suggests 3600), and --active-params");

	/* 2 % malformed lines: file:line warnings, then refused. */
	text t = { edit_lines(pw, every_50th, "2023/11/14 23:13:2x.000, 0, GPU-0000, 1.0 W, 1 %\n"), 0, 0 };
	char *d = make_run("run_d", t.buf, eng, manifest_a, NULL);
	char want[1200];
	snprintf(want, sizeof want, "%s/power.csv:7:1: unreadable timestamp '2023/11/14 23:13:2x.000'", d);
	refused("refused.csv", (const char *const[]){ "wattcast", "ingest", d, "-o", out, NULL }, want);
	refused("refused.csv", (const char *const[]){ "wattcast", "ingest", d, "-o", out, NULL },
	        "power.csv: fix the bad lines or allow more with --max-bad FRACTION: ");
	refused("refused.csv", (const char *const[]){ "wattcast", "ingest", d, "-o", out, NULL },
	        "data lines are malformed (more than 1 %)");
	/* ... unless the user allows more. */
	{
		const char *argv[] = { "wattcast", "ingest", d, "-o", out, "--max-bad", "0.05", "--quiet", NULL };
		run_result r;
		CHECK(run_wattcast(argv, NULL, &r) == 0);
		CHECK_INT(r.status, 0);
		/* --quiet, which main takes out wherever it stands, silences the
		 * bad lines' warnings too (docs/cli.md) */
		CHECK(r.err && !strstr(r.err, "warning"));
		CHECK(test_exists(out));
		run_result_free(&r);
		remove(out);
		char *series = path_join(root, "refused.series/fixture-a.csv");
		remove(series);
		free(series);
		series = path_join(root, "refused.series");
		rmdir(series);
		free(series);
	}

	/* GPU 1 missing from one sample: that sample is dropped with a
	 * warning (a lost line), every later one intact. */
	free(t.buf);
	t.buf = edit_lines(pw, line_301, NULL);
	char *e = make_run("run_e", t.buf, eng, manifest_a, NULL);
	{
		char *ok = path_join(root, "lost_line.csv");
		const char *argv[] = { "wattcast", "ingest", e, "-o", ok, NULL };
		run_result r;
		CHECK(run_wattcast(argv, NULL, &r) == 0);
		CHECK_INT(r.status, 0);
		CHECK_CONTAINS(r.err, "GPU 1 is missing from the sample at line 300; sample dropped");
		CHECK(test_exists(ok));
		run_result_free(&r);
		free(ok);
	}
	/* GPU 1 missing from every tenth sample: more than 1 % of the lines
	 * are bad, and the run is refused. */
	free(t.buf);
	t.buf = edit_lines(pw, every_20th, NULL);
	char *f = make_run("run_f", t.buf, eng, manifest_a, NULL);
	refused("refused.csv", (const char *const[]){ "wattcast", "ingest", f, "-o", out, NULL },
	        "GPU 1 is missing from the sample");
	/* One bad run spoils the lot: run A alone would have been fine. */
	refused("refused.csv", (const char *const[]){ "wattcast", "ingest", run_a, f, "-o", out, NULL },
	        "1 run refused");
	free(f);
	free(t.buf);
	free(pw);
	free(eng);
	free(c);
	free(c2);
	free(c3);
	free(d);
	free(e);
}

static void
test_metrics_cli(const char *run_a)
{
	char *p = path_join(run_a, "power.csv");
	const char *argv[] = { "wattcast", "metrics", p, "--json", "--utc-offset", "3600",
		               "--output-tokens", "4000", "--requests", "40", NULL };
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	json_error_t jerr;
	json_t *o = json_loads(r.out, 0, &jerr);
	CHECK(o != NULL);
	if (o) {
		json_t *group = json_object_get(o, "group");
		json_t *g1 = json_object_get(json_array_get(json_object_get(o, "per_gpu"), 1), "metrics");
		CHECK_NEAR(json_number_value(json_object_get(group, "energy_j")), 27060.0, 1e-6);
		CHECK_NEAR(json_number_value(json_object_get(g1, "energy_j")), 13680.0, 1e-6);
		CHECK_NEAR(json_number_value(json_object_get(group, "max_w")), 605.0, 1e-9);
		CHECK_NEAR(json_number_value(json_object_get(o, "start_epoch")), T0, 1e-6);
		CHECK_INT(json_integer_value(json_object_get(o, "gpus")), 2);
		CHECK(json_is_true(json_object_get(o, "exact")));
		CHECK(json_is_null(json_object_get(group, "period_s")));
		CHECK_NEAR(json_number_value(json_object_get(group, "energy_per_token_j")), 27060.0 / 4000, 1e-9);
		CHECK_NEAR(json_number_value(json_object_get(group, "energy_per_request_j")), 27060.0 / 40, 1e-9);
		CHECK(json_object_get(group, "energy_per_iteration_j") == NULL);
		json_decref(o);
	}
	run_result_free(&r);

	const char *argv2[] = { "wattcast", "metrics", p, NULL };
	CHECK(run_wattcast(argv2, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, "2 GPUs, 601 samples");
	CHECK_CONTAINS(r.out, "group");
	CHECK(strstr(r.out, "nan") == NULL); /* an unknown value prints "-" */
	run_result_free(&r);

	/* An output folder that does not exist is found before the work, a
	 * usage error naming the flag as for every command's output. */
	{
		const char *argv4[] = { "wattcast", "ingest", run_a, "-o", "/nonexistent/dir/runs.csv", NULL };
		CHECK(run_wattcast(argv4, NULL, &r) == 0);
		CHECK_INT(r.status, 2);
		CHECK_CONTAINS(r.err, "-o: folder '/nonexistent/dir' does not exist");
		run_result_free(&r);
	}
	/* A missing file is failed work, not a usage error. */
	const char *argv3[] = { "wattcast", "metrics", "/nonexistent/power.csv", NULL };
	CHECK(run_wattcast(argv3, NULL, &r) == 0);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "cannot open");
	run_result_free(&r);
	free(p);
}

/* `wattcast metrics` bounds its traces early when a regular file's size
 * promises more samples than the exact limit (trace/stream.h); a log whose
 * size is mostly comments breaks that promise and is read again, so its
 * metrics are still the exact ones, equal to those of the same samples
 * without the comments, and its warnings are shown once. */
/* Epochs keep their milliseconds in JSON: a window cut from them must
 * match the log's own duration (10 significant digits rounded them to
 * whole seconds). */
static void
test_metrics_epoch_ms(void)
{
	char *a = path_join(root, "epoch_ms.csv");
	CHECK(write_text(a, "timestamp, power.draw [W]\n"
	                    "2023/11/14 22:13:20.244, 100.00 W\n2023/11/14 22:13:20.563, 110.00 W\n"
	                    "2023/11/14 22:13:20.882, 120.00 W\n2023/11/14 22:13:21.201, 110.00 W\n"
	                    "2023/11/14 22:13:21.520, 100.00 W\n") == 0);
	run_result r;
	CHECK(run_wattcast(METRICS(a, "--json"), NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	json_t *o = json_loads(r.out, 0, NULL);
	CHECK(o != NULL);
	if (o) {
		CHECK_NEAR(json_number_value(json_object_get(o, "start_epoch")), 1700000000.244, 1e-4);
		CHECK_NEAR(json_number_value(json_object_get(o, "end_epoch")), 1700000001.520, 1e-4);
		json_decref(o);
	}
	run_result_free(&r);
	free(a);
}

static void
test_metrics_bound_too_early(void)
{
	text plain = { 0 };
	put(&plain, "timestamp, power.draw [W]\n");
	for (int i = 0; i < 17000; i++)
		put(&plain, "2023/11/14 22:%02d:%02d.%d00, %.2f W\n", 13 + i / 600, i / 10 % 60, i % 10,
		    100.0 + 50.0 * sin(i / 37.0) + i % 7);
	put(&plain, "2023/11/14 22:41:20.000, bad W\n");
	char *a = path_join(root, "short.csv"), *b = path_join(root, "short_comments.csv");
	CHECK(write_text(a, plain.buf) == 0);
	/* 12 MB of comments: 20x the data's bytes, as if it held 340 000 samples. */
	for (int i = 0; i < 120000; i++)
		put(&plain, "# %097d\n", i);
	CHECK(write_text(b, plain.buf) == 0);
	run_result ra, rb;
	CHECK(run_wattcast(METRICS(a, "--json"), NULL, &ra) == 0);
	CHECK(run_wattcast(METRICS(b, "--json"), NULL, &rb) == 0);
	CHECK_INT(ra.status, 0);
	CHECK_INT(rb.status, 0);
	json_t *oa = json_loads(ra.out, 0, NULL), *ob = json_loads(rb.out, 0, NULL);
	CHECK(oa && ob);
	if (oa && ob) {
		CHECK(json_is_true(json_object_get(ob, "exact")));
		json_object_del(oa, "file");
		json_object_del(ob, "file");
		CHECK(json_equal(oa, ob));
	}
	json_decref(oa);
	json_decref(ob);
	/* The bad line's warning, once; the same text for both files. */
	const char *w = strstr(rb.err, "unreadable power.draw");
	CHECK(w != NULL && strstr(w + 1, "unreadable power.draw") == NULL);
	CHECK(strstr(ra.err, "unreadable power.draw") != NULL);
	run_result_free(&ra);
	run_result_free(&rb);
	free(plain.buf);
	free(a);
	free(b);
}

#define INGEST(...) ((const char *const[]){ "wattcast", "ingest", __VA_ARGS__, NULL })

/* A fleet tree <site>/<date>/<host>/<gpu>/<run>: the run lies below the 4
 * levels searched and is left out, but said so (it was left out without
 * a word); the run 1 level down is ingested. */
static void
test_deep_tree(const char *power, const char *engine)
{
	char *deep = path_join(root, "fleet/site/day/host/gpu"), *out = path_join(root, "fleet.csv");
	char cmd[1200];
	snprintf(cmd, sizeof cmd, "mkdir -p '%s'", deep);
	CHECK_INT(system(cmd), 0);
	char *a = make_run("fleet/run_near", power, engine, manifest_a, NULL);
	char *b = make_run("fleet/site/day/host/gpu/run_far", power, engine, manifest_a, NULL);
	char *fleet = path_join(root, "fleet");
	run_result r;
	CHECK(run_wattcast(INGEST(fleet, "-o", out), NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, "wrote 1 row");
	CHECK_CONTAINS(r.err, "fleet: 1 run folder below the 4 levels searched, not ingested (first: ");
	CHECK_CONTAINS(r.err, "fleet/site/day/host/gpu/run_far); name a folder nearer to it");
	run_result_free(&r);
	/* a tree whose only runs lie too deep: said so, not "no run folder" */
	snprintf(cmd, sizeof cmd, "mkdir -p '%s/only/a/b/c/d'", root);
	CHECK_INT(system(cmd), 0);
	char *c = make_run("only/a/b/c/d/run_x", power, engine, manifest_a, NULL), *only = path_join(root, "only");
	CHECK(run_wattcast(INGEST(only, "-o", out), NULL, &r) == 0);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "only: no run folder within the 4 levels searched; 1 below them (first: ");
	run_result_free(&r);
	free(c);
	free(only);
	free(a);
	free(b);
	free(fleet);
	free(deep);
	free(out);
}

int
main(void)
{
	root = test_tmpdir("cli_ingest");
	char *pw_a = power_csv(2, 3600, 0), *eng = engine_csv(), *pw_b = power_csv(1, -18000, 1);
	/* Two requests for run B (epoch s): prefill then decode. */
	char req_b[512];
	snprintf(req_b, sizeof req_b,
	         "arrival_s,first_token_s,completion_s,input_tokens,output_tokens\n"
	         "%.3f,%.3f,%.3f,100,100\n%.3f,%.3f,%.3f,300,200\n",
	         T0 + 12, T0 + 13, T0 + 20, T0 + 30, T0 + 30.5, T0 + 40);
	char *run_a = make_run("run_a", pw_a, eng, manifest_a, NULL);
	char *run_b = make_run("run_b", pw_b, NULL, NULL, req_b);

	test_ingest_ok(run_a, run_b);
	test_refusals(run_a, run_b);
	test_metrics_cli(run_a);
	test_metrics_bound_too_early();
	test_metrics_epoch_ms();
	test_deep_tree(pw_a, eng);

	test_usage_error(INGEST(run_a), "-o RUNS.csv is required");
	test_usage_error(INGEST("-o", "x.csv"), "give at least one RUN_DIR");
	test_usage_error(INGEST(run_a, "-o", "x.csv", "--segment", "0.5"), "--segment: must be >= 1");
	test_usage_error(INGEST(run_a, "-o", "x.csv", "--workload", "chaos"), "--workload: expected closed");
	test_usage_error(INGEST(run_a, "-o", "x.csv", "--tp", "0"), "--tp: must be between 1");
	test_usage_error(INGEST(run_a, "-o", "x.csv", "--utc-offset", "east"), "--utc-offset: expected a number");
	test_usage_error(INGEST(run_a, "-o", "x.csv", "--bogus"), "unknown flag '--bogus'");
	test_usage_error(INGEST(run_a, "-o"), "-o needs a value");
	test_usage_error(METRICS("--json"), "give one POWER.csv");
	test_usage_error(METRICS("a.csv", "b.csv"), "unexpected argument 'b.csv'");
	test_usage_error(METRICS("a.csv", "--gpus", "0"), "--gpus: must be between 1");
	test_usage_error(METRICS("a.csv", "--max-bad", "2"), "--max-bad: must be a fraction");
	test_usage_error(METRICS("a.csv", "--requests", "0"), "--requests: must be > 0");
	test_usage_error(INGEST(run_a, "-o", "x.csv", "--segment", "x"), "--segment: expected a number");

	free(pw_a);
	free(pw_b);
	free(eng);
	free(run_a);
	free(run_b);
	free(root);
	return check_report("test_cli_ingest");
}
