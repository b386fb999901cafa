/*
 * A flag whose value is missing, the next flag taken for it, is a usage
 * error naming the flag (docs/cli.md, "Conventions"): `ingest --prometheus
 * URL ... --model -o z.csv` took "-o" as the model and said "z.csv: run
 * folders cannot be mixed with --prometheus". The check is in the shared
 * option parser, so it holds for every command; a few stand in for all.
 * A value in the flag's own word (--model=-o) and a negative number are
 * values.
 */
#include "tests/support/support.h"

#include <stdlib.h>
#include <string.h>

static void
refused(const char *const *argv, const char *needle)
{
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, 2);
	CHECK_CONTAINS(r.err, needle);
	CHECK(r.err && !strstr(r.err, "run folders"));
	CHECK(r.out && r.out[0] == '\0');
	run_result_free(&r);
}

int
main(void)
{
	char *dir = test_tmpdir("cli_flag_as_value");
	char *out = path_join(dir, "z.csv");
	/* no server listens on port 1: an accepted command fails connecting */
	const char *model[] = { "wattcast", "ingest", "--prometheus", "http://127.0.0.1:1", "--start", "1767225600",
		                "--end", "1767229199", "--model", "-o", out, NULL };
	refused(model, "wattcast ingest: --model needs a value (see --help), and '-o' after it is a flag");
	const char *prefix[] = { "wattcast", "ingest", "--prometheus", "http://127.0.0.1:1", "--start", "1767225600",
		                 "--end", "1767229199", "--model", "--out", out, NULL };
	refused(prefix, "--model needs a value (see --help), and '--out' after it is a flag");
	const char *short_o[] = { "wattcast", "ingest", "-o", "--model", "x", "run", NULL };
	refused(short_o, "wattcast ingest: -o needs a value (see --help), and '--model' after it is a flag");
	const char *fit[] = { "wattcast", "fit", "inference", "runs.csv", "--output", "--profile", "paper", NULL };
	refused(fit, "wattcast fit inference: --output needs a value (see --help), and '--profile' after it is a "
	        "flag");

	/* --model=-o is the model "-o", as typed: the command goes on */
	const char *joined[] = { "wattcast", "ingest", "--prometheus", "http://127.0.0.1:1", "--start", "1767225600",
		                 "--end", "1767229199", "--model=-o", "-o", out, NULL };
	run_result r;
	CHECK(run_wattcast(joined, NULL, &r) == 0);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "http://127.0.0.1:1: ");
	run_result_free(&r);
	/* a negative number is a value, refused by its flag's bound */
	const char *negative[] = { "wattcast", "predict", "inference", "--platform", "H100", "--active-params", "8",
		                   "--concurrency", "-5", NULL };
	CHECK(run_wattcast(negative, NULL, &r) == 0);
	CHECK_INT(r.status, 2);
	CHECK_CONTAINS(r.err, "--concurrency");
	CHECK(r.err && !strstr(r.err, "after it is a flag"));
	run_result_free(&r);

	free(out);
	free(dir);
	return check_report("test_cli_flag_as_value");
}
