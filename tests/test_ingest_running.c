/*
 * `wattcast ingest` validates the engine's running counts on the way in
 * (docs/formats/telemetry.md, "`engine.csv`: vLLM engine counters"): a negative or absurd
 * num_requests_running (-5, 1e300) used to be written into the runs table
 * with exit 0, and `fit` then refused the table. Now the run is refused,
 * naming the file, the value and its timestamp, and nothing is written;
 * the same run with sane counts is ingested.
 */
#include "data/data.h"
#include "trace/ingest.h"
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define T0 1700000000.0

/* One GPU, 100 ms samples over 20 s, 100 W idle then 300 W busy. */
static char *
power_csv(void)
{
	size_t cap = 200 * 64, len = 0;
	char *s = malloc(cap);
	len += (size_t)snprintf(s, cap, "index,timestamp,power.draw\n");
	for (int i = 0; i <= 200; i++) {
		time_t sec = (time_t)T0 + i / 10;
		struct tm tm;
		char ts[40];
		gmtime_r(&sec, &tm);
		strftime(ts, sizeof ts, "%Y/%m/%d %H:%M:%S", &tm);
		len += (size_t)snprintf(s + len, cap - len, "0,%s.%03d,%.2f\n", ts, (i % 10) * 100,
		                        i < 50 ? 100.0 : 300.0);
	}
	return s;
}

/* Engine counters every 0.5 s: 0 running, then `busy` (one sample
 * replaced by `odd` when given). */
static char *
engine_csv(const char *busy, const char *odd)
{
	size_t cap = 64 * 64, len = 0;
	char *s = malloc(cap);
	len += (size_t)snprintf(s, cap, "timestamp,num_requests_running\n");
	for (int k = 0; k <= 40; k++)
		len += (size_t)snprintf(s + len, cap - len, "%.3f,%s\n", T0 + 0.5 * k,
		                        k < 10 ? "0" : odd && k == 20 ? odd : busy);
	return s;
}

/* Ingest a run whose engine log is `engine`; the result and its stderr. */
static void
ingest(const char *root, const char *name, const char *engine, run_result *r, char **out)
{
	char *d = path_join(root, name), *p = path_join(d, "power.csv"), *pw = power_csv();
	mkdir(d, 0755);
	CHECK(write_text(p, pw) == 0);
	free(p);
	p = path_join(d, "engine.csv");
	CHECK(write_text(p, engine) == 0);
	free(p);
	char table[64];
	snprintf(table, sizeof table, "%s.csv", name);
	*out = path_join(root, table);
	const char *argv[] = { "wattcast", "ingest", d, "-o", *out, "--platform", "H100", "--model",
		               "Llama-3.1-8B", "--utc-offset", "0", NULL };
	CHECK(run_wattcast(argv, NULL, r) == 0);
	free(pw);
	free(d);
}

static void
refused(const char *root, const char *name, const char *odd, const char *shown)
{
	run_result r;
	char *out, *engine = engine_csv("8", odd);
	ingest(root, name, engine, &r, &out);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "engine.csv: num_requests_running = ");
	CHECK_CONTAINS(r.err, shown);
	CHECK_CONTAINS(r.err, "at timestamp 1700000010.000 (sample 21)");
	CHECK(!test_exists(out));
	run_result_free(&r);
	free(out);
	free(engine);
}

int
main(void)
{
	char *root = test_tmpdir("ingest_running");
	run_result r;
	char *out, *engine = engine_csv("8", NULL);

	/* The control: sane counts are ingested with their mean. */
	ingest(root, "sane", engine, &r, &out);
	CHECK_INT(r.status, 0);
	if (r.status != 0)
		fprintf(stderr, "%s", r.err);
	wc_runs_table *t = NULL;
	wc_error err;
	CHECK_INT(wc_runs_read(out, &t, &err), WC_OK);
	CHECK(t && t->n_runs == 1 && t->runs[0].running > 0 && t->runs[0].running <= 8);
	wc_runs_free(t);
	run_result_free(&r);
	free(out);
	free(engine);

	refused(root, "negative", "-5", "-5");
	refused(root, "absurd", "1e300", "1e+300");
	/* One more than the documented bound is refused too. */
	char over[32];
	snprintf(over, sizeof over, "%d", WC_INGEST_MAX_RUNNING + 1);
	refused(root, "over", over, over);

	free(root);
	return check_report("test_ingest_running");
}
