/*
 * The default step of saved query_range answers (`ingest --prometheus-json`
 * without --step; docs/fleet.md, "Queries"). Their times lie on the
 * query's grid, start + k * step. The step was their mean spacing, rounded
 * as the interval check rounds it: one scrape missed by one GPU among 40
 * at 15 s made it 15.4 s, the step 16 s, and the windows 304, 160, 16 and
 * 112 s from 00:05:04, where --step 15 gives 300, 150, 15 and 135 s from
 * 00:05:00. The step is now the grid's, or the least multiple of it the
 * check accepts (a 10 s grid over 15 s scrapes: 20 s). Also: a --start
 * off the grid, answers on two grids, missed scrapes and an engine
 * without `instance`, each below.
 */
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define T0 1767225600L

static char *dir;

/* The head of a query_range answer, up to its result array. */
static void
answer_begin(char *buf, size_t cap, size_t *len)
{
	*len = (size_t)snprintf(buf, cap, "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[");
}

/* Two H100 GPUs on host h1 and one vLLM engine, values at T0 + times[i]
 * (n of them): power 300 W (400 from the middle on), running 4 then 12.
 * GPU 1 lacks the value at index `missed`, the engine the one at
 * `run_missed` (-1: none). Writes p.json and r.json under `tag`; the
 * paths into power and running. */
static void
write_answers(const char *tag, const long *times, int n, int missed, int run_missed, char **power, char **running)
{
	size_t cap = 1 << 16, len;
	char *buf = malloc(cap), name[64];
	answer_begin(buf, cap, &len);
	for (int g = 0; g < 2; g++) {
		len += (size_t)snprintf(buf + len, cap - len, "%s{\"metric\":{\"__name__\":\"DCGM_FI_DEV_POWER_USAGE\","
		                        "\"Hostname\":\"h1\",\"gpu\":\"%d\",\"UUID\":\"GPU-%d\",\"modelName\":"
		                        "\"NVIDIA H100 80GB HBM3\"},\"values\":[", g ? "," : "", g, g);
		int first = 1;
		for (int i = 0; i < n; i++) {
			if (g == 1 && i == missed)
				continue;
			len += (size_t)snprintf(buf + len, cap - len, "%s[%ld,\"%d\"]", first ? "" : ",", T0 + times[i],
			                        i < n / 2 ? 300 : 400);
			first = 0;
		}
		len += (size_t)snprintf(buf + len, cap - len, "]}");
	}
	snprintf(buf + len, cap - len, "]}}");
	snprintf(name, sizeof name, "%s_power.json", tag);
	*power = path_join(dir, name);
	CHECK(write_text(*power, buf) == 0);
	answer_begin(buf, cap, &len);
	len += (size_t)snprintf(buf + len, cap - len, "{\"metric\":{\"__name__\":\"vllm:num_requests_running\","
	                        "\"instance\":\"h1:8000\",\"model_name\":\"Qwen/Qwen3-8B\"},\"values\":[");
	for (int i = 0, first = 1; i < n; i++)
		if (i != run_missed) {
			len += (size_t)snprintf(buf + len, cap - len, "%s[%ld,\"%d\"]", first ? "" : ",", T0 + times[i],
			                        i < n / 2 ? 4 : 12);
			first = 0;
		}
	snprintf(buf + len, cap - len, "]}]}}");
	snprintf(name, sizeof name, "%s_running.json", tag);
	*running = path_join(dir, name);
	CHECK(write_text(*running, buf) == 0);
	free(buf);
}

static void
ingest(const char *power, const char *running, const char *step, run_result *r)
{
	char *out = path_join(dir, "out.csv");
	const char *argv[] = { "wattcast", "ingest", "--prometheus-json", power, "--prometheus-json", running,
		               "-o", out, step ? "--step" : NULL, step, NULL };
	CHECK(run_wattcast(argv, NULL, r) == 0);
	fprintf(stderr, "%s%s", r->out ? r->out : "", r->err ? r->err : "");
	free(out);
}

/* ingest with --start */
static void
ingest_from(const char *power, const char *running, const char *start, run_result *r)
{
	char *out = path_join(dir, "from.csv");
	const char *argv[] = { "wattcast", "ingest", "--prometheus-json", power, "--prometheus-json", running,
		               "--start", start, "-o", out, NULL };
	CHECK(run_wattcast(argv, NULL, r) == 0);
	fprintf(stderr, "%s%s", r->out ? r->out : "", r->err ? r->err : "");
	free(out);
}

int
main(void)
{
	dir = test_tmpdir("prom_grid");
	run_result r, given;
	long times[64];
	char *power, *running;

	/* 40 values 15 s apart, GPU 1 missing the 31st: the grid's 15 s, as
	 * --step 15 gives. */
	for (int i = 0; i < 40; i++)
		times[i] = 15L * i;
	write_answers("missed", times, 40, 30, -1, &power, &running);
	ingest(power, running, NULL, &r);
	ingest(power, running, "15", &given);
	CHECK_INT(r.status, 0);
	CHECK_INT(given.status, 0);
	CHECK_CONTAINS(r.out, "h1#2026-01-01T00:00:00.000Z");
	CHECK_CONTAINS(r.out, "h1#2026-01-01T00:05:00.000Z");
	CHECK_CONTAINS(r.out, "h1#2026-01-01T00:07:30.000Z");
	CHECK_CONTAINS(r.out, "h1#2026-01-01T00:07:45.000Z");
	CHECK_CONTAINS(r.out, "  300.000\n");
	CHECK_CONTAINS(r.out, "  150.000\n");
	CHECK_CONTAINS(r.out, "   15.000 (excluded)\n");
	CHECK_CONTAINS(r.out, "  135.000\n");
	CHECK(!strstr(r.out, "304.000"));
	CHECK(r.out && given.out && strcmp(r.out, given.out) == 0); /* "they give the same table" */
	run_result_free(&r);
	run_result_free(&given);
	free(power);
	free(running);

	/* A 10 s step over 15 s scrapes (avg_over_time over 9.999 s): values
	 * 10 and 20 s apart on the 10 s grid. 10 s would be refused (the
	 * interval is 15 s); the default is 20 s, on the grid, accepted, and
	 * gives what --step 20 gives. */
	int n = 0;
	for (long t = 0; t < 900; t += 10)
		if (t / 15 * 15 > t - 10) /* a scrape in (t - 10, t] */
			times[n++] = t;
	CHECK(n > 40 && n < 64);
	write_answers("tenover15", times, n, -1, -1, &power, &running);
	ingest(power, running, NULL, &r);
	CHECK_INT(r.status, 0);
	CHECK(!r.err || !strstr(r.err, "shorter than the scrape interval"));
	CHECK_CONTAINS(r.out, "wrote 2 rows");
	ingest(power, running, "20", &given);
	CHECK_INT(given.status, 0);
	CHECK(r.out && given.out && strcmp(r.out, given.out) == 0);
	run_result_free(&r);
	run_result_free(&given);
	ingest(power, running, "10", &r);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "--step 10 s is shorter than the scrape interval");
	run_result_free(&r);
	free(power);
	free(running);

	/* A --start 7 s off the answers' grid averaged their 15 s means
	 * again, 7 s late: saved answers disagreed with the server asked with
	 * that start (one row of h1 at 435.0 W, the server's two at 436.8 and
	 * 370.2 W). Refused, naming the grid times either side; on the grid,
	 * the same rows as without --start. */
	for (int i = 0; i < 40; i++)
		times[i] = 15L * i;
	write_answers("offgrid", times, 40, -1, -1, &power, &running);
	ingest_from(power, running, "2026-01-01T00:01:07Z", &r);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "wattcast ingest: --start 2026-01-01T00:01:07.000Z is off the saved answers' grid (a value "
	               "every 15 s from 2026-01-01T00:00:00.000Z): give --start 2026-01-01T00:01:00.000Z or "
	               "2026-01-01T00:01:15.000Z");
	CHECK(r.err && strlen(r.err) - strlen("wattcast ingest: \n") <= 255);
	run_result_free(&r);
	ingest_from(power, running, "2026-01-01T00:01:00Z", &r);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, "h1#2026-01-01T00:01:00.000Z");
	run_result_free(&r);
	free(power);
	free(running);

	/* Eight values 15 s apart, the engine's third missing (a 30 s
	 * outage among 2 s scrapes, as a server's 15 s grid shows it): the
	 * spacings 15, 30, 15, 15, 15, 15 measured 17.5 s, --step 15 was
	 * refused with "--step 18 or longer", and from a server each step
	 * suggested was refused again. A missed scrape is a gap, not the
	 * interval (docs/fleet.md, "Queries"). */
	for (int i = 0; i < 8; i++)
		times[i] = 15L * i;
	write_answers("outage", times, 8, -1, 2, &power, &running);
	ingest(power, running, "15", &given);
	CHECK_INT(given.status, 0);
	CHECK(!given.err || !strstr(given.err, "shorter than the scrape interval"));
	CHECK_CONTAINS(given.err, "no sample at 2026-01-01T00:00:30.000Z");
	ingest(power, running, NULL, &r);
	CHECK_INT(r.status, 0);
	CHECK(r.out && given.out && strcmp(r.out, given.out) == 0);
	run_result_free(&r);
	run_result_free(&given);
	free(power);
	free(running);

	/* Answers of queries run at different times: power on a 15 s grid
	 * from 00:00:00, the engine on one from 00:00:07. Every --start was
	 * refused by one file or the other; without one a row mixed means
	 * over windows 7 s apart, unsaid. Refused, naming both files and
	 * their grids, with or without --start. */
	char *power7, *running7;
	for (int i = 0; i < 40; i++)
		times[i] = 15L * i;
	write_answers("grid0", times, 40, -1, -1, &power, &running);
	for (int i = 0; i < 40; i++)
		times[i] = 15L * i + 7;
	write_answers("grid7", times, 40, -1, -1, &power7, &running7);
	const char *starts[] = { NULL, "1767225600", "1767225607", "2026-01-01T00:00:15Z" };
	for (int i = 0; i < 4; i++) {
		if (starts[i])
			ingest_from(power, running7, starts[i], &r);
		else
			ingest(power, running7, NULL, &r);
		CHECK_INT(r.status, 1);
		CHECK_CONTAINS(r.err, "grid7_running.json: a value every 15 s from 2026-01-01T00:00:07.000Z, off the "
		               "grid of ");
		CHECK_CONTAINS(r.err, "grid0_power.json (every 15 s from 2026-01-01T00:00:00.000Z)");
		CHECK(r.err && strlen(r.err) - strlen("wattcast ingest: \n") <= 255);
		run_result_free(&r);
	}
	ingest(power, running, NULL, &r); /* one grid: read */
	CHECK_INT(r.status, 0);
	run_result_free(&r);
	free(power);
	free(running);
	free(power7);
	free(running7);

	/* Scrapes every 15 s, every 8th missed (70 of 80): one spacing in
	 * seven is 30 s, over the tenth the interval rule left out, so 17.17 s
	 * was measured, --step 15 refused and the default 17 s. A spacing of
	 * a whole number of intervals between scrapes is scrapes missed. */
	char *scr = malloc(1 << 16), *h8 = path_join(dir, "h8.prom"), *out8 = path_join(dir, "h8.csv");
	size_t len = 0;
	for (int i = 0; i < 80; i++)
		if (i % 8 != 7)
			len += (size_t)snprintf(scr + len, (1 << 16) - len, "# wattcast-scrape %ld h1:8000\n"
			                        "DCGM_FI_DEV_POWER_USAGE{Hostname=\"h1\",gpu=\"0\",modelName=\"NVIDIA "
			                        "H100 80GB HBM3\"} 300\nvllm:num_requests_running{model_name=\"Qwen/"
			                        "Qwen3-8B\"} 8\n", T0 + 15L * i);
	CHECK(write_text(h8, scr) == 0);
	const char *argv8[] = { "wattcast", "ingest", "--scrapes", h8, "-o", out8, "--step", "15", NULL };
	CHECK(run_wattcast(argv8, NULL, &given) == 0);
	CHECK_INT(given.status, 0);
	CHECK(!given.err || !strstr(given.err, "shorter than the scrape interval"));
	argv8[6] = NULL;
	CHECK(run_wattcast(argv8, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	CHECK(r.out && given.out && strcmp(r.out, given.out) == 0); /* the default step is 15 s */
	run_result_free(&r);
	run_result_free(&given);
	free(scr);
	free(h8);
	free(out8);

	/* An engine series without `instance` (vLLM's carrying Hostname):
	 * its host is the host part of instance, so it has none, and the
	 * message named a group 'group' of engines without GPUs. */
	char *q = path_join(dir, "noinst.json"), *outq = path_join(dir, "noinst.csv");
	CHECK(write_text(q, "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":["
	                 "{\"metric\":{\"__name__\":\"DCGM_FI_DEV_POWER_USAGE\",\"Hostname\":\"h1\",\"gpu\":"
	                 "\"0\",\"modelName\":\"NVIDIA H100 80GB HBM3\"},\"values\":[[1767225600,\"300\"],"
	                 "[1767225615,\"300\"]]},{\"metric\":{\"__name__\":\"vllm:num_requests_running\","
	                 "\"Hostname\":\"h1\",\"model_name\":\"Qwen/Qwen3-8B\"},\"values\":[[1767225600,\"8\"],"
	                 "[1767225615,\"8\"]]}]}}") == 0);
	const char *argvq[] = { "wattcast", "ingest", "--prometheus-json", q, "-o", outq, NULL };
	CHECK(run_wattcast(argvq, NULL, &r) == 0);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "wattcast ingest: vllm:num_requests_running{Hostname=\"h1\",model_name=\"Qwen/Qwen3-8B\"}: "
	               "engine series without an 'instance' label, so no host; the GPUs of group 'h1' have no "
	               "engine series");
	CHECK(r.err && !strstr(r.err, "'group'"));
	run_result_free(&r);
	free(q);
	free(outq);

	free(dir);
	return check_report("test_prom_grid");
}
