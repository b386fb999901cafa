/* Chrome DevTools Protocol over --remote-debugging-pipe (see cdp.h). */
#include "cdp.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* No single answer takes this long on a working machine; it only bounds a
 * hung browser so that the test ends instead of waiting for ctest. */
#define CDP_ANSWER_DEADLINE_S 60.0

struct cdp {
	pid_t pid;
	int to_fd, from_fd;      /* our ends of the two pipes */
	char *buf;               /* bytes read, not yet split into messages */
	size_t len, cap;
	long next_id;
	char session[128];       /* the page session; "" = the browser */
	int page_errors;
};

static double
now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

const char *
cdp_chromium_path(void)
{
	const char *env = getenv("WC_CHROMIUM");
	if (env && env[0])
		return access(env, X_OK) == 0 ? env : NULL;
	return access("/usr/bin/chromium", X_OK) == 0 ? "/usr/bin/chromium" : NULL;
}

/* The child: pipes on fds 3 (commands in) and 4 (answers out), output to
 * a log in the profile, then Chromium with the flags a closed machine
 * needs (no sandbox as root, no network beyond the page's own). Scrollbars
 * are hidden unless `scrollbars`: a desktop window's take width from the page. */
static void
exec_chromium(const char *chromium, const char *profile_dir, int cmd_r, int ans_w, int w, int h, int scrollbars)
{
	char user_dir[1100], size[64], log[1100];
	snprintf(user_dir, sizeof user_dir, "--user-data-dir=%s", profile_dir);
	snprintf(size, sizeof size, "--window-size=%d,%d", w, h);
	snprintf(log, sizeof log, "%s/chromium.log", profile_dir);
	int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd >= 0) {
		dup2(fd, 1);
		dup2(fd, 2);
		close(fd);
	}
	/* Move the pipe ends out of the way before placing them on 3 and 4. */
	int a = fcntl(cmd_r, F_DUPFD, 10), b = fcntl(ans_w, F_DUPFD, 10);
	dup2(a, 3);
	dup2(b, 4);
	close(a);
	close(b);
	execl(chromium, chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
	      "--no-first-run", "--disable-background-networking", "--disable-component-update",
	      "--disable-sync", "--disable-extensions", "--disable-default-apps", "--mute-audio",
	      scrollbars ? "--no-default-browser-check" : "--hide-scrollbars", "--remote-debugging-pipe", user_dir, size, "about:blank",
	      (char *)NULL);
	_exit(127);
}

static int
send_msg(cdp *c, json_t *msg)
{
	char *text = json_dumps(msg, JSON_COMPACT);
	json_decref(msg);
	if (!text)
		return -1;
	size_t n = strlen(text) + 1; /* the NUL is the separator */
	const char *p = text;
	while (n > 0) {
		ssize_t w = write(c->to_fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			free(text);
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	free(text);
	return 0;
}

/* Next message (new reference), or NULL when the deadline passed or the
 * pipe closed. */
static json_t *
read_msg(cdp *c, double deadline)
{
	for (;;) {
		char *nul = c->len ? memchr(c->buf, '\0', c->len) : NULL;
		if (nul) {
			size_t n = (size_t)(nul - c->buf);
			json_t *m = json_loadb(c->buf, n, 0, NULL);
			memmove(c->buf, nul + 1, c->len - n - 1);
			c->len -= n + 1;
			if (m)
				return m;
			continue;
		}
		double left = deadline - now_s();
		struct pollfd pfd = { .fd = c->from_fd, .events = POLLIN };
		if (left <= 0 || poll(&pfd, 1, (int)(left * 1000) + 1) <= 0)
			return NULL;
		if (c->cap - c->len < 65536) {
			char *nb = realloc(c->buf, c->cap + 262144);
			if (!nb)
				return NULL;
			c->buf = nb;
			c->cap += 262144;
		}
		ssize_t r = read(c->from_fd, c->buf + c->len, c->cap - c->len);
		if (r <= 0)
			return NULL;
		c->len += (size_t)r;
	}
}

/* Events: count what the page did wrong and print it. */
static void
note_event(cdp *c, const json_t *m)
{
	const char *method = json_string_value(json_object_get(m, "method"));
	const json_t *p = json_object_get(m, "params");
	if (!method)
		return;
	if (strcmp(method, "Runtime.exceptionThrown") == 0) {
		const json_t *d = json_object_get(p, "exceptionDetails");
		const json_t *ex = json_object_get(d, "exception");
		fprintf(stderr, "page exception: %s %s (line %lld)\n",
		        json_string_value(json_object_get(d, "text")),
		        json_string_value(json_object_get(ex, "description")),
		        (long long)json_integer_value(json_object_get(d, "lineNumber")));
		c->page_errors++;
	} else if (strcmp(method, "Log.entryAdded") == 0) {
		const json_t *e = json_object_get(p, "entry");
		const char *level = json_string_value(json_object_get(e, "level"));
		const char *source = json_string_value(json_object_get(e, "source"));
		/* A 422 answer is logged as a failed load; the page shows it. */
		if (level && strcmp(level, "error") == 0 && source && strcmp(source, "network") != 0) {
			fprintf(stderr, "page console error (%s): %s\n", source,
			        json_string_value(json_object_get(e, "text")));
			c->page_errors++;
		}
	}
}

/* Send to the browser ("" session) or the page and wait for the answer. */
static json_t *
call_in(cdp *c, const char *session, const char *method, json_t *params)
{
	long id = ++c->next_id;
	json_t *msg = json_pack("{s:I,s:s,s:o}", "id", (json_int_t)id, "method", method, "params",
	                        params ? params : json_object());
	if (session && session[0])
		json_object_set_new(msg, "sessionId", json_string(session));
	if (send_msg(c, msg) != 0) {
		fprintf(stderr, "cdp: cannot send %s\n", method);
		return NULL;
	}
	double deadline = now_s() + CDP_ANSWER_DEADLINE_S;
	for (;;) {
		json_t *m = read_msg(c, deadline);
		if (!m) {
			fprintf(stderr, "cdp: no answer to %s (browser gone or hung)\n", method);
			return NULL;
		}
		if (json_integer_value(json_object_get(m, "id")) == id) {
			json_t *res = json_incref(json_object_get(m, "result"));
			if (!res)
				fprintf(stderr, "cdp: %s: %s\n", method,
				        json_string_value(json_object_get(json_object_get(m, "error"), "message")));
			json_decref(m);
			return res;
		}
		note_event(c, m);
		json_decref(m);
	}
}

json_t *
cdp_call(cdp *c, const char *method, json_t *params)
{
	return call_in(c, c->session, method, params);
}

static int
attach_page(cdp *c, int width, int height)
{
	json_t *t = call_in(c, "", "Target.createTarget", json_pack("{s:s}", "url", "about:blank"));
	const char *target = json_string_value(json_object_get(t, "targetId"));
	json_t *a = target ? call_in(c, "", "Target.attachToTarget",
	                             json_pack("{s:s,s:b}", "targetId", target, "flatten", 1))
	                   : NULL;
	const char *sid = json_string_value(json_object_get(a, "sessionId"));
	if (sid)
		snprintf(c->session, sizeof c->session, "%s", sid);
	json_decref(a);
	json_decref(t);
	if (!sid)
		return -1;
	static const char *const enable[] = { "Page.enable", "Runtime.enable", "Log.enable" };
	for (size_t i = 0; i < sizeof enable / sizeof enable[0]; i++) {
		json_t *r = cdp_call(c, enable[i], NULL);
		if (!r)
			return -1;
		json_decref(r);
	}
	return cdp_viewport(c, width, height, 0);
}

static cdp *
launch(const char *chromium, const char *profile_dir, int width, int height, int scrollbars)
{
	int cmd[2], ans[2];
	cdp *c = calloc(1, sizeof *c);
	if (!c || pipe(cmd) != 0 || pipe(ans) != 0) {
		free(c);
		return NULL;
	}
	signal(SIGPIPE, SIG_IGN);
	c->pid = fork();
	if (c->pid == 0) {
		close(cmd[1]);
		close(ans[0]);
		exec_chromium(chromium, profile_dir, cmd[0], ans[1], width, height, scrollbars);
	}
	close(cmd[0]);
	close(ans[1]);
	c->to_fd = cmd[1];
	c->from_fd = ans[0];
	fcntl(c->to_fd, F_SETFD, FD_CLOEXEC);
	fcntl(c->from_fd, F_SETFD, FD_CLOEXEC);
	if (c->pid < 0 || attach_page(c, width, height) != 0) {
		fprintf(stderr, "cdp: could not start %s (see %s/chromium.log)\n", chromium, profile_dir);
		cdp_close(c);
		return NULL;
	}
	return c;
}

cdp *
cdp_launch(const char *chromium, const char *profile_dir, int width, int height)
{
	return launch(chromium, profile_dir, width, height, 0);
}

cdp *
cdp_launch_scrollbars(const char *chromium, const char *profile_dir, int width, int height)
{
	return launch(chromium, profile_dir, width, height, 1);
}

void
cdp_close(cdp *c)
{
	if (!c)
		return;
	if (c->pid > 0) {
		json_decref(call_in(c, "", "Browser.close", NULL));
		close(c->to_fd);
		close(c->from_fd);
		/* Give it time to exit on its own, then make sure. */
		int status;
		double deadline = now_s() + 10;
		while (waitpid(c->pid, &status, WNOHANG) == 0) {
			if (now_s() > deadline) {
				kill(c->pid, SIGKILL);
				waitpid(c->pid, &status, 0);
				break;
			}
			usleep(20000);
		}
	} else {
		close(c->to_fd);
		close(c->from_fd);
	}
	free(c->buf);
	free(c);
}

json_t *
cdp_eval(cdp *c, const char *expr)
{
	json_t *r = cdp_call(c, "Runtime.evaluate",
	                     json_pack("{s:s,s:b,s:b}", "expression", expr, "awaitPromise", 1,
	                               "returnByValue", 1));
	if (!r)
		return NULL;
	const json_t *ex = json_object_get(r, "exceptionDetails");
	if (ex) {
		fprintf(stderr, "cdp: evaluating %s: %s\n", expr,
		        json_string_value(json_object_get(json_object_get(ex, "exception"), "description")));
		json_decref(r);
		return NULL;
	}
	json_t *v = json_object_get(json_object_get(r, "result"), "value");
	v = v ? json_incref(v) : json_null();
	json_decref(r);
	return v;
}

char *
cdp_eval_str(cdp *c, const char *expr)
{
	json_t *v = cdp_eval(c, expr);
	char *s;
	if (json_is_string(v))
		s = strdup(json_string_value(v));
	else
		s = v ? json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT) : strdup("");
	json_decref(v);
	return s ? s : strdup("");
}

int
cdp_wait(cdp *c, const char *expr, double seconds)
{
	double deadline = now_s() + seconds;
	char wrapped[4096];
	snprintf(wrapped, sizeof wrapped, "!!(%s)", expr);
	for (;;) {
		json_t *v = cdp_eval(c, wrapped);
		int ok = json_is_true(v);
		json_decref(v);
		if (ok)
			return 1;
		if (now_s() > deadline) {
			fprintf(stderr, "cdp: still false after %.0f s: %s\n", seconds, expr);
			return 0;
		}
		usleep(50000);
	}
}

int
cdp_navigate(cdp *c, const char *url)
{
	json_t *r = cdp_call(c, "Page.navigate", json_pack("{s:s}", "url", url));
	if (!r || json_object_get(r, "errorText")) {
		fprintf(stderr, "cdp: cannot open %s: %s\n", url,
		        r ? json_string_value(json_object_get(r, "errorText")) : "no answer");
		json_decref(r);
		return -1;
	}
	json_decref(r);
	return cdp_wait(c, "document.readyState === 'complete' && location.href !== 'about:blank'",
	                CDP_ANSWER_DEADLINE_S) ? 0 : -1;
}

void
cdp_type(cdp *c, const char *text)
{
	json_decref(cdp_call(c, "Input.insertText", json_pack("{s:s}", "text", text)));
}

void
cdp_key(cdp *c, const char *key)
{
	int enter = strcmp(key, "Enter") == 0;
	const char *types[] = { "keyDown", "keyUp" };
	for (int i = 0; i < 2; i++) {
		json_t *p = json_pack("{s:s,s:s,s:s,s:i}", "type", types[i], "key", key, "code", key,
		                      "windowsVirtualKeyCode", enter ? 13 : 9);
		if (i == 0 && enter)
			json_object_set_new(p, "text", json_string("\r"));
		json_decref(cdp_call(c, "Input.dispatchKeyEvent", p));
	}
}

int
cdp_viewport(cdp *c, int width, int height, int mobile)
{
	json_t *r = cdp_call(c, "Emulation.setDeviceMetricsOverride",
	                     json_pack("{s:i,s:i,s:f,s:b}", "width", width, "height", height,
	                               "deviceScaleFactor", 1.0, "mobile", mobile));
	int rc = r ? 0 : -1;
	json_decref(r);
	return rc;
}

int
cdp_page_errors(const cdp *c)
{
	return c->page_errors;
}
