/*
 * Benchmark (not a test) of the REST server: starts `wattcast serve
 * --bench-trivial-route` on a free loopback port and runs wrk (-t2 -c32,
 * keep-alive), in the same run, against:
 *   - the trivial GET /v1/bench/trivial of the same process (the peer);
 *   - POST /v1/predict/inference with every capacity field (token lengths,
 *     price, carbon intensity), the same body each time: a scheduler
 *     polling one configuration, answered from the answer memo;
 *   - the same route with a different body each time (random concurrency
 *     1-200 and output length 64-1087, about 2e5 combinations, so almost
 *     every request is computed and printed afresh).
 * Prints throughputs, p99 latencies and the ratios predict / trivial
 * (goal: >= 0.9 with the capacity fields). Run it through
 * bench/run_server.sh.
 *
 * usage: bench_server WATTCAST_BIN [SECONDS] [PARAMS.json]
 * With PARAMS (e.g. a fit with 1000 bootstrap draws) every prediction also
 * computes its 95 % interval; without, the built-in profile has no draws.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct {
	double rps;
	double p50_ms, p99_ms;
	long non2xx;
	long errors;
} wrk_result;

/* "2.31ms" / "503.00us" / "1.02s" -> milliseconds. */
static double
to_ms(const char *text)
{
	char *end;
	double v = strtod(text, &end);
	if (strncmp(end, "us", 2) == 0)
		return v / 1000.0;
	if (strncmp(end, "ms", 2) == 0)
		return v;
	if (*end == 's')
		return v * 1000.0;
	return -1;
}

static int
run_wrk(const char *url, const char *script, int seconds, wrk_result *out)
{
	char cmd[1024], line[512];
	snprintf(cmd, sizeof cmd, "wrk -t2 -c32 -d%ds --latency %s%s %s 2>&1", seconds,
	         script ? "-s " : "", script ? script : "", url);
	FILE *p = popen(cmd, "r");
	if (!p)
		return -1;
	memset(out, 0, sizeof *out);
	out->rps = out->p50_ms = out->p99_ms = -1;
	while (fgets(line, sizeof line, p)) {
		char *s = line + strspn(line, " \t");
		long a, b, c, d;
		if (strncmp(s, "Requests/sec:", 13) == 0)
			out->rps = strtod(s + 13, NULL);
		else if (strncmp(s, "50%", 3) == 0)
			out->p50_ms = to_ms(s + 3 + strspn(s + 3, " \t"));
		else if (strncmp(s, "99%", 3) == 0)
			out->p99_ms = to_ms(s + 3 + strspn(s + 3, " \t"));
		else if (strncmp(s, "Non-2xx or 3xx responses:", 25) == 0)
			out->non2xx = strtol(s + 25, NULL, 10);
		else if (sscanf(s, "Socket errors: connect %ld, read %ld, write %ld, timeout %ld", &a, &b,
		                &c, &d) == 4)
			out->errors = a + b + c + d;
	}
	return pclose(p) == 0 && out->rps > 0 ? 0 : -1;
}

/* The wrk scripts: one body every time, and a random body every time.
 * Each wrk thread draws its own bodies (a seed per thread), so the two
 * threads do not answer each other's requests from the memo. */
static const char lua_one[] =
	"wrk.method = \"POST\"\n"
	"wrk.body = '{\"platform\":\"H100\",\"tp\":1,\"model\":\"Qwen3-8B\",\"concurrency\":32,\"input_tokens\":500,\"output_tokens\":512,\"price_per_kwh\":0.15,\"grams_co2_per_kwh\":400}'\n"
	"wrk.headers[\"Content-Type\"] = \"application/json\"\n";
static const char lua_varied[] =
	"wrk.method = \"POST\"\n"
	"wrk.headers[\"Content-Type\"] = \"application/json\"\n"
	"local n_threads = 0\n"
	"function setup(thread) n_threads = n_threads + 1; thread:set(\"tid\", n_threads) end\n"
	"function init(args) math.randomseed(7919 * tid) end\n"
	"function request()\n"
	"  return wrk.format(nil, nil, nil, string.format('{\"platform\":\"H100\",\"tp\":1,\"model\":\"Qwen3-8B\",\"concurrency\":%d,\"input_tokens\":500,\"output_tokens\":%d,\"price_per_kwh\":0.15,\"grams_co2_per_kwh\":400}', math.random(1, 200), math.random(64, 1087)))\n"
	"end\n";

/* Write `text` to a new temporary file named from `path` (a mkstemp
 * template); its descriptor, or -1. */
static int
write_script(char *path, const char *text)
{
	int fd = mkstemp(path);
	size_t n = strlen(text);
	if (fd >= 0 && write(fd, text, n) != (ssize_t)n) {
		close(fd);
		unlink(path);
		return -1;
	}
	return fd;
}

static void
print_results(const wrk_result *triv, const wrk_result *one, const wrk_result *varied)
{
	printf("%-44s %10s %10s %10s %8s\n", "route", "req/s", "p50 ms", "p99 ms", "ratio");
	printf("%-44s %10.0f %10.3f %10.3f %8s\n", "GET /v1/bench/trivial", triv->rps, triv->p50_ms,
	       triv->p99_ms, "1");
	printf("%-44s %10.0f %10.3f %10.3f %8.3f\n", "POST /v1/predict/inference (one body)",
	       one->rps, one->p50_ms, one->p99_ms, one->rps / triv->rps);
	printf("%-44s %10.0f %10.3f %10.3f %8.3f\n", "POST /v1/predict/inference (varied bodies)",
	       varied->rps, varied->p50_ms, varied->p99_ms, varied->rps / triv->rps);
	printf("goal: ratio >= 0.9 with every capacity field\n");
	if (one->non2xx || triv->non2xx || varied->non2xx || one->errors || triv->errors ||
	    varied->errors)
		printf("WARNING: non-2xx answers %ld / %ld / %ld, socket errors %ld / %ld / %ld "
		       "(trivial / one body / varied)\n",
		       triv->non2xx, one->non2xx, varied->non2xx, triv->errors, one->errors,
		       varied->errors);
}

/* Start `wattcast serve` on a free port; its pid, with its port in *port
 * and its stdout in *out (the caller closes it), or -1. */
static pid_t
start_server(int argc, char **argv, int *port, FILE **out)
{
	int po[2];
	char line[512];
	pid_t pid;
	if (pipe(po) != 0)
		return -1;
	if ((pid = fork()) == 0) {
		dup2(po[1], 1);
		close(po[0]);
		close(po[1]);
		if (argc > 3)
			execl(argv[1], argv[1], "serve", "--listen", "127.0.0.1:0", "--bench-trivial-route",
			      "--params", argv[3], (char *)NULL);
		else
			execl(argv[1], argv[1], "serve", "--listen", "127.0.0.1:0", "--bench-trivial-route",
			      (char *)NULL);
		_exit(127);
	}
	close(po[1]);
	*out = fdopen(po[0], "r");
	if (!*out || !fgets(line, sizeof line, *out) || !strstr(line, "127.0.0.1:") ||
	    sscanf(strstr(line, "127.0.0.1:"), "127.0.0.1:%d", port) != 1)
		fprintf(stderr, "bench_server: %s did not start\n", argv[1]);
	return pid;
}

int
main(int argc, char **argv)
{
	int port = 0, seconds = argc > 2 ? atoi(argv[2]) : 10, rc = 1;
	char url_p[128], url_t[128], script[] = "/tmp/wattcast-bench-XXXXXX";
	char script_v[] = "/tmp/wattcast-bench-XXXXXX";
	wrk_result pred, pred_v, triv, warm;
	FILE *out = NULL;
	int fd = -1, fd_v = -1;
	pid_t pid;

	if (argc < 2 || seconds < 1) {
		fprintf(stderr, "usage: bench_server WATTCAST_BIN [SECONDS] [PARAMS.json]\n");
		return 2;
	}
	if ((pid = start_server(argc, argv, &port, &out)) < 0 || port <= 0)
		goto done;
	if ((fd = write_script(script, lua_one)) < 0 || (fd_v = write_script(script_v, lua_varied)) < 0)
		goto done;
	snprintf(url_p, sizeof url_p, "http://127.0.0.1:%d/v1/predict/inference", port);
	snprintf(url_t, sizeof url_t, "http://127.0.0.1:%d/v1/bench/trivial", port);

	printf("wattcast serve on 127.0.0.1:%d; wrk -t2 -c32 -d%ds, keep-alive\n", port, seconds);
	fflush(stdout);
	/* Warm both routes (page faults, allocator arenas, CPU frequency). */
	if (run_wrk(url_t, NULL, 1, &warm) != 0 || run_wrk(url_p, script, 1, &warm) != 0) {
		fprintf(stderr, "bench_server: wrk failed (is it installed?)\n");
		goto done;
	}
	if (run_wrk(url_t, NULL, seconds, &triv) != 0 || run_wrk(url_p, script, seconds, &pred) != 0 ||
	    run_wrk(url_p, script_v, seconds, &pred_v) != 0)
		goto done;
	print_results(&triv, &pred, &pred_v);
	rc = 0;
done:
	if (fd >= 0) {
		close(fd);
		unlink(script);
	}
	if (fd_v >= 0) {
		close(fd_v);
		unlink(script_v);
	}
	if (pid > 0) {
		kill(pid, SIGTERM);
		waitpid(pid, NULL, 0);
	}
	if (out)
		fclose(out);
	return rc;
}
