/*
 * Fleet ingest defects an operator met (docs/fleet.md,
 * docs/formats/prometheus.md), each below:
 * a password in the --prometheus URL printed in messages and written
 * into the runs table;
 * the grid a --start is off named from a series that appeared
 * mid-range;
 * an exporter relabelled under a new `instance` taken for two
 * scrape jobs and cutting the window;
 * a saved error page refusing a whole scrapes file; and
 * a --step longer than the saved answers' grid counting a
 * half-covered first step as a whole one.
 */
#include "tests/support/support.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define T0 1767225600L /* 2026-01-01T00:00:00Z */

static char *dir;

/* A query_range answer: series given as "labels|first|last|value" (times
 * in seconds after T0, every 15 s), `n` of them. */
static char *
answer(const char *const *series, int n)
{
	size_t cap = 1 << 16, len = 0;
	char *buf = malloc(cap);
	len += (size_t)snprintf(buf, cap, "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[");
	for (int i = 0; i < n; i++) {
		char labels[512];
		long a, b;
		double v;
		CHECK(sscanf(series[i], "%511[^|]|%ld|%ld|%lf", labels, &a, &b, &v) == 4);
		len += (size_t)snprintf(buf + len, cap - len, "%s{\"metric\":{%s},\"values\":[", i ? "," : "", labels);
		for (long t = a; t <= b; t += 15)
			len += (size_t)snprintf(buf + len, cap - len, "%s[%ld,\"%g\"]", t == a ? "" : ",", T0 + t, v);
		len += (size_t)snprintf(buf + len, cap - len, "]}");
	}
	snprintf(buf + len, cap - len, "]}}");
	return buf;
}

#define GPU(inst, uuid) "\"__name__\":\"DCGM_FI_DEV_POWER_USAGE\",\"Hostname\":\"h1\",\"gpu\":\"0\",\"UUID\":\"" uuid \
	"\",\"instance\":\"" inst "\",\"modelName\":\"NVIDIA H100 80GB HBM3\""
#define ENGINE "\"__name__\":\"vllm:num_requests_running\",\"instance\":\"h1:8000\",\"model_name\":\"Qwen/Qwen3-8B\""

static char *
save(const char *name, char *text)
{
	char *path = path_join(dir, name);
	CHECK(write_text(path, text) == 0);
	free(text);
	return path;
}

static void
ingest(const char *const *argv, run_result *r)
{
	CHECK(run_wattcast(argv, NULL, r) == 0);
	fprintf(stderr, "%s%s", r->out ? r->out : "", r->err ? r->err : "");
}

/* A child answering each request on 127.0.0.1: with `status` and, for a
 * 200, the power answer to the power query, the engine's to the running
 * query and an empty one to the others. */
static pid_t
serve(int status, const char *power, const char *running, int *port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = 0 };
	socklen_t sl = sizeof sa;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	CHECK(fd >= 0 && bind(fd, (struct sockaddr *)&sa, sizeof sa) == 0 && listen(fd, 8) == 0 &&
	      getsockname(fd, (struct sockaddr *)&sa, &sl) == 0);
	*port = ntohs(sa.sin_port);
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		static char req[65536];
		for (;;) {
			int c = accept(fd, NULL, NULL);
			if (c < 0)
				_exit(0);
			size_t got = 0;
			ssize_t n;
			while (got < sizeof req - 1 && (n = read(c, req + got, sizeof req - 1 - got)) > 0) {
				got += (size_t)n;
				req[got] = '\0';
				if (strstr(req, "\r\n\r\n"))
					break;
			}
			req[got] = '\0';
			const char *body = status != 200 ? "404 page not found\n"
			                   : strstr(req, "DCGM_FI_DEV_POWER_USAGE") ? power
			                   : strstr(req, "num_requests_running") ? running
			                   : "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[]}}";
			char head[256];
			int hn = snprintf(head, sizeof head, "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
			                  "Connection: close\r\n\r\n", status, status == 200 ? "OK" : "Not Found",
			                  status == 200 ? "application/json" : "text/plain", strlen(body));
			if (write(c, head, (size_t)hn) < 0 || write(c, body, strlen(body)) < 0)
				_exit(1);
			close(c);
		}
	}
	close(fd);
	return pid;
}

/* (1) A user and password in the URL are masked as ***@host in
 * every message and in the runs table's first line. */
static void
check_url_masked(void)
{
	const char *p[] = { GPU("dcgm-h1:9400", "GPU-A") "|0|300|300" }, *e[] = { ENGINE "|0|300|8" };
	char *power = answer(p, 1), *running = answer(e, 1), url[96], shown[96], end[32], start[32];
	char *out = path_join(dir, "url.csv");
	snprintf(start, sizeof start, "%ld", T0);
	snprintf(end, sizeof end, "%ld", T0 + 300);
	int port = 0;
	pid_t pid = serve(200, power, running, &port);
	snprintf(url, sizeof url, "http://alice:s3cret@127.0.0.1:%d", port);
	snprintf(shown, sizeof shown, "http://***@127.0.0.1:%d", port);
	const char *argv[] = { "wattcast", "ingest", "--prometheus", url, "--start", start, "--end", end, "-o", out,
		               NULL };
	run_result r;
	ingest(argv, &r);
	kill(pid, SIGTERM);
	waitpid(pid, NULL, 0);
	CHECK_INT(r.status, 0);
	char *table = test_slurp(out);
	CHECK_CONTAINS(table, "# wattcast ingest from Prometheus at ");
	CHECK_CONTAINS(table, shown);
	CHECK(table && !strstr(table, "s3cret") && !strstr(table, "alice"));
	CHECK(!strstr(r.out ? r.out : "", "s3cret") && !strstr(r.err ? r.err : "", "s3cret"));
	free(table);
	run_result_free(&r);

	/* an HTTP error, an unreachable server, a URL refused */
	pid = serve(404, power, running, &port);
	snprintf(url, sizeof url, "http://alice:s3cret@127.0.0.1:%d", port);
	snprintf(shown, sizeof shown, "wattcast ingest: http://***@127.0.0.1:%d: HTTP 404: 404 page not found", port);
	ingest(argv, &r);
	kill(pid, SIGTERM);
	waitpid(pid, NULL, 0);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, shown);
	CHECK(!strstr(r.err ? r.err : "", "s3cret"));
	run_result_free(&r);
	snprintf(url, sizeof url, "http://alice:s3cret@127.0.0.1:1/prom");
	ingest(argv, &r);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "wattcast ingest: http://***@127.0.0.1:1/prom: ");
	CHECK(!strstr(r.err ? r.err : "", "s3cret"));
	run_result_free(&r);
	snprintf(url, sizeof url, "ftp://alice:s3cret@h1");
	ingest(argv, &r);
	CHECK_INT(r.status, 2);
	CHECK_CONTAINS(r.err, "--prometheus: 'ftp://***@h1' is not an http:// or https:// base URL");
	CHECK(!strstr(r.err ? r.err : "", "s3cret"));
	run_result_free(&r);
	free(power);
	free(running);
	free(out);
}

/* (2) The grid a --start is off is named from its origin, the earliest
 * time of any series, not from the first series listed (one that
 * appeared mid-range). */
static void
check_grid_origin(void)
{
	const char *p[] = { GPU("dcgm-h1:9400", "GPU-B") "|105|300|300", GPU("dcgm-h1:9400", "GPU-A") "|0|300|300" };
	const char *e[] = { ENGINE "|0|300|8" };
	char *pp = save("origin_p.json", answer(p, 2)), *pe = save("origin_e.json", answer(e, 1));
	char *out = path_join(dir, "origin.csv");
	const char *argv[] = { "wattcast", "ingest", "--prometheus-json", pp, "--prometheus-json", pe, "--start",
		               "2026-01-01T00:00:07Z", "-o", out, NULL };
	run_result r;
	ingest(argv, &r);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "is off the saved answers' grid (a value every 15 s from 2026-01-01T00:00:00.000Z): give "
	               "--start 2026-01-01T00:00:00.000Z or 2026-01-01T00:00:15.000Z");
	run_result_free(&r);
	free(pp);
	free(pe);
	free(out);
}

/* (3) One GPU (one UUID) handed over from one series to another, the old
 * one's last value in the step of the new one's first, or the next: one
 * exporter relabelled, not two scrape jobs, and no window cut. */
static void
check_relabelled(void)
{
	const char *p[2][2] = {
		{ GPU("dcgm-h1-new:9400", "GPU-A") "|105|300|300", GPU("dcgm-h1:9400", "GPU-A") "|0|105|300" },
		{ GPU("dcgm-h1-new:9400", "GPU-A") "|120|300|300", GPU("dcgm-h1:9400", "GPU-A") "|0|105|300" },
	};
	const char *e[] = { ENGINE "|0|300|8" };
	for (int k = 0; k < 2; k++) {
		char *pp = save("relabel_p.json", answer(p[k], 2)), *pe = save("relabel_e.json", answer(e, 1));
		char *out = path_join(dir, "relabel.csv");
		const char *argv[] = { "wattcast", "ingest", "--prometheus-json", pp, "--prometheus-json", pe, "-o", out,
			               NULL };
		run_result r;
		ingest(argv, &r);
		CHECK_INT(r.status, 0);
		CHECK_CONTAINS(r.err, k ? "group 'h1': GPU-A relabelled at 2026-01-01T00:02:00.000Z, "
		                          "instance=\"dcgm-h1:9400\" to instance=\"dcgm-h1-new:9400\""
		                        : "group 'h1': GPU-A relabelled at 2026-01-01T00:02:00.000Z");
		CHECK_CONTAINS(r.err, "the same GPU, the window goes on");
		CHECK(r.err && !strstr(r.err, "two scrape jobs") && !strstr(r.err, "appears at") &&
		      !strstr(r.err, "vanishes at"));
		CHECK_CONTAINS(r.out, "wrote 1 row to");
		CHECK_CONTAINS(r.out, "  315.000\n");
		run_result_free(&r);
		free(pp);
		free(pe);
		free(out);
	}
}

/* (4) A scrape saved as its server's error page: skipped, said, where
 * `# wattcast-scrape` lines delimit the scrapes; refused naming it as
 * markup where they do not. */
static void
check_error_page(void)
{
	size_t cap = 1 << 16, len = 0;
	char *buf = malloc(cap);
	for (int k = 0; k <= 20; k++) {
		len += (size_t)snprintf(buf + len, cap - len, "# wattcast-scrape %ld dcgm-h1:9400\n"
		                        "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\",UUID=\"GPU-A\",modelName=\"NVIDIA H100 80GB "
		                        "HBM3\",Hostname=\"h1\"} 300\n# wattcast-scrape %ld h1:8000\n", T0 + 15 * k,
		                        T0 + 15 * k);
		len += (size_t)snprintf(buf + len, cap - len, "%s\n", k == 10
		                        ? "<html><body><h1>503 Service Unavailable</h1></body></html>"
		                        : "vllm:num_requests_running{model_name=\"Qwen/Qwen3-8B\"} 8");
	}
	char *in = save("page.prom", buf), *out = path_join(dir, "page.csv");
	const char *argv[] = { "wattcast", "ingest", "--scrapes", in, "-o", out, NULL };
	run_result r;
	ingest(argv, &r);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.err, "page.prom:44:1: not exposition text (an HTML or error page, a failed scrape?): the "
	               "scrape of h1:8000 at 2026-01-01T00:02:30.000Z is skipped");
	CHECK_CONTAINS(r.out, "wrote 2 rows to"); /* the scrape missed is a gap */
	run_result_free(&r);
	char *bare = save("bare.prom", strdup("<html><body><h1>503 Service Unavailable</h1></body></html>\n"));
	argv[3] = bare;
	ingest(argv, &r);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "bare.prom:1:1: not exposition text but markup (an HTML or error page saved as a scrape? "
	               "curl -sf leaves them out)");
	run_result_free(&r);
	free(bare);
	free(in);
	free(out);
}

/* (5) --step 30 over a 15 s grid: the step at the first value holds that
 * value alone, half its span; the range starts at the first step the
 * files cover whole, said. */
static void
check_first_step(void)
{
	const char *p[] = { GPU("dcgm-h1:9400", "GPU-A") "|0|300|300" };
	const char *e[] = { ENGINE "|0|300|8" };
	char *pj = answer(p, 1);
	char *pp = save("step_p.json", pj), *pe = save("step_e.json", answer(e, 1));
	char *out = path_join(dir, "step.csv");
	const char *argv[] = { "wattcast", "ingest", "--prometheus-json", pp, "--prometheus-json", pe, "--step", "30",
		               "-o", out, NULL };
	run_result r;
	ingest(argv, &r);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.err, "--step 30 s over saved answers of a value every 15 s, which cover from "
	               "2025-12-31T23:59:45.000Z: the range starts at 2026-01-01T00:00:30.000Z, the first step they "
	               "cover whole, not at 2026-01-01T00:00:00.000Z (their first value)");
	CHECK_CONTAINS(r.out, "h1#2026-01-01T00:00:30.000Z");
	CHECK(r.out && !strstr(r.out, "h1#2026-01-01T00:00:00.000Z"));
	CHECK_CONTAINS(r.out, "    300.0 ");
	run_result_free(&r);
	free(pp);
	free(pe);
	free(out);
}

int
main(void)
{
	dir = test_tmpdir("prom_fleet_ops");
	check_url_masked();
	check_grid_origin();
	check_relabelled();
	check_error_page();
	check_first_step();
	free(dir);
	return check_report("test_prom_fleet_ops");
}
