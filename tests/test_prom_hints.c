/*
 * What `wattcast ingest` from Prometheus says when the input is not what
 * it reads (docs/fleet.md, "Problems in the data"; docs/formats/
 * prometheus.md). A partial answer's warnings were dropped unsaid. No
 * engine series at all (vLLM's metric misnamed
 * `vllm_num_requests_running`) blamed --group-by as "GPU with no engine
 * series ... (--group-by matches them differently)"; a URL answering an
 * HTML page said jansson's "URL:1:1: '[' or '{' expected near '<'", and so
 * did scrapes saved as --prometheus-json; --start in epoch milliseconds
 * was "neither RFC 3339 nor epoch seconds", where a sample time in
 * milliseconds is named as such; --group-by job, which puts GPUs and
 * engines in two groups, was told there was no engine series at all.
 */
#include "tests/support/support.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>

#define T0 1767225600L

static char *dir;

static void
ingest(const char *const *argv, run_result *r)
{
	CHECK(run_wattcast(argv, NULL, r) == 0);
	fprintf(stderr, "%s", r->err ? r->err : "");
}

/* Power and vLLM's other metrics, the running count under a name it never
 * had: no engine load series anywhere, so no group is at fault. */
static void
check_no_engine(void)
{
	size_t cap = 1 << 16, len = 0;
	char *buf = malloc(cap);
	for (int k = 0; k < 40; k++)
		len += (size_t)snprintf(buf + len, cap - len,
		                        "# wattcast-scrape %ld h1:9400\nDCGM_FI_DEV_POWER_USAGE{gpu=\"0\",UUID=\"GPU-0\","
		                        "modelName=\"NVIDIA H100 80GB HBM3\",Hostname=\"h1\"} 300\n"
		                        "# wattcast-scrape %ld h1:8000\nvllm_num_requests_running{model_name=\"Qwen/Qwen3-8B\"} 8\n"
		                        "vllm:num_requests_waiting{model_name=\"Qwen/Qwen3-8B\"} 0\n",
		                        T0 + 15 * k, T0 + 15 * k);
	char *in = path_join(dir, "novllm.prom"), *out = path_join(dir, "x.csv");
	CHECK(write_text(in, buf) == 0);
	free(buf);
	const char *argv[] = { "wattcast", "ingest", "--scrapes", in, "-o", out, NULL };
	run_result r;
	ingest(argv, &r);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "wattcast ingest: no engine load series (vllm:num_requests_running, "
	               "sglang:num_running_reqs or tgi_batch_current_size) in the range, only GPU power: is the "
	               "engine's metric named so, and does --selector match its series?");
	CHECK(!strstr(r.err, "--group-by"));
	CHECK(!test_exists(out));
	run_result_free(&r);
	free(in);
	free(out);
}

/* A Prometheus range answer saved as JSON: one matrix series per host
 * (h1, h2), `labels` and then the host's label, `value` every 2 s. */
static char *
matrix(const char *name, const char *labels, const char *host_label, const char *port, const char *value)
{
	size_t cap = 1 << 15, len = 0;
	char *buf = malloc(cap);
	len += (size_t)snprintf(buf, cap, "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[");
	for (int h = 1; h <= 2; h++) {
		len += (size_t)snprintf(buf + len, cap - len, "%s{\"metric\":{%s,\"%s\":\"h%d%s\"},\"values\":[",
		                        h > 1 ? "," : "", labels, host_label, h, port);
		for (int k = 0; k < 40; k++)
			len += (size_t)snprintf(buf + len, cap - len, "%s[%ld,\"%s\"]", k ? "," : "", T0 + 2 * k, value);
		len += (size_t)snprintf(buf + len, cap - len, "]}");
	}
	snprintf(buf + len, cap - len, "]}}");
	char *path = test_fixture(dir, name, buf);
	free(buf);
	return path;
}

/* --group-by job puts the GPUs in group 'dcgm' and the two vLLM servers
 * in group 'vllm', left out as two engines: engine series are in the
 * range, and the label is at fault, as with --group-by job,host
 * (docs/fleet.md, "Grouping"). It said "no engine load series ... in the
 * range", sending the user to the metric's name and --selector. */
static void
check_group_by_job(void)
{
	char *power = matrix("gj_power.json", "\"__name__\":\"DCGM_FI_DEV_POWER_USAGE\",\"UUID\":\"GPU-0\",\"gpu\":\"0\","
	                     "\"job\":\"dcgm\",\"modelName\":\"NVIDIA A100-SXM4-80GB\"", "Hostname", "", "300");
	char *running = matrix("gj_running.json", "\"__name__\":\"vllm:num_requests_running\",\"job\":\"vllm\","
	                       "\"model_name\":\"Qwen/Qwen3-8B\"", "instance", ":8000", "8");
	char *out = path_join(dir, "gj.csv");
	const char *by[] = { "job", "job,namespace" };
	for (size_t i = 0; i < 2; i++) {
		const char *argv[] = { "wattcast", "ingest", "--prometheus-json", power, "--prometheus-json", running,
			               "--group-by", by[i], "-o", out, NULL };
		run_result r;
		ingest(argv, &r);
		CHECK_INT(r.status, 1);
		CHECK(!strstr(r.err, "no engine load series"));
		CHECK_CONTAINS(r.err, "GPU with no engine series in group 'dcgm'; engines without GPUs in 'vllm': the "
		               "hosts match, --group-by label 'job' differs ('dcgm' on GPUs, 'vllm' on engines): leave "
		               "it out");
		CHECK(!test_exists(out));
		run_result_free(&r);
	}
	free(power);
	free(running);
	free(out);
}

/* A listening socket on 127.0.0.1 (any port) and a child answering each
 * request with `reply`; the port into *port, the child's pid returned. */
static pid_t
serve(const char *reply, int *port)
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
		for (;;) {
			int c = accept(fd, NULL, NULL);
			if (c < 0)
				_exit(0);
			char req[4096];
			ssize_t got = read(c, req, sizeof req); /* the GET, in one segment on loopback */
			(void)got;
			char head[256];
			/* a reply opening "HTTP/" is the whole response */
			int n = strncmp(reply, "HTTP/", 5) == 0 ? 0 : snprintf(head, sizeof head, "HTTP/1.1 200 OK\r\n"
			                 "Content-Type: text/html\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n",
			                 strlen(reply));
			if (write(c, head, (size_t)n) < 0 || write(c, reply, strlen(reply)) < 0)
				_exit(1);
			close(c);
		}
	}
	close(fd);
	return pid;
}

/* `argv` run against a child answering every request with `reply`; the
 * child's URL is written into `url` first (64 bytes), which argv's
 * --prometheus points at. */
static void
ingest_served(const char *reply, char *url, const char *const *argv, run_result *r)
{
	int port = 0;
	pid_t pid = serve(reply, &port);
	snprintf(url, 64, "http://127.0.0.1:%d", port);
	ingest(argv, r);
	kill(pid, SIGTERM);
	waitpid(pid, NULL, 0);
}

/* An HTML page from the URL, and a scrape saved as a query_range answer:
 * each named as not the API's answer, with its first bytes. */
static void
check_not_json(void)
{
	char url[64];
	char *out = path_join(dir, "y.csv");
	const char *argv[] = { "wattcast", "ingest", "--prometheus", url, "--start", "2026-01-01T00:00:00Z",
		               "--end", "2026-01-01T01:00:00Z", "-o", out, NULL };
	run_result r;
	ingest_served("<html><body>Login required</body></html>\n", url, argv, &r);
	char want[300];
	snprintf(want, sizeof want, "wattcast ingest: %s: not JSON, so not a Prometheus query_range answer (an "
	         "exporter's metrics, which --scrapes reads, or a login or proxy page?); it begins "
	         "'<html><body>Login required</body></html>'\n", url);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, want);
	CHECK(!strstr(r.err, "expected near"));
	run_result_free(&r);
	/* a redirect (to a login page) named with its Location, not as
	 * "HTTP 302: (empty body)" */
	ingest_served("HTTP/1.1 302 Found\r\nLocation: http://sso.example/login?next=%2F\r\n"
	              "Content-Length: 0\r\nConnection: close\r\n\r\n", url, argv, &r);
	snprintf(want, sizeof want, "wattcast ingest: %s: HTTP 302 redirects to http://sso.example/login?next=%%2F "
	         "(a login page or proxy?): give --prometheus the server's own URL", url);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, want);
	run_result_free(&r);
	/* an oauth2-proxy's Location holds the escaped query: it gives way,
	 * the remedy arrives whole (it was cut at "use --prometheu...") */
	ingest_served("HTTP/1.1 302 Found\r\nLocation: https://prom.example.com/oauth2/start?rd=%2Fapi%2Fv1%2F"
	              "query_range%3Fquery%3Dlabel_replace%2528avg_over_time%2528DCGM_FI_DEV_POWER_USAGE%257B%257D"
	              "%255B14999ms%255D%2529%252C%2522__name__%2522%252C%2522DCGM_FI_DEV_POWER_USAGE%2522%252C"
	              "%2522%2522%252C%2522%2522%2529%26start%3D1767225600%26end%3D1767229200%26step%3D15\r\n"
	              "Content-Length: 0\r\nConnection: close\r\n\r\n", url, argv, &r);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, ": HTTP 302 redirects to https://prom.example.com/oauth2/start?rd=%2Fapi");
	CHECK_CONTAINS(r.err, "... (a login page or proxy?): give --prometheus the server's own URL, or save the "
	               "answers and use --prometheus-json\n");
	CHECK(r.err && strlen(r.err) <= strlen("wattcast ingest: \n") + 255);
	run_result_free(&r);

	/* the sample limit (HTTP 422) named with a remedy that works */
	ingest_served("HTTP/1.1 422 Unprocessable Entity\r\nContent-Type: application/json\r\nContent-Length: 128"
	              "\r\nConnection: close\r\n\r\n{\"status\":\"error\",\"errorType\":\"execution\",\"error\":"
	              "\"query processing would load too many samples into memory in query execution\"}", url, argv, &r);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, ": HTTP 422: the query would load more samples than the server's --query.max-samples "
	               "(default 5e7): raise it, or ingest fewer series at a time (--selector)");
	run_result_free(&r);

	/* an answer on a grid 7 s from the one asked for (a server aligning
	 * start to the step) is refused, not re-timed */
	const char *off[] = { "wattcast", "ingest", "--prometheus", url, "--start", "1767225607", "--end",
		              "1767226807", "--step", "15", "-o", out, NULL };
	ingest_served("{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[{\"metric\":"
	              "{\"__name__\":\"DCGM_FI_DEV_POWER_USAGE\",\"gpu\":\"0\",\"Hostname\":\"h1\"},\"values\":"
	              "[[1767225600,\"300\"],[1767225615,\"300\"]]}]}}", url, off, &r);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, ": a value at 2026-01-01T00:00:00.000Z, off the grid asked for (every 15 s from "
	               "2026-01-01T00:00:07.000Z): the server aligns start to the step? give --start a multiple of --step");
	run_result_free(&r);

	char *saved = test_fixture(dir, "scrape.json", "# HELP DCGM_FI_DEV_POWER_USAGE Power draw (in W).\n"
	                           "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\"} 300\n");
	const char *files[] = { "wattcast", "ingest", "--prometheus-json", saved, "-o", out, NULL };
	ingest(files, &r);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "scrape.json: not JSON, so not a Prometheus query_range answer");
	CHECK_CONTAINS(r.err, "it begins '# HELP DCGM_FI_DEV_POWER_USAGE Power dra'\n");
	run_result_free(&r);
	free(saved);
	saved = test_fixture(dir, "empty.json", "\n");
	files[3] = saved;
	ingest(files, &r);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "empty.json: an empty answer, not a Prometheus query_range answer (JSON)");
	run_result_free(&r);
	free(saved);
	/* JSON cut short keeps jansson's line and column. */
	saved = test_fixture(dir, "cut.json", "{\"status\":\"success\",\"data\":");
	files[3] = saved;
	ingest(files, &r);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "cut.json:1:");
	CHECK(!strstr(r.err, "not JSON"));
	run_result_free(&r);
	free(saved);
	free(out);
}

/* The answer's "warnings" and "infos" (a Thanos or Mimir store down, a
 * Prometheus remote read failing: "success" with the series it could
 * read) are said, naming the URL or file and the entry; from a server
 * each text once, though every query of the page answered it. They were
 * dropped without a word, a whole host's rows with them. */
static void
check_server_notes(void)
{
	const char *reply = "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[]},"
	                    "\"warnings\":[\"partial response: store 10.0.0.9:10901 unavailable\"],"
	                    "\"infos\":[\"PromQL info: a note\\nover two lines\"]}";
	char url[64];
	char *out = path_join(dir, "w.csv");
	const char *argv[] = { "wattcast", "ingest", "--prometheus", url, "--start", "2026-01-01T00:00:00Z",
		               "--end", "2026-01-01T00:10:00Z", "-o", out, NULL };
	run_result r;
	ingest_served(reply, url, argv, &r);
	char want[300];
	snprintf(want, sizeof want, "wattcast ingest: warning: %s: /warnings/0: the server warns (a partial answer "
	         "may lack series or samples): partial response: store 10.0.0.9:10901 unavailable\n", url);
	CHECK_CONTAINS(r.err, want);
	const char *first = r.err ? strstr(r.err, "/warnings/0") : NULL;
	CHECK(first && !strstr(first + 1, "/warnings/0")); /* once, not once per query */
	snprintf(want, sizeof want, "%s: /infos/0: the server notes: PromQL info: a note over two lines\n", url);
	CHECK_CONTAINS(r.err, want);
	CHECK_INT(r.status, 1); /* no series: the ingest's own refusal follows */
	run_result_free(&r);

	char *saved = test_fixture(dir, "partial.json", reply);
	const char *files[] = { "wattcast", "ingest", "--prometheus-json", saved, "-o", out, NULL };
	ingest(files, &r);
	CHECK_CONTAINS(r.err, "partial.json: /warnings/0: the server warns (a partial answer may lack series or "
	               "samples): partial response: store 10.0.0.9:10901 unavailable\n");
	CHECK_CONTAINS(r.err, "partial.json: /infos/0: the server notes: PromQL info: a note over two lines\n");
	run_result_free(&r);
	free(saved);
	free(out);
}

/* --start and --end in another unit are named as a sample time is. */
static void
check_flag_units(void)
{
	char *out = path_join(dir, "z.csv");
	const char *ms[] = { "wattcast", "ingest", "--prometheus", "http://127.0.0.1:1", "--start", "1796515781000",
		             "--end", "1796515881000", "-o", out, NULL };
	test_usage_error(ms, "--start: time 1796515781000 (seconds since the epoch) is after 2100-01-01; it "
	                 "looks like milliseconds");
	const char *us[] = { "wattcast", "ingest", "--prometheus", "http://127.0.0.1:1", "--start", "1796515781",
		             "--end", "1796515881000000", "-o", out, NULL };
	test_usage_error(us, "--end: time 1796515881000000 (seconds since the epoch) is after 2100-01-01; it "
	                 "looks like microseconds");
	const char *neither[] = { "wattcast", "ingest", "--prometheus", "http://127.0.0.1:1", "--start", "yesterday",
		                  "--end", "1796515881", "-o", out, NULL };
	test_usage_error(neither, "--start: 'yesterday' is neither RFC 3339 (2026-01-01T00:00:00Z) nor epoch seconds");
	free(out);
}

int
main(void)
{
	dir = test_tmpdir("prom_hints");
	check_no_engine();
	check_group_by_job();
	check_not_json();
	check_server_notes();
	check_flag_units();
	free(dir);
	return check_report("test_prom_hints");
}
