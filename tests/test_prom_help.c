/*
 * `wattcast ingest --help` says "--prometheus --help" lists the flags of
 * the Prometheus ingest (docs/cli.md); that command took "--help" for the
 * URL and failed with "-o RUNS.csv is required". --help now wins wherever
 * it stands: the usage on stdout, exit 0, nothing fetched or written.
 */
#include "tests/support/support.h"

#include <string.h>

static void
help(const char *const *argv)
{
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, "usage: wattcast ingest --prometheus URL --start T --end T");
	CHECK_CONTAINS(r.out, "--page-steps");
	CHECK(!r.err || !*r.err);
	run_result_free(&r);
}

int
main(void)
{
	/* The pointer in `ingest --help` is itself a valid command. */
	const char *top[] = { "wattcast", "ingest", "--help", NULL };
	run_result r;
	CHECK(run_wattcast(top, NULL, &r) == 0);
	CHECK_CONTAINS(r.out, "--prometheus --help");
	run_result_free(&r);

	const char *a[] = { "wattcast", "ingest", "--prometheus", "--help", NULL };
	const char *b[] = { "wattcast", "ingest", "--scrapes", "--help", NULL };
	const char *c[] = { "wattcast", "ingest", "--prometheus-json", "-h", NULL };
	const char *d[] = { "wattcast", "ingest", "--prometheus", "http://127.0.0.1:1", "--start", "0",
	                    "--end", "60", "--help", NULL };
	const char *e[] = { "wattcast", "ingest", "--help", "--prometheus", "http://127.0.0.1:1", NULL };
	help(a);
	help(b);
	help(c);
	help(d);
	help(e);

	/* After a lone "--" it is an argument, not a flag. */
	const char *f[] = { "wattcast", "ingest", "--scrapes", "x.prom", "--", "--help", NULL };
	CHECK(run_wattcast(f, NULL, &r) == 0);
	CHECK_INT(r.status, 2);
	run_result_free(&r);
	return check_report("test_prom_help");
}
