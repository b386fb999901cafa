/*
 * `wattcast serve` as a child process: SIGHUP with a new parameter file
 * changes params_version while four load threads keep requesting and no
 * request fails; a request in flight during the swap finishes on the old
 * set; a broken file on SIGHUP is refused with a log line and the old set
 * keeps serving; SIGTERM drains (new requests 503, the one in flight is
 * answered, further signals change nothing) and the process exits 0.
 *
 * Nothing here is timed: every wait polls for a state and only gives up
 * after a generous bound (a hung server fails instead of blocking ctest).
 */
#include "data/data.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/wait.h>
#include <time.h>

#define N_LOAD 4
#define WAIT_STEPS 60000 /* x 1 ms: a bound, never an expectation */

static int port;
static pid_t child;
static char v_a[17], v_b[17];
static atomic_int stop_load;
static atomic_long n_ok, n_fail, n_a, n_b, n_other;

/* Sleep between polls; -1 once the server process is gone, so a crash
 * fails the test at once instead of after every wait's bound. */
static int
pause_ms(long ms)
{
	struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&t, NULL);
	if (child > 0 && waitpid(child, NULL, WNOHANG) == child) {
		fprintf(stderr, "the server process died\n");
		child = -1;
	}
	return child < 0 ? -1 : 0;
}

/* Wait until *v >= target; 0 when reached. */
static int
wait_count(atomic_long *v, long target)
{
	for (int i = 0; i < WAIT_STEPS; i++) {
		if (atomic_load(v) >= target)
			return 0;
		if (pause_ms(1) < 0)
			return -1;
	}
	return -1;
}

static void *
load_thread(void *arg)
{
	CURL *c = curl_easy_init();
	const char *body = arg;
	while (!atomic_load(&stop_load)) {
		http_reply r;
		http_post_json(c, url("/v1/predict/inference"), body, &r);
		const char *v = json_string_value(json_object_get(r.json, "params_version"));
		if (r.status != 200 || !v) {
			atomic_fetch_add(&n_fail, 1);
			fprintf(stderr, "load: %ld %s\n", r.status, r.body ? r.body : "");
		} else {
			atomic_fetch_add(&n_ok, 1);
			atomic_fetch_add(strcmp(v, v_a) == 0 ? &n_a : strcmp(v, v_b) == 0 ? &n_b : &n_other, 1);
		}
		http_reply_free(&r);
	}
	curl_easy_cleanup(c);
	return NULL;
}

/* GET a route on a fresh connection. */
static long
get(const char *path, http_reply *r)
{
	CURL *c = curl_easy_init();
	long s = http_get(c, url(path), r);
	curl_easy_cleanup(c);
	return s;
}

static int
health_version_is(const char *want)
{
	http_reply r;
	int same = 0;
	for (int i = 0; i < WAIT_STEPS / 10 && !same; i++) {
		get("/v1/health", &r);
		const char *v = json_string_value(json_object_get(r.json, "params_version"));
		same = v && strcmp(v, want) == 0;
		http_reply_free(&r);
		if (!same && pause_ms(10) < 0)
			return 0;
	}
	return same;
}

static double
metric(const char *series)
{
	http_reply r;
	char needle[200];
	double v = -1;
	get("/metrics", &r);
	snprintf(needle, sizeof needle, "\n%s ", series);
	const char *p = r.body ? strstr(r.body, needle) : NULL;
	if (p)
		v = strtod(p + strlen(needle), NULL);
	http_reply_free(&r);
	return v;
}

/* Wait until the server reports at least `n` requests inside handlers
 * (the /metrics request itself is one of them). */
static int
wait_in_flight(int n)
{
	for (int i = 0; i < WAIT_STEPS / 10; i++) {
		if (metric("wattcast_http_requests_in_flight") >= n)
			return 0;
		if (pause_ms(10) < 0)
			return -1;
	}
	return -1;
}

/* A request whose last body byte is held back: the server sits in the
 * handler, holding the parameter state it started with. */
static int
partial_request(const char *body)
{
	char head[256];
	int fd = raw_connect(port);
	if (fd < 0)
		return -1;
	snprintf(head, sizeof head,
	         "POST /v1/predict/inference HTTP/1.1\r\nHost: 127.0.0.1\r\n"
	         "Content-Type: application/json\r\nContent-Length: %zu\r\n\r\n", strlen(body));
	if (raw_send(fd, head, strlen(head)) != 0 || raw_send(fd, body, strlen(body) - 1) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Send the last byte and read the whole answer. */
static void
finish_request(int fd, const char *body, char *answer, size_t cap)
{
	answer[0] = '\0';
	if (raw_send(fd, body + strlen(body) - 1, 1) == 0) {
		shutdown(fd, SHUT_WR);
		raw_read_all(fd, answer, cap);
	}
	close(fd);
}

/* Collects the child's stderr without blocking. */
typedef struct {
	int fd;
	char text[16384];
	size_t len;
} errlog;

static int
errlog_wait_for(errlog *l, const char *needle)
{
	for (int i = 0; i < WAIT_STEPS / 10; i++) {
		struct pollfd p = { l->fd, POLLIN, 0 };
		if (strstr(l->text, needle))
			return 0;
		if (child < 0)
			break;
		if (poll(&p, 1, 10) > 0) {
			ssize_t r = read(l->fd, l->text + l->len, sizeof l->text - 1 - l->len);
			if (r <= 0)
				return strstr(l->text, needle) ? 0 : -1;
			l->len += (size_t)r;
			l->text[l->len] = '\0';
		}
	}
	return strstr(l->text, needle) ? 0 : -1;
}

static void
save_params(const char *path, const wc_params *p, char version[17])
{
	wc_error err;
	CHECK_INT(wc_params_save_file(path, p, &err), WC_OK);
	CHECK_INT(wc_params_fingerprint(p, version, &err), WC_OK);
}

/* The paper profile with bootstrap draws of theta[A100] centred on
 * `centre`: two such sets differ in version and interval. */
static void
params_with_draws(wc_params *p, const char *name, double centre)
{
	wc_error err;
	char names[1][WC_LABEL_MAX] = { "theta[A100]" };
	double t[51];
	wc_params_default(p);
	snprintf(p->name, sizeof p->name, "%s", name);
	p->levels[0].theta.source = WC_SRC_FITTED;
	p->levels[0].theta.value = centre;
	for (int i = 0; i <= 50; i++)
		t[i] = centre - 0.25 + i * 0.01;
	CHECK_INT(wc_params_set_draws(p, 51, 1, (const char (*)[WC_LABEL_MAX])names, t, &err), WC_OK);
}

static pid_t
spawn_server(const char *params_path, int *out_fd, int *err_fd)
{
	int po[2], pe[2];
	if (pipe(po) || pipe(pe))
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		dup2(po[1], 1);
		dup2(pe[1], 2);
		close(po[0]); close(po[1]); close(pe[0]); close(pe[1]);
		const char *bin = test_env("WATTCAST_BIN", "wattcast");
		execl(bin, bin, "serve", "--params", params_path, "--listen", "127.0.0.1:0",
		      "--threads", "16", (char *)NULL);
		_exit(127);
	}
	close(po[1]);
	close(pe[1]);
	*out_fd = po[0];
	*err_fd = pe[0];
	return pid;
}

/* The lines of a reload that drops, adds and changes profiles: paired
 * by their file, each named with its versions. */
static void
profile_changes(void)
{
	const wc_server_profile before[] = { { "measured", "aaaaaaaaaaaaaaaa", "m.json" },
		                             { "paper", "bbbbbbbbbbbbbbbb", "p.json" },
		                             { "old", "cccccccccccccccc", "o.json" } };
	const wc_server_profile after[] = { { "measured", "dddddddddddddddd", "m.json" },
		                            { "paper", "bbbbbbbbbbbbbbbb", "p.json" },
		                            { "new", "eeeeeeeeeeeeeeee", "n.json" } };
	char buf[1024];
	wc_server_profile_changes(before, 3, after, 3, buf, sizeof buf);
	static const char want[] = "profile 'measured' (m.json): params dddddddddddddddd (was aaaaaaaaaaaaaaaa)\n"
	                           "profile 'old' (o.json, params cccccccccccccccc) dropped; requests naming it get "
	                           "422 unknown_profile\n"
	                           "profile 'new' (n.json) added: params eeeeeeeeeeeeeeee\n";
	CHECK(strcmp(buf, want) == 0);
	if (strcmp(buf, want) != 0)
		fprintf(stderr, "changes: %s", buf);
	wc_server_profile_changes(before, 3, before, 3, buf, sizeof buf);
	CHECK(buf[0] == '\0');
	wc_server_profile_changes(before, 3, after, 3, buf, 20); /* cut, still a string */
	CHECK_INT((int)strlen(buf), 19);
}

int
main(void)
{
	profile_changes();
	char *dir = test_tmpdir("server_reload");
	char *path = path_join(dir, "params.json");
	wc_params a = WC_PARAMS_INIT, b = WC_PARAMS_INIT;
	pthread_t th[N_LOAD];
	int started = 0, out_fd = -1, status = -1;
	errlog log = { -1, "", 0 };
	char line[512], answer[8192];
	FILE *out = NULL;
	pid_t pid;
	const char *body = "{\"platform\":\"A100\",\"tp\":1,\"active_params_b\":8,\"concurrency\":32}";

	signal(SIGPIPE, SIG_IGN);
	curl_global_init(CURL_GLOBAL_DEFAULT);
	params_with_draws(&a, "set-a", 1.9);
	params_with_draws(&b, "set-b", 2.1);
	save_params(path, &a, v_a);
	if ((pid = spawn_server(path, &out_fd, &log.fd)) < 0) {
		CHECK(!"fork failed");
		goto done;
	}
	child = pid;
	out = fdopen(out_fd, "r");
	/* First line: "wattcast serve: listening on http://127.0.0.1:PORT (...)" */
	if (!fgets(line, sizeof line, out) || sscanf(strstr(line, "127.0.0.1:") ? strstr(line, "127.0.0.1:") : "",
	                                             "127.0.0.1:%d", &port) != 1) {
		CHECK(!"no listening line on stdout");
		goto done;
	}
	CHECK(port > 0);
	CHECK_CONTAINS(line, v_a);
	http_set_base(port);
	CHECK(health_version_is(v_a));

	/* A request in flight across the swap: it started on set A. */
	int held = partial_request(body);
	CHECK(held >= 0);
	CHECK_INT(wait_in_flight(2), 0);

	for (int i = 0; i < N_LOAD; i++)
		started += pthread_create(&th[i], NULL, load_thread, (void *)body) == 0;
	CHECK_INT(started, N_LOAD);
	CHECK_INT(wait_count(&n_ok, 100), 0);

	/* SIGHUP with a new file: new requests see B, none fails. */
	save_params(path, &b, v_b);
	CHECK(strcmp(v_a, v_b) != 0);
	CHECK_INT(kill(pid, SIGHUP), 0);
	CHECK(health_version_is(v_b));
	CHECK_INT(errlog_wait_for(&log, "reloaded"), 0);
	CHECK_CONTAINS(log.text, v_b);
	/* the profile the file named before is named, with both versions: the
	 * log said the default's version alone, and requests naming set-a
	 * were 422 unknown_profile without a word */
	char renamed[256];
	snprintf(renamed, sizeof renamed, "renamed 'set-b': params %s (was %s); requests naming it get 422 "
	         "unknown_profile\n", v_b, v_a);
	CHECK_INT(errlog_wait_for(&log, renamed), 0);
	CHECK_CONTAINS(log.text, "wattcast serve: profile 'set-a' (");
	CHECK_INT(wait_count(&n_b, atomic_load(&n_b) + 100), 0);

	/* The held request finishes, on the set it started with. */
	finish_request(held, body, answer, sizeof answer);
	CHECK(strncmp(answer, "HTTP/1.1 200", 12) == 0);
	CHECK_CONTAINS(answer, v_a);

	/* A broken file is refused with one log line; B keeps serving. */
	CHECK_INT(write_text(path, "{\"schema\": \"wattcast.params/1\", \"levels\": [oops]}\n"), 0);
	CHECK_INT(kill(pid, SIGHUP), 0);
	CHECK_INT(errlog_wait_for(&log, "reload refused"), 0);
	CHECK_CONTAINS(log.text, "params.json");
	long after_broken = atomic_load(&n_ok);
	CHECK_INT(wait_count(&n_ok, after_broken + 100), 0);
	CHECK(health_version_is(v_b));
	/* A well-formed file that fails validation is refused too. */
	CHECK_INT(write_text(path, "{\"schema\": \"wattcast.params/1\", \"colour\": 1}\n"), 0);
	CHECK_INT(kill(pid, SIGHUP), 0);
	CHECK_INT(errlog_wait_for(&log, "colour"), 0);
	CHECK(health_version_is(v_b));
	/* POST /v1/calibrate from `wattcast serve`: its worker process is the
	 * server's own executable (cli/cmd_serve.c), calibrating the set now
	 * served. */
	CURL *ch = curl_easy_init();
	http_reply cr;
	http_post_json(ch, url("/v1/calibrate"), "{\"bootstrap\":0,\"runs\":[{\"platform\":\"A100\",\"tp\":1,"
	               "\"model\":\"Qwen3-8B\",\"running\":8,\"mean_power_w\":300}]}", &cr);
	CHECK_INT(cr.status, 200);
	const char *cal_name = json_string_value(json_object_get(cr.json, "name"));
	CHECK(cal_name && strncmp(cal_name, "set-b", 5) == 0);
	if (cr.status != 200)
		fprintf(stderr, "calibrate: %.300s\n", cr.body ? cr.body : "");
	http_reply_free(&cr);
	curl_easy_cleanup(ch);

	atomic_store(&stop_load, 1);
	for (int i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	started = 0;
	CHECK_INT(atomic_load(&n_fail), 0);
	CHECK(atomic_load(&n_a) > 0);
	CHECK(atomic_load(&n_b) >= 100);
	CHECK_INT(atomic_load(&n_other), 0);
	CHECK_NEAR(metric("wattcast_params_reloads_total{result=\"ok\"}"), 1, 0);
	CHECK_NEAR(metric("wattcast_params_reloads_total{result=\"failed\"}"), 2, 0);

	/* SIGTERM: the request in flight is answered, new ones get 503. */
	held = partial_request(body);
	CHECK(held >= 0);
	CHECK_INT(wait_in_flight(2), 0);
	CHECK_INT(kill(pid, SIGTERM), 0);
	int refused = 0;
	for (int i = 0; i < WAIT_STEPS / 10 && !refused; i++) {
		http_reply r;
		get("/v1/health", &r);
		refused = r.status == 503 && http_error_str(&r, "code") &&
		          strcmp(http_error_str(&r, "code"), "shutting_down") == 0;
		http_reply_free(&r);
		if (!refused && pause_ms(10) < 0)
			break;
	}
	CHECK(refused);
	/* More signals while draining (the main thread is busy in the stop)
	 * change nothing: no thread of the process dies of them. */
	CHECK_INT(kill(pid, SIGTERM), 0);
	CHECK_INT(kill(pid, SIGHUP), 0);
	CHECK_INT(kill(pid, SIGINT), 0);
	CHECK_INT(pause_ms(200), 0);
	finish_request(held, body, answer, sizeof answer);
	CHECK(strncmp(answer, "HTTP/1.1 200", 12) == 0);
	CHECK_CONTAINS(answer, v_b);
	CHECK(child > 0 && waitpid(pid, &status, 0) == pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	pid = child = 0;
	char rest[1024] = "";
	size_t n = fread(rest, 1, sizeof rest - 1, out);
	rest[n] = '\0';
	CHECK_CONTAINS(rest, "stopped");

done:
	atomic_store(&stop_load, 1);
	for (int i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	if (pid > 0 && child > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	if (out)
		fclose(out);
	if (log.fd >= 0)
		close(log.fd);
	wc_params_clear(&a);
	wc_params_clear(&b);
	free(path);
	free(dir);
	curl_global_cleanup();
	return check_report("test_server_reload");
}
