/*
 * `wattcast predict inference` and `predict flexibility` refuse what the
 * command line cannot mean, naming the flag the user gave and quoting the
 * value as typed (docs/cli.md, "Conventions"):
 *
 *  - flag values are decimal text only: no blanks, no hex form ("0x10"
 *    read as 16), no "inf" or "nan";
 *  - a flag given twice is refused, not the last value kept;
 *  - the limits of models/limits.h are refused with the value as typed
 *    (a concurrency of 1000001 read "at most 1e+06 ..., got 1e+06"), one
 *    range for a load whatever flags come with it, and
 *    an active parameter count past the largest sane model names
 *    --active-params instead of "--tp: the weights need inf GB";
 *  - an architecture fact the capacity model refuses names its own flag
 *    (--experts-per-token), not "--layers/--kv-heads/--head-dim".
 */
#include "tests/support/support.h"

#include <stdlib.h>
#include <string.h>

#define PREDICT(...) ((const char *const[]){ "wattcast", "predict", "inference", __VA_ARGS__, NULL })
#define FLEX(...) ((const char *const[]){ "wattcast", "predict", "flexibility", __VA_ARGS__, NULL })

/* Exit 2, one line on stderr containing `needle`, no "inf", no stdout. */
static void
refused(const char *const *argv, const char *needle)
{
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, 2);
	CHECK_CONTAINS(r.err, needle);
	CHECK(strstr(r.err, "inf GB") == NULL && strstr(r.err, " inf ") == NULL);
	char *nl = strchr(r.err, '\n');
	CHECK(nl && nl[1] == '\0');
	CHECK(r.out[0] == '\0');
	run_result_free(&r);
}

static void
answered(const char *const *argv)
{
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	if (r.status != 0)
		fprintf(stderr, "  stderr: %s", r.err);
	run_result_free(&r);
}

static void
strict_numbers(void)
{
	refused(PREDICT("--platform", "H100", "--active-params", "8", "--concurrency", "0x10"),
	        "--concurrency: expected a number, got '0x10'");
	refused(PREDICT("--platform", "H100", "--active-params", "8", "--concurrency", " 8"),
	        "--concurrency: expected a number, got ' 8'");
	refused(PREDICT("--platform", "H100", "--active-params", "8", "--concurrency", "8 "),
	        "--concurrency: expected a number, got '8 '");
	refused(PREDICT("--platform", "H100", "--active-params", "0x1p3", "--concurrency", "8"),
	        "--active-params: expected a number, got '0x1p3'");
	refused(PREDICT("--platform", "H100", "--active-params", "inf", "--concurrency", "8"),
	        "--active-params: expected a number, got 'inf'");
	refused(PREDICT("--platform", "H100", "--active-params", "8", "--concurrency", "NaN"),
	        "--concurrency: expected a number, got 'NaN'");
	refused(PREDICT("--platform", "H100", "--active-params", "8", "--concurrency", "8", "--tp", " 2"),
	        "--tp: expected a whole number, got ' 2'");
	refused(PREDICT("--platform", "H100", "--active-params", "8", "--concurrency", "8", "--tp", "0x2"),
	        "--tp: expected a whole number, got '0x2'");
	refused(PREDICT("--platform", "H100", "--active-params", "8", "--concurrency", "8", "--tp", "1.5e0"),
	        "--tp: expected a whole number, got '1.5e0'");
	refused(PREDICT("--platform", "H100", "--active-params", "8", "--concurrency", "."),
	        "--concurrency: expected a number, got '.'");
	refused(PREDICT("--platform", "H100", "--active-params", "8", "--concurrency", "1e"),
	        "--concurrency: expected a number, got '1e'");
	/* Plain decimal forms stay accepted. */
	answered(PREDICT("--platform", "H100", "--active-params", "8.19", "--concurrency", "3.2e1", "--tp", "+1"));
	answered(PREDICT("--platform", "H100", "--active-params", ".5", "--concurrency", "8.", "--tp", "01"));
}

static void
given_twice(void)
{
	refused(PREDICT("--platform", "H100", "--active-params", "8", "--concurrency", "8", "--concurrency", "9"),
	        "--concurrency given twice");
	refused(PREDICT("--platform", "H100", "--platform", "A100", "--active-params", "8", "--concurrency", "8"),
	        "--platform given twice");
	refused(FLEX("--platform", "H100", "--model", "Qwen3-8B", "--concurrency", "8", "--input-tokens", "512",
	             "--output-tokens", "256", "--steps", "4", "--steps", "5"),
	        "--steps given twice");
}

static void
limits(void)
{
	refused((const char *const[]){ "wattcast", "envelope", "--platform", "A100", "--active-params", "1e300",
	                               "--poisson", "1", NULL },
	        "--active-params: must be at most 100000, got '1e300'");
	refused(PREDICT("--platform", "H100", "--active-params", "1e300", "--concurrency", "8"),
	        "--active-params: must be at most 100000, got '1e300'");
	refused(PREDICT("--platform", "H100", "--active-params", "100000.5", "--concurrency", "8"),
	        "--active-params: must be at most 100000, got '100000.5'");
	refused(PREDICT("--platform", "H100", "--model", "Qwen3-8B", "--total-params", "1e300", "--concurrency", "8"),
	        "--total-params: must be at most 100000, got '1e300'");
	refused(PREDICT("--platform", "H100", "--model", "Qwen3-8B", "--concurrency", "1000001", "--input-tokens",
	                "100", "--output-tokens", "100"),
	        "--concurrency: must be at most 1e+06, got '1000001'");
	refused(PREDICT("--platform", "H100", "--model", "Qwen3-8B", "--concurrency", "8", "--input-tokens",
	                "100000001", "--output-tokens", "100"),
	        "--input-tokens: must be at most 1e+08, got '100000001'");
	refused(PREDICT("--platform", "H100", "--model", "Qwen3-8B", "--concurrency", "8", "--input-tokens", "100",
	                "--output-tokens", "100000001"),
	        "--output-tokens: must be at most 1e+08, got '100000001'");
	refused(PREDICT("--platform", "H100", "--model", "Qwen3-8B", "--rate", "1000001", "--input-tokens", "100",
	                "--output-tokens", "100"),
	        "--rate: must be at most 1e+06, got '1000001'");
	/* At the limits the answer is given. */
	answered(PREDICT("--platform", "H100", "--model", "Qwen3-8B", "--concurrency", "1000000", "--input-tokens",
	                 "100", "--output-tokens", "100"));
}

/* A load has one range whatever flags come with it (models/limits.h):
 * without token lengths 1e300 running requests was answered with a
 * power and only a calibrated-span warning; a running series' samples
 * take the same bound, and a power cap past any board is refused. */
static void
one_load_range(void)
{
	refused(PREDICT("--platform", "H100", "--model", "Qwen3-8B", "--concurrency", "1e300"),
	        "wattcast predict inference: --concurrency: must be at most 1e+06, got '1e300'");
	refused(PREDICT("--platform", "H100", "--active-params", "8", "--concurrency", "1000001"),
	        "--concurrency: must be at most 1e+06, got '1000001'");
	refused(PREDICT("--platform", "H100", "--model", "Qwen3-8B", "--concurrency", "1e300", "--rate", "2",
	                "--input-tokens", "100", "--output-tokens", "100"),
	        "--concurrency: must be at most 1e+06, got '1e300'");
	refused(FLEX("--platform", "H100", "--model", "Qwen3-8B", "--concurrency", "1e300", "--input-tokens", "100",
	             "--output-tokens", "100"),
	        "wattcast predict flexibility: --concurrency: must be at most 1e+06, got '1e300'");
	answered(PREDICT("--platform", "H100", "--model", "Qwen3-8B", "--concurrency", "1e6"));
	char *dir = test_tmpdir("cli_input_messages");
	char *big = test_fixture(dir, "big.csv", "t_s,running\n0,8\n1,1e300\n2,3\n");
	char *top = test_fixture(dir, "top.csv", "t_s,running\n0,8\n1,1000000\n2,3\n");
	run_result r; /* a file's cell: an input error, exit 1, as a negative one */
	CHECK(run_wattcast(PREDICT("--platform", "H100", "--model", "Qwen3-8B", "--running-series", big), NULL, &r) == 0);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "--running-series: ");
	CHECK_CONTAINS(r.err, "big.csv:3:3: running must be a number 0 to 1e+06, got 1e300");
	CHECK(r.out[0] == '\0');
	run_result_free(&r);
	answered(PREDICT("--platform", "H100", "--model", "Qwen3-8B", "--running-series", top));
	free(big);
	free(top);
	free(dir);
	refused(PREDICT("--platform", "H100", "--model", "Qwen3-8B", "--concurrency", "8", "--power-cap", "1e300"),
	        "wattcast predict inference: --power-cap: must be at most 5000, got '1e300'");
	refused(PREDICT("--platform", "H100", "--model", "Qwen3-8B", "--concurrency", "8", "--power-cap", "5000.5"),
	        "--power-cap: must be at most 5000, got '5000.5'");
	/* above the board's limit and within the bound: answered, with the
	 * warning that it cannot bind (docs/capacity.md) */
	answered(PREDICT("--platform", "H100", "--model", "Qwen3-8B", "--concurrency", "8", "--power-cap", "5000"));
}

static void
architecture_flags(void)
{
	refused(PREDICT("--platform", "H100", "--model", "Qwen3-30B-A3B", "--concurrency", "8",
	                "--experts-per-token", "500"),
	        "wattcast predict inference: --experts-per-token: must be below experts (128), got 500");
	refused(PREDICT("--platform", "H100", "--active-params", "8", "--layers", "32", "--kv-heads", "8",
	                "--head-dim", "128", "--sliding-window", "4096", "--concurrency", "8", "--input-tokens", "10",
	                "--output-tokens", "10"),
	        "wattcast predict inference: --sliding-window: no layer attends within it; give cache_layers, the layers "
	        "with full attention, below layers (32)");
	/* the converse: the layers past --cache-layers would cache nothing */
	refused(PREDICT("--platform", "H100", "--active-params", "8", "--layers", "32", "--kv-heads", "8",
	                "--head-dim", "128", "--cache-layers", "8", "--concurrency", "64", "--input-tokens", "4000",
	                "--output-tokens", "200"),
	        "wattcast predict inference: --sliding-window: required with cache_layers (8) below layers (32): the "
	        "other 24 layers would cache nothing; give the tokens they attend to");
	refused(PREDICT("--platform", "H100", "--model", "Qwen3-30B-A3B", "--concurrency", "8", "--total-params", "1"),
	        "wattcast predict inference: --total-params: must be >= active_params_b");
}

/* A positive concurrency or rate below a millionth (models/limits.h) is
 * refused naming the bound: over HTTP it answered null energies, and the
 * CLI said "expected a number" of a text too small for a double. */
static void
least_load(void)
{
	refused(PREDICT("--platform", "H100", "--model", "Qwen3-8B", "--concurrency", "1e-320"),
	        "wattcast predict inference: --concurrency: must be 0 (idle) or at least 1e-06 requests at once, "
	        "got '1e-320'");
	refused(PREDICT("--platform", "H100", "--model", "Qwen3-8B", "--concurrency", "1e-7", "--input-tokens", "512",
	                "--output-tokens", "256"),
	        "--concurrency: must be 0 (idle) or at least 1e-06 requests at once, got '1e-7'");
	refused(PREDICT("--platform", "H100", "--model", "Qwen3-8B", "--concurrency", "-1e-400"),
	        "--concurrency: must be >= 0, got '-1e-400'");
	refused(PREDICT("--platform", "H100", "--model", "Qwen3-8B", "--rate", "1e-320", "--input-tokens", "512",
	                "--output-tokens", "256"),
	        "--rate: must be at least 1e-06 requests/s, got '1e-320'");
	refused(FLEX("--platform", "H100", "--model", "Qwen3-8B", "--concurrency", "5e-324", "--input-tokens", "512",
	             "--output-tokens", "256"),
	        "wattcast predict flexibility: --concurrency: must be 0 (idle) or at least 1e-06 requests at once");
	answered(PREDICT("--platform", "H100", "--model", "Qwen3-8B", "--concurrency", "0"));
	answered(PREDICT("--platform", "H100", "--model", "Qwen3-8B", "--concurrency", "1e-6", "--input-tokens", "512",
	                 "--output-tokens", "256"));
	answered(PREDICT("--platform", "H100", "--model", "Qwen3-8B", "--rate", "0.000001", "--input-tokens", "512",
	                 "--output-tokens", "256"));
}

/* The sweep's loads are a concurrency > 0 or a rate: its refusals named
 * idle and --running-series too, one refused and the other no load for
 * it (docs/cli.md, "predict flexibility"); inference keeps its words. */
static void
flex_loads(void)
{
	char *root = test_tmpdir("cli_input_messages"), *series = path_join(root, "series.csv");
	CHECK(write_text(series, "t_s,running\n0,1\n1,2\n") == 0);
	refused(FLEX("--platform", "A100", "--model", "Qwen3-8B", "--input-tokens", "500", "--output-tokens", "200"),
	        "wattcast predict flexibility: --concurrency is required (> 0), or --rate: the sweep needs throughput\n");
	refused(FLEX("--platform", "A100", "--model", "Qwen3-8B", "--input-tokens", "500", "--output-tokens", "200",
	             "--concurrency", "0"),
	        "--concurrency: must be > 0 (or give --rate): the sweep needs throughput; got '0'");
	refused(FLEX("--platform", "A100", "--model", "Qwen3-8B", "--input-tokens", "500", "--output-tokens", "200",
	             "--running-series", series),
	        "--running-series: the sweep needs throughput at one concurrency or rate; a series has neither");
	refused(PREDICT("--platform", "A100", "--model", "Qwen3-8B"),
	        "--concurrency is required (0 = idle), or --rate, or --running-series FILE");
	answered(FLEX("--platform", "A100", "--model", "Qwen3-8B", "--input-tokens", "500", "--output-tokens", "200",
	              "--rate", "2", "--steps", "3"));
	free(series);
	free(root);
}

int
main(void)
{
	strict_numbers();
	given_twice();
	limits();
	architecture_flags();
	least_load();
	one_load_range();
	flex_loads();
	return check_report("test_cli_input_messages");
}
