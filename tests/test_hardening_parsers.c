/*
 * Regressions of the file readers found by adversarial runs
 * (docs/architecture.md, "Hardening"): each case is the smallest input
 * that crashed, hung or exploded before, with the answer expected now.
 *
 *  - an engine.csv header naming `timestamp` twice wrote row[-1]: the
 *    first column wins, as for any repeated column;
 *  - `import mlenergy` looped forever when a repeated configuration's id
 *    left no room for its "#n" suffix, and numbered n repeats in O(n^3);
 *  - `num_gpus` 1e10 became tp -2147483648 and 5000 was accepted above
 *    the law's 4096; a manifest's "tp": 1e20 was undefined behaviour;
 *  - one far-off timestamp made `metrics` walk a 1-s grid to year 9999
 *    and `ingest` build a 50 ms grid over 30 days: gaps over
 *    WC_TELEMETRY_MAX_GAP_S are bad lines now;
 *  - a raw newline inside a JSON string came back inside the error
 *    message (jansson quotes the text near the fault), splitting the
 *    one-line message in two: control bytes print as '?' now.
 *
 * Runs that used to hang go through run_wattcast_limited: a CPU-time
 * bound far above what the run needs, so a regression fails (SIGXCPU)
 * instead of stalling ctest. Nothing is timed.
 */
#include "data/data.h"
#include "data/prom.h"
#include "tests/support/support.h"

#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define CPU_BOUND_S 20

static char *dir;

static char *
fixture(const char *name, const char *text)
{
	char *p = path_join(dir, name);
	CHECK_INT(write_text(p, text), 0);
	return p;
}

/* ------------------------------------------------------ engine counters */

static void
test_engine_timestamp_twice(void)
{
	wc_error err;
	wc_engine_log *e = NULL;
	char *p = fixture("engine_twice.csv",
	                  "timestamp,num_requests_running,timestamp\n"
	                  "1000.0,3,999.0\n"
	                  "1001.0,4,998.0\n");
	CHECK_INT(wc_engine_read(p, NULL, 0, &e, &err), WC_OK);
	if (e) {
		CHECK_INT(e->n, 2);
		CHECK_NEAR(e->t[0], 1000.0, 0);
		CHECK_NEAR(e->t[1], 1001.0, 0);
		CHECK(e->col[WC_ENG_RUNNING] != NULL);
		if (e->col[WC_ENG_RUNNING])
			CHECK_NEAR(e->col[WC_ENG_RUNNING][1], 4.0, 0);
		CHECK_INT(e->bad_lines, 0);
	}
	wc_engine_free(e);
	free(p);
	/* The same with a "vllm:" spelling of the second one. */
	p = fixture("engine_twice2.csv", "timestamp,vllm:timestamp\n5,1\n6,2\n");
	CHECK_INT(wc_engine_read(p, NULL, 0, &e, &err), WC_OK);
	if (e) {
		CHECK_INT(e->n, 2);
		CHECK_NEAR(e->t[0], 5.0, 0);
	}
	wc_engine_free(e);
	free(p);
}

/* ------------------------------------------------------------ ML.ENERGY */

static const char me_header[] =
	"task,model_id,architecture,total_params_billions,activated_params_billions,"
	"weight_precision,gpu_model,num_gpus,max_num_seqs,avg_batch_size,avg_output_len,"
	"avg_power_watts,energy_per_token_joules,output_throughput_tokens_per_sec\n";

static char *
me_table(const char *name, const char *model, const char *num_gpus, int rows)
{
	size_t cap = sizeof me_header + (size_t)rows * (strlen(model) + 128);
	char *text = malloc(cap), *p;
	size_t len = (size_t)snprintf(text, cap, "%s", me_header);
	for (int i = 0; i < rows; i++)
		len += (size_t)snprintf(text + len, cap - len,
		                        "lm-arena-chat,%s,Dense,8,8,bfloat16,H100,%s,8,7.9,800,500,1.0,300\n",
		                        model, num_gpus);
	p = fixture(name, text);
	free(text);
	return p;
}

static void
test_mlenergy_ids(void)
{
	char model[66];
	memset(model, 'm', 65);
	model[65] = '\0';
	char *in = me_table("me_long.csv", model, "1", 3);
	char *out = path_join(dir, "me_long_out.csv");
	const char *argv[] = { "wattcast", "import", "mlenergy", in, "-o", out, NULL };
	run_result r;
	CHECK_INT(run_wattcast_limited(argv, NULL, CPU_BOUND_S, &r), 0);
	CHECK_INT(r.status, 0);
	run_result_free(&r);

	wc_runs_table *t = NULL;
	wc_error err;
	CHECK_INT(wc_runs_read(out, &t, &err), WC_OK);
	if (t) {
		CHECK_INT(t->n_runs, 3);
		/* The id keeps its number; the base gives way. */
		for (size_t i = 0; i < t->n_runs; i++)
			CHECK(strlen(t->runs[i].run_id) <= 95);
		if (t->n_runs == 3) {
			size_t l1 = strlen(t->runs[1].run_id), l2 = strlen(t->runs[2].run_id);
			CHECK(l1 > 2 && strcmp(t->runs[1].run_id + l1 - 2, "#2") == 0);
			CHECK(l2 > 2 && strcmp(t->runs[2].run_id + l2 - 2, "#3") == 0);
		}
	}
	wc_runs_free(t);
	free(in);
	free(out);

	/* 6 400 repeats: seconds with a table scan per try (cubic), a few
	 * milliseconds with the id map. */
	in = me_table("me_many.csv", "Qwen/Qwen3-8B", "1", 6400);
	out = path_join(dir, "me_many_out.csv");
	const char *argv2[] = { "wattcast", "import", "mlenergy", in, "-o", out, NULL };
	CHECK_INT(run_wattcast_limited(argv2, NULL, CPU_BOUND_S, &r), 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.err, "wrote 6400 runs");
	run_result_free(&r);
	t = NULL;
	CHECK_INT(wc_runs_read(out, &t, &err), WC_OK); /* ids unique: the reader checks */
	if (t && t->n_runs == 6400) {
		CHECK(strcmp(t->runs[0].run_id, "lm-arena-chat|Qwen/Qwen3-8B|H100|1gpu|seqs8") == 0);
		CHECK(strcmp(t->runs[6399].run_id, "lm-arena-chat|Qwen/Qwen3-8B|H100|1gpu|seqs8#6400") == 0);
	}
	wc_runs_free(t);
	free(in);
	free(out);
}

static void
test_mlenergy_num_gpus(void)
{
	static const char *const bad[] = { "1e10", "5000", "-3", "2.5", "0" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char *in = me_table("me_gpus.csv", "m", bad[i], 1);
		wc_runs_table *t = NULL;
		wc_error err;
		char want[160];
		CHECK_INT(wc_import_mlenergy(in, &t, &err), WC_EPARSE);
		CHECK(t == NULL);
		snprintf(want, sizeof want,
		         ":2:41: column 'num_gpus': expected a whole number between 1 and 4096, got '%s'",
		         bad[i]);
		CHECK_CONTAINS(err.msg, want);
		free(in);
	}
	char *in = me_table("me_gpus_ok.csv", "m", "4096", 1);
	wc_runs_table *t = NULL;
	wc_error err;
	CHECK_INT(wc_import_mlenergy(in, &t, &err), WC_OK);
	if (t)
		CHECK_INT(t->runs[0].tp, 4096);
	wc_runs_free(t);
	free(in);
}

/* ------------------------------------------------------------ manifests */

static void
test_manifest_tp_huge(void)
{
	static const char *const texts[] = {
		"{\"schema\": \"wattcast.run/1\", \"tp\": 1e20}",
		"{\"manifest_version\": 1, \"tp\": 1e20}",
		"{\"schema\": \"wattcast.run/1\", \"tp\": -1e20}",
		"{\"manifest_version\": 1, \"tp\": 4097}",
	};
	for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
		char *p = fixture("manifest.json", texts[i]);
		wc_run_manifest m;
		wc_error err;
		wc_run_manifest_init(&m);
		CHECK_INT(wc_run_manifest_load(p, &m, &err), WC_EPARSE);
		CHECK_CONTAINS(err.msg, "/tp: expected a whole number between 1 and 4096");
		CHECK_INT(m.tp, 0);
		free(p);
	}
}

/* ---------------------------------------------------------- time gaps */

static void
test_power_far_timestamp(void)
{
	char *p = fixture("far.csv", "timestamp, power.draw [W]\n"
	                             "2026/07/18 16:00:00.000, 100\n"
	                             "2026/07/18 16:00:01.000, 110\n"
	                             "9999/12/31 23:59:59.999, 120\n");
	wc_power_trace *pt = NULL;
	wc_error err;
	CHECK_INT(wc_power_trace_read(p, NULL, 0, &pt, &err), WC_EPARSE);
	CHECK_CONTAINS(err.msg, "1 of 3 data lines are malformed");
	/* Tolerated as a bad line when it is rare enough. */
	wc_telemetry_options opt = WC_TELEMETRY_OPTIONS_INIT;
	opt.max_bad_fraction = 0.5;
	CHECK_INT(wc_power_trace_read(p, &opt, 0, &pt, &err), WC_OK);
	if (pt) {
		CHECK_INT(pt->n, 2);
		CHECK_INT(pt->info.bad_lines, 1);
		CHECK_NEAR(pt->info.t_last - pt->info.t_first, 1.0, 1e-9);
	}
	wc_power_trace_free(pt);

	/* `metrics` used to walk a 1-s grid to year 9999 (forever) or, for
	 * a one-year gap, allocate 500 MB: now a refusal naming the gap. */
	const char *argv[] = { "wattcast", "metrics", p, NULL };
	run_result r;
	CHECK_INT(run_wattcast_limited(argv, NULL, CPU_BOUND_S, &r), 0);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "far.csv:4:1: sample is");
	CHECK_CONTAINS(r.err, "gaps over 3600 s are not bridged");
	run_result_free(&r);
	free(p);

	p = fixture("year.csv", "timestamp, power.draw [W]\n"
	                        "2026/07/18 16:00:00.000, 100\n"
	                        "2026/07/18 16:00:01.000, 110\n"
	                        "2027/07/18 16:00:01.000, 120\n");
	const char *argv2[] = { "wattcast", "metrics", p, NULL };
	CHECK_INT(run_wattcast_limited(argv2, NULL, CPU_BOUND_S, &r), 0);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "year.csv:4:1: sample is 31536000 s after the one before");
	run_result_free(&r);
	free(p);
}

/* An nvidia-smi timestamp (UTC) of epoch second `t`. */
static const char *
nvsmi_time(double t)
{
	static char buf[40];
	time_t sec = (time_t)t;
	struct tm tm;
	gmtime_r(&sec, &tm);
	strftime(buf, sizeof buf, "%Y/%m/%d %H:%M:%S.000", &tm);
	return buf;
}

/* Gaps up to the bound between few samples: the exact bins would span
 * more than WC_TRACE_MAX_BINS seconds, so the streaming metrics answer in
 * their bounded form (before the bound they would have allocated them). */
static void
test_metrics_long_span(void)
{
	size_t cap = 5000 * 48, len;
	char *text = malloc(cap);
	len = (size_t)snprintf(text, cap, "timestamp, power.draw [W]\n");
	for (int i = 0; i < 5000; i++) /* 3590 s apart: 208 days */
		len += (size_t)snprintf(text + len, cap - len, "%s, %d\n",
		                        nvsmi_time(1700000000.0 + 3590.0 * i), 100 + i % 7);
	char *p = fixture("long.csv", text);
	free(text);
	const char *argv[] = { "wattcast", "metrics", "--json", p, NULL };
	run_result r;
	CHECK_INT(run_wattcast_limited(argv, NULL, CPU_BOUND_S, &r), 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, "\"exact\": false");
	CHECK_CONTAINS(r.out, "\"duration_s\": 17946410.0");
	run_result_free(&r);
	free(p);
}

/* nvidia-smi-style log of `n` samples 1 s apart from `t0` (epoch s), then
 * optionally one sample `late_s` after the last. */
static char *
power_log(const char *name, int n, double late_s)
{
	size_t cap = (size_t)n * 40 + 128, len;
	char *text = malloc(cap);
	len = (size_t)snprintf(text, cap, "timestamp, power.draw [W]\n");
	for (int i = 0; i < n; i++)
		len += (size_t)snprintf(text + len, cap - len, "%s, %d\n", nvsmi_time(1700000000.0 + i),
		                        100 + 10 * (i % 5));
	if (late_s > 0)
		len += (size_t)snprintf(text + len, cap - len, "%s, 120\n",
		                        nvsmi_time(1700000000.0 + n - 1 + late_s));
	char *p = fixture(name, text);
	free(text);
	return p;
}

static void
ingest_folder(const char *name, int n, double late_s, run_result *r, char **table)
{
	char *run = path_join(dir, name);
	mkdir(run, 0755);
	char *p = path_join(run, "power.csv");
	char *tmp = power_log("tmp_power.csv", n, late_s);
	CHECK_INT(rename(tmp, p), 0);
	free(tmp);
	free(p);
	p = path_join(run, "requests.csv");
	CHECK_INT(write_text(p, "arrival_s,completion_s\n1700000001,1700000005\n1700000002,1700000009\n"), 0);
	free(p);
	*table = path_join(dir, "ingested.csv");
	const char *argv[] = { "wattcast", "ingest", run, "-o", *table, "--platform", "A100", "--tp", "1",
		               "--model", "Qwen/Qwen3-8B", "--utc-offset", "0", NULL };
	CHECK_INT(run_wattcast_limited(argv, NULL, CPU_BOUND_S, r), 0);
	free(run);
}

static void
test_ingest_far_sample(void)
{
	run_result r;
	char *table;
	/* 41 samples and one 30 days later: 1 bad line of 42, refused (it
	 * used to write a 671 MB series over the 30 days). */
	ingest_folder("run_far", 41, 30 * 86400.0, &r, &table);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "power.csv:43:1: sample is 2592000 s after the one before");
	CHECK(access(table, F_OK) != 0);
	run_result_free(&r);
	free(table);

	/* 300 samples and the far one: a skipped bad line (0.3 %); the run is
	 * its 299 s, and its n(t) series is that long too. */
	ingest_folder("run_far_rare", 300, 30 * 86400.0, &r, &table);
	CHECK_INT(r.status, 0);
	wc_runs_table *t = NULL;
	wc_error err;
	CHECK_INT(wc_runs_read(table, &t, &err), WC_OK);
	if (t && t->n_runs == 1) {
		const char *d = wc_runs_get_extra(t, 0, "duration_s");
		CHECK(d && fabs(atof(d) - 299.0) < 1e-6);
		CHECK(t->runs[0].series.len > 0);
	}
	char *series = path_join(dir, "ingested.series/run_far_rare.csv");
	struct stat st;
	CHECK_INT(stat(series, &st), 0);
	CHECK(st.st_size < 200000);
	free(series);
	wc_runs_free(t);
	run_result_free(&r);
	free(table);
}

/* ------------------------------------------------ one-line messages */

/* No control byte may reach a message: a newline would split the CLI's
 * "file:line:column: reason" line and any log it lands in. */
static void
check_one_line(const wc_error *err, const char *where)
{
	int clean = 1;
	for (const char *c = err->msg; *c; c++)
		clean &= (unsigned char)*c >= 0x20 && *c != 0x7f;
	if (!clean)
		fprintf(stderr, "%s: control byte in message\n", where);
	CHECK(clean);
	CHECK(err->msg[0] != '\0');
}

static void
test_json_error_one_line(void)
{
	/* The fuzzer's prom_json finding, shortened: a newline and a 0x01 byte
	 * inside a key, so jansson's "near" text holds both. */
	static const char bad[] = "{\"status\":\"success\",\"data\":{\"resu\\\n\x01lt\":[]}}";
	wc_error err = { 0 };
	wc_prom_set set = { 0 };
	CHECK(wc_prom_json_parse(bad, sizeof bad - 1, "response.json", NULL, &set, NULL, NULL, &err) != WC_OK);
	check_one_line(&err, "prom_json");
	CHECK_CONTAINS(err.msg, "response.json:2:");
	wc_prom_set_clear(&set);

	wc_params p = WC_PARAMS_INIT;
	CHECK(wc_params_load_buffer(bad, sizeof bad - 1, "bad.json", &p, &err) != WC_OK);
	check_one_line(&err, "params");
	CHECK_CONTAINS(err.msg, "bad.json:2:");
	wc_params_clear(&p);

	wc_request_log *log = NULL;
	CHECK(wc_request_log_read_json_buffer(bad, sizeof bad - 1, "requests.json", NULL, &log,
	                                      &err) != WC_OK);
	check_one_line(&err, "request_log");
	wc_request_log_free(log);

	/* The rule lives in wc_error_set itself, for every caller. */
	CHECK_INT(wc_error_set(&err, WC_EINVAL, "field '%s': bad", "a\nb\tc\x7f"), WC_EINVAL);
	check_one_line(&err, "wc_error_set");
	CHECK(strcmp(err.msg, "field 'a?b?c?': bad") == 0);
}

int
main(void)
{
	/* A whole-test bound (in-process reads that used to loop forever). */
	alarm(600);
	dir = test_tmpdir("hardening_parsers");
	test_engine_timestamp_twice();
	test_mlenergy_ids();
	test_mlenergy_num_gpus();
	test_manifest_tp_huge();
	test_power_far_timestamp();
	test_metrics_long_span();
	test_ingest_far_sample();
	test_json_error_one_line();
	free(dir);
	return check_report("test_hardening_parsers");
}
