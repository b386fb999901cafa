/*
 * One engine whose series change labels mid-range (docs/fleet.md,
 * "Grouping"): vLLM V1 labels its series `engine="0"` where V0 had no
 * such label, and a relabelling rule can add any label (`version`). The
 * series before and after, never present together, are one engine
 * restarted. From scrapes (host h1, one GPU at 140 W, 4 running, 40
 * generated tokens/s, the counter from 0 at the relabel at 00:02:00) the
 * `engine` case was a gap to the end of the range and `no window with both
 * ...`; the `version` case was refused as two engines one after the
 * other. Now both are one engine, said once, with the counter's drop read
 * as its restart: two rows of 120 s at 4 running, 140 W, 40 tok/s.
 */
#include "data/data.h"
#include "tests/support/prom_ingest.h"
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T0 1767225600L

static char *dir;

static void
check(const char *name, const char *added, const char *said)
{
	char *buf = NULL, *in = path_join(dir, name), *out = path_join(dir, "out.csv");
	size_t len = 0, cap = 0;
	double gen = 0;
	for (int s = 0; s < 240; s++) {
		char lab[160];
		snprintf(lab, sizeof lab, "%s%sinstance=\"h1:8000\",model_name=\"Qwen/Qwen3-8B\"", s < 120 ? "" : added,
		         s < 120 || !added[0] ? "" : ",");
		gen = s == 120 ? 40 : gen + 40;
		test_appendf(&buf, &len, &cap, "# wattcast-scrape %ld h1:8000\nvllm:num_requests_running{%s} 4\n"
		             "vllm:generation_tokens_total{%s} %.0f\n# wattcast-scrape %ld dcgm:9400\n"
		             "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\",UUID=\"GPU-0\",Hostname=\"h1\",modelName=\"NVIDIA H100 80GB "
		             "HBM3\"} 140\n", T0 + s, lab, lab, gen, T0 + s);
	}
	CHECK(write_text(in, buf) == 0);
	free(buf);
	const char *argv[] = { "wattcast", "ingest", "--scrapes", in, "-o", out, "--min-window", "1", NULL };
	run_result r;
	wc_runs_table *t = NULL;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	fprintf(stderr, "%s: exit %d\n%s", name, r.status, r.err ? r.err : "");
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.err, said);
	CHECK_CONTAINS(r.err, "counter reset at 2026-01-01T00:02:00.000Z (from 4800 to 40), an engine restart");
	if (r.status == 0)
		t = test_prom_rows_each(out, 2, 4.0, 140.0, 40.0);
	else
		CHECK(0);
	wc_runs_free(t);
	run_result_free(&r);
	free(in);
	free(out);
}

int
main(void)
{
	dir = test_tmpdir("prom_relabel");
	check("engine.prom", "engine=\"0\"", "{instance=\"h1:8000\",model_name=\"Qwen/Qwen3-8B\"}: "
	      "under new labels from 2026-01-01T00:02:00.000Z (engine=\"0\"), never beside the old series: one engine "
	      "relabelled (vLLM V1's engine label?), read as one series; a counter that drops is its restart");
	check("version.prom", "version=\"v1\"", "under new labels from 2026-01-01T00:02:00.000Z (version=\"v1\"), never "
	      "beside the old series: one engine relabelled, read as one series");
	free(dir);
	return check_report("test_prom_relabel");
}
