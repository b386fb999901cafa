/*
 * A real Prometheus for tests (tests/support/prom_server.h), shared by the
 * tests that query one.
 */
#include "tests/support/prom_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/support/support.h"

static pid_t server = -1;

void
test_prom_stop(void)
{
	if (server > 0) {
		kill(server, SIGTERM);
		waitpid(server, NULL, 0);
		server = -1;
	}
}

static void
on_signal(int sig)
{
	if (server > 0)
		kill(server, SIGTERM);
	_exit(128 + sig);
}

int
test_prom_run(const char *const *argv, const char *out)
{
	pid_t p = fork();
	if (p == 0) {
		int fd = open(out ? out : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int nul = open("/dev/null", O_WRONLY);
		if (fd >= 0)
			dup2(fd, 1);
		if (nul >= 0)
			dup2(nul, 2);
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	int st = 0;
	if (p < 0 || waitpid(p, &st, 0) < 0)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static int
have_prometheus(void)
{
	return access("/usr/bin/prometheus", X_OK) == 0 && access("/usr/bin/promtool", X_OK) == 0;
}

int
test_prom_ensure(void)
{
	if (have_prometheus())
		return 1;
	const char *sudo = geteuid() == 0 ? "" : "sudo -n ";
	char cmd[512];
	snprintf(cmd, sizeof cmd, "(%sapt-get install -y -q --no-install-recommends prometheus || "
	         "(%sapt-get update -q && %sapt-get install -y -q --no-install-recommends prometheus)) "
	         ">/dev/null 2>&1", sudo, sudo, sudo);
	fprintf(stderr, "installing Debian's prometheus package\n");
	if (system(cmd) != 0 || !have_prometheus()) {
		printf("SKIP: /usr/bin/prometheus and /usr/bin/promtool are missing and Debian's "
		       "'prometheus' package could not be installed\n");
		return 0;
	}
	return 1;
}

int
test_prom_free_port(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof a;
	int s = socket(AF_INET, SOCK_STREAM, 0), port = 0;
	if (s >= 0 && bind(s, (struct sockaddr *)&a, sizeof a) == 0 &&
	    getsockname(s, (struct sockaddr *)&a, &len) == 0)
		port = ntohs(a.sin_port);
	if (s >= 0)
		close(s);
	return port;
}

int
test_prom_start(const char *dir, int port, char *url, size_t size)
{
	static int guarded;
	if (!guarded) {
		guarded = 1;
		atexit(test_prom_stop);
		signal(SIGTERM, on_signal);
		signal(SIGINT, on_signal);
	}
	char *cfg = path_join(dir, "prometheus.yml"), *log = path_join(dir, "prometheus.log");
	char a_cfg[600], a_tsdb[600], a_listen[64];
	write_text(cfg, "global:\n  scrape_interval: 1m\n");
	snprintf(a_cfg, sizeof a_cfg, "--config.file=%s", cfg);
	snprintf(a_tsdb, sizeof a_tsdb, "--storage.tsdb.path=%s/tsdb", dir);
	snprintf(a_listen, sizeof a_listen, "--web.listen-address=127.0.0.1:%d", port);
	snprintf(url, size, "http://127.0.0.1:%d", port);
	server = fork();
	if (server == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		execl("/usr/bin/prometheus", "prometheus", a_cfg, a_tsdb, a_listen,
		      "--storage.tsdb.retention.time=100y", (char *)NULL);
		_exit(127);
	}
	free(cfg);
	free(log);
	char ready[128];
	snprintf(ready, sizeof ready, "%s/-/ready", url);
	for (int i = 0; i < 240 && server > 0; i++) {
		const char *curl[] = { "curl", "-sf", ready, NULL };
		if (test_prom_run(curl, NULL) == 0)
			return 1;
		if (waitpid(server, NULL, WNOHANG) == server) {
			server = -1;
			break;
		}
		usleep(250000);
	}
	fprintf(stderr, "prometheus did not become ready (see %s/prometheus.log)\n", dir);
	return 0;
}

int
test_prom_serve(const char *dir, const char *om, char *url, size_t size)
{
	char *tsdb = path_join(dir, "tsdb");
	const char *promtool[] = { "promtool", "tsdb", "create-blocks-from", "openmetrics", om, tsdb, NULL };
	CHECK_INT(test_prom_run(promtool, NULL), 0);
	free(tsdb);
	return test_prom_start(dir, test_prom_free_port(), url, size);
}
