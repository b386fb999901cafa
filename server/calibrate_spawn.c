/*
 * The process POST /v1/calibrate estimates in (docs/architecture.md,
 * "The calibration worker"): the server never calls fit/, so the route
 * writes the calibration's inputs into a private folder and runs
 * `wattcast calibrate --http-worker FOLDER`, which writes its answer
 * there. Here: the folder, the child's start, its wall-time bound and its
 * reaping -- every child is waited for, whatever happens, so none is left
 * a zombie.
 */
#define _GNU_SOURCE /* posix_spawn_file_actions_addclosefrom_np */
#include "requests_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

int
wc__calibrate_dir_make(char *dir, size_t cap, wc_api_error *e)
{
	const char *tmp = getenv("TMPDIR");
	int n = snprintf(dir, cap, "%s/wattcast-calibrate-XXXXXX", tmp && tmp[0] == '/' ? tmp : "/tmp");
	/* mkdtemp makes it 0700: the inputs are the operator's parameters. */
	if (n < 0 || (size_t)n >= cap || !mkdtemp(dir)) {
		wc_api_error_set(e, 500, "calibration_failed", NULL, "calibration: cannot make a private folder (%s): %s",
		                 n > 0 && (size_t)n < cap ? dir : "TMPDIR too long", strerror(errno));
		dir[0] = '\0';
		return -1;
	}
	return 0;
}

void
wc__calibrate_dir_remove(const char *dir)
{
	DIR *d = opendir(dir);
	if (d) {
		for (struct dirent *de; (de = readdir(d)) != NULL;)
			if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
				unlinkat(dirfd(d), de->d_name, 0);
		closedir(d);
	}
	rmdir(dir);
}

static long
elapsed_ms(const struct timespec *t0)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (long)(now.tv_sec - t0->tv_sec) * 1000 + (now.tv_nsec - t0->tv_nsec) / 1000000;
}

/* Start the worker: stdin and stdout /dev/null, stderr into the folder
 * (worker.err, quoted when it fails), no descriptor of the server's
 * (its sockets), no signal blocked or ignored that the server blocks or
 * ignores. */
static int
start(const wc_server *srv, const char *dir, pid_t *pid)
{
	char err_path[600];
	char *argv[] = { srv->calibrate_worker, "calibrate", "--http-worker", (char *)dir, NULL };
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t none, dflt;
	snprintf(err_path, sizeof err_path, "%s/worker.err", dir);
	sigemptyset(&none);
	sigemptyset(&dflt);
	sigaddset(&dflt, SIGPIPE);
	sigaddset(&dflt, SIGINT);
	sigaddset(&dflt, SIGTERM);
	sigaddset(&dflt, SIGHUP);
	sigaddset(&dflt, SIGCHLD);
	if (posix_spawn_file_actions_init(&fa) != 0)
		return ENOMEM;
	if (posix_spawnattr_init(&attr) != 0) {
		posix_spawn_file_actions_destroy(&fa);
		return ENOMEM;
	}
	int rc = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	if (!rc)
		rc = posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	if (!rc)
		rc = posix_spawn_file_actions_addopen(&fa, 2, err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (!rc)
		rc = posix_spawn_file_actions_addclosefrom_np(&fa, 3);
	if (!rc)
		rc = posix_spawnattr_setsigmask(&attr, &none);
	if (!rc)
		rc = posix_spawnattr_setsigdefault(&attr, &dflt);
	/* Its own process group: a Ctrl-C at the terminal (SIGINT to the
	 * foreground group) stops the server gracefully, which waits for the
	 * calibration, instead of killing the worker under it. */
	if (!rc)
		rc = posix_spawnattr_setpgroup(&attr, 0);
	if (!rc)
		rc = posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);
	if (!rc)
		rc = posix_spawn(pid, srv->calibrate_worker, &fa, &attr, argv, environ);
	posix_spawnattr_destroy(&attr);
	posix_spawn_file_actions_destroy(&fa);
	return rc;
}

int
wc__calibrate_spawn(const wc_server *srv, const char *dir, int *status, wc_api_error *e)
{
	struct timespec t0, nap = { 0, 1000000 };
	pid_t pid;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int rc = start(srv, dir, &pid);
	if (rc != 0) {
		wc_api_error_set(e, 500, "calibration_failed", NULL, "calibration: the worker '%.120s' could not be "
		                 "started: %s", srv->calibrate_worker, strerror(rc));
		return -1;
	}
	for (;;) {
		pid_t w = waitpid(pid, status, WNOHANG);
		if (w == pid)
			return 0;
		if (w < 0 && errno != EINTR) {
			/* Reaped by someone else (SIGCHLD ignored by the embedding
			 * program): its answer cannot be trusted. */
			wc_api_error_set(e, 500, "calibration_failed", NULL, "calibration: the worker's exit was lost: %s",
			                 strerror(errno));
			return -1;
		}
		if (elapsed_ms(&t0) >= srv->calibrate_timeout_ms) {
			kill(pid, SIGKILL);
			while (waitpid(pid, status, 0) < 0 && errno == EINTR)
				;
			wc_api_error_set(e, 504, "calibration_timeout", NULL, "calibration: stopped after %d ms, the "
			                 "server's limit for one calibration (fewer runs or a smaller bootstrap finish "
			                 "sooner)", srv->calibrate_timeout_ms);
			return -1;
		}
		/* Polled: a calibration takes tens of milliseconds to minutes, so
		 * 1 to 16 ms is no cost, and no SIGCHLD handler is needed. */
		nanosleep(&nap, NULL);
		if (nap.tv_nsec < 16000000)
			nap.tv_nsec *= 2;
	}
}
