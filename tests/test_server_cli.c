/*
 * `wattcast serve` command line: usage errors exit 2 with one line naming
 * the flag; an unreadable parameter file and a port already in use exit 1
 * with the reason (the bind error comes from mg_start2).
 */
#include "server/server.h"
#include "tests/support/support.h"

#include <stdlib.h>

#define ARGS(...) ((const char *const[]){ "wattcast", "serve", __VA_ARGS__, NULL })

static void
expect_exit(const char *const *argv, int status, const char *needle)
{
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, status);
	CHECK_CONTAINS(r.err, needle);
	char *nl = strchr(r.err, '\n');
	CHECK(nl && nl[1] == '\0'); /* exactly one line */
	CHECK(r.out[0] == '\0');    /* nothing was served */
	run_result_free(&r);
}

int
main(void)
{
	run_result r;
	const char *help[] = { "wattcast", "serve", "--help", NULL };
	CHECK(run_wattcast(help, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, "--listen HOST:PORT");
	CHECK_CONTAINS(r.out, "SIGHUP");
	run_result_free(&r);

	expect_exit(ARGS("--bogus"), 2, "unknown flag '--bogus'");
	expect_exit(ARGS("--listen"), 2, "--listen needs a value");
	expect_exit(ARGS("--listen", "127.0.0.1:http"), 2, "--listen: the port must be digits, 0 to 65535");
	/* read as 28453 before (cli_parse_int takes a sign and exponents) */
	expect_exit(ARGS("--listen", "127.0.0.1:+28453"), 2, "--listen: the port must be digits, 0 to 65535");
	expect_exit(ARGS("--listen", "2845e1"), 2, "--listen: the port must be digits, 0 to 65535");
	/* exit 1 with CivetWeb's "Failed to setup server ports" before */
	expect_exit(ARGS("--listen", "256.0.0.1:28453"), 2, "--listen: host must be an IPv4 address, four numbers");
	expect_exit(ARGS("--listen", "127.1:28453"), 2, "--listen: host must be an IPv4 address, four numbers");
	expect_exit(ARGS("--listen", "127.0.0.1:70000"), 2, "--listen: must be between 0 and 65535");
	expect_exit(ARGS("--listen", "localhost:8080"), 2, "--listen: host must be an IPv4 address");
	expect_exit(ARGS("--threads", "0"), 2, "--threads: must be between 2");
	expect_exit(ARGS("--threads", "1"), 2, "--threads: must be between 2 and 1024, got '1'"); /* no reserve */
	expect_exit(ARGS("--max-body", "lots"), 2, "--max-body: expected a whole number");
	expect_exit(ARGS("--params", "a.json", "--profile", "paper"), 2,
	            "give at most one of --params and --profile");
	expect_exit(ARGS("extra"), 2, "unexpected argument 'extra'");
	expect_exit(ARGS("--profile", "nope", "--listen", "0"), 2,
	            "--profile: unknown profile 'nope' (available: measured, paper, paper-prefill)");
	expect_exit(ARGS("--params", "/nonexistent/params.json", "--listen", "0"), 1,
	            "/nonexistent/params.json");

	/* A port already taken: exit 1 naming the address. */
	wc_params paper = WC_PARAMS_INIT;
	wc_server *srv = NULL;
	wc_error err;
	wc_server_options so = WC_SERVER_OPTIONS_INIT;
	so.listen = "127.0.0.1:0";
	so.threads = 2;
	wc_params_default(&paper);
	CHECK_INT(wc_server_start(&so, &paper, NULL, &srv, &err), WC_OK);
	if (srv) {
		char listen[32];
		snprintf(listen, sizeof listen, "127.0.0.1:%d", wc_server_port(srv));
		/* the command named once (it read "wattcast serve: serve: ...") */
		expect_exit(ARGS("--listen", listen), 1, "wattcast serve: cannot listen on");
		/* The in-process API refuses the same way. */
		wc_server *again = NULL;
		so.listen = listen;
		CHECK_INT(wc_server_start(&so, &paper, NULL, &again, &err), WC_EIO);
		CHECK(again == NULL);
		CHECK_CONTAINS(err.msg, listen);
		wc_server_stop(srv);
	}
	wc_params_clear(&paper);
	return check_report("test_server_cli");
}
