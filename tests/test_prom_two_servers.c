/*
 * A bare-metal host with one vLLM server per GPU on different ports and
 * no pod label (docs/fleet.md, "Grouping"): DCGM on h1:9400 with GPUs 0
 * and 1, engines at h1:8000 and h1:8001, beside a plain host h2. No
 * --group-by parts the two servers (the GPUs carry no `instance` of
 * theirs), yet the refusal sent the user to --group-by, whose every
 * choice was refused again; and h1 cost h2 its rows, nothing written,
 * exit 1. Now h1 is left out with a warning naming it and what works
 * (each server's scrape labelled with its GPU's `gpu`, then --group-by
 * host,gpu; or run folders), h2 is written, exit 0; and that remedy is
 * read: labelled so, h1's two servers give rows of their own.
 */
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *dir;

static const char remedy[] = "group 'h1' left out: two engines at once, by a label no GPU has (give each "
                             "server's scrape its GPU's gpu label, --group-by host,gpu; or run folders) differ "
                             "in instance: 'h1:8000' ";

/* 120 s of scrapes: h1's two servers (labelled with their GPU's `gpu`
 * when `gpu_label`), and h2 when `with_h2`. */
static char *
fleet(const char *name, int gpu_label, int with_h2)
{
	size_t cap = 1 << 20, len = 0;
	char *buf = malloc(cap);
	CHECK(buf != NULL);
	for (int s = 0; s < 120; s++) {
		long t = 1767225600L + s;
		len += (size_t)snprintf(buf + len, cap - len, "# wattcast-scrape %ld h1:9400\n", t);
		for (int g = 0; g < 2; g++)
			len += (size_t)snprintf(buf + len, cap - len,
			                        "DCGM_FI_DEV_POWER_USAGE{gpu=\"%d\",UUID=\"GPU-%d\",modelName=\"NVIDIA "
			                        "A100-SXM4-80GB\",Hostname=\"h1\"} %d\n", g, g, 200 + 50 * g);
		for (int g = 0; g < 2; g++)
			len += (size_t)snprintf(buf + len, cap - len, "# wattcast-scrape %ld h1:800%d\n"
			                        "vllm:num_requests_running{%smodel_name=\"Qwen/Qwen3-8B\"} %d\n", t, g,
			                        gpu_label ? (g ? "gpu=\"1\"," : "gpu=\"0\",") : "", 4 + 4 * g);
		if (with_h2)
			len += (size_t)snprintf(buf + len, cap - len, "# wattcast-scrape %ld h2:9400\n"
			                        "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\",UUID=\"GPU-9\",modelName=\"NVIDIA "
			                        "A100-SXM4-80GB\",Hostname=\"h2\"} 300\n# wattcast-scrape %ld h2:8000\n"
			                        "vllm:num_requests_running{model_name=\"Qwen/Qwen3-8B\"} 6\n", t, t);
	}
	char *path = path_join(dir, name);
	CHECK(write_text(path, buf) == 0);
	free(buf);
	return path;
}

/* ingest IN (--group-by BY when not NULL): its status, stderr and the
 * table's text (NULL when none written). */
static int
ingest(const char *in, const char *by, run_result *r, char **csv)
{
	char *out = path_join(dir, "out.csv");
	remove(out);
	const char *argv[] = { "wattcast", "ingest", "--scrapes", in, "-o", out, by ? "--group-by" : NULL, by, NULL };
	CHECK(run_wattcast(argv, NULL, r) == 0);
	*csv = test_exists(out) ? test_slurp(out) : NULL;
	free(out);
	return r->status;
}

int
main(void)
{
	dir = test_tmpdir("prom_two_servers");
	run_result r;
	char *csv;

	/* h1 left out, named with what works; h2 written, exit 0 */
	char *in = fleet("both.prom", 0, 1);
	CHECK_INT(ingest(in, NULL, &r, &csv), 0);
	CHECK_CONTAINS(r.err, "warning: ");
	CHECK_CONTAINS(r.err, remedy);
	CHECK(csv && strstr(csv, "\nh2#") && !strstr(csv, "\nh1"));
	run_result_free(&r);
	free(csv);
	free(in);

	/* h1 alone: nothing to write, refused for that reason (exit 1) */
	in = fleet("h1.prom", 0, 0);
	CHECK_INT(ingest(in, NULL, &r, &csv), 1);
	CHECK_CONTAINS(r.err, remedy);
	CHECK(!strstr(r.err, "warning"));
	CHECK(csv == NULL);
	run_result_free(&r);
	free(csv);
	free(in);

	/* the remedy works: each server's scrape labelled with its GPU */
	in = fleet("gpu.prom", 1, 0);
	CHECK_INT(ingest(in, "host,gpu", &r, &csv), 0);
	CHECK(csv && strstr(csv, "\nh1/0#") && strstr(csv, "\nh1/1#"));
	run_result_free(&r);
	free(csv);
	free(in);
	free(dir);
	return check_report("test_prom_two_servers");
}
