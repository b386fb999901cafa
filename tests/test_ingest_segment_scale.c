/*
 * `ingest --segment` does work in proportion to the run: each segment
 * reads the requests near it, not every request of the run, and the
 * table's series names are checked once each, not each against every
 * other (docs/formats/telemetry.md, "What ingest derives"). A three-hour
 * run at --segment 1 (10,800 segments, 5,398 requests) took 6.4 s of CPU
 * against 2.1 s for its first half: every segment counted, timed and
 * split the run's whole request log, and every series name was compared
 * with every earlier one. The work is counted, not timed (a time depends
 * on the machine and its load): the calls that visit one request
 * (wc_trace_request_end, wc_trace_token_ramp_of and the intervals handed
 * to wc_trace_interval_counts), and strcmp, through the linker's --wrap
 * (tests/CMakeLists.txt). Four times the run must cost at most five times
 * the work; the scans cost sixteen times.
 */
#include "data/data.h"
#include "tests/support/support.h"
#include "trace/load.h"
#include "trace/trace.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define T0 1784415000.0

static unsigned long long visits, compares;

double __real_wc_trace_request_end(const wc_request_log *log, size_t i);
double __wrap_wc_trace_request_end(const wc_request_log *log, size_t i);
int __real_wc_trace_token_ramp_of(const wc_request_log *log, size_t i, wc_trace_token_ramp *r);
int __wrap_wc_trace_token_ramp_of(const wc_request_log *log, size_t i, wc_trace_token_ramp *r);
void __real_wc_trace_interval_counts(const double *start, const double *end, size_t count, double g0, double dt,
                                     size_t n, double *out);
void __wrap_wc_trace_interval_counts(const double *start, const double *end, size_t count, double g0, double dt,
                                     size_t n, double *out);
int __real_strcmp(const char *a, const char *b);
int __wrap_strcmp(const char *a, const char *b);

double
__wrap_wc_trace_request_end(const wc_request_log *log, size_t i)
{
	visits++;
	return __real_wc_trace_request_end(log, i);
}

int
__wrap_wc_trace_token_ramp_of(const wc_request_log *log, size_t i, wc_trace_token_ramp *r)
{
	visits++;
	return __real_wc_trace_token_ramp_of(log, i, r);
}

void
__wrap_wc_trace_interval_counts(const double *start, const double *end, size_t count, double g0, double dt,
                                size_t n, double *out)
{
	visits += count;
	__real_wc_trace_interval_counts(start, end, count, g0, dt, n, out);
}

int
__wrap_strcmp(const char *a, const char *b)
{
	compares++;
	return __real_strcmp(a, b);
}

/* A run of `span` s: power every 0.25 s, a request every 2 s from 1 s
 * (first token 0.2 s after, 100 tokens to 3 s after). */
static char *
write_run(const char *root, int span)
{
	char name[32];
	snprintf(name, sizeof name, "run%d", span);
	char *d = path_join(root, name);
	mkdir(d, 0755);
	char *p = path_join(d, "power.csv"), *q = path_join(d, "requests.csv"), *m = path_join(d, "wattcast-run.json");
	FILE *fp = fopen(p, "w"), *fq = fopen(q, "w");
	CHECK(fp && fq);
	if (!fp || !fq)
		exit(1);
	fprintf(fp, "timestamp, index, power.draw [W]\n");
	for (int k = 0; k <= 4 * span; k++) {
		double t = T0 + 0.25 * k;
		long ms = (long)llround(fmod(t, 86400.0) * 1000.0);
		fprintf(fp, "2026/07/18 %02ld:%02ld:%02ld.%03ld, 0, %.2f W\n", ms / 3600000, ms / 60000 % 60,
		        ms / 1000 % 60, ms % 1000, 250.0 + 50.0 * sin(0.7 * k));
	}
	fprintf(fq, "arrival_s,first_token_s,completion_s,input_tokens,output_tokens\n");
	for (int r = 0; 2 * r + 5 < span; r++) {
		double a = T0 + 1.0 + 2.0 * r;
		fprintf(fq, "%.3f,%.3f,%.3f,100,100\n", a, a + 0.2, a + 3.0);
	}
	fclose(fp);
	fclose(fq);
	char json[256];
	snprintf(json, sizeof json, "{\"schema\": \"wattcast.run/2\", \"run_id\": \"%s\", \"platform\": \"A100\", "
	                            "\"tp\": 1, \"model\": \"Qwen/Qwen3-8B\", \"utc_offset_s\": 0}\n", name);
	CHECK(write_text(m, json) == 0);
	free(p);
	free(q);
	free(m);
	return d;
}

/* Ingest and write the run of `span` s at --segment 1: its request
 * visits and its write's comparisons. */
static void
work(const char *root, int span, unsigned long long *v, unsigned long long *c)
{
	char *d = write_run(root, span), name[32];
	wc_ingest_options o;
	wc_ingest_result res = { NULL, 0, 0 };
	wc_error err;
	wc_ingest_options_init(&o);
	o.segment_s = 1.0;
	visits = 0;
	CHECK_INT(wc_ingest_run(d, &o, &res, &err), WC_OK);
	*v = visits;
	/* The segments' requests add up to the run's: each counted once, by
	 * its shares of the segments it crosses (summed in floating point). */
	double n = 0.0;
	for (size_t i = 0; i < res.n_rows; i++)
		n += isfinite(res.rows[i].requests) ? res.rows[i].requests : 0.0;
	CHECK_NEAR(n, (double)((span - 5 + 1) / 2), 1e-9 * n);
	snprintf(name, sizeof name, "out%d.csv", span);
	char *out = path_join(root, name);
	compares = 0;
	CHECK_INT(wc_ingest_write(out, &res, NULL, &err), WC_OK);
	*c = compares;
	fprintf(stderr, "%d s: %zu rows, %llu request visits, %llu comparisons writing\n", span, res.n_rows, *v, *c);
	wc_ingest_result_clear(&res);
	free(out);
	free(d);
}

int
main(void)
{
	char *root = test_tmpdir("ingest_segment_scale");
	unsigned long long v1, c1, v4, c4;
	work(root, 600, &v1, &c1);
	work(root, 2400, &v4, &c4);
	CHECK(v1 > 0 && c1 > 0);
	fprintf(stderr, "4x the run: %.2fx the request visits, %.2fx the comparisons\n", (double)v4 / (double)v1,
	        (double)c4 / (double)c1);
	CHECK(v4 <= 5 * v1);
	CHECK(c4 <= 5 * c1);
	free(root);
	return check_report("test_ingest_segment_scale");
}
