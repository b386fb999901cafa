/*
 * POST /v1/calibrate estimates in a worker process, `wattcast calibrate
 * --http-worker` (docs/architecture.md, "The calibration worker"), so the
 * server never calls fit/:
 *  - the route's params are bit for bit those of `wattcast calibrate` on
 *    the same base, runs and seed (a mean power of 17 significant digits
 *    included: the worker reads the body's very doubles);
 *  - without a worker the route answers 503 calibration_unavailable; with
 *    a worker path that does not exist, 500 calibration_failed naming it,
 *    and the server goes on serving;
 *  - a worker that crashes is 500 naming the signal, and the next
 *    calibration works; one past the time limit is killed, 504;
 *  - no private folder is left behind, and no child unreaped.
 */
#include "data/data.h"
#include "models/models.h"
#include "server/server.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

#include <dirent.h>
#include <errno.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

static CURL *h;
static wc_params base;

/* Model scope on H100, three loads; the last power has 17 significant
 * digits, which a runs table's 12 would round. */
#define CAL_BODY                                                                                          \
	"{\"bootstrap\":20,\"seed\":7,\"runs\":["                                                        \
	"{\"run_id\":\"a\",\"platform\":\"H100\",\"tp\":1,\"model\":\"Qwen3-8B\",\"running\":8,"          \
	"\"mean_power_w\":410},"                                                                          \
	"{\"run_id\":\"b\",\"platform\":\"H100\",\"tp\":1,\"model\":\"Qwen3-8B\",\"running\":32,"         \
	"\"mean_power_w\":520.5},"                                                                        \
	"{\"run_id\":\"c\",\"platform\":\"H100\",\"tp\":1,\"model\":\"Qwen3-8B\",\"running\":64,"         \
	"\"mean_power_w\":583.12345678901234}]}"
#define CAL_CSV                                                                                           \
	"run_id,platform,tp,model,running,mean_power_w\n"                                                 \
	"a,H100,1,Qwen3-8B,8,410\n"                                                                       \
	"b,H100,1,Qwen3-8B,32,520.5\n"                                                                    \
	"c,H100,1,Qwen3-8B,64,583.12345678901234\n"

static wc_server *
start(const char *worker, int timeout_ms)
{
	wc_server_options so = WC_SERVER_OPTIONS_INIT;
	wc_server *srv = NULL;
	wc_error err;
	so.listen = "127.0.0.1:0";
	so.threads = 4;
	so.calibrate_worker = worker;
	so.calibrate_timeout_ms = timeout_ms;
	CHECK_INT(wc_server_start(&so, &base, "drawn", &srv, &err), WC_OK);
	if (srv)
		http_set_base(wc_server_port(srv));
	return srv;
}

/* POST CAL_BODY; the status, with the error's code and message checked
 * when `code` is given. */
static long
calibrate(const char *code, const char *needle, http_reply *r)
{
	int before = check_failures;
	http_post_json(h, url("/v1/calibrate"), CAL_BODY, r);
	if (code) {
		CHECK(r->json != NULL);
		CHECK(http_error_str(r, "code") && strcmp(http_error_str(r, "code"), code) == 0);
		CHECK_CONTAINS(http_error_str(r, "message") ? http_error_str(r, "message") : "", needle);
		if (check_failures != before)
			fprintf(stderr, "  answer: %ld %.300s\n", r->status, r->body ? r->body : "");
	}
	return r->status;
}

/* The set's version with the provenance the two callers write
 * differently made equal: the input's name, its hash (a file's, none for
 * a body) and the time. */
static void
version_of(wc_params *p, char out[17])
{
	wc_error err;
	snprintf(p->calibration.fitted_on, sizeof p->calibration.fitted_on, "runs");
	snprintf(p->calibration.created_utc, sizeof p->calibration.created_utc, "2000-01-01T00:00:00Z");
	p->calibration.input_sha256[0] = '\0';
	CHECK_INT(wc_params_fingerprint(p, out, &err), WC_OK);
}

static void
test_same_as_cli(const char *dir)
{
	char *bpath = path_join(dir, "base.json"), *runs = path_join(dir, "runs.csv"), *out = path_join(dir, "cli.json");
	wc_error err;
	CHECK_INT(wc_params_save_file(bpath, &base, &err), WC_OK);
	CHECK_INT(write_text(runs, CAL_CSV), 0);
	const char *argv[] = { "wattcast", "calibrate", "--params", bpath, runs, "-o", out, "--bootstrap", "20",
		               "--seed", "7", NULL };
	test_run_ok(argv);
	wc_params cli = WC_PARAMS_INIT, route = WC_PARAMS_INIT;
	CHECK_INT(wc_params_load_file(out, &cli, &err), WC_OK);

	wc_server *srv = start(test_env("WATTCAST_BIN", NULL), 0);
	http_reply r;
	CHECK_INT(calibrate(NULL, NULL, &r), 200);
	const json_t *params = json_object_get(r.json, "params");
	char *text = params ? json_dumps(params, JSON_REAL_PRECISION(17)) : NULL;
	CHECK(text && wc_params_load_buffer(text, strlen(text), "answer", &route, &err) == WC_OK);
	CHECK(strcmp(route.calibration.fitted_on, "POST /v1/calibrate") == 0);
	CHECK(route.n_draws == 20 && cli.n_draws == 20);
	char v_cli[17], v_route[17];
	version_of(&cli, v_cli);
	version_of(&route, v_route);
	CHECK(strcmp(v_route, v_cli) == 0);

	free(text);
	http_reply_free(&r);
	wc_server_stop(srv);
	wc_params_clear(&cli);
	wc_params_clear(&route);
	free(bpath);
	free(runs);
	free(out);
}

static void
test_no_worker(const char *dir)
{
	http_reply r;
	wc_server *srv = start(NULL, 0);
	CHECK_INT(calibrate("calibration_unavailable", "no worker configured", &r), 503);
	http_reply_free(&r);
	/* a body the route refuses is still refused for what it is */
	http_post_json(h, url("/v1/calibrate"), "{\"runs\":[]}", &r);
	CHECK_INT(r.status, 422);
	http_reply_free(&r);
	wc_server_stop(srv);

	char *missing = path_join(dir, "no-such-wattcast");
	srv = start(missing, 0);
	for (int i = 0; i < 2; i++) {
		CHECK_INT(calibrate("calibration_failed", "could not be started: No such file or directory", &r), 500);
		CHECK_CONTAINS(http_error_str(&r, "message"), "no-such-wattcast");
		http_reply_free(&r);
	}
	http_get(h, url("/v1/health"), &r);
	CHECK_INT(r.status, 200);
	http_reply_free(&r);
	wc_server_stop(srv);
	free(missing);
}

/* A worker that dies of SIGSEGV on its first run and is wattcast after. */
static void
test_crash_then_works(const char *dir)
{
	char script[2048], *path = path_join(dir, "flaky-worker"), *mark = path_join(dir, "crashed");
	snprintf(script, sizeof script, "#!/bin/sh\nif [ ! -e '%s' ]; then : > '%s'; kill -SEGV $$; fi\nexec '%s' \"$@\"\n",
	         mark, mark, test_env("WATTCAST_BIN", "wattcast"));
	CHECK_INT(write_text(path, script), 0);
	CHECK_INT(chmod(path, 0700), 0);
	http_reply r;
	wc_server *srv = start(path, 0);
	CHECK_INT(calibrate("calibration_failed", "was killed by signal 11", &r), 500);
	http_reply_free(&r);
	CHECK_INT(calibrate(NULL, NULL, &r), 200);
	CHECK(json_is_object(json_object_get(r.json, "params")));
	http_reply_free(&r);
	wc_server_stop(srv);
	free(path);
	free(mark);
}

/* The worker runs in a process group of its own: a Ctrl-C at the
 * terminal (SIGINT to the foreground group) reached it and killed the
 * calibration under a server stopping gracefully ("killed by signal 2"). */
static void
test_own_group(const char *dir)
{
	char script[2048], *path = path_join(dir, "group-worker"), *mark = path_join(dir, "pgid");
	snprintf(script, sizeof script, "#!/bin/sh\ncut -d' ' -f5 /proc/$$/stat > '%s'\nexec '%s' \"$@\"\n", mark,
	         test_env("WATTCAST_BIN", "wattcast"));
	CHECK_INT(write_text(path, script), 0);
	CHECK_INT(chmod(path, 0700), 0);
	http_reply r;
	wc_server *srv = start(path, 0);
	CHECK_INT(calibrate(NULL, NULL, &r), 200);
	http_reply_free(&r);
	wc_server_stop(srv);
	char *pgid = test_slurp(mark);
	CHECK(pgid && atol(pgid) > 0 && atol(pgid) != (long)getpgrp());
	free(pgid);
	free(path);
	free(mark);
}

/* A worker past the limit is killed: 504 at once, not when it ends. */
static void
test_timeout(const char *dir)
{
	char *path = path_join(dir, "slow-worker");
	CHECK_INT(write_text(path, "#!/bin/sh\nexec sleep 30\n"), 0);
	CHECK_INT(chmod(path, 0700), 0);
	http_reply r;
	struct timespec t0, t1;
	wc_server *srv = start(path, 300);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	CHECK_INT(calibrate("calibration_timeout", "stopped after 300 ms", &r), 504);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	CHECK((t1.tv_sec - t0.tv_sec) < 10);
	http_reply_free(&r);
	wc_server_stop(srv);
	free(path);
}

/* No private folder left in TMPDIR. */
static void
check_no_leftovers(const char *tmp)
{
	DIR *d = opendir(tmp);
	CHECK(d != NULL);
	for (struct dirent *de; d && (de = readdir(d)) != NULL;)
		if (strncmp(de->d_name, "wattcast-calibrate-", 19) == 0) {
			fprintf(stderr, "left behind: %s/%s\n", tmp, de->d_name);
			CHECK(0);
		}
	if (d)
		closedir(d);
	/* and no child unreaped: every worker was waited for */
	errno = 0;
	CHECK(waitpid(-1, NULL, WNOHANG) == -1 && errno == ECHILD);
}

int
main(void)
{
	char *dir = test_tmpdir("calibrate_worker"), *tmp = path_join(dir, "tmp");
	CHECK_INT(mkdir(tmp, 0700), 0);
	setenv("TMPDIR", tmp, 1); /* where the route makes its private folders */
	curl_global_init(CURL_GLOBAL_DEFAULT);
	h = curl_easy_init();
	test_drawn_params(&base);
	test_same_as_cli(dir);
	test_no_worker(dir);
	test_crash_then_works(dir);
	test_timeout(dir);
	test_own_group(dir);
	check_no_leftovers(tmp);
	wc_params_clear(&base);
	curl_easy_cleanup(h);
	free(tmp);
	free(dir);
	return check_report("test_server_calibrate_worker");
}
