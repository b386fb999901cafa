/*
 * A WebSocket upgrade (docs/http-api.md, "Errors"): `Connection: Upgrade`
 * with `Upgrade: websocket` took CivetWeb down its no-WebSocket-handler
 * path, whose frames and then the server's own error path ran off the
 * worker's stack (100 KiB, 60 KiB of it OpenBLAS's thread-local storage):
 * one such request, on any path and method, killed the whole server
 * (SIGSEGV). Now it is 400 bad_request in the API's shape, naming the
 * Upgrade header, the connection closed, and the server keeps answering.
 * An `Upgrade` the server may ignore (h2c, RFC 9110, 7.8) is answered as
 * if it were not there.
 *
 * The server is `wattcast serve` itself, a child process: this test's own
 * executable does not load OpenBLAS, so its workers have 60 KiB more stack
 * and the overflow would not show here.
 */
#include "data/data.h"
#include "server/server.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

#include <signal.h>
#include <sys/wait.h>
#include <time.h>

static int port;

/* `wattcast serve` on a free port with 4 workers, its port read from the
 * first line it prints; its pid, or -1. */
static pid_t
spawn_server(void)
{
	int po[2];
	if (pipe(po))
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		dup2(po[1], 1);
		close(po[0]);
		close(po[1]);
		const char *bin = test_env("WATTCAST_BIN", "wattcast");
		execl(bin, bin, "serve", "--listen", "127.0.0.1:0", "--threads", "4", (char *)NULL);
		_exit(127);
	}
	close(po[1]);
	FILE *out = fdopen(po[0], "r");
	char line[512] = "";
	/* "wattcast serve: listening on http://127.0.0.1:PORT (...)" */
	const char *at = out && fgets(line, sizeof line, out) ? strstr(line, "127.0.0.1:") : NULL;
	if (!at || sscanf(at, "127.0.0.1:%d", &port) != 1) {
		fprintf(stderr, "no listening line from wattcast serve: \"%s\"\n", line);
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		pid = -1;
	}
	if (out)
		fclose(out);
	else
		close(po[0]);
	return pid;
}

/* Send `raw` on a fresh connection and read until the server closes. */
static void
exchange(const char *raw, char *answer, size_t cap)
{
	answer[0] = '\0';
	int fd = raw_connect(port);
	CHECK(fd >= 0);
	if (fd < 0)
		return;
	raw_send(fd, raw, strlen(raw));
	raw_read_all(fd, answer, cap);
	close(fd);
}

/* One 400 bad_request as JSON naming the Upgrade header, closed. */
static void
expect_upgrade_refused(const char *what, const char *raw)
{
	static char answer[16384];
	exchange(raw, answer, sizeof answer);
	const char *body = strstr(answer, "\r\n\r\n");
	json_t *j = body ? json_loads(body + 4, 0, NULL) : NULL;
	json_t *e = json_object_get(j, "error");
	const char *code = json_string_value(json_object_get(e, "code"));
	const char *msg = json_string_value(json_object_get(e, "message"));
	int ok = strncmp(answer, "HTTP/1.1 400 ", 13) == 0 && strstr(answer, "Content-Type: application/json") &&
	         strstr(answer, "Connection: close\r\n") && json_integer_value(json_object_get(e, "status")) == 400 &&
	         code && strcmp(code, "bad_request") == 0 && msg && strstr(msg, "Upgrade: websocket") &&
	         strstr(msg, "plain HTTP/1.0 and HTTP/1.1") && /* it answers 1.0 too: "1.1 only" was wrong */
	         strlen(msg) <= 255;
	if (!ok)
		fprintf(stderr, "%s: expected a 400 bad_request naming the upgrade, got:\n%.1200s\n", what, answer);
	CHECK(ok);
	json_decref(j);
}

static void
expect_health(CURL *h, const char *after)
{
	http_reply r;
	http_get(h, url("/v1/health"), &r);
	if (r.status != 200)
		fprintf(stderr, "GET /v1/health after %s: %ld\n", after, r.status);
	CHECK_INT(r.status, 200);
	http_reply_free(&r);
}

int
main(void)
{
	signal(SIGPIPE, SIG_IGN);
	curl_global_init(CURL_GLOBAL_DEFAULT);
	pid_t pid = spawn_server();
	CHECK(pid > 0);
	if (pid <= 0)
		return check_report("test_server_upgrade");
	http_set_base(port);
	CURL *h = curl_easy_init();

	static const struct {
		const char *what, *raw;
	} upgrades[] = {
		{ "the least upgrade", "GET /v1/health HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\n"
		                       "Upgrade: websocket\r\n\r\n" },
		{ "a full handshake", "GET /v1/health HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
		                      "Connection: keep-alive, Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
		                      "Sec-WebSocket-Version: 13\r\n\r\n" },
		{ "no Host, unknown path", "GET /nowhere HTTP/1.1\r\nConnection: upgrade\r\nUpgrade: WebSocket\r\n\r\n" },
		{ "a POST with a body", "POST /v1/predict/inference HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
		                        "Connection: Upgrade\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}" },
	};
	/* every worker, more than once: a crash on any one ends the process */
	for (int round = 0; round < 3; round++)
		for (size_t i = 0; i < sizeof upgrades / sizeof upgrades[0]; i++) {
			expect_upgrade_refused(upgrades[i].what, upgrades[i].raw);
			expect_health(h, upgrades[i].what);
		}

	/* an upgrade the server does not offer and may ignore */
	static char answer[16384];
	exchange("GET /v1/health HTTP/1.1\r\nHost: x\r\nUpgrade: h2c\r\nConnection: Upgrade, close\r\n\r\n", answer,
	         sizeof answer);
	CHECK(strncmp(answer, "HTTP/1.1 200 ", 13) == 0 && strstr(answer, "\"params_version\""));

	curl_easy_cleanup(h);
	/* still alive, and it stops as asked */
	int status = 0;
	CHECK_INT(waitpid(pid, &status, WNOHANG), 0);
	kill(pid, SIGTERM);
	waitpid(pid, &status, 0);
	if (WIFSIGNALED(status) && WTERMSIG(status) != SIGTERM)
		fprintf(stderr, "wattcast serve died of signal %d\n", WTERMSIG(status));
	CHECK(WIFEXITED(status) || WTERMSIG(status) == SIGTERM);
	curl_global_cleanup();
	return check_report("test_server_upgrade");
}
