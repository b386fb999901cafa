/*
 * wattcast serve: the REST prediction server. SIGHUP reloads the
 * parameter file; SIGINT/SIGTERM stop gracefully.
 *
 * Signals: the main thread blocks SIGINT, SIGTERM and SIGHUP before the
 * server starts, so CivetWeb's threads inherit the mask and no worker is
 * ever interrupted. A plain sigwait loop is not enough, though: OpenBLAS
 * (linked for the fitting engine) starts its thread pool when the library
 * loads, before main, with nothing blocked. A signal arriving while the
 * main thread is busy (reloading, draining) would go to such a thread and,
 * with the default action, kill the process mid-request. So the signals
 * get a handler that only writes the signal number to a pipe (safe in any
 * thread), and the main thread reads the pipe.
 */
#include "cli.h"
#include "models/limits.h"
#include "data/data.h"
#include "fit/fit.h"
#include "models/profile_measured.h"
#include "server/server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char serve_usage[] =
	"usage: wattcast serve [--params FILE]... | [--profile NAME] [--listen HOST:PORT]\n"
	"                      [--threads N] [--max-body BYTES] [--bench-trivial-route]\n\n"
	"Serves predictions over HTTP (JSON): POST /v1/predict/inference,\n"
	"POST /v1/predict/batch, POST /v1/predict/flexibility, POST /v1/predict/finetune,\n"
	"POST /v1/predict/finetune/batch, POST /v1/calibrate, POST /v1/forecast/envelope,\n"
	"POST /v1/plan/budget, GET /v1/params, /v1/profiles, /v1/models, /v1/platforms, /v1/health,\n"
	"/metrics, /openapi.json, and the planner page at GET / (open it in a browser).\n"
	"Listens on 127.0.0.1:8080 unless --listen says otherwise\n"
	"(a bare PORT means 127.0.0.1:PORT; port 0 picks a free port). The first line\n"
	"on stdout gives the address.\n\n"
	"  --params FILE          parameter file; default: the built-in profile\n"
	"                         'measured'. Repeat it to serve several sets side\n"
	"                         by side (profiles, named by each set's name; the\n"
	"                         first is the default; a request picks one with\n"
	"                         \"profile\")\n"
	"  --threads N            worker threads, 2-1024 (default 64); each open\n"
	"                         connection holds one; an eighth (at least 1) is\n"
	"                         kept for new connections and /v1/health; use at\n"
	"                         least 8 (fewer refuse concurrent bodies with 503)\n"
	"  --max-body BYTES       body limit of single requests (default 1048576);\n"
	"                         POST /v1/predict/batch accepts 8 times as much\n"
	"  --bench-trivial-route  also serve GET /v1/bench/trivial (benchmark baseline)\n\n"
	"Signals: SIGHUP reloads every --params FILE at once (one broken file is refused\n"
	"and the old sets all keep serving); SIGINT or SIGTERM stop after the requests\n"
	"in flight.\n";

enum { OPT_PARAMS = 1000, OPT_PROFILE, OPT_LISTEN, OPT_THREADS, OPT_MAX_BODY, OPT_BENCH };

/* "HOST:PORT" or "PORT" (loopback); IPv4 only (CivetWeb is built without
 * IPv6 on Debian). Writes the CivetWeb form into `out`. */
static int
parse_listen(const char *cmd, const char *text, char *out, size_t cap)
{
	const char *colon = strrchr(text, ':');
	const char *port = colon ? colon + 1 : text;
	long p;
	if (colon && (colon == text || (size_t)(colon - text) > 45))
		return cli_usage_error(cmd, "--listen: expected HOST:PORT, got '%s'", text);
	/* digits only: a port written "+8080" or "8e3" is no port number
	 * (cli_parse_int reads signs and exponents) */
	if (!port[0] || strspn(port, "0123456789") != strlen(port))
		return cli_usage_error(cmd, "--listen: the port must be digits, 0 to 65535, got '%s'", text);
	if (cli_parse_int(cmd, "--listen", port, 0, 65535, &p) != CLI_OK)
		return CLI_USAGE;
	/* four decimal parts of 0 to 255, as inet_pton reads them: 256.0.0.1
	 * and 127.1 reached CivetWeb, which said only "Failed to setup server
	 * ports" (exit 1) */
	char host[46];
	struct in_addr addr;
	if (colon && (snprintf(host, sizeof host, "%.*s", (int)(colon - text), text) < 0 ||
	              inet_pton(AF_INET, host, &addr) != 1))
		return cli_usage_error(cmd, "--listen: host must be an IPv4 address, four numbers 0 to 255 "
		                       "(127.0.0.1), got '%s'", text);
	if (colon)
		snprintf(out, cap, "%.*s:%ld", (int)(colon - text), text, p);
	else
		snprintf(out, cap, "127.0.0.1:%ld", p);
	return CLI_OK;
}

/* Write end of the signal pipe; set once before the handlers exist. */
static int signal_pipe_w = -1;

static void
on_signal(int sig)
{
	int saved = errno;
	unsigned char c = (unsigned char)sig;
	/* Non-blocking: a full pipe already holds enough wake-ups. */
	if (write(signal_pipe_w, &c, 1) < 0) {
		/* nothing to do: the signal is merely coalesced */
	}
	errno = saved;
}

/* Route SIGINT/SIGTERM/SIGHUP to `pipe_r`. 0 on success. */
static int
install_signal_pipe(int *pipe_r)
{
	int fds[2];
	struct sigaction sa;
	if (pipe(fds) != 0)
		return -1;
	fcntl(fds[0], F_SETFD, FD_CLOEXEC);
	fcntl(fds[1], F_SETFD, FD_CLOEXEC);
	fcntl(fds[1], F_SETFL, O_NONBLOCK);
	signal_pipe_w = fds[1];
	*pipe_r = fds[0];
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigfillset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	return sigaction(SIGINT, &sa, NULL) || sigaction(SIGTERM, &sa, NULL) ||
	       sigaction(SIGHUP, &sa, NULL) ? -1 : 0;
}

static int
next_signal(int pipe_r)
{
	unsigned char c;
	for (;;) {
		ssize_t n = read(pipe_r, &c, 1);
		if (n == 1)
			return c;
		if (n < 0 && errno == EINTR)
			continue;
		return SIGTERM; /* the pipe broke: stop rather than spin */
	}
}

static int
serve_loop(wc_server *srv, int pipe_r, const char *const *paths, int n_paths)
{
	char before[17], after[17];
	wc_server_profile was[WC_SERVER_MAX_PROFILES], now[WC_SERVER_MAX_PROFILES];
	char changes[WC_SERVER_MAX_PROFILES * 2 * 640];
	wc_error err;
	int sig;
	for (;;) {
		sig = next_signal(pipe_r);
		if (sig != SIGHUP) {
			printf("wattcast serve: %s received, stopping after requests in flight\n",
			       sig == SIGINT ? "SIGINT" : "SIGTERM");
			fflush(stdout);
			return CLI_OK;
		}
		if (n_paths == 0) {
			fprintf(stderr, "wattcast serve: SIGHUP: nothing to reload (serving a built-in profile)\n");
			continue;
		}
		wc_server_params_version(srv, before);
		const int n_was = wc_server_profiles(srv, was);
		if (wc_server_reload_files(srv, n_paths, paths, &err) != WC_OK) {
			fprintf(stderr, "wattcast serve: reload refused, still serving %s: %s\n", before, err.msg);
			continue;
		}
		wc_server_params_version(srv, after);
		fprintf(stderr, "wattcast serve: reloaded %s%s: params %s (was %s)\n", paths[0],
		        n_paths > 1 ? " and the other profiles" : "", after, before);
		/* each profile renamed, dropped, added or changed, by name: the
		 * line above gives the default profile's version alone */
		wc_server_profile_changes(was, n_was, now, wc_server_profiles(srv, now), changes, sizeof changes);
		for (char *line = changes, *end; *line && (end = strchr(line, '\n')); line = end + 1)
			fprintf(stderr, "wattcast serve: %.*s\n", (int)(end - line), line);
	}
}

/* What the command line asked for; so.listen points into `listen`. */
typedef struct {
	const char *params_paths[WC_SERVER_MAX_PROFILES];
	int n_params;
	const char *profile;
	char listen[64];
	char self[4096];             /* this executable: so.calibrate_worker */
	wc_server_options so;
	long threads, max_body;
	int help;
} serve_args;

/* Flags into `a`; a->help after printing --help. */
static int
parse_serve_args(int argc, char **argv, serve_args *a)
{
	static const struct option opts[] = {
		{ "params", required_argument, NULL, OPT_PARAMS },
		{ "profile", required_argument, NULL, OPT_PROFILE },
		{ "listen", required_argument, NULL, OPT_LISTEN },
		{ "threads", required_argument, NULL, OPT_THREADS },
		{ "max-body", required_argument, NULL, OPT_MAX_BODY },
		{ "bench-trivial-route", no_argument, NULL, OPT_BENCH },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cmd = "serve";
	int opt, rc;

	cli_reset_getopt();
	while ((opt = cli_getopt(argc, argv, ":h", opts, NULL)) != -1) {
		rc = CLI_OK;
		switch (opt) {
		case OPT_PARAMS:
			if (a->n_params >= WC_SERVER_MAX_PROFILES)
				return cli_usage_error(cmd, "--params: at most %d files", WC_SERVER_MAX_PROFILES);
			a->params_paths[a->n_params++] = optarg;
			break;
		case OPT_PROFILE: a->profile = optarg; break;
		case OPT_LISTEN: rc = parse_listen(cmd, optarg, a->listen, sizeof a->listen); break;
		case OPT_THREADS: rc = cli_parse_int(cmd, "--threads", optarg, WC_SERVE_THREADS_MIN, WC_SERVE_THREADS_MAX, &a->threads); break;
		case OPT_MAX_BODY:
			rc = cli_parse_int(cmd, "--max-body", optarg, 64, 1L << 30, &a->max_body);
			break;
		case OPT_BENCH: a->so.bench_trivial_route = 1; break;
		case 'h': fputs(serve_usage, stdout); a->help = 1; return CLI_OK;
		default: return cli_bad_option(cmd, opt, argv);
		}
		if (rc != CLI_OK)
			return rc;
	}
	if (optind < argc)
		return cli_usage_error(cmd, "unexpected argument '%s' (see --help)", argv[optind]);
	if (a->n_params && a->profile)
		return cli_usage_error(cmd, "give at most one of --params and --profile");
	a->so.listen = a->listen;
	a->so.threads = (int)a->threads;
	a->so.max_body = (size_t)a->max_body;
	/* POST /v1/calibrate runs `wattcast calibrate --http-worker` in a
	 * process of its own (docs/architecture.md, "The calibration worker"):
	 * this very executable, so the worker is the server's version. */
	ssize_t n = readlink("/proc/self/exe", a->self, sizeof a->self - 1);
	if (n > 0 && (size_t)n < sizeof a->self - 1) {
		a->self[n] = '\0';
		a->so.calibrate_worker = a->self;
	} else
		fprintf(stderr, "wattcast serve: warning: cannot find its own executable (/proc/self/exe: %s); "
		        "POST /v1/calibrate will answer 503\n", n < 0 ? strerror(errno) : "path too long");
	return CLI_OK;
}

/* Start the server on `params`, serve until SIGINT or SIGTERM (reloading
 * on SIGHUP), then stop it. */
static int
run_server(const char *cmd, const serve_args *a, int n, const wc_params *const *sets,
           const char *const *sources)
{
	wc_server *srv = NULL;
	wc_error err;
	sigset_t set;
	char version[17];
	int pipe_r = -1, rc;

	/* Worker threads must not meet an OpenBLAS thread pool (the request
	 * path makes no BLAS calls today; this keeps it so if one appears). */
	wc_linalg_pin_single_thread();

	/* Blocked while CivetWeb starts its threads (they inherit the mask);
	 * the handlers replace whatever disposition we inherited (a shell's
	 * `cmd &` starts us with SIGINT ignored). */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	if (install_signal_pipe(&pipe_r) != 0)
		return cli_fail(cmd, "cannot install signal handlers: %s", strerror(errno));
	if (wc_server_start_profiles(&a->so, n, sets, sources, &srv, &err) != WC_OK)
		return cli_fail(cmd, "%s", err.msg);
	/* Signals that came during start-up are delivered now, to the pipe. */
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	wc_server_params_version(srv, version);
	printf("wattcast serve: listening on http://%.*s:%d (params %s, version %s%s)\n",
	       (int)(strrchr(a->listen, ':') - a->listen), a->listen, wc_server_port(srv), sets[0]->name,
	       version, n > 1 ? ", and other profiles: GET /v1/profiles" : "");
	fflush(stdout);
	rc = serve_loop(srv, pipe_r, a->params_paths, a->n_params);
	wc_server_stop(srv);
	printf("wattcast serve: stopped\n");
	fflush(stdout);
	return rc;
}

int
cli_cmd_serve(int argc, char **argv)
{
	const char *cmd = "serve";
	serve_args a = { .listen = "127.0.0.1:8080", .so = WC_SERVER_OPTIONS_INIT };
	char source[300];
	wc_params sets[WC_SERVER_MAX_PROFILES];
	const wc_params *ptrs[WC_SERVER_MAX_PROFILES];
	const char *sources[WC_SERVER_MAX_PROFILES];
	int rc, n = a.n_params;
	if ((rc = parse_serve_args(argc, argv, &a)) != CLI_OK || a.help)
		return rc;
	n = a.n_params ? a.n_params : 1;
	for (int i = 0; i < n; i++) {
		sets[i] = (wc_params)WC_PARAMS_INIT;
		ptrs[i] = &sets[i];
		sources[i] = a.n_params ? a.params_paths[i] : source;
	}
	snprintf(source, sizeof source, "profile:%s", a.profile ? a.profile : WC_DEFAULT_PROFILE);
	rc = CLI_OK;
	for (int i = 0; i < n && rc == CLI_OK; i++)
		rc = cli_load_answer_params(cmd, a.n_params ? a.params_paths[i] : NULL, a.profile, &sets[i]);
	if (rc == CLI_OK)
		rc = run_server(cmd, &a, n, ptrs, sources);
	for (int i = 0; i < n; i++)
		wc_params_clear(&sets[i]);
	return rc;
}
