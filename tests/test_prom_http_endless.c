/*
 * A Prometheus server whose answer does not end within --timeout (slow,
 * or endless): it answered, so the message says what came and what asks
 * for less (docs/cli.md, "ingest from Prometheus"). It said "no answer
 * within 5 s (--timeout S waits longer): ... with 176520060 bytes
 * received". A server that never answers is still "no answer"
 * (tests/test_prom_inputs.c).
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

/* Answer the first request on `fd` with a 200 and a query_range body
 * that never ends, until the client hangs up (at most 20 s). */
static void
serve_endless(int fd)
{
	signal(SIGPIPE, SIG_IGN);
	int c = accept(fd, NULL, NULL);
	if (c < 0)
		_exit(1);
	char req[4096];
	if (recv(c, req, sizeof req, 0) <= 0)
		_exit(1);
	static const char head[] = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n"
	                           "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[";
	static const char item[] = "{\"metric\":{\"__name__\":\"x\"},\"values\":[]},";
	if (send(c, head, sizeof head - 1, 0) < 0)
		_exit(1);
	for (int k = 0; k < 2000; k++) {
		for (int j = 0; j < 100; j++)
			if (send(c, item, sizeof item - 1, 0) < 0)
				_exit(0);
		usleep(10000);
	}
	_exit(0);
}

int
main(void)
{
	char *dir = test_tmpdir("prom_http_endless");
	char *out = path_join(dir, "out.csv");
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t sl = sizeof sa;
	CHECK(fd >= 0 && bind(fd, (struct sockaddr *)&sa, sizeof sa) == 0 && listen(fd, 8) == 0 &&
	      getsockname(fd, (struct sockaddr *)&sa, &sl) == 0);
	pid_t server = fork();
	CHECK(server >= 0);
	if (server == 0)
		serve_endless(fd);
	close(fd);
	char url[64];
	snprintf(url, sizeof url, "http://127.0.0.1:%d", ntohs(sa.sin_port));
	const char *argv[] = { "wattcast", "ingest", "--prometheus", url, "--start", "1767225600", "--end",
		               "1767229199", "--timeout", "0.5", "-o", out, NULL };
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, ": the answer (HTTP 200, ");
	CHECK_CONTAINS(r.err, " bytes) did not end within 0.5 s: --timeout S waits longer for a slow server; a "
	               "shorter range or longer --step asks for less");
	CHECK(r.err && !strstr(r.err, "no answer"));
	run_result_free(&r);
	kill(server, SIGTERM);
	waitpid(server, NULL, 0);
	free(out);
	free(dir);
	return check_report("test_prom_http_endless");
}
