/*
 * The step's bounds and a saved answer's result (docs/fleet.md, "Queries";
 * docs/formats/prometheus.md):
 * - pages each holding one sample of every series (step x page steps
 *   under two scrape intervals) measure the interval from the spacing
 *   across pages and refuse a step shorter than it. The group was marked
 *   measured without that spacing being checked: --step 0.5 --page-steps
 *   4 over 2 s scrapes gave 31 excluded rows of h1, exit 0;
 * - --step 0.001 queried [1ms] (the range one ms short of the step could
 *   not be), counting each sample in two steps: --step is 2 ms at least,
 *   refused before any query, and the query of a 2 ms step reads [1ms];
 * - a query_range answer whose result is null, missing or an object was
 *   refused as "/data/resultType: 'matrix', expected 'matrix' ...": it
 *   names /data/result and what it holds;
 * - a group with GPU power and engine load but no step holding both gave
 *   no row, and with its warnings past the budget no line named it.
 */
#include "data/data.h"
#include "trace/fleet.h"
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define T0 1767225600

static char *dir;

/* Pages of 2 steps of 1 s over 2 s scrapes, as a server pages them: every
 * page holds one sample of the power and one of the running count. */
static void
check_pages_of_one_sample_each(void)
{
	wc_fleet_options o;
	wc_fleet *f = NULL;
	wc_runs_table *t = NULL;
	wc_error err = { 0 };
	wc_fleet_options_init(&o);
	o.start = T0;
	o.end = T0 + 119;
	o.step = 1.0;
	CHECK_INT(wc_fleet_new(&o, &f, &err), WC_OK);
	const char *pn[] = { "gpu", "Hostname", "modelName" }, *pv[] = { "0", "h1", "NVIDIA H100 80GB HBM3" };
	const char *en[] = { "instance", "model_name" }, *ev[] = { "h1:8000", "Qwen/Qwen3-8B" };
	int rc = WC_OK;
	for (size_t k0 = 0; rc == WC_OK && k0 < 120; k0 += 2) {
		wc_prom_set set = { 0 };
		CHECK_INT(wc_prom_set_add(&set, "DCGM_FI_DEV_POWER_USAGE", 3, pn, pv, T0 + (double)k0, 300, &err), WC_OK);
		CHECK_INT(wc_prom_set_add(&set, "vllm:num_requests_running", 2, en, ev, T0 + (double)k0 + 1, 8, &err),
		          WC_OK);
		rc = wc_fleet_feed(f, &set, k0, k0 + 2, &err);
		wc_prom_set_clear(&set);
	}
	if (rc == WC_OK)
		rc = wc_fleet_finish(f, &t, &err);
	CHECK_INT(rc, WC_EINVAL);
	CHECK_CONTAINS(err.msg, "--step 1 s is shorter than the scrape interval: --step 2 or longer (group 'h1'");
	wc_runs_free(t);
	wc_fleet_free(f);
}

static char said[4096];

static void
keep_line(const char *msg, void *payload)
{
	(void)payload;
	snprintf(said + strlen(said), sizeof said - strlen(said), "%s\n", msg);
}

/* h2's GPU power for the first minute, its engine's load for the second:
 * no step of h2 holds both, and past the warnings' budget (none kept
 * here) a line still names it. */
static void
check_group_without_rows(void)
{
	wc_fleet_options o;
	wc_fleet *f = NULL;
	wc_runs_table *t = NULL;
	wc_error err = { 0 };
	wc_prom_set set = { 0 };
	wc_fleet_options_init(&o);
	o.start = T0;
	o.end = T0 + 119;
	o.step = 1.0;
	o.warn = keep_line;
	o.max_warnings = 0;
	said[0] = '\0';
	const char *pn[] = { "gpu", "Hostname", "modelName" }, *en[] = { "instance", "model_name" };
	for (int h = 1; h <= 2; h++) {
		char host[8], inst[16];
		snprintf(host, sizeof host, "h%d", h);
		snprintf(inst, sizeof inst, "h%d:8000", h);
		const char *pv[] = { "0", host, "NVIDIA H100 80GB HBM3" }, *ev[] = { inst, "Qwen/Qwen3-8B" };
		for (int k = 0; k < 120; k++) {
			if (h == 1 || k < 60)
				CHECK_INT(wc_prom_set_add(&set, "DCGM_FI_DEV_POWER_USAGE", 3, pn, pv, T0 + k, 300, &err), WC_OK);
			if (h == 1 || k >= 60)
				CHECK_INT(wc_prom_set_add(&set, "vllm:num_requests_running", 2, en, ev, T0 + k, 8, &err), WC_OK);
		}
	}
	CHECK_INT(wc_fleet_new(&o, &f, &err), WC_OK);
	CHECK_INT(wc_fleet_feed(f, &set, 0, 120, &err), WC_OK);
	CHECK_INT(wc_fleet_finish(f, &t, &err), WC_OK);
	CHECK(t && t->n_runs == 1);
	CHECK_CONTAINS(said, "no row of group 'h2' (1 of 2 with GPU power and engine load): no step held both\n");
	wc_prom_set_clear(&set);
	wc_runs_free(t);
	wc_fleet_free(f);
}

static void
check_step_floor(void)
{
	char q[WC_FLEET_QUERY_MAX];
	wc_error err = { 0 };
	CHECK_INT(wc_fleet_query(WC_FLEET_POWER, "", 0.001, q, sizeof q, &err), WC_EINVAL);
	CHECK_CONTAINS(err.msg, "--step: 0.001 s is not a whole number of milliseconds >= 0.002 s");
	CHECK_INT(wc_fleet_query(WC_FLEET_POWER, "", 0.002, q, sizeof q, &err), WC_OK);
	CHECK_CONTAINS(q, "[1ms]");
	/* Refused by the command before any query: no server at this port. */
	char *out = path_join(dir, "floor.csv");
	const char *argv[] = { "wattcast", "ingest", "--prometheus", "http://127.0.0.1:9", "--start", "1767225600",
	                       "--end", "1768089600", "--step", "0.001", "-o", out, NULL };
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, 2);
	CHECK_CONTAINS(r.err, "--step: must be >= 0.002, got '0.001'");
	CHECK(access(out, F_OK) != 0);
	run_result_free(&r);
	free(out);
}

static void
check_result(const char *name, const char *result, const char *message)
{
	char text[256], *in = path_join(dir, name), *out = path_join(dir, "result.csv");
	snprintf(text, sizeof text, "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\"%s}}", result);
	CHECK(write_text(in, text) == 0);
	const char *argv[] = { "wattcast", "ingest", "--prometheus-json", in, "-o", out, NULL };
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, message);
	CHECK(r.err && !strstr(r.err, "expected 'matrix'"));
	CHECK(access(out, F_OK) != 0);
	run_result_free(&r);
	free(in);
	free(out);
}

int
main(void)
{
	dir = test_tmpdir("prom_step_bounds");
	check_pages_of_one_sample_each();
	check_group_without_rows();
	check_step_floor();
	check_result("rn.json", ",\"result\":null",
	             "rn.json: /data/result: null, expected an array of series (a query_range response)");
	check_result("rm.json", "", "rm.json: /data/result: missing, expected an array of series");
	check_result("ro.json", ",\"result\":{}", "ro.json: /data/result: an object, expected an array of series");
	free(dir);
	return check_report("test_prom_step_bounds");
}
