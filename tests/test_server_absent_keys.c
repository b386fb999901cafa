/*
 * `wattcast serve` with parameter files that leave optional keys out
 * (levels[i].floor_logit, an unused precision term's value): it starts,
 * answers, reloads such a file on SIGHUP and keeps serving. The loader
 * used to pass a NULL JSON value on and the server died of SIGSEGV at
 * start-up or on the reload.
 *
 * Nothing is timed: waits poll for a state under a generous bound.
 */
#include "data/data.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>

#define WAIT_STEPS 60000 /* x 1 ms: a bound, never an expectation */

static pid_t child;

/* `src` without levels[level].floor_logit and without the value of the
 * first precision term that was not kept, written to `dst`. */
static void
strip_optional(const char *src, const char *dst, size_t level)
{
	json_t *root = json_load_file(src, 0, NULL);
	CHECK(root != NULL);
	json_t *lv = json_array_get(json_object_get(root, "levels"), level);
	CHECK_INT(json_object_del(lv, "floor_logit"), 0);
	json_t *terms = json_object_get(root, "precision_terms");
	for (size_t i = 0; i < json_array_size(terms); i++) {
		json_t *t = json_array_get(terms, i);
		if (!json_is_true(json_object_get(t, "kept"))) {
			CHECK_INT(json_object_del(t, "value"), 0);
			break;
		}
	}
	char tmp[1024];
	snprintf(tmp, sizeof tmp, "%s.part", dst);
	CHECK_INT(json_dump_file(root, tmp, JSON_INDENT(1)), 0);
	CHECK_INT(rename(tmp, dst), 0); /* the server never sees half a file */
	json_decref(root);
}

static int
alive(void)
{
	return child > 0 && waitpid(child, NULL, WNOHANG) == 0;
}

/* Read the child's stderr until `needle` shows up (or it dies). */
static int
stderr_wait_for(int fd, char *text, size_t cap, size_t *len, const char *needle)
{
	for (int i = 0; i < WAIT_STEPS / 10; i++) {
		struct pollfd p = { fd, POLLIN, 0 };
		if (strstr(text, needle))
			return 0;
		if (!alive())
			break;
		if (poll(&p, 1, 10) > 0) {
			ssize_t r = read(fd, text + *len, cap - 1 - *len);
			if (r <= 0)
				break;
			*len += (size_t)r;
			text[*len] = '\0';
		}
	}
	return strstr(text, needle) ? 0 : -1;
}

static long
predict_status(void)
{
	CURL *c = curl_easy_init();
	http_reply r;
	long s = http_post_json(c, url("/v1/predict/inference"),
	                        "{\"platform\":\"H100\",\"tp\":1,\"active_params_b\":8,\"concurrency\":8}", &r);
	http_reply_free(&r);
	curl_easy_cleanup(c);
	return s;
}

int
main(void)
{
	char *dir = test_tmpdir("server_absent_keys");
	char *fitted = path_join(dir, "fitted.json"), *live = path_join(dir, "live.json");
	char *runs = path_join(test_env("WC_SOURCE_DIR", ".."), "data/default/paper-design-seed42.csv");
	const char *argv[] = { "wattcast", "fit", "inference", runs, "-o", fitted, "--bootstrap", "10",
		               "--seed", "5", "--threads", "1", NULL };
	run_result rr;
	char line[512], errtext[16384] = "";
	size_t errlen = 0;
	int po[2], pe[2], port = 0, status = -1;

	signal(SIGPIPE, SIG_IGN);
	curl_global_init(CURL_GLOBAL_DEFAULT);
	CHECK_INT(run_wattcast(argv, NULL, &rr), 0);
	CHECK_INT(rr.status, 0);
	run_result_free(&rr);
	strip_optional(fitted, live, 0);

	/* Start-up with the stripped file. */
	if (pipe(po) || pipe(pe))
		return 1;
	child = fork();
	if (child == 0) {
		dup2(po[1], 1);
		dup2(pe[1], 2);
		close(po[0]); close(po[1]); close(pe[0]); close(pe[1]);
		const char *bin = test_env("WATTCAST_BIN", "wattcast");
		execl(bin, bin, "serve", "--params", live, "--listen", "127.0.0.1:0", "--threads", "4",
		      (char *)NULL);
		_exit(127);
	}
	close(po[1]);
	close(pe[1]);
	FILE *out = fdopen(po[0], "r");
	if (!fgets(line, sizeof line, out) || !strstr(line, "127.0.0.1:") ||
	    sscanf(strstr(line, "127.0.0.1:"), "127.0.0.1:%d", &port) != 1) {
		CHECK(!"no listening line: the server did not start");
		goto done;
	}
	http_set_base(port);
	CHECK_INT(predict_status(), 200);

	/* SIGHUP with another level stripped: reloaded, still answering. */
	strip_optional(fitted, live, 2);
	CHECK_INT(kill(child, SIGHUP), 0);
	CHECK_INT(stderr_wait_for(pe[0], errtext, sizeof errtext, &errlen, "reloaded"), 0);
	CHECK(alive());
	CHECK_INT(predict_status(), 200);

	CHECK_INT(kill(child, SIGTERM), 0);
	CHECK(waitpid(child, &status, 0) == child);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	child = 0;
done:
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
	fclose(out);
	close(pe[0]);
	free(runs);
	free(live);
	free(fitted);
	free(dir);
	curl_global_cleanup();
	return check_report("test_server_absent_keys");
}
