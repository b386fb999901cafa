/*
 * The body deadline on the wall clock (docs/http-api.md, "Limits"): a
 * request's body must be complete request_timeout_ms after its headers,
 * however it trickles in. CivetWeb's mg_read returns only when its buffer
 * is full, the body has ended or nothing came for a whole I/O timeout, so
 * a client that sends a byte every half second keeps a single read going
 * for as long as it likes; a check between reads never runs. A watchdog
 * thread therefore shuts the reading side of an overdue connection's
 * socket (shutdown(SHUT_RD)): the read in progress returns at once, and
 * the 408 can still be written on the sending side.
 *
 * CivetWeb does not hand out a connection's socket, so the watchdog finds
 * it among the process's descriptors by its two ends (the client's
 * address and port, the server's port), which name one open TCP
 * connection. It does so only for an overdue body, under the lock the
 * reader needs to disarm: the socket cannot be closed meanwhile.
 */
#include "http_internal.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <civetweb.h>

typedef struct {
	int used, fired;
	struct timespec due;         /* CLOCK_MONOTONIC */
	char addr[48];               /* the client's, as CivetWeb prints it */
	int remote_port, local_port;
} watch_slot;

struct wc_watchdog {
	pthread_mutex_t lock;
	pthread_cond_t wake;         /* on CLOCK_MONOTONIC */
	pthread_t thread;
	int stop;
	int n;
	watch_slot *slot;
};

static int
before(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

/* Is `fd` the TCP connection between addr:remote_port and our local_port? */
static int
is_connection(int fd, const watch_slot *s)
{
	struct sockaddr_storage local, peer;
	socklen_t ll = sizeof local, pl = sizeof peer;
	char host[NI_MAXHOST];
	if (getsockname(fd, (struct sockaddr *)&local, &ll) != 0 ||
	    getpeername(fd, (struct sockaddr *)&peer, &pl) != 0 || local.ss_family != peer.ss_family)
		return 0;
	int lport = local.ss_family == AF_INET ? ntohs(((struct sockaddr_in *)&local)->sin_port)
	            : local.ss_family == AF_INET6 ? ntohs(((struct sockaddr_in6 *)&local)->sin6_port) : -1;
	int pport = peer.ss_family == AF_INET ? ntohs(((struct sockaddr_in *)&peer)->sin_port)
	            : ntohs(((struct sockaddr_in6 *)&peer)->sin6_port);
	if (lport != s->local_port || pport != s->remote_port)
		return 0;
	return getnameinfo((struct sockaddr *)&peer, pl, host, sizeof host, NULL, 0, NI_NUMERICHOST) == 0 &&
	       strcmp(host, s->addr) == 0;
}

/* Shut the reading side of the connection of `s`; called with the lock. */
static void
cut(const watch_slot *s)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	if (!d)
		return;
	while ((e = readdir(d)) != NULL) {
		char *end;
		long fd = strtol(e->d_name, &end, 10);
		if (*end != '\0' || end == e->d_name || fd == dirfd(d))
			continue;
		if (is_connection((int)fd, s)) {
			shutdown((int)fd, SHUT_RD);
			break;
		}
	}
	closedir(d);
}

static void *
watch(void *arg)
{
	wc_watchdog *w = arg;
	pthread_mutex_lock(&w->lock);
	while (!w->stop) {
		struct timespec now, next;
		clock_gettime(CLOCK_MONOTONIC, &now);
		next = now;
		next.tv_sec += 1; /* nothing armed: look again in a second */
		for (int i = 0; i < w->n; i++) {
			watch_slot *s = &w->slot[i];
			if (!s->used || s->fired)
				continue;
			if (!before(&now, &s->due)) {
				cut(s);
				s->fired = 1;
			} else if (before(&s->due, &next)) {
				next = s->due;
			}
		}
		pthread_cond_timedwait(&w->wake, &w->lock, &next);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

int
wc_watchdog_start(wc_server *srv)
{
	wc_watchdog *w = calloc(1, sizeof *w);
	pthread_condattr_t ca;
	if (!w || !(w->slot = calloc((size_t)srv->threads, sizeof *w->slot))) {
		free(w);
		return -1;
	}
	w->n = srv->threads;
	pthread_mutex_init(&w->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&w->wake, &ca);
	pthread_condattr_destroy(&ca);
	if (pthread_create(&w->thread, NULL, watch, w) != 0) {
		pthread_cond_destroy(&w->wake);
		pthread_mutex_destroy(&w->lock);
		free(w->slot);
		free(w);
		return -1;
	}
	srv->watchdog = w;
	return 0;
}

void
wc_watchdog_stop(wc_server *srv)
{
	wc_watchdog *w = srv->watchdog;
	if (!w)
		return;
	pthread_mutex_lock(&w->lock);
	w->stop = 1;
	pthread_cond_signal(&w->wake);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	pthread_cond_destroy(&w->wake);
	pthread_mutex_destroy(&w->lock);
	free(w->slot);
	free(w);
	srv->watchdog = NULL;
}

int
wc_watchdog_arm(wc_request *req)
{
	wc_watchdog *w = req->srv->watchdog;
	const struct mg_request_info *ri = mg_get_request_info(req->conn);
	int slot = -1;
	if (!w || !ri)
		return -1;
	pthread_mutex_lock(&w->lock);
	for (int i = 0; i < w->n && slot < 0; i++)
		if (!w->slot[i].used)
			slot = i;
	if (slot >= 0) {
		watch_slot *s = &w->slot[slot];
		long long ns = (long long)req->started.tv_nsec + 1000000LL * req->srv->request_timeout_ms;
		s->due.tv_sec = req->started.tv_sec + (time_t)(ns / 1000000000LL);
		s->due.tv_nsec = (long)(ns % 1000000000LL);
		snprintf(s->addr, sizeof s->addr, "%s", ri->remote_addr);
		s->remote_port = ri->remote_port;
		s->local_port = ri->server_port;
		s->fired = 0;
		s->used = 1;
		pthread_cond_signal(&w->wake);
	}
	pthread_mutex_unlock(&w->lock);
	return slot;
}

void
wc_watchdog_disarm(wc_request *req, int slot)
{
	wc_watchdog *w = req->srv->watchdog;
	if (!w || slot < 0)
		return;
	pthread_mutex_lock(&w->lock);
	w->slot[slot].used = 0;
	pthread_mutex_unlock(&w->lock);
}
